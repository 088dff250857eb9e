// Explicit vector code for kVector loops (<lanes x float> loads, stores, broadcasts) and lowering-time unrolling.
#include "tests/unit/backends/cpu/test_kernels.h"

#include "backends/cpu/vector_analysis.h"

#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <random>

namespace atl::cpu::test {
namespace {

using namespace poly::build;
using compute::AssignOp;
using compute::BinOp;
using Role = poly::LArray::Role;

/// Z[i, j] = A[i] * X[j] + 1 (A broadcast along j), j marked kVector, over N x M parameters.
poly::LKernel scale_rows(const std::string &name, int lanes) {
  auto inner = loop_to("j", var("M"),
                       store("Z", {var("i"), var("j")},
                             binary(BinOp::Add, binary(BinOp::Mul, load("A", {var("i")}), load("X", {var("j")})), real(1))),
                       {poly::mark::kVector});
  auto k = kernel(name, {array("A", DType::F32, {Dim::sym("N")}, Role::Input),
                         array("X", DType::F32, {Dim::sym("M")}, Role::Input),
                         array("Z", DType::F32, {Dim::sym("N"), Dim::sym("M")}, Role::Output)},
                  {"N", "M"}, loop_to("i", var("N"), inner));
  k.vector_lanes = lanes;
  return k;
}

/// C[j] += A[k] * B[k, j] over k (outer) and a constant-trip vector loop j in [0, 37).
poly::LKernel axpy_rows(const std::string &name, int lanes) {
  auto inner = loop_to("j", integer(37),
                       store("C", {var("j")}, binary(BinOp::Mul, load("A", {var("k")}), load("B", {var("k"), var("j")})),
                             AssignOp::Add),
                       {poly::mark::kVector});
  auto k = kernel(name, {array("A", DType::F32, {5}, Role::Input), array("B", DType::F32, {5, 37}, Role::Input),
                         array("C", DType::F32, {37}, Role::Output)},
                  {}, loop_to("k", integer(5), inner, {poly::mark::kReduction}));
  k.vector_lanes = lanes;
  return k;
}

const poly::LStmt *first_vector_loop(const poly::LStmt &s) {
  if (s.kind == poly::LStmtKind::For && s.marks.count(poly::mark::kVector)) return &s;
  for (const auto &b : s.body)
    if (const poly::LStmt *f = b ? first_vector_loop(*b) : nullptr) return f;
  return nullptr;
}

TEST_SUITE("backends") {

TEST_CASE("cpu vectors: a kVector loop is lowered to explicit <16 x float> and <8 x float> operations") {
  std::string ir16 = emit_llvm_ir({scale_rows("v16", 16)});
  CHECK(ir16.find("load <16 x float>") != std::string::npos);
  CHECK(ir16.find("store <16 x float>") != std::string::npos);
  CHECK(ir16.find("fmul contract <16 x float>") != std::string::npos);
  CHECK(ir16.find("shufflevector") != std::string::npos);  // the broadcast of A[i]
  std::string ir8 = emit_llvm_ir({scale_rows("v8", 8)});
  CHECK(ir8.find("load <8 x float>") != std::string::npos);
  CHECK(ir8.find("<16 x float>") == std::string::npos);
  // Without lanes the loop stays scalar with a vectorization hint.
  std::string ir1 = emit_llvm_ir({scale_rows("v1", 0)});
  CHECK(ir1.find("x float>") == std::string::npos);
  CHECK(ir1.find("llvm.loop.vectorize.enable") != std::string::npos);
}

TEST_CASE("cpu vectors: a constant trip count gives straight-line vector chunks and a scalar remainder") {
  std::string ir = emit_llvm_ir({axpy_rows("cst", 16)});
  std::size_t vstores = 0;
  for (std::size_t p = ir.find("store <16 x float>"); p != std::string::npos; p = ir.find("store <16 x float>", p + 1))
    ++vstores;
  CHECK(vstores == 2);  // 37 = 2 x 16 + 5
  CHECK(ir.find("j.vheader") == std::string::npos);
}

TEST_CASE("cpu vectors: random lane counts and odd sizes compute what scalar code computes") {
  const unsigned seed = 4242;
  std::mt19937 rng(seed);
  std::vector<poly::LKernel> ks;
  std::vector<int> lanes = {0, 4, 8, 16, 16, 8};
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    ks.push_back(scale_rows("s" + std::to_string(i), lanes[i]));
    ks.push_back(axpy_rows("a" + std::to_string(i), lanes[i]));
  }
  for (auto &[path, exe] : both_paths(ks)) {
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      std::int64_t n = 1 + rng() % 5, m = 1 + rng() % 41;
      Buffer A(DType::F32, n), X(DType::F32, m), Z(DType::F32, n * m);
      for (int r = 0; r < n; ++r) A.set(r, r - 2);
      for (int c = 0; c < m; ++c) X.set(c, 3 * c + 1);
      void *arrays[] = {A.data(), X.data(), Z.data()};
      std::int64_t params[] = {n, m};
      exe->run("s" + std::to_string(i), arrays, params);
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < m; ++c)
          CHECK_MESSAGE(Z.get(r * m + c) == (r - 2) * (3.0 * c + 1) + 1,
                        path << " seed " << seed << " lanes " << lanes[i] << " n " << n << " m " << m);
      Buffer a(DType::F32, 5), b(DType::F32, 5 * 37), cc(DType::F32, 37);
      for (int k = 0; k < 5; ++k) a.set(k, k + 1);
      for (int e = 0; e < 5 * 37; ++e) b.set(e, e % 7);
      for (int j = 0; j < 37; ++j) cc.set(j, j);
      void *arrays2[] = {a.data(), b.data(), cc.data()};
      exe->run("a" + std::to_string(i), arrays2, nullptr);
      for (int j = 0; j < 37; ++j) {
        double want = j;
        for (int k = 0; k < 5; ++k) want += (k + 1) * ((k * 37 + j) % 7);
        CHECK_MESSAGE(cc.get(j) == want, path << " lanes " << lanes[i] << " j " << j);
      }
    }
  }
}

