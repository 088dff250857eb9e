// Remainder register tiles of run-time size specialized on the loop AST: the
// unrolled loops of a tile whose trip count is a small run-time value (the
// rows left over when a symbolic batch is not a multiple of the tile's rows)
// run as one copy per possible count, each with a constant trip count, so the
// backend unrolls them and keeps the tile's accumulators in registers.
//
// Before (rows N of symbolic extent, 6-row register tiles):
//
//   for c2 = ...                                   // the remainder tile
//     unroll for c3 = N - 1 - mod(N - 1, 6) .. N - 1:  y[c3, ...] = 0
//     for k = 0 .. K - 1
//       unroll for c4 = N - 1 - mod(N - 1, 6) .. N - 1:  y[c4, ...] += x[c4, k] * w[k, ...]
//
// After (one test per c2 iteration, then straight-line tiles):
//
//   for c2 = ...
//     if (N - (N - 1 - mod(N - 1, 6)) == 1) { the tile with 1 row } else if (... == 2) { 2 rows }
//     ... else { 6 rows }
//
// A group is the unrolled loops with one start and one end whose difference
// is a constant plus multiples of mod(e, d) terms (bounded, at most
// `max_trip` iterations) and does not use an iterator of a loop inside the
// statement that holds them all; that statement, the lowest one holding the
// whole group, is copied once per trip count.
#pragma once

#include "polyhedral/ast/loop_ast.h"

namespace atl::poly {

struct SpecializeResult {
  int regions = 0;  ///< statements copied per trip count
  int copies = 0;   ///< copies made in all
};

/// Specializes in place; kernels without such loops are unchanged.
SpecializeResult specialize_remainders(LKernel &kernel, int max_trip = 8);

}  // namespace atl::poly
