// Facts about a loop-AST kernel that every CPU code generator needs: value type,
// array lookup, parallel-loop bounds, speculation safety, and up-front checks.
#pragma once

#include "polyhedral/ast/loop_ast.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace atl::cpu {

/// True when the kernel computes values in `float` (every array is f32, f16
/// or bf16); otherwise values are `double`, so integer results are exact.
bool uses_float_values(const poly::LKernel &kernel);

/// The array named `name`, or null.
const poly::LArray *find_array(const poly::LKernel &kernel, const std::string &name);

/// The upper bound of a loop whose condition is `iterator < e` or
/// `iterator <= e` (e free of the iterator) and whose step is positive: the
/// shape a parallel loop needs to become a trip count. Empty otherwise.
struct LoopUpperBound {
  poly::LExprPtr bound;
  bool inclusive = false;  ///< `<=` rather than `<`
};
std::optional<LoopUpperBound> loop_upper_bound(const poly::LStmt &loop);

/// True when evaluating `e` can never fault, so it may run even when its
/// result is not used: no unguarded Load, no Index division or modulo by a
/// non-constant or zero divisor.
bool is_speculatable(const poly::LExpr &e);

/// Throws UserError when the kernel cannot be compiled: a name that is not a
/// C identifier, a duplicate name, an unknown array or variable, a subscript
/// count that differs from the array's rank, a symbolic extent that is not a
/// parameter, a Value where an Index belongs or the reverse, a zero step.
void check_kernel(const poly::LKernel &kernel);

/// The arrays the kernel's body stores to (the others are const in C and GPU signatures).
std::set<std::string> stored_arrays(const poly::LKernel &kernel);

/// The C type an element is stored as: "float", "uint16_t" (f16, bf16),
/// "int8_t", "int32_t", "int64_t", "uint8_t" (bool).
const char *c_storage_type(DType t);

/// One line describing an argument for generated headers:
/// "X: f32[N, 64], input".
std::string describe_array(const poly::LArray &array);

}  // namespace atl::cpu
