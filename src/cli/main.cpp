// The atoll command line: compile, run, explain (shared/spec/cli.md).
#include <atoll/batch.h>
#include <atoll/pipeline.h>

#include "backends/cpu/cpu_backend.h"
#include "src/pipeline/compile_graph.h"
#include "graph/fusion/print_clusters.h"
#include "polyhedral/pipeline/cpu_pipeline.h"
#include "src/runtime/version.h"

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
  atoll run     BATCH.json [--target T] [--verify] [--bench] [--threads N]
                           [--param NAME=VALUE ...] [--inputs DIR] [--dump DIR]
                           [--report FILE] [--stats] [--quiet] [--print-after PASSES]
  atoll run     BATCH.json --verify-definitions [--param NAME=VALUE ...] [--inputs DIR] [--dump DIR]
                           [--report FILE] [--quiet]
  atoll explain BATCH.json --graph NAME (--stage STAGE | --print-after PASSES) [--target T]
                           [--format text|dot]
  atoll explain --list-stages [--target T]
  atoll --help | --version

--verify-definitions: no code for any target; the operators' Compute definitions are
checked against the reference interpreter (oracle definition-vs-reference).

options beyond cli.md: --scheduler isl|pluto|feautrier (compile, run, explain) overrides
every graph's `scheduler` hint.

targets: cpu (default), cpu-c, cuda[:sm_XX], npu[:PROFILE_OR_FILE.json]
stages:  graph, clusters (text or --format dot), every pass of the target's pipeline
         (explain --list-stages), and the aliases scop, deps, schedule, ast (the IR
         each level ends with), llvm, c
