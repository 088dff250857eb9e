// Element formats in LLVM IR: storage types, loads and stores of every dtype in the value type.
#include "backends/cpu/lower_elements.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

namespace atl::cpu {

namespace {

llvm::Value *to_vt(llvm::IRBuilderBase &b, llvm::Type *vt, llvm::Value *f) {
  return f->getType() == vt ? f : b.CreateFPExt(f, vt);
}

llvm::Value *to_float(llvm::IRBuilderBase &b, llvm::Value *v) {
  return v->getType()->isFloatTy() ? v : b.CreateFPTrunc(v, b.getFloatTy());
}

}  // namespace

llvm::Type *storage_type(llvm::IRBuilderBase &b, DType t) {
  switch (t) {
  case DType::F32: return b.getFloatTy();
  case DType::F16: return b.getHalfTy();
  case DType::BF16: return b.getInt16Ty();
  case DType::I8: return b.getInt8Ty();
  case DType::I32: return b.getInt32Ty();
  case DType::I64: return b.getInt64Ty();
  case DType::Bool:
  case DType::U8: return b.getInt8Ty();
  case DType::F64: return b.getDoubleTy();
  }
  return nullptr;
}

llvm::Value *load_element(llvm::IRBuilderBase &b, DType t, llvm::Value *p, llvm::Type *vt) {
  llvm::Value *raw = b.CreateLoad(storage_type(b, t), p);
  switch (t) {
  case DType::F32:
  case DType::F16:
  case DType::F64: return to_vt(b, vt, raw);
  case DType::BF16:
    return to_vt(b, vt, b.CreateBitCast(b.CreateShl(b.CreateZExt(raw, b.getInt32Ty()), 16), b.getFloatTy()));
  case DType::I8:
  case DType::I32:
  case DType::I64: return b.CreateSIToFP(raw, vt);
  case DType::Bool: return b.CreateUIToFP(b.CreateICmpNE(raw, b.getInt8(0)), vt);
  case DType::U8: return b.CreateUIToFP(raw, vt);
  }
  return nullptr;
}

void store_element(llvm::IRBuilderBase &b, DType t, llvm::Value *p, llvm::Value *v, llvm::Type *vt) {
  llvm::Value *out = nullptr;
  switch (t) {
  case DType::F32: out = to_float(b, v); break;
  case DType::F16: out = b.CreateFPTrunc(to_float(b, v), b.getHalfTy()); break;
  case DType::BF16: {
    // Round to nearest even on the float's bits; NaN stays a quiet NaN.
    llvm::Value *f = to_float(b, v);
    llvm::Value *bits = b.CreateBitCast(f, b.getInt32Ty());
    llvm::Value *hi = b.CreateLShr(bits, 16);
    llvm::Value *lsb = b.CreateAnd(hi, 1);
    llvm::Value *rounded = b.CreateLShr(b.CreateAdd(bits, b.CreateAdd(lsb, b.getInt32(0x7fff))), 16);
    llvm::Value *nan = b.CreateOr(hi, 0x40);
    out = b.CreateTrunc(b.CreateSelect(b.CreateFCmpUNO(f, f), nan, rounded), b.getInt16Ty());
    break;
  }
  case DType::I8:
  case DType::U8:
  case DType::I32: out = b.CreateTrunc(wrapping_i64(b, v), storage_type(b, t)); break;
  case DType::F64: out = v->getType()->isDoubleTy() ? v : b.CreateFPExt(v, b.getDoubleTy()); break;
  case DType::I64: out = saturating_i64(b, v); break;
  case DType::Bool: out = b.CreateZExt(b.CreateFCmpUNE(v, llvm::ConstantFP::get(vt, 0.0)), b.getInt8Ty()); break;
  }
  b.CreateStore(out, p);
}

/// Truncates toward zero modulo 2^64 (NaN and infinities give 0), so narrowing
/// wraps as atl::round_to does even past int64's range: beyond 2^63 a float
/// is an integer m * 2^e, reduced by shifting its mantissa (branch-free).
llvm::Value *wrapping_i64(llvm::IRBuilderBase &b, llvm::Value *v) {
  bool f32 = v->getType()->isFloatTy();
  unsigned width = f32 ? 32 : 64, mant = f32 ? 23 : 52, bias = f32 ? 127 : 1023;
  llvm::Type *ity = b.getIntNTy(width);
  llvm::Value *bits = b.CreateBitCast(v, ity);
  llvm::Value *exp = b.CreateZExt(b.CreateAnd(b.CreateLShr(bits, mant), (1u << (width - mant - 1)) - 1), b.getInt64Ty());
  llvm::Value *m = b.CreateZExt(
      b.CreateOr(b.CreateAnd(bits, llvm::ConstantInt::get(ity, (std::uint64_t(1) << mant) - 1)),
                 llvm::ConstantInt::get(ity, std::uint64_t(1) << mant)),
      b.getInt64Ty());
  llvm::Value *e = b.CreateSub(exp, b.getInt64(bias + mant));
  llvm::Value *shifted = b.CreateSelect(b.CreateICmpULT(e, b.getInt64(64)), b.CreateShl(m, e), b.getInt64(0));
  llvm::Value *negative = b.CreateICmpSLT(bits, llvm::ConstantInt::get(ity, 0));
  llvm::Value *big = b.CreateSelect(negative, b.CreateNeg(shifted), shifted);
  llvm::Value *small = b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v),
                                       llvm::ConstantFP::get(v->getType(), 9223372036854775808.0));
  return b.CreateSelect(small, saturating_i64(b, v), big);
}

llvm::Value *saturating_i64(llvm::IRBuilderBase &b, llvm::Value *v) {
  return b.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {b.getInt64Ty(), v->getType()}, {v});
}

}  // namespace atl::cpu
