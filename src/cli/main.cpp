// The atoll command line: compile, run, explain (shared/spec/cli.md).

#include <atoll/driver.h>
#include <atoll/jscop.h>
#include <atoll/onnx.h>
#include <atoll/tune.h>
#include <atoll/version.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

using namespace atl;

namespace {

const char *kUsage = R"(usage:
  atoll compile BATCH.json [--target T] [-o DIR] [--verify] [--bench] [--threads N]
                           [--param NAME=VALUE ...] [--inputs DIR] [--dump DIR]
                           [--report FILE] [--stats] [--quiet] [--print-after PASSES]
                           [--records DB.jsonl] [--shard I/N]
  atoll run     BATCH.json [--target T] [--verify] [--bench] [--threads N]
                           [--param NAME=VALUE ...] [--inputs DIR] [--dump DIR]
                           [--report FILE] [--stats] [--quiet] [--print-after PASSES]
                           [--records DB.jsonl]
  atoll run     BATCH.json --verify-definitions [--param NAME=VALUE ...] [--inputs DIR] [--dump DIR]
                           [--report FILE] [--quiet]
  atoll explain BATCH.json [--graph NAME] (--stage STAGE | --print-after PASSES) [--target T]
                           [--format text|dot] [--records DB.jsonl]
  atoll import  MODEL.onnx -o BATCH.json [--inline-limit N] [--quiet]
  atoll explain --list-stages [--target T]
  atoll jscop   IN_DIR -o OUT_DIR [--scheduler isl|pluto|feautrier|original]
                           [--tile auto|none|SIZES] [--allow-skew] [--identity] [--report FILE] [--quiet]
  atoll explain FILE.jscop [--scheduler S] [--tile auto|none|SIZES] [--allow-skew]
  atoll tune    BATCH.json [--budget SECONDS] [--strategy greedy|random|exhaustive|evolutionary]
                           [--records DB.jsonl] [--seed N] [--shard I/N] [--trials N]
                           [--timeout SECONDS] [--max-memory SIZE] [--graph NAME]
                           [--measure run|model] [--model-cmd CMD]
                           [--param NAME=VALUE ...] [--report FILE] [--quiet]
  atoll db      stats|compact DB.jsonl [-o OUT.jsonl]
  atoll merge   DIR        (joins the reports of compile --shard I/N -o DIR)
  atoll --help | --version

BATCH.json: an operator batch, or an ONNX model (MODEL.onnx, read as a batch of one graph
named after the file; docs/onnx.md). --graph may be left out when the batch has one graph.
import:  writes the batch form of an ONNX model; weights above N values (default 64) go to
         .npy files in BATCH.data/ beside it

--verify-definitions: no code for any target; the operators' Compute definitions are
checked against the reference interpreter (oracle definition-vs-reference).

options beyond cli.md: --scheduler isl|pluto|feautrier (compile, run, explain) overrides
every graph's `scheduler` hint.

targets: cpu (default), cpu-c, cuda[:sm_XX], opencl, npu[:PROFILE_OR_FILE.json]
stages:  graph, clusters (text or --format dot), every pass of the target's pipeline
         (explain --list-stages), and the aliases scop, deps, schedule, ast (the IR
         each level ends with), llvm, c; space (the tuning knobs of each cluster)
tune:    measures points of each cluster's space against the default schedule (A/B, one
         thread, in a child process) and appends every measurement to --records;
         compile and run --records DB.jsonl apply the best records (docs/tuning.md)
jscop:   Polly's JSCoP files (clang -mllvm -polly -mllvm -polly-export) rescheduled by
         Atoll for -polly-import, one output file per input file (docs/jscop.md)
PASSES:  pass names separated by commas, or all: the IR after each (run and compile
         print it on standard error; (unchanged) where the pass changed nothing)
)";

bool is_pass(const std::string &name) {
  static const std::vector<std::string> passes = pass_names();
  return std::find(passes.begin(), passes.end(), name) != passes.end();
}

