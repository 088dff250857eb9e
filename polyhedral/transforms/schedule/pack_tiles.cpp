// Packs the cache tile's footprint of the GEMM operands into local buffers with schedule-tree extension nodes (see pack_tiles.h).
#include "polyhedral/transforms/schedule/pack_tiles.h"

#include "polyhedral/isl/isl_context.h"
#include "polyhedral/transforms/schedule/cpu_tiling_common.h"

#include <atoll/dtype.h>

#include <algorithm>
#include <optional>

namespace atl::poly {

namespace {

std::string list(const std::string &p, std::size_t n, std::size_t from = 0) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += (i ? ", " : "") + p + std::to_string(from + i);
  return s;
}

/// The filter node of `stmt` (a filter holding exactly its instances), or nothing.
std::optional<isl::schedule_node> filter_of(const isl::schedule_node &node, const isl::union_set &stmt,
                                            const isl::union_set &all) {
  if (node.isa<isl::schedule_node_filter>()) {
    isl::union_set f = node.as<isl::schedule_node_filter>().filter().intersect(all);
    if (f.is_equal(stmt)) return node;
    if (f.intersect(stmt).is_empty()) return std::nullopt;
  }
  for (unsigned i = 0; i < node.n_children(); ++i)
    if (auto r = filter_of(node.child(static_cast<int>(i)), stmt, all)) return r;
  return std::nullopt;
}

/// True when some coincident member of `band` takes two values or more on `domain`.
bool has_parallel_loop(const isl::schedule_node_band &band, const isl::union_set &domain) {
  isl::multi_union_pw_aff m = band.partial_schedule();
  std::vector<bool> coincident = tiling::coincidence(band);
  for (unsigned i = 0; i < m.size(); ++i) {
    if (!coincident[i]) continue;
    isl::union_set values = isl::union_map::from(isl::multi_union_pw_aff(m.at(static_cast<int>(i))))
                                .intersect_domain(domain)
                                .range();
    if (!values.is_empty() && !values.lexmin().is_equal(values)) return true;
  }
  return false;
}

/// One operand chosen for packing.
struct Choice {
  const ScopAccess *read;
  isl::map footprint;  ///< [tile] -> A[i]
  isl::fixed_box box;
  PackedRead pack;
};

}  // namespace

