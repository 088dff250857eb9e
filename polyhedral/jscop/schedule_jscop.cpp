// Schedules a JSCoP: memory-based dependences, one of Atoll's schedulers,
// then per permutable band of two members or more a tile size from its
// footprint, the outer tile loop parallel where a member allows it and the
// innermost point loop the one with the most stride-1 accesses (marks cannot
// travel through JSCoP, so LLVM's vectorizer must find it there). The tree
// is flattened to one map per statement, padded to one number of outputs,
// and checked against the dependences before it is returned; each step
// that would break legality is undone, down to the original schedule.
#include "polyhedral/jscop/jscop.h"

#include "polyhedral/isl/isl_context.h"
#include "polyhedral/jscop/jscop_scop.h"
#include "polyhedral/schedule/schedule.h"
#include "polyhedral/schedule/schedule_pluto.h"
#include "polyhedral/target/cpu_target.h"
#include "polyhedral/transforms/schedule/permute_band.h"
#include "polyhedral/transforms/schedule/tile_bands.h"

#include <algorithm>
#include <chrono>
#include <optional>

namespace atl::poly {

namespace {

using jscop::Parsed;

/// "[x0, ..., xn-1]"
std::string tuple_of(int n, const char *prefix) {
  std::string t = "[";
  for (int i = 0; i < n; ++i) t += (i ? ", " : "") + std::string(prefix) + std::to_string(i);
  return t + "]";
}

/// The instances of `band` mapped to its own members, or, `with_prefix`, to
/// the outer band members followed by its own (one flat tuple).
isl::union_map band_schedule(const Parsed &parsed, const isl::schedule_node_band &band, bool with_prefix) {
  isl::union_map prefix = band.get_prefix_schedule_union_map();
  isl::union_set instances = prefix.domain();
  isl::union_map partial = isl::union_map::from(band.get_partial_schedule()).intersect_domain(instances);
  if (!with_prefix) return partial;
  isl::union_map out(band.ctx(), "{ }");
  for (const isl::set &d : parsed.domains) {
    isl::union_map p = prefix.intersect_domain(isl::union_set(d));
    if (p.is_empty()) continue;
    isl::map m = p.as_map().range_product(partial.intersect_domain(isl::union_set(d)).as_map()).flatten_range();
    out = out.unite(isl::union_map(m));
  }
  return out;
}

/// The bytes one tile of `size` touches, estimated by the bounding box of
/// each array's accessed elements for the tile in the middle of the band's
/// range, with every loop outside the band fixed at its first iteration.
/// Nothing when the tile is not bounded by constants (symbolic sizes).
std::optional<long> tile_footprint(const Parsed &parsed, const isl::schedule_node_band &band,
                                   const std::vector<long> &sizes) {
  try {
    isl::union_map full = band_schedule(parsed, band, true);
    isl::set range = full.range().as_set();
    if (!param_names(range.space()).empty()) return std::nullopt;
    const int total = static_cast<int>(range.tuple_dim());
    const int members = static_cast<int>(band.n_member());
    const int outer = total - members;
    isl::set first = range.lexmin();
    std::string box = "{ " + tuple_of(total, "x") + " : ";
    for (int d = 0; d < total; ++d) {
      // Outer loops at their first iteration; the band's tile in the middle
      // of its range (a corner tile of a triangle or a skewed band is partial).
      isl::val lo = d < outer ? first.dim_min_val(d) : range.dim_min_val(d);
      isl::val hi = d < outer ? lo : range.dim_max_val(d);
      if (!lo.is_int() || !hi.is_int()) return std::nullopt;
      const long size = d < outer ? 1 : sizes[static_cast<std::size_t>(d - outer)];
      if (size <= 0) {  // the member's whole range
        box += (d ? " and " : "") + std::string("1 = 1");
        continue;
      }
      long start = d < outer ? lo.get_num_si()
                             : std::max(lo.get_num_si(), (lo.get_num_si() + hi.get_num_si()) / 2 - size / 2);
      const std::string x = "x" + std::to_string(d), v = std::to_string(start);
      box += (d ? " and " : "") + (d < outer ? x + " = " + v : v + " <= " + x + " < " + v + " + " + std::to_string(size));
    }
    if (total == 0) box += "1 = 1";
    isl::union_set tile = full.intersect_range(isl::union_set(isl::set(range.ctx(), box + " }"))).domain();
    // Per array, the bounding box of each access; boxes that overlap merge
    // (a stencil's neighbours), distant ones count apart (a row and a
    // column of one matrix).
    struct Box {
      std::vector<long> lo, hi;
      bool overlaps(const Box &o) const {
        for (std::size_t d = 0; d < lo.size(); ++d)
          if (hi[d] < o.lo[d] || o.hi[d] < lo[d]) return false;
        return true;
      }
      void merge(const Box &o) {
        for (std::size_t d = 0; d < lo.size(); ++d) lo[d] = std::min(lo[d], o.lo[d]), hi[d] = std::max(hi[d], o.hi[d]);
      }
    };
    std::map<std::string, std::vector<Box>> boxes;
    for (const auto &list : parsed.accesses)
      for (const jscop::Access &a : list) {
        isl::union_set elems = isl::union_map(a.relation).intersect_domain(tile).range();
        if (elems.is_empty()) continue;
        isl::set e = elems.as_set();
        Box box;
        for (int d = 0, n = static_cast<int>(e.tuple_dim()); d < n; ++d) {
          isl::val lo = e.dim_min_val(d), hi = e.dim_max_val(d);
          if (!lo.is_int() || !hi.is_int()) return std::nullopt;
          box.lo.push_back(lo.get_num_si());
          box.hi.push_back(hi.get_num_si());
        }
        std::vector<Box> &list_of = boxes[a.array];
        list_of.push_back(box);
        // Merge until no two boxes overlap.
        for (bool merged = true; merged;) {
          merged = false;
          for (std::size_t i = 0; i < list_of.size() && !merged; ++i)
            for (std::size_t j = i + 1; j < list_of.size() && !merged; ++j)
              if (list_of[i].overlaps(list_of[j])) {
                list_of[i].merge(list_of[j]);
                list_of.erase(list_of.begin() + static_cast<long>(j));
                merged = true;
              }
        }
      }
    long bytes = 0;
    for (const auto &[array, list] : boxes)
      for (const Box &b : list) {
        long count = 1;
        for (std::size_t d = 0; d < b.lo.size(); ++d) count *= b.hi[d] - b.lo[d] + 1;
        bytes += count * parsed.bytes_of(array);
      }
    return bytes;
  } catch (const isl::exception &) {
    return std::nullopt;
  }
}

/// How well band member `member` suits the innermost loop: per access of the
/// band's statements, the step of the accessed element when the member grows
/// by one and the others stay: +2 for the next element of the last array
/// dimension (a vector load), +1 for the same element of a read (kept in a
/// register), -2 for the same element of a write (a reduction: no vector
/// code without reassociation), -3 for any other step. Statements the band
/// does not determine (its schedule is not injective on them) do not count.
long stride_score(const Parsed &parsed, const isl::schedule_node_band &band, int member, int *invariant = nullptr) {
  const int members = static_cast<int>(band.n_member());
  std::string shift = "{ " + tuple_of(members, "b") + " -> [";
  for (int m = 0; m < members; ++m)
    shift += (m ? ", b" : "b") + std::to_string(m) + (m == member ? " + 1" : "");
  isl::map step(band.ctx(), shift + "] }");
  isl::union_map partial = band_schedule(parsed, band, false);
  long score = 0;
  for (std::size_t s = 0; s < parsed.domains.size(); ++s) {
    isl::union_map mine = partial.intersect_domain(isl::union_set(parsed.domains[s]));
    if (mine.is_empty()) continue;
    isl::map sched = mine.as_map();
    if (!sched.is_injective()) continue;
    isl::map inverse = sched.reverse();
    for (const jscop::Access &a : parsed.accesses[s]) {
      isl::map by_time = inverse.apply_range(a.relation);  // [b] -> A[x]
      isl::map next = by_time.reverse().apply_range(step).apply_range(by_time);  // A[x] -> A[y]
      if (next.is_empty()) continue;
      isl::set delta = next.deltas();
      const int n = static_cast<int>(delta.tuple_dim());
      // In the array's own space (deltas keep the tuple name).
      std::string zero = "{ " + tuple_name(delta) + tuple_of(n, "d") + " : ", unit = zero;
      for (int d = 0; d < n; ++d) {
        zero += (d ? " and d" : "d") + std::to_string(d) + " = 0";
        unit += (d ? " and d" : "d") + std::to_string(d) + (d == n - 1 ? " = 1" : " = 0");
      }
      if (n == 0) zero += "1 = 1", unit += "1 = 0";
      isl::set zeros(band.ctx(), zero + " }"), units(band.ctx(), unit + " }");
      if (n > 0 && delta.is_subset(units)) score += 2;
      else if (delta.is_subset(zeros)) {
        score += a.write ? -2 : 1;
        if (invariant) ++*invariant;
      } else score -= 3;
    }
  }
  return score;
}

/// The tile size of `band`: the largest candidate whose tile footprint fits
/// `budget` bytes; 32 when the footprint cannot be bounded.
long choose_tile_size(const Parsed &parsed, const isl::schedule_node_band &band, long budget, long &footprint) {
  static const long candidates[] = {256, 128, 96, 64, 48, 32, 24, 16, 8, 4};
  footprint = -1;
  for (long size : candidates) {
    std::optional<long> bytes =
        tile_footprint(parsed, band, std::vector<long>(static_cast<std::size_t>(band.n_member()), size));
    if (!bytes) return 32;
    if (*bytes <= budget) {
      footprint = *bytes;
      return size;
    }
  }
  return 4;
}

/// The unroll-and-jam factor: strips of this many iterations of a member go
/// inside the vector loop, where LLVM unrolls them fully.
constexpr long kJam = 4;

/// Whether member `member` of `band` can be strip-mined by kJam into strips
/// that are always full (a constant trip count that LLVM unrolls): every
/// statement's band range is a box, aligned on kJam in that member, and the
/// tile size (0: untiled) is a multiple of kJam.
bool jammable(const Parsed &parsed, const isl::schedule_node_band &band, int member, long tile) {
  if (tile % kJam != 0) return false;
  isl::union_map partial = band_schedule(parsed, band, false);
  const int n = static_cast<int>(band.n_member());
  for (const isl::set &d : parsed.domains) {
    isl::union_map mine = partial.intersect_domain(isl::union_set(d));
    if (mine.is_empty()) continue;
    isl::set range = mine.range().as_set();
    if (!param_names(range.space()).empty()) return false;
    std::string box = "{ " + tuple_of(n, "b") + " : ";
    for (int k = 0; k < n; ++k) {
      isl::val lo = range.dim_min_val(k), hi = range.dim_max_val(k);
      if (!lo.is_int() || !hi.is_int()) return false;
      // A statement at one value of the member (an initialisation before a
      // reduction loop) runs once a strip: nothing to unroll there.
      if (k == member && lo.get_num_si() != hi.get_num_si() &&
          (lo.get_num_si() % kJam != 0 || (hi.get_num_si() + 1) % kJam != 0))
        return false;
      box += (k ? " and " : "") + std::to_string(lo.get_num_si()) + " <= b" + std::to_string(k) + " <= " +
             std::to_string(hi.get_num_si());
    }
    if (n == 0 || !range.is_equal(isl::set(band.ctx(), box + " }"))) return false;
  }
  return true;
}

/// One step of the pipeline as a rung that can be undone.
struct Candidate {
  isl::schedule schedule;
  std::vector<JscopTiledBand> tiled;
};

/// Tiles every permutable band of two members or more (innermost bands
/// first, so that positions of the bands still to visit do not move).
Candidate tile_and_order(const Parsed &parsed, isl::schedule schedule, const JscopOptions &options, long budget) {
  Candidate c;
  std::vector<isl::schedule_node_band> bands = collect_bands(schedule);
  for (int p = static_cast<int>(bands.size()) - 1; p >= 0; --p) {
    isl::schedule_node_band band = collect_bands(schedule)[static_cast<std::size_t>(p)];
    const int n = static_cast<int>(band.n_member());
    if (n < 2 || !band.permutable()) continue;
    JscopTiledBand record;
    if (options.tile == JscopOptions::Tile::Sizes) {
      for (int m = 0; m < n; ++m) {
        std::size_t k = std::min(static_cast<std::size_t>(m), options.tile_sizes.size() - 1);
        record.sizes.push_back(options.tile_sizes[k]);
      }
    } else {
      // Tiles pay only when one iteration of the band's outer loop touches
      // more than the budget: otherwise the data reused across its
      // iterations stays in cache untiled (Floyd-Warshall's rows).
      std::vector<long> slice(static_cast<std::size_t>(n), 0);
      slice[0] = 1;
      std::optional<long> one = tile_footprint(parsed, band, slice);
      if (one && *one <= budget) record.sizes.assign(static_cast<std::size_t>(n), 0);
      else {
        long size = choose_tile_size(parsed, band, budget, record.footprint_bytes);
        record.sizes.assign(static_cast<std::size_t>(n), size);
      }
    }
    // The point loops: the best stride-1 member innermost (ties keep the order).
    std::vector<int> point(static_cast<std::size_t>(n));
    for (int m = 0; m < n; ++m) point[static_cast<std::size_t>(m)] = m;
    std::vector<int> jam;  // members strip-mined by kJam inside the vector loop
    {
      std::vector<int> invariant(static_cast<std::size_t>(n), 0);
      std::vector<long> score(static_cast<std::size_t>(n), 0);
      for (int m = 0; m < n; ++m) {
        const auto k = static_cast<std::size_t>(m);
        score[k] = stride_score(parsed, band, m, &invariant[k]);
      }
      int best = n - 1;
      for (int m = n - 2; m >= 0; --m)
        if (score[static_cast<std::size_t>(m)] > score[static_cast<std::size_t>(best)]) best = m;
      if (best != n - 1) {
        point.erase(point.begin() + best);
        point.push_back(best);
        record.innermost = best;
      }
      // Unroll and jam: up to two members along which some access stays on
      // one element (its loads, or its accumulator, shared by the unrolled
      // copies), the most such accesses first, when the vector member has a
      // stride-1 access.
      if (score[static_cast<std::size_t>(best)] > 0 && n >= 2) {
        std::vector<int> order;
        for (int m = 0; m < n; ++m)
          if (m != best && invariant[static_cast<std::size_t>(m)] > 0) order.push_back(m);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
          return invariant[static_cast<std::size_t>(a)] > invariant[static_cast<std::size_t>(b)];
        });
        for (int m : order)
          if (jam.size() < 2 && jammable(parsed, band, m, record.sizes[static_cast<std::size_t>(m)])) jam.push_back(m);
        std::sort(jam.begin(), jam.end());
      }
    }
    std::vector<int> untiled_order;
    const std::size_t before = collect_bands(schedule).size();
    schedule = tile_band_at(schedule, p, record.sizes);
    const bool split = collect_bands(schedule).size() == before + 1;
    if (!split) {
      // Untiled: one band; the stride-1 member innermost and, when the
      // first is not, a coincident member outermost.
      std::vector<int> &order = untiled_order;
      order = point;
      if (!band.member_get_coincident(order[0]))
        for (int k = 1; k + 1 < n; ++k)
          if (band.member_get_coincident(order[static_cast<std::size_t>(k)])) {
            std::rotate(order.begin(), order.begin() + k, order.begin() + k + 1);
            break;
          }
      bool identity = true;
      for (int m = 0; m < n; ++m) identity &= order[static_cast<std::size_t>(m)] == m;
      if (!identity) schedule = permute_band(schedule, p, order);
    } else {
      // A coincident tile loop outermost (a parallel loop for -polly-parallel).
      isl::schedule_node_band tiles = collect_bands(schedule)[static_cast<std::size_t>(p)];
      const int t = static_cast<int>(tiles.n_member());
      if (t > 1 && !tiles.member_get_coincident(0)) {
        for (int m = 1; m < t; ++m)
          if (tiles.member_get_coincident(m)) {
            std::vector<int> order{m};
            for (int k = 0; k < t; ++k)
              if (k != m) order.push_back(k);
            schedule = permute_band(schedule, p, order);
            break;
          }
      }
      if (record.innermost >= 0) schedule = permute_band(schedule, p + 1, point);
    }
    if (!jam.empty()) {
      // The point band's members are in `order_now`; strips of the jammed
      // members go outside, their kJam iterations after the vector member.
      const int pp = split ? p + 1 : p;
      const std::vector<int> &order_now = split ? point : untiled_order;
      std::vector<long> strips(static_cast<std::size_t>(n), 0);
      std::vector<int> rest, jammed;
      for (int k = 0; k < n; ++k) {
        const int m = order_now[static_cast<std::size_t>(k)];
        if (std::find(jam.begin(), jam.end(), m) != jam.end()) {
          strips[static_cast<std::size_t>(k)] = kJam;
          jammed.push_back(k);
        } else if (k != n - 1) rest.push_back(k);
      }
      schedule = tile_band_at(schedule, pp, strips);
      std::vector<int> inner = rest;
      inner.push_back(n - 1);
      inner.insert(inner.end(), jammed.begin(), jammed.end());
      schedule = permute_band(schedule, pp + 1, inner);
      record.jammed = jam;
    }
    c.tiled.insert(c.tiled.begin(), record);
  }
  c.schedule = schedule;
  return c;
}

