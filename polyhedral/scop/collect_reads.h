// The tensor reads of a statement body in evaluation order, each marked
// guarded or not: the order in which SCoP read accesses are listed; and,
// for the transforms that rewrite bodies, the reads of one array in a
// statement and a copy-on-write step over an expression's operands.
#pragma once

#include "graph/compute/ast.h"

#include <functional>
#include <string>
#include <vector>

namespace atl::poly {

struct BodyRead {
  const compute::Expr *read;  ///< a Read node
  bool guarded;               ///< inside guard(...): only the in-bounds part is read
};

/// Appends the reads of `e` (a Guard's fallback value is not guarded).
void collect_reads(const compute::Expr &e, bool guarded, std::vector<BodyRead> &out);

/// The reads of one array in a statement (its value `rhs` and the
/// subscripts of its target `lhs`; either may be null): how many, and
/// whether one is not a plain value read: inside a subscript or a guard, or
/// with a subscript that reads a tensor or is not quasi-affine.
struct ArrayReads {
  int plain = 0;
  bool bad = false;
};
ArrayReads array_reads(const compute::ExprPtr &rhs, const compute::ExprPtr &lhs, const std::string &array);

/// `e` with each operand `a` replaced by `f(a)` (null operands stay): `e`
/// itself when `f` returns every operand unchanged, else a copy, so
/// untouched subtrees stay shared.
compute::ExprPtr map_args(const compute::ExprPtr &e, const std::function<compute::ExprPtr(const compute::ExprPtr &)> &f);

}  // namespace atl::poly
