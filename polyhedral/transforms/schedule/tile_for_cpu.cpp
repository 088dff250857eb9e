// Tiles the GEMM-shaped statement of a cluster for the CPU target: cache tiles from isl footprints, a register micro-tile isolated for unroll-and-jam and vectors.
#include "polyhedral/transforms/schedule/tile_for_cpu.h"
#include "polyhedral/transforms/schedule/cpu_tiling_common.h"

#include "polyhedral/transforms/schedule/footprint.h"
#include "polyhedral/transforms/schedule/tile_companions.h"

#include <algorithm>
#include <functional>
#include <optional>

namespace atl::poly {

namespace {

using compute::Expr;
using compute::ExprKind;
using namespace tiling;

/// The dimensions' roles in the micro-kernel.
struct Roles {
  int v = -1, r = -1;         ///< vector (stride-1 output) and row dimensions
  int u = -1;                 ///< column-block dimension (blocked layouts), or -1
  std::vector<int> others;    ///< other parallel dimensions, domain order
  std::vector<int> reductions;
  int red0 = -1;              ///< the reduction dimension tiled for L1
};

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
  std::vector<int> outs;
  for (std::size_t a = lhs.args.size() - 1; a-- > 0;) {
    if (lhs.args[a]->kind != ExprKind::Var) continue;
    int d = index_of(lhs.args[a]->name);
    if (d < 0 || d == ro.v || s.reduction[static_cast<std::size_t>(d)]) continue;
    outs.push_back(d);
    if (!together(ro.v, d) && (ro.r < 0 || ext_of(d) > ext_of(ro.r))) ro.r = d;
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
  return ro;
}

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

isl::union_pw_aff member(const ScopStatement &s, const std::string &expr) {
  return isl::union_pw_aff(s.domain.ctx(), "{ " + tuple(s) + " -> [(" + expr + ")] }");
}

std::string tiled(int d, long t) { return "floor(" + x(d) + "/" + std::to_string(t) + ")"; }

/// { isolate[[tile loops] -> [register-tile band]] : the micro-tile is full }:
/// its last row and last column are values of the row and vector dimensions.
/// A register-tile member for the isolate option: its position in the band
/// (-1: not tiled), the tile size and the domain dimension.
struct TiledMember {
  int pos;
  long size;
  int dim;
};

isl::union_set isolate_option(const ScopStatement &s, int prefix, int members, const std::vector<TiledMember> &tiled) {
  std::string ps, qs;
  for (int p = 0; p < prefix; ++p) ps += (p ? ", p" : "p") + std::to_string(p);
  for (int q = 0; q < members; ++q) qs += (q ? ", q" : "q") + std::to_string(q);
  std::string space = "isolate[[" + ps + "] -> [" + qs + "]]";
  isl::set all(s.domain.ctx(), "{ " + space + " }");
  auto last_is_value = [&](int pos, long size, int d) {
    isl::set values = dimension_values(s, d);
    isl::multi_aff last(s.domain.ctx(), "{ " + space + " -> [(" + std::to_string(size) + " * q" + std::to_string(pos) +
                                            " + " + std::to_string(size - 1) + ")] }");
    return values.preimage(last);
  };
  isl::set iso = all;
  for (const TiledMember &m : tiled)
    if (m.pos >= 0) iso = iso.intersect(last_is_value(m.pos, m.size, m.dim));
  return isl::union_set(iso);
}

}  // namespace

CpuTileResult tile_for_cpu(const Scop &scop, const isl::schedule &schedule, const CpuTileOptions &o) {
  CpuTileResult res;
  res.schedule = schedule;
  // The main statement: the deepest `+=` reduction.
  const ScopStatement *s = nullptr;
  for (const ScopStatement &st : scop.statements)
    if (!st.init && st.op == compute::AssignOp::Add && st.indices.size() >= 3 &&
        (!s || st.indices.size() > s->indices.size()))
      s = &st;
  if (!s) return res.reason = "no GEMM-shaped statement", res;
  res.statement = s->name;
  // The scheduler's statement groups, or the original order when its tree
  // has another shape or fuses the main statement with others.
  isl::union_set mine(s->domain);
  auto main_of = [&](const std::vector<Group> &gs) {
    int found = -1;
    for (std::size_t g = 0; g < gs.size(); ++g) {
      isl::union_set in = gs[g].filter.intersect(scop.domain());
      if (in.is_equal(mine)) found = static_cast<int>(g);
      else if (!in.intersect(mine).is_empty()) return -1;
    }
    return found;
  };
  auto groups = groups_of(schedule);
  int main_group = groups ? main_of(*groups) : -1;
  if (main_group < 0) {
    groups = statement_groups(scop);
    main_group = main_of(*groups);
    res.original_order = true;
  }
  if (main_group < 0) return res.reason = "main statement not found in the tree", res;
  auto roles = roles_of(*s, res.reason);
  if (!roles) return res;
  const CpuTarget &t = o.target;
  std::size_t n = s->indices.size();
  std::vector<long> ext(n);
  for (std::size_t d = 0; d < n; ++d) ext[d] = extent(s->domain, static_cast<int>(d));
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
  res.mr = mr, res.nr = nr * nu, res.nu = nu;

  // Cache tiles: footprints (isl box hulls over a tile) against L1, L2, L3.
  std::vector<long> cache(n, 0);
  if (!o.cache_sizes.empty()) {
    for (std::size_t d = 0; d < n; ++d) cache[d] = o.cache_sizes[std::min(d, o.cache_sizes.size() - 1)];
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
    const long ek = ext[static_cast<std::size_t>(roles->red0)];
    std::vector<long> ks = ladder(ek, 16, panels ? 768 : 512);
    if (panels && ek > 768 && ek <= 1024) ks.insert(ks.begin(), ek);  // the MLP's 784: faster whole than in two
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
      long in_l2 = fit(ladder(ecols, nr, 1 << 20), [&](long c) { return fp(strip, roles->v, c); }, t.l2_bytes * 3 / 4);
      if (in_l2 > 0 && in_l2 < ecols) {
        in_l2 = equal_tile_width(ecols, (ecols + in_l2 - 1) / in_l2, nr);
        nc = nc > 0 ? std::min(nc, in_l2) : in_l2;
      }
    }
    if (par_cols > 0) nc = nc > 0 ? std::min(nc, par_cols) : par_cols;
    cache[static_cast<std::size_t>(roles->r)] = mc;
    cache[static_cast<std::size_t>(roles->v)] = nc;
    cache[static_cast<std::size_t>(roles->red0)] = kc;
  }
  for (std::size_t d = 0; d < n; ++d)
    if (cache[d] < 0 || (ext[d] >= 0 && cache[d] >= ext[d])) cache[d] = 0;
  res.cache_sizes = cache;

