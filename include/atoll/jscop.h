// Atoll as a scheduler for Polly: JSCoP files (what `clang -mllvm -polly
// -mllvm -polly-export` writes) read, rescheduled by Atoll and written back
// for `-polly-import` (docs/jscop.md has the recipe).
#pragma once

#include <string>
#include <vector>

namespace atl {

/// How `atoll jscop` schedules.
struct JscopOptions {
  std::string scheduler = "isl";    ///< isl, pluto, feautrier or original (schedules kept)
  std::string tile = "auto";        ///< auto (from footprints), none, or sizes "32,32,64"
  bool identity = false;            ///< write every schedule unchanged
  bool allow_skew = false;          ///< accept skewed schedules (time tiling of stencils)
  long cache_bytes = 0;             ///< footprint budget of a tile (0: half the host's L2)
  /// Wall-clock bound of the scheduler (the fallback scheduler gets 0.9 of
  /// it) and of each later step: at most about 2 s a SCoP.
  double seconds = 1;
};

/// What happened to one JSCoP file.
struct JscopFileResult {
  std::string file;       ///< the file name (relative to the input directory)
  bool ok = false;        ///< false: `error` says why, and the file was copied unchanged
  std::string error;      ///< "/statements/0/domain: ..." (the JSON pointer first)
  bool changed = false;   ///< a new schedule was written
  std::string algorithm;  ///< pluto, isl, feautrier, original, identity
  std::string reason;     ///< when unchanged: why
  std::vector<std::string> fallbacks;
  int statements = 0;
  int dimensions = 0;     ///< output dimensions of the written schedules
  std::vector<std::vector<long>> tiles;  ///< the tile sizes of each tiled band
  bool outer_parallel = false;
  double seconds = 0;     ///< Atoll's time on this file
};

/// Every file of a directory.
struct JscopRunResult {
  std::vector<JscopFileResult> files;
  std::string report_json;  ///< the files and a summary, as JSON text
  int exit_status() const;  ///< 0 when every file was read and scheduled (changed or not), else 1
};

/// Schedules one JSCoP text and returns the text to write (the input's own
/// bytes when nothing changed). Throws atl::UserError for bad input.
std::string schedule_jscop_text(const std::string &text, const JscopOptions &options, JscopFileResult *info = nullptr);

/// Schedules every `*.jscop` of `in` (a directory, or one file) into the
/// directory `out` under the same names. A file that fails is copied
/// unchanged and reported; the others go on. Throws atl::UserError when
/// `in` is missing or holds no JSCoP file, or `out` cannot be written.
JscopRunResult run_jscop(const std::string &in, const std::string &out, const JscopOptions &options);

/// `atoll explain FILE.jscop`: statements, dependences, the schedule tree and
/// the flat schedules. Throws atl::UserError for bad input.
std::string explain_jscop_file(const std::string &path, const JscopOptions &options);

}  // namespace atl
