// Interleaves the independent rows of a row-wise kernel: the top band's last loop tiled by R, its point loop sunk into each statement group and unrolled.
#include "polyhedral/transforms/schedule/interleave_rows.h"

#include "polyhedral/isl/isl_context.h"
#include "polyhedral/transforms/schedule/cpu_tiling_common.h"
#include "polyhedral/transforms/schedule/tile_for_cpu.h"
#include "polyhedral/transforms/schedule/tree_edit.h"

#include <functional>
#include <set>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace atl::poly {

using tiling::extent;
using tiling::x;

namespace {

/// { S[x0, ...] -> [x0, ..., x(n-1)] } for every statement: the band the transformation takes.
isl::union_map leading_dimensions(const Scop &scop, int n, std::string &why) {
  isl::union_map want = isl::union_map::empty(scop.domain().ctx());
  for (const ScopStatement &s : scop.statements) {
    if (static_cast<int>(s.indices.size()) < n) return why = "a statement has fewer dimensions than the band", want;
    std::string out;
    for (int d = 0; d < n; ++d) out += (d ? ", " : "") + x(d);
    want = want.unite(isl::union_map(isl::map(s.domain.ctx(), "{ " + tiling::tuple(s) + " -> [" + out + "] }")
                                         .intersect_domain(s.domain)));
  }
  return want;
}

/// The range of the one-member band schedule `upa` over `of`: [lo, hi]
/// (nullopt when empty or unbounded).
std::optional<std::pair<isl::val, isl::val>> band_range(const isl::union_pw_aff &upa, const isl::union_set &of) {
  isl::union_set r = isl::union_map::from(isl::multi_union_pw_aff(upa)).intersect_domain(of).range();
  if (r.is_empty()) return std::nullopt;
  isl::set values = r.as_set();
  isl::val lo = values.dim_min_val(0), hi = values.dim_max_val(0);
  if (!lo.is_int() || !hi.is_int()) return std::nullopt;
  return std::make_pair(lo, hi);
}

/// A filter over one-member band B over a sequence of statement groups
/// (isl's fusion of Softmax's max with its exp and sum, the exp shifted past
/// the max: max at i, exp at 63 + i), cut into phases: filters, each over a
/// copy of B (shifted to start at 0) over a run of the groups, where every
/// value of B in a run is at most every value in the runs after it. Ties are
/// already ordered by the sequence, so the order of execution is the same;
/// the phases are cut only where both sides have a loop (`loop` says which
/// groups do). Returns the filter itself when there is no such cut.
/// `member(expr, of)`: { S[...] -> [(expr)] } for the statements in `of`.
std::vector<TreeNode> phases(TreeNode filter, const isl::union_set &domain,
                             const std::function<bool(const isl::union_set &)> &loop,
                             const std::function<isl::union_pw_aff(const std::string &, const isl::union_set &)> &member) {
  if (filter.children.size() != 1 || filter.children[0].kind != TreeNode::Kind::Band) return {std::move(filter)};
  TreeNode &band = filter.children[0];
  if (!band.band || band.band->schedule.size() != 1 || band.children.size() != 1 ||
      band.children[0].kind != TreeNode::Kind::Sequence)
    return {std::move(filter)};
  const std::vector<TreeNode> &groups = band.children[0].children;
  const isl::union_pw_aff upa = band.band->schedule.at(0);
  auto set_of = [&](std::size_t from, std::size_t to) {
    isl::union_set u = isl::union_set::empty(domain.ctx());
    for (std::size_t g = from; g < to; ++g) u = u.unite(*groups[g].filter);
    return u.intersect(domain);
  };
  for (const TreeNode &g : groups)
    if (g.kind != TreeNode::Kind::Filter || !g.filter) return {std::move(filter)};
  std::vector<std::size_t> cuts{0};
  for (std::size_t k = 1; k < groups.size(); ++k) {
    isl::union_set before = set_of(cuts.back(), k), after = set_of(k, groups.size());
    auto a = band_range(upa, before), b = band_range(upa, after);
    if (a && b && a->second.le(b->first) && loop(before) && loop(after)) cuts.push_back(k);
  }
  if (cuts.size() == 1) return {std::move(filter)};
  cuts.push_back(groups.size());
  std::vector<TreeNode> out;
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
    isl::union_set of = set_of(cuts[c], cuts[c + 1]);
    const long lo = band_range(upa, of)->first.get_num_si();
    TreeNode copy = band;
    copy.band->schedule = isl::multi_union_pw_aff(upa.intersect_domain(of).sub(member(std::to_string(lo), of)));
    copy.children[0].children.assign(groups.begin() + static_cast<std::ptrdiff_t>(cuts[c]),
                                     groups.begin() + static_cast<std::ptrdiff_t>(cuts[c + 1]));
    TreeNode f;
    f.kind = TreeNode::Kind::Filter;
    f.filter = of;
    f.children.push_back(std::move(copy));
    out.push_back(std::move(f));
  }
  return out;
}