/// A misused command line: exit status 2.
struct UsageError {
  std::string message;
};

struct Args {
  std::string command, batch, target = "cpu", out_dir, report, graph, stage, format = "text";
  bool verify = false, bench = false, stats = false, quiet = false, list_stages = false, definitions = false;
  std::set<std::string> print_after;
  int threads = 0;
  std::map<std::string, std::int64_t> params;
  std::string inputs, dump, scheduler, tile = "auto", records;
  int shard = 0, shards = 1;
  std::int64_t inline_limit = 64;
  bool identity = false, allow_skew = false;
};

bool ends_with(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// `atoll jscop IN -o OUT ...` and `atoll explain FILE.jscop ...`.
Args parse_jscop_args(int argc, char **argv) {
  Args a;
  a.command = argv[1];
  a.scheduler = "isl";
  auto value = [&](int &i, const std::string &opt) -> std::string {
    if (i + 1 >= argc) throw UsageError{"option " + opt + " needs a value"};
    return argv[++i];
  };
  const bool build = a.command == "jscop";
  for (int i = 2; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "-o" && build) a.out_dir = value(i, s);
    else if (s == "--scheduler") {
      a.scheduler = value(i, s);
      if (a.scheduler != "isl" && a.scheduler != "pluto" && a.scheduler != "feautrier" && a.scheduler != "original")
        throw UsageError{"--scheduler is isl, pluto, feautrier or original"};
    } else if (s == "--tile") a.tile = value(i, s);
    else if (s == "--identity" && build) a.identity = true;
    else if (s == "--allow-skew") a.allow_skew = true;
    else if (s == "--report" && build) a.report = value(i, s);
    else if (s == "--quiet" && build) a.quiet = true;
    else if (!s.empty() && s[0] == '-') throw UsageError{"unknown option '" + s + "' for " + a.command + " of a JSCoP"};
    else if (a.batch.empty()) a.batch = s;
    else throw UsageError{"unexpected argument '" + s + "'"};
  }
  if (a.batch.empty()) throw UsageError{build ? "missing IN_DIR argument" : "missing FILE.jscop argument"};
  if (build && a.out_dir.empty()) throw UsageError{"jscop needs -o OUT_DIR"};
  return a;
}

/// `atoll import MODEL.onnx -o BATCH.json [--inline-limit N] [--quiet]`.
Args parse_import_args(int argc, char **argv) {
  Args a;
  a.command = "import";
  for (int i = 2; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError{"option " + s + " needs a value"};
      return argv[++i];
    };
    if (s == "-o") a.out_dir = value();
    else if (s == "--quiet") a.quiet = true;
    else if (s == "--inline-limit") {
      std::string v = value();
      if (!std::regex_match(v, std::regex("[0-9]{1,9}"))) throw UsageError{"--inline-limit needs a count of values"};
      a.inline_limit = std::stoll(v);
    } else if (!s.empty() && s[0] == '-') throw UsageError{"unknown option '" + s + "' for import"};
    else if (a.batch.empty()) a.batch = s;
    else throw UsageError{"unexpected argument '" + s + "'"};
  }
  if (a.batch.empty()) throw UsageError{"missing MODEL.onnx argument"};
  if (a.out_dir.empty()) throw UsageError{"import needs -o BATCH.json"};
  return a;
}

/// A size with an optional K, M or G suffix, in MiB.
std::int64_t parse_mib(const std::string &opt, const std::string &v) {
  std::smatch m;
  if (!std::regex_match(v, m, std::regex("([0-9]{1,9})([KMG]?)")))
    throw UsageError{opt + " needs a size such as 512M or 4G"};
  std::int64_t n = std::stoll(m[1].str());
  const std::string unit = m[2].str();
  if (unit == "G") return n * 1024;
  if (unit == "K") return std::max<std::int64_t>(1, n / 1024);
  return unit == "M" ? n : std::max<std::int64_t>(1, n / (1024 * 1024));
}

