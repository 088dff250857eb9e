// Tile footprints from access relations: isl's simple_fixed_box_hull of each array's accessed elements.
#include "polyhedral/transforms/footprint.h"

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
    isl::fixed_box box = m.range().simple_fixed_box_hull();
    if (!box.is_valid()) return -1;
    isl::multi_val size = box.size();
    long elements = 1;
    for (unsigned d = 0; d < size.size(); ++d) elements *= size.at(static_cast<int>(d)).get_num_si();
    const ScopArray *arr = scop.array(name);
    total += elements * static_cast<long>(arr ? dtype_size(arr->array.dtype) : 4);
  }
  return total;
}

}  // namespace atl::poly