/// The statements of a filter, by name.
std::set<std::string> statements_of(const isl::union_set &filter) {
  std::set<std::string> names;
  isl::set_list sets = filter.set_list();
  for (int i = 0; i < static_cast<int>(sets.size()); ++i) names.insert(tuple_name(sets.at(i)));
  return names;
}

/// In every sequence of `node`, a filter of `_init` statements moves ahead
/// of the siblings before it that neither read nor write what it writes.
/// isl fuses a reduction's init into the band of the loop before it (a sum
/// of exps: the exp, the init at 0, the sum); placed after the exp in the
/// sequence, the init becomes an `if (i == 0)` inside that loop, which
/// keeps the loop from being vectorized. Ahead of it, the AST generator
/// peels it off before the loop. Moving it past statements that do not
/// touch its array changes no dependence.
void inits_first(TreeNode &node, const Scop &scop) {
  for (TreeNode &c : node.children) inits_first(c, scop);
  if (node.kind != TreeNode::Kind::Sequence) return;
  auto init_array = [&](const TreeNode &f) -> std::string {
    if (f.kind != TreeNode::Kind::Filter || !f.filter) return {};
    std::string array;
    for (const std::string &name : statements_of(*f.filter)) {
      const ScopStatement *s = scop.statement(name);
      if (!s || !s->init || (!array.empty() && array != s->write.array)) return {};
      array = s->write.array;
    }
    return array;
  };
  auto touches = [&](const TreeNode &f, const std::string &array) {
    if (f.kind != TreeNode::Kind::Filter || !f.filter) return true;
    for (const std::string &name : statements_of(*f.filter)) {
      const ScopStatement *s = scop.statement(name);
      if (!s || s->write.array == array) return true;
      for (const ScopAccess &r : s->reads)
        if (r.array == array) return true;
    }
    return false;
  };
  std::vector<TreeNode> &c = node.children;
  for (std::size_t k = 1; k < c.size(); ++k) {
    const std::string array = init_array(c[k]);
    if (array.empty()) continue;
    for (std::size_t j = k; j > 0 && !touches(c[j - 1], array); --j) std::swap(c[j - 1], c[j]);
  }
}

}  // namespace

