// What explicit vector code needs to know about a loop: linear index forms,
// constant trip counts and whether a kVector loop's body has a vector form.
#pragma once

#include "polyhedral/ast/loop_ast.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace atl::cpu {

/// Coefficient of `iterator` in an Index expression: 0 when the expression
/// does not depend on it, empty when it depends on it non-linearly.
std::optional<std::int64_t> coefficient(const poly::LExpr &e, const std::string &iterator);

/// b - a when it is a constant (both linear in the same variables).
std::optional<std::int64_t> constant_difference(const poly::LExpr &a, const poly::LExpr &b);

/// A kVector loop of `trip` elements that runs as one vector of `lanes`
/// lanes with the last ones masked off: 9 to 15 elements with 16 lanes
/// (AVX-512, where masked loads and stores cost what full ones do); 5 to 15
/// but 8 where its values stay in registers (`in_registers`: the promoted
/// accumulators of a reduction loop of 16 steps or more, long_promoted_loop).
/// Otherwise a shorter trip runs as narrower vectors and up to three
/// scalars. In registers, a masked 7 keeps a register tile's leftover
/// columns (999 = 62 x 16 + 7) within the register file; where a masked
/// vector is stored and read back at every step (a depthwise row of 6
/// columns over a 3-step window) it waits on its own store, and narrower
/// vectors were measured three times faster.
inline bool masked_vector_trip(std::int64_t lanes, std::int64_t trip, bool in_registers = false) {
  if (lanes != 16 || trip >= lanes) return false;
  return in_registers ? trip > 4 && trip != 8 : trip * 2 > lanes;
}

/// The vectors and scalars a kVector loop of constant `trip` emits as
/// straight-line code at `lanes` lanes inside a register tile's promoted
/// loop (LlvmLowering::vector_loop; `in_registers` as above): whole
/// vectors, then the rest as one masked vector, narrower vectors (of at
/// least `min_lanes`) or scalars.
/// The tile's accumulators are these pieces times its rows.
inline std::int64_t vector_pieces(std::int64_t lanes, std::int64_t trip, bool in_registers = true,
                                  std::int64_t min_lanes = 4) {
  if (trip <= 0) return 0;
  if (masked_vector_trip(lanes, trip, in_registers)) return 1;
  if (trip < lanes) {
    if (trip < min_lanes) return trip;
    std::int64_t narrow = min_lanes;
    while (narrow * 2 <= trip) narrow *= 2;
    return vector_pieces(narrow, trip, in_registers, min_lanes);
  }
  const std::int64_t rest = trip % lanes;
  return trip / lanes + (rest >= min_lanes ? vector_pieces(lanes, rest, in_registers, min_lanes) : rest);
}

/// A promoted reduction loop long enough to keep masked accumulators
/// (masked_vector_trip's `in_registers`): 16 steps or more, or a trip count
/// that is not a constant.
bool long_promoted_loop(const poly::LStmt &loop);

/// The trip count of a loop `for (it = init; it < or <= bound; it += step)`
/// when it is a constant.
std::optional<std::int64_t> constant_trip_count(const poly::LStmt &loop);

/// True when the body of `loop` (marked kVector, step 1) can run `lanes`
/// iterations at once as explicit vector code: stores only (no loops, no
/// conditions) to f32 arrays at stride 1 along the iterator; values built
/// from f32 loads (guarded ones included) that are invariant along the
/// iterator or move only in their last subscript, by a constant stride of 1 to
/// kMaxVectorLoadStride (lower_shuffles.h: wide loads and a shuffle),
/// invariant Index values, constants, + - * /, neg, min, max and the
/// intrinsic functions (exp, log, sqrt, abs, floor, pow, sigmoid). Other
/// loops keep scalar code (remainders always do).
bool has_vector_form(const poly::LKernel &kernel, const poly::LStmt &loop);

/// How a kReduction loop runs as explicit vector code with its accumulators
/// split into <lanes x float> partial values (vector_reductions).
struct VectorReductionForm {
  /// Reduction stores (op=) at addresses that do not move with the loop.
  std::vector<const poly::LStmt *> reductions;
  /// Conditions `if (iterator == e)` (e invariant, no else) whose stores touch
  /// nothing else of the body: they run once, after the loop, when e is one
  /// of its iterations (an initialisation isl placed in the last iteration).
  std::vector<const poly::LStmt *> peeled;
};

/// The vector form of a loop marked kReduction (re-association allowed),
/// step 1, with an upper bound: its body is straight-line stores to f32
/// arrays with values as in has_vector_form, plus peelable conditions (see
/// VectorReductionForm). Each store either moves at stride 1 along the
/// iterator (vector stores, as in a kVector loop) or is a reduction at an
/// address that does not move; a reduction's array has no other store in the
/// body and is not read there. Empty reductions when the loop does not qualify.
VectorReductionForm vector_reductions(const poly::LKernel &kernel, const poly::LStmt &loop);

/// The reduction loops among the direct statements of `unrolled` (a loop
/// the backend unrolls) whose lane folds may wait until every iteration is
/// emitted, to run together (emit_horizontal_group): each has a vector form
/// (vector_reductions), and each of its reduction stores writes a distinct
/// element in every iteration (a subscript moves with the unrolled
/// iterator, the others do not) of an array that nothing in the unrolled
/// body reads, that no other reduction loop there reduces into, and that
/// only the loop's reductions and direct initialisations at the same
/// subscripts write.
std::set<const poly::LStmt *> deferrable_folds(const poly::LKernel &kernel, const poly::LStmt &unrolled);

/// The next cache tile of a panel operand P[p, k, l] read in a register
/// tile's k loop: `rows`, the innermost loop outside k that does not move
/// the panel row (p, k: every subscript but the last, the column, which
/// the caller picks) and so reuses it (the row tiles), and `delta`, how
/// those subscripts move when the innermost loop outside `rows` that moves
/// them advances one step (the loops inside it starting where they then
/// start).
struct NextPanelTile {
  const poly::LStmt *rows = nullptr;
  std::vector<std::int64_t> delta;
};

/// NextPanelTile of `load` in the loops `loops` (outermost first, the k loop
/// last), or nothing: no loop reuses the panels, none outside moves them,
/// or a subscript or a loop start is not affine in the iterators.
std::optional<NextPanelTile> next_panel_tile(const std::vector<const poly::LStmt *> &loops, const poly::LExpr &load);

/// Stores that may bypass the caches (non-temporal): each writes an f32
/// output array of constant shape and at least `min_bytes`, and is the last
/// statement of the kernel (in program order) that reads or writes that
/// array, so nothing in the kernel reads what it writes back from memory.
std::set<const poly::LStmt *> streaming_stores(const poly::LKernel &kernel, std::int64_t min_bytes);

/// The arrays whose elements a reduction loop can keep in registers: the
/// loop's body is straight-line once lowered (loops fully unrolled: kUnroll
/// or vector loops with short constant trip counts, no parallel loops, no
/// conditions), its one store is a reduction (op=) into an f32 array at an
/// address that does not move with the loop but moves with every unrolled
/// loop (one subscript each, so instances never share an element), and that array is not read
/// in the body. Empty when the loop does not qualify or would need more than
/// `max_accumulators` values.
std::set<std::string> promotable_accumulators(const poly::LKernel &kernel, const poly::LStmt &loop, std::int64_t lanes,
                                              std::int64_t max_unroll, std::int64_t max_accumulators);

}  // namespace atl::cpu
