// The tensor reads of a statement body in evaluation order, each marked
// guarded or not: the order in which SCoP read accesses are listed; and
// the reads of one array in a statement, for the transforms that rewrite them.
#pragma once

#include "graph/compute/ast.h"

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

}  // namespace atl::poly
