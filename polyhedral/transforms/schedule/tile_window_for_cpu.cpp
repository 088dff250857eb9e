// Register-tiles window reductions (depthwise convolution, pooling): output loops outside, the window unrolled inside, rows x vector columns innermost.
#include "polyhedral/transforms/schedule/tile_window_for_cpu.h"
#include "polyhedral/transforms/schedule/cpu_tiling_common.h"

#include "polyhedral/isl/isl_context.h"
#include "polyhedral/transforms/schedule/tile_companions.h"
#include "polyhedral/transforms/schedule/tile_for_cpu.h"

#include <algorithm>
#include <array>
#include <optional>

namespace atl::poly {

namespace {

using compute::Expr;
using compute::ExprKind;
using namespace tiling;







/// The roles of a window statement's dimensions.
struct Window {
  const ScopStatement *s = nullptr;
  std::vector<int> outer;     ///< output dimensions outside the tile, in the output's order
  int r = -1, v = -1;         ///< row dimension (or -1) and stride-1 output dimension
  std::vector<int> window;    ///< reduction dimensions, domain order
  long taps = 1;              ///< positions of the window
  /// The window dimension kh that a read pairs with the rows as `h + kh`
  /// (stride 1: the input row), or -1.
  int input_row = -1;
  bool unit = false;          ///< every read moves by 0 or 1 element along v (last subscript)
  const ScopStatement *init = nullptr;  ///< its `_init`, when it moves into the tile loops
  std::string init_tuple;               ///< init[x..]: each index named as the output dimension it writes
  /// Elementwise epilogue in the tile loops, in order: statement, tuple
  /// (each index named as the output dimension it writes, like init_tuple).
  std::vector<std::pair<const ScopStatement *, std::string>> epilogue;
};

/// True when every read of `s` moves by nothing, or by one to four elements
/// of its last subscript (the backend loads strides 2..4 as a wide load and a
/// shuffle), when dimension `v` grows by one.
bool unit_stride_reads(const ScopStatement &s, int v) {
  isl::map shift(s.domain.ctx(), "{ " + tuple(s) + " -> " + tuple(s, v) + " }");
  for (const ScopAccess &a : s.reads) {
    if (a.indirect) return false;
    isl::map here = a.relation.intersect_domain(s.domain);
    isl::map next = shift.apply_range(here);
    isl::set deltas = here.range_product(next).range().unwrap().deltas();
    if (deltas.is_empty()) continue;
    unsigned n = deltas.tuple_dim();
    std::string zero, one;
    for (unsigned k = 0; k < n; ++k) {
      zero += std::string(k ? ", " : "") + "0";
      one += std::string(k ? ", " : "") + (k + 1 == n ? "1" : "0");
    }
    std::string name = tuple_name(deltas);
    std::string ok_text = "{ " + name + "[" + zero + "]; " + name + "[" + one + "]";
    for (int st = 2; st <= 4; ++st) {
      std::string other;
      for (unsigned k = 0; k < n; ++k) other += std::string(k ? ", " : "") + (k + 1 == n ? std::to_string(st) : "0");
      ok_text += "; " + name + "[" + other + "]";
    }
    isl::set ok(s.domain.ctx(), ok_text + " }");
    if (!deltas.is_subset(ok)) return false;
  }
  return true;
}

/// The window roles of `s`, or nullopt with a reason.
std::optional<Window> window_of(const ScopStatement &s, std::string &why) {
  if (s.init || s.op == compute::AssignOp::Assign) return why = "not a reduction", std::nullopt;
  Window w;
  w.s = &s;
  auto index_of = [&](const std::string &n) {
    auto it = std::find(s.indices.begin(), s.indices.end(), n);
    return it == s.indices.end() ? -1 : static_cast<int>(it - s.indices.begin());
  };
  const Expr &lhs = *s.lhs;
  std::vector<int> outs;
  for (const auto &a : lhs.args) {
    int d = a->kind == ExprKind::Var ? index_of(a->name) : -1;
    if (d < 0 || s.reduction[static_cast<std::size_t>(d)] || std::count(outs.begin(), outs.end(), d))
      return why = "output subscripts are not distinct indices", std::nullopt;
    outs.push_back(d);
  }
  if (outs.empty()) return why = "scalar output", std::nullopt;
  std::vector<const Expr *> reads;
  reads_in(*s.rhs, reads);
  auto is_out = [&](int d) { return std::count(outs.begin(), outs.end(), d) > 0; };
  bool moving = false;
  for (int d = 0; d < static_cast<int>(s.indices.size()); ++d) {
    if (!s.reduction[static_cast<std::size_t>(d)]) {
      if (!is_out(d)) return why = "a parallel index the output lacks", std::nullopt;
      continue;
    }
    long e = extent(s.domain, d);
    if (e < 0) return why = "window of symbolic size", std::nullopt;
    w.window.push_back(d);
    w.taps *= e;
    if (e == 1) continue;
    // A window dimension moves over an output dimension in some read
    // (X[s*h + kh]; the weights' W[kh] is plain); one that only ever
    // appears alone (C[m, n] += A[m, k] * B[k, n]) is a contraction.
    bool paired = false;
    for (const Expr *r : reads)
      for (const auto &sub : r->args)
        if (mentions(*sub, s.indices[static_cast<std::size_t>(d)]))
          for (int o : outs) paired = paired || mentions(*sub, s.indices[static_cast<std::size_t>(o)]);
    if (!paired) return why = "a contraction dimension (GEMM-shaped)", std::nullopt;
    moving = true;
  }
  if (!moving) return why = "no window dimension", std::nullopt;
  w.v = outs.back();
  if (outs.size() >= 2) w.r = outs[outs.size() - 2];
  for (std::size_t k = 0; k + (w.r >= 0 ? 2 : 1) < outs.size(); ++k) w.outer.push_back(outs[k]);
  w.unit = unit_stride_reads(s, w.v);
  auto coeff = [](const compute::QuasiAffine &q, const std::string &v) { return q.vars.count(v) ? q.vars.at(v) : 0; };
  for (const Expr *r : reads)
    for (const auto &sub : r->args) {
      auto q = compute::to_quasi_affine(*sub);
      if (w.r < 0 || w.input_row >= 0 || !q || !q->is_linear() || coeff(*q, s.indices[static_cast<std::size_t>(w.r)]) != 1)
        continue;
      for (int d : w.window)
        if (coeff(*q, s.indices[static_cast<std::size_t>(d)]) == 1 && extent(s.domain, d) > 1) w.input_row = d;
    }
  return w;
}

/// Fraction of a dimension of extent `e` covered by full tiles of `t` (partial tiles count half).
double full_fraction(long e, long t) {
  if (e < 0) return 1.0;
  long full = e / t * t;
  return (static_cast<double>(full) + 0.5 * static_cast<double>(e - full)) / static_cast<double>(e);
}

/// Rows, columns and vector-ness of the register tile of `w`.
WindowTile choose_tile(const Window &w, const WindowTileOptions &o) {
  WindowTile t;
  t.statement = w.s->name;
  const CpuTarget &c = o.target;
  long ev = extent(w.s->domain, w.v), er = w.r >= 0 ? extent(w.s->domain, w.r) : 1;
  long lanes = o.vectorize && w.unit ? std::max(1, c.vector_lanes) : 1;
  long regs = std::max(8, c.vector_registers);
  // Accumulators: 12, a third of the registers with 32 (on the 3x3
  // depthwise conv at 56x56 12 beat 24, which spills once the window's
  // input rows are live too) and three quarters with 16 (with AVX2, 6 rows
  // x 2 vectors beat 4 x 2 and 2 x 2 despite a few spills: two FMA pipes of
  // latency 4 want 8+ independent chains).
  long budget = 12;
  long units;                                 // registers one row of the tile takes
  if (lanes > 1 && (ev < 0 || ev >= lanes)) {
    long nv = o.vectors > 0 ? o.vectors : (regs >= 32 ? 3 : 2);
    if (ev > 0) nv = std::min(nv, ev / lanes);
    t.vector = true;
    t.columns = nv * lanes;
    units = nv;
  } else {
    long nc = o.vectors > 0 ? o.vectors : 8;
    t.columns = ev > 0 ? std::min(nc, ev) : nc;
    units = t.columns;
  }
  if (o.rows > 0) {
    t.rows = o.rows;
  } else if (long halo = w.input_row >= 0 ? extent(w.s->domain, w.input_row) - 1 : 0; halo > 0 && er > 0) {
    // A tile of r rows loads r + halo input rows: the fewest input rows
    // over the whole extent, a partial last tile included (28 rows: 6-row
    // tiles load 4 x 8 + 6 = 38, 4-row tiles 7 x 6 = 42; the measured times
    // of 2, 4 and 6 rows above follow (r + 2) / r).
    long best = -1;
    for (long rr = 1; rr <= 8 && rr * units <= std::max(budget, units) && rr <= er; ++rr) {
      long loads = er / rr * (rr + halo) + (er % rr ? er % rr + halo : 0);
      if (best < 0 || loads < best || (loads == best && er % rr == 0)) best = loads, t.rows = rr;
    }
  } else {
    // The most rows whose accumulators fit, full tiles preferred.
    double best = -1;
    for (long rr = 1; rr <= 8 && rr * units <= std::max(budget, units); ++rr) {
      double score = full_fraction(er, rr) * (1.0 + 0.01 * static_cast<double>(rr));
      if (score > best) best = score, t.rows = rr;
    }
  }
  if (w.r < 0) t.rows = 1;
  if (er > 0) t.rows = std::clamp(t.rows, 1L, er);
  t.columns = std::max(1L, t.columns);
  long window_max = 1;
  for (int d : w.window) window_max = std::max(window_max, extent(w.s->domain, d));
  t.unrolled = o.max_unrolled > 0 && w.taps <= o.max_unrolled && window_max <= 16;
  return t;
}

isl::union_pw_aff member(const ScopStatement &s, const std::string &expr) {
  return isl::union_pw_aff(s.domain.ctx(), "{ " + tuple(s) + " -> [(" + expr + ")] }");
}

/// `expr` (over output dimensions) for the statement and its init.
isl::union_pw_aff member(const Window &w, const std::string &expr) {
  std::string text = "{ " + tuple(*w.s) + " -> [(" + expr + ")]";
  if (w.init) text += "; " + w.init_tuple + " -> [(" + expr + ")]";
  for (const auto &[e, t] : w.epilogue) text += "; " + t + " -> [(" + expr + ")]";
  return isl::union_pw_aff(w.s->domain.ctx(), text + " }");
}

/// The output dimensions outside the tile, as band members.
std::vector<isl::union_pw_aff> outer_members(const Window &w) {
  std::vector<isl::union_pw_aff> outer;
  for (int d : w.outer) outer.push_back(member(w, x(d)));
  return outer;
}

/// init[x..] with each index named x<d>, d the dimension of `main` that its
/// output subscript holds; "" when the init does not write the same subscripts.
std::string init_tuple(const ScopStatement &main, const ScopStatement &init, bool same_array = true) {
  const Expr &a = *main.lhs, &b = *init.lhs;
  if ((same_array && a.name != b.name) || a.args.size() != b.args.size() || b.args.size() != init.indices.size())
    return "";
  std::vector<std::string> names(init.indices.size());
  for (std::size_t k = 0; k < a.args.size(); ++k) {
    if (b.args[k]->kind != ExprKind::Var) return "";
    auto p = std::find(init.indices.begin(), init.indices.end(), b.args[k]->name);
    auto d = std::find(main.indices.begin(), main.indices.end(), a.args[k]->name);
    if (p == init.indices.end() || d == main.indices.end()) return "";
    names[static_cast<std::size_t>(p - init.indices.begin())] = x(static_cast<int>(d - main.indices.begin()));
  }
  std::string out = init.name + "[";
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (names[k].empty()) return "";
    out += (k ? ", " : "") + names[k];
  }
  return out + "]";
}

std::string tiled(int d, long t) { return "floor(" + x(d) + "/" + std::to_string(t) + ")"; }


/// { isolate[[p...] -> [q...]] : the tiles of the members `tiled` (position,
/// size, dimension) are full }, under `prefix` outer band dimensions.
isl::union_set isolate_option(const ScopStatement &s, int prefix, int members,
                              const std::vector<std::array<long, 3>> &tiled) {
  std::string ps, qs;
  for (int p = 0; p < prefix; ++p) ps += (p ? ", p" : "p") + std::to_string(p);
  for (int q = 0; q < members; ++q) qs += (q ? ", q" : "q") + std::to_string(q);
  std::string space = "isolate[[" + ps + "] -> [" + qs + "]]";
  isl::set iso(s.domain.ctx(), "{ " + space + " }");
  for (const auto &[pos, size, d] : tiled) {
    isl::set values = dimension_values(s, static_cast<int>(d));
    isl::multi_aff last(s.domain.ctx(), "{ " + space + " -> [(" + std::to_string(size) + " * q" + std::to_string(pos) +
                                            " + " + std::to_string(size - 1) + ")] }");
    iso = iso.intersect(values.preimage(last));
  }
  return isl::union_set(iso);
}

/// The bands of `w` under `node` (a leaf) for the columns [0, ev) (ev < 0:
/// all), the output dimensions outside the tile included unless
/// `outer_above` (a band above holds them); returns the top node.
isl::schedule_node build_tile(isl::schedule_node node, const Window &w, const WindowTile &t, long ev,
                              bool outer_above = false) {
  const ScopStatement &s = *w.s;
  long er = w.r >= 0 ? extent(s.domain, w.r) : 1;
  bool tile_r = w.r >= 0 && t.rows > 1, tile_v = t.columns > 1 && t.columns != ev;
  std::vector<isl::union_pw_aff> top = outer_above ? std::vector<isl::union_pw_aff>{} : outer_members(w);
  std::vector<std::array<long, 3>> iso;
  if (w.r >= 0) {
    if (tile_r) iso.push_back({static_cast<long>(top.size()), t.rows, w.r});
    top.push_back(member(w, tile_r ? tiled(w.r, t.rows) : x(w.r)));
  }
  if (tile_v) {
    iso.push_back({static_cast<long>(top.size()), t.columns, w.v});
    top.push_back(member(w, tiled(w.v, t.columns)));
  }
  // Full tiles exist and partial ones too: isolate the full ones.
  bool partial = (tile_r && er % t.rows != 0) || (tile_v && ev % t.columns != 0) || er < 0 || ev < 0;
  int depth = 0;
  if (!top.empty()) {
    auto b = insert_band(node, top, std::vector<bool>(top.size(), true)).as<isl::schedule_node_band>();
    if (!iso.empty() && partial)
      b = b.set_ast_build_options(isolate_option(s, outer_above ? static_cast<int>(w.outer.size()) : 0, static_cast<int>(top.size()), iso));
    node = isl::schedule_node(b).child(0), ++depth;
  }
  if ((w.init || !w.epilogue.empty()) && !top.empty()) {
    // The init's tile first, the window statement, then the epilogue's runs
    // (statements pointwise one after the other share loops): each the
    // tile's rows, then its columns (the init's stores stay in registers too).
    std::vector<std::vector<std::pair<const ScopStatement *, std::string>>> runs;
    if (w.init) runs.push_back({{w.init, w.init_tuple}});
    std::size_t main_at = runs.size();
    runs.push_back({});
    std::vector<const ScopStatement *> after;
    for (const auto &e : w.epilogue) after.push_back(e.first);
    for (const auto &run : TileCompanions::runs(after)) {
      runs.emplace_back();
      for (const ScopStatement *c : run)
        for (const auto &e : w.epilogue)
          if (e.first == c) runs.back().push_back(e);
    }
    auto filter_of = [&](const auto &run) {
      isl::union_set f(s.domain.ctx(), "{ }");
      for (const auto &c : run) f = f.unite(isl::union_set(c.first->domain));
      return f;
    };
    isl::union_set_list filters(s.domain.ctx(), static_cast<int>(runs.size()));
    for (std::size_t k = 0; k < runs.size(); ++k) filters = filters.add(k == main_at ? isl::union_set(s.domain) : filter_of(runs[k]));
    node = node.insert_sequence(filters);
    for (std::size_t k = 0; k < runs.size(); ++k) {
      if (k == main_at) continue;
      auto of = [&](int d) {
        std::string text;
        for (const auto &c : runs[k]) text += (text.empty() ? "" : "; ") + c.second + " -> [(" + x(d) + ")]";
        return isl::union_pw_aff(s.domain.ctx(), "{ " + text + " }");
      };
      node = node.child(static_cast<int>(k)).child(0);
      int inner = 0;
      if (tile_r) {
        node = node.insert_mark(tree_mark::kUnroll).child(0), ++inner;
        node = insert_band(node, {of(w.r)}, {true}).child(0), ++inner;
      }
      if (t.vector) node = node.insert_mark(tree_mark::kVector).child(0), ++inner;
      node = insert_band(node, {of(w.v)}, {true}), ++inner;
      if (runs[k].size() > 1) {
        isl::union_set_list each(s.domain.ctx(), static_cast<int>(runs[k].size()));
        for (const auto &c : runs[k]) each = each.add(isl::union_set(c.first->domain));
        node = node.child(0).insert_sequence(each).parent();
      }
      for (int j = 0; j < inner; ++j) node = node.parent();
      node = node.parent();  // the sequence
    }
    node = node.child(static_cast<int>(main_at)).child(0);  // the main statement's leaf
    depth += 2;
  }
  // Rows of a full-height tile in input-row order: the band h + kh
  // (isl unrolls it: each input row's code once), then the other window
  // dimensions, then the output rows that read that input row. Each input
  // vector is loaded once, used by the rows that need it and dead after;
  // in kh-outermost order every input row stays live across the whole tile
  // and the accumulators spill. Each output element still sums over kh,
  // then kw, in the same order.
  // Stride 1 only (window_of): with stride 2 each input row 2h + kh feeds
  // one or two output rows and the strided loads' shuffles are not shared
  // any better, while the rows' promoted loops multiply (input-row order
  // was measured slower on a stride-2 depthwise conv).
  bool by_input_row = t.unrolled && tile_r && er > 0 && w.input_row >= 0;
  if (by_input_row) {
    auto b = insert_band(node, {member(s, x(w.r) + " + " + x(w.input_row))}, {false}).as<isl::schedule_node_band>();
    node = isl::schedule_node(b.member_set_ast_loop_unroll(0)).child(0), ++depth;
  }
  for (int d : w.window) {
    if (by_input_row && d == w.input_row) continue;
    if (t.unrolled) node = node.insert_mark(tree_mark::kUnroll).child(0), ++depth;
    node = insert_band(node, {member(s, x(d))}, {false}).child(0), ++depth;
  }
  if (tile_r) node = node.insert_mark(tree_mark::kUnroll).child(0), ++depth;
  if (tile_r) node = insert_band(node, {member(s, x(w.r))}, {true}).child(0), ++depth;
  if (t.vector) node = node.insert_mark(tree_mark::kVector).child(0), ++depth;
  else if (t.columns > 1) node = node.insert_mark(tree_mark::kUnroll).child(0), ++depth;
  node = insert_band(node, {member(s, x(w.v))}, {true}).child(0), ++depth;
  for (int k = 0; k < depth; ++k) node = node.parent();
  return node;
}

/// The bands of window statement `w` with tile `t` at `node` (a leaf); returns the top node.
/// Columns left over after the last full strip (56 = 3 x 16 + 8) get a
/// subtree of their own after the full strips, inside the output
/// dimensions outside the tile (a channel's strips, then its remainder,
/// while its rows are in L1: as a second pass over every channel the
/// remainder read the band from L3 again): tiled like the strips when
/// they make a narrower vector (8 columns: rows unrolled, window loops
/// unrolled, the accumulators in registers), else rows and window loops
/// not unrolled (the backend keeps the few accumulators in registers across
/// the innermost window loop), so the scalar remainder stays small code.
/// Fewest columns the backend runs as one (SSE-width) vector.
constexpr long kMinVectorColumns = 4;

isl::schedule_node build_window(isl::schedule_node node, const Window &w, const WindowTile &t) {
  const ScopStatement &s = *w.s;
  long ev = extent(s.domain, w.v);
  isl::val lo = s.domain.dim_min_val(w.v);
  long cut = t.columns > 1 && ev > t.columns ? ev / t.columns * t.columns : 0;
  bool split = cut > 0 && cut < ev && lo.is_zero() && (!w.outer.empty() || w.r >= 0);
  if (!split) return build_tile(node, w, t, ev);
  auto part = [&](const std::string &cond) {
    std::string text = "{ " + tuple(s) + " : " + cond;
    if (w.init) text += "; " + w.init_tuple + " : " + cond;
    for (const auto &[e, et] : w.epilogue) text += "; " + et + " : " + cond;
    return isl::union_set(s.domain.ctx(), text + " }");
  };
  std::string xv = x(w.v), c = std::to_string(cut);
  const bool outer_above = !w.outer.empty();
  if (outer_above) node = insert_band(node, outer_members(w), std::vector<bool>(w.outer.size(), true)).child(0);
  isl::union_set_list filters(s.domain.ctx(), 2);
  filters = filters.add(part(xv + " < " + c)).add(part(xv + " >= " + c));
  node = node.insert_sequence(filters);
  node = build_tile(node.child(0).child(0), w, t, cut, outer_above).parent().next_sibling();
  WindowTile rest = t;
  rest.columns = ev - cut;
  if (rest.columns < kMinVectorColumns) rest.rows = 1, rest.unrolled = false;
  node = build_tile(node.child(0), w, rest, ev - cut, outer_above).parent().parent();
  return outer_above ? node.parent() : node;
}

}  // namespace

