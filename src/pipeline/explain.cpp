// `atoll explain` as a library call: the text of one stage of one graph
// (the graph, its clusters, the IR after any pass of the target's table,
// the code), and the stages of a target (explain --list-stages).
#include <atoll/driver.h>

#include "backends/cpu/cpu_backend.h"
#include "graph/fusion/print_clusters.h"
#include "backends/gpu/emit_gpu.h"
#include "polyhedral/pipeline/cpu_pipeline.h"
#include "polyhedral/pipeline/gpu_pipeline.h"
#include "src/pipeline/npu_codegen.h"
#include "polyhedral/target/gpu_target.h"
#include "src/frontend/onnx_reader.h"
#include "src/pipeline/compile_graph.h"
#include "src/pipeline/pipeline.h"
#include "src/tuning/records.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace atl {

namespace {

/// --records: the best points of the file, for the CPU targets.
std::shared_ptr<const poly::TuningTable> tuning_of(const ExplainOptions &a) {
  return tuning::tuning_for_target(a.records, a.target);
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
void print_polyhedral_parts(std::ostream &os, const Graph &graph, const ExplainOptions &a) {
  CompileOptions co;
  co.target = a.target;
  co.scheduler = a.scheduler;
  co.tuning = tuning_of(a);
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

/// The pass table of a target: the GPU one for cuda and opencl, else the CPU one.
const poly::PassTable &table_for(const std::string &target) {
  return poly::is_gpu_target(target) ? poly::gpu_pipeline() : is_npu_target(target) ? poly::npu_pipeline()
                                                                                    : poly::cpu_pipeline();
}

/// Whether `target` has the passes of `level` (a target without code
/// generation has the SCoP and its dependences only).
bool target_has_level(const std::string &target, poly::Level level) {
  return codegen_available(target) || level == poly::Level::Scop || level == poly::Level::Dependences;
}

/// explain --list-stages: the stages of a target in order, one a line, its
/// name first, then its level and what it does.
void list_stages_to(std::ostream &os, const std::string &target) {
  check_target(target);
  // A stage: name, level, what it does. A note ("#   " first) has room for
  // the graph passes' longer names.
  auto line = [&os](const std::string &name, const std::string &level, const std::string &what, bool note = false) {
    os << (note ? "#   " : "") << std::left << std::setw(note ? 31 : 24) << name << std::setw(10) << level << what << "\n";
  };
  line("graph", "graph", "the graph as given, then as simplified (graph/passes)");
  line("clusters", "graph", "the operators fused into clusters, one kernel each (graph/fusion)");
  bool cut = false;
  for (const poly::Pass &p : table_for(target)) {
    if (!target_has_level(target, p.level)) {
      cut = true;
      continue;
    }
    line(p.name, poly::level_name(p.level), p.description);
  }
  if (cut) {
    os << "# target " << target << ": code generation is not available yet; the passes after dependences "
              << "do not run for it\n";
  } else if (is_npu_target(target)) {
    line("npu", "code", "C of the NPU kernels against npu_intrin.h (target npu)");
  } else if (poly::is_gpu_target(target)) {
    line("cuda", "code", "CUDA C++ of the launches (target cuda)");
    line("opencl", "code", "OpenCL C of the launches (target opencl, and cuda's OpenCL twin)");
  } else {
    line("llvm", "code", "LLVM IR of the kernels (target cpu)");
    line("c", "code", "C of the kernels (target cpu-c)");
  }
  os << "# aliases: scop (after " << (poly::is_gpu_target(target) ? "bound_shifted_exps" : "coalesce_dims")
     << ", the last SCoP pass), deps (dependences)"
            << (cut ? "" : ", schedule (the tree after the last schedule pass, without packing's copies), ast (after "
                           "the last AST pass)")
            << "\n";
  // The tables around the polyhedral one: they run, but their IR is shown
  // by the stages graph and clusters, so they are listed as notes.
  os << "# the driver's stages (src/pipeline), in order:\n";
  for (const PassLine &l : pass_lines(graph_stages()))
    if (l.name != "codegen" || !cut) line(l.name, l.level, l.description, true);
  os << "# the graph passes that prepare runs to a fixed point (graph/passes; --stage graph shows the result):\n";
  for (const PassLine &l : pass_lines(simplify_passes())) line(l.name, l.level, l.description, true);
}

/// The IR after passes of the CPU pipeline, per cluster: `--stage PASS`
/// (always printed) or `--print-after PASSES` ("(unchanged)" where the
/// pass changed nothing).
void explain_passes(std::ostream &os, const ExplainOptions &a, const Graph &graph, bool pass_stage) {
  std::set<std::string> wanted = a.print_after;
  if (pass_stage) wanted.insert(a.stage);
  for (const poly::Pass &p : table_for(a.target))
    if (wanted.count(p.name) && !target_has_level(a.target, p.level))
      throw UserError("target " + a.target + ": code generation is not available yet, so pass '" + p.name +
                      "' does not run for it (explain --list-stages --target " + a.target + ")");
  CompileOptions co;
  co.target = a.target;
  co.scheduler = a.scheduler;
  co.tuning = tuning_of(a);
  co.print_after = wanted;
  ScheduledGraph scheduled = schedule_graph(graph, co);
  print_compiled_header(os, graph, scheduled);
  for (const auto &c : scheduled.clusters)
    os << cluster_printed_text(c, pass_stage ? a.stage : std::string(),
                                      [&](poly::Level l) { return target_has_level(a.target, l); });
}

/// `explain --stage space`: each cluster's knobs (knobs.h), with their values
/// and the cost model's default; a cluster that is the same computation as
/// an earlier one (one key) is named, not listed again.
void print_space(std::ostream &os, const Graph &graph, const ScheduledGraph &scheduled) {
  os << "// graph " << graph.name << ": the tuning space of " << scheduled.clusters.size()
     << (scheduled.clusters.size() == 1 ? " kernel\n" : " kernels\n");
  std::map<std::string, std::string> first;
  for (const poly::ClusterResult &c : scheduled.clusters) {
    const poly::KnobSpace &s = c.space;
    auto [it, added] = first.emplace(s.key, c.name);
    if (!added) {
      os << "cluster " << c.name << " (key " << s.key << "): the space of " << it->second << "\n";
      continue;
    }
    double points = 1;
    for (const poly::KnobDomain &k : s.knobs) points *= static_cast<double>(std::max<std::size_t>(1, k.values.size()));
    os << "cluster " << c.name << " (key " << s.key << "): " << s.knobs.size() << " knobs";
    if (!s.knobs.empty()) os << ", " << static_cast<long long>(points) << " points";
    os << "\n";
    for (const poly::KnobDomain &k : s.knobs) {
      std::string values;
      for (const std::string &v : k.values) values += (values.empty() ? "" : " ") + v;
      os << "  " << std::left << std::setw(22) << k.name << " " << std::setw(5) << k.type << " default "
         << std::setw(6) << k.default_value << " {" << values << "}  " << k.description << "\n";
    }
  }
}

/// Prints one stage of one graph (cli.md, `explain`). Every stage after
/// `graph` shows what compile and run compile: the graph as prepare_graph
/// simplifies it, its clusters, each cluster through schedule_graph.
void explain_to(std::ostream &os, const std::string &path, const ExplainOptions &a) {
  static const std::vector<std::string> stages = {"graph", "clusters", "scop", "deps", "schedule", "ast",
                                                  "llvm", "c", "cuda", "opencl", "npu", "space"};
  static const std::vector<std::string> later = {"npu"};
  check_target(a.target);
  Batch batch;
  try {
    batch = read_input_file(path);
  } catch (const UserError &e) {
    if (!is_onnx_path(path)) throw;
    throw UserError(path + ": " + e.reason());  // the model's place, after its file
  }
  const BatchGraph *entry = nullptr;
  std::string names;
  for (const BatchGraph &g : batch.graphs) {
    names += (names.empty() ? "" : ", ") + g.name;
    if (g.name == a.graph || (a.graph.empty() && batch.graphs.size() == 1)) entry = &g;
  }
  if (!entry && a.graph.empty())
    throw UserError("the batch has " + std::to_string(batch.graphs.size()) + " graphs; choose one with --graph: " + names);
  if (!entry) throw UserError("unknown graph '" + a.graph + "'; the batch has: " + names);
  if (entry->error) throw *entry->error;
  const Graph &graph = *entry->graph;
  const poly::PassTable &table = table_for(a.target);
  const bool pass_stage = !a.stage.empty() && poly::has_pass(table, a.stage);
  if (!a.stage.empty() && !pass_stage && std::find(stages.begin(), stages.end(), a.stage) == stages.end()) {
    std::string list;
    for (const std::string &s : stages) list += (list.empty() ? "" : ", ") + s;
    bool is_later = std::find(later.begin(), later.end(), a.stage) != later.end();
    throw UserError((is_later ? "stage '" + a.stage + "' does not exist yet" : "unknown stage '" + a.stage + "'") +
                    "; available stages: " + list + " and the passes that explain --list-stages lists");
  }
  if (a.format == "dot" && a.stage != "graph" && a.stage != "clusters")
    throw OptionError("--format dot exists for --stage graph and --stage clusters only");
  if (a.stage.empty() || pass_stage) return explain_passes(os, a, graph, pass_stage);
  if (a.stage == "graph") {
    // The graph as given (Graphviz: that alone); text: then what compile
    // and run compile instead, when simplification changed it.
    if (a.format == "dot") {
      print_graph_dot(os, graph);
      return;
    }
    print_graph(os, graph);
    PreparedGraph prep = prepare_graph(graph, a.target);
    if (prep.simplified) {
      os << "\nsimplified (what compile and run compile):\n";
      print_graph(os, prep.graph);
    }
    print_simplification(os, prep, "");
    return;
  }
  if (a.stage == "clusters") {
    // The graph as compile_graph compiles it (simplified), then its clusters.
    PreparedGraph prep = prepare_graph(graph, a.target);
    ClusterPlan plan = plan_clusters(prep.graph);
    if (a.format == "dot") {
      fusion::print_clusters_dot(os, prep.graph, plan.fusion, plan.no_kernel);
      return;
    }
    print_graph(os, prep.graph);
    if (prep.simplified || !prep.skipped.empty()) print_simplification(os, prep, "");
    std::size_t kernels = plan.fusion.clusters.size();
    os << "clusters of " << graph.name << ": " << kernels << (kernels == 1 ? " kernel\n" : " kernels\n");
    fusion::print_clusters(os, prep.graph, plan.fusion, plan.no_kernel);
    print_polyhedral_parts(os, graph, a);
    return;
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
  if ((a.stage == "npu") != is_npu_target(a.target) && (a.stage == "npu" || a.stage == "llvm" || a.stage == "c"))
    throw UserError(a.stage == "npu" ? std::string("stage 'npu' is code of the NPU target: give --target npu[:PROFILE]")
                                     : "stage '" + a.stage + "' is code of the CPU targets: for --target " + a.target +
                                           " the code stage is npu");
  const bool gpu_stage = a.stage == "cuda" || a.stage == "opencl";
  if (gpu_stage != poly::is_gpu_target(a.target) && (gpu_stage || a.stage == "llvm" || a.stage == "c"))
    throw UserError("stage '" + a.stage + "' is code of " +
                    (gpu_stage ? std::string("the GPU targets: give --target cuda or --target opencl")
                               : "the CPU targets: for --target " + a.target + " the code stages are cuda and opencl"));
  if (a.stage == "space" && a.target != "cpu" && a.target != "cpu-c")
    throw UserError("stage 'space' is the tuning space of the CPU table's passes: give --target cpu or cpu-c");
  CompileOptions co;
  co.target = a.target;
  co.scheduler = a.scheduler;
  co.tuning = tuning_of(a);
  co.describe = a.stage == "space";
  ScheduledGraph scheduled = schedule_graph(graph, co);
  if (a.stage == "space") {
    print_space(os, graph, scheduled);
    return;
  }
  if (a.stage == "npu") {
    os << npu_c_source(npu_programs(scheduled.clusters, npu_target_of(a.target)));
    return;
  }
  if (gpu_stage) {
    std::vector<gpu::GpuKernelSource> sources;
    for (const auto &c : scheduled.clusters) sources.push_back({&c.kernel, &c.gpu});
    os << gpu::emit_gpu(sources, a.stage == "cuda" ? poly::GpuDialect::Cuda : poly::GpuDialect::OpenCL);
    return;
  }
  std::vector<poly::LKernel> kernels;
  for (const auto &c : scheduled.clusters) kernels.push_back(c.kernel);
  if (a.stage == "llvm") {
    os << cpu::emit_llvm_ir(kernels);
    return;
  }
  if (a.stage == "c") {
    os << cpu::emit_c_source(kernels);
    return;
  }
  print_compiled_header(os, graph, scheduled);
  for (const auto &c : scheduled.clusters) os << cluster_stage_text(c, a.stage);
  return;
}

}  // namespace

std::string explain_batch_file(const std::string &path, const ExplainOptions &options) {
  const poly::PassTable &table = table_for(options.target);
  if (!options.print_after.empty() && !options.stage.empty() && !poly::has_pass(table, options.stage))
    throw OptionError("--print-after goes with --stage PASS or alone, not with --stage " + options.stage);
  for (const std::string &name : options.print_after)
    if (name != "all" && !poly::has_pass(table, name))
      throw OptionError("--print-after: '" + name + "' is not a pass (explain --list-stages lists them)");
  if (options.format != "text" && options.format != "dot") throw OptionError("--format is text or dot");
  std::ostringstream os;
  explain_to(os, path, options);
  return os.str();
}

std::string list_stages(const std::string &target) {
  std::ostringstream os;
  list_stages_to(os, target);
  return os.str();
}

std::vector<std::string> pass_names() {
  std::vector<std::string> names;
  for (const poly::Pass &p : poly::cpu_pipeline()) names.push_back(p.name);
  return names;
}

}  // namespace atl
