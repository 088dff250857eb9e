// Registry entries of MatMul (batched, broadcasting, 1-D operands) and Gemm.
#include "graph/ir/ops/ops_util.h"

namespace atl::ops {
namespace {

/// MatMul's operands as matrices: 1-D operands get the unit dim ONNX adds.
struct MatMulShapes {
  SymShape a, b, batch;
  bool vec_a = false, vec_b = false;
  Dim m, k, n;
};

MatMulShapes matmul_shapes(const OpContext &ctx) {
  const TensorType &A = in(ctx, 0), &B = in(ctx, 1);
  require_numeric(ctx, A, "A");
  require_same_dtype(ctx, A, "A", B, "B");
  if (A.rank() < 1 || B.rank() < 1) fail(ctx, "operands must have rank at least 1, got " + A.str() + " and " + B.str());
  MatMulShapes s;
  s.a = A.shape;
  s.b = B.shape;
  if (s.a.size() == 1) s.vec_a = true, s.a.insert(s.a.begin(), Dim(1));
  if (s.b.size() == 1) s.vec_b = true, s.b.push_back(Dim(1));
  s.m = s.a[s.a.size() - 2];
  s.k = s.a.back();
  s.n = s.b.back();
  if (s.k != s.b[s.b.size() - 2])
    fail(ctx, "A " + A.str() + " has " + s.k.str() + " columns but B " + B.str() + " has " + s.b[s.b.size() - 2].str() +
                  " rows");
  SymShape ba(s.a.begin(), s.a.end() - 2), bb(s.b.begin(), s.b.end() - 2);
  s.batch = broadcast_shapes(ctx, {ba, bb});
  return s;
}

std::vector<TensorType> infer_matmul(const OpContext &ctx) {
  MatMulShapes s = matmul_shapes(ctx);
  TensorType out{in(ctx, 0).dtype, s.batch};
  if (!s.vec_a) out.shape.push_back(s.m);
  if (!s.vec_b) out.shape.push_back(s.n);
  return {out};
}

std::int64_t flops_matmul(const OpContext &ctx) {
  MatMulShapes s = matmul_shapes(ctx);
  return 2 * elements(ctx.outputs[0].shape) * s.k.value;
}

OpDefinition define_matmul(const OpContext &ctx) {
  MatMulShapes s = matmul_shapes(ctx);
  std::vector<std::string> bidx = index_names(static_cast<int>(s.batch.size()), "b");
  std::vector<std::string> y = bidx, a, b;
  if (!s.vec_a) y.push_back("m");
  if (!s.vec_b) y.push_back("n");
  SymShape ba(in(ctx, 0).shape.begin(), in(ctx, 0).shape.end() - (s.vec_a ? 1 : 2));
  SymShape bb(in(ctx, 1).shape.begin(), in(ctx, 1).shape.end() - (s.vec_b ? 1 : 2));
  a = broadcast_subs(ba, s.batch, bidx);
  b = broadcast_subs(bb, s.batch, bidx);
  if (!s.vec_a) a.push_back("m");
  a.push_back("k");
  b.push_back("k");
  if (!s.vec_b) b.push_back("n");
  return {call("Y", y) + " +=! " + call("A", a) + " * " + call("B", b), {"A", "B"}, {"Y"}};
}

struct GemmShapes {
  Dim m, k, n;
  bool ta, tb;
};

GemmShapes gemm_shapes(const OpContext &ctx) {
  const TensorType &A = in(ctx, 0), &B = in(ctx, 1);
  require_numeric(ctx, A, "A");
  require_same_dtype(ctx, A, "A", B, "B");
  if (A.rank() != 2 || B.rank() != 2) fail(ctx, "A and B must be matrices, got " + A.str() + " and " + B.str());
  GemmShapes s;
  s.ta = ctx.attr_int("transA", 0) != 0;
  s.tb = ctx.attr_int("transB", 0) != 0;
  s.m = A.shape[s.ta ? 1 : 0];
  s.k = A.shape[s.ta ? 0 : 1];
  Dim kb = B.shape[s.tb ? 1 : 0];
  s.n = B.shape[s.tb ? 0 : 1];
  if (s.k != kb)
    fail(ctx, std::string("A") + (s.ta ? "^T" : "") + " has " + s.k.str() + " columns but B" + (s.tb ? "^T" : "") +
                  " has " + kb.str() + " rows");
  if (has_input(ctx, 2)) {
    const TensorType &C = in(ctx, 2);
    require_same_dtype(ctx, A, "A", C, "C");
    SymShape mn{s.m, s.n};
    if (!broadcasts_to(C.shape, mn))
      fail(ctx, "C " + C.str() + " does not broadcast to the result shape " + sym_shape_to_string(mn));
  }
  return s;
}

std::vector<TensorType> infer_gemm(const OpContext &ctx) {
  GemmShapes s = gemm_shapes(ctx);
  return {TensorType{in(ctx, 0).dtype, {s.m, s.n}}};
}

std::int64_t flops_gemm(const OpContext &ctx) {
  GemmShapes s = gemm_shapes(ctx);
  std::int64_t mn = s.m.value * s.n.value, f = 2 * mn * s.k.value;
  if (ctx.attr_float("alpha", 1.0) != 1.0) f += mn;
  if (has_input(ctx, 2)) f += mn * (ctx.attr_float("beta", 1.0) != 1.0 ? 2 : 1);
  return f;
}

OpDefinition define_gemm(const OpContext &ctx) {
  GemmShapes s = gemm_shapes(ctx);
  double alpha = ctx.attr_float("alpha", 1.0), beta = ctx.attr_float("beta", 1.0);
  std::string a = s.ta ? "A(k, m)" : "A(m, k)", b = s.tb ? "B(n, k)" : "B(k, n)";
  std::string text = "Y(m, n) +=! " + a + " * " + b;
  if (alpha != 1.0 || has_input(ctx, 2)) {
    std::string e = alpha != 1.0 ? num(alpha) + " * Y(m, n)" : "Y(m, n)";
    if (has_input(ctx, 2)) {
      std::string c = call("C", broadcast_subs(in(ctx, 2).shape, {s.m, s.n}, {"m", "n"}));
      e += " + " + (beta != 1.0 ? num(beta) + " * " + c : c);
    }
    text += "\nY(m, n) = " + e;
  }
  return {text, in_names(ctx, {"A", "B", "C"}), {"Y"}};
}

}  // namespace

std::vector<OpInfo> linalg_ops() {
  return {
      OpInfo{"MatMul", PatternKind::OutFusable, 2, 2, 1, 1, {}, {}, infer_matmul, flops_matmul, define_matmul},
      OpInfo{"Gemm", PatternKind::OutFusable, 2, 3, 1, 1,
             {{"alpha", AttrKind::Float}, {"beta", AttrKind::Float}, {"transA", AttrKind::Int}, {"transB", AttrKind::Int}},
             {}, infer_gemm, flops_gemm, define_gemm},
  };
}

}  // namespace atl::ops