/// Z[j] = erf(X[j]) / (X[j] + 3), j marked kVector over M (a parameter) or a constant M.
poly::LKernel erf_ratio(const std::string &name, int lanes, std::optional<std::int64_t> m) {
  auto x = [] { return load("X", {var("j")}); };
  auto value = binary(BinOp::Div, call(compute::Func::Erf, {x()}), binary(BinOp::Add, x(), real(3)));
  auto body = loop_to("j", m ? integer(*m) : var("M"), store("Z", {var("j")}, value), {poly::mark::kVector});
  Dim d = m ? Dim(*m) : Dim::sym("M");
  auto k = kernel(name, {array("X", DType::F32, {d}, Role::Input), array("Z", DType::F32, {d}, Role::Output)},
                  m ? std::vector<std::string>{} : std::vector<std::string>{"M"}, body);
  k.vector_lanes = lanes;
  return k;
}

TEST_CASE("cpu vectors: a loop of long chains runs four vectors side by side, the rest at the native width") {
  // 8 lanes: the main loop's type is <32 x float> (four 8-lane vectors, which
  // LLVM splits into four chains), then 8-lane vectors and scalars.
  std::string ir = emit_llvm_ir({erf_ratio("jam", 8, std::nullopt)});
  CHECK(ir.find("fdiv contract <32 x float>") != std::string::npos);
  CHECK(ir.find("fdiv contract <8 x float>") != std::string::npos);
  CHECK(ir.find("j.jheader") != std::string::npos);
  // A light body (scale_rows: a multiply-add) is not jammed.
  CHECK(emit_llvm_ir({scale_rows("light", 8)}).find("<32 x float>") == std::string::npos);
  // Nor is a short constant trip (straight-line code); a long one is.
  CHECK(emit_llvm_ir({erf_ratio("short", 8, 63)}).find("<32 x float>") == std::string::npos);
  CHECK(emit_llvm_ir({erf_ratio("enough", 8, 1037)}).find("<32 x float>") != std::string::npos);
}

