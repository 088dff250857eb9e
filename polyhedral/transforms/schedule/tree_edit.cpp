// Fusion and distribution on a plain copy of a schedule tree (see tree_edit.h).
#include "polyhedral/transforms/schedule/tree_edit.h"

#include <stdexcept>
#include <string>

namespace atl::poly {

namespace {

/// Builds `t` at the leaf `at`; returns the node at that position.
isl::schedule_node build_tree(const TreeNode &t, isl::schedule_node at) {
  auto below = [](isl::schedule_node inserted, const TreeNode &child) {
    return build_tree(child, inserted.child(0)).parent();
  };
  switch (t.kind) {
    case TreeNode::Kind::Leaf: return at;
    case TreeNode::Kind::Band: {
      const BandSpec &spec = *t.band;
      auto b = at.insert_partial_schedule(spec.schedule).as<isl::schedule_node_band>();
      b = b.set_permutable(spec.permutable ? 1 : 0);
      for (std::size_t m = 0; m < spec.coincident.size(); ++m)
        b = b.member_set_coincident(static_cast<int>(m), spec.coincident[m] ? 1 : 0);
      for (std::size_t m = 0; m < spec.loop_types.size(); ++m)
        b = member_set_ast_loop_type(b, static_cast<int>(m), spec.loop_types[m]);
      return below(b, t.children.at(0));
    }
    case TreeNode::Kind::Filter: return below(at.insert_filter(*t.filter), t.children.at(0));
    case TreeNode::Kind::Mark: return below(at.insert_mark(*t.mark), t.children.at(0));
    case TreeNode::Kind::Sequence:
    case TreeNode::Kind::Set: {
      isl::union_set_list filters(at.ctx(), static_cast<int>(t.children.size()));
      for (const TreeNode &c : t.children) filters = filters.add(*c.filter);
      isl::schedule_node node = t.kind == TreeNode::Kind::Sequence ? at.insert_sequence(filters) : at.insert_set(filters);
      for (std::size_t c = 0; c < t.children.size(); ++c)
        node = build_tree(t.children[c].children.at(0), node.child(static_cast<int>(c)).child(0)).parent().parent();
      return node;
    }
  }
  return at;
}

/// Members [from, to) of `f`, restricted to `filter`.
isl::multi_union_pw_aff members(const isl::multi_union_pw_aff &f, int from, int to, const isl::union_set &filter) {
  isl::multi_union_pw_aff m(f.at(from).intersect_domain(filter));
  for (int k = from + 1; k < to; ++k) m = m.flat_range_product(isl::multi_union_pw_aff(f.at(k).intersect_domain(filter)));
  return m;
}

}  // namespace

TreeNode read_tree(const isl::schedule_node &n) {
  TreeNode t;
  if (n.isa<isl::schedule_node_band>()) {
    t.kind = TreeNode::Kind::Band;
    t.band = band_spec(n.as<isl::schedule_node_band>());
  } else if (n.isa<isl::schedule_node_sequence>() || n.isa<isl::schedule_node_set>()) {
    t.kind = n.isa<isl::schedule_node_sequence>() ? TreeNode::Kind::Sequence : TreeNode::Kind::Set;
  } else if (n.isa<isl::schedule_node_filter>()) {
    t.kind = TreeNode::Kind::Filter;
    t.filter = n.as<isl::schedule_node_filter>().filter();
  } else if (n.isa<isl::schedule_node_mark>()) {
    t.kind = TreeNode::Kind::Mark;
    t.mark = mark_id(n.as<isl::schedule_node_mark>());
  } else {
    if (!n.isa<isl::schedule_node_leaf>()) throw std::invalid_argument("unexpected schedule node kind");
    return t;
  }
  for (int c = 0, k = static_cast<int>(n.n_children()); c < k; ++c) t.children.push_back(read_tree(n.child(c)));
  return t;
}

isl::schedule to_schedule(const isl::union_set &domain, const TreeNode &t) {
  return build_tree(t, isl::schedule_node::from_domain(domain).child(0)).schedule();
}

void fuse(TreeNode &seq, std::size_t i, int k) {
  TreeNode a = seq.children[i], b = seq.children[i + 1];
  const BandSpec &ba = *a.children[0].band, &bb = *b.children[0].band;
  BandSpec fused;
  fused.schedule = members(ba.schedule, 0, k, *a.filter).union_add(members(bb.schedule, 0, k, *b.filter));
  fused.coincident.assign(static_cast<std::size_t>(k), false);
  TreeNode inner{TreeNode::Kind::Sequence, {}, {}, {}, {}};
  for (TreeNode *side : {&a, &b}) {
    const BandSpec &old = *side->children[0].band;
    int n = static_cast<int>(old.schedule.size());
    TreeNode rest = side->children[0].children.at(0);
    if (n > k) {
      BandSpec r;
      r.schedule = members(old.schedule, k, n, *side->filter);
      r.permutable = old.permutable;
      r.coincident.assign(static_cast<std::size_t>(n - k), false);
      rest = TreeNode{TreeNode::Kind::Band, r, {}, {}, {rest}};
    }
    inner.children.push_back(TreeNode{TreeNode::Kind::Filter, {}, side->filter, {}, {rest}});
  }
  TreeNode band{TreeNode::Kind::Band, fused, {}, {}, {inner}};
  TreeNode merged{TreeNode::Kind::Filter, {}, a.filter->unite(*b.filter), {}, {band}};
  seq.children[i] = merged;
  seq.children.erase(seq.children.begin() + static_cast<std::ptrdiff_t>(i) + 1);
}

void distribute(TreeNode &band, std::size_t k) {
  const TreeNode seq = band.children[0];
  TreeNode out{TreeNode::Kind::Sequence, {}, {}, {}, {}};
  for (auto [from, to] : {std::pair{std::size_t(0), k}, std::pair{k, seq.children.size()}}) {
    TreeNode part{TreeNode::Kind::Sequence, {}, {}, {}, {}};
    isl::union_set filter = *seq.children[from].filter;
    for (std::size_t c = from; c < to; ++c) {
      part.children.push_back(seq.children[c]);
      filter = filter.unite(*seq.children[c].filter);
    }
    TreeNode copy{TreeNode::Kind::Band, band.band, {}, {}, {to - from == 1 ? part.children[0].children[0] : part}};
    out.children.push_back(TreeNode{TreeNode::Kind::Filter, {}, filter, {}, {copy}});
  }
  band = out;
}

void find_candidates(TreeNode &t, std::vector<std::pair<TreeNode *, std::size_t>> &fusions,
                     std::vector<TreeNode *> &distributions) {
  if (t.kind == TreeNode::Kind::Sequence)
    for (std::size_t i = 0; i + 1 < t.children.size(); ++i)
      if (t.children[i].children.at(0).kind == TreeNode::Kind::Band &&
          t.children[i + 1].children.at(0).kind == TreeNode::Kind::Band)
        fusions.emplace_back(&t, i);
  if (t.kind == TreeNode::Kind::Band && t.children.at(0).kind == TreeNode::Kind::Sequence &&
      t.children[0].children.size() >= 2)
    distributions.push_back(&t);
  for (TreeNode &c : t.children) find_candidates(c, fusions, distributions);
}

bool is_permutable(const Dependences &deps, const isl::schedule_node_band &band) {
  isl::union_map prefix = band.prefix_schedule_union_map();  // its domain: the instances at the band
  isl::union_set dom = prefix.domain();
  isl::union_map live = deps.validity().intersect_domain(dom).intersect_range(dom).intersect(
      prefix.apply_range(prefix.reverse()));
  if (live.is_empty()) return true;
  isl::union_map f = isl::union_map::from(band.partial_schedule());
  std::string cons;
  for (unsigned m = 0; m < band.n_member(); ++m) cons += (m ? " and x" : "x") + std::to_string(m) + " >= 0";
  std::string vars;
  for (unsigned m = 0; m < band.n_member(); ++m) vars += (m ? ", x" : "x") + std::to_string(m);
  isl::union_set nonneg(band.ctx(), "{ [" + vars + "] : " + cons + " }");
  return live.apply_domain(f).apply_range(f).deltas().is_subset(nonneg);
}

isl::schedule mark_permutable(const Dependences &deps, isl::schedule s) {
  for (std::size_t p = 0; p < collect_bands(s).size(); ++p) {
    isl::schedule_node_band b = collect_bands(s)[p];
    if (b.n_member() > 1 && !b.permutable() && is_permutable(deps, b)) s = b.set_permutable(1).schedule();
  }
  return s;
}

}  // namespace atl::poly