  // The bands of the main statement.
  std::vector<isl::union_pw_aff> b0, b1;
  std::vector<bool> c0, c1;
  std::vector<int> order = roles->others;
  order.push_back(roles->r);
  order.push_back(roles->v);
  order.insert(order.end(), roles->reductions.begin(), roles->reductions.end());
  auto is_red = [&](int d) { return s->reduction[static_cast<std::size_t>(d)]; };
  for (int d : roles->others)
    if (!cache[static_cast<std::size_t>(d)]) b0.push_back(member(*s, x(d))), c0.push_back(true);
  for (int d : order)
    if (cache[static_cast<std::size_t>(d)]) b0.push_back(member(*s, tiled(d, cache[static_cast<std::size_t>(d)]))), c0.push_back(!is_red(d));
  for (int d : roles->others)
    if (cache[static_cast<std::size_t>(d)]) b1.push_back(member(*s, x(d))), c1.push_back(true);
  int pos_r = -1, pos_v = -1, pos_u = -1;
  if (mr > 1) pos_r = static_cast<int>(b1.size()), b1.push_back(member(*s, tiled(roles->r, mr))), c1.push_back(true);
  if (roles->u >= 0) {
    if (nu > 1) pos_u = static_cast<int>(b1.size()), b1.push_back(member(*s, tiled(roles->u, nu))), c1.push_back(true);
    else b1.push_back(member(*s, x(roles->u))), c1.push_back(true);
  }
  if (nr > 1) pos_v = static_cast<int>(b1.size()), b1.push_back(member(*s, tiled(roles->v, nr))), c1.push_back(true);
  // The largest reduction innermost: its loop keeps the accumulators in registers.
  for (int d : roles->reductions)
    if (d != roles->red0) b1.push_back(member(*s, x(d))), c1.push_back(false);
  b1.push_back(member(*s, x(roles->red0))), c1.push_back(false);
  if (mr <= 1 && nr <= 1 && nu <= 1) return res.reason = "register tile of one element", res;

