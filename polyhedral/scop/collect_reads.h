// The tensor reads of a statement body in evaluation order, each marked
// guarded or not: the order in which SCoP read accesses are listed.
#pragma once

#include "graph/compute/ast.h"

#include <vector>

namespace atl::poly {

struct BodyRead {
  const compute::Expr *read;  ///< a Read node
  bool guarded;               ///< inside guard(...): only the in-bounds part is read
};

/// Appends the reads of `e` (a Guard's fallback value is not guarded).
void collect_reads(const compute::Expr &e, bool guarded, std::vector<BodyRead> &out);

}  // namespace atl::poly
