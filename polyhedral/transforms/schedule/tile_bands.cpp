// Tiles every permutable band (multi-level) with isl's band tiling, keeping
// coincidence and permutable flags, AST loop types and isolate options;
// untiled members stay in the point band. Also replace_band, which swaps one
// band for others in place (marks and every other node untouched).
#include "polyhedral/transforms/schedule/tile_bands.h"

#include <atoll/diagnostics.h>

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

/// Throws when isl could not rebuild bands above the subtree of `band`.
void require_unanchored(const isl::schedule_node_band &band, int position) {
  if (is_subtree_anchored(band.child(0)))
    throw UserError("band " + std::to_string(position) +
                        " is above a band with an isolate option or an extension or context node: isl cannot "
                        "rebuild bands there",
                    hint("tree"));
}

/// `band` given the flags, loop types and isolate option of `spec`.
isl::schedule_node_band apply_options(isl::schedule_node_band band, const BandSpec &spec) {
  isl::union_set options(band.ctx(), "{ }");
  if (spec.isolate) options = options.unite(isl::union_set(*spec.isolate));
  band = band.set_ast_build_options(options);
  for (std::size_t m = 0; m < spec.loop_types.size(); ++m)
    if (spec.loop_types[m] != AstLoopType::Default)
      band = member_set_ast_loop_type(band, static_cast<int>(m), spec.loop_types[m]);
  for (std::size_t m = 0; m < spec.isolate_loop_types.size(); ++m)
    if (spec.isolate_loop_types[m] != AstLoopType::Default)
      band = member_set_isolate_ast_loop_type(band, static_cast<int>(m), spec.isolate_loop_types[m]);
  return band;
}

/// "o0, o1" for prefix "o" and n = 2.
std::vector<std::string> names(const std::string &prefix, unsigned n) {
  std::vector<std::string> out;
  for (unsigned k = 0; k < n; ++k) out.push_back(prefix + std::to_string(k));
  return out;
}

