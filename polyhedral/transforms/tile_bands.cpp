// Tiles every permutable band (multi-level) with isl's band tiling, keeping
// coincidence and permutable flags; untiled members stay in the point band.
#include "polyhedral/transforms/tile_bands.h"

#include <atoll/diagnostics.h>

#include <functional>
#include <string>

namespace atl::poly {

namespace {

Location hint(const std::string &what) {
  Location l;
  l.hint = what;
  return l;
}

/// floor(f / size) of every piece of f.
isl::union_pw_aff floor_div(const isl::union_pw_aff &f, long size) {
  isl::union_pw_aff out;
  for (int k = 0, n = static_cast<int>(f.pw_multi_aff_list().size()); k < n; ++k) {
    isl::pw_aff piece = f.pw_multi_aff_list().at(k).at(0).scale_down(size).floor();
    out = out.is_null() ? isl::union_pw_aff(piece) : out.union_add(piece);
  }
  return out;
}

isl::multi_union_pw_aff product(const std::vector<isl::union_pw_aff> &members) {
  isl::multi_union_pw_aff m(members.front());
  for (std::size_t k = 1; k < members.size(); ++k) m = m.flat_range_product(isl::multi_union_pw_aff(members[k]));
  return m;
}

/// Copies `old` (and its subtree) into the new tree at the leaf `at`,
/// replacing the band node `target` by `bands`. Returns the node at the
/// position of `at` in the updated tree.
isl::schedule_node copy_into(const isl::schedule_node &old, isl::schedule_node at, const isl::schedule_node &target,
                             const std::vector<BandSpec> &bands) {
  auto recurse_single = [&](isl::schedule_node inserted, int levels) {
    isl::schedule_node leaf = inserted;
    for (int k = 0; k < levels; ++k) leaf = leaf.child(0);
    isl::schedule_node done = copy_into(old.child(0), leaf, target, bands);
    for (int k = 0; k < levels; ++k) done = done.parent();
    return done;
  };
  if (old.isa<isl::schedule_node_leaf>()) return at;
  if (old.isa<isl::schedule_node_band>()) {
    auto band = old.as<isl::schedule_node_band>();
    std::vector<BandSpec> specs;
    if (old.is_equal(target)) {
      specs = bands;
    } else {
      BandSpec s{band.partial_schedule(), band.permutable(), {}};
      for (unsigned m = 0; m < band.n_member(); ++m) s.coincident.push_back(band.member_get_coincident(static_cast<int>(m)));
      specs.push_back(s);
    }
    isl::schedule_node pos = at;
    for (std::size_t k = 0; k < specs.size(); ++k) {
      auto b = pos.insert_partial_schedule(specs[k].schedule).as<isl::schedule_node_band>();
      b = b.set_permutable(specs[k].permutable ? 1 : 0);
      for (std::size_t m = 0; m < specs[k].coincident.size(); ++m)
        b = b.member_set_coincident(static_cast<int>(m), specs[k].coincident[m] ? 1 : 0);
      if (!old.is_equal(target)) b = b.set_ast_build_options(band.ast_build_options());
      pos = b.child(0);
    }
    isl::schedule_node done = copy_into(old.child(0), pos, target, bands);
    for (std::size_t k = 0; k < specs.size(); ++k) done = done.parent();
    return done;
  }
  if (old.isa<isl::schedule_node_sequence>() || old.isa<isl::schedule_node_set>()) {
    isl::union_set_list filters(old.ctx(), static_cast<int>(old.n_children()));
    for (unsigned c = 0; c < old.n_children(); ++c)
      filters = filters.add(old.child(static_cast<int>(c)).as<isl::schedule_node_filter>().filter());
    isl::schedule_node node = old.isa<isl::schedule_node_sequence>() ? at.insert_sequence(filters)
                                                                     : at.insert_set(filters);
    for (unsigned c = 0; c < old.n_children(); ++c) {
      isl::schedule_node leaf = node.child(static_cast<int>(c)).child(0);
      node = copy_into(old.child(static_cast<int>(c)).child(0), leaf, target, bands).parent().parent();
    }
    return node;
  }
  if (old.isa<isl::schedule_node_filter>())
    return recurse_single(at.insert_filter(old.as<isl::schedule_node_filter>().filter()), 1);
  if (old.isa<isl::schedule_node_context>())
    return recurse_single(at.insert_context(old.as<isl::schedule_node_context>().context()), 1);
  if (old.isa<isl::schedule_node_guard>())
    return recurse_single(at.insert_guard(old.as<isl::schedule_node_guard>().guard()), 1);
  // Marks: isl's C++ interface cannot read a mark's id (a wrapper in
  // polyhedral/isl/ would be needed); extension and expansion nodes are
  // not produced by the schedulers.
  throw UserError("cannot rebuild a schedule tree with mark, extension or expansion nodes", hint("tree"));
}

isl::schedule_node_band band_or_throw(const isl::schedule &schedule, int position) {
  std::vector<isl::schedule_node_band> bands = collect_bands(schedule);
  if (position < 0 || position >= static_cast<int>(bands.size()))
    throw UserError("no band at position " + std::to_string(position) + " (the schedule has " +
                        std::to_string(bands.size()) + " bands)",
                    hint("band"));
  return bands[static_cast<std::size_t>(position)];
}

}  // namespace

std::vector<isl::schedule_node_band> collect_bands(const isl::schedule &schedule) {
  std::vector<isl::schedule_node_band> out;
  schedule.root().foreach_descendant_top_down([&](isl::schedule_node n) {
    if (n.isa<isl::schedule_node_band>()) out.push_back(n.as<isl::schedule_node_band>());
    return true;
  });
  return out;
}

long member_extent(const isl::schedule_node_band &band, int member) {
  // Partial schedules are often defined on whole statement spaces: restrict
  // to the instances of the schedule (an upper bound of the band's own).
  isl::union_pw_aff f = band.partial_schedule().at(member).intersect_domain(band.schedule().domain());
  isl::pw_multi_aff_list pieces = f.pw_multi_aff_list();
  long lo = 0, hi = -1;
  bool any = false;
  for (int k = 0, n = static_cast<int>(pieces.size()); k < n; ++k) {
    isl::pw_aff pa = pieces.at(k).at(0);
    if (pa.domain().is_empty()) continue;
    isl::val mn = pa.min_val(), mx = pa.max_val();
    if (!mn.is_int() || !mx.is_int()) return -1;
    long a = mn.get_num_si(), b = mx.get_num_si();
    lo = any ? std::min(lo, a) : a;
    hi = any ? std::max(hi, b) : b;
    any = true;
  }
  return any ? hi - lo + 1 : 0;
}

isl::schedule replace_band(const isl::schedule &schedule, int position, const std::vector<BandSpec> &bands) {
  isl::schedule_node_band target = band_or_throw(schedule, position);
  isl::schedule_node root = schedule.root();
  ATOLL_ASSERT(root.isa<isl::schedule_node_domain>(), "a schedule tree's root is a domain node");
  isl::schedule_node fresh = isl::schedule_node::from_domain(root.as<isl::schedule_node_domain>().domain());
  fresh = copy_into(root.child(0), fresh.child(0), target, bands);
  return fresh.schedule();
}

isl::schedule tile_band_at(isl::schedule schedule, int position, const std::vector<long> &sizes) {
  isl::schedule_node_band band = band_or_throw(schedule, position);
  int n = static_cast<int>(band.n_member());
  if (n > 1 && !band.permutable())
    throw UserError("band " + std::to_string(position) + " is not permutable: tiling it could be illegal",
                    hint("tile"));
  if (sizes.empty()) throw UserError("no tile sizes given", hint("tile"));
  std::vector<long> use;
  for (int m = 0; m < n; ++m) {
    long s = sizes[std::min<std::size_t>(static_cast<std::size_t>(m), sizes.size() - 1)];
    if (s < 0) throw UserError("tile size " + std::to_string(s) + " is negative", hint("tile"));
    long extent = member_extent(band, m);
    use.push_back(s == 0 || (extent >= 0 && s >= extent) ? 0 : s);
  }
  bool all = true, none = true;
  for (long s : use) (s ? none : all) = false;
  if (none) return schedule;
  if (all) {
    isl::val_list vals(schedule.ctx(), n);
    for (long s : use) vals = vals.add(isl::val(schedule.ctx(), s));
    isl::multi_val mv(band.partial_schedule().space(), vals);
    return band.tile(mv).schedule();
  }
  // Some members untiled: the tile band holds floor(f / s) of the tiled
  // members only; the point band is the original band.
  isl::multi_union_pw_aff partial = band.partial_schedule();
  std::vector<isl::union_pw_aff> tile_members;
  BandSpec tile{{}, true, {}}, point{partial, band.permutable(), {}};
  for (int m = 0; m < n; ++m) {
    bool c = band.member_get_coincident(m);
    point.coincident.push_back(c);
    if (!use[static_cast<std::size_t>(m)]) continue;
    tile_members.push_back(floor_div(partial.at(m), use[static_cast<std::size_t>(m)]));
    tile.coincident.push_back(c);
  }
  tile.schedule = product(tile_members);
  return replace_band(schedule, position, {tile, point});
}

isl::schedule tile_bands(isl::schedule schedule, const TileOptions &options) {
  std::vector<isl::schedule_node_band> bands = collect_bands(schedule);
  // From the last band to the first, so earlier positions do not move.
  for (int p = static_cast<int>(bands.size()) - 1; p >= 0; --p) {
    const auto &b = bands[static_cast<std::size_t>(p)];
    if (b.n_member() > 1 && !b.permutable()) continue;
    int at = p;
    for (const auto &level : options.levels) {
      std::size_t before = collect_bands(schedule).size();
      schedule = tile_band_at(schedule, at, level);
      if (collect_bands(schedule).size() > before) ++at;  // tile the point band next
    }
  }
  return schedule;
}

}  // namespace atl::poly
