// The one path from a graph to code, shared by `compile`, `run` and `explain`:
// the driver's stages as a table (graph_stages): prepare -> plan_clusters ->
// compile_clusters (each cluster through the polyhedral layer with its
// cluster_options) -> split_clusters -> codegen. schedule_graph stops
// before codegen (loop ASTs); compile_graph runs them all.
#include "src/pipeline/compile_graph.h"

#include "backends/cpu/cpu_backend.h"
#include "backends/gpu/emit_gpu.h"
#include "backends/gpu/opencl_runtime.h"
#include "backends/gpu/simt_check.h"
#include "graph/core/parallel_jobs.h"
#include "src/pipeline/npu_codegen.h"
#include "polyhedral/target/gpu_target.h"

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <set>

namespace atl {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// A `tree` hint keyed by cluster must name clusters of the compiled graph.
void check_tree_keys(const Graph &graph, const std::vector<std::vector<NodeId>> &clusters) {
  std::set<std::string> names;
  for (const auto &c : clusters) names.insert(graph.node(c.front()).name);
  for (const auto &[key, tree] : graph.schedule.tree.by_cluster)
    if (!names.count(key)) {
      std::string list;
      for (const std::string &n : names) list += (list.empty() ? "" : ", ") + n;
      Location loc{graph.pointer.empty() ? "" : graph.pointer + "/schedule/tree", graph.name};
      loc.hint = "tree";
      throw UserError("no cluster named '" + key + "' (clusters: " + list + ")", loc);
    }
}

/// Every `tile` hint names the first node of a cluster (the cluster it tiles).
void check_tile_keys(const Graph &graph, const std::vector<std::vector<NodeId>> &clusters) {
  std::map<std::string, std::string> cluster_of;
  for (const auto &c : clusters)
    for (NodeId v : c) cluster_of[graph.node(v).name] = graph.node(c.front()).name;
  for (const auto &[node, sizes] : graph.schedule.tile) {
    auto it = cluster_of.find(node);
    if (it != cluster_of.end() && it->second == node) continue;
    Location loc{graph.pointer.empty() ? "" : graph.pointer + "/schedule/tile/" + node, graph.name};
    loc.hint = "tile";
    throw UserError(it == cluster_of.end()
                        ? "node '" + node + "' has no kernel of its own after simplification (a view or a folded node)"
                        : "node '" + node + "' is fused into cluster '" + it->second +
                              "': a tile hint names the cluster's first node (explain --stage clusters), or use "
                              "`fuse` groups to keep the node alone",
                    loc);
  }
}

}  // namespace

std::string printed_pass_text(const poly::PrintedPass &p, bool full) {
  using R = poly::PassRecord::Result;
  std::string head = "// after " + p.pass;
  if (p.result == R::Skipped) head += " (not run)";
  else if (p.result == R::Rejected) head += " (rejected, unchanged)";
  else if (p.unchanged) head += " (unchanged)";
  head += "\n";
  if (!full && (p.unchanged || p.result == R::Skipped)) return head;
  return head + p.text;
}

std::string cluster_stage_text(const poly::ClusterResult &c, const std::string &stage) {
  std::string out = "// cluster " + c.name + "\n";
  if (stage == "scop") out += c.scop_text;
  else if (stage == "deps") out += c.deps_text;
  else if (stage == "schedule") out += "// scheduler: " + c.algorithm + "\n" + c.schedule_yaml + "\n";
  else if (stage == "ast") out += c.ast_text;
  return out;
}

std::string cluster_printed_text(const poly::ClusterResult &c, const std::string &full_pass,
                                 const std::function<bool(poly::Level)> &keep) {
  std::string out = "// cluster " + c.name + "\n";
  for (const poly::PrintedPass &p : c.printed)
    if (!keep || keep(p.level)) out += printed_pass_text(p, p.pass == full_pass);
  return out;
}