InterleaveRowsResult interleave_rows(const Scop &scop, const isl::schedule &schedule, const InterleaveRowsOptions &o) {
  InterleaveRowsResult res;
  res.schedule = schedule;
  isl::schedule_node top = schedule.root().child(0);
  if (!top.isa<isl::schedule_node_band>()) return res.reason = "no band at the root", res;
  auto band = top.as<isl::schedule_node_band>();
  const int n = static_cast<int>(band.n_member());
  if (n < 1 || !band.child(0).isa<isl::schedule_node_sequence>()) return res.reason = "the band is not over a sequence", res;
  isl::multi_union_pw_aff members = band.partial_schedule();
  isl::union_set domain = scop.domain();
  std::string why;
  isl::union_map want = leading_dimensions(scop, n, why);
  if (!why.empty()) return res.reason = why, res;
  if (!isl::union_map::from(members).intersect_domain(domain).is_equal(want))
    return res.reason = "the band is not the statements' leading dimensions", res;
  // The rows: the last member's values, the same constant range everywhere;
  // each with a reduction of its own (else nothing waits on a chain).
  long rows = -1;
  bool reduces = false;
  for (const ScopStatement &s : scop.statements)
    for (std::size_t d = static_cast<std::size_t>(n); d < s.indices.size(); ++d) reduces = reduces || s.reduction[d];
  if (!reduces) return res.reason = "no reduction along the rows", res;
  for (const ScopStatement &s : scop.statements) {
    long e = extent(s.domain, n - 1);
    if (e <= 0 || (rows >= 0 && e != rows) || !s.domain.dim_min_val(n - 1).is_zero())
      return res.reason = "the rows are not one constant range from 0", res;
    rows = e;
    long per_row = 1;
    for (int d = n; d < static_cast<int>(s.indices.size()); ++d) {
      long ed = extent(s.domain, d);
      if (ed <= 0) return res.reason = "a row of symbolic length", res;
      per_row *= ed;
    }
    if (per_row > o.max_row_elements) return res.reason = "rows long enough to hide their latency", res;
  }
  long r = rows % o.rows == 0 ? o.rows : rows % 2 == 0 ? 2 : 1;
  if (r < 2 || rows < 2 * r) return res.reason = "too few rows, or not divisible", res;

  // The band with its last member in tiles of r rows; each group below it
  // starts with the rows of its tile, unrolled.
  auto member = [&](const std::string &expr, const isl::union_set &of) {
    std::string text;
    for (const ScopStatement &s : scop.statements)
      if (!of.intersect(isl::union_set(s.domain)).is_empty())
        text += (text.empty() ? "" : "; ") + tiling::tuple(s) + " -> [(" + expr + ")]";
    return isl::union_pw_aff(domain.ctx(), "{ " + text + " }");
  };
  TreeNode tree = read_tree(top);
  BandSpec &spec = *tree.band;
  spec.schedule = spec.schedule.set_at(n - 1, member("floor(" + x(n - 1) + " / " + std::to_string(r) + ")", domain));
  spec.isolate.reset();
  // Into nested sequences too (Softmax's max and exp groups under one
  // filter): each innermost group runs the rows of the tile.
  // A group whose statements isl fused with a shift (Softmax's max, then
  // its exp and sum) is first cut into its phases, so that the tile's rows
  // all finish one phase before any starts the next.
  auto loop = [&](const isl::union_set &of) {
    for (const ScopStatement &st : scop.statements)
      if (static_cast<int>(st.indices.size()) > n && !of.intersect(isl::union_set(st.domain)).is_empty()) return true;
    return false;
  };
  std::function<void(TreeNode &)> sink = [&](TreeNode &seq) {
    std::vector<TreeNode> split;
    for (TreeNode &filter : seq.children) {
      std::vector<TreeNode> p = phases(std::move(filter), domain, loop, member);
      res.phases_split += static_cast<long>(p.size()) - 1;
      for (TreeNode &f : p) split.push_back(std::move(f));
    }
    seq.children = std::move(split);
    for (TreeNode &filter : seq.children) {
      if (!filter.children.empty() && filter.children[0].kind == TreeNode::Kind::Sequence) {
        sink(filter.children[0]);
        continue;
      }
      TreeNode rows_band;
      rows_band.kind = TreeNode::Kind::Band;
      BandSpec b;
      b.schedule = isl::multi_union_pw_aff(member(x(n - 1), *filter.filter));
      b.permutable = true;
      b.coincident = {true};
      rows_band.band = b;
      rows_band.children = std::move(filter.children);
      TreeNode mark;
      mark.kind = TreeNode::Kind::Mark;
      mark.mark = isl::id(domain.ctx(), tree_mark::kUnroll);
      mark.children.push_back(std::move(rows_band));
      filter.children.clear();
      filter.children.push_back(std::move(mark));
    }
  };
  sink(tree.children.at(0));
  inits_first(tree, scop);
  res.schedule = to_schedule(schedule.domain(), tree);
  res.applied = true;
  res.rows = r;
  return res;
}

}  // namespace atl::poly
