// Tiles the GEMM-shaped statement of a cluster for the CPU target: the
// schedule tree of its cache tiles and its register micro-tile (isolated for
// unroll-and-jam, vector columns), with its init and epilogue placed in the
// tiles. The sizes come from the cost model in gemm_tile_sizes.
#include "polyhedral/transforms/schedule/tile_for_cpu.h"
#include "polyhedral/transforms/schedule/cpu_tiling_common.h"

#include "polyhedral/transforms/schedule/footprint.h"
#include "polyhedral/transforms/schedule/gemm_tile_sizes.h"
#include "polyhedral/transforms/schedule/tile_companions.h"

#include <algorithm>
#include <functional>
#include <optional>

namespace atl::poly {

namespace {

using compute::Expr;
using compute::ExprKind;
using namespace tiling;

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

/// The statements placed in the main statement's tiles (tile_companions):
/// its init and the elementwise statements before it, `before`; the
/// epilogue after it, `after`, or, for what reads in another layout and what
/// follows, once per cache tile after its register tiles, `outer`; each with
/// its tile coordinates. `kept` is the groups left, the main one (at
/// `main_group`) holding its companions.
struct Companions {
  std::vector<const ScopStatement *> before, after, outer;
  std::vector<isl::multi_union_pw_aff> before_tile, after_tile, outer_tile;
  std::vector<Group> kept;
  int main_group = -1;
};

/// Companions of `main` (group `main_group` of `groups`) in the tiles whose
/// band members are `tile`; the first `outer_levels` of them are the cache
/// tiles' (0: no outer companions).
Companions place_companions(const Scop &scop, const ScopStatement &main, const std::vector<Group> &groups,
                            int main_group, const std::vector<isl::union_pw_aff> &tile, std::size_t outer_levels) {
  Companions out;
  TileCompanions companions(scop, main, tile);
  auto statements_of = [&](const Group &g) {
    std::vector<const ScopStatement *> found;
    for (const ScopStatement &st : scop.statements)
      if (!g.filter.intersect(isl::union_set(st.domain)).is_empty()) found.push_back(&st);
    return found;
  };
  std::vector<bool> taken(groups.size(), false);
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    if (static_cast<int>(gi) == main_group) continue;
    bool is_after = static_cast<int>(gi) > main_group;
    std::vector<const ScopStatement *> in = statements_of(groups[gi]);
    std::vector<std::pair<bool, isl::multi_union_pw_aff>> tiles;  // (outer, coordinates)
    for (const ScopStatement *st : in) {
      std::optional<isl::multi_union_pw_aff> t;
      bool in_outer = !out.outer.empty();
      if (!in_outer && (!is_after || companions.same_element(*st))) t = companions.tile_of(*st, tile.size());
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
      auto &to = !is_after ? out.before : tiles[k].first ? out.outer : out.after;
      auto &to_tile = !is_after ? out.before_tile : tiles[k].first ? out.outer_tile : out.after_tile;
      to.push_back(in[k]);
      to_tile.push_back(tiles[k].second);
    }
  }
  out.kept.clear();
  int new_main = -1;
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    if (taken[gi]) continue;
    if (static_cast<int>(gi) == main_group) {
      Group g = groups[gi];
      for (const auto *list : {&out.before, &out.after, &out.outer})
        for (const ScopStatement *c : *list) g.filter = g.filter.unite(isl::union_set(c->domain));
      new_main = static_cast<int>(out.kept.size());
      out.kept.push_back(g);
    } else {
      out.kept.push_back(groups[gi]);
    }
  }
  out.main_group = new_main;
  return out;
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
  auto roles = gemm::roles_of(*s, res.reason);
  if (!roles) return res;
  std::size_t n = s->indices.size();
  std::vector<long> ext(n);
  for (std::size_t d = 0; d < n; ++d) ext[d] = extent(s->domain, static_cast<int>(d));

  // The register tile, then the cache tiles (gemm_tile_sizes.h).
  gemm::RegisterTile rt = gemm::choose_register_tile(*s, *roles, ext, o);
  const long mr = rt.mr, nr = rt.nr, nu = rt.nu;
  res.mr = mr, res.nr = nr * nu, res.nu = nu;

  std::vector<long> cache = gemm::choose_cache_tiles(scop, *s, *roles, ext, rt, o);
  res.cache_sizes = cache;

  // The bands of the main statement.
  std::vector<isl::union_pw_aff> b0, b1;
  std::vector<bool> c0, c1;
  std::vector<int> order = roles->others;
  order.push_back(roles->r);
  order.push_back(roles->v);
  order.insert(order.end(), roles->reductions.begin(), roles->reductions.end());
  auto is_red = [&](int d) { return s->reduction[static_cast<std::size_t>(d)]; };
  // Column blocks tiled for the cache (few pixels, large weights) go first.
  if (roles->u >= 0 && cache[static_cast<std::size_t>(roles->u)])
    b0.push_back(member(*s, tiled(roles->u, cache[static_cast<std::size_t>(roles->u)]))), c0.push_back(true);
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
  Companions placed;
  placed.kept = *groups;
  placed.main_group = main_group;
  if (o.epilogue && n0 + n1 > 0) {
    std::vector<isl::union_pw_aff> tile(b0.begin(), b0.begin() + static_cast<long>(n0));
    tile.insert(tile.end(), b1.begin(), b1.begin() + static_cast<long>(n1));
    placed = place_companions(scop, *s, *groups, main_group, tile, outer_levels);
  }
  const auto &before = placed.before, &after = placed.after, &outer = placed.outer;
  const auto &before_tile = placed.before_tile, &after_tile = placed.after_tile, &outer_tile = placed.outer_tile;
  const std::vector<Group> &kept = placed.kept;
  main_group = placed.main_group;
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