namespace {

/// Compiles the nodes of one cluster with `po`; errors name the cluster's
/// first node. Safe to call from several threads (each compile has its own
/// isl context); the caller adds r.timings_ms to the stage times.
poly::ClusterResult compile_nodes(const Graph &g, const std::vector<NodeId> &nodes, const poly::PolyOptions &po) {
  const Node &first = g.node(nodes.front());
  try {
    return poly::compile_cluster(g, nodes, po);
  } catch (const UserError &e) {
    throw e.with({first.pointer, g.name, first.name});
  }
}

void add_timings(GraphCompileState &s, const poly::ClusterResult &r) {
  for (const auto &[stage, ms] : r.timings_ms) s.scheduled.stage_ms[stage] += ms;
}

const PassTable<GraphCompileState> kGraphStages = {
    {"prepare", "graph", "the graph simplified for compilation: the graph passes to a fixed point (explain --stage graph)",
     [](const GraphCompileState &) { return true; },
     [](GraphCompileState &s) {
       auto t0 = Clock::now();
       s.scheduled.prepared = prepare_graph(s.input, s.options.target);
       s.scheduled.stage_ms["clusters"] += ms_since(t0);
       return s.scheduled.prepared.simplified;
     }},
    {"plan_clusters", "graph", "operators fused into clusters, one kernel each; views get none (explain --stage clusters)",
     [](const GraphCompileState &) { return true; },
     [](GraphCompileState &s) {
       auto t0 = Clock::now();
       s.scheduled.plan = plan_clusters(s.scheduled.prepared.graph);
       s.scheduled.stage_ms["clusters"] += ms_since(t0);
       const Graph &g = s.scheduled.prepared.graph;
       check_tree_keys(g, s.scheduled.plan.fusion.clusters);
       check_tile_keys(g, s.scheduled.plan.fusion.clusters);
       return true;
     }},
    {"compile_clusters", "clusters", "each cluster through the target's polyhedral pipeline (build_scop to its last pass)",
     [](const GraphCompileState &) { return true; },
     [](GraphCompileState &s) {
       // Clusters are independent: they compile on CompileOptions::compile_threads
       // threads, into slots of their own, with the same results and the same
       // first error as one after the other.
       // A cluster of the same shape as an earlier one (same_clusters.cpp)
       // takes that one's result, renamed, unless the renaming fails.
       const Graph &g = s.scheduled.prepared.graph;
       const auto &clusters = s.scheduled.plan.fusion.clusters;
       const std::size_t n = clusters.size();
       s.cluster_options.resize(n);
       for (std::size_t i = 0; i < n; ++i)
         s.cluster_options[i] = cluster_options(g, g.node(clusters[i].front()).name, n, s.options);
       std::vector<std::optional<ClusterShape>> shapes(n);
       std::vector<std::size_t> first(n);  // the cluster whose result i reuses (i: its own)
       std::map<std::string, std::size_t> first_of_key;
       for (std::size_t i = 0; i < n; ++i) {
         first[i] = i;
         const poly::PolyOptions &po = s.cluster_options[i];
         if (!s.options.reuse_clusters || poly::is_gpu_target(s.options.target) || is_npu_target(s.options.target) ||
             !po.tree.empty() || po.tile_hint)
           continue;
         shapes[i] = cluster_shape(g, clusters[i]);
         first[i] = first_of_key.emplace(shapes[i]->key, i).first->second;
       }
       std::vector<std::optional<poly::ClusterResult>> results(n);
       std::vector<std::optional<ClusterLayout>> layouts(n);
       auto compile_one = [&](std::size_t i) {
         results[i] = compile_nodes(g, clusters[i], s.cluster_options[i]);
         layouts[i] = cluster_layout(g, clusters[i], *results[i]);
       };
       std::vector<std::size_t> own;
       for (std::size_t i = 0; i < n; ++i)
         if (first[i] == i) own.push_back(i);
       parallel_jobs(own.size(), compile_worker_threads(own.size(), s.options.compile_threads),
                     [&](std::size_t k) { compile_one(own[k]); });
       std::vector<std::size_t> again;  // renaming failed: compiled after all
       for (std::size_t i = 0; i < n; ++i) {
         if (first[i] == i) continue;
         results[i] = renamed_cluster(*results[first[i]], *shapes[first[i]], *shapes[i]);
         if (results[i]) {
           layouts[i] = cluster_layout(g, clusters[i], *results[i]);
           const ClusterLayout &a = *layouts[first[i]], &b = *layouts[i];
           bool same = a.loop_nests == b.loop_nests && a.parts.size() == b.parts.size();
           for (std::size_t p = 0; same && p < a.parts.size(); ++p) same = a.parts[p].size() == b.parts[p].size();
           if (same) continue;
         }
         again.push_back(i);
       }
       parallel_jobs(again.size(), compile_worker_threads(again.size(), s.options.compile_threads),
                     [&](std::size_t k) { compile_one(again[k]); });
       for (std::size_t i = 0; i < n; ++i) {
         add_timings(s, *results[i]);
         s.scheduled.clusters.push_back(std::move(*results[i]));
         s.scheduled.layouts.push_back(std::move(*layouts[i]));
       }
       return n != 0;
     }},
    {"split_clusters", "clusters",
     "a cluster whose schedule left heavy operators in separate loop nests cut into kernels of their own",
     [](const GraphCompileState &) { return true; },
     [](GraphCompileState &s) {
       const Graph &g = s.scheduled.prepared.graph;
       const auto &clusters = s.scheduled.plan.fusion.clusters;
       auto compile = [&](const std::vector<NodeId> &nodes) {
         poly::ClusterResult r =
             compile_nodes(g, nodes, cluster_options(g, g.node(nodes.front()).name, clusters.size(), s.options));
         add_timings(s, r);
         return r;
       };
       std::vector<std::vector<NodeId>> kernels;  // the clusters, split ones cut into their pieces
       std::vector<poly::ClusterResult> results;
       std::vector<ClusterLayout> layouts;
       bool changed = false;
       std::set<std::string> split;  // kernels cut into pieces: no longer code to reuse
       for (std::size_t i = 0; i < clusters.size(); ++i) {
         // A schedule the user gave, or tile sizes given for this cluster, are kept as given.
         const poly::PolyOptions &po = s.cluster_options[i];
         std::vector<ClusterPiece> pieces;
         if (s.scheduled.layouts[i].split() && po.tree.empty() && !po.tile_hint)
           pieces = split_cluster(g, clusters[i], s.scheduled.layouts[i], compile);
         if (pieces.empty()) {
           kernels.push_back(clusters[i]);
           results.push_back(std::move(s.scheduled.clusters[i]));
           layouts.push_back(std::move(s.scheduled.layouts[i]));
           continue;
         }
         changed = true;
         split.insert(s.scheduled.clusters[i].kernel.name);
         for (ClusterPiece &p : pieces) {
           kernels.push_back(std::move(p.nodes));
           results.push_back(std::move(p.result));
           layouts.push_back(std::move(p.layout));
         }
       }
       for (poly::ClusterResult &r : results)
         if (split.count(r.same_as)) r.same_as.clear();
       s.scheduled.plan.fusion.clusters = std::move(kernels);
       s.scheduled.clusters = std::move(results);
       s.scheduled.layouts = std::move(layouts);
       return changed;
     }},
    {"codegen", "code",
     "callable code from the loop ASTs: the LLVM JIT (cpu), C built and loaded (cpu-c), OpenCL C built for the first "
     "OpenCL device (opencl, and cuda's OpenCL twin where no CUDA device runs it)",
     [](const GraphCompileState &s) { return s.options.executable; },
     [](GraphCompileState &s) {
       auto tc = Clock::now();
       if (is_npu_target(s.options.target)) {
         // Each kernel's program runs on the simulator, every check on.
         const npu::Target target = npu_target_of(s.options.target);
         auto stats = s.options.npu_stats ? s.options.npu_stats : std::make_shared<NpuRunStats>();
         s.functions = npu_functions(s.scheduled.clusters, npu_programs(s.scheduled.clusters, target), target, stats);
         s.keep_alive = stats;
         s.scheduled.stage_ms["codegen"] += ms_since(tc);
         return true;
       }
       if (poly::is_gpu_target(s.options.target)) {
         std::vector<gpu::GpuKernelSource> sources;
         for (const auto &c : s.scheduled.clusters) sources.push_back({&c.kernel, &c.gpu});
         auto program = std::make_shared<gpu::OpenClProgram>(gpu::emit_gpu(sources, poly::GpuDialect::OpenCL));
         const bool check = s.options.simt_check;
         for (const auto &c : s.scheduled.clusters) {
           auto k = std::make_shared<const poly::LKernel>(c.kernel);
           auto g = std::make_shared<const poly::GpuProgram>(c.gpu);
           auto checked = std::make_shared<std::atomic<bool>>(!check);
           s.functions.push_back([program, k, g, checked](void **arrays, const std::int64_t *params) {
             if (!checked->exchange(true)) {
               gpu::SimtReport r = gpu::simt_check(*k, *g, params, 2'000'000);
               if (!r.clean()) {
                 std::string what;
                 for (const std::string &p : r.problems) what += "\n  " + p;
                 throw UserError("SIMT check of kernel " + k->name + ": " + std::to_string(r.races) + " races, " +
                                 std::to_string(r.out_of_bounds) + " out-of-bounds accesses" + what);
               }
             }
             program->run(*k, *g, arrays, params);
           });
         }
         s.keep_alive = program;
         double ms = ms_since(tc);
         s.scheduled.stage_ms["codegen"] += ms;
         return true;
       }
       // A kernel that reuses another's code (ClusterResult::same_as) calls
       // that one's function: the same body, arguments in the same order.
       std::vector<poly::LKernel> kernels;
       for (const auto &c : s.scheduled.clusters)
         if (c.same_as.empty()) kernels.push_back(c.kernel);
       cpu::CpuOptions cpu_options;
       cpu_options.compile_threads = s.options.compile_threads;
       std::shared_ptr<cpu::CpuExecutable> exe =
           s.options.target == "cpu" ? std::shared_ptr<cpu::CpuExecutable>(cpu::jit_kernels(kernels, cpu_options))
                                     : std::shared_ptr<cpu::CpuExecutable>(cpu::build_c_kernels(kernels));
       for (const auto &c : s.scheduled.clusters) {
         const std::string &name = c.same_as.empty() ? c.kernel.name : c.same_as;
         cpu::KernelEntry e = exe->entry(name);
         ATOLL_ASSERT(e, "the backend lost kernel " + name);
         s.functions.push_back(e);
       }
       s.keep_alive = exe;
       double ms = ms_since(tc);
       s.scheduled.stage_ms["jit"] += ms;
       s.scheduled.stage_ms["codegen"] += ms;
       return true;
     }},
};

/// Runs the stages of kGraphStages up to (without) `stop` ("" = all).
void run_stages(GraphCompileState &s, const std::string &stop) {
  for (const PassRow<GraphCompileState> &row : kGraphStages) {
    if (row.name == stop) break;
    if (row.enabled(s)) row.run(s);
  }
}

}  // namespace

