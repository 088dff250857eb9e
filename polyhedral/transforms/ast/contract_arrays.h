// Array contraction on the loop AST: a temporary whose every element is
// written and read within one iteration of an outer loop nest becomes a small
// local buffer, private to that iteration (and to the thread running it).
//
// Before (bias -> Gelu fused; f1 is a 64 x 3072 temporary in memory):
//
//   kernel k(in x[64, 3072], in b[3072], out g[64, 3072], temp f1[64, 3072])
//     parallel for c0:  vector for c1:  f1[c0, c1] = x[c0, c1] + b[c1]
//                                       g[c0, c1] = gelu(f1[c0, c1])
//
// After (f1 is one 3072-float row, reused by every c0 iteration, in L1):
//
//   kernel k(in x[64, 3072], in b[3072], out g[64, 3072]) { local f1[1, 3072];
//     parallel for c0 { local f1;  vector for c1:  f1[0, c1] = ...; g[c0, c1] = gelu(f1[0, c1]) } }
//
// The test is syntactic and conservative. For a temporary T, let C be the
// longest chain of loops, from the outermost loop enclosing every access of
// T inward, such that each loop of C appears as the same subscript (its
// iterator, plus a constant) of one dimension in every access, and no loop of
// C is a vector loop. Then two different iterations of C touch disjoint
// elements, so every element lives within one iteration of C and its value
// never crosses iterations: the dimensions whose subscript is the same
// expression of C's iterators in every access are dropped (extent 1). Every
// parallel loop around an access must be in C, so each thread has its own
// buffer. Temporaries are written before they are read (their producers
// define every element), which a legal schedule keeps within the iteration.
#pragma once

#include "polyhedral/ast/loop_ast.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace atl::poly {

struct ContractOptions {
  std::int64_t max_bytes = 64 * 1024;  ///< largest local buffer (stack of each thread)
  /// Temporaries that could instead share their reader's storage
  /// (reuse_temporaries): contracted only when the local buffer takes at most
  /// `in_place_max_bytes`.
  std::set<std::string> in_place;
  std::int64_t in_place_max_bytes = 32 * 1024;
};

/// What contract_arrays did.
struct ContractResult {
  std::vector<std::string> arrays;  ///< the temporaries made local
  std::int64_t bytes_before = 0;    ///< their sizes as kernel arguments (symbolic extents counted as 1)
  std::int64_t bytes_after = 0;     ///< their sizes as local buffers
};

/// Contracts the kernel's temporaries (role Temporary; the dimensions kept must be constant) that
/// qualify: they move from `arrays` to `locals` with the dropped dimensions'
/// extents set to 1 and their subscripts to 0, and the innermost loop of
/// their chain lists them in `locals`.
ContractResult contract_arrays(LKernel &kernel, const ContractOptions &options = {});

}  // namespace atl::poly
