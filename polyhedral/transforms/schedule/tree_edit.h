// Schedule-tree editing on a plain copy of the tree: read an isl tree into
// TreeNode values, fuse two sibling bands or distribute a band over its
// sequence, build the tree back, and mark bands permutable where the
// dependences allow it. Used by fuse_sibling_bands and the random schedule
// tests. Results are not checked for legality here: callers check them
// (check_legality).
#pragma once

#include "polyhedral/deps/dependences.h"
#include "polyhedral/transforms/schedule/tile_bands.h"

#include <isl/cpp.h>

#include <optional>
#include <utility>
#include <vector>

namespace atl::poly {

/// A schedule-tree node as plain data (the kinds the schedulers make, plus
/// marks). isl objects are optional: a null one cannot be copied.
struct TreeNode {
  enum class Kind { Leaf, Band, Sequence, Set, Filter, Mark } kind = Kind::Leaf;
  std::optional<BandSpec> band;
  std::optional<isl::union_set> filter;
  std::optional<isl::id> mark;
  std::vector<TreeNode> children;
};

/// The subtree at `node` as plain data; throws std::invalid_argument for
/// node kinds other than band, sequence, set, filter, mark and leaf.
TreeNode read_tree(const isl::schedule_node &node);

/// A schedule over `domain` whose root's child is `tree`.
isl::schedule to_schedule(const isl::union_set &domain, const TreeNode &tree);

/// Fusion: in the sequence `seq`, children i and i+1 (filter -> band each)
/// become one filter over both -> a band of their first `k` members
/// (non-permutable until proven) -> a sequence of the two with their
/// remaining members.
void fuse(TreeNode &seq, std::size_t i, int k);

/// Distribution: `band` over a sequence of n children becomes a sequence of
/// two copies of the band, over children [0, k) and [k, n).
void distribute(TreeNode &band, std::size_t k);

/// Candidates in `tree`: sequences with two adjacent filter -> band
/// children (sequence, i), and bands directly over a sequence.
void find_candidates(TreeNode &tree, std::vector<std::pair<TreeNode *, std::size_t>> &fusions,
                     std::vector<TreeNode *> &distributions);

/// True when every validity dependence between instances of the band with
/// equal outer schedule has a non-negative distance on every member.
bool is_permutable(const Dependences &deps, const isl::schedule_node_band &band);

/// The schedule with every band of several members that is provably
/// permutable marked so.
isl::schedule mark_permutable(const Dependences &deps, isl::schedule schedule);

}  // namespace atl::poly