const PassTable<GraphCompileState> &graph_stages() { return kGraphStages; }

ScheduledGraph schedule_graph(const Graph &graph, const CompileOptions &options) {
  GraphCompileState s{graph, options, {}, {}, {}, {}};
  run_stages(s, "codegen");
  return std::move(s.scheduled);
}

CompiledGraph compile_graph(const Graph &graph, const CompileOptions &options) {
  auto t0 = Clock::now();
  if (options.target != "cpu" && options.target != "cpu-c" && !poly::is_gpu_target(options.target) &&
      !is_npu_target(options.target))
    throw UserError("target " + options.target + ": code generation is not available yet");
  GraphCompileState s{graph, options, {}, {}, {}, {}};
  run_stages(s, "");
  CompiledGraph out;
  out.clusters = std::move(s.scheduled.clusters);
  out.layouts = std::move(s.scheduled.layouts);
  out.aliases = std::move(s.scheduled.plan.aliases);
  out.constants = std::move(s.scheduled.prepared.constants);
  out.stage_ms = std::move(s.scheduled.stage_ms);
  for (const auto &r : out.clusters)
    for (const std::string &f : r.fallbacks) out.fallbacks.push_back(r.name + ": " + f);
  out.functions = std::move(s.functions);
  out.keep_alive = std::move(s.keep_alive);
  out.executable = options.executable;
  out.compile_ms = ms_since(t0);
  return out;
}

}  // namespace atl
