// Compiles a graph to kernels (simplified, then fused into clusters) through
// the polyhedral layer and a CPU backend, and runs the kernels on host tensors.
#pragma once

#include "graph/ir/graph.h"
#include <atoll/tensor.h>

#include "graph/core/pass_table.h"
#include "graph/fusion/fuse_graph.h"
#include "graph/memory/buffer_lifetimes.h"
#include "graph/memory/plan_arena.h"
#include "graph/memory/views.h"
#include "graph/passes/simplify_graph.h"
#include "polyhedral/compile_cluster.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace atl {

/// How to compile a graph.
struct NpuRunStats;

struct CompileOptions {
  std::string target = "cpu";  ///< "cpu" (LLVM JIT) or "cpu-c" (C through the system compiler)
  std::string scheduler;       ///< overrides the graph's hint when set
  bool keep_text = true;       ///< keep every stage's text (explain)
  /// Build callable code (the JIT for "cpu", a loaded shared object for
  /// "cpu-c"). False: schedule and lower to loop ASTs only, for callers that
  /// write files from them (`atoll compile` without --verify or --bench).
  bool executable = true;
  /// GPU targets: before its first run, each kernel's launches go through
  /// the SIMT checker (backends/gpu/simt_check.h) at the run's shapes, up to
  /// a budget of accesses; a race or an out-of-bounds access fails the graph.
  bool simt_check = false;
  /// Passes whose IR is kept after they run (poly::PolyOptions::print_after).
  std::set<std::string> print_after;
  /// Threads that compile the graph's clusters and generate their code: 0 =
  /// the hardware threads (ATOLL_COMPILE_THREADS overrides), 1 = sequential.
  /// The code is the same for every count.
  std::size_t compile_threads = 0;
  /// Clusters that are the same computation under other names compile once
  /// (same_clusters.cpp); false compiles each, for tests that compare.
  bool reuse_clusters = true;
  /// Tuned points by canonical SCoP key (tuning records, or the tuner's
  /// candidate): poly::PolyOptions::tuning of every cluster.
  std::shared_ptr<const poly::TuningTable> tuning;
  /// Each cluster's tuning space and features (poly::PolyOptions::describe).
  bool describe = false;
  /// NPU targets: where the kernels record their simulated runs (made when null).
  std::shared_ptr<NpuRunStats> npu_stats;
};

/// One pass's IR as --print-after and explain print it: a header line
/// ("// after NAME", with "(unchanged)", "(rejected)" or "(not run)"),
/// then the text, which `full` = false leaves out where it did not change.
std::string printed_pass_text(const poly::PrintedPass &p, bool full);

/// A cluster's block of explain output: "// cluster NAME", then for an
/// alias stage (scop, deps, schedule, ast) its text, for a pass stage the
/// IR kept after the passes (ClusterResult::printed; `full_pass` printed in
/// full, `keep` filtering the levels shown when given).
std::string cluster_stage_text(const poly::ClusterResult &c, const std::string &stage);
std::string cluster_printed_text(const poly::ClusterResult &c, const std::string &full_pass = {},
                                 const std::function<bool(poly::Level)> &keep = {});

/// How the polyhedral layer laid out one cluster: which of its operators
/// share an outermost loop nest of the kernel's loop AST. A cluster of
/// several operators whose schedule gives them no common outermost loop was
/// fused by the graph layer but split by the polyhedral layer.
struct ClusterLayout {
  std::string name;                ///< the cluster (its first node's name)
  std::vector<std::string> nodes;  ///< its operators, in call order
  int loop_nests = 0;              ///< outermost statements of the loop AST (a loop, or a store outside any loop)
  /// The operators grouped by shared outermost loop nests (transitively),
  /// each part in call order, parts in order of their first nest.
  std::vector<std::vector<std::string>> parts;
  /// More than one part: the fusion decided in the graph did not happen in the code.
  bool split() const { return parts.size() > 1; }
  /// The cluster this kernel was cut from (split_cluster), as it was laid
  /// out then: its name, loop nests and parts. Empty name: not cut.
  struct Origin {
    std::string name;
    int loop_nests = 0;
    std::vector<std::vector<std::string>> parts;
  } split_from;
};

/// Clusters the polyhedral layer split: laid out split, or cut into kernels (split_from).
long clusters_split(const std::vector<ClusterLayout> &layouts);

