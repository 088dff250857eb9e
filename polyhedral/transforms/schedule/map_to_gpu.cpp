// Outermost bands -> block and thread marks over one-member tile and point
// bands (see map_to_gpu.h).
#include "polyhedral/transforms/schedule/map_to_gpu.h"

#include "polyhedral/ast/gpu_launches.h"
#include "polyhedral/transforms/schedule/tile_bands.h"

#include <atoll/diagnostics.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/union_map.h>

#include <algorithm>
#include <optional>

namespace atl::poly {

namespace {

bool is_outermost(const isl::schedule_node &band) {
  for (isl::schedule_node n = band; n.has_parent();) {
    n = n.parent();
    if (n.isa<isl::schedule_node_band>()) return false;
  }
  return true;
}

constexpr long kRows = 4;  // rows of a register tile (see map_to_gpu)

long pow2_at_least(long n) {
  long p = 1;
  while (p < n) p *= 2;
  return p;
}

/// floor(f / size) on every piece of f.
isl::union_pw_aff floor_div(const isl::union_pw_aff &f, long size) {
  isl::union_pw_aff out = isl::manage(isl_union_pw_aff_empty(f.space().release()));
  isl::pw_multi_aff_list pieces = f.pw_multi_aff_list();
  for (int k = 0, n = static_cast<int>(pieces.size()); k < n; ++k)
    out = out.union_add(isl::union_pw_aff(pieces.at(k).at(0).scale_down(isl::val(f.ctx(), size)).floor()));
  return out;
}

/// The number of values `f` takes on `domain`, as a function of the parameters.
isl::pw_aff count_values(const isl::union_pw_aff &f, const isl::union_set &domain) {
  isl::pw_multi_aff_list pieces = f.intersect_domain(domain).pw_multi_aff_list();
  isl::set values;
  for (int k = 0, n = static_cast<int>(pieces.size()); k < n; ++k) {
    isl::set v = isl::manage(isl_map_from_pw_aff(pieces.at(k).at(0).release())).range();
    values = values.is_null() ? v : values.unite(v);
  }
  auto one_on = [&](isl::set where) {
    return isl::manage(isl_pw_aff_val_on_domain(where.release(), isl::val(f.ctx(), 1).release()));
  };
  if (values.is_null() || values.is_empty()) return one_on(isl::set::universe(f.space().params()));
  isl::pw_aff lo = isl::manage(isl_set_dim_min(values.copy(), 0));
  isl::pw_aff hi = isl::manage(isl_set_dim_max(values.copy(), 0));
  return hi.sub(lo).add(one_on(hi.domain())).coalesce();
}

isl::multi_union_pw_aff one_member(const isl::union_pw_aff &f) { return isl::multi_union_pw_aff(f); }

BandSpec single(const isl::union_pw_aff &f, bool coincident) {
  BandSpec b;
  b.schedule = one_member(f);
  b.permutable = true;
  b.coincident = {coincident};
  return b;
}

/// Per member of `band`: no dependence joins two instances with the same
/// outer schedule and different values of the member.
std::vector<bool> parallel_members(const isl::schedule_node_band &band, const isl::union_map &deps) {
  isl::union_set domain = isl::manage(isl_schedule_node_get_domain(band.get()));
  isl::union_map prefix = isl::manage(isl_schedule_node_get_prefix_schedule_union_map(band.get()));
  isl::union_map d = deps.intersect_domain(domain).intersect_range(domain);
  d = d.intersect(prefix.apply_range(prefix.reverse()));
  std::vector<bool> out;
  isl::multi_union_pw_aff partial = band.partial_schedule();
  for (int m = 0, n = static_cast<int>(partial.size()); m < n; ++m) {
    isl::union_map f = isl::union_map::from(isl::multi_union_pw_aff(partial.at(m))).intersect_domain(domain);
    out.push_back(d.is_subset(f.apply_range(f.reverse())));
  }
  return out;
}

/// How many statements of `band` write consecutive elements (the last
/// subscript +1, the others equal) when band member `member` grows by one
/// and the other members stay.
int stride_one_writes(const isl::schedule_node_band &band, const isl::union_map &writes, int member) {
  isl::union_set domain = isl::manage(isl_schedule_node_get_domain(band.get()));
  isl::multi_union_pw_aff partial = band.partial_schedule();
  const int n = static_cast<int>(partial.size());
  isl::union_map f = isl::union_map::from(partial).intersect_domain(domain);
  std::string in, out;
  for (int k = 0; k < n; ++k) {
    in += (k ? ", b" : "b") + std::to_string(k);
    out += (k ? ", b" : "b") + std::to_string(k) + (k == member ? " + 1" : "");
  }
  isl::union_map shift(isl::map(band.ctx(), "{ [" + in + "] -> [" + out + "] }"));
  isl::union_map next = f.apply_range(shift).apply_range(f.reverse());
  isl::union_map w = writes.intersect_domain(domain);
  isl::union_map steps = w.reverse().apply_range(next).apply_range(w);
  int count = 0;
  isl::set_list deltas = steps.deltas().set_list();
  for (int i = 0, e = static_cast<int>(deltas.size()); i < e; ++i) {
    isl::set d = deltas.at(i);
    const int dims = static_cast<int>(d.tuple_dim());
    if (dims == 0 || d.is_empty()) continue;
    bool unit = true;
    for (int k = 0; k < dims && unit; ++k) {
      isl::val lo = d.dim_min_val(k), hi = d.dim_max_val(k);
      unit = lo.is_int() && hi.is_int() && lo.eq(hi) && lo.get_num_si() == (k == dims - 1 ? 1 : 0);
    }
    count += unit;
  }
  return count;
}

Location hint_location() {
  Location l;
  l.hint = "tile";
  return l;
}

}  // namespace

GpuMapResult map_to_gpu(const isl::schedule &schedule, const isl::union_map &deps, const GpuTarget &target,
                        const std::vector<long> &threads_hint, const isl::union_map &writes) {
  GpuMapResult r;
  r.schedule = schedule;
  std::vector<isl::schedule_node_band> bands = collect_bands(schedule);
  std::vector<int> outer;
  for (int p = 0; p < static_cast<int>(bands.size()); ++p)
    if (is_outermost(bands[static_cast<std::size_t>(p)])) outer.push_back(p);
  // Later positions first: replacing a band shifts the positions after it.
  std::vector<GpuMapping> mapped;
  for (auto it = outer.rbegin(); it != outer.rend(); ++it) {
    const int kernel = static_cast<int>(outer.rend() - it) - 1;
    isl::schedule_node_band band = collect_bands(r.schedule)[static_cast<std::size_t>(*it)];
    BandSpec spec = band_spec(band);
    const int n = static_cast<int>(spec.coincident.size());
    spec.coincident = parallel_members(band, deps);
    // Members in their new order: coincident ones first where the band is
    // permutable (any order of a permutable band's members is legal), else
    // the leading coincident members only.
    std::vector<int> order;
    int coincident = 0;
    // A member no dependence crosses can move anywhere in its band.
    {
      for (int m = 0; m < n; ++m)
        if (spec.coincident[static_cast<std::size_t>(m)]) order.push_back(m);
      coincident = static_cast<int>(order.size());
      for (int m = 0; m < n; ++m)
        if (!spec.coincident[static_cast<std::size_t>(m)]) order.push_back(m);
    }
    if (coincident == 0 || spec.isolate) {
      ++r.unmapped;
      continue;
    }
    // x: the parallel member with the most stride-1 writes, moved last among
    // the parallel ones (they may take any order).
    if (!writes.is_null() && coincident > 1) {
      int best = coincident - 1, best_count = 0;
      for (int k = 0; k < coincident; ++k) {
        int c = stride_one_writes(band, writes, order[static_cast<std::size_t>(k)]);
        if (c > best_count || (c == best_count && k > best)) best = k, best_count = c;
      }
      if (best_count > 0 && best != coincident - 1) {
        const int m = order[static_cast<std::size_t>(best)];
        order.erase(order.begin() + best);
        order.insert(order.begin() + (coincident - 1), m);
      }
    }
    const int nmapped = std::min(coincident, 3), first = coincident - nmapped;
    GpuMapping g;
    g.kernel = kernel;
    // Block sizes from the innermost member out: x takes what its extent
    // allows of the block's threads, then y, then z.
    long threads = target.block_threads;
    isl::union_set domain = isl::manage(isl_schedule_node_get_domain(band.get()));
    std::vector<BandSpec> out;
    if (first > 0) {
      BandSpec serial;
      std::vector<isl::union_pw_aff> members;
      for (int k = 0; k < first; ++k) members.push_back(spec.schedule.at(order[static_cast<std::size_t>(k)]));
      isl::multi_union_pw_aff m(members.front());
      for (std::size_t k = 1; k < members.size(); ++k) m = m.flat_range_product(isl::multi_union_pw_aff(members[k]));
      serial.schedule = m;
      serial.permutable = true;
      serial.coincident.assign(static_cast<std::size_t>(first), true);
      out.push_back(serial);
    }
    std::vector<BandSpec> tiles, points;
    std::vector<std::string> tile_marks, point_marks;
    std::array<long, 3> size = {1, 1, 1};
    for (int k = coincident - 1, dim = 0; k >= first; --k, ++dim) {
      long extent = member_extent(band, order[static_cast<std::size_t>(k)]);
      g.extent[static_cast<std::size_t>(dim)] = extent;
      long want = extent < 0 ? threads : pow2_at_least(std::max<long>(extent, 1));
      long cap = dim == 2 ? std::min<long>(threads, target.max_block_z) : threads;
      size[static_cast<std::size_t>(dim)] = std::max<long>(1, std::min(want, cap));
      const int member = order[static_cast<std::size_t>(k)];
      if (!threads_hint.empty()) {
        const long h = threads_hint[std::min<std::size_t>(static_cast<std::size_t>(member), threads_hint.size() - 1)];
        if (h < 0) throw UserError("tile sizes must be >= 0", hint_location());
        if (h > 0) size[static_cast<std::size_t>(dim)] = h;
      }
      threads = std::max<long>(1, threads / size[static_cast<std::size_t>(dim)]);
    }
    if (size[0] * size[1] * size[2] > target.max_threads_per_block || size[2] > target.max_block_z)
      throw UserError("tile: a block of " + std::to_string(size[0]) + " x " + std::to_string(size[1]) + " x " +
                          std::to_string(size[2]) + " threads exceeds the target's " +
                          std::to_string(target.max_threads_per_block) + " threads per block (z at most " +
                          std::to_string(target.max_block_z) + ")",
                      hint_location());
    // A register tile: where a non-parallel member (a reduction) runs inside
    // each thread and two dimensions are mapped, a thread takes kRows rows of
    // y, their loop innermost (inside the reduction) and unrolled, so that
    // each value the rows share is loaded once a reduction step.
    const bool rows = nmapped >= 2 && coincident < n &&
                      (g.extent[1] < 0 || g.extent[1] >= kRows * size[1]);
    std::optional<isl::union_pw_aff> row_member;
    for (int k = first; k < coincident; ++k) {
      const int dim = coincident - 1 - k;
      const long t = size[static_cast<std::size_t>(dim)];
      const long per_thread = rows && dim == 1 ? kRows : 1;
      isl::union_pw_aff f = spec.schedule.at(order[static_cast<std::size_t>(k)]);
      isl::union_pw_aff tile = floor_div(f, t * per_thread);
      g.block[static_cast<std::size_t>(dim)] = static_cast<int>(t);
      g.grid[static_cast<std::size_t>(dim)] = count_values(tile, domain);
      tiles.push_back(single(tile, true));
      points.push_back(single(per_thread > 1 ? floor_div(f, per_thread) : f, true));
      if (per_thread > 1) {
        row_member = f;
        g.rows_per_thread = static_cast<int>(per_thread);
      }
      tile_marks.push_back(gpu_mark_name({false, dim, kernel}));
      point_marks.push_back(gpu_mark_name({true, dim, kernel}));
    }
    for (const BandSpec &b : tiles) out.push_back(b);
    for (const BandSpec &b : points) out.push_back(b);
    if (coincident < n) {
      BandSpec rest;
      std::vector<isl::union_pw_aff> members;
      for (int k = coincident; k < n; ++k) {
        members.push_back(spec.schedule.at(order[static_cast<std::size_t>(k)]));
        rest.coincident.push_back(spec.coincident[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])]);
      }
      isl::multi_union_pw_aff m(members.front());
      for (std::size_t k = 1; k < members.size(); ++k) m = m.flat_range_product(isl::multi_union_pw_aff(members[k]));
      rest.schedule = m;
      rest.permutable = spec.permutable;
      out.push_back(rest);
    }
    if (row_member) out.push_back(single(*row_member, true));
    try {
      isl::schedule replaced = replace_band(r.schedule, *it, out);
      // Marks above the tile and point bands (positions *it + (first > 0) ...).
      const int base = *it + (first > 0 ? 1 : 0);
      std::vector<std::string> marks = tile_marks;
      marks.insert(marks.end(), point_marks.begin(), point_marks.end());
      for (std::size_t k = 0; k < marks.size(); ++k) {
        isl::schedule_node node = collect_bands(replaced)[static_cast<std::size_t>(base) + k];
        // isl_id_alloc, not isl::id(ctx, text), which would parse the name.
        isl::id id = isl::manage(isl_id_alloc(replaced.ctx().get(), marks[k].c_str(), nullptr));
        replaced = node.insert_mark(id).schedule();
      }
      if (row_member) {  // the register tile's rows: the band after the reduction's
        isl::schedule_node node = collect_bands(replaced)[static_cast<std::size_t>(base) + marks.size() + 1];
        replaced = node.insert_mark(isl::manage(isl_id_alloc(replaced.ctx().get(), "unroll", nullptr))).schedule();
      }
      r.schedule = replaced;
      mapped.push_back(g);
    } catch (const UserError &) {
      ++r.unmapped;  // an anchored subtree (an isolate option below): left as it is
    }
  }
  r.kernels.assign(mapped.rbegin(), mapped.rend());
  return r;
}

}  // namespace atl::poly
