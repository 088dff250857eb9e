// Helpers of the schedule-transformation tests: a scheduled SCoP, loop
// counting in the loop AST and its text.
#pragma once

#include "tests/unit/polyhedral/poly_test_util.h"

#include "polyhedral/ast/build_ast.h"
#include "polyhedral/deps/dependences.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/schedule.h"
#include "polyhedral/scop/scop.h"

#include <sstream>
#include <string>

namespace polytest {

/// A graph's SCoP, dependences and isl schedule, in one context (declared
/// first, so destroyed last).
struct Scheduled {
  atl::poly::IslContext ctx;
  atl::poly::Scop scop;
  atl::poly::Dependences deps;
  isl::schedule schedule;

  explicit Scheduled(const atl::Graph &g) {
    scop = atl::poly::build_scop(ctx, g, g.order());
    deps = atl::poly::compute_dependences(scop);
    schedule = atl::poly::schedule_isl(scop, deps).schedule;
  }
  bool legal(const isl::schedule &s) const { return !atl::poly::check_legality(scop, deps, s).has_value(); }
  std::string ast(const isl::schedule &s) const {
    std::ostringstream os;
    atl::poly::print_loop_ast(os, atl::poly::build_ast(scop, deps, s));
    return os.str();
  }
};

/// Number of `for` loops in loop-AST text.
inline int count_fors(const std::string &text) {
  int n = 0;
  for (std::size_t p = text.find("for "); p != std::string::npos; p = text.find("for ", p + 1)) ++n;
  return n;
}

}  // namespace polytest