TEST_CASE("cpu vectors: jammed loops of odd and symbolic lengths equal scalar code (JIT and C)") {
  std::vector<poly::LKernel> ks;
  const std::vector<std::int64_t> sizes = {1, 7, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 100, 127, 128, 1000, 1037};
  ks.push_back(erf_ratio("sym8", 8, std::nullopt));
  ks.push_back(erf_ratio("sym16", 16, std::nullopt));
  for (std::int64_t m : {33L, 65L, 100L, 1037L}) ks.push_back(erf_ratio("c" + std::to_string(m), 8, m));
  ks.push_back(erf_ratio("scalar", 0, std::nullopt));
  for (auto &[path, exe] : both_paths(ks)) {
    for (std::int64_t m : sizes) {
      Buffer X(DType::F32, m), Z(DType::F32, m), R(DType::F32, m);
      for (std::int64_t j = 0; j < m; ++j) X.set(j, -2.5 + 5.0 * static_cast<double>(j) / static_cast<double>(m));
      std::int64_t params[] = {m};
      void *ref_args[] = {X.data(), R.data()};
      exe->run("scalar", ref_args, params);
      std::vector<std::string> names = {"sym8", "sym16"};
      if (m == 33 || m == 65 || m == 100 || m == 1037) names.push_back("c" + std::to_string(m));
      for (const std::string &n : names) {
        for (std::int64_t j = 0; j < m; ++j) Z.set(j, -1);
        void *args[] = {X.data(), Z.data()};
        exe->run(n, args, n[0] == 'c' ? nullptr : params);
        for (std::int64_t j = 0; j < m; ++j)
          CHECK_MESSAGE(std::abs(Z.get(j) - R.get(j)) <= 1e-6 * (1 + std::abs(R.get(j))),
                        path << " " << n << " m " << m << " j " << j);
      }
    }
  }
}

TEST_CASE("cpu vectors: bodies without a vector form keep scalar code") {
  // A gather (stride 5: beyond the strided loads' limit) and a condition: no vector form.
  auto gather = loop_to("j", var("M"), store("Z", {var("j")}, load("X", {binary(BinOp::Mul, var("j"), integer(5))})),
                        {poly::mark::kVector});
  auto k = kernel("g", {array("X", DType::F32, {Dim::sym("M")}, Role::Input),
                        array("Z", DType::F32, {Dim::sym("M")}, Role::Output)},
                  {"M"}, gather);
  k.vector_lanes = 16;
  CHECK_FALSE(has_vector_form(k, *first_vector_loop(*k.body)));
  CHECK(emit_llvm_ir({k}).find("<16 x float>") == std::string::npos);
  poly::LKernel ok = scale_rows("ok", 16);
  CHECK(has_vector_form(ok, *first_vector_loop(*ok.body)));
}

TEST_CASE("cpu vectors: linear index forms give constant trip counts") {
  // for (j = 6 * i; j <= 6 * i + 5; j += 1): six iterations whatever i is.
  auto l = loop(std::string("j"), binary(BinOp::Mul, integer(6), var("i")),
                binary(BinOp::Le, var("j"), binary(BinOp::Add, binary(BinOp::Mul, integer(6), var("i")), integer(5))), 1,
                block({}));
  CHECK(constant_trip_count(*l) == 6);
  auto m = loop(std::string("j"), integer(0), binary(BinOp::Lt, var("j"), min(var("N"), integer(7))), 1, block({}));
  CHECK_FALSE(constant_trip_count(*m).has_value());
}
}

}  // namespace
}  // namespace atl::cpu::test