/// The tree's flat schedule per statement, padded to one number of outputs,
/// as text: an affine function simplified in the context of the statement's
/// domain ("{ S[i0, i1] -> [(32*floor((i0)/32)), ...] }"), as Polly writes its
/// own schedules, not a relation that repeats the domain's constraints
/// (which Polly's dependence analysis may not survive). `maps` gets the text
/// read back and restricted to the domain: what the legality check sees.
std::vector<std::string> flatten(const Parsed &parsed, const isl::schedule &schedule, int &dimensions,
                                 std::vector<isl::map> &maps) {
  isl::union_map all = schedule.get_map();
  maps.clear();
  dimensions = 0;
  for (const isl::set &d : parsed.domains) {
    maps.push_back(all.intersect_domain(isl::union_set(d)).as_map());
    dimensions = std::max(dimensions, static_cast<int>(maps.back().range_tuple_dim()));
  }
  std::vector<std::string> texts;
  for (std::size_t s = 0; s < maps.size(); ++s) {
    // Without the domain's constraints first: converting a relation that
    // repeats a domain full of modulo conditions costs isl too much.
    isl::map m = jscop::pad(maps[s], dimensions).gist_domain(parsed.domains[s]);
    std::string text;
    try {
      text = isl_text(m.as_pw_multi_aff().gist(parsed.domains[s]));
    } catch (const isl::exception_invalid &) {
      text = isl_text(m);  // not a function: the relation itself
    }
    maps[s] = isl::map(m.ctx(), text).intersect_domain(parsed.domains[s]);
    texts.push_back(text);
  }
  return texts;
}

