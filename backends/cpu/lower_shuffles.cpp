// Strided vector loads (wide masked load + shuffle) and in-register transposes (butterfly stages of shuffles).
#include "backends/cpu/lower_shuffles.h"

#include <atoll/diagnostics.h>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>

namespace atl::cpu {

llvm::Value *emit_strided_load(llvm::IRBuilderBase &b, llvm::Value *p, std::int64_t stride, unsigned lanes,
                               llvm::Value *lane_mask, llvm::Value *fallback) {
  ATOLL_ASSERT(stride >= 1 && lanes >= 1, "strided load: bad stride or lanes");
  const unsigned wide = static_cast<unsigned>(stride) * lanes;
  const unsigned last = static_cast<unsigned>(stride) * (lanes - 1);
  llvm::Value *mask = nullptr;
  if (lane_mask) {
    // Element j of the wide load is lane j / stride when j % stride == 0, off otherwise.
    std::vector<int> spread(wide);
    for (unsigned j = 0; j < wide; ++j) spread[j] = j % stride == 0 ? static_cast<int>(j / stride) : static_cast<int>(lanes);
    llvm::Value *off = llvm::Constant::getNullValue(lane_mask->getType());
    mask = b.CreateShuffleVector(lane_mask, off, spread);
  } else {
    std::vector<llvm::Constant *> bits;
    for (unsigned j = 0; j < wide; ++j) bits.push_back(b.getInt1(j <= last));
    mask = llvm::ConstantVector::get(bits);
  }
  auto *wide_ty = llvm::FixedVectorType::get(b.getFloatTy(), wide);
  llvm::Value *all = b.CreateMaskedLoad(wide_ty, p, llvm::Align(4), mask);
  std::vector<int> pick(lanes);
  for (unsigned l = 0; l < lanes; ++l) pick[l] = static_cast<int>(l * stride);
  llvm::Value *v = b.CreateShuffleVector(all, pick);
  if (lane_mask && fallback) v = b.CreateSelect(lane_mask, v, fallback);
  return v;
}

std::vector<llvm::Value *> emit_transpose(llvm::IRBuilderBase &b, std::vector<llvm::Value *> rows) {
  const std::size_t n = rows.size();
  ATOLL_ASSERT(n >= 1 && (n & (n - 1)) == 0, "transpose: not a power of two");
  // Stage k swaps element (i, j) with (i ^ k, j ^ k) where bit k of i and j differ.
  for (std::size_t k = n / 2; k >= 1; k /= 2) {
    std::vector<int> low(n), high(n);
    for (std::size_t j = 0; j < n; ++j) {
      bool set = (j & k) != 0;
      low[j] = static_cast<int>(set ? n + j - k : j);
      high[j] = static_cast<int>(set ? n + j : j + k);
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (i & k) continue;
      llvm::Value *a = rows[i], *c = rows[i + k];
      rows[i] = b.CreateShuffleVector(a, c, low);
      rows[i + k] = b.CreateShuffleVector(a, c, high);
    }
  }
  return rows;
}

}  // namespace atl::cpu