std::string joined(const std::vector<std::string> &items) {
  std::string out;
  for (std::size_t k = 0; k < items.size(); ++k) out += (k ? ", " : "") + items[k];
  return out;
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

BandSpec band_spec(const isl::schedule_node_band &band) {
  BandSpec s;
  s.schedule = band.partial_schedule();
  s.permutable = band.permutable();
  for (int m = 0, n = static_cast<int>(band.n_member()); m < n; ++m) {
    s.coincident.push_back(band.member_get_coincident(m));
    s.loop_types.push_back(member_ast_loop_type(band, m));
    s.isolate_loop_types.push_back(member_isolate_ast_loop_type(band, m));
  }
  isl::set_list options = band.ast_build_options().set_list();
  for (int k = 0, n = static_cast<int>(options.size()); k < n; ++k)
    if (tuple_name(options.at(k)) == "isolate") s.isolate = options.at(k);
  return s;
}

isl::set move_isolate(const isl::set &isolate, const std::vector<std::string> &outer,
                      const std::vector<std::string> &members) {
  isl::map wrapped = isolate.unwrap();
  std::vector<std::string> o = names("o", wrapped.domain_tuple_dim()), b = names("b", wrapped.range_tuple_dim());
  std::vector<std::string> x = names("x", static_cast<unsigned>(outer.size())),
                           y = names("y", static_cast<unsigned>(members.size()));
  std::string cons;
  for (std::size_t k = 0; k < outer.size(); ++k) cons += (cons.empty() ? "" : " and ") + x[k] + " = " + outer[k];
  for (std::size_t k = 0; k < members.size(); ++k)
    cons += (cons.empty() ? "" : " and ") + y[k] + " = " + members[k];
  std::string text = "{ isolate[[" + joined(o) + "] -> [" + joined(b) + "]] -> isolate[[" + joined(x) + "] -> [" +
                     joined(y) + "]]" + (cons.empty() ? "" : " : " + cons) + " }";
  return isolate.apply(isl::map(isolate.ctx(), text));
}

isl::schedule replace_band(const isl::schedule &schedule, int position, const std::vector<BandSpec> &bands) {
  isl::schedule_node_band target = band_or_throw(schedule, position);
  require_unanchored(target, position);
  // The band's own isolate option anchors it: drop its options first. isl
  // may keep the band flagged as anchored after that; a tree read back from
  // its text is flagged afresh.
  isl::schedule_node node = target.set_ast_build_options(isl::union_set(target.ctx(), "{ }"));
  if (is_subtree_anchored(node))
    node = collect_bands(isl::schedule(node.ctx(), schedule_to_yaml(node.schedule())))[static_cast<std::size_t>(position)];
  node = delete_node(node);
  if (bands.empty()) return node.schedule();
  // Insert from the innermost up (inserting above an anchored subtree is
  // refused, so options come after), then set flags and options top down.
  for (auto spec = bands.rbegin(); spec != bands.rend(); ++spec) {
    ATOLL_ASSERT(!spec->schedule.is_null() && spec->schedule.size() > 0, "a band needs at least one member");
    node = node.insert_partial_schedule(spec->schedule);
  }
  for (std::size_t k = 0; k < bands.size(); ++k) {
    const BandSpec &spec = bands[k];
    auto b = node.as<isl::schedule_node_band>().set_permutable(spec.permutable ? 1 : 0);
    for (std::size_t m = 0; m < spec.coincident.size(); ++m)
      b = b.member_set_coincident(static_cast<int>(m), spec.coincident[m] ? 1 : 0);
    b = apply_options(b, spec);
    node = k + 1 < bands.size() ? b.child(0) : isl::schedule_node(b);
  }
  return node.schedule();
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
  require_unanchored(band, position);
  bool all = true, none = true;
  for (long s : use) (s ? none : all) = false;
  if (none) return schedule;
  BandSpec whole = band_spec(band);
  if (all && !whole.isolate) {
    // isl's tiling copies loop types and options to both bands.
    isl::val_list vals(schedule.ctx(), n);
    for (long s : use) vals = vals.add(isl::val(schedule.ctx(), s));
    isl::multi_val mv(band.partial_schedule().space(), vals);
    return band.tile(mv).schedule();
  }
  // Some members untiled (or an isolate option to move): the tile band
  // holds floor(f / s) of the tiled members only; the point band is the
  // original band, its isolate option extended with the tile loops.
  BandSpec tile{{}, true, {}, {}, {}, {}}, point = whole;
  std::vector<isl::union_pw_aff> tile_members;
  std::vector<std::string> outer, members;
  if (whole.isolate) {
    isl::map w = whole.isolate->unwrap();
    outer = names("o", w.domain_tuple_dim());
    members = names("b", w.range_tuple_dim());
  }
  for (int m = 0; m < n; ++m) {
    long size = use[static_cast<std::size_t>(m)];
    if (!size) continue;
    tile_members.push_back(floor_div(whole.schedule.at(m), size));
    tile.coincident.push_back(whole.coincident[static_cast<std::size_t>(m)]);
    tile.loop_types.push_back(whole.loop_types[static_cast<std::size_t>(m)]);
    outer.push_back("floor(b" + std::to_string(m) + "/" + std::to_string(size) + ")");
  }
  tile.schedule = product(tile_members);
  if (whole.isolate) point.isolate = move_isolate(*whole.isolate, outer, members);
  return replace_band(schedule, position, {tile, point});
}

isl::schedule tile_bands(isl::schedule schedule, const TileOptions &options) {
  // From the last band to the first, so earlier positions do not move.
  for (int p = static_cast<int>(collect_bands(schedule).size()) - 1; p >= 0; --p) {
    isl::schedule_node_band b = collect_bands(schedule)[static_cast<std::size_t>(p)];
    if (b.n_member() > 1 && !b.permutable()) continue;
    if (is_subtree_anchored(b.child(0))) continue;
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