PASSES:  pass names separated by commas, or all: the IR after each (run and compile
         print it on standard error; (unchanged) where the pass changed nothing)
)";

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
  std::string inputs, dump, scheduler;
};

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
    else if (s == "--graph" && !build) a.graph = value(i, s);
    else if (s == "--stage" && !build) a.stage = value(i, s);
    else if (s == "--print-after") {
      std::string list = value(i, s);
      std::stringstream in(list);
      for (std::string name; std::getline(in, name, ',');) {
        if (name != "all" && !poly::has_pass(poly::cpu_pipeline(), name))
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
  if (!a.print_after.empty() && a.command == "explain" && !a.stage.empty() && !poly::has_pass(poly::cpu_pipeline(), a.stage))
    throw UsageError{"--print-after goes with --stage PASS or alone, not with --stage " + a.stage};
  static const std::regex target_syntax(R"((cpu|cpu-c|cuda(:sm_[0-9]+)?|npu(:.+)?))");
  if (!std::regex_match(a.target, target_syntax))
    throw UsageError{"unknown target '" + a.target + "' (expected cpu, cpu-c, cuda[:sm_XX], npu[:PROFILE_OR_FILE.json])"};
  if (a.command == "explain" && (a.graph.empty() || (a.stage.empty() && a.print_after.empty())))
    throw UsageError{"explain needs --graph NAME and --stage STAGE (or --print-after PASSES)"};
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

/// JSON text of a report or manifest; bytes that are not UTF-8 (from names in
/// the batch) become U+FFFD rather than an exception.
std::string json_text(const nlohmann::json &j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

/// A --param that no graph of the batch declares (a misspelt name would
/// otherwise be ignored without a word); nothing when every name is declared
/// or when a graph could not be read (it may be the one that declares it).
std::optional<std::string> undeclared_param(const Batch &batch, const std::map<std::string, std::int64_t> &params) {
  std::set<std::string> declared;
  for (const BatchGraph &g : batch.graphs) {
    if (!g.graph) return std::nullopt;
    for (const auto &[name, range] : g.graph->params) declared.insert(name);
  }
  for (const auto &[name, value] : params) {
    if (declared.count(name)) continue;
    std::string list;
    for (const std::string &d : declared) list += (list.empty() ? "" : ", ") + d;
    return "--param " + name + ": no graph of the batch declares a parameter '" + name + "' (" +
           (list.empty() ? std::string("it has no parameters") : "declared: " + list) + ")";
  }
  return std::nullopt;
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
  o.progress = !a.quiet && isatty(2);
  check_target(a.target);  // loads and validates an NPU target description

  BatchResult result;
  result.target = a.target;
  Batch batch;
  std::string dir;
  try {
    batch = read_batch_file(a.batch);
    if (std::optional<std::string> why = undeclared_param(batch, a.params)) throw UsageError{*why};
    dir = !a.out_dir.empty() ? a.out_dir : "atoll-out/" + (batch.name.empty() ? std::string("batch") : batch.name);
    o.out_dir = dir;
    result = run_pipeline(batch, o);
  } catch (const UserError &e) {
    result.error = e.what();
    result.batch = batch.name;
    std::cerr << "error: " << a.batch << ": " << e.what() << "\n";
  }
  std::string report_path = a.report;
  // A batch that could not be read still gets compile's report.json (cli.md), in -o DIR or atoll-out/batch.
  if (o.mode == PipelineOptions::Mode::Compile && result.error && report_path.empty())
    report_path = (!a.out_dir.empty() ? a.out_dir : std::string("atoll-out/batch")) + "/report.json";
  if (o.mode == PipelineOptions::Mode::Compile && !result.error) {
    nlohmann::json manifest = {{"atoll", 1},
                               {"batch", batch.name.empty() ? nlohmann::json(nullptr) : nlohmann::json(batch.name)},
                               {"target", a.target},
                               {"graphs", nlohmann::json::array()}};
    for (const GraphResult &g : result.graphs)
      manifest["graphs"].push_back({{"name", g.name}, {"status", g.ok ? "ok" : "error"}, {"kernels", g.manifest_kernels}});
    write_file_atomic(dir + "/manifest.json", json_text(manifest));
    if (report_path.empty()) report_path = dir + "/report.json";
  }
  if (!report_path.empty()) write_file_atomic(report_path, json_text(report_json(result)));
  for (const GraphResult &g : result.graphs)
    if (!g.printed.empty()) std::cerr << "// graph " << g.name << "\n" << g.printed;
  if (!result.error) print_summary(result);
  return result.exit_status();
}

/// What simplification did to the graph compile and run compile: one line
/// per pass that changed something, or why the graph is compiled as given.
void print_simplification(std::ostream &os, const PreparedGraph &prep, const std::string &prefix) {
  if (prep.simplified) {
    for (const auto &[pass, stats] : prep.summary.passes)
      if (stats.changes) os << prefix << "simplified by " << pass << ": " << stats << "\n";
  } else if (!prep.skipped.empty()) {
    os << prefix << "not simplified: " << prep.skipped << "\n";
  } else {
    os << prefix << "simplification changed nothing\n";
  }
}

/// The header of the per-cluster stages: what the clusters below were made
/// from (the simplified graph, views without a kernel, folded constants).
void print_compiled_header(std::ostream &os, const Graph &graph, const ScheduledGraph &s) {
  std::size_t kernels = s.clusters.size();
  os << "// graph " << graph.name << " as compile and run compile it: " << kernels
     << (kernels == 1 ? " kernel\n" : " kernels\n");
  print_simplification(os, s.prepared, "// ");
  for (const memory::TensorAlias &a : s.plan.aliases)
    os << "// view, no kernel: " << a.tensor << " in " << a.base << " at byte " << a.byte_offset << "\n";
  for (const auto &[name, t] : s.prepared.constants)
    os << "// folded constant: " << name << " " << dtype_name(t.dtype) << shape_to_string(t.shape) << "\n";
}

/// What the polyhedral layer made of each multi-operator cluster: the
/// operators that share an outermost loop nest, and the clusters it split
/// (fused in the graph, not in the code). Compiles the clusters (no code).
void print_polyhedral_parts(std::ostream &os, const Graph &graph, const Args &a) {
  CompileOptions co;
  co.target = a.target;
  co.scheduler = a.scheduler;
  ScheduledGraph scheduled;
  try {
    scheduled = schedule_graph(graph, co);
  } catch (const UserError &e) {
    os << "loop nests: not available, the polyhedral layer failed: " << e.what() << "\n";
    return;
  }
  auto print_parts = [&](const std::vector<std::vector<std::string>> &parts) {
    for (const auto &part : parts) {
      os << " [";
      for (std::size_t i = 0; i < part.size(); ++i) os << (i ? " " : "") << part[i];
      os << "]";
    }
  };
  long split = clusters_split(scheduled.layouts);
  os << "loop nests of the kernels (polyhedral layer): " << split << (split == 1 ? " cluster split\n" : " clusters split\n");
  std::string cut;  // the split cluster whose kernels are being listed
  for (const ClusterLayout &l : scheduled.layouts) {
    if (!l.split_from.name.empty() && l.split_from.name != cut) {
      cut = l.split_from.name;
      os << "  cluster " << cut << ": " << l.split_from.loop_nests << " loop nests, split into";
      print_parts(l.split_from.parts);
      os << ", compiled as kernels of their own:\n";
    }
    if (l.nodes.size() < 2 && l.split_from.name.empty()) continue;
    os << (l.split_from.name.empty() ? "  kernel " : "    kernel ") << l.name << ": " << l.loop_nests
       << (l.loop_nests == 1 ? " loop nest" : " loop nests");
    os << (l.split() ? ", split into" : ", one part:");
    print_parts(l.parts);
    os << "\n";
  }
}

/// Whether `target` has the passes of `level` (a target without code
/// generation has the SCoP and its dependences only).
bool target_has_level(const std::string &target, poly::Level level) {
  return codegen_available(target) || level == poly::Level::Scop || level == poly::Level::Dependences;
}

/// explain --list-stages: the stages of a target in order, one a line, its
/// name first, then its level and what it does.
int run_list_stages(const Args &a) {
  check_target(a.target);
  auto line = [](const std::string &name, const std::string &level, const std::string &what) {
    std::cout << std::left << std::setw(24) << name << std::setw(10) << level << what << "\n";
  };
  line("graph", "graph", "the graph as given, then as simplified (graph/passes)");
  line("clusters", "graph", "the operators fused into clusters, one kernel each (graph/fusion)");
  bool cut = false;
  for (const poly::Pass &p : poly::cpu_pipeline()) {
    if (!target_has_level(a.target, p.level)) {
      cut = true;
      continue;
    }
    line(p.name, poly::level_name(p.level), p.description);
  }
  if (cut) {
    std::cout << "# target " << a.target << ": code generation is not available yet; the passes after dependences "
              << "do not run for it\n";
  } else {
    line("llvm", "code", "LLVM IR of the kernels (target cpu)");
    line("c", "code", "C of the kernels (target cpu-c)");
  }
  std::cout << "# aliases: scop (after coalesce_dims, the last SCoP pass), deps (dependences)"
            << (cut ? "" : ", schedule (the tree after the last schedule pass, without packing's copies), ast (after "
                           "the last AST pass)")
            << "\n";
  return 0;
}

/// The IR after passes of the CPU pipeline, per cluster: `--stage PASS`
/// (always printed) or `--print-after PASSES` ("(unchanged)" where the
/// pass changed nothing).
int explain_passes(const Args &a, const Graph &graph, bool pass_stage) {
  std::set<std::string> wanted = a.print_after;
  if (pass_stage) wanted.insert(a.stage);
  for (const poly::Pass &p : poly::cpu_pipeline())
    if (wanted.count(p.name) && !target_has_level(a.target, p.level))
      throw UserError("target " + a.target + ": code generation is not available yet, so pass '" + p.name +
                      "' does not run for it (explain --list-stages --target " + a.target + ")");
  CompileOptions co;
  co.target = a.target;
  co.scheduler = a.scheduler;
  co.print_after = wanted;
  ScheduledGraph scheduled = schedule_graph(graph, co);
  print_compiled_header(std::cout, graph, scheduled);
  for (const auto &c : scheduled.clusters)
    std::cout << cluster_printed_text(c, pass_stage ? a.stage : std::string(),
                                      [&](poly::Level l) { return target_has_level(a.target, l); });
  return 0;
}

/// Prints one stage of one graph (cli.md, `explain`). Every stage after
/// `graph` shows what compile and run compile: the graph as prepare_graph
/// simplifies it, its clusters, each cluster through schedule_graph.
int run_explain(const Args &a) {
  static const std::vector<std::string> stages = {"graph", "clusters", "scop", "deps", "schedule", "ast", "llvm", "c"};
  static const std::vector<std::string> later = {"cuda", "npu"};
  check_target(a.target);
  Batch batch = read_batch_file(a.batch);
  const BatchGraph *entry = nullptr;
  std::string names;
  for (const BatchGraph &g : batch.graphs) {
    names += (names.empty() ? "" : ", ") + g.name;
    if (g.name == a.graph) entry = &g;
  }
  if (!entry) throw UserError("unknown graph '" + a.graph + "'; the batch has: " + names);
  if (entry->error) throw *entry->error;
  const Graph &graph = *entry->graph;
  const poly::PassTable &table = poly::cpu_pipeline();
  const bool pass_stage = !a.stage.empty() && poly::has_pass(table, a.stage);
  if (!a.stage.empty() && !pass_stage && std::find(stages.begin(), stages.end(), a.stage) == stages.end()) {
    std::string list;
    for (const std::string &s : stages) list += (list.empty() ? "" : ", ") + s;
    bool is_later = std::find(later.begin(), later.end(), a.stage) != later.end();
    throw UserError((is_later ? "stage '" + a.stage + "' does not exist yet" : "unknown stage '" + a.stage + "'") +
                    "; available stages: " + list + " and the passes that explain --list-stages lists");
  }
  if (a.format == "dot" && a.stage != "graph" && a.stage != "clusters")
    throw UsageError{"--format dot exists for --stage graph and --stage clusters only"};
  if (a.stage.empty() || pass_stage) return explain_passes(a, graph, pass_stage);
  if (a.stage == "graph") {
    // The graph as given (Graphviz: that alone); text: then what compile
    // and run compile instead, when simplification changed it.
    if (a.format == "dot") {
      print_graph_dot(std::cout, graph);
      return 0;
    }
    print_graph(std::cout, graph);
    PreparedGraph prep = prepare_graph(graph);
    if (prep.simplified) {
      std::cout << "\nsimplified (what compile and run compile):\n";
      print_graph(std::cout, prep.graph);
    }
    print_simplification(std::cout, prep, "");
    return 0;
  }
  if (a.stage == "clusters") {
    // The graph as compile_graph compiles it (simplified), then its clusters.
    PreparedGraph prep = prepare_graph(graph);
    ClusterPlan plan = plan_clusters(prep.graph);
    if (a.format == "dot") {
      fusion::print_clusters_dot(std::cout, prep.graph, plan.fusion, plan.no_kernel);
      return 0;
    }
    print_graph(std::cout, prep.graph);
    if (prep.simplified || !prep.skipped.empty()) print_simplification(std::cout, prep, "");
    std::size_t kernels = plan.fusion.clusters.size();
    std::cout << "clusters of " << graph.name << ": " << kernels << (kernels == 1 ? " kernel\n" : " kernels\n");
    fusion::print_clusters(std::cout, prep.graph, plan.fusion, plan.no_kernel);
    print_polyhedral_parts(std::cout, graph, a);
    return 0;
  }
  // The schedule and everything after it are made for one target; for a
  // target without code generation there is none to show.
  // The stages before `schedule` do not depend on the target.
  const auto first_made = std::find(stages.begin(), stages.end(), "schedule");
  if (!codegen_available(a.target) && std::find(stages.begin(), first_made, a.stage) == first_made) {
    std::string list;
    for (auto it = stages.begin(); it != first_made; ++it) list += (list.empty() ? "" : ", ") + *it;
    throw UserError("target " + a.target + ": code generation is not available yet, so there is no '" + a.stage +
                    "' stage for it; available for this target: " + list);
  }
  CompileOptions co;
  co.target = a.target;
  co.scheduler = a.scheduler;
  ScheduledGraph scheduled = schedule_graph(graph, co);
  std::vector<poly::LKernel> kernels;
  for (const auto &c : scheduled.clusters) kernels.push_back(c.kernel);
  if (a.stage == "llvm") {
    std::cout << cpu::emit_llvm_ir(kernels);
    return 0;
  }
  if (a.stage == "c") {
    std::cout << cpu::emit_c_source(kernels);
    return 0;
  }
  print_compiled_header(std::cout, graph, scheduled);
  for (const auto &c : scheduled.clusters) std::cout << cluster_stage_text(c, a.stage);
  return 0;
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
    Args a = parse_args(argc, argv);
    if (a.list_stages) return run_list_stages(a);
    return a.command == "explain" ? run_explain(a) : run_build(a);
  } catch (const UsageError &e) {
    std::cerr << "atoll: " << e.message << "\n" << kUsage;
    return 2;
  } catch (const UserError &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