/// A band member of `schedule` that depends on two iterators or more of a
/// statement (a skew, as in time tiling), described; "" when there is none.
/// Member f depends on iterator d of S when f(x + e_d) - f(x) is not
/// always 0.
std::string skewed_member(const Parsed &parsed, const isl::schedule &schedule) {
  std::vector<isl::schedule_node_band> bands = collect_bands(schedule);
  for (std::size_t b = 0; b < bands.size(); ++b) {
    isl::multi_union_pw_aff partial = bands[b].get_partial_schedule();
    for (int m = 0, n = static_cast<int>(bands[b].n_member()); m < n; ++m) {
      isl::union_map f = isl::union_map::from(isl::multi_union_pw_aff(partial.at(m)));
      for (const isl::set &domain : parsed.domains) {
        isl::union_map mine = f.intersect_domain(isl::union_set(domain));
        if (mine.is_empty()) continue;
        isl::map fs = mine.as_map();
        const int dims = static_cast<int>(domain.tuple_dim());
        int uses = 0;
        for (int d = 0; d < dims; ++d) {
          std::string shift = "{ " + tuple_name(domain) + tuple_of(dims, "x") + " -> " + tuple_name(domain) + "[";
          for (int k = 0; k < dims; ++k) shift += (k ? ", x" : "x") + std::to_string(k) + (k == d ? " + 1" : "");
          isl::map step(domain.ctx(), shift + "] }");
          isl::set delta = step.apply_domain(fs).apply_range(fs).deltas();
          if (!delta.is_empty() && !delta.is_subset(isl::set(domain.ctx(), "{ [0] }"))) ++uses;
        }
        if (uses >= 2)
          return "band " + std::to_string(b) + " member " + std::to_string(m) + " of " + tuple_name(domain) +
                 " combines " + std::to_string(uses) + " loops";
      }
    }
  }
  return "";
}

