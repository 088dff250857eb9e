// The cost model's sizes for a GEMM-shaped statement (see gemm_tile_sizes.h).
#include "polyhedral/transforms/schedule/gemm_tile_sizes.h"

#include "polyhedral/transforms/schedule/cpu_tiling_common.h"
#include "polyhedral/transforms/schedule/footprint.h"

#include <algorithm>
#include <functional>

namespace atl::poly::gemm {

using compute::Expr;
using compute::ExprKind;
using namespace tiling;

namespace {

/// The indices of a sum of indices times constants (and a constant), in
/// order; false for any other expression.
bool affine_indices(const Expr &e, std::vector<std::string> &vars) {
  switch (e.kind) {
  case ExprKind::Var: vars.push_back(e.name); return true;
  case ExprKind::Number: return true;
  case ExprKind::Binary:
    if (e.binop == compute::BinOp::Add) return affine_indices(*e.args[0], vars) && affine_indices(*e.args[1], vars);
    if (e.binop == compute::BinOp::Mul) {
      if (e.args[0]->kind == ExprKind::Number) return affine_indices(*e.args[1], vars);
      if (e.args[1]->kind == ExprKind::Number) return affine_indices(*e.args[0], vars);
    }
    return false;
  default: return false;
  }
}

}  // namespace

std::optional<Roles> roles_of(const ScopStatement &s, std::string &why) {
  Roles ro;
  auto index_of = [&](const std::string &n) {
    auto it = std::find(s.indices.begin(), s.indices.end(), n);
    return it == s.indices.end() ? -1 : static_cast<int>(it - s.indices.begin());
  };
  const Expr &lhs = *s.lhs;
  // The index of the output's last subscript: an index, or `p % W` of a
  // coalesced plane (coalesce_dims: the loop AST addresses it as p).
  auto last_index = [&]() -> const Expr * {
    const Expr &e = *lhs.args.back();
    if (e.kind == ExprKind::Var) return &e;
    if (e.kind == ExprKind::Binary && e.binop == compute::BinOp::Mod && e.args[0]->kind == ExprKind::Var &&
        e.args[1]->kind == ExprKind::Number)
      return e.args[0].get();
    return nullptr;
  };
  if (lhs.args.empty() || !last_index()) return why = "output's last subscript is not an index", std::nullopt;
  ro.v = index_of(last_index()->name);
  if (ro.v < 0 || s.reduction[static_cast<std::size_t>(ro.v)]) return why = "no stride-1 parallel dimension", std::nullopt;
  std::vector<const Expr *> reads;
  reads_in(*s.rhs, reads);
  auto name = [&](int d) { return s.indices[static_cast<std::size_t>(d)]; };
  auto together = [&](int d, int e) {  // some read uses both dimensions
    for (const Expr *r : reads)
      if (mentions(*r, name(d)) && mentions(*r, name(e))) return true;
    return false;
  };
  auto ext_of = [&](int d) {
    long e = extent(s.domain, d);
    return e < 0 ? 1L << 30 : e;
  };
  // Rows: a parallel output dimension that the reads along the vector do not use,
  // so one vector load serves every row of the micro-tile; the longest such
  // dimension (the innermost among equals: the output pixels of a blocked conv).
  // A subscript may also be an affine sum of indices (a grouped Conv's
  // output channel `MG * g + m`): each of its indices is an output dimension.
  std::vector<int> outs;
  for (std::size_t a = lhs.args.size() - 1; a-- > 0;) {
    std::vector<std::string> vars;
    if (!affine_indices(*lhs.args[a], vars)) continue;
    for (const std::string &var : vars) {
      int d = index_of(var);
      if (d < 0 || d == ro.v || s.reduction[static_cast<std::size_t>(d)]) continue;
      if (std::find(outs.begin(), outs.end(), d) != outs.end()) continue;
      outs.push_back(d);
      if (!together(ro.v, d) && (ro.r < 0 || ext_of(d) > ext_of(ro.r))) ro.r = d;
    }
  }
  if (ro.r < 0) return why = "no row dimension for a register tile", std::nullopt;
  // Column blocks (Y[n, ob, oh, ow, o] of a channel-blocked conv): a parallel
  // output dimension that the vector operand moves with but the row operand
  // does not, so each row value is loaded once for several vectors.
  for (int d : outs)
    if (d != ro.r && together(ro.v, d) && !together(ro.r, d) && (ro.u < 0 || d > ro.u)) ro.u = d;
  long best = -1;
  for (int d = 0; d < static_cast<int>(s.indices.size()); ++d) {
    if (s.reduction[static_cast<std::size_t>(d)]) {
      ro.reductions.push_back(d);
      long e = extent(s.domain, d);
      if (e < 0) e = 1L << 30;
      if (e > best) best = e, ro.red0 = d;
    } else if (d != ro.v && d != ro.r && d != ro.u) {
      ro.others.push_back(d);
    }
  }
  if (ro.reductions.empty()) return why = "no reduction dimension", std::nullopt;
  // A reduction index that is a read's whole last subscript walks that
  // read's memory in order: the micro-kernel's k loop, innermost, even when
  // another reduction is longer. A blocked convolution's channel lane
  // (x(n, cb, h, w, cl), 16 long) so walks one cache line per pixel, where
  // its channel blocks (cb, 32 long at 512 channels) jumped from one
  // channel plane to the next at every step.
  for (const Expr *r : reads) {
    if (r->args.empty() || r->args.back()->kind != ExprKind::Var) continue;
    const int d = index_of(r->args.back()->name);
    if (d < 0 || !s.reduction[static_cast<std::size_t>(d)] || d == ro.red0) continue;
    const long e = extent(s.domain, d);
    if (e >= 8) {
      ro.red0 = d;
      break;
    }
  }
  return ro;
}

namespace {

/// The largest candidate (kept only if <= limit) whose footprint fits `budget`; the smallest otherwise.
long fit(const std::vector<long> &candidates, const std::function<long(long)> &footprint, long budget) {
  for (long c : candidates) {
    long f = footprint(c);
    if (f >= 0 && f <= budget) return c;
  }
  return candidates.empty() ? 0 : candidates.back();
}

/// Candidates: `ext` (when known and <= cap), then the ladder, rounded down to multiples of `unit`, descending.
std::vector<long> ladder(long ext, long unit, long cap) {
  std::vector<long> out;
  if (ext > 0 && ext <= cap) out.push_back(ext);
  for (long c : {4096L, 2048L, 1024L, 768L, 512L, 384L, 256L, 192L, 128L, 112L, 96L, 80L, 64L, 48L, 32L, 24L, 16L, 8L}) {
    long r = std::max(unit, c / unit * unit);
    if (r > cap || (ext > 0 && r >= ext)) continue;
    if (out.empty() || r < out.back()) out.push_back(r);
  }
  if (out.empty()) out.push_back(unit);
  return out;
}

/// The width of `tiles` tiles of equal width covering `extent`, rounded up to a multiple of `unit`.
long equal_tile_width(long extent, long tiles, long unit) { return ((extent + tiles - 1) / tiles + unit - 1) / unit * unit; }

/// Fraction of a dimension of extent `e` covered by full tiles of `t` (partial tiles count half).
double full_fraction(long e, long t) {
  if (e >= (1L << 30)) return 1.0;
  long full = e / t * t;
  return (static_cast<double>(full) + 0.5 * static_cast<double>(e - full)) / static_cast<double>(e);
}

/// Rows and column blocks of a blocked micro-tile (each column block is `vv`
/// vectors): the most multiply-adds per load, accumulators plus one vector
/// operand per column block plus the broadcast row value in the register
/// file, full tiles preferred. (Without the row value's register, 7 x 4
/// accumulators + 4 operands filled all 32: the k loop spilled and rotated
/// its accumulators through moves, and ResNet's 1x1 and 3x3 convs ran
/// measurably slower.)
std::pair<long, long> choose_blocked_tile(const CpuTarget &t, long vv, long er, long eu, long unroll) {
  std::pair<long, long> best{1, 1};
  double best_score = -1;
  const long regs = std::max(4, t.vector_registers), max_rows = 16, max_acc = 40;
  for (long nu = 1; nu <= std::min(4L, eu); ++nu)
    for (long mr = 1; mr <= std::min(max_rows, er); ++mr) {
      if (unroll > 0 && mr != std::min(unroll, er)) continue;
      long acc = mr * nu * vv;
      if (acc + nu * vv + 1 > regs || acc > max_acc) continue;
      double score = static_cast<double>(acc) / static_cast<double>(mr + nu * vv) * full_fraction(er, mr) *
                     full_fraction(eu, nu);
      if (score > best_score + 1e-9) best_score = score, best = {mr, nu};
    }
  return best;
}

}  // namespace

RegisterTile choose_register_tile(const ScopStatement &st, Roles &ro, const std::vector<long> &ext,
                                  const CpuTileOptions &o) {
  const ScopStatement *s = &st;
  Roles *roles = &ro;
  const CpuTarget &t = o.target;
  auto known = [&](int d, long cap) { return ext[static_cast<std::size_t>(d)] < 0 ? cap : ext[static_cast<std::size_t>(d)]; };
  // Register tile: NR = a few vectors, MR rows so that accumulators + loads fit the register file.
  long lanes = o.vectorize ? std::max(1, t.vector_lanes) : 1;
  long nvec = 1, nr = 1;
  if (lanes > 1) {
    nvec = gemm_tile_columns(t) / lanes;
    // Whole vectors that fit the extent, so full micro-tiles exist (56 -> 3 x 16).
    nvec = std::clamp(known(roles->v, 1 << 30) / lanes, 1L, nvec);
    nr = nvec * lanes;
  }
  long mr = o.unroll > 0 ? o.unroll : std::clamp((t.vector_registers - nvec - 1) / nvec, 1L, 8L);
  // Rows of symbolic extent (a batch dimension) with 16 registers: a power
  // of two, which the usual batch sizes fill with whole tiles; the leftover
  // rows run in a tile of their own. With AVX2, 4 rows beat 6 on the MLP
  // at the usual batch sizes (measured before specialize_remainders made
  // the leftover tile straight-line code). With 32 registers (AVX-512) the
  // rows stay 6, and the leftover tile is specialized: 6 rows then beat 4
  // at every batch size measured.
  auto symbolic = [&](int d) {  // the values of dimension d depend on the parameters
    isl::set one = dimension_values(*s, d);
    return !one.is_equal(one.project_out_all_params().intersect_params(one.params()));
  };
  if (o.unroll <= 0 && symbolic(roles->r) && t.vector_registers < 32)
    while (mr & (mr - 1)) mr &= mr - 1;
  mr = std::min(mr, known(roles->r, mr));
  // Column blocks: only when the vector dimension is one or two whole vectors (a channel block).
  long nu = 1;
  long ev = known(roles->v, 1 << 30);
  if (roles->u >= 0 && (lanes <= 1 || ev % lanes != 0 || ev > 2 * lanes)) {
    roles->others.push_back(roles->u);
    std::sort(roles->others.begin(), roles->others.end());
    roles->u = -1;
  }
  if (roles->u >= 0) {
    auto choice = choose_blocked_tile(t, ev / lanes, known(roles->r, 1 << 30), known(roles->u, 1 << 30), o.unroll);
    mr = choice.first, nu = choice.second;
  }
  return {mr, nr, nu};
}

std::vector<long> choose_cache_tiles(const Scop &scop, const ScopStatement &st, const Roles &ro,
                                     const std::vector<long> &ext, const RegisterTile &tile, const CpuTileOptions &o) {
  const ScopStatement *s = &st;
  const Roles *roles = &ro;
  const CpuTarget &t = o.target;
  const std::size_t n = ext.size();
  const long mr = tile.mr, nr = tile.nr, nu = tile.nu;
  auto known = [&](int d, long cap) { return ext[static_cast<std::size_t>(d)] < 0 ? cap : ext[static_cast<std::size_t>(d)]; };
  // Cache tiles: footprints (isl box hulls over a tile) against L1, L2, L3.
  std::vector<long> cache(n, 0);
  if (!o.cache_sizes.empty()) {
    for (std::size_t d = 0; d < n; ++d) cache[d] = o.cache_sizes[std::min(d, o.cache_sizes.size() - 1)];
    if (roles->u >= 0) cache[static_cast<std::size_t>(roles->u)] = 0;  // the column blocks: the cost model's alone
  } else {
    std::vector<long> base(n, 1);
    for (int d : roles->reductions) base[static_cast<std::size_t>(d)] = 0;
    base[static_cast<std::size_t>(roles->r)] = mr;
    base[static_cast<std::size_t>(roles->v)] = nr;
    if (roles->u >= 0) base[static_cast<std::size_t>(roles->u)] = nu;
    auto fp = [&](std::vector<long> sz, int d, long value) {
      sz[static_cast<std::size_t>(d)] = value;
      return tile_footprint_bytes(scop, *s, sz);
    };
    // Blocked layouts: the vector operand's panel (column blocks x the whole
    // reduction) is read from L2 once per row tile; splitting the reduction
    // for L1 would only add accumulator loads and stores.
    // So do weights laid out in panels (the k rows of a panel are one
    // stream): blocks of up to 768, or the whole reduction up to 1024
    // (longer blocks had made BERT's ffn_out slower; a reduction of 3072 in
    // blocks of 768 is faster than in blocks of 1024).
    const bool panels = std::any_of(s->reads.begin(), s->reads.end(),
                                    [&](const ScopAccess &r) { return reads_in_panels(*s, r, roles->v, nr); });
    // Many rows (a known extent beyond 16 register tiles a core): every
    // row strip sweeps the same kc x nc block of panels, which must then
    // stay in L2 beside the strips passing through. Blocks of at most 256
    // (and below a third of L2, see nc) kept 1024^3 near the FMA peak,
    // where the whole reduction (1 MiB blocks with 2 MiB of L2) ran a
    // quarter slower.
    const long ek = ext[static_cast<std::size_t>(roles->red0)];
    const long er_known = ext[static_cast<std::size_t>(roles->r)];
    const bool many_rows = panels && roles->u < 0 && er_known > 16L * std::max(1, t.cores) * mr;
    std::vector<long> ks = ladder(ek, 16, many_rows ? 256 : panels ? 768 : 512);
    // The MLP's 784: faster whole than in two.
    if (panels && !many_rows && ek > 768 && ek <= 1024) ks.insert(ks.begin(), ek);
    long kc = fit(ks,
                  [&](long c) { return fp(base, roles->red0, c); },
                  roles->u >= 0 || panels ? t.l2_bytes / 2 : t.l1_bytes);
    // Reduction blocks of equal length: K = 784 in blocks of 384 had left a
    // last block of 16, which loads and stores every accumulator for 16
    // multiply-adds (272, 272, 240 instead).
    if (ek > kc && kc > 0) kc = std::min(kc, equal_tile_width(ek, (ek + kc - 1) / kc, 16));
    base[static_cast<std::size_t>(roles->red0)] = kc;
    long mc = fit(ladder(ext[static_cast<std::size_t>(roles->r)], mr, 1 << 20),
                  [&](long c) { return fp(base, roles->r, c); }, t.l2_bytes / 2);
    // Parallel grain: the row tiles should keep every core busy twice over.
    long other_par = 1;
    for (int d : roles->others) other_par *= std::max(1L, known(d, 1));
    long er = known(roles->r, 1 << 30), ecols = known(roles->v, 1 << 30);
    bool few_tiles = t.cores > 1 && other_par < 2L * t.cores && (er + mc - 1) / mc < 2L * t.cores;
    // Few rows and many columns (M = 64, N = 3072): the column tiles carry
    // the parallelism, so each panel of the vector operand is read (and
    // packed) once rather than once per row tile. Their number: multiples of
    // twice the cores, as few as keep a cache tile (the operand's kc x nc
    // block, the accumulators' rows) within a third of L2 (smaller column
    // tiles were faster at M = 64, N = 3072, K = 768 with 1 MiB of L2), and
    // whose count after rounding to whole register tiles still divides
    // among the cores (an odd count leaves one core idle at the end, as 3136
    // columns in 448-column tiles did for MobileNetV2's project). Few rows:
    // at most 16 register tiles per core (192 rows at 6 rows, 2 cores; a
    // symbolic batch of at most 128 at 4 rows). Before, the MLP's 64 rows
    // were split into 16-row tiles, each reading the weights from L2,
    // unpacked; ResNet's conv3 (256 rows, K = 64) keeps row tiles: column
    // tiles made it slower.
    long par_cols = 0;
    // Weights in panels of two cache lines or more a k row (AVX-512's 64
    // columns): one panel a column tile, when the panels divide among the
    // cores. The first tile's panels come cold from L3 (the micro-kernel
    // prefetches each next tile's, not the first), so smaller tiles leave
    // less of them cold (the MLP's fc1, 64 x 784 x 512, goes from 4 tiles
    // of 2 panels to 8 of 1). AVX2's 16-column panels keep the rule below.
    const long panel_count = panels && panel_row_spans_lines(nr, 4) && ecols < (1 << 30) ? (ecols + nr - 1) / nr : 0;
    if (few_tiles && roles->u < 0 && er <= 16L * t.cores * mr && panel_count >= 2L * t.cores &&
        panel_count % t.cores == 0 && ecols % nr == 0) {
      base[static_cast<std::size_t>(roles->r)] = mc;
      par_cols = nr;
    } else if (few_tiles && roles->u < 0 && er <= 16L * t.cores * mr && ecols < (1 << 30) && ecols >= 2L * t.cores * nr) {
      base[static_cast<std::size_t>(roles->r)] = mc;
      for (long tiles = 2L * t.cores;; tiles += 2L * t.cores) {
        par_cols = equal_tile_width(ecols, tiles, nr);
        bool balanced = ((ecols + par_cols - 1) / par_cols) % t.cores == 0;
        if (par_cols <= nr || (balanced && fp(base, roles->v, par_cols) <= t.l2_bytes / 3)) break;
      }
    } else if (few_tiles)
      mc = std::max(mr, ((er + 2L * t.cores - 1) / (2L * t.cores) + mr - 1) / mr * mr);
    base[static_cast<std::size_t>(roles->r)] = mc;
    long nc = fit(ladder(ext[static_cast<std::size_t>(roles->v)], nr, 1 << 20),
                  [&](long c) { return fp(base, roles->v, c); }, t.l3_bytes / 2);
    // Every register row of the cache tile sweeps its columns: the vector
    // operand's kc x nc panel (with one row strip's operands) stays within
    // three quarters of L2, or each strip would read it again from L3; the
    // columns split into tiles of equal width. With 512 KiB of L2, 1024^3
    // had taken all 1024 columns (a 1 MiB panel, too large to pack) and ran
    // at well under half the speed of 256-column packed panels.
    if (mc > mr && par_cols == 0 && ecols < (1 << 30)) {
      std::vector<long> strip = base;
      strip[static_cast<std::size_t>(roles->r)] = mr;
      long in_l2 = fit(ladder(ecols, nr, 1 << 20), [&](long c) { return fp(strip, roles->v, c); },
                       many_rows ? t.l2_bytes / 3 : t.l2_bytes * 3 / 4);
      if (in_l2 > 0 && in_l2 < ecols) {
        in_l2 = equal_tile_width(ecols, (ecols + in_l2 - 1) / in_l2, nr);
        nc = nc > 0 ? std::min(nc, in_l2) : in_l2;
      }
    }
    if (par_cols > 0) nc = nc > 0 ? std::min(nc, par_cols) : par_cols;
    cache[static_cast<std::size_t>(roles->r)] = mc;
    cache[static_cast<std::size_t>(roles->v)] = nc;
    cache[static_cast<std::size_t>(roles->red0)] = kc;
    // Blocked layouts with few pixels and many channels (ResNet-50's last
    // stages: 7x7 or 14x14 pixels, 512 to 2048 channels): the weights, more
    // than the inputs of all pixels and too large for L2, streamed from
    // memory once per pixel row. The column blocks are then tiled outermost
    // (cache[u]): a tile's weights over the whole reduction, with one pixel
    // row's inputs, fit in L2, so they come from memory once and from L2
    // for every pixel row.
    const int u = roles->u;
    const long eu = u >= 0 ? ext[static_cast<std::size_t>(u)] : -1;
    if (eu > nu) {
      std::vector<long> all(n, 1), pixels(n, 0), row(n, 0);
      for (int d : roles->reductions) all[static_cast<std::size_t>(d)] = 0;
      all[static_cast<std::size_t>(roles->r)] = mr;
      all[static_cast<std::size_t>(roles->v)] = 0;
      all[static_cast<std::size_t>(u)] = 0;
      pixels[static_cast<std::size_t>(u)] = 1;
      for (int d : roles->others) row[static_cast<std::size_t>(d)] = 1;
      const long weights = tile_footprint_bytes(scop, *s, all), inputs = tile_footprint_bytes(scop, *s, pixels);
      // Worth it when streaming the weights once per pixel row (other_par
      // rows) moves more than reading the inputs once per column tile:
      // ResNet-50's stride-2 1x1 shortcut (2 MiB of weights, 1.5 MiB of
      // inputs, 14 output rows) had read its weights from L3 for every row.
      const long budget = std::max(1L, t.l2_bytes * 3 / 4), tiles = (weights + budget - 1) / budget;
      if (weights > t.l2_bytes / 2 && inputs > 0 && weights / 2 * other_par > inputs * tiles) {
        // Every multiple of the register tile's blocks (the ladder stops at
        // 8: 512 channels in tiles of 8 blocks took 2.4 MiB of weights).
        std::vector<long> blocks;
        for (long c = eu / nu * nu; c >= nu; c -= nu) blocks.push_back(c);
        long uc = fit(blocks, [&](long c) { return fp(row, u, c); }, budget);
        // At least two tiles a core, of equal width.
        uc = std::min(uc, equal_tile_width(eu, 2L * std::max(1, t.cores), nu));
        if (uc > 0 && uc < eu) cache[static_cast<std::size_t>(u)] = equal_tile_width(eu, (eu + uc - 1) / uc, nu);
      }
    }
  }
  for (std::size_t d = 0; d < n; ++d)
    if (cache[d] < 0 || (ext[d] >= 0 && cache[d] >= ext[d])) cache[d] = 0;
  return cache;
}

}  // namespace atl::poly::gemm
