// Reorders the members of a permutable band by rebuilding its partial
// schedule from the members in the new order.
#include "polyhedral/transforms/permute_band.h"

#include "polyhedral/transforms/tile_bands.h"

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

  isl::multi_union_pw_aff old = band.partial_schedule();
  BandSpec spec{isl::multi_union_pw_aff(old.at(permutation[0])), true, {}};
  for (int m = 0; m < n; ++m) {
    int from = permutation[static_cast<std::size_t>(m)];
    if (m > 0) spec.schedule = spec.schedule.flat_range_product(isl::multi_union_pw_aff(old.at(from)));
    spec.coincident.push_back(band.member_get_coincident(from));
  }
  return replace_band(schedule, position, {spec});
}

}  // namespace atl::poly
