// Tile coordinates of a tiled statement's init and elementwise epilogue statements, from their accesses.
#include "polyhedral/transforms/schedule/tile_companions.h"

namespace atl::poly::tiling {

namespace {

isl::union_map access(const ScopStatement &s, const ScopAccess &a) {
  return isl::union_map(a.relation.intersect_domain(s.domain));
}

}  // namespace

TileCompanions::TileCompanions(const Scop &scop, const ScopStatement &main, std::vector<isl::union_pw_aff> main_tile)
    : scop_(scop), main_(main), main_tile_(std::move(main_tile)) {
  placed_.emplace_back(&main_, isl::union_set(main.domain).identity());
}

std::optional<isl::union_map> TileCompanions::sources(const ScopStatement &t) const {
  if (t.init) {
    // main's init: it writes the elements main accumulates into.
    if (t.name != main_.name + "_init" || t.write.array != main_.write.array) return std::nullopt;
    return access(t, t.write).apply_range(access(main_, main_.write).reverse());
  }
  for (bool r : t.reduction)
    if (r) return std::nullopt;
  // In place: t reads the element it writes, implicitly (`Y += B(m)`, a
  // Conv's bias) or explicitly (`Y = Y + C`, a Gemm's C); it then runs after
  // what produced that element, as any epilogue.
  isl::map written = t.write.relation.intersect_domain(t.domain);
  bool in_place = t.op != compute::AssignOp::Assign;
  for (const ScopAccess &read : t.reads)
    if (read.array == t.write.array && !read.indirect && read.relation.intersect_domain(t.domain).is_equal(written))
      in_place = true;
  std::vector<ScopAccess> reads = t.reads;
  if (t.op != compute::AssignOp::Assign) reads.push_back(t.write);
  std::optional<isl::union_map> from;
  for (const ScopAccess &read : reads) {
    if (read.indirect) return std::nullopt;
    for (const auto &[p, p_sources] : placed_) {
      if (p->write.array != read.array) continue;
      isl::union_map m = access(t, read).apply_range(access(*p, p->write).reverse()).apply_range(p_sources);
      from = from ? from->unite(m) : m;
    }
  }
  // A statement that writes what a placed statement reads or writes would
  // have to run before it: not an epilogue (unless it updates in place what
  // the placed statements wrote and none of them reads it).
  for (const auto &[p, p_sources] : placed_) {
    (void)p_sources;
    if (p->write.array == t.write.array && !in_place) return std::nullopt;
    for (const ScopAccess &read : p->reads)
      if (read.array == t.write.array) return std::nullopt;
  }
  return from;
}

std::optional<isl::multi_union_pw_aff> TileCompanions::tile_of(const ScopStatement &t, std::size_t levels) const {
  std::optional<isl::union_map> from = sources(t);
  if (!from || from->is_empty() || levels == 0 || levels > main_tile_.size()) return std::nullopt;
  isl::multi_union_pw_aff coordinates(main_tile_.front());
  for (std::size_t k = 1; k < levels; ++k) coordinates = coordinates.flat_range_product(isl::multi_union_pw_aff(main_tile_[k]));
  isl::union_map tile =
      from->apply_range(isl::union_map::from(coordinates).intersect_domain(isl::union_set(main_.domain)));
  // Every instance in one tile.
  if (!tile.domain().is_equal(isl::union_set(t.domain)) || !tile.is_single_valued()) return std::nullopt;
  return tile.as_multi_union_pw_aff();
}

bool TileCompanions::pointwise(const ScopStatement &earlier, const ScopStatement &later) {
  if (earlier.indices.size() != later.indices.size()) return false;
  // { later[x] -> earlier[x] }
  isl::map same = later.domain.identity().set_range_tuple(earlier.name);
  for (const ScopAccess &read : later.reads) {
    if (read.array != earlier.write.array) continue;
    isl::union_map m = access(later, read).apply_range(access(earlier, earlier.write).reverse());
    if (!m.is_subset(isl::union_map(same))) return false;
  }
  if (later.write.array == earlier.write.array) return false;
  for (const ScopAccess &read : earlier.reads)
    if (read.array == later.write.array) return false;
  return true;
}

bool TileCompanions::same_element(const ScopStatement &t) const {
  isl::map written = t.write.relation.intersect_domain(t.domain);
  for (const ScopAccess &read : t.reads)
    for (const auto &[p, p_sources] : placed_) {
      (void)p_sources;
      if (p->write.array != read.array) continue;
      isl::map r = read.relation.intersect_domain(t.domain);
      if (r.range_tuple_dim() != written.range_tuple_dim() ||
          !r.is_equal(written.set_range_tuple(r.range_tuple_id())))
        return false;
    }
  return true;
}

std::vector<std::vector<const ScopStatement *>> TileCompanions::runs(
    const std::vector<const ScopStatement *> &statements) {
  std::vector<std::vector<const ScopStatement *>> out;
  for (const ScopStatement *c : statements) {
    bool joins = !out.empty() && !c->indices.empty();
    for (std::size_t k = 0; joins && k < out.back().size(); ++k) joins = pointwise(*out.back()[k], *c);
    if (joins) out.back().push_back(c);
    else out.push_back({c});
  }
  return out;
}

void TileCompanions::add(const ScopStatement &t) {
  std::optional<isl::union_map> from = sources(t);
  if (from) placed_.emplace_back(&t, *from);
}

}  // namespace atl::poly::tiling
