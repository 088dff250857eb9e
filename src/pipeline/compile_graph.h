// Compiles a graph to kernels (one cluster per node for now) through the
// polyhedral layer and a CPU backend, and runs the kernels on host tensors.
#pragma once

#include <atoll/graph.h>
#include <atoll/tensor.h>

#include "graph/memory/views.h"
#include "polyhedral/compile_cluster.h"

#include <functional>
#include <map>
#include <memory>
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

/// The clusters of a graph: each node its own cluster, in topological order
/// (honours the `fuse` hint "auto"/"none"; explicit groups are refused).
std::vector<std::vector<NodeId>> graph_clusters(const Graph &graph);

/// Polyhedral options for one cluster from the graph's schedule hints; a
/// hint that cannot be honoured is a UserError naming it.
poly::PolyOptions cluster_options(const Graph &graph, const std::string &cluster, std::size_t num_clusters,
                                  const CompileOptions &options);

/// Runs the polyhedral layer on every cluster (no code generation).
std::vector<poly::ClusterResult> schedule_graph(const Graph &graph, const CompileOptions &options);

/// Schedules every cluster and generates code for the target.
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

}  // namespace atl
