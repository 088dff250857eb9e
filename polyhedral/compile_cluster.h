// The polyhedral layer's facade: one cluster of a graph through the
// target's pass table (pipeline/cpu_pipeline.h): SCoP -> dependences ->
// schedule -> LKernel, with every stage's text and every pass's record.
#pragma once

#include "polyhedral/ast/gpu_launches.h"
#include "polyhedral/ast/loop_ast.h"
#include "polyhedral/pipeline/knobs.h"
#include "polyhedral/pipeline/pass.h"
#include "polyhedral/pipeline/poly_options.h"
#include "polyhedral/pipeline/run_passes.h"
#include "polyhedral/transforms/npu/npu_plan.h"

#include "graph/ir/graph.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace atl::poly {

struct ClusterResult {
  std::string name;              ///< the cluster (its first node's name)
  std::string scop_text;         ///< explain --stage scop
  std::string deps_text;         ///< explain --stage deps
  std::string schedule_yaml;     ///< the schedule used (isl YAML)
  std::string original_yaml;     ///< the original-order schedule, for comparison
  std::string algorithm;         ///< scheduler that produced the schedule
  std::string ast_text;          ///< explain --stage ast
  LKernel kernel;
  GpuProgram gpu;        ///< GPU targets: the kernel as launches
  bool has_gpu = false;
  std::optional<NpuKernelPlan> npu_plan;  ///< NPU targets: the kernel's plan
  std::vector<std::string> fallbacks;                  ///< for report.json
  std::vector<std::pair<std::string, double>> timings_ms;  ///< per level (scop, deps, schedule, ast)
  std::map<std::string, std::string> array_of_tensor;  ///< graph tensor -> kernel array
  /// Nodes whose statements were inlined (transforms/scop/inline_producers) ->
  /// a node of the cluster whose statements now compute their values.
  std::map<std::string, std::string> inlined;
  /// What the optimizer did (--stats), e.g. bands_tiled, loops_vectorized,
  /// summed over the passes (each pass's own counts are in `passes`).
  std::map<std::string, long> stats;
  /// Every pass of the table in order: run or skipped, changed, rejected
  /// (with the violated dependence), its time and statistics.
  std::vector<PassRecord> passes;
  /// The IR after the passes PolyOptions::print_after names.
  std::vector<PrintedPass> printed;
  /// The kernel whose compiled code this cluster reuses under its own
  /// names (the same computation, src/pipeline/same_clusters.cpp); empty
  /// when it was compiled itself.
  std::string same_as;
  /// Output arrays of the kernel whose every element it assigns before it
  /// reads it (a plain assignment first, over the whole extent): the runner
  /// need not zero-fill them before the call.
  std::set<std::string> written_first;
  /// With PolyOptions::describe: the cluster's tuning space (its SCoP's
  /// identity, its knobs and what the passes chose) and its features
  /// (cluster_features) for cost models.
  KnobSpace space;
  std::map<std::string, double> features;
  /// The tuned point apply_tuning applied (empty: none).
  KnobValues tuned;
};

/// Compiles one cluster (nodes in graph order) of a finalized graph. Throws
/// atl::UserError (with graph/node filled) for user problems: a definition
/// the polyhedral layer cannot represent, an unknown scheduler, a bad or
/// illegal given tree (poly::IllegalSchedule, which names the dependence).
ClusterResult compile_cluster(const Graph &graph, const std::vector<NodeId> &cluster, const PolyOptions &options);

}  // namespace atl::poly
