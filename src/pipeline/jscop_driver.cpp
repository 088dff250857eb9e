// `atoll jscop`: every JSCoP file of a directory read (src/frontend),
// scheduled (polyhedral/jscop) and written back under its own name, with a
// report; a file that fails is copied unchanged so that Polly still finds a
// file for each SCoP of the compilation unit.
#include <atoll/jscop.h>

#include "polyhedral/jscop/jscop.h"
#include "src/frontend/jscop_file.h"

#include <atoll/diagnostics.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace atl {

namespace fs = std::filesystem;

namespace {

poly::JscopOptions poly_options(const JscopOptions &o) {
  poly::JscopOptions p;
  p.scheduler = o.scheduler;
  p.identity = o.identity;
  p.allow_skew = o.allow_skew;
  p.cache_bytes = o.cache_bytes;
  p.seconds = o.seconds;
  Location where;
  where.hint = "tile";
  if (o.tile == "auto") p.tile = poly::JscopOptions::Tile::Auto;
  else if (o.tile == "none") p.tile = poly::JscopOptions::Tile::None;
  else {
    static const std::regex sizes(R"([0-9]{1,6}(,[0-9]{1,6})*)");
    if (!std::regex_match(o.tile, sizes))
      throw UserError("--tile is auto, none or sizes like 32,32,64 (got '" + o.tile + "')", where);
    p.tile = poly::JscopOptions::Tile::Sizes;
    std::stringstream in(o.tile);
    for (std::string s; std::getline(in, s, ',');) p.tile_sizes.push_back(std::stol(s));
  }
  static const char *schedulers[] = {"isl", "pluto", "feautrier", "original"};
  if (std::find(std::begin(schedulers), std::end(schedulers), o.scheduler) == std::end(schedulers)) {
    where.hint = "scheduler";
    throw UserError("--scheduler is isl, pluto, feautrier or original (got '" + o.scheduler + "')", where);
  }
  return p;
}

std::string read_text(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UserError("cannot read '" + path + "'");
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

void write_text(const fs::path &path, const std::string &text) {
  fs::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    if (!f) throw UserError("cannot write '" + path.string() + "'");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw UserError("cannot write '" + path.string() + "': " + ec.message());
}

nlohmann::ordered_json to_json(const JscopFileResult &r) {
  nlohmann::ordered_json j;
  j["file"] = r.file;
  j["status"] = !r.ok ? "error" : r.changed ? "scheduled" : "unchanged";
  if (!r.ok) {
    j["error"] = r.error;
    return j;
  }
  j["algorithm"] = r.algorithm;
  if (!r.changed) j["reason"] = r.reason;
  j["statements"] = r.statements;
  j["dimensions"] = r.dimensions;
  j["tiles"] = r.tiles;
  j["outer_parallel"] = r.outer_parallel;
  j["fallbacks"] = r.fallbacks;
  j["seconds"] = r.seconds;
  return j;
}

/// One JSCoP text scheduled with options already checked.
std::string schedule_text(const std::string &text, const poly::JscopOptions &p, JscopFileResult *info) {
  frontend::JscopFile file = frontend::read_jscop(text);
  poly::JscopResult r = poly::schedule_jscop(file.scop, p);
  if (info) {
    info->ok = true;
    info->changed = r.changed;
    info->algorithm = r.algorithm;
    info->reason = r.reason;
    info->fallbacks = r.fallbacks;
    info->statements = static_cast<int>(file.scop.statements.size());
    info->dimensions = r.dimensions;
    info->tiles.clear();
    for (const poly::JscopTiledBand &b : r.tiled) info->tiles.push_back(b.sizes);
    info->outer_parallel = r.outer_parallel;
    info->seconds = r.seconds;
  }
  return r.changed ? frontend::write_jscop(file, r.schedules) : text;
}

}  // namespace

int JscopRunResult::exit_status() const {
  for (const JscopFileResult &f : files)
    if (!f.ok) return 1;
  return 0;
}

std::string schedule_jscop_text(const std::string &text, const JscopOptions &options, JscopFileResult *info) {
  return schedule_text(text, poly_options(options), info);
}

JscopRunResult run_jscop(const std::string &in, const std::string &out, const JscopOptions &options) {
  const poly::JscopOptions p = poly_options(options);  // option errors before any file
  std::vector<fs::path> inputs;
  std::error_code ec;
  if (fs::is_directory(in, ec)) {
    for (const fs::directory_entry &e : fs::directory_iterator(in, ec))
      if (e.is_regular_file() && e.path().extension() == ".jscop") inputs.push_back(e.path());
    if (ec) throw UserError("cannot list '" + in + "': " + ec.message());
  } else if (fs::is_regular_file(in, ec)) {
    inputs.push_back(in);
  } else {
    throw UserError("'" + in + "' is neither a directory nor a file");
  }
  if (inputs.empty()) throw UserError("'" + in + "' holds no .jscop file");
  std::sort(inputs.begin(), inputs.end());
  fs::create_directories(out, ec);
  if (ec || !fs::is_directory(out)) throw UserError("cannot create the directory '" + out + "'");

  JscopRunResult run;
  for (const fs::path &path : inputs) {
    JscopFileResult r;
    r.file = path.filename().string();
    std::string text;
    try {
      text = read_text(path.string());
      std::string written = schedule_text(text, p, &r);
      write_text(fs::path(out) / r.file, written);
    } catch (const UserError &e) {
      r.ok = false;
      r.changed = false;
      r.error = e.what();
      if (!text.empty()) write_text(fs::path(out) / r.file, text);
    } catch (const std::exception &e) {
      r.ok = false;
      r.changed = false;
      r.error = std::string("internal error: ") + e.what();
      if (!text.empty()) write_text(fs::path(out) / r.file, text);
    }
    run.files.push_back(std::move(r));
  }
  nlohmann::ordered_json report;
  report["tool"] = "atoll jscop";
  report["scheduler"] = options.identity ? "identity" : options.scheduler;
  report["tile"] = options.tile;
  int scheduled = 0, unchanged = 0, failed = 0;
  double total = 0, longest = 0;
  std::vector<double> times;
  for (const JscopFileResult &f : run.files) {
    report["files"].push_back(to_json(f));
    (f.ok ? (f.changed ? scheduled : unchanged) : failed)++;
    if (f.ok) {
      total += f.seconds;
      longest = std::max(longest, f.seconds);
      times.push_back(f.seconds);
    }
  }
  std::sort(times.begin(), times.end());
  report["summary"] = {{"files", run.files.size()},
                       {"scheduled", scheduled},
                       {"unchanged", unchanged},
                       {"errors", failed},
                       {"seconds_total", total},
                       {"seconds_median", times.empty() ? 0.0 : times[times.size() / 2]},
                       {"seconds_max", longest}};
  run.report_json = report.dump(2) + "\n";
  return run;
}

std::string explain_jscop_file(const std::string &path, const JscopOptions &options) {
  poly::JscopOptions p = poly_options(options);
  frontend::JscopFile file = frontend::read_jscop(read_text(path));
  std::ostringstream os;
  poly::explain_jscop(os, file.scop, p);
  return os.str();
}

}  // namespace atl
