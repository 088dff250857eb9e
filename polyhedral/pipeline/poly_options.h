// The options of the polyhedral layer for one cluster: the scheduler, and
// which passes of the pipeline run and how (from the graph's hints and the
// command line, src/pipeline/cluster_options.cpp).
#pragma once

#include "polyhedral/target/cpu_target.h"
#include "polyhedral/target/gpu_target.h"
#include "polyhedral/target/npu_target.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace atl::poly {

/// A point of a cluster's tuning space: knob name -> value (pipeline/knobs.h).
using KnobValues = std::map<std::string, std::string>;
/// Tuned points by the canonical key of a cluster's SCoP, and by shape
/// family for other shapes (pipeline/knobs.h).
struct TuningTable;

struct PolyOptions {
  /// "isl" (default), "feautrier", "pluto" (schedule_pluto), "given" (uses `tree`).
  std::string scheduler = "isl";
  std::string tree;                   ///< isl YAML schedule tree for "given"
  unsigned long quota = 2'000'000;    ///< isl operations per scheduler attempt (0 = none)
  double schedule_seconds = 10;       ///< wall-clock seconds per isl scheduler attempt or Pluto search (0 = none)
  bool allow_reassociation = true;    ///< relax reductions (see deps/dependences.h)
  bool parallel = true, vectorize = true;
  /// Tests: force the fallback ladder ("quota" or "all", see ScheduleOptions).
  std::string force_fallback;
  /// Cost-model tiling for the CPU (transforms/schedule/tile_for_cpu): cache tiles,
  /// register micro-tile, vector columns. Not applied to a given tree.
  bool tile = true;
  /// The `tile` hint: cache tile sizes per domain dimension of the main
  /// statement (0 = not tiled); empty = the cost model decides.
  std::vector<long> tile_sizes;
  /// Fuse sibling loop nests that pass data on their outer loops
  /// (transforms/schedule/fuse_sibling_bands). Not applied to a given tree.
  bool fuse_bands = true;
  /// Array contraction (transforms/ast/contract_arrays): temporaries used within
  /// one iteration of an outer loop nest become local buffers.
  bool contract = true;
  /// Cheap elementwise producers of cluster temporaries recomputed in their
  /// readers (transforms/scop/inline_producers).
  bool inline_producers = true;
  /// A positive constant factor taken out of max and min reductions into
  /// their readers (transforms/scop/factor_reduction_scale; exact).
  bool factor_scales = true;
  /// Exps of a value minus its own maximum marked as never taking +inf
  /// (transforms/scop/bound_shifted_exps; the backend drops a clamp).
  bool bound_exps = true;
  /// In-place epilogues (transforms/ast/reuse_temporaries): a temporary whose only
  /// reader is an elementwise statement takes the storage that statement writes.
  bool reuse_temporaries = true;
  /// Packing (transforms/schedule/pack_tiles): a cache tile's panel of a GEMM operand
  /// copied into a local buffer where the cost model says it pays.
  bool pack = true;
  /// Guard versioning (transforms/ast/version_guards): a register tile whose
  /// guarded reads are all in bounds runs a copy without guards.
  bool version_guards = true;
  long unroll = 0;   ///< the `unroll` hint: register-tile rows (0 = cost model, 1 = no unroll-and-jam)
  /// The sizes come from the `tile` hint: one per dimension of the main
  /// statement, which must be a contraction (else an error naming the hint);
  /// without it a short list repeats its last size (tests, the API).
  bool tile_hint = false;
  bool unroll_loops = true;  ///< false (`unroll: false`): no loop is unrolled (window taps, register tiles)
  CpuTarget target = host_target();  ///< caches, vector width, cores (tests override)
  /// A GPU target: the cluster goes through the GPU table (gpu_pipeline.h).
  std::optional<GpuTarget> gpu;
  /// An NPU target: the cluster goes through the NPU table (npu_pipeline).
  std::optional<NpuTargetInfo> npu;
  /// Tuned points (tuning records, or a candidate of `atoll tune`): the pass
  /// apply_tuning sets these options from the point of the cluster's key.
  std::shared_ptr<const TuningTable> tuning;
  /// Describe the cluster for tuning: its knob space and its features
  /// (ClusterResult::space, features), for explain --stage space and the
  /// tuner; off, compiling does not spend time on them.
  bool describe = false;
  /// Passes whose output is kept as text (ClusterResult::printed): pass
  /// names of the target's table, or "all" (explain --stage, --print-after).
  std::set<std::string> print_after;
};

}  // namespace atl::poly