/// { x -> y : schedule(x) lexicographically before schedule(y) } of a union
/// of schedules with `dims` outputs each.
isl::union_map lex_order(const isl::union_map &schedule, int dims) {
  isl::union_map lt(schedule.ctx(), "{ " + tuple_of(dims, "t") + " -> " + tuple_of(dims, "u") + " : " +
                                        jscop::lex_greater("u", "t", dims) + " }");
  return schedule.apply_range(lt).apply_range(schedule.reverse());
}

/// True when `maps` order the statement instances as the original schedules
/// do: a new text for the same order (padding, constant dimensions) is no
/// change, and Polly would generate the same code for it.
bool same_order(const Parsed &parsed, const std::vector<isl::map> &maps, int dims) {
  try {
    const int n = std::max(dims, parsed.dimensions);
    isl::union_map now(parsed.context.ctx(), "{ }"), before(parsed.context.ctx(), "{ }");
    for (std::size_t s = 0; s < maps.size(); ++s) {
      now = now.unite(isl::union_map(jscop::pad(maps[s], n)));
      before = before.unite(isl::union_map(jscop::pad(parsed.original[s], n)));
    }
    return lex_order(now, n).is_equal(lex_order(before, n));
  } catch (const isl::exception &) {
    return false;  // out of bounds: assume a change (it is legal either way)
  }
}

