// Vector shuffles in LLVM IR: strided loads as wide loads plus one shuffle, and in-register square transposes.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <cstdint>
#include <vector>

namespace atl::cpu {

/// Largest constant stride along a vector loop that emit_strided_load reads
/// with wide loads (larger strides keep scalar code).
constexpr std::int64_t kMaxVectorLoadStride = 4;

/// The <lanes x float> vector p[0], p[stride], ..., p[stride * (lanes - 1)]:
/// one masked load of stride * lanes floats whose elements past the last one
/// used are masked off (no access beyond p[stride * (lanes - 1)]), then one
/// shuffle that keeps every stride-th element. With `lane_mask` (<lanes x i1>)
/// only the elements of true lanes are read, and false lanes take `fallback`.
llvm::Value *emit_strided_load(llvm::IRBuilderBase &b, llvm::Value *p, std::int64_t stride, unsigned lanes,
                               llvm::Value *lane_mask = nullptr, llvm::Value *fallback = nullptr);

/// The transpose of the square matrix whose rows are `rows` (n vectors of n
/// elements, n a power of two): log2(n) stages of two-input shuffles, each
/// swapping the off-diagonal blocks of one size. Result k holds element k of
/// every row, in row order.
std::vector<llvm::Value *> emit_transpose(llvm::IRBuilderBase &b, std::vector<llvm::Value *> rows);

}  // namespace atl::cpu