  // The main statement's init and elementwise epilogue run inside its tiles,
  // at the innermost level above every reduction member: after the register
  // tile's reduction loops when the reduction is not tiled for the cache,
  // else after the cache tiles' reduction loop.
  auto leading = [](const std::vector<bool> &c) {
    std::size_t k = 0;
    while (k < c.size() && c[k]) ++k;
    return k;
  };
  std::size_t n0 = leading(c0), n1 = n0 == b0.size() ? leading(c1) : 0;
  // Companions that read in another layout (a conversion back to NCHW) and
  // what follows them run once per cache tile, after its register tiles.
  std::size_t outer_levels = n0 == b0.size() && n1 > 0 ? n0 : 0;
  std::vector<const ScopStatement *> before, after, outer;
  std::vector<isl::multi_union_pw_aff> before_tile, after_tile, outer_tile;
  std::vector<Group> kept = *groups;
  if (o.epilogue && n0 + n1 > 0) {
    std::vector<isl::union_pw_aff> tile(b0.begin(), b0.begin() + static_cast<long>(n0));
    tile.insert(tile.end(), b1.begin(), b1.begin() + static_cast<long>(n1));
    TileCompanions companions(scop, *s, tile);
    auto statements_of = [&](const Group &g) {
      std::vector<const ScopStatement *> out;
      for (const ScopStatement &st : scop.statements)
        if (!g.filter.intersect(isl::union_set(st.domain)).is_empty()) out.push_back(&st);
      return out;
    };
    std::vector<bool> taken(groups->size(), false);
    for (std::size_t gi = 0; gi < groups->size(); ++gi) {
      if (static_cast<int>(gi) == main_group) continue;
      bool is_after = static_cast<int>(gi) > main_group;
      std::vector<const ScopStatement *> in = statements_of((*groups)[gi]);
      std::vector<std::pair<bool, isl::multi_union_pw_aff>> tiles;  // (outer, coordinates)
      for (const ScopStatement *st : in) {
        std::optional<isl::multi_union_pw_aff> t;
        bool in_outer = !outer.empty();
        if (!in_outer && (!is_after || companions.same_element(*st))) t = companions.tile_of(*st, n0 + n1);
        if (!t && is_after && outer_levels > 0) t = companions.tile_of(*st, outer_levels), in_outer = true;
        if (!t) break;
        tiles.emplace_back(in_outer, *t);
        if (is_after) companions.add(*st);
      }
      if (tiles.size() != in.size() || in.empty()) {
        if (is_after) break;  // the epilogue ends here
        continue;
      }
      taken[gi] = true;
      for (std::size_t k = 0; k < in.size(); ++k) {
        auto &to = !is_after ? before : tiles[k].first ? outer : after;
        auto &to_tile = !is_after ? before_tile : tiles[k].first ? outer_tile : after_tile;
        to.push_back(in[k]);
        to_tile.push_back(tiles[k].second);
      }
    }
    kept.clear();
    int new_main = -1;
    for (std::size_t gi = 0; gi < groups->size(); ++gi) {
      if (taken[gi]) continue;
      if (static_cast<int>(gi) == main_group) {
        Group g = (*groups)[gi];
        for (const auto *list : {&before, &after, &outer})
          for (const ScopStatement *c : *list) g.filter = g.filter.unite(isl::union_set(c->domain));
        new_main = static_cast<int>(kept.size());
        kept.push_back(g);
      } else {
        kept.push_back((*groups)[gi]);
      }
    }
    main_group = new_main;
  }
  res.companions = static_cast<int>(before.size() + after.size() + outer.size());
  // Band members shared with the companions (their tile coordinates from `first`).
  auto with_companions = [&](std::vector<isl::union_pw_aff> members, std::size_t first) {
    for (std::size_t j = 0; j < members.size(); ++j) {
      int at = static_cast<int>(first + j);
      for (const auto &t : before_tile) members[j] = members[j].union_add(t.at(at));
      for (const auto &t : after_tile) members[j] = members[j].union_add(t.at(at));
      if (first + j < outer_levels)
        for (const auto &t : outer_tile) members[j] = members[j].union_add(t.at(at));
    }
    return members;
  };
  auto slice = [](const auto &v, std::size_t from, std::size_t to) {
    return std::decay_t<decltype(v)>(v.begin() + static_cast<long>(from), v.begin() + static_cast<long>(to));
  };
  // Companions' own loops: their domain dimensions in order, inside the
  // tile; consecutive companions that are pointwise one after the other
  // share them (a sequence below one band).
  auto filter_of = [](const std::vector<const ScopStatement *> &run) {
    isl::union_set f(run.front()->domain);
    for (const ScopStatement *c : run) f = f.unite(isl::union_set(c->domain));
    return f;
  };
  // In a register tile (`unroll`), one band per dimension, all but the
  // innermost marked for unrolling: the epilogue becomes straight-line code
  // on the accumulators' elements, which the backend then reads from
  // registers (ForwardedResults), and the init's constants start the
  // accumulators (PendingInits).
  auto point_band = [&](isl::schedule_node leaf, const std::vector<const ScopStatement *> &run, bool unroll) {
    const ScopStatement &c = *run.front();
    if (c.indices.empty()) return leaf;
    std::vector<isl::union_pw_aff> m;
    for (std::size_t d = 0; d < c.indices.size(); ++d) {
      isl::union_pw_aff md = member(c, x(static_cast<int>(d)));
      for (std::size_t k = 1; k < run.size(); ++k) md = md.union_add(member(*run[k], x(static_cast<int>(d))));
      m.push_back(md);
    }
    isl::schedule_node node = leaf;
    int depth = 0;
    if (unroll) {
      for (std::size_t d = 0; d < m.size(); ++d) {
        if (d + 1 < m.size()) node = node.insert_mark(tree_mark::kUnroll).child(0), ++depth;
        node = insert_band(node, {m[d]}, {true}, true).child(0), ++depth;
      }
    } else {
      node = insert_band(node, m, std::vector<bool>(m.size(), true), true).child(0), ++depth;
    }
    if (run.size() > 1) {
      isl::union_set_list filters(leaf.ctx(), static_cast<int>(run.size()));
      for (const ScopStatement *r : run) filters = filters.add(isl::union_set(r->domain));
      node = node.insert_sequence(filters);  // at the innermost band's leaf
    }
    for (int k = 0; k < depth; ++k) node = node.parent();
    return node;
  };
  // A sequence: runs of `pre`, the part built by `main_part` under
  // `main_filter`, runs of `post`; returns the sequence node.
  auto insert_sequence = [&](isl::schedule_node node, const std::vector<const ScopStatement *> &pre_list,
                             const isl::union_set &main_filter,
                             const std::function<isl::schedule_node(isl::schedule_node)> &main_part,
                             const std::vector<const ScopStatement *> &post_list, bool unroll) {
    auto pre = TileCompanions::runs(pre_list), post = TileCompanions::runs(post_list);
    isl::union_set_list filters(node.ctx(), static_cast<int>(pre.size() + post.size() + 1));
    for (const auto &run : pre) filters = filters.add(filter_of(run));
    filters = filters.add(main_filter);
    for (const auto &run : post) filters = filters.add(filter_of(run));
    node = node.insert_sequence(filters);
    int k = 0;
    for (const auto &run : pre) node = point_band(node.child(k++).child(0), run, unroll).parent().parent();
    node = main_part(node.child(k++).child(0)).parent().parent();
    for (const auto &run : post) node = point_band(node.child(k++).child(0), run, unroll).parent().parent();
    return node;
  };

