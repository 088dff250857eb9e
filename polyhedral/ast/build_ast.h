// Builds isl's AST for a schedule and converts it once into Atoll's loop AST
// (LKernel), with parallel / vector / reduction marks from the dependences.
#pragma once

#include "polyhedral/ast/loop_ast.h"
#include "polyhedral/deps/dependences.h"
#include "polyhedral/scop/scop.h"

#include <isl/cpp.h>

#include <functional>
#include <string>
#include <vector>

namespace atl::poly {

/// An operand packed into a local buffer (transforms/schedule/pack_tiles): the
/// schedule has copy statements `statement[o_0.., j_0..]` (added by an
/// extension node) that become `buffer[j] = array[o + j]`, and the reads of
/// `array` in `reader` become `buffer[s - o]`, o being the origin that the
/// last copy statement before them in the AST used. With panels of P
/// elements along the last dimension the copy is `statement[o.., p, j_0..j_{r-2}, l]`:
/// `buffer[p, j.., l] = array[o + (j.., P p + l)]`, and the reads become
/// `buffer[(s_last - o_last) / P, s - o.., (s_last - o_last) % P]`, written
/// as affine expressions where the enclosing loop runs over one aligned panel.
struct PackedRead {
  std::string statement;     ///< the copy statement's isl tuple name
  std::string buffer;        ///< the local array (LKernel::locals)
  std::string array;         ///< the array copied
  std::string reader;        ///< the statement whose reads of `array` read the buffer
  std::vector<long> shape;   ///< the buffer's extents (>= the footprint's box)
  long panel = 0;            ///< elements per panel of the last dimension (0: the box's layout)
  DType dtype = DType::F32;
};

struct AstOptions {
  bool parallel = true;   ///< mark outermost dependence-free loops kParallel
  bool vectorize = true;  ///< mark innermost dependence-free stride-1 loops kVector
  bool unroll = true;     ///< keep the schedule's "unroll" marks (false: the `unroll: false` hint)
  /// Packed operands: their buffers become locals of the innermost loop
  /// around all their accesses (no parallel loop inside it).
  std::vector<PackedRead> packs;
};

/// The LKernel of `scop` under `schedule`. Loops carrying no dependence get
/// mark::kParallel (outermost such loop of a nest only); innermost ones
/// with stride-1 writes mark::kVector; loops carrying only reduction
/// dependences mark::kReduction.
/// An isl AST expression of loop iterators and parameters (a bound, a
/// condition, a size) as an Index expression; `rename` maps identifiers.
LExprPtr index_expr_from_isl(const isl::ast_expr &e,
                             const std::function<std::string(const std::string &)> &rename = nullptr);

LKernel build_ast(const Scop &scop, const Dependences &deps, const isl::schedule &schedule,
                  const AstOptions &options = {});

}  // namespace atl::poly
