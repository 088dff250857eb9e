// Loop nests that copy a tensor through a square transpose (blocked -> plain layout, 2-D transposes), which the CPU backend runs as in-register transposes.
#pragma once

#include "polyhedral/ast/loop_ast.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace atl::cpu {

/// A nest
///
///   for (l = a; l < a + T; l += 1)                 T a multiple of the lanes, no parallel mark
///     for (h ...) ... for (...)                     zero or more loops, each alone in its parent's body
///       for (w = ...; w < e; w += 1)  // vector     bounds free of l
///         Y[...] = X[...];                          one f32 assignment of one f32 load
///
/// where X's row-major offset moves by one along l and by a constant S >=
/// lanes along w (so a lanes x lanes block of X is lanes rows, S apart, of
/// lanes contiguous elements: S = lanes for a blocked layout, the row length
/// for a plain 2-D transpose), Y moves by one along w (its last subscript),
/// and every loop of the nest moves its own subscript of Y, so each element
/// of Y is written once and the nest may run in any order. The backend loads
/// lanes rows of X, transposes them in registers and stores lanes vectors of Y.
struct TransposeForm {
  const poly::LStmt *outer = nullptr;         ///< the l loop
  std::vector<const poly::LStmt *> middle;    ///< the loops between, outer to inner
  const poly::LStmt *inner = nullptr;         ///< the w loop (marked vector)
  const poly::LStmt *store = nullptr;
  std::int64_t trip = 0;                      ///< T
  std::int64_t row_stride = 0;                ///< S, X's elements between two rows of a block
};

/// The transpose form of `loop` for vectors of `lanes` f32 (a power of two,
/// at least 2), or nullopt when the nest does not have that shape.
std::optional<TransposeForm> transpose_form(const poly::LKernel &kernel, const poly::LStmt &loop, std::int64_t lanes);

}  // namespace atl::cpu
