// Loop AST -> self-contained C99 source with the same ABI as the LLVM path.
//
// Each generated file includes only <math.h>, <stdint.h> and <stddef.h>,
// defines its helpers (floor division and modulo, f16/bf16 conversions on
// uint16_t storage, NaN-propagating min/max, saturating float -> int64) as
// static inline functions, and compiles alone with `cc -std=c99 -c`.
// Per kernel NAME it defines
//   void NAME(T0 *restrict a0, ..., int64_t p0, ...);
//   void NAME_entry(void **arrays, const int64_t *params);
// Parallel loops carry `#pragma omp parallel for` and vector loops
// `#pragma omp simd`, both inside `#ifdef _OPENMP`, so a plain build is serial.
// Values are float or double as in lower_to_llvm; C evaluates `?:`, `&&` and
// guarded loads lazily, so no out-of-bounds access happens.
#pragma once

#include "polyhedral/ast/loop_ast.h"

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace atl::cpu {

/// One C99 translation unit defining every kernel given (for example the
/// kernels of one graph). Throws UserError from check_kernel.
std::string emit_c(const std::vector<poly::LKernel> &kernels);

/// The typed function's prototype, without the semicolon:
/// "void k(float *restrict Y, const float *restrict X, int64_t N)". Arrays
/// the kernel never stores to are const; `restrict` only when asked (C99
/// sources; a header C++ may include leaves it out).
std::string c_prototype(const poly::LKernel &kernel, bool with_restrict);

/// How printers of other C dialects (backends/gpu) reuse this one.
struct CBodyHooks {
  /// Prints the header of a For loop and its opening brace itself and
  /// returns true, or returns false for the plain `for (...) {` with its
  /// OpenMP pragma. Gets the loop, the indentation, and the loop's init and
  /// condition as C expressions.
  std::function<bool(std::ostream &os, const poly::LStmt &loop, const std::string &pad, const std::string &init,
                     const std::string &cond)>
      loop;
};

/// The row-major strides of the kernel's arrays and the statements of
/// `body` (a part of kernel.body), as the body of a C function whose
/// parameters are the kernel's arrays and parameters, indented one level.
void emit_c_body(std::ostream &os, const poly::LKernel &kernel, const poly::LStmt &body, const CBodyHooks &hooks);

/// The helper functions the printed statements call (floor division,
/// NaN-propagating min and max, f16 and bf16 conversions, ...), each a
/// `static inline` function over the <stdint.h> types, guarded by
/// ATOLL_C_HELPERS.
std::string c_helpers();

}  // namespace atl::cpu
