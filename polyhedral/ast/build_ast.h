// Builds isl's AST for a schedule and converts it once into Atoll's loop AST
// (LKernel), with parallel / vector / reduction marks from the dependences.
#pragma once

#include "polyhedral/ast/loop_ast.h"
#include "polyhedral/deps/dependences.h"
#include "polyhedral/scop/scop.h"

#include <isl/cpp.h>

#include <string>

namespace atl::poly {

struct AstOptions {
  bool parallel = true;   ///< mark outermost dependence-free loops kParallel
  bool vectorize = true;  ///< mark innermost dependence-free stride-1 loops kVector
};

/// The LKernel of `scop` under `schedule`. Loops carrying no dependence get
/// mark::kParallel (outermost such loop of a nest only); innermost ones
/// with stride-1 writes mark::kVector; loops carrying only reduction
/// dependences mark::kReduction.
LKernel build_ast(const Scop &scop, const Dependences &deps, const isl::schedule &schedule,
                  const AstOptions &options = {});

}  // namespace atl::poly
