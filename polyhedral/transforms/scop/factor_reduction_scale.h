// Takes a positive constant factor out of a max or min reduction: the
// reduction runs over the unscaled values and its readers scale the result.
//
//   before:  mx[h, i] max= sc[h, i, j] * scale[]          (scale = 0.125)
//            p[h, i, j] = exp(sc[h, i, j] * scale[] - mx[h, i])
//   after:   mx[h, i] max= sc[h, i, j]
//            p[h, i, j] = exp(sc[h, i, j] * scale[] - mx[h, i] * scale[])
//
// Exact: rounding is monotone, so for c > 0 the largest of the rounded
// products x_i c is the rounded product of the largest x_i (the same for
// min, for x_i / c, for overflow to infinity and for NaN), and the
// reduction's identity (-inf, +inf) is unchanged by the factor. The
// reduction loses one multiply a vector; its readers multiply once a row
// (the product is invariant in their inner loops). Attention's scale ->
// Softmax, 12 x 64 x 64, once inline_producers has put the scale into it.
//
// A reduction qualifies when its statement is `A op= e * c`, `c * e` or
// `e / c` (op max or min) with c a literal or a one-element constant
// (a weight with inline data), finite and positive; A is a temporary of the
// cluster written only by it and its `_init`; every other statement reads A
// only as a value (not in a subscript or a guard) and comes after it.
#pragma once

#include "polyhedral/scop/scop.h"

#include <string>
#include <vector>

namespace atl::poly {

/// Rewrites in place; the readers' access relations are rebuilt. Returns
/// the statements whose reductions lost their factor.
std::vector<std::string> factor_reduction_scales(Scop &scop);

}  // namespace atl::poly