/// A positive number of seconds ("60" or "60s").
double parse_seconds(const std::string &opt, const std::string &v) {
  if (!std::regex_match(v, std::regex("[0-9]{1,6}(\\.[0-9]+)?s?")) || std::atof(v.c_str()) <= 0)
    throw UsageError{opt + " needs a positive number of seconds (60 or 60s)"};
  return std::atof(v.c_str());
}

struct TuneArgs {
  std::string batch, report;
  TuneOptions o;
  bool quiet = false;
};

/// `atoll tune BATCH ...`.
TuneArgs parse_tune_args(int argc, char **argv) {
  TuneArgs t;
  static const std::regex param(R"(([A-Za-z_][A-Za-z0-9_]*)=([0-9]{1,15}))");
  for (int i = 2; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError{"option " + s + " needs a value"};
      return argv[++i];
    };
    if (s == "--budget") t.o.budget_s = parse_seconds(s, value());
    else if (s == "--timeout") t.o.timeout_s = parse_seconds(s, value());
    else if (s == "--strategy") {
      t.o.strategy = value();
      if (t.o.strategy != "greedy" && t.o.strategy != "random" && t.o.strategy != "exhaustive" &&
          t.o.strategy != "evolutionary")
        throw UsageError{"--strategy is greedy, random, exhaustive or evolutionary"};
    } else if (s == "--measure") {
      t.o.measure = value();
      if (t.o.measure != "run" && t.o.measure != "model") throw UsageError{"--measure is run or model"};
    } else if (s == "--model-cmd") t.o.model_cmd = value();
    else if (s == "--records") t.o.records = value();
    else if (s == "--report") t.report = value();
    else if (s == "--graph") t.o.graph = value();
    else if (s == "--quiet") t.quiet = true;
    else if (s == "--max-memory") t.o.memory_mb = parse_mib(s, value());
    else if (s == "--seed") {
      std::string v = value();
      if (!std::regex_match(v, std::regex("[0-9]{1,9}"))) throw UsageError{"--seed needs a non-negative integer"};
      t.o.seed = static_cast<unsigned>(std::stoul(v));
    } else if (s == "--trials") {
      std::string v = value();
      if (!std::regex_match(v, std::regex("[1-9][0-9]{0,6}"))) throw UsageError{"--trials needs a positive integer"};
      t.o.max_trials = std::stoi(v);
    } else if (s == "--shard") {
      std::string v = value();
      std::smatch m;
      if (!std::regex_match(v, m, std::regex("([0-9]{1,4})/([1-9][0-9]{0,3})")) ||
          std::stoi(m[1].str()) >= std::stoi(m[2].str()))
        throw UsageError{"--shard needs I/N with 0 <= I < N"};
      t.o.shard = std::stoi(m[1].str());
      t.o.shards = std::stoi(m[2].str());
    } else if (s == "--param") {
      int n = 0;
      while (i + 1 < argc && std::regex_match(argv[i + 1], param)) {
        std::cmatch m;
        std::regex_match(argv[++i], m, param);
        t.o.params[m[1]] = std::stoll(m[2].str());
        ++n;
      }
      if (n == 0) throw UsageError{"--param needs NAME=VALUE (a positive integer value)"};
    } else if (!s.empty() && s[0] == '-') throw UsageError{"unknown option '" + s + "' for tune"};
    else if (t.batch.empty()) t.batch = s;
    else throw UsageError{"unexpected argument '" + s + "'"};
  }
  if (t.batch.empty()) throw UsageError{"missing BATCH.json argument"};
  if (!t.o.model_cmd.empty() && t.o.measure != "model") throw UsageError{"--model-cmd goes with --measure model"};
  t.o.progress = !t.quiet;
  return t;
}

int run_tune(int argc, char **argv);
int run_db(int argc, char **argv);