PackResult pack_tiles(const Scop &scop, const isl::schedule &schedule, const GemmTiling &tiled,
                      const PackOptions &o) {
  PackResult res;
  res.schedule = schedule;
  const ScopStatement *s = tiled.statement.empty() ? nullptr : scop.statement(tiled.statement);
  if (!s) return res.reason = "no tiled statement", res;
  isl::union_set mine(s->domain);
  auto filter = filter_of(schedule.root(), mine, scop.domain());
  if (!filter) return res.reason = "statement has no filter of its own", res;
  // The register-tile band: the first band below the filter whose child is a mark (or the last band).
  isl::schedule_node node = filter->child(0), point;
  for (; !node.isa<isl::schedule_node_leaf>(); node = node.child(0)) {
    if (node.n_children() != 1) break;
    if (!node.isa<isl::schedule_node_band>()) continue;
    point = node;
    if (node.child(0).isa<isl::schedule_node_mark>()) break;
  }
  if (point.is_null()) return res.reason = "no register-tile band", res;
  // Without a cache tile along the reduction, tile_for_cpu puts the init
  // (and epilogue) under the register band, so the statement's filter lies
  // below it: the buffer goes above that band (the one with the isolate
  // option), once per cache tile, not once per register tile (64 x 256 x
  // 768 had re-packed its 16-column panel for each of the ten row strips).
  auto band_above = [](isl::schedule_node n) -> isl::schedule_node {
    while (n.has_parent())
      if ((n = n.parent()).isa<isl::schedule_node_band>()) return n;
    return {};
  };
  isl::schedule_node reg = band_above(*filter);
  if (!reg.is_null() && !band_above(reg).is_null() && !reg.as<isl::schedule_node_band>().ast_build_options().is_empty())
    point = reg;
  isl::map prefix = point.prefix_schedule_union_map().intersect_domain(mine).as_map();
  if (prefix.range_tuple_dim() == 0) return res.reason = "no cache tiles", res;
  // Some band above the buffer must carry the parallelism (a parallel loop below it would share it).
  bool parallel_above = false;
  for (isl::schedule_node n = point; n.has_parent();) {
    n = n.parent();
    if (n.isa<isl::schedule_node_band>()) parallel_above |= has_parallel_loop(n.as<isl::schedule_node_band>(), mine);
  }
  if (o.target.cores > 1 && !parallel_above) return res.reason = "the parallel loop would share the buffer", res;

  // The vector column: the output's last subscript.
  int v = -1;
  if (!s->lhs->args.empty() && s->lhs->args.back()->kind == compute::ExprKind::Var)
    for (std::size_t d = 0; d < s->indices.size(); ++d)
      if (s->indices[d] == s->lhs->args.back()->name) v = static_cast<int>(d);
  if (v < 0) return res.reason = "no vector column", res;
  isl::union_map written = scop.writes();
  std::vector<Choice> chosen;
  std::string why = "no operand pays for its copy";
  for (const ScopAccess &r : s->reads) {
    const ScopArray *a = scop.array(r.array);
    if (!a || r.guarded || r.indirect || a->array.shape.size() < 2) continue;
    if (!written.intersect_range(isl::union_set(a->extent)).is_empty()) continue;  // must not change during the tile
    if (std::any_of(chosen.begin(), chosen.end(), [&](const Choice &c) { return c.read->array == r.array; })) continue;
    isl::map access = r.relation.gist_domain(s->domain);  // without the domain's bounds
    bool columns = involves_in_dim(access, v);
    if (!columns && !o.rows) continue;
    const std::size_t rank = a->array.shape.size();
    bool constant = std::all_of(a->array.shape.begin(), a->array.shape.end(), [](const Dim &d) { return !d.is_symbolic(); });
    if (!constant) continue;
    isl::map fp = prefix.reverse().apply_range(r.relation);
    isl::fixed_box box = fp.range_simple_fixed_box_hull();
    if (!box.is_valid()) continue;
    isl::multi_val size = box.size();
    std::vector<long> shape;
    long elems = 1;
    for (unsigned d = 0; d < size.size(); ++d) {
      isl::val sv = size.at(static_cast<int>(d));
      if (!sv.is_int()) break;
      shape.push_back(sv.get_num_si());
      elems *= shape.back();
    }
    if (shape.size() != rank) continue;
    // Reuse: the tile's iterations per copied element (dimensions the read does not use).
    long reuse = 1;
    bool reuse_known = true;  // every reusing dimension has a constant extent
    for (std::size_t d = 0; d < s->indices.size(); ++d) {
      if (involves_in_dim(access, static_cast<int>(d))) continue;
      long e = tiling::extent(s->domain, static_cast<int>(d));
      reuse_known = reuse_known && e > 0;
      long t = d < tiled.cache_sizes.size() && tiled.cache_sizes[d] > 0 ? tiled.cache_sizes[d] : e;
      reuse *= std::max(1L, e > 0 ? std::min(t, e) : t);
    }
    long elt = static_cast<long>(dtype_size(a->array.dtype));
    long row_bytes = a->array.shape.back().value * elt;
    // More than one row: the micro-kernel walks the rows (k) at the array's row stride.
    bool strided = elems > shape.back();
    bool conflicts = o.conflict_stride <= 0 || row_bytes % o.conflict_stride == 0;
    // An operand already laid out in panels of the register tile's columns
    // (pack_gemm_weights: `w(floor(j / P), k, j % P)`) is read in order.
    if (columns && tiling::reads_in_panels(*s, r, v, tiled.nr)) {
      why = r.array + ": already in panels";
      continue;
    }
    // Panels of the register tile's columns when the last subscript is the vector index itself.
    long panel = 0;
    if (o.panels && columns && tiled.nr > 1 && tiled.nu == 1) {
      std::string in = list("x", s->indices.size()), out = list("a", rank);
      isl::map direct(scop.context.ctx(), "{ " + s->name + "[" + in + "] -> " + r.array + "[" + out + "] : a" +
                                              std::to_string(rank - 1) + " = x" + std::to_string(v) + " }");
      if (access.is_subset(direct)) panel = tiled.nr;
    }
    if (panel > 0) {
      long panels = (shape.back() + panel - 1) / panel;
      shape.back() = panel;
      shape.insert(shape.begin(), panels);
    } else if (rank >= 2 && (shape.back() * elt) % 512 == 0) {
      shape.back() += 64 / elt;  // rows one cache line apart from a multiple of 512 bytes
    }
    long bytes = elt;
    for (long e : shape) bytes *= e;
    // Few rows (M < 32): each element of the GEMM's vector operand serves
    // few multiply-adds, so its copy costs more than in-place reads from L2
    // (the backend prefetches the next k block in the micro-kernel).
    bool few_rows = panel > 0 && reuse_known && reuse < o.min_column_reuse;
    if (reuse < o.min_reuse || few_rows || !strided || !conflicts ||
        bytes > std::min(o.max_bytes, o.target.l2_bytes)) {
      why = r.array + ": reuse " + std::to_string(reuse) + (few_rows ? " (few rows)" : "") + ", " +
            std::to_string(bytes) + " bytes" + (strided ? "" : ", one row") + (conflicts ? "" : ", no set conflicts");
      continue;
    }
    Choice c{&r, fp, box, {}};
    c.pack.statement = "pack_" + r.array;
    c.pack.buffer = r.array + "_pack";
    while (scop.statement(c.pack.statement)) c.pack.statement += "_";
    while (scop.array(c.pack.buffer)) c.pack.buffer += "_";
    c.pack.array = r.array;
    c.pack.reader = s->name;
    c.pack.shape = shape;
    c.pack.panel = panel;
    c.pack.dtype = a->array.dtype;
    chosen.push_back(std::move(c));
  }
  if (chosen.empty()) return res.reason = why, res;

  // One extension per buffer: { [tile] -> pack[o, j] : A[o + j] in the tile's footprint, o = box offset }.
  for (const Choice &c : chosen) {
    const long panel = c.pack.panel;
    const std::size_t rank = c.pack.shape.size() - (panel > 0 ? 1 : 0);
    isl::map origin = c.box.offset().as_map().set_range_tuple("O");
    std::string pack = c.pack.statement;
    // pack[o, j] with j = i - o; with panels pack[o, p, j_0..j_{r-2}, l] with j_{r-1} = panel p + l.
    std::string shift, cond;
    for (std::size_t d = 0; d + (panel > 0 ? 1 : 0) < rank; ++d)
      shift += (d ? ", i" : "i") + std::to_string(d) + " - o" + std::to_string(d);
    std::size_t dims = 2 * rank;
    if (panel > 0) {
      std::string last = std::to_string(rank - 1), P = std::to_string(panel);
      shift = "p, " + shift + (rank > 1 ? ", " : "") + "l";
      cond = " : i" + last + " - o" + last + " = " + P + "p + l and 0 <= l < " + P;
      ++dims;
    }
    isl::map to_pack(scop.context.ctx(), "{ [O[" + list("o", rank) + "] -> " + c.read->array + "[" + list("i", rank) +
                                             "]] -> " + pack + "[" + list("o", rank) + ", " + shift + "]" + cond + " }");
    isl::map ext = origin.range_product(c.footprint).apply_range(to_pack);
    isl::schedule_node graft = isl::schedule_node::from_extension(isl::union_map(ext));
    // Loop order: with panels, the rows (j) outside the panels (p) and the
    // columns (l) innermost, so the source is read row by row, contiguously
    // across the panels (the hardware prefetcher streams it from memory).
    std::vector<std::size_t> order;
    for (std::size_t d = rank + (panel > 0 ? 1 : 0); d + (panel > 0 ? 1 : 0) < dims; ++d) order.push_back(d);
    if (panel > 0) order.push_back(rank), order.push_back(dims - 1);
    std::string members;
    for (std::size_t d : order)
      members += std::string(members.empty() ? "" : ", ") + "{ " + pack + "[" + list("z", dims) + "] -> [(z" +
                 std::to_string(d) + ")] }";
    graft = graft.child(0).insert_partial_schedule(isl::multi_union_pw_aff(scop.context.ctx(), "[" + members + "]"));
    graft = graft.parent();
    point = point.graft_before(graft);
    res.packed_bytes += static_cast<long>(dtype_size(c.pack.dtype)) *
                        [&] { long n = 1; for (long e : c.pack.shape) n *= e; return n; }();
    res.packs.push_back(c.pack);
  }
  res.schedule = point.schedule();
  return res;
}

}  // namespace atl::poly
