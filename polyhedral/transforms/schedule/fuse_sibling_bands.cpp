// Fuses consecutive sibling bands that pass data on their outer members,
// as deep as the dependences allow (see fuse_sibling_bands.h).
#include "polyhedral/transforms/schedule/fuse_sibling_bands.h"

#include "polyhedral/schedule/schedule.h"
#include "polyhedral/transforms/schedule/tree_edit.h"

#include <algorithm>
#include <stdexcept>

namespace atl::poly {

namespace {

bool is_filtered_band(const TreeNode &child) {
  return child.kind == TreeNode::Kind::Filter && child.filter && child.children.size() == 1 &&
         child.children[0].kind == TreeNode::Kind::Band && child.children[0].band;
}

int members(const TreeNode &filtered_band) {
  return static_cast<int>(filtered_band.children[0].band->schedule.size());
}

/// A flow dependence from an instance under `from` to one under `to`.
bool passes_data(const Dependences &deps, const isl::union_set &from, const isl::union_set &to) {
  return !deps.flow.intersect_domain(from).intersect_range(to).is_empty();
}

isl::schedule schedule_of(const isl::union_set &domain, const TreeNode &sequence) {
  if (sequence.children.size() == 1) return to_schedule(domain, sequence.children[0].children.at(0));
  return to_schedule(domain, sequence);
}

}  // namespace

FuseBandsResult fuse_sibling_bands(const Scop &scop, const Dependences &deps, const isl::schedule &schedule) {
  FuseBandsResult r;
  r.schedule = schedule;
  isl::schedule_node top = schedule.root().child(0);
  if (!top.isa<isl::schedule_node_sequence>()) return r;
  TreeNode tree;
  try {
    tree = read_tree(top);
  } catch (const std::invalid_argument &) {
    return r;  // node kinds the tree editor does not handle: leave the schedule alone
  }
  isl::union_set domain = schedule.get_domain();
  std::size_t i = 0;
  while (i + 1 < tree.children.size()) {
    const TreeNode &a = tree.children[i], &b = tree.children[i + 1];
    if (!is_filtered_band(a) || !is_filtered_band(b) || !passes_data(deps, *a.filter, *b.filter)) {
      ++i;
      continue;
    }
    bool fused = false;
    for (int k = std::min(members(a), members(b)); k >= 1 && !fused; --k) {
      TreeNode trial = tree;
      fuse(trial, i, k);
      if (check_legality(scop, deps, schedule_of(domain, trial))) continue;
      tree = std::move(trial);
      ++r.fusions;
      fused = true;
    }
    if (!fused) ++i;
  }
  if (r.fusions > 0) r.schedule = schedule_of(domain, tree);
  return r;
}

}  // namespace atl::poly