Args parse_args(int argc, char **argv) {
  Args a;
  if (argc < 2) throw UsageError{"missing command"};
  a.command = argv[1];
  if (a.command == "explain" && argc >= 3 && std::string(argv[2]) == "--list-stages") {
    a.list_stages = true;
    for (int i = 3; i < argc; ++i) {
      if (std::string(argv[i]) == "--target" && i + 1 < argc) a.target = argv[++i];
      else throw UsageError{"explain --list-stages takes only --target T"};
    }
    return a;
  }
  bool jscop_file = false;
  for (int i = 2; i < argc; ++i) jscop_file |= ends_with(argv[i], ".jscop");
  if (a.command == "jscop" || (a.command == "explain" && jscop_file))
    return parse_jscop_args(argc, argv);
  if (a.command == "import") return parse_import_args(argc, argv);
  if (a.command != "compile" && a.command != "run" && a.command != "explain")
    throw UsageError{"unknown command '" + a.command + "'"};
  auto value = [&](int &i, const std::string &opt) -> std::string {
    if (i + 1 >= argc) throw UsageError{"option " + opt + " needs a value"};
    return argv[++i];
  };
  static const std::regex param(R"(([A-Za-z_][A-Za-z0-9_]*)=([0-9]+))");
  for (int i = 2; i < argc; ++i) {
    std::string s = argv[i];
    bool build = a.command != "explain";
    if (s == "--target") a.target = value(i, s);
    else if (s == "-o" && a.command == "compile") a.out_dir = value(i, s);
    else if (s == "--verify" && build) a.verify = true;
    else if (s == "--verify-definitions" && a.command == "run") a.verify = a.definitions = true;
    else if (s == "--bench" && build) a.bench = true;
    else if (s == "--stats" && build) a.stats = true;
    else if (s == "--quiet" && build) a.quiet = true;
    else if (s == "--threads" && build) {
      std::string v = value(i, s);
      if (!std::regex_match(v, std::regex("[1-9][0-9]{0,3}"))) throw UsageError{"--threads needs a positive integer up to 9999"};
      a.threads = std::stoi(v);
    } else if (s == "--param" && build) {
      int n = 0;
      while (i + 1 < argc && std::regex_match(argv[i + 1], param)) {
        std::cmatch m;
        std::regex_match(argv[++i], m, param);
        errno = 0;
        long long v = std::strtoll(m[2].str().c_str(), nullptr, 10);
        if (errno == ERANGE) throw UsageError{"--param " + m[1].str() + ": the value " + m[2].str() + " is too large"};
        a.params[m[1]] = v;
        ++n;
      }
      if (n == 0) throw UsageError{"--param needs NAME=VALUE (a positive integer value)"};
    } else if (s == "--scheduler") {
      a.scheduler = value(i, s);
      if (a.scheduler != "isl" && a.scheduler != "pluto" && a.scheduler != "feautrier")
        throw UsageError{"--scheduler is isl, pluto or feautrier"};
    } else if (s == "--inputs" && build) a.inputs = value(i, s);
    else if (s == "--dump" && build) a.dump = value(i, s);
    else if (s == "--report" && build) a.report = value(i, s);
    else if (s == "--records") a.records = value(i, s);
    else if (s == "--shard" && a.command == "compile") {
      std::string v = value(i, s);
      std::smatch m;
      if (!std::regex_match(v, m, std::regex("([0-9]{1,4})/([1-9][0-9]{0,3})")) ||
          std::stoi(m[1].str()) >= std::stoi(m[2].str()))
        throw UsageError{"--shard needs I/N with 0 <= I < N"};
      a.shard = std::stoi(m[1].str());
      a.shards = std::stoi(m[2].str());
    }
    else if (s == "--graph" && !build) a.graph = value(i, s);
    else if (s == "--stage" && !build) a.stage = value(i, s);
    else if (s == "--print-after") {
      std::string list = value(i, s);
      std::stringstream in(list);
      for (std::string name; std::getline(in, name, ',');) {
        if (name != "all" && !is_pass(name))
          throw UsageError{"--print-after: '" + name + "' is not a pass (explain --list-stages lists them)"};
        a.print_after.insert(name);
      }
      if (a.print_after.empty()) throw UsageError{"--print-after needs pass names or all"};
    }
    else if (s == "--format" && !build) {
      a.format = value(i, s);
      if (a.format != "text" && a.format != "dot") throw UsageError{"--format is text or dot"};
    } else if (!s.empty() && s[0] == '-') throw UsageError{"unknown option '" + s + "' for " + a.command};
    else if (a.batch.empty()) a.batch = s;
    else throw UsageError{"unexpected argument '" + s + "'"};
  }
  if (a.batch.empty()) throw UsageError{"missing BATCH.json argument"};
  if (a.definitions && a.bench) throw UsageError{"--verify-definitions generates no code, so there is nothing to --bench"};
  if (!a.print_after.empty() && a.command == "explain" && !a.stage.empty() && !is_pass(a.stage))
    throw UsageError{"--print-after goes with --stage PASS or alone, not with --stage " + a.stage};
  static const std::regex target_syntax(R"((cpu|cpu-c|cuda(:sm_[0-9]+)?|opencl|npu(:.+)?))");
  if (!std::regex_match(a.target, target_syntax))
    throw UsageError{"unknown target '" + a.target + "' (expected cpu, cpu-c, cuda[:sm_XX], opencl, npu[:PROFILE_OR_FILE.json])"};
  if (a.command == "explain" && a.stage.empty() && a.print_after.empty())
    throw UsageError{"explain needs --stage STAGE (or --print-after PASSES)"};
  return a;
}