ScheduleResult run_scheduler(const Scop &scop, const Dependences &deps, const JscopOptions &options) {
  ScheduleOptions s;
  s.quota = options.quota;
  s.seconds = options.seconds;
  if (options.scheduler == "pluto") return schedule_pluto(scop, deps, s);
  if (options.scheduler == "isl") {
    // isl's ladder (fused, then serialized components) shares the bound.
    s.seconds = options.seconds / 2;
    return schedule_isl(scop, deps, s);
  }
  if (options.scheduler == "feautrier") return schedule_feautrier(scop, deps, s);
  Location where;
  where.hint = "scheduler";
  throw UserError("unknown scheduler '" + options.scheduler + "' (pluto, isl, feautrier, original)", where);
}

}  // namespace

JscopResult schedule_jscop(const Jscop &scop, const JscopOptions &options) {
  auto start = std::chrono::steady_clock::now();
  JscopResult r;
  auto finish = [&](JscopResult &res) -> JscopResult & {
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res;
  };
  auto unchanged = [&](const std::string &algorithm, const std::string &reason) -> JscopResult & {
    r.schedules.clear();
    for (const JscopStatement &s : scop.statements) r.schedules.push_back(s.schedule);
    r.changed = false;
    r.algorithm = algorithm;
    r.reason = reason;
    r.tiled.clear();
    r.tree.clear();
    return finish(r);
  };
  if (options.identity) return unchanged("identity", "--identity: schedules kept as given");
  if (options.tile == JscopOptions::Tile::Sizes && options.tile_sizes.empty())
    throw UserError("tile sizes: none given");
  for (long t : options.tile_sizes)
    if (t < 0) throw UserError("tile size " + std::to_string(t) + " is negative");

  IslContext ctx;
  Parsed parsed = jscop::parse(ctx, scop);
  r.dimensions = parsed.dimensions;
  if (options.scheduler == "original") return unchanged("original", "scheduler original: the input order is kept");
  std::optional<Dependences> found;
  try {
    QuotaGuard bound(ctx, 0, options.seconds);
    found = jscop::memory_dependences(parsed);
  } catch (const isl::exception &) {
    return unchanged("original", "dependence analysis given up (" + time_limit_reason(options.seconds) + ")");
  }
  Dependences deps = *found;
  Scop view = jscop::scheduling_scop(scop, parsed);

  ScheduleResult sr = run_scheduler(view, deps, options);
  if (sr.algorithm == "original" && (options.scheduler == "isl" || options.scheduler == "pluto")) {
    // One scheduler's search failing says little about the other's.
    JscopOptions other = options;
    other.scheduler = options.scheduler == "isl" ? "pluto" : "isl";
    other.seconds = 0.9 * options.seconds;  // both within 2 s at the default bound
    ScheduleResult second = run_scheduler(view, deps, other);
    sr.fallbacks.insert(sr.fallbacks.end(), second.fallbacks.begin(), second.fallbacks.end());
    if (second.algorithm != "original") {
      sr.fallbacks.push_back("scheduler " + options.scheduler + " found no schedule; " + other.scheduler + " did");
      sr.schedule = second.schedule;
      sr.algorithm = second.algorithm;
    }
  }
  r.fallbacks = sr.fallbacks;
  if (sr.algorithm == "original") return unchanged("original", "the scheduler found no schedule");
  isl::schedule base = sr.schedule;
  // Skewed schedules (time tiling of stencils) stay out unless asked for:
  // Polly's code for skewed tiles gives LLVM inner loops it vectorizes
  // worse than the original's, and on samples/loops every skewed schedule
  // (isl's or pluto's) was slower than clang -O3 on some stencil
  // (docs/jscop.md).
  if (!options.allow_skew) {
    std::string skew;
    try {
      QuotaGuard bound(ctx, 0, options.seconds);
      skew = skewed_member(parsed, base);
    } catch (const isl::exception &) {
      skew = "not decided (" + time_limit_reason(options.seconds) + ")";
    }
    if (!skew.empty()) return unchanged("original", "skewed schedule not used: " + skew);
  }
  r.algorithm = sr.algorithm;

  const long budget = options.cache_bytes > 0 ? options.cache_bytes : host_target().l2_bytes / 2;
  // Rungs, most transformed first: tiled, reordered and jammed; then the
  // scheduler's tree as it is.
  std::vector<Candidate> rungs;
  if (options.tile != JscopOptions::Tile::None) {
    try {
      QuotaGuard bound(ctx, 0, options.seconds);
      rungs.push_back(tile_and_order(parsed, base, options, budget));
    } catch (const isl::exception &e) {
      r.fallbacks.push_back(std::string("tiling failed: ") + e.what());
    } catch (const UserError &e) {
      r.fallbacks.push_back(std::string("tiling failed: ") + e.what());
    }
  }
  rungs.push_back(Candidate{base, {}});

  for (std::size_t k = 0; k < rungs.size(); ++k) try {
    QuotaGuard bound(ctx, 0, options.seconds);
    int dims = 0;
    std::vector<isl::map> maps;
    std::vector<std::string> texts = flatten(parsed, rungs[k].schedule, dims, maps);
    // One image of all dependences serves the legality check and the
    // parallelism of the outer loop; the kind violated only for the message.
    isl::union_set delta = jscop::schedule_deltas(maps, deps.all());
    if (!jscop::lex_positive(delta, dims)) {
      // The dependence for the report, named by the scheduler's own check.
      std::optional<Violation> v = check_legality(view, deps, rungs[k].schedule);
      r.fallbacks.push_back((k + 1 < rungs.size() ? "tiled schedule rejected: " : "schedule rejected: ") +
                            (v ? v->message() : std::string("a dependence would run backwards")));
      continue;
    }
    // Real tiles or jammed strips change the order for sure; only an
    // untransformed schedule needs the (costly) comparison of orders.
    bool transformed = false;
    for (const JscopTiledBand &b : rungs[k].tiled)
      transformed |= !b.jammed.empty() || std::any_of(b.sizes.begin(), b.sizes.end(), [](long v) { return v > 0; });
    if (!transformed && same_order(parsed, maps, dims))
      return unchanged(r.algorithm, "the schedule found is the original one");
    r.schedules = texts;
    r.changed = true;
    r.dimensions = dims;
    r.tiled = rungs[k].tiled;
    r.tree = schedule_to_yaml(rungs[k].schedule);
    // Outermost loop parallel: no dependence is carried by dimension 0.
    std::string zero_first = "{ " + tuple_of(dims, "d") + " : " + (dims ? "d0 = 0" : "1 = 1") + " }";
    r.outer_parallel = dims > 0 && delta.is_subset(isl::union_set(ctx.get(), zero_first));
    return finish(r);
  } catch (const isl::exception &) {
    r.fallbacks.push_back(std::string(k + 1 < rungs.size() ? "tiled schedule" : "schedule") +
                          " given up: isl ran out of its bounds (" + time_limit_reason(options.seconds) + ")");
  }
  return unchanged("original", "no legal schedule other than the original");
}

