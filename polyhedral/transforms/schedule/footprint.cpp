// Tile footprints from access relations: isl's simple_fixed_box_hull of each array's accessed elements (or of its last two dimensions as one row, when smaller).
#include "polyhedral/transforms/schedule/footprint.h"

#include <map>
#include <string>

namespace atl::poly {

namespace {

/// { S[x0, ...] : x_d < sizes[d] } for the dimensions with a positive size.
isl::set tile_of(const ScopStatement &s, const std::vector<long> &sizes) {
  std::string vars, cond = "true";
  for (std::size_t d = 0; d < s.indices.size(); ++d) {
    vars += (d ? ", x" : "x") + std::to_string(d);
    long t = d < sizes.size() ? sizes[d] : 0;
    if (t > 0) cond += " and x" + std::to_string(d) + " < " + std::to_string(t);
  }
  isl::set box(s.domain.ctx(), "{ " + s.name + "[" + vars + "] : " + cond + " }");
  return s.domain.intersect(box);  // isl aligns the parameters
}

/// The elements of the box hull of `set`; -1 when it has none.
long box_elements(const isl::set &set) {
  isl::fixed_box box = set.simple_fixed_box_hull();
  if (!box.is_valid()) return -1;
  isl::multi_val size = box.size();
  long elements = 1;
  for (unsigned d = 0; d < size.size(); ++d) elements *= size.at(static_cast<int>(d)).get_num_si();
  return elements;
}

}  // namespace

long tile_footprint_bytes(const Scop &scop, const ScopStatement &s, const std::vector<long> &sizes) {
  isl::set tile = tile_of(s, sizes);
  std::map<std::string, isl::map> per_array;
  auto add = [&](const ScopAccess &a) {
    isl::map m = a.relation.intersect_domain(tile);
    auto it = per_array.find(a.array);
    if (it == per_array.end()) per_array.emplace(a.array, m);
    else it->second = it->second.unite(m);
  };
  add(s.write);
  for (const ScopAccess &r : s.reads) add(r);
  long total = 0;
  for (auto &[name, m] : per_array) {
    if (m.is_empty()) continue;
    // The elements of the whole tile (a map's box would be per domain point).
    isl::set range = m.range();
    long elements = box_elements(range);
    if (elements < 0) return -1;
    const ScopArray *arr = scop.array(name);
    // Or fewer: the span of the last two dimensions as one row (a tile of a
    // coalesced plane, coalesce_dims: 64 pixels of 56-wide rows touch two
    // rows' boxes, 112 elements, but 64 of the flattened row).
    if (arr && arr->array.shape.size() >= 2 && !arr->array.shape.back().is_symbolic()) {
      const std::size_t rank = arr->array.shape.size();
      std::string in, out;
      for (std::size_t d = 0; d < rank; ++d) {
        in += (d ? ", " : "") + std::string("a") + std::to_string(d);
        if (d + 2 < rank) out += "a" + std::to_string(d) + ", ";
      }
      out += std::to_string(arr->array.shape.back().value) + "a" + std::to_string(rank - 2) + " + a" + std::to_string(rank - 1);
      isl::map flatten(range.ctx(), "{ " + name + "[" + in + "] -> " + name + "_flat[" + out + "] }");
      long flat = box_elements(range.apply(flatten));
      if (flat > 0 && flat < elements) elements = flat;
    }
    total += elements * static_cast<long>(arr ? dtype_size(arr->array.dtype) : 4);
  }
  return total;
}

}  // namespace atl::poly