void write_file_atomic(const std::string &path, const std::string &text) {
  std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    if (!f) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw UserError("cannot write '" + path + "'");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw UserError("cannot write '" + path + "': " + ec.message());
  }
}

std::string format_ms(double ms) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(ms < 0.1 ? 4 : ms < 10 ? 2 : 1) << ms << " ms";
  return os.str();
}

void print_summary(const BatchResult &r) {
  std::size_t w = 5;
  for (const GraphResult &g : r.graphs) w = std::max(w, g.name.size());
  std::cout << std::left << std::setw(static_cast<int>(w) + 2) << "graph" << std::setw(9) << "kernels" << std::setw(8)
            << "status" << std::setw(28) << "verify" << std::setw(12) << "compile" << "run (median)\n";
  int ok = 0, passed = 0, verified = 0;
  for (const GraphResult &g : r.graphs) {
    std::string verify = "-";
    if (g.verify) {
      std::ostringstream os;
      os << (g.verify->passed ? "pass" : "FAIL") << " (rel " << std::scientific << std::setprecision(1)
         << g.verify->max_rel_err << ")";
      verify = os.str();
      ++verified;
      passed += g.verify->passed;
    }
    ok += g.ok;
    // Compile time (scheduling and code generation) and, with --bench, the
    // kernels' median time per call: what each column measured, not their sum.
    std::cout << std::left << std::setw(static_cast<int>(w) + 2) << g.name << std::setw(9)
              << (g.kernels ? std::to_string(*g.kernels) : "-") << std::setw(8) << (g.ok ? "ok" : "error")
              << std::setw(28) << verify << std::setw(12) << (g.compile_ms ? format_ms(*g.compile_ms) : "-")
              << (g.bench ? format_ms(g.bench->median_ms) : "-") << "\n";
  }
  std::cout << ok << "/" << r.graphs.size() << " graphs ok";
  if (verified) std::cout << ", " << passed << "/" << verified << " verified";
  if (!r.graphs.empty() && r.graphs.front().verify) std::cout << " (oracle " << r.graphs.front().verify->oracle << ")";
  std::cout << "\n";
  for (const GraphResult &g : r.graphs) {
    if (!g.ok) std::cerr << "error: " << g.error << "\n";
    else if (g.verify && !g.verify->passed) std::cerr << "verify failed: graph '" << g.name << "': " << g.verify->detail << "\n";
  }
}