/// The layout of a compiled cluster (nodes of `graph`, the graph it was
/// compiled from), read from the Store statements (NODE_k, NODE_k_init) of
/// its kernel's loop AST.
ClusterLayout cluster_layout(const Graph &graph, const std::vector<NodeId> &cluster, const poly::ClusterResult &result);

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
  std::vector<ClusterLayout> layouts;         ///< per kernel, same order as `clusters`
  bool executable = false;                    ///< `functions` were built (CompileOptions::executable)
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
/// fold_pad) when the passes change something and the graph's hints allow.
/// A `tree` hint names the original statements: no simplification. Explicit
/// `fuse` groups name the original nodes: the passes that replace a node by
/// several under new names (band_depthwise_chain, split_compute_node) are
/// off, each group keeps the members that are still nodes under their names
/// (a BatchNormalization folded into its Conv is gone, one made a scale and
/// shift keeps its name), nodes the passes made run alone, and when the
/// groups so mapped are not legal (a layout copy between two members) the
/// original graph is compiled.
struct PreparedGraph {
  Graph graph;                             ///< simplified or the original
  bool simplified = false;
  SimplifySummary summary;                 ///< what the passes did (when run)
  std::string skipped;                     ///< why simplification was not used, if it was not
  std::map<std::string, Tensor> constants; ///< weights the passes made (inline data)
};

/// Simplifies `graph` for compilation (see PreparedGraph).
/// `target` "npu..." keeps the layouts the NPU code generator reads: no
/// weight panels, no blocked convolutions, no transposed operand copies
/// (the cube transposes on its loads).
PreparedGraph prepare_graph(const Graph &graph, const std::string &target = "cpu");

/// Polyhedral options for one cluster from the graph's schedule hints; a
/// hint that cannot be honoured is a UserError naming it.
poly::PolyOptions cluster_options(const Graph &graph, const std::string &cluster, std::size_t num_clusters,
                                  const CompileOptions &options);

/// A cluster with its node and tensor names taken out: `key` is equal for
/// two clusters of a graph exactly when they compute the same thing with
/// tensors of the same types and roles, up to names; `names` are the
/// cluster's node and tensor names in the order `key` numbers them.
struct ClusterShape {
  std::string key;
  std::vector<std::string> names;
};
ClusterShape cluster_shape(const Graph &graph, const std::vector<NodeId> &cluster);

/// The compiled cluster `from` (of shape `from_shape`) renamed for a cluster
/// of the same key (`to_shape`): its kernel, arrays, statements and texts
/// under the other cluster's names, `same_as` naming `from`'s kernel. Empty
/// when the shapes differ or the renaming would make two names one.
std::optional<poly::ClusterResult> renamed_cluster(const poly::ClusterResult &from, const ClusterShape &from_shape,
                                                   const ClusterShape &to_shape);

/// One kernel cut from a split cluster: its nodes (in the cluster's order),
/// their compiled code and its layout.
struct ClusterPiece {
  std::vector<NodeId> nodes;
  poly::ClusterResult result;
  ClusterLayout layout;
};

/// Compiles a group of nodes as one cluster (with the options its first node's name gives).
using CompilePiece = std::function<poly::ClusterResult(const std::vector<NodeId> &)>;

/// A cluster whose schedule split it (`layout`, from the scheduler, no
/// given tree) between two or more parts with heavy operators
/// (fusion::is_heavy), as kernels of their own: its parts, in an order in
/// which each runs after the parts it reads (none if they read each other), each
/// joined to the next while the union has one heavy part at most, is legal
/// (fusion::find_reentry) and `compile` lays it out as one part. Each part then gets the schedule, tiles
/// and vector code it gets as a cluster of its own, instead of a share of a
/// schedule made for nests that do not share a loop: a depthwise Conv and
/// the 1x1 Conv after it in one `fuse` group run as two kernels, not as a
/// vectorized depthwise nest and a scalar, untiled 1x1 nest. Every piece's
/// layout records the cluster in `split_from`. Empty when the layout is not
/// split between heavy parts, or some operator is in no part.
std::vector<ClusterPiece> split_cluster(const Graph &graph, const std::vector<NodeId> &cluster,
                                        const ClusterLayout &layout, const CompilePiece &compile);

/// A graph through the polyhedral layer exactly as compile_graph compiles it.
struct ScheduledGraph {
  PreparedGraph prepared;                     ///< prepare_graph(graph)
  ClusterPlan plan;                           ///< plan_clusters(prepared.graph)
  std::vector<poly::ClusterResult> clusters;  ///< one per plan.fusion.clusters, call order
  std::vector<ClusterLayout> layouts;         ///< same order
  std::map<std::string, double> stage_ms;     ///< "clusters" and the polyhedral stages, summed
};

/// The one path from a graph to loop ASTs, shared by compile_graph and
/// `atoll explain`: prepare_graph, plan_clusters (views get no kernel), then
/// every cluster through poly::compile_cluster with its cluster_options.
/// A hint that cannot be honoured or a cluster the polyhedral layer refuses
/// is a UserError naming the graph (and the cluster's first node).
ScheduledGraph schedule_graph(const Graph &graph, const CompileOptions &options);

