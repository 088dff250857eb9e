// Test helper: executes an LKernel directly on Tensors (a tiny interpreter
// of the loop AST), so the polyhedral tests can check values without a backend.
#pragma once

#include "polyhedral/ast/loop_ast.h"

#include <atoll/tensor.h>

#include <cstdint>
#include <map>
#include <string>

namespace atl::poly::testing {

/// Runs `kernel` on `arrays` (every array of the kernel, by name, with its
/// concrete shape; outputs and temporaries zero-filled by the caller or by
/// this function when missing). Values are computed in double and rounded to
/// the destination array's dtype at every store. Throws std::runtime_error
/// for an out-of-bounds access (a bug in the generated AST).
/// Returns the number of statement instances executed.
std::int64_t interpret(const LKernel &kernel, std::map<std::string, Tensor> &arrays,
                       const std::map<std::string, std::int64_t> &params = {});

}  // namespace atl::poly::testing