  // Top-down: a band whose AST options refer to outer bands cannot get new bands above it.
  // Returns the node at the leaf's position's top (the first node inserted).
  // A vector dimension of constant extent within one tile (10 columns, 16
  // lanes) is as full as it gets: it does not restrict the isolated part
  // (else no tile would be full and the rows would keep their min() bounds).
  const long ev_all = ext[static_cast<std::size_t>(roles->v)];
  const int pos_v_full = ev_all >= 0 && ev_all <= nr ? -1 : pos_v;
  auto isolate = [&](std::size_t members) {
    return isolate_option(*s, static_cast<int>(b0.size()), static_cast<int>(members),
                          {{pos_r, mr, roles->r}, {pos_v_full, nr, roles->v}, {pos_u, nu, roles->u}});
  };
  // Below the register band: unrolled column blocks and rows, the vector columns.
  auto build_points = [&](isl::schedule_node node) {
    int depth = 0;
    if (nu > 1) {
      node = node.insert_mark(tree_mark::kUnroll).child(0), ++depth;
      node = insert_band(node, {member(*s, x(roles->u))}, {true}, true).child(0), ++depth;
    }
    if (mr > 1) node = node.insert_mark(tree_mark::kUnroll).child(0), ++depth;
    node = insert_band(node, {member(*s, x(roles->r))}, {true}, true).child(0), ++depth;
    if (nr > 1) {
      node = node.insert_mark(tree_mark::kVector).child(0), ++depth;
      node = insert_band(node, {member(*s, x(roles->v))}, {true}, true).child(0), ++depth;
    }
    for (int k = 0; k < depth; ++k) node = node.parent();
    return node;
  };
  // The register band (whole, with its isolate option) and the points below.
  auto build_register = [&](isl::schedule_node node) {
    auto reg = insert_band(node, b1, c1, true).as<isl::schedule_node_band>();
    node = reg.set_ast_build_options(isolate(b1.size())).child(0);
    return build_points(node).parent();
  };
  auto build_main = [&](isl::schedule_node node) {
    if (before.empty() && after.empty() && outer.empty()) {
      if (b0.empty()) return build_register(node);
      return build_register(insert_band(node, b0, c0, true).child(0)).parent();
    }
    isl::union_set main_filter(s->domain);
    if (n0 < b0.size()) {
      // Companions after the cache tiles' reduction loop.
      node = insert_band(node, with_companions(slice(b0, 0, n0), 0), slice(c0, 0, n0), true).child(0);
      node = insert_sequence(node, before, main_filter, [&](isl::schedule_node leaf) {
        return build_register(insert_band(leaf, slice(b0, n0, b0.size()), slice(c0, n0, b0.size()), true).child(0))
            .parent();
      }, after, false);
      return node.parent();
    }
    // Companions after the register tile's reduction loops; the outer ones
    // after the register tiles.
    auto register_part = [&](isl::schedule_node at) {
      auto reg = insert_band(at, with_companions(slice(b1, 0, n1), n0), slice(c1, 0, n1), true)
                     .as<isl::schedule_node_band>();
      isl::schedule_node below = reg.set_ast_build_options(isolate(n1)).child(0);
      return insert_sequence(below, before, main_filter, [&](isl::schedule_node leaf) {
        return build_points(insert_band(leaf, slice(b1, n1, b1.size()), slice(c1, n1, b1.size()), true).child(0))
            .parent();
      }, after, true).parent();
    };
    if (b0.empty()) return register_part(node);
    node = insert_band(node, with_companions(b0, 0), c0, true).child(0);
    if (outer.empty()) return register_part(node).parent();
    isl::union_set inner = main_filter;
    for (const auto *list : {&before, &after})
      for (const ScopStatement *c : *list) inner = inner.unite(isl::union_set(c->domain));
    return insert_sequence(node, {}, inner, register_part, outer, false).parent();
  };
  res.schedule = rebuild_groups(schedule.domain(), kept, [&](isl::schedule_node leaf, std::size_t gi) {
    if (static_cast<int>(gi) == main_group) return build_main(leaf);
    return insert_distributed_band(leaf, kept[gi], scop);
  });
  res.applied = true;
  res.bands = (b0.empty() ? 0 : 1) + 1 + 1 + (nr > 1 ? 1 : 0) + (nu > 1 ? 1 : 0);
  return res;
}

}  // namespace atl::poly
