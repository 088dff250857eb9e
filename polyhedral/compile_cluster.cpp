// The polyhedral facade: SCoP, dependences, schedule (isl, feautrier, pluto,
// given), loop AST, with stage texts, timings and fallbacks.
#include "polyhedral/compile_cluster.h"

#include "polyhedral/ast/build_ast.h"
#include "polyhedral/deps/dependences.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/schedule.h"
#include "polyhedral/scop/scop.h"
#include "polyhedral/transforms/coalesce_dims.h"
#include "polyhedral/transforms/bound_shifted_exps.h"
#include "polyhedral/transforms/factor_reduction_scale.h"
#include "polyhedral/transforms/inline_producers.h"
#include "polyhedral/transforms/specialize_remainders.h"
#include "polyhedral/transforms/contract_arrays.h"
#include "polyhedral/transforms/reuse_temporaries.h"
#include "polyhedral/transforms/fuse_sibling_bands.h"
#include "polyhedral/transforms/interleave_rows.h"
#include "polyhedral/transforms/pack_tiles.h"
#include "polyhedral/transforms/tile_for_cpu.h"
#include "polyhedral/transforms/tile_transpose.h"
#include "polyhedral/transforms/version_guards.h"
#include "polyhedral/transforms/tile_window_for_cpu.h"

#include <atoll/diagnostics.h>

#if __has_include("polyhedral/schedule/schedule_pluto.h")
#include "polyhedral/schedule/schedule_pluto.h"
#define ATOLL_HAS_PLUTO 1
#endif

#include <chrono>
#include <sstream>

