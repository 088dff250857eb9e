// One cluster on its way through a polyhedral pipeline: the SCoP, its
// dependences, the schedule and the scheduler that made it, the loop AST,
// the intent passes leave for later ones, and the log of every pass.
#pragma once

#include "polyhedral/ast/build_ast.h"
#include "polyhedral/ast/gpu_launches.h"
#include "polyhedral/ast/loop_ast.h"
#include "polyhedral/deps/dependences.h"
#include "polyhedral/pipeline/knobs.h"
#include "polyhedral/pipeline/pass.h"
#include "polyhedral/pipeline/poly_options.h"
#include "polyhedral/scop/scop.h"
#include "polyhedral/transforms/schedule/gemm_tiling.h"
#include "polyhedral/transforms/npu/npu_plan.h"
#include "polyhedral/transforms/schedule/map_to_gpu.h"

#include "graph/ir/graph.h"

#include <isl/cpp.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace atl::poly {

struct ClusterState {
  // The input.
  isl::ctx ctx{nullptr};
  const Graph *graph = nullptr;
  std::vector<NodeId> cluster;  ///< nodes in graph order
  PolyOptions options;

  // SCoP level.
  Scop scop;
  /// Nodes whose statements inline_producers removed -> a node of the
  /// cluster whose statements now compute their values.
  std::map<std::string, std::string> inlined;

  /// apply_tuning: the SCoP's identity (empty key until computed) and the
  /// point applied (empty: none).
  ScopIdentity identity;
  KnobValues tuned;
  std::string tuned_from;  ///< the key whose point it is (another shape's, or identity.key)

  // Dependences level.
  Dependences deps;

  // Schedule level.
  isl::schedule original;              ///< the original order (a fallback for the scheduler)
  std::string original_yaml;           ///< the original order as made (isl YAML)
  isl::schedule schedule;              ///< the current tree
  std::string algorithm;               ///< the scheduler that made it ("original" after a fallback)
  std::vector<std::string> fallbacks;  ///< the scheduler's fallbacks (report.json)
  /// The GEMM-shaped tiling of the main statement (tile_for_cpu), which
  /// pack_tiles reads: its register tile and cache tile sizes.
  std::optional<GemmTiling> gemm_tiles;
  /// The tree with packing's extension nodes (copy statements) and the
  /// copies, for build_ast: a tree with extension nodes does not read back
  /// as a given tree, so `schedule` stays the tree without them.
  std::optional<isl::schedule> packed;
  std::vector<PackedRead> packs;
  /// GPU targets: the bands map_to_gpu mapped to blocks and threads.
  std::vector<GpuMapping> gpu_mappings;
  /// tile_window_for_cpu: the register-tile rows it chose (0: not applied).
  long window_rows = 0;

  // AST level.
  LKernel kernel;
  bool has_kernel = false;
  /// GPU targets: the kernel as launches (split_launches).
  GpuProgram gpu;
  bool has_gpu = false;
  /// NPU targets: the kernel's plan (classify_npu_kernel, tile_for_npu).
  std::optional<NpuKernelPlan> npu_plan;

  /// The schedule tree's part of the state, which a schedule-level pass may
  /// change and the runner restores when it rejects the pass. (The state
  /// as a whole is not copied: isl objects that are still null cannot be.)
  struct ScheduleLevel {
    isl::schedule schedule;
    std::optional<GemmTiling> gemm_tiles;
    std::optional<isl::schedule> packed;
    std::vector<PackedRead> packs;
  };
  ScheduleLevel save_schedule_level() const { return {schedule, gemm_tiles, packed, packs}; }
  void restore(ScheduleLevel saved);

  // What happened: every pass of the table in order, and the counters of
  // all passes summed (the flat --stats names).
  std::vector<PassRecord> log;
  PassStats stats;

  /// The record of pass `name`, or null when it has not run yet.
  const PassRecord *record(const std::string &name) const;
  /// True when pass `name` changed its IR, kept or rejected: an alternative
  /// to it should not be tried.
  bool applied(const std::string &name) const;
};

/// The state's IR at `level` as explain prints it.
std::string print_level(const ClusterState &state, Level level);

}  // namespace atl::poly
