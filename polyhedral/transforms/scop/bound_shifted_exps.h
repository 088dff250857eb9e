// Marks each exp whose argument is a value minus the maximum of that value
// (Softmax's and LogSoftmax's exp(x - max x)): the argument is never +inf,
// so a backend may drop the upper clamp of its exp (emit_exp).
//
//   mx[h, i] max= sc[h, i, j]
//   p[h, i, j] = exp(sc[h, i, j] * scale[] - mx[h, i] * scale[])   <- marked
//
// The argument, `v - m`, `v * c - m * c` (either operand order) or
// `v / c - m / c` with c a positive constant, qualifies when:
// - m reads a temporary of the cluster written only by one max reduction
//   R and its `_init`, and R comes before the exp's statement S;
// - v is R's value, reads aside (the same operators, functions, constants
//   and arrays; no index used as a value, no guard, no indirect subscript);
// - for every instance of S, some instance of R writing the element of m
//   that S reads reads the same elements as v does there (isl: the domain
//   of S lies in the domain of that relation).
// Then v <= m whenever no NaN is involved, as any legal schedule has R
// finish before S reads m, so v - m <= 0; with the factor, v * c <= m * c
// by monotone rounding. A NaN gives a NaN argument. A backend that fuses
// a product into the subtraction (fma(v0, c, -m')) gets +inf only where m'
// is -inf while the exact product is finite: then every value of the row
// rounds to -inf, and the unfused argument, -inf - -inf, is NaN, which is
// also what an exp without the upper clamp gives for +inf. When R is
// NaN-insensitive and its row holds a NaN, m may be below v and an infinite
// v may give +inf: that row's outputs are NaN by the same claim
// (OpDefinition::nan_insensitive).
#pragma once

#include "polyhedral/scop/scop.h"

namespace atl::poly {

/// Records the exp calls in each statement's bounded_exps; the statements
/// themselves are unchanged. Returns how many exp calls were added.
int bound_shifted_exps(Scop &scop);

}  // namespace atl::poly
