// Helpers shared by the CPU tiling transformations (tile_for_cpu,
// tile_window_for_cpu): the statement groups of a scheduler's tree, reads
// in statement bodies, extents of domains, and band construction.
#pragma once

#include "graph/compute/ast.h"
#include "polyhedral/scop/scop.h"

#include <isl/cpp.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace atl::poly::tiling {

/// A statement group of the schedule: its filter and (optionally) its band.
struct Group {
  isl::union_set filter;
  std::optional<isl::multi_union_pw_aff> band;
  bool permutable = false;
  std::vector<bool> coincident;
};

/// The coincident flags of a band's members.
std::vector<bool> coincidence(const isl::schedule_node_band &b);

/// The statement groups of the two shapes schedulers produce for one node:
/// band -> (leaf | sequence of filter -> leaf), or sequence of filter -> (band -> leaf | leaf).
std::optional<std::vector<Group>> groups_of(const isl::schedule &schedule);

/// One group per statement of `scop`, in program order, without bands: the
/// original order, for trees of shapes groups_of does not take.
std::vector<Group> statement_groups(const Scop &scop);
/// True when `e` mentions the index or parameter `var`.
bool mentions(const compute::Expr &e, const std::string &var);

/// The tensor reads in `e` (Read nodes), in order.
void reads_in(const compute::Expr &e, std::vector<const compute::Expr *> &out);

/// The number of values dimension `d` of `domain` takes; -1 when it is not bounded by constants.
long extent(const isl::set &domain, int d);

/// Whether the read `r` of `s` is an operand laid out in panels of `nr`
/// columns along the vector dimension `v` (pack_gemm_weights: rank 3 or
/// more, its last subscript `x_v mod nr`).
bool reads_in_panels(const ScopStatement &s, const ScopAccess &r, int v, long nr);

/// "x<d>": the name of dimension d in the tuples the transformations write.
std::string x(int d);

/// "S[x0, x1, ...]", the statement's tuple; dimension `shifted` as "x<d> + 1".
std::string tuple(const ScopStatement &s, int shifted = -1);

/// The values dimension `d` of `s` takes over its domain (parametric, 1-D).
isl::set dimension_values(const ScopStatement &s, int d);

/// The members as one multi_union_pw_aff.
isl::multi_union_pw_aff product(const std::vector<isl::union_pw_aff> &members);

/// Inserts a band of `members` at `at` with the given coincident flags.
isl::schedule_node insert_band(isl::schedule_node at, const std::vector<isl::union_pw_aff> &members,
                               const std::vector<bool> &coincident, bool permutable = true);

/// Inserts the group's own band (as the scheduler made it) at `leaf`; returns
/// the leaf when the group has none.
isl::schedule_node insert_group_band(isl::schedule_node leaf, const Group &g);

/// The band of a group that runs before or after a tiled statement: when the
/// group holds one statement, its dimensions in domain order (the original
/// order: the layout order, innermost stride 1, whatever order the scheduler
/// chose for it); else the group's own band (insert_group_band).
isl::schedule_node insert_distributed_band(isl::schedule_node leaf, const Group &g, const Scop &scop);
/// The schedule over `domain` of `groups` in their order: a sequence of their
/// filters (no sequence for one group), each subtree built at its leaf by
/// `build(leaf, group index)`, which returns the node it inserted.
isl::schedule rebuild_groups(const isl::union_set &domain, const std::vector<Group> &groups,
                             const std::function<isl::schedule_node(isl::schedule_node, std::size_t)> &build);

}  // namespace atl::poly::tiling