WindowTileResult tile_window_for_cpu(const Scop &scop, const isl::schedule &schedule, const WindowTileOptions &o) {
  WindowTileResult res;
  res.schedule = schedule;
  auto groups = groups_of(schedule);
  if (!groups) return res.reason = "schedule tree of another shape", res;
  // Each group holding exactly one window statement gets its own bands.
  std::size_t n = groups->size();
  std::vector<std::optional<Window>> windows(n);
  std::vector<WindowTile> tiles(n);
  std::vector<const ScopStatement *> single(n, nullptr);
  std::vector<bool> merged(n, false);  // an init moved into the next group's tile loops
  std::string why = "no window reduction";
  for (std::size_t g = 0; g < n; ++g) {
    isl::union_set in = (*groups)[g].filter.intersect(scop.domain());
    const ScopStatement *only = nullptr;
    int count = 0;
    for (const ScopStatement &st : scop.statements)
      if (!in.intersect(isl::union_set(st.domain)).is_empty()) ++count, only = &st;
    if (count != 1 || !in.is_equal(isl::union_set(only->domain))) continue;
    single[g] = only;
    std::string reason;
    windows[g] = window_of(*only, reason);
    if (!windows[g]) {
      if (!only->init && only->op != compute::AssignOp::Assign) why = reason;
      continue;
    }
    tiles[g] = choose_tile(*windows[g], o);
    // Its init right before it joins the tile loops.
    const ScopStatement *init = g > 0 ? single[g - 1] : nullptr;
    if (init && init->init && !merged[g - 1] && !windows[g - 1] && init->node == only->node &&
        (!windows[g]->outer.empty() || windows[g]->r >= 0)) {
      std::string t = init_tuple(*only, *init);
      if (!t.empty()) windows[g]->init = init, windows[g]->init_tuple = t, merged[g - 1] = true;
    }
    res.tiles.push_back(tiles[g]);
  }
  if (res.tiles.empty()) return res.reason = why, res;
  // The elementwise epilogue right after a window statement (bias, BN,
  // Clip reading its output at the element they write) joins its tiles.
  std::vector<bool> taken(n, false);
  for (std::size_t g = 0; o.epilogue && g < n; ++g) {
    if (!windows[g] || (windows[g]->outer.empty() && windows[g]->r < 0)) continue;
    Window &w = *windows[g];
    std::vector<isl::union_pw_aff> tile;
    for (int d : w.outer) tile.push_back(member(*w.s, x(d)));
    if (w.r >= 0) tile.push_back(member(*w.s, x(w.r)));
    tile.push_back(member(*w.s, x(w.v)));
    TileCompanions companions(scop, *w.s, tile);
    for (std::size_t e = g + 1; e < n && single[e] && !windows[e] && !merged[e]; ++e) {
      const ScopStatement &st = *single[e];
      if (!companions.same_element(st) || !companions.tile_of(st, tile.size())) break;
      std::string t = init_tuple(*w.s, st, false);
      if (t.empty()) break;
      companions.add(st);
      w.epilogue.emplace_back(&st, t);
      taken[e] = true;
      ++res.companions;
    }
  }
  std::vector<Group> kept;
  std::vector<std::optional<Window>> kept_windows;
  std::vector<WindowTile> kept_tiles;
  for (std::size_t g = 0; g < n; ++g) {
    if (merged[g] || taken[g]) continue;
    Group gr = (*groups)[g];
    if (windows[g] && windows[g]->init) gr.filter = gr.filter.unite(isl::union_set(windows[g]->init->domain));
    if (windows[g])
      for (const auto &[e, et] : windows[g]->epilogue) gr.filter = gr.filter.unite(isl::union_set(e->domain));
    kept.push_back(gr), kept_windows.push_back(windows[g]), kept_tiles.push_back(tiles[g]);
  }
  *groups = kept, windows = kept_windows, tiles = kept_tiles;

  res.schedule = rebuild_groups(schedule.domain(), *groups, [&](isl::schedule_node leaf, std::size_t gi) {
    if (windows[gi]) return build_window(leaf, *windows[gi], tiles[gi]);
    return insert_distributed_band(leaf, (*groups)[gi], scop);
  });
  res.applied = true;
  return res;
}

}  // namespace atl::poly