int run_build(const Args &a) {
  PipelineOptions o;
  o.mode = a.command == "compile" ? PipelineOptions::Mode::Compile : PipelineOptions::Mode::Run;
  o.target = a.target;
  o.verify = a.verify;
  o.definitions_only = a.definitions;
  o.bench = a.bench;
  o.stats = a.stats;
  o.threads = a.threads;
  o.params = a.params;
  o.inputs_dir = a.inputs;
  o.dump_dir = a.dump;
  o.scheduler = a.scheduler;
  o.print_after = a.print_after;
  o.out_dir = a.out_dir;
  o.records = a.records;
  o.shard = a.shard;
  o.shards = a.shards;
  o.progress = !a.quiet && isatty(2);

  BatchResult result = run_batch_file(a.batch, o);
  if (result.error) std::cerr << "error: " << a.batch << ": " << *result.error << "\n";
  std::string report_path = a.report;
  // A batch that could not be read still gets compile's report.json (cli.md), in -o DIR or atoll-out/batch.
  if (o.mode == PipelineOptions::Mode::Compile && result.error && report_path.empty())
    report_path = (!a.out_dir.empty() ? a.out_dir : std::string("atoll-out/batch")) + "/report.json";
  // A shard's files: manifest-I-of-N.json and report-I-of-N.json, which
  // `atoll merge DIR` joins.
  const std::string part =
      o.shards > 1 ? "-" + std::to_string(o.shard) + "-of-" + std::to_string(o.shards) : std::string();
  if (o.mode == PipelineOptions::Mode::Compile && !result.error) {
    write_file_atomic(result.out_dir + "/manifest" + part + ".json", result.manifest_json);
    if (report_path.empty()) report_path = result.out_dir + "/report" + part + ".json";
  }
  if (!report_path.empty()) write_file_atomic(report_path, result.report_json);
  for (const GraphResult &g : result.graphs)
    if (!g.printed.empty()) std::cerr << "// graph " << g.name << "\n" << g.printed;
  if (!result.error) print_summary(result);
  return result.exit_status();
}

int run_explain(const Args &a) {
  ExplainOptions e;
  e.graph = a.graph;
  e.stage = a.stage;
  e.print_after = a.print_after;
  e.target = a.target;
  e.scheduler = a.scheduler;
  e.format = a.format;
  e.records = a.records;
  std::cout << explain_batch_file(a.batch, e);
  return 0;
}

JscopOptions jscop_options(const Args &a) {
  JscopOptions o;
  o.scheduler = a.scheduler;
  o.tile = a.tile;
  o.identity = a.identity;
  o.allow_skew = a.allow_skew;
  return o;
}

int run_tune(int argc, char **argv) {
  TuneArgs t = parse_tune_args(argc, argv);
  TuneResult r = tune_batch_file(t.batch, t.o);
  if (!t.report.empty()) write_file_atomic(t.report, r.report_json);
  for (const std::string &e : r.errors) std::cerr << "error: " << e << "\n";
  {
    for (const TunedCluster &c : r.clusters) {
      std::cout << c.graph << "/" << c.cluster << ": " << c.trials << " trials (" << c.measured << " measured, "
                << c.failures << " failed) in " << std::fixed << std::setprecision(1) << c.seconds << " s, best "
                << std::setprecision(3) << c.best_ratio << "x the default";
      std::string point;
      for (const auto &[k, v] : c.best) point += (point.empty() ? " (" : ", ") + k + "=" + v;
      std::cout << (point.empty() ? " (the default)" : point + ")") << "\n";
    }
  }
  return r.errors.empty() ? 0 : 1;
}

