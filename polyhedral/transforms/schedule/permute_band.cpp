// Reorders the members of a permutable band by rebuilding its partial
// schedule from the members in the new order; flags, AST loop types and the
// isolate option's member dimensions follow their members.
#include "polyhedral/transforms/schedule/permute_band.h"

#include "polyhedral/transforms/schedule/tile_bands.h"

#include <atoll/diagnostics.h>

#include <string>

namespace atl::poly {

isl::schedule permute_band(isl::schedule schedule, int position, const std::vector<int> &permutation) {
  Location where;
  where.hint = "permute";
  std::vector<isl::schedule_node_band> bands = collect_bands(schedule);
  if (position < 0 || position >= static_cast<int>(bands.size()))
    throw UserError("no band at position " + std::to_string(position) + " (the schedule has " +
                        std::to_string(bands.size()) + " bands)",
                    where);
  const isl::schedule_node_band &band = bands[static_cast<std::size_t>(position)];
  int n = static_cast<int>(band.n_member());
  std::vector<bool> seen(static_cast<std::size_t>(n), false);
  bool valid = static_cast<int>(permutation.size()) == n;
  for (int p : permutation) {
    if (p < 0 || p >= n || seen[static_cast<std::size_t>(p)]) {
      valid = false;
      break;
    }
    seen[static_cast<std::size_t>(p)] = true;
  }
  if (!valid)
    throw UserError("not a permutation of the " + std::to_string(n) + " members of band " + std::to_string(position),
                    where);
  bool identity = true;
  for (int m = 0; m < n; ++m) identity &= permutation[static_cast<std::size_t>(m)] == m;
  if (identity) return schedule;
  if (!band.permutable())
    throw UserError("band " + std::to_string(position) + " is not permutable: reordering its members could be illegal",
                    where);

  // Members, their flags, loop types and isolate dimensions move together.
  BandSpec old = band_spec(band), spec = old;
  std::vector<std::string> members;
  for (int m = 0; m < n; ++m) {
    auto from = static_cast<std::size_t>(permutation[static_cast<std::size_t>(m)]);
    auto to = static_cast<std::size_t>(m);
    isl::multi_union_pw_aff member(old.schedule.at(static_cast<int>(from)));
    spec.schedule = m == 0 ? member : spec.schedule.flat_range_product(member);
    spec.coincident[to] = old.coincident[from];
    spec.loop_types[to] = old.loop_types[from];
    spec.isolate_loop_types[to] = old.isolate_loop_types[from];
    members.push_back("b" + std::to_string(from));
  }
  if (old.isolate) {
    std::vector<std::string> outer;
    for (unsigned k = 0; k < old.isolate->unwrap().domain_tuple_dim(); ++k) outer.push_back("o" + std::to_string(k));
    spec.isolate = move_isolate(*old.isolate, outer, members);
  }
  return replace_band(schedule, position, {spec});
}

}  // namespace atl::poly
