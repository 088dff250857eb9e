// Scalar and vector lowering of the Compute language's functions: inline f32 approximations, intrinsics, libm for f64.
#include "backends/cpu/lower_calls.h"

#include "backends/cpu/lower_reduction.h"
#include "backends/cpu/vector_math.h"

#include <atoll/diagnostics.h>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

namespace atl::cpu {

namespace {

llvm::Value *libm(llvm::IRBuilder<> &b, llvm::Module &m, llvm::Type *vt, const char *float_name, const char *double_name,
                  const std::vector<llvm::Value *> &args) {
  const char *name = vt->isFloatTy() ? float_name : double_name;
  std::vector<llvm::Type *> types(args.size(), vt);
  llvm::FunctionCallee f = m.getOrInsertFunction(name, llvm::FunctionType::get(vt, types, false));
  if (auto *fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    fn->addFnAttr(llvm::Attribute::WillReturn);
    fn->setDoesNotAccessMemory();
  }
  llvm::CallInst *call = b.CreateCall(f, args);
  call->setDoesNotAccessMemory();
  return call;
}

bool is_constant(const poly::LExpr &e, double v) { return e.kind == poly::LExprKind::Float && e.fval == v; }

/// True when `e` is a value expression a `op` b.
bool binary(const poly::LExpr &e, compute::BinOp op) {
  return e.kind == poly::LExprKind::Binary && e.type == poly::LType::Value && e.binop == op && e.args.size() == 2 &&
         e.args[0] && e.args[1];
}

/// The other operand of `e` = c op x or x op c (commutative op), else null.
const poly::LExpr *with_constant(const poly::LExpr &e, compute::BinOp op, double c) {
  if (!binary(e, op)) return nullptr;
  if (is_constant(*e.args[0], c)) return e.args[1].get();
  if (is_constant(*e.args[1], c)) return e.args[0].get();
  return nullptr;
}

}  // namespace

const poly::LExpr *gelu_argument(const poly::LExpr &e) {
  if (!binary(e, compute::BinOp::Mul)) return nullptr;
  for (int side = 0; side < 2; ++side) {
    const poly::LExpr *x = with_constant(*e.args[side], compute::BinOp::Mul, 0.5);
    const poly::LExpr *one_plus = with_constant(*e.args[1 - side], compute::BinOp::Add, 1.0);
    if (!x || !one_plus || one_plus->kind != poly::LExprKind::Call || one_plus->func != compute::Func::Erf ||
        one_plus->args.size() != 1 || !one_plus->args[0])
      continue;
    const poly::LExpr *y = with_constant(*one_plus->args[0], compute::BinOp::Mul, 0.7071067811865476);
    if (y && poly::same_expr(*x, *y)) return x;
  }
  return nullptr;
}

llvm::Value *emit_call(llvm::IRBuilder<> &b, llvm::Module &m, compute::Func f, const std::vector<llvm::Value *> &a,
                       llvm::Type *vt, bool bounded_above) {
  if (vt->isFloatTy()) {
    switch (f) {
    case compute::Func::Exp: return emit_exp(b, a[0], bounded_above);
    case compute::Func::Log: return emit_log(b, a[0]);
    case compute::Func::Tanh: return emit_tanh(b, a[0]);
    case compute::Func::Erf: return emit_erf(b, a[0]);
    case compute::Func::Sigmoid: return emit_sigmoid(b, a[0]);
    default: break;
    }
  }
  switch (f) {
  case compute::Func::Exp: return b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, a[0]);
  case compute::Func::Log: return b.CreateUnaryIntrinsic(llvm::Intrinsic::log, a[0]);
  case compute::Func::Sqrt: return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a[0]);
  case compute::Func::Abs: return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a[0]);
  case compute::Func::Floor: return b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, a[0]);
  case compute::Func::Pow: return b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, a[0], a[1]);
  case compute::Func::Tanh: return libm(b, m, vt, "tanhf", "tanh", a);
  case compute::Func::Erf: return libm(b, m, vt, "erff", "erf", a);
  case compute::Func::Sigmoid: {
    llvm::Value *one = llvm::ConstantFP::get(vt, 1.0);
    llvm::Value *ex = b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, b.CreateFNeg(a[0]));
    return b.CreateFDiv(one, b.CreateFAdd(one, ex));
  }
  case compute::Func::Min: return emit_pick(b, a[0], a[1], false);
  case compute::Func::Max: return emit_pick(b, a[0], a[1], true);
  case compute::Func::Sin: return libm(b, m, vt, "sinf", "sin", a);
  case compute::Func::Cos: return libm(b, m, vt, "cosf", "cos", a);
  case compute::Func::Tan: return libm(b, m, vt, "tanf", "tan", a);
  case compute::Func::Asin: return libm(b, m, vt, "asinf", "asin", a);
  case compute::Func::Acos: return libm(b, m, vt, "acosf", "acos", a);
  case compute::Func::Atan: return libm(b, m, vt, "atanf", "atan", a);
  case compute::Func::Sinh: return libm(b, m, vt, "sinhf", "sinh", a);
  case compute::Func::Cosh: return libm(b, m, vt, "coshf", "cosh", a);
  case compute::Func::Asinh: return libm(b, m, vt, "asinhf", "asinh", a);
  case compute::Func::Acosh: return libm(b, m, vt, "acoshf", "acosh", a);
  case compute::Func::Atanh: return libm(b, m, vt, "atanhf", "atanh", a);
  }
  internal_error(__FILE__, __LINE__, "unknown function");
}

llvm::Value *emit_vector_call(llvm::IRBuilder<> &b, compute::Func f, const std::vector<llvm::Value *> &a,
                              bool bounded_above) {
  switch (f) {
  case compute::Func::Exp: return emit_exp(b, a[0], bounded_above);
  case compute::Func::Log: return emit_log(b, a[0]);
  case compute::Func::Sqrt: return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a[0]);
  case compute::Func::Abs: return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a[0]);
  case compute::Func::Floor: return b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, a[0]);
  case compute::Func::Pow: return b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, a[0], a[1]);
  case compute::Func::Sigmoid: return emit_sigmoid(b, a[0]);
  case compute::Func::Min: return emit_pick(b, a[0], a[1], false);
  case compute::Func::Max: return emit_pick(b, a[0], a[1], true);
  case compute::Func::Tanh: return emit_tanh(b, a[0]);
  case compute::Func::Erf: return emit_erf(b, a[0]);
  // libm calls: vector_analysis keeps loops that call them scalar.
  case compute::Func::Sin:
  case compute::Func::Cos:
  case compute::Func::Tan:
  case compute::Func::Asin:
  case compute::Func::Acos:
  case compute::Func::Atan:
  case compute::Func::Sinh:
  case compute::Func::Cosh:
  case compute::Func::Asinh:
  case compute::Func::Acosh:
  case compute::Func::Atanh:
    break;
  }
  internal_error(__FILE__, __LINE__, "unknown function");
}

}  // namespace atl::cpu
