// The schedule-level passes: the scheduler, then the CPU's tree
// transformations (see passes.h). The tiling passes are alternatives: each
// runs only when no earlier one applied, kept or rejected.
#include "polyhedral/pipeline/cluster_state.h"
#include "polyhedral/pipeline/passes.h"

#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/schedule.h"
#include "polyhedral/transforms/schedule/fuse_sibling_bands.h"
#include "polyhedral/transforms/schedule/interleave_rows.h"
#include "polyhedral/transforms/schedule/map_to_gpu.h"
#include "polyhedral/transforms/schedule/pack_tiles.h"
#include "polyhedral/transforms/schedule/tile_for_cpu.h"
#include "polyhedral/transforms/schedule/tile_transpose.h"
#include "polyhedral/transforms/schedule/tile_window_for_cpu.h"

#include <atoll/diagnostics.h>

#if __has_include("polyhedral/schedule/schedule_pluto.h")
#include "polyhedral/schedule/schedule_pluto.h"
#define ATOLL_HAS_PLUTO 1
#endif

namespace atl::poly::passes {

namespace {

ScheduleResult run_scheduler(const ClusterState &s) {
  const PolyOptions &o = s.options;
  ScheduleOptions so;
  so.quota = o.quota;
  so.seconds = o.schedule_seconds;
  so.force_fallback = o.force_fallback;
  if (o.scheduler.empty() || o.scheduler == "isl") return schedule_isl(s.scop, s.deps, so);
  if (o.scheduler == "feautrier") return schedule_feautrier(s.scop, s.deps, so);
  if (o.scheduler == "given") return schedule_given(s.scop, s.deps, o.tree);
  Location hint;
  hint.hint = "scheduler";
#ifdef ATOLL_HAS_PLUTO
  if (o.scheduler == "pluto") return schedule_pluto(s.scop, s.deps, so);
#else
  if (o.scheduler == "pluto") throw UserError("scheduler pluto is not available", hint);
#endif
  throw UserError("unknown scheduler '" + o.scheduler + "' (expected isl, pluto, feautrier or a given tree)", hint);
}

/// Cost-model tiling for the CPU; a schedule the caller gave is used as is.
bool cpu_tiling(const ClusterState &s) { return s.options.tile && s.algorithm != "given"; }

/// The `tile` hint sizes the main statement's cache tiles, one size per
/// dimension of its domain; what cannot be honoured is an error.
void check_tile_hint(const ClusterState &s, const CpuTileResult &t) {
  const PolyOptions &o = s.options;
  if (!o.tile_hint || o.tile_sizes.empty()) return;
  Location hint;
  hint.hint = "tile";
  if (!t.applied)
    throw UserError("cannot tile cluster " + s.scop.name + " by the given sizes: it has no contraction to tile (" +
                        t.reason + "); tile hints apply to MatMul, Gemm, Conv and contractions in Compute",
                    hint);
  const ScopStatement *main = s.scop.statement(t.statement);
  std::size_t dims = main ? main->indices.size() : 0;
  if (main && o.tile_sizes.size() != dims)
    throw UserError(std::to_string(o.tile_sizes.size()) + " tile sizes given for the " + std::to_string(dims) +
                        " dimensions of " + t.statement + "'s domain (explain --stage scop shows them)",
                    hint);
}

}  // namespace

// Whatever produced it, a schedule is checked before use: a given tree that
// breaks a dependence is an error naming it, any other falls back to the
// original order.
const Pass scheduler = {
    "scheduler", Level::Schedule, "isl, pluto, feautrier or a given tree, checked against the dependences",
    [](const ClusterState &) { return true; },
    [](ClusterState &s, int) {
      s.original = schedule_original(s.scop);
      s.original_yaml = schedule_to_yaml(s.original);
      ScheduleResult sched = run_scheduler(s);
      if (auto v = check_legality(s.scop, s.deps, sched.schedule)) {
        if (sched.algorithm == "given") throw IllegalSchedule(*v);
        sched.fallbacks.push_back("schedule from " + sched.algorithm + " rejected for cluster " + s.scop.name + " (" +
                                  v->message() + "); using the original order");
        sched.schedule = s.original;
        sched.algorithm = "original";
      }
      s.schedule = sched.schedule;
      s.algorithm = sched.algorithm;
      s.fallbacks = sched.fallbacks;
      return PassOutcome{true, {}, false, {}};
    }};

// Fuses only what the dependences allow (it reads them), so the runner does
// not check it again.
const Pass fuse_sibling_bands = {
    "fuse_sibling_bands", Level::Schedule, "sibling loop nests that pass data on their outer loops fused",
    [](const ClusterState &s) { return s.options.fuse_bands && s.algorithm != "given"; },
    [](ClusterState &s, int) {
      PassOutcome out;
      FuseBandsResult f = poly::fuse_sibling_bands(s.scop, s.deps, s.schedule);
      if (f.fusions <= 0) return out;
      s.schedule = f.schedule;
      out.changed = true;
      out.stats["bands_fused"] = f.fusions;
      return out;
    }};

// The main statement's band (a contraction): cache tiles sized from
// footprints, a register tile, vector columns; the init and the epilogue
// inside the tiles, or, when that breaks a dependence, after them.
const Pass tile_for_cpu = {
    "tile_for_cpu", Level::Schedule, "GEMM-shaped bands: cache tiles, register tile, vector columns", cpu_tiling,
    [](ClusterState &s, int attempt) {
      const PolyOptions &o = s.options;
      CpuTileOptions to;
      to.target = o.target;
      to.cache_sizes = o.tile_sizes;
      to.unroll = o.unroll;
      to.vectorize = o.vectorize;
      to.epilogue = attempt == 0;
      CpuTileResult t = poly::tile_for_cpu(s.scop, s.schedule, to);
      if (attempt == 0) check_tile_hint(s, t);
      PassOutcome out;
      if (!t.applied) {
        out.note = t.reason;
        return out;
      }
      s.schedule = t.schedule;
      out.changed = true;
      out.can_retry = attempt == 0 && t.companions > 0;
      out.stats["bands_tiled"] = 1;
      if (t.companions > 0) out.stats["statements_in_tiles"] = t.companions;
      out.stats["register_tiles"] = 1;
      out.stats["register_tile_elements"] = t.mr * t.nr;
      s.gemm_tiles = gemm_tiling(t);
      return out;
    },
    true, "epilogue_placements_rejected", "tilings_rejected"};

// Window reductions (depthwise convolution, pooling): no contraction dimension.
const Pass tile_window_for_cpu = {
    "tile_window_for_cpu", Level::Schedule, "window reductions (depthwise convolution, pooling): register tiles",
    [](const ClusterState &s) { return cpu_tiling(s) && !s.applied("tile_for_cpu"); },
    [](ClusterState &s, int attempt) {
      const PolyOptions &o = s.options;
      WindowTileOptions wo;
      wo.target = o.target;
      wo.rows = o.unroll;
      wo.vectorize = o.vectorize;
      wo.epilogue = attempt == 0;
      WindowTileResult w = poly::tile_window_for_cpu(s.scop, s.schedule, wo);
      PassOutcome out;
      if (!w.applied) {
        out.note = w.reason;
        return out;
      }
      s.schedule = w.schedule;
      out.changed = true;
      out.can_retry = attempt == 0 && w.companions > 0;
      out.stats["window_tiles"] = static_cast<long>(w.tiles.size());
      if (w.companions > 0) out.stats["statements_in_tiles"] = w.companions;
      long elements = 0;
      for (const WindowTile &wt : w.tiles) elements += wt.rows * wt.columns;
      if (!w.tiles.empty()) out.stats["register_tile_elements"] = elements;
      s.window_rows = w.tiles.empty() ? 0 : w.tiles.front().rows;
      return out;
    },
    true, "epilogue_placements_rejected", "window_tilings_rejected"};

// Row-wise kernels with short rows (Softmax over 64 scores): rows side by side.
const Pass interleave_rows = {
    "interleave_rows", Level::Schedule, "short row-wise kernels: several rows side by side",
    [](const ClusterState &s) {
      return cpu_tiling(s) && !s.applied("tile_for_cpu") && !s.applied("tile_window_for_cpu");
    },
    [](ClusterState &s, int) {
      InterleaveRowsResult ir = poly::interleave_rows(s.scop, s.schedule, InterleaveRowsOptions{});
      PassOutcome out;
      if (!ir.applied) {
        out.note = ir.reason;
        return out;
      }
      s.schedule = ir.schedule;
      out.changed = true;
      out.stats["rows_interleaved"] = ir.rows;
      if (ir.phases_split > 0) out.stats["row_phases_split"] = ir.phases_split;
      return out;
    },
    true, nullptr, "row_interleavings_rejected"};

// A Transpose: square blocks of the copy.
const Pass tile_transpose = {
    "tile_transpose", Level::Schedule, "transposes: square blocks of the copy",
    [](const ClusterState &s) {
      return cpu_tiling(s) && !s.applied("tile_for_cpu") && !s.applied("tile_window_for_cpu") &&
             !s.applied("interleave_rows");
    },
    [](ClusterState &s, int) {
      TransposeTileResult tt = poly::tile_transpose(s.scop, s.schedule);
      PassOutcome out;
      if (!tt.applied) {
        out.note = tt.reason;
        return out;
      }
      s.schedule = tt.schedule;
      out.changed = true;
      out.stats["transposes_tiled"] = 1;
      return out;
    },
    true, nullptr, "transpose_tilings_rejected"};

// A cache tile's panel of a GEMM operand copied into a local buffer where
// the cost model says it pays. The copies are extension nodes in a tree of
// their own (ClusterState::packed); they read what the tile reads before
// it runs, so they keep the dependences.
const Pass pack_tiles = {
    "pack_tiles", Level::Schedule, "GEMM operand panels copied into local buffers (extension nodes)",
    [](const ClusterState &s) { return s.options.pack && s.gemm_tiles.has_value(); },
    [](ClusterState &s, int) {
      PackOptions po;
      po.target = s.options.target;
      PackResult p = poly::pack_tiles(s.scop, s.schedule, *s.gemm_tiles, po);
      PassOutcome out;
      if (p.packs.empty()) {
        out.note = p.reason;
        return out;
      }
      out.changed = true;
      out.stats["arrays_packed"] = static_cast<long>(p.packs.size());
      out.stats["packed_bytes"] = p.packed_bytes;
      s.packs = std::move(p.packs);
      s.packed = p.schedule;
      return out;
    }};

}  // namespace atl::poly::passes

namespace atl::poly::passes {

// GPU targets: each outermost band with a parallel member becomes a kernel
// whose tile loops run across blocks and point loops across threads. The
// tree is checked against the dependences like any tiling.
const Pass map_to_gpu = {
    "map_to_gpu", Level::Schedule, "outermost parallel bands tiled onto GPU blocks and threads",
    [](const ClusterState &s) { return s.options.gpu.has_value(); },
    [](ClusterState &s, int) {
      PassOutcome out;
      // The `tile` hint: threads along each member of the band (docs/gpu.md).
      GpuMapResult m = poly::map_to_gpu(s.schedule, s.deps.all(), *s.options.gpu,
                                        s.options.tile_hint ? s.options.tile_sizes : std::vector<long>{},
                                        s.scop.writes());
      s.gpu_mappings = m.kernels;
      if (m.kernels.empty()) {
        out.note = "no outermost band has a parallel member: the cluster runs on one thread";
        return out;
      }
      s.schedule = m.schedule;
      out.changed = true;
      out.stats["bands_mapped_to_gpu"] = static_cast<long>(m.kernels.size());
      if (m.unmapped) out.stats["bands_on_one_thread"] = m.unmapped;
      return out;
    },
    true};

}  // namespace atl::poly::passes