void explain_jscop(std::ostream &os, const Jscop &scop, const JscopOptions &options) {
  {
    IslContext ctx;
    Parsed parsed = jscop::parse(ctx, scop);
    std::optional<Dependences> deps;
    try {
      QuotaGuard bound(ctx, 0, options.seconds);
      deps = jscop::memory_dependences(parsed);
    } catch (const isl::exception &) {
    }
    os << "# JSCoP " << scop.name << ": " << scop.statements.size() << " statements, context " << isl_text(parsed.context)
       << "\n";
    for (std::size_t s = 0; s < scop.statements.size(); ++s) {
      os << "statement " << scop.statements[s].name << "\n  domain   " << isl_text(parsed.domains[s])
         << "\n  schedule " << isl_text(parsed.original[s]) << "\n";
      for (const jscop::Access &a : parsed.accesses[s])
        os << "  " << (a.write ? "write    " : "read     ") << isl_text(a.relation) << "\n";
    }
    os << "# dependences (memory-based: every write a may-write)\n";
    if (deps) print_dependences(os, *deps);
    else os << "not computed: " << time_limit_reason(options.seconds) << "\n";
  }
  JscopResult r = schedule_jscop(scop, options);
  os << "# schedule: " << r.algorithm << (r.changed ? "" : " (unchanged: " + r.reason + ")") << "\n";
  for (const std::string &f : r.fallbacks) os << "# fallback: " << f << "\n";
  for (const JscopTiledBand &b : r.tiled) {
    os << "# tiled band: sizes";
    for (long s : b.sizes) os << " " << s;
    os << ", footprint " << b.footprint_bytes << " bytes";
    if (b.innermost >= 0) os << ", member " << b.innermost << " innermost";
    for (int m : b.jammed) os << ", member " << m << " unrolled by 4 and jammed";
    os << "\n";
  }
  if (!r.tree.empty()) os << r.tree << "\n";
  os << "# flat schedules (" << r.dimensions << " dimensions" << (r.outer_parallel ? ", outer loop parallel" : "")
     << ")\n";
  for (const std::string &s : r.schedules) os << s << "\n";
}

}  // namespace atl::poly