int run_db(int argc, char **argv) {
  if (argc < 4) throw UsageError{"db needs stats or compact and a records file"};
  const std::string what = argv[2], path = argv[3];
  std::string out;
  for (int i = 4; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "-o" && what == "compact" && i + 1 < argc) out = argv[++i];
    else throw UsageError{"unexpected argument '" + s + "' for db " + what};
  }
  if (what == "stats") {
    std::cout << tune_db_stats(path);
    return 0;
  }
  if (what == "compact") {
    std::size_t before = read_tune_records(path).size();
    std::size_t kept = tune_db_compact(path, out);
    std::cout << (out.empty() ? path : out) << ": " << kept << " records kept of " << before << "\n";
    return 0;
  }
  throw UsageError{"db: unknown action '" + what + "' (stats or compact)"};
}

int run_import(const Args &a) {
  GraphBuilder g = import_onnx(a.batch);
  std::vector<std::string> files = write_batch({g}, a.out_dir, g.name(), a.inline_limit);
  if (!a.quiet)
    std::cout << a.out_dir << ": graph '" << g.name() << "', " << g.inputs().size() << " inputs, "
              << g.weights().size() << " weights (" << files.size() - 1 << " in .npy files), "
              << g.outputs().size() << " outputs\n";
  return 0;
}

int run_jscop_command(const Args &a) {
  JscopRunResult r = run_jscop(a.batch, a.out_dir, jscop_options(a));
  if (!a.report.empty()) write_file_atomic(a.report, r.report_json);
  int scheduled = 0, unchanged = 0, failed = 0;
  for (const JscopFileResult &f : r.files) {
    if (!f.ok) {
      ++failed;
      std::cerr << "error: " << f.file << ": " << f.error << "\n";
      continue;
    }
    (f.changed ? scheduled : unchanged)++;
    if (a.quiet) continue;
    std::cout << f.file << ": " << (f.changed ? "scheduled (" + f.algorithm : "unchanged (" + f.reason) << ")";
    for (const auto &sizes : f.tiles) {
      if (std::all_of(sizes.begin(), sizes.end(), [](long v) { return v == 0; })) continue;  // reordered, untiled
      std::cout << " tile";
      for (std::size_t k = 0; k < sizes.size(); ++k) std::cout << (k ? "x" : " ") << sizes[k];
    }
    if (f.outer_parallel) std::cout << " parallel";
    std::cout << "\n";
  }
  if (!a.quiet)
    std::cout << r.files.size() << " files: " << scheduled << " scheduled, " << unchanged << " unchanged, " << failed
              << " failed\n";
  return r.exit_status();
}

}  // namespace

int main(int argc, char **argv) {
  if (argc >= 2 && (std::string(argv[1]) == "--version")) {
    std::cout << version_text();
    return 0;
  }
  if (argc >= 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::cout << kUsage;
    return 0;
  }
  try {
    if (argc >= 2 && std::string(argv[1]) == "tune-worker") return tune_worker_main();
    if (argc >= 2 && std::string(argv[1]) == "tune") return run_tune(argc, argv);
    if (argc >= 2 && std::string(argv[1]) == "db") return run_db(argc, argv);
    if (argc >= 2 && std::string(argv[1]) == "merge") {
      if (argc != 3) throw UsageError{"merge needs the output directory of the shards: atoll merge DIR"};
      std::size_t n = merge_shard_reports(argv[2]);
      std::cout << argv[2] << ": report.json and manifest.json of " << n << " graphs\n";
      return 0;
    }
    Args a = parse_args(argc, argv);
    if (a.list_stages) {
      std::cout << list_stages(a.target);
      return 0;
    }
    if (a.command == "jscop") return run_jscop_command(a);
    if (a.command == "import") return run_import(a);
    if (a.command == "explain" && ends_with(a.batch, ".jscop")) {
      std::cout << explain_jscop_file(a.batch, jscop_options(a));
      return 0;
    }
    return a.command == "explain" ? run_explain(a) : run_build(a);
  } catch (const UsageError &e) {
    std::cerr << "atoll: " << e.message << "\n" << kUsage;
    return 2;
  } catch (const OptionError &e) {
    std::cerr << "atoll: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const UserError &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