namespace atl::poly {

namespace {

class Timer {
public:
  explicit Timer(std::vector<std::pair<std::string, double>> &out) : out_(out), t0_(now()) {}
  void lap(const std::string &stage) {
    auto t = now();
    out_.emplace_back(stage, std::chrono::duration<double, std::milli>(t - t0_).count());
    t0_ = t;
  }

private:
  using Clock = std::chrono::steady_clock;
  static Clock::time_point now() { return Clock::now(); }
  std::vector<std::pair<std::string, double>> &out_;
  Clock::time_point t0_;
};

ScheduleResult run_scheduler(const Scop &scop, const Dependences &deps, const PolyOptions &o) {
  ScheduleOptions so;
  so.quota = o.quota;
  so.seconds = o.schedule_seconds;
  so.force_fallback = o.force_fallback;
  if (o.scheduler.empty() || o.scheduler == "isl") return schedule_isl(scop, deps, so);
  if (o.scheduler == "feautrier") return schedule_feautrier(scop, deps, so);
  if (o.scheduler == "given") return schedule_given(scop, deps, o.tree);
  Location hint;
  hint.hint = "scheduler";
#ifdef ATOLL_HAS_PLUTO
  if (o.scheduler == "pluto") return schedule_pluto(scop, deps, so);
#else
  if (o.scheduler == "pluto") throw UserError("scheduler pluto is not available", hint);
#endif
  throw UserError("unknown scheduler '" + o.scheduler + "' (expected isl, pluto, feautrier or a given tree)", hint);
}

/// Cost-model tiling for the CPU (a schedule the caller gave is used as is);
/// the result is checked and dropped when illegal.
isl::schedule optimize_for_cpu(const Scop &scop, const Dependences &deps, const isl::schedule &schedule,
                               const std::string &algorithm, const PolyOptions &o, ClusterResult &r,
                               std::vector<PackedRead> &packs, isl::schedule &packed) {
  if (!o.tile || algorithm == "given") return schedule;
  CpuTileOptions to;
  to.target = o.target;
  to.cache_sizes = o.tile_sizes;
  to.unroll = o.unroll;
  to.vectorize = o.vectorize;
  CpuTileResult t = tile_for_cpu(scop, schedule, to);
  if (o.tile_hint && !o.tile_sizes.empty()) {
    // The `tile` hint sizes the main statement's cache tiles, one size per
    // dimension of its domain; what cannot be honoured is an error.
    Location hint;
    hint.hint = "tile";
    if (!t.applied)
      throw UserError("cannot tile cluster " + scop.name + " by the given sizes: it has no contraction to tile (" +
                          t.reason + "); tile hints apply to MatMul, Gemm, Conv and contractions in Compute",
                      hint);
    const ScopStatement *main = scop.statement(t.statement);
    std::size_t dims = main ? main->indices.size() : 0;
    if (main && o.tile_sizes.size() != dims)
      throw UserError(std::to_string(o.tile_sizes.size()) + " tile sizes given for the " + std::to_string(dims) +
                          " dimensions of " + t.statement + "'s domain (explain --stage scop shows them)",
                      hint);
  }
  if (!t.applied) {
    // Window reductions (depthwise convolution, pooling): no contraction dimension.
    WindowTileOptions wo;
    wo.target = o.target;
    wo.rows = o.unroll;
    wo.vectorize = o.vectorize;
    WindowTileResult w = tile_window_for_cpu(scop, schedule, wo);
    if (!w.applied) {
      // Row-wise kernels with short rows (Softmax over 64 scores): rows side by side.
      InterleaveRowsResult ir = interleave_rows(scop, schedule, InterleaveRowsOptions{});
      if (ir.applied) {
        if (check_legality(scop, deps, ir.schedule)) {
          ++r.stats["row_interleavings_rejected"];
          return schedule;
        }
        r.stats["rows_interleaved"] += ir.rows;
        if (ir.phases_split > 0) r.stats["row_phases_split"] += ir.phases_split;
        return ir.schedule;
      }
      // A Transpose: square blocks of the copy.
      TransposeTileResult tt = tile_transpose(scop, schedule);
      if (!tt.applied) return schedule;
      if (check_legality(scop, deps, tt.schedule)) {
        ++r.stats["transpose_tilings_rejected"];
        return schedule;
      }
      ++r.stats["transposes_tiled"];
      return tt.schedule;
    }
    if (w.companions > 0 && check_legality(scop, deps, w.schedule)) {
      // The epilogue in the window tiles broke a dependence: tile without it.
      ++r.stats["epilogue_placements_rejected"];
      wo.epilogue = false;
      w = tile_window_for_cpu(scop, schedule, wo);
    }
    if (check_legality(scop, deps, w.schedule)) {
      ++r.stats["window_tilings_rejected"];
      return schedule;
    }
    r.stats["window_tiles"] += static_cast<long>(w.tiles.size());
    if (w.companions > 0) r.stats["statements_in_tiles"] += w.companions;
    for (const WindowTile &wt : w.tiles) r.stats["register_tile_elements"] += wt.rows * wt.columns;
    return w.schedule;
  }
  if (t.companions > 0 && check_legality(scop, deps, t.schedule)) {
    // The epilogue in the tiles broke a dependence: tile without it.
    ++r.stats["epilogue_placements_rejected"];
    to.epilogue = false;
    t = tile_for_cpu(scop, schedule, to);
  }
  if (check_legality(scop, deps, t.schedule)) {
    ++r.stats["tilings_rejected"];
    return schedule;
  }
  r.stats["bands_tiled"] += 1;
  if (t.companions > 0) r.stats["statements_in_tiles"] += t.companions;
  r.stats["register_tiles"] += 1;
  r.stats["register_tile_elements"] += t.mr * t.nr;
  if (o.pack) {
    PackOptions po;
    po.target = o.target;
    PackResult p = pack_tiles(scop, t.schedule, t, po);
    if (!p.packs.empty()) {
      r.stats["arrays_packed"] += static_cast<long>(p.packs.size());
      r.stats["packed_bytes"] += p.packed_bytes;
      packs = p.packs;
      packed = p.schedule;  // for the AST only: a tree with extension nodes does not read back as a given tree
    }
  }
  return t.schedule;
}

/// True when the isl YAML `tree` reads and schedules every instance of `domain`.
bool schedules_all(const std::string &tree, const isl::union_set &domain) {
  try {
    isl::schedule s(domain.ctx(), tree);
    return domain.is_subset(s.get_domain());
  } catch (const isl::exception &) {
    return false;  // schedule_given says what is wrong with it
  }
}

/// Counts the AST's marked loops into stats.
void count_marks(const LStmt &s, std::map<std::string, long> &stats) {
  if (s.kind == LStmtKind::For) {
    if (s.marks.count(mark::kVector)) ++stats["loops_vectorized"];
    if (s.marks.count(mark::kParallel)) ++stats["loops_parallel"];
    if (s.marks.count(mark::kUnroll)) ++stats["loops_unrolled"];
  }
  for (const auto &b : s.body)
    if (b) count_marks(*b, stats);
  if (s.then_body) count_marks(*s.then_body, stats);
  if (s.else_body) count_marks(*s.else_body, stats);
}

}  // namespace

ClusterResult compile_cluster(const Graph &graph, const std::vector<NodeId> &cluster, const PolyOptions &options) {
  IslContext ctx;
  ClusterResult r;
  Timer timer(r.timings_ms);
  Location where;
  where.graph = graph.name;
  try {
    Scop scop = build_scop(ctx, graph, cluster);
    // Cheap elementwise producers recomputed where they are read (not with
    // tile sizes, which name the statements as written; under a given tree
    // only when the tree schedules the statements left, not the producers,
    // as a tree printed by `explain --stage schedule` does).
    if (options.inline_producers && options.tile_sizes.empty()) {
      Scop inlined = scop;
      InlineResult in = inline_producers(inlined);
      const bool given = options.scheduler == "given";
      if (!in.statements.empty() && (!given || (!schedules_all(options.tree, scop.domain()) &&
                                               schedules_all(options.tree, inlined.domain())))) {
        scop = std::move(inlined);
        r.stats["producers_inlined"] += static_cast<long>(in.statements.size());
        r.inlined = in.into;
      }
    }
    // A positive constant factor out of max and min reductions (exact; the
    // statements keep their names and domains, so under any schedule).
    if (options.factor_scales)
      if (auto f = factor_reduction_scales(scop); !f.empty()) r.stats["reduction_scales_factored"] += static_cast<long>(f.size());
    // Exps of a value minus its own maximum (Softmax's): never +inf, so the
    // backend's exp needs no upper clamp (a mark; the statements are unchanged).
    if (options.bound_exps)
      if (int n = bound_shifted_exps(scop); n > 0) r.stats["exps_bounded_above"] += n;
    // An image's rows and columns as one dimension where its rows are not
    // whole register tiles (not under tile sizes, which name dimensions;
    // under a given tree only when the tree schedules the coalesced
    // statements, as the trees this compiler prints do). A register tile is
    // one vector wide with 32 vector registers and two with 16 (AVX2: 6 x 16
    // tiles, so 56-pixel rows would leave an 8-column remainder tile in
    // every row; ResNet's conv3 on AMD Zen 3 ran at 40 GFLOP/s that way).
    if (options.tile && options.vectorize && options.tile_sizes.empty()) {
      Scop coalesced = scop;
      const CpuTarget &t = options.target;
      long row_unit = static_cast<long>(t.vector_lanes) * (t.vector_registers >= 32 ? 1 : 2);
      if (coalesce_dims(coalesced, row_unit).applied &&
          (options.scheduler != "given" || schedules_all(options.tree, coalesced.domain()))) {
        scop = std::move(coalesced);
        r.stats["dimensions_coalesced"] += 1;
      }
    }
    r.name = scop.name;
    r.array_of_tensor = scop.array_of_tensor;
    std::ostringstream os;
    print_scop(os, scop);
    r.scop_text = os.str();
    timer.lap("scop");

    DepOptions dopts;
    dopts.allow_reassociation = options.allow_reassociation;
    Dependences deps = compute_dependences(scop, dopts);
    os.str("");
    print_dependences(os, deps);
    r.deps_text = os.str();
    timer.lap("deps");

    isl::schedule original = schedule_original(scop);
    r.original_yaml = schedule_to_yaml(original);
    ScheduleResult sched = run_scheduler(scop, deps, options);
    // Whatever produced it, a schedule is checked before use.
    if (auto v = check_legality(scop, deps, sched.schedule)) {
      if (sched.algorithm == "given") throw IllegalSchedule(*v);
      sched.fallbacks.push_back("schedule from " + sched.algorithm + " rejected for cluster " + scop.name + " (" +
                                v->message() + "); using the original order");
      sched.schedule = original;
      sched.algorithm = "original";
    }
    if (options.fuse_bands && sched.algorithm != "given") {
      FuseBandsResult f = fuse_sibling_bands(scop, deps, sched.schedule);
      if (f.fusions > 0) {
        sched.schedule = f.schedule;
        r.stats["bands_fused"] += f.fusions;
      }
    }
    std::vector<PackedRead> packs;
    isl::schedule packed;
    sched.schedule = optimize_for_cpu(scop, deps, sched.schedule, sched.algorithm, options, r, packs, packed);
    r.schedule_yaml = schedule_to_yaml(sched.schedule);
    r.algorithm = sched.algorithm;
    r.fallbacks = sched.fallbacks;
    timer.lap("schedule");

    AstOptions aopts;
    aopts.parallel = options.parallel;
    aopts.vectorize = options.vectorize;
    aopts.unroll = options.unroll_loops;
    aopts.packs = packs;
    r.kernel = build_ast(scop, deps, packed.is_null() ? sched.schedule : packed, aopts);
    if (options.vectorize) r.kernel.vector_lanes = options.target.vector_lanes;
    // Padding guards only where a tile reaches past an edge (depthwise 3x3,
    // 144 channels at 56x56 on AMD Zen 3: every vector load masked 0.16 ms).
    if (options.tile && options.version_guards) {
      VersionGuardsResult v = version_guards(r.kernel);
      if (v.tiles > 0) {
        r.stats["tiles_versioned"] += v.tiles;
        r.stats["reads_unguarded"] += v.loads;
      }
    }
    // A remainder tile of run-time size (rows of a symbolic batch) as one
    // straight-line copy per size: its accumulators stay in registers (the
    // MLP at N = 64 with 6-row tiles, Intel Xeon (AVX-512): fc1 0.373 -> 0.318 ms).
    if (options.tile) {
      SpecializeResult sp = specialize_remainders(r.kernel);
      if (sp.regions > 0) {
        r.stats["remainders_specialized"] += sp.regions;
        r.stats["remainder_copies"] += sp.copies;
      }
    }
    // Contraction first: a compact private buffer beat the target's storage
    // where both apply (a blocked conv's channel blocks lie 49 x 4 KiB apart:
    // ResNet conv2 2.14 vs 2.85 ms; conv3's NCHW conversion row: 1.31 vs
    // 1.42 ms); in-place reuse takes what is left.
    if (options.contract) {
      // Except that a temporary which can share its reader's storage (a
      // window tile's output, read in place by its Clip) stays out of
      // private buffers larger than L1: the tile then stores every element
      // twice, once to the buffer its epilogue reads and once to the output
      // (depthwise 3x3 + Clip, 32 channels at 112x112, a 49 KiB plane per
      // channel: 0.228 ms contracted, 0.191 in place). With the epilogue in
      // the window tiles, not at any size: the plane is then stored twice
      // even in L1 (MobileNetV2's depthwise band, 144 channels of 28 x 56,
      // 6.1 KiB planes: 0.109 and 0.072 ms contracted, 0.080 and 0.070 in
      // place).
      ContractOptions co;
      if (options.reuse_temporaries) {
        LKernel trial = r.kernel;
        for (const auto &[temporary, target] : reuse_temporaries(scop, trial).reused) co.in_place.insert(temporary);
        const bool window_epilogue = r.stats.count("window_tiles") && r.stats.count("statements_in_tiles");
        co.in_place_max_bytes = window_epilogue ? 0 : options.target.l1_bytes;
      }
      ContractResult c = contract_arrays(r.kernel, co);
      if (!c.arrays.empty()) {
        r.stats["arrays_contracted"] += static_cast<long>(c.arrays.size());
        r.stats["contracted_bytes_saved"] += static_cast<long>(c.bytes_before - c.bytes_after);
      }
    }
    if (options.reuse_temporaries) {
      ReuseResult u = reuse_temporaries(scop, r.kernel);
      if (!u.reused.empty()) {
        r.stats["temporaries_reused"] += static_cast<long>(u.reused.size());
        r.stats["reused_bytes_saved"] += static_cast<long>(u.bytes_saved);
      }
    }
    count_marks(*r.kernel.body, r.stats);
    os.str("");
    print_loop_ast(os, r.kernel);
    r.ast_text = os.str();
    timer.lap("ast");
  } catch (const IllegalSchedule &e) {
    Location l = e.where();
    l.graph = graph.name;
    throw IllegalSchedule(e.violation(), l);
  } catch (const UserError &e) {
    throw e.with(where);
  } catch (const isl::exception &e) {
    throw UserError(std::string("the polyhedral layer failed on cluster: isl error: ") + (e.what() ? e.what() : ""),
                    where);
  }
  return r;
}

}  // namespace atl::poly
