// Polly's JSCoP (a SCoP as JSON: context, arrays, statements with domain,
// schedule and accesses, no bodies) scheduled by Atoll: memory-based
// dependences (every write is a may-write), one of Atoll's schedulers,
// tiling sized from footprints, loop orders for the vectorizer, and one flat
// schedule map per statement that Polly's importer accepts.
//
// This layer sees the JSCoP as plain strings (src/frontend/jscop_file reads
// and writes the JSON); it parses them with isl and reports bad text as
// UserError with the JSON pointer of the string.
#pragma once

#include <atoll/diagnostics.h>

#include <ostream>
#include <string>
#include <vector>

namespace atl::poly {

struct JscopArray {
  std::string name;
  std::vector<std::string> sizes;  ///< "*" for the outermost size of a pointer
  std::string type;                ///< LLVM type name: double, float, i32, i64, i8, ...
};

struct JscopAccess {
  bool write = false;    ///< kind "write" (a may-write: Polly says no more)
  std::string relation;  ///< isl map { Stmt[...] -> Array[...] }
};

struct JscopStatement {
  std::string name;
  std::string domain;    ///< isl set { Stmt[i0, ...] : ... }
  std::string schedule;  ///< isl map { Stmt[i0, ...] -> [...] }: the original order
  std::vector<JscopAccess> accesses;
};

/// One SCoP as Polly exports it.
struct Jscop {
  std::string name;     ///< the region ("%2---%4")
  std::string context;  ///< isl parameter set
  std::vector<JscopArray> arrays;
  std::vector<JscopStatement> statements;
};

/// How to schedule a JSCoP.
struct JscopOptions {
  /// "isl" (the default), "pluto" (permutable bands found by Pluto's
  /// search), "feautrier", or "original" (the schedules are kept as given).
  std::string scheduler = "isl";
  enum class Tile { Auto, None, Sizes };
  Tile tile = Tile::Auto;
  std::vector<long> tile_sizes;  ///< Tile::Sizes: per band member, the last repeated
  bool identity = false;         ///< keep every schedule unchanged (round trip)
  /// Accept schedules with skewed band members (time tiling). Off by
  /// default: such a SCoP keeps its original schedule.
  bool allow_skew = false;
  long cache_bytes = 0;          ///< footprint budget of a tile (0: the host's L2 / 2)
  unsigned long quota = 2'000'000;  ///< isl operations of one scheduler attempt
  /// Wall-clock bound of the scheduler (isl's two attempts share it, the
  /// fallback scheduler gets 0.9 of it) and of each later step.
  double seconds = 1;
};

/// A band that was tiled.
struct JscopTiledBand {
  std::vector<long> sizes;       ///< one per member
  long footprint_bytes = 0;      ///< of one tile, as estimated
  int innermost = -1;            ///< the member put innermost among the point loops (-1: order kept)
  std::vector<int> jammed;       ///< members unrolled by 4 and jammed inside the innermost loop
};

/// The result: one schedule per statement (input order), all with the same
/// number of output dimensions.
struct JscopResult {
  std::vector<std::string> schedules;
  bool changed = false;     ///< the schedules differ from the input's
  std::string algorithm;    ///< "pluto", "isl", ..., "original", "identity"
  std::string reason;       ///< when unchanged: why
  std::vector<std::string> fallbacks;  ///< steps given up, one line each
  std::vector<JscopTiledBand> tiled;
  bool outer_parallel = false;  ///< the outermost loop carries no dependence
  int dimensions = 0;           ///< output dimensions of every schedule
  std::string tree;             ///< the final schedule tree (isl YAML), "" when unchanged
  double seconds = 0;
};

/// Schedules `scop`. Throws UserError (pointer "/statements/2/domain", ...)
/// for text isl cannot parse or that does not fit together (a statement
/// whose domain, schedule and accesses name different tuples, schedules of
/// a statement with different input dimensions). Never returns an illegal
/// schedule: the result is checked on the flat maps against the
/// memory-based dependences, and the original schedule comes back (with the
/// reason) when no legal improvement was found.
JscopResult schedule_jscop(const Jscop &scop, const JscopOptions &options = {});

/// `atoll explain FILE.jscop`: statements, dependences by kind, the
/// schedule tree found and the flat schedules written.
void explain_jscop(std::ostream &os, const Jscop &scop, const JscopOptions &options = {});

}  // namespace atl::poly
