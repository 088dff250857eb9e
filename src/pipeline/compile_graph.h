// Compiles a graph to kernels (simplified, then fused into clusters) through
// the polyhedral layer and a CPU backend, and runs the kernels on host tensors.
#pragma once

#include <atoll/graph.h>
#include <atoll/tensor.h>

#include "graph/fusion/fuse_graph.h"
#include "graph/memory/buffer_lifetimes.h"
#include "graph/memory/plan_arena.h"
#include "graph/memory/views.h"
#include "graph/passes/simplify_graph.h"
#include "polyhedral/compile_cluster.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace atl {

/// How to compile a graph.
struct CompileOptions {
  std::string target = "cpu";  ///< "cpu" (LLVM JIT) or "cpu-c" (C through the system compiler)
  std::string scheduler;       ///< overrides the graph's hint when set
  bool keep_text = true;       ///< keep every stage's text (explain)
};

/// Runs one kernel: arrays in LKernel order, then parameters.
using KernelFunction = std::function<void(void **arrays, const std::int64_t *params)>;

/// A compiled graph: its kernels in call order, and the code that runs them.
struct CompiledGraph {
  std::vector<poly::ClusterResult> clusters;  ///< one per kernel, in call order
  std::vector<KernelFunction> functions;      ///< same order
  std::vector<std::string> fallbacks;         ///< every scheduler fallback, "CLUSTER: what"
  std::map<std::string, double> stage_ms;     ///< summed over clusters
  double compile_ms = 0;
  std::shared_ptr<void> keep_alive;           ///< owns the JIT or the loaded shared object
  /// Tensors that are views of others (no kernel writes them): the runner
  /// places them inside their base's storage.
  std::vector<memory::TensorAlias> aliases;
  /// Weights the compiler made (folded constants): fed with the caller's inputs.
  std::map<std::string, Tensor> constants;
};

/// How a graph splits into kernels: the clusters in call order (views have
/// none), every edge between kernels with its reason, and the views.
struct ClusterPlan {
  fusion::FusionResult fusion;               ///< clusters in call order, unfused edges
  std::set<NodeId> no_kernel;                ///< views (memory::plan_views)
  std::vector<memory::TensorAlias> aliases;  ///< where the views live
};

/// The clusters of a graph as the `fuse` hint asks: "auto" (or no hint):
/// fusion::fuse_graph; "none": one node per cluster; explicit groups
/// [["a", "b"], ...]: exactly those (nodes in no group alone). Views
/// (Reshape, Flatten, Squeeze, Unsqueeze) get no kernel. A group that names
/// an unknown node, repeats a node or is illegal (a path leaves and re-enters
/// it, or groups depend on each other) is a UserError naming the hint.
ClusterPlan plan_clusters(const Graph &graph);

/// The clusters of plan_clusters, with each view as a kernel of its own
/// (a copy) so that callers that do not place aliases can run every cluster.
std::vector<std::vector<NodeId>> graph_clusters(const Graph &graph);

/// The graph compile_graph compiles: `graph` simplified (simplify_graph with
/// fold_pad) when the passes change something and the graph's hints allow
/// (no explicit `fuse` groups, no `tree`: both name the original nodes).
struct PreparedGraph {
  Graph graph;                             ///< simplified or the original
  bool simplified = false;
  SimplifySummary summary;                 ///< what the passes did (when run)
  std::string skipped;                     ///< why simplification was not used, if it was not
  std::map<std::string, Tensor> constants; ///< weights the passes made (inline data)
};

/// Simplifies `graph` for compilation (see PreparedGraph).
PreparedGraph prepare_graph(const Graph &graph);

/// Polyhedral options for one cluster from the graph's schedule hints; a
/// hint that cannot be honoured is a UserError naming it.
poly::PolyOptions cluster_options(const Graph &graph, const std::string &cluster, std::size_t num_clusters,
                                  const CompileOptions &options);

/// Runs the polyhedral layer on every cluster of graph_clusters (no
/// simplification, views as copies; no code generation).
std::vector<poly::ClusterResult> schedule_graph(const Graph &graph, const CompileOptions &options);

/// Schedules every cluster and generates code for the target: the graph is
/// prepared (prepare_graph), clustered (plan_clusters); views become
/// `aliases`, folded weights `constants`. The graph outputs, inputs and
/// declared weights keep their names, so run_compiled takes `graph`'s tensors.
CompiledGraph compile_graph(const Graph &graph, const CompileOptions &options);

/// Runs a compiled graph on host tensors (inputs and weights of the concrete
/// graph `concrete`, an instantiation of the compiled one) and returns the
/// graph outputs. `params` gives the symbolic dimensions' values. When
/// `repeat` > 0 the kernels run that many more times and `times_ms` gets
/// each run's time (kernels only, not data conversion).
std::map<std::string, Tensor> run_compiled(const CompiledGraph &compiled, const Graph &concrete,
                                           const std::map<std::string, Tensor> &feeds,
                                           const std::map<std::string, std::int64_t> &params, int repeat = 0,
                                           std::vector<double> *times_ms = nullptr);

/// The kernels' array arguments at the parameter values: which graph tensor
/// each holds (or a temporary), its bytes, read or written.
std::vector<memory::KernelUse> kernel_uses(const CompiledGraph &compiled,
                                           const std::map<std::string, std::int64_t> &params);

/// The arena plan of a compiled graph at the parameter values (`concrete` is
/// the graph instantiated at them): graph inputs, weights, outputs and
/// constants stay outside the arena.
memory::MemoryPlan plan_memory(const CompiledGraph &compiled, const Graph &concrete,
                               const std::map<std::string, std::int64_t> &params);

}  // namespace atl
