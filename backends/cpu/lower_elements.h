// Element formats in LLVM IR: how each dtype is stored, and its conversion
// from and to the kernel's value type (f32 or f64).
#pragma once

#include <atoll/dtype.h>

#include <llvm/IR/IRBuilder.h>

namespace atl::cpu {

/// The LLVM type an element is stored as (f16: half, bf16: i16, bool: i8).
llvm::Type *storage_type(llvm::IRBuilderBase &b, DType t);

/// The element at `p` as a value of type `vt` (integers and bools converted exactly).
llvm::Value *load_element(llvm::IRBuilderBase &b, DType t, llvm::Value *p, llvm::Type *vt);

/// Stores `v` (of type `vt`) at `p` rounded to dtype `t` as atl::round_to does:
/// bf16 to nearest even, narrow integers wrapping, i64 saturating, bool v != 0.
void store_element(llvm::IRBuilderBase &b, DType t, llvm::Value *p, llvm::Value *v, llvm::Type *vt);

/// Truncates toward zero modulo 2^64 (NaN and infinities give 0).
llvm::Value *wrapping_i64(llvm::IRBuilderBase &b, llvm::Value *v);

/// Truncates toward zero, saturating at int64's range (NaN gives 0).
llvm::Value *saturating_i64(llvm::IRBuilderBase &b, llvm::Value *v);

}  // namespace atl::cpu