/// One graph on its way to kernels: what the driver's stages read and write.
struct GraphCompileState {
  const Graph &input;
  const CompileOptions &options;
  ScheduledGraph scheduled;
  std::vector<poly::PolyOptions> cluster_options;  ///< per planned cluster (compile_clusters)
  std::vector<KernelFunction> functions;           ///< codegen: one per kernel, call order
  std::shared_ptr<void> keep_alive;                ///< codegen: owns the code
};

/// The driver's stages in order: prepare (prepare_graph), plan_clusters
/// (plan_clusters and the checks of the `tree` and `tile` hints' keys),
/// compile_clusters (poly::compile_cluster per cluster), split_clusters
/// (split_cluster), codegen (when options.executable).
const PassTable<GraphCompileState> &graph_stages();

/// schedule_graph, then code for the target when options.executable: views
/// become `aliases`, folded weights `constants`. The graph outputs, inputs
/// and declared weights keep their names, so run_compiled takes `graph`'s
/// tensors. stage_ms["jit"] is the in-memory build (present only when it ran).
CompiledGraph compile_graph(const Graph &graph, const CompileOptions &options);

/// Runs a compiled graph on host tensors (inputs and weights of the concrete
/// graph `concrete`, an instantiation of the compiled one) and returns the
/// graph outputs. `params` gives the symbolic dimensions' values. When
/// `repeat` > 0 the kernels run that many more times and `times_ms` gets
/// each run's time (kernels only, not data conversion), and `kernel_ms`
/// (when given) one vector per kernel of its time in each run. The weight
/// phase (weight_phase) runs once, before the first run: `weight_ms` gets
/// its time, and its kernels' entries in `kernel_ms` that one time.
std::map<std::string, Tensor> run_compiled(const CompiledGraph &compiled, const Graph &concrete,
                                           const std::map<std::string, Tensor> &feeds,
                                           const std::map<std::string, std::int64_t> &params, int repeat = 0,
                                           std::vector<double> *times_ms = nullptr,
                                           std::vector<std::vector<double>> *kernel_ms = nullptr,
                                           double *weight_ms = nullptr);

/// A tensor's elements as the generated code stores them (row-major, in its
/// dtype): written to `dst` (numel x the dtype's size bytes), or returned.
void store_raw(const Tensor &t, unsigned char *dst);
std::vector<unsigned char> to_raw(const Tensor &t);

/// Bytes of each tensor as the kernels see it (their arguments in `uses`),
/// else as `concrete` declares it, or as a constant the compiler made.
std::function<std::int64_t(const std::string &)> tensor_bytes_of(const CompiledGraph &compiled, const Graph &concrete,
                                                                 const std::vector<memory::KernelUse> &uses);

/// The kernels' array arguments at the parameter values: which graph tensor
/// each holds (or a temporary), its bytes, read or written.
std::vector<memory::KernelUse> kernel_uses(const CompiledGraph &compiled,
                                           const std::map<std::string, std::int64_t> &params);

/// The weight phase: kernels that read only weights and folded constants
/// (directly or through tensors that other such kernels write), write no
/// tensor the caller owns and take no symbolic size. Weights are constant
/// across calls (batch-format.md), so these kernels (weight layout changes,
/// folded scales, packed GEMM operands) run once per weight binding, and
/// the tensors they write live in buffers of their own, outside the arena.
struct WeightPhase {
  std::vector<bool> kernel;                        ///< per kernel, call order
  std::map<std::string, std::int64_t> tensors;     ///< what they write (base tensors) and its bytes
};
WeightPhase weight_phase(const CompiledGraph &compiled, const Graph &concrete,
                         const std::map<std::string, std::int64_t> &params);
/// The same from the kernels' uses at the parameter values (kernel_uses).
WeightPhase weight_phase_of(const CompiledGraph &compiled, const Graph &concrete,
                            const std::vector<memory::KernelUse> &uses);

/// Whether arena buffer `b` of `plan` must be zero-filled before its first
/// kernel: false only when that kernel writes the whole buffer with a plain
/// assignment before reading it (ClusterResult::written_first) and no view
/// or in-place input lives in it.
bool zero_before_first_use(const CompiledGraph &compiled, const memory::MemoryPlan &plan,
                           const std::vector<memory::KernelUse> &uses, std::size_t b);

/// The arena plan of a compiled graph at the parameter values (`concrete` is
/// the graph instantiated at them): graph inputs, weights, outputs and
/// constants, and the weight phase's tensors, stay outside the arena.
memory::MemoryPlan plan_memory(const CompiledGraph &compiled, const Graph &concrete,
                               const std::map<std::string, std::int64_t> &params);

}  // namespace atl
