// A Pluto-style scheduler (Bondhugula et al., PLDI 2008) on PPL's
// MIP_Problem: affine hyperplanes found one level at a time by an ILP that
// minimises a bound u.N + w on dependence distances under Farkas-linearised
// legality constraints, grouped into permutable bands, with cuts between
// strongly connected components where no hyperplane exists.
//
//   for (i) for (j) C[i][j] = 0;          band(i, j)  [coincident, coincident]
//   for (i) for (j) for (k)          =>     sequence
//     C[i][j] += A[i][k] * B[k][j];           filter S_init: leaf
//                                             filter S: band(k)
#pragma once

#include "polyhedral/deps/dependences.h"
#include "polyhedral/schedule/schedule.h"
#include "polyhedral/scop/scop.h"

#include <isl/cpp.h>

#include <vector>

namespace atl::poly {

/// Bounds of the Pluto-style search.
struct PlutoOptions {
  int max_coefficient = 4;  ///< iterator coefficients of a hyperplane lie in [0, max_coefficient]
  int max_shift = 4;        ///< constant terms lie in [0, max_shift]
  int max_solves = 400;     ///< ILP solves before giving up (fallback to the original order)
  unsigned long quota = 0;  ///< bound on isl operations of the search (0 = none); the fallback runs unbounded
  double seconds = 0;       ///< bound on the search's wall-clock seconds, PPL's and isl's (0 = none)
};

/// What the scheduler core needs, without a Scop: statement domains in
/// original execution order (each an isl set named by its statement, all
/// in one context), the dependences a schedule must respect and those that
/// decide parallelism.
struct PlutoProblem {
  std::vector<isl::set> statements;  ///< one domain per statement, original order
  isl::set context;                  ///< parameter ranges (may be a universe params set)
  isl::union_map validity;           ///< every pair that must stay ordered
  isl::union_map coincidence;        ///< pairs a coincident (parallel) member must not carry
};

/// The Pluto-style schedule of `problem`. Bands are permutable; a member is
/// coincident when every coincidence dependence not ordered outside its band
/// has distance 0 on it. On failure (no hyperplane and nothing to cut, or
/// more than `options.max_solves` ILP solves, or past `options.seconds`) the
/// original order is returned, algorithm "original", with a line in
/// `fallbacks`. isl and PPL errors do not escape. One problem runs at a time
/// (PPL is not thread safe); other callers wait.
ScheduleResult schedule_pluto_problem(const PlutoProblem &problem, const PlutoOptions &options = {});

/// The Pluto-style scheduler on a SCoP: validity = deps.validity(),
/// coincidence = deps.all() plus deps.validity() (so reductions are never
/// parallel). algorithm "pluto". options.force_fallback (any value) sets the
/// solve cap to 0, forcing the original order; options.quota bounds the isl
/// operations of the run and options.seconds its time.
ScheduleResult schedule_pluto(const Scop &scop, const Dependences &deps, const ScheduleOptions &options = {});

}  // namespace atl::poly
