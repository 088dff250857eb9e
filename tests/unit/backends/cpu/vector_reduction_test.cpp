// Vector reduction loops: partial <lanes x float> accumulators for kReduction loops whose reductions stay at one address.
#include "tests/unit/backends/cpu/test_kernels.h"

#include "backends/cpu/vector_analysis.h"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

namespace atl::cpu::test {
namespace {

using namespace poly::build;
using compute::AssignOp;
using compute::BinOp;
using Role = poly::LArray::Role;

constexpr double kInf = std::numeric_limits<double>::infinity();

/// R[i] op= X[i, j] over j (marked kReduction), N x M parameters.
poly::LKernel row_reduce(const std::string &name, AssignOp op, int lanes, std::set<std::string> marks = {poly::mark::kReduction}) {
  auto inner = loop_to("j", var("M"), store("R", {var("i")}, load("X", {var("i"), var("j")}), op), marks);
  auto k = kernel(name, {array("X", DType::F32, {Dim::sym("N"), Dim::sym("M")}, Role::Input),
                         array("R", DType::F32, {Dim::sym("N")}, Role::Output)},
                  {"N", "M"}, loop_to("i", var("N"), inner, {poly::mark::kParallel}));
  k.vector_lanes = lanes;
  return k;
}

/// Softmax's middle phase: P[i, j] = exp(X[i, j] - Mx[i]) (moves) next to S[i] += P[i, j] (stays),
/// and a second reduction Q[i] max= X[i, j] in the same loop.
poly::LKernel exp_sum(const std::string &name, int lanes) {
  auto body = block({store("P", {var("i"), var("j")},
                           call(compute::Func::Exp, {binary(BinOp::Sub, load("X", {var("i"), var("j")}), load("Mx", {var("i")}))})),
                     store("S", {var("i")}, load("P", {var("i"), var("j")}), AssignOp::Add),
                     store("Q", {var("i")}, load("X", {var("i"), var("j")}), AssignOp::Max)});
  auto inner = loop_to("j", var("M"), body, {poly::mark::kReduction});
  auto k = kernel(name, {array("X", DType::F32, {Dim::sym("N"), Dim::sym("M")}, Role::Input),
                         array("Mx", DType::F32, {Dim::sym("N")}, Role::Input),
                         array("P", DType::F32, {Dim::sym("N"), Dim::sym("M")}, Role::Output),
                         array("S", DType::F32, {Dim::sym("N")}, Role::Output),
                         array("Q", DType::F32, {Dim::sym("N")}, Role::Output)},
                  {"N", "M"}, loop_to("i", var("N"), inner));
  k.vector_lanes = lanes;
  return k;
}

const poly::LStmt *first_reduction_loop(const poly::LStmt &s) {
  if (s.kind == poly::LStmtKind::For && s.marks.count(poly::mark::kReduction)) return &s;
  for (const auto &b : s.body)
    if (const poly::LStmt *f = b ? first_reduction_loop(*b) : nullptr) return f;
  return nullptr;
}

/// Phis of type `type` (the builder adds fast-math flags to floating-point phis).
std::size_t phis(const std::string &ir, const std::string &type) {
  std::size_t n = 0, start = 0;
  while (start < ir.size()) {
    std::size_t end = ir.find('\n', start);
    if (end == std::string::npos) end = ir.size();
    std::string line = ir.substr(start, end - start);
    std::size_t at = line.find("= phi ");
    if (at != std::string::npos && line.find(type + " [", at) != std::string::npos) ++n;
    start = end + 1;
  }
  return n;
}

double fold(AssignOp op, double acc, double v) {
  switch (op) {
  case AssignOp::Add: return acc + v;
  case AssignOp::Mul: return acc * v;
  case AssignOp::Max: return std::isnan(v) || v > acc ? v : acc;
  case AssignOp::Min: return std::isnan(v) || v < acc ? v : acc;
  case AssignOp::Assign: return v;
  }
  return v;
}

const char *op_name(AssignOp op) {
  switch (op) {
  case AssignOp::Add: return "sum";
  case AssignOp::Mul: return "product";
  case AssignOp::Max: return "max";
  case AssignOp::Min: return "min";
  case AssignOp::Assign: return "assign";
  }
  return "?";
}

/// Runs row_reduce kernels named PREFIX0.. on rows of 1..40 elements (X from `value`,
/// R started at `init`) and checks each row against a double-precision fold.
void check_rows(const std::vector<std::pair<std::string, std::unique_ptr<CpuExecutable>>> &exes,
                const std::vector<std::pair<std::string, AssignOp>> &kernels,
                const std::function<double(std::int64_t, std::int64_t)> &value, double init) {
  for (const auto &[path, exe] : exes)
    for (const auto &[name, op] : kernels)
      for (std::int64_t m = 1; m <= 40; ++m) {
        const std::int64_t n = 3;
        Buffer X(DType::F32, static_cast<std::size_t>(n * m)), R(DType::F32, static_cast<std::size_t>(n));
        for (std::int64_t r = 0; r < n; ++r) {
          R.set(static_cast<std::size_t>(r), init);
          for (std::int64_t c = 0; c < m; ++c) X.set(static_cast<std::size_t>(r * m + c), value(r, c));
        }
        void *arrays[] = {X.data(), R.data()};
        std::int64_t params[] = {n, m};
        exe->run(name, arrays, params);
        for (std::int64_t r = 0; r < n; ++r) {
          double want = init, scale = std::abs(init);
          for (std::int64_t c = 0; c < m; ++c) {
            double x = X.get(static_cast<std::size_t>(r * m + c));
            want = fold(op, want, x);
            scale += std::abs(x);
          }
          double got = R.get(static_cast<std::size_t>(r));
          INFO(path << " " << name << " " << op_name(op) << " m " << m << " row " << r << " got " << got << " want " << want);
          if (std::isnan(want)) CHECK(std::isnan(got));
          else if (op == AssignOp::Max || op == AssignOp::Min || std::isinf(want)) CHECK(got == want);
          else CHECK(std::abs(got - want) <= 1e-6 * std::max(1.0, op == AssignOp::Mul ? std::abs(want) : scale));
        }
      }
}

TEST_SUITE("backends") {

TEST_CASE("cpu vector reductions: a kReduction loop keeps 4 partial <16 x float> accumulators and folds them") {
  poly::LKernel k = row_reduce("rsum", AssignOp::Add, 16);
  auto reds = vector_reductions(k, *first_reduction_loop(*k.body)).reductions;
  REQUIRE(reds.size() == 1);
  CHECK(reds[0]->array == "R");
  std::string ir = emit_llvm_ir({k});
  CHECK(phis(ir, "<16 x float>") == 5);  // 4 partials in the main loop, 1 in the 16-lane tail
  CHECK(count(ir, "load <16 x float>") == 5);  // one per chunk: 4 in the main loop, 1 in the tail
  CHECK(ir.find("fadd reassoc contract <16 x float>") != std::string::npos);
  CHECK(ir.find("shufflevector <16 x float>") != std::string::npos);  // the horizontal fold
  CHECK(ir.find("j.vr.header") != std::string::npos);
  // 8 lanes: the same shape with <8 x float>.
  std::string ir8 = emit_llvm_ir({row_reduce("rsum8", AssignOp::Add, 8)});
  CHECK(phis(ir8, "<8 x float>") == 5);
  CHECK(ir8.find("<16 x float>") == std::string::npos);
}

TEST_CASE("cpu vector reductions: sum, product, max and min over rows of 1..40 elements match a scalar fold") {
  std::vector<poly::LKernel> ks;
  std::vector<std::pair<std::string, AssignOp>> names;
  for (AssignOp op : {AssignOp::Add, AssignOp::Mul, AssignOp::Max, AssignOp::Min})
    for (int lanes : {16, 8, 4, 0}) {
      std::string name = std::string(op_name(op)) + std::to_string(lanes);
      ks.push_back(row_reduce(name, op, lanes));
      names.emplace_back(name, op);
    }
  auto exes = both_paths(ks);
  // Products stay near 1 (1 +- 1/64); the others see values of both signs.
  std::vector<std::pair<std::string, AssignOp>> prods, others;
  for (const auto &n : names) (n.second == AssignOp::Mul ? prods : others).push_back(n);
  check_rows(exes, others, [](std::int64_t r, std::int64_t c) { return ((r * 41 + c * 17) % 23) - 11.5; }, 0.25);
  check_rows(exes, prods, [](std::int64_t r, std::int64_t c) { return 1 + (((r * 7 + c * 5) % 9) - 4) / 64.0; }, 1.0);
}

TEST_CASE("cpu vector reductions: NaN and infinities behave as in scalar code") {
  std::vector<poly::LKernel> ks;
  std::vector<std::pair<std::string, AssignOp>> names;
  for (AssignOp op : {AssignOp::Add, AssignOp::Max, AssignOp::Min}) {
    std::string name = std::string("nan_") + op_name(op);
    ks.push_back(row_reduce(name, op, 16));
    names.emplace_back(name, op);
  }
  auto exes = both_paths(ks);
  // Row 0: a NaN (in the vector part or the remainder, by m); row 1: +inf; row 2: -inf.
  auto special = [](std::int64_t r, std::int64_t c) {
    if (c == 5) return r == 0 ? std::nan("") : r == 1 ? kInf : -kInf;
    return static_cast<double>(c % 7) - 3;
  };
  check_rows(exes, names, special, 0);
  // +inf and -inf in one row: the sum is NaN; max and min are the infinities.
  check_rows(exes, names, [](std::int64_t, std::int64_t c) { return c == 3 ? kInf : c == 20 ? -kInf : 1.0; }, 0);
  // Every element -inf: max keeps -inf (the identity is not mistaken for data).
  check_rows(exes, names, [](std::int64_t, std::int64_t) { return -kInf; }, -kInf);
}

TEST_CASE("cpu vector reductions: a nan_insensitive max or min is one maxps a vector, and exact without NaN") {
  // R[i] op= X[i, j] with the store marked nan_insensitive (Softmax's row maximum).
  auto insensitive = [](const std::string &name, AssignOp op, int lanes) {
    auto inner = loop_to("j", var("M"), store("R", {var("i")}, load("X", {var("i"), var("j")}), op, "r", true),
                         {poly::mark::kReduction});
    auto k = kernel(name, {array("X", DType::F32, {Dim::sym("N"), Dim::sym("M")}, Role::Input),
                           array("R", DType::F32, {Dim::sym("N")}, Role::Output)},
                    {"N", "M"}, loop_to("i", var("N"), inner, {poly::mark::kParallel}));
    k.vector_lanes = lanes;
    return k;
  };
  const std::string kept = emit_llvm_ir({row_reduce("kept", AssignOp::Max, 16)}, 2);
  const std::string dropped = emit_llvm_ir({insensitive("dropped", AssignOp::Max, 16)}, 2);
  CHECK(count(kept, " uno <") > 0);  // fcmp [flags] uno: the NaN test
  CHECK(count(dropped, " uno <") == 0);
  std::vector<poly::LKernel> ks;
  std::vector<std::pair<std::string, AssignOp>> names;
  for (AssignOp op : {AssignOp::Max, AssignOp::Min})
    for (int lanes : {16, 8}) {
      std::string name = std::string("insensitive_") + op_name(op) + std::to_string(lanes);
      ks.push_back(insensitive(name, op, lanes));
      names.emplace_back(name, op);
    }
  auto exes = both_paths(ks);
  // Without NaN: the same values as the NaN-carrying fold, infinities included.
  check_rows(exes, names, [](std::int64_t r, std::int64_t c) { return static_cast<double>((r * 5 + c * 7) % 13) - 6; }, 0);
  check_rows(exes, names, [](std::int64_t, std::int64_t c) { return c == 3 ? kInf : c == 20 ? -kInf : 1.0; }, 0);
  check_rows(exes, names, [](std::int64_t, std::int64_t) { return -kInf; }, -kInf);
}

TEST_CASE("cpu vector reductions: a nan_insensitive max of whole vectors starts from the first chunk, not -inf") {
  // Rows of 64: each of the 4 partial accumulators takes one chunk, and the
  // combine with the identity must fold away (max(-inf, x) is x).
  auto inner = loop_to("j", integer(64), store("R", {var("i")}, load("X", {var("i"), var("j")}), AssignOp::Max, "r", true),
                       {poly::mark::kReduction});
  auto k = kernel("rows64", {array("X", DType::F32, {Dim::sym("N"), Dim(64)}, Role::Input),
                             array("R", DType::F32, {Dim::sym("N")}, Role::Output)},
                  {"N"}, loop_to("i", var("N"), inner, {poly::mark::kParallel}));
  k.vector_lanes = 16;
  const std::string ir = emit_llvm_ir({k}, 2);
  CAPTURE(ir);
  CHECK(count(ir, "0xFFF0000000000000") == 0);
}

TEST_CASE("cpu vector reductions: stores that move with the loop are vector stores next to the accumulators") {
  poly::LKernel k = exp_sum("es", 16);
  auto reds = vector_reductions(k, *first_reduction_loop(*k.body)).reductions;
  REQUIRE(reds.size() == 2);
  std::string ir = emit_llvm_ir({k});
  // A loop of exp chains keeps one partial accumulator per reduction (four
  // copies of the chain would spill): two phis, and the join of the exp's
  // own function (atoll.exp.v16f32) where it branches (hosts without
  // AVX-512's vscalefps).
  const bool branching_exp = ir.find("\nwide:") != std::string::npos;
  CHECK(phis(ir, "<16 x float>") == (branching_exp ? 3 : 2));
  // The exp's own function: atoll.exp (vscalefps) or atoll.expb (branching).
  CHECK(ir.find(branching_exp ? "define internal <16 x float> @atoll.expb.v16f32"
                              : "define internal <16 x float> @atoll.exp.v16f32") != std::string::npos);
  CHECK(count(ir, "store <16 x float>") == 1);  // P: one per chunk
  for (const auto &[path, exe] : both_paths({k}))
    for (std::int64_t m : {1, 15, 16, 17, 33, 64, 65, 100}) {
      const std::int64_t n = 2;
      Buffer X(DType::F32, n * m), Mx(DType::F32, n), P(DType::F32, n * m), S(DType::F32, n), Q(DType::F32, n);
      for (std::int64_t r = 0; r < n; ++r) {
        Mx.set(r, 2);
        S.set(r, 0);
        Q.set(r, -kInf);
        for (std::int64_t c = 0; c < m; ++c) X.set(r * m + c, std::sin(0.37 * c + r));
      }
      void *arrays[] = {X.data(), Mx.data(), P.data(), S.data(), Q.data()};
      std::int64_t params[] = {n, m};
      exe->run("es", arrays, params);
      for (std::int64_t r = 0; r < n; ++r) {
        double sum = 0, mx = -kInf;
        for (std::int64_t c = 0; c < m; ++c) {
          double x = X.get(r * m + c), p = std::exp(x - 2);
          CHECK(std::abs(P.get(r * m + c) - p) <= 1e-6 * p);
          sum += P.get(r * m + c);
          mx = std::max(mx, x);
        }
        INFO(path << " m " << m << " row " << r);
        CHECK(std::abs(S.get(r) - sum) <= 1e-6 * sum);
        CHECK(Q.get(r) == mx);
      }
    }
}

TEST_CASE("cpu vector reductions: an initialisation in one iteration (if j == e) runs once, after the loop") {
  // for j (reduction) { if (j == M - 1 + shift) S[i] = 7; Mx[i] max= X[i, j] }: shift 0 runs it, shift 1 does not.
  std::vector<poly::LKernel> ks;
  for (int shift : {0, 1}) {
    auto at = binary(BinOp::Add, binary(BinOp::Sub, var("M"), integer(1)), integer(shift));
    auto body = block({branch(binary(BinOp::Eq, var("j"), at), store("S", {var("i")}, real(7))),
                       store("Mx", {var("i")}, load("X", {var("i"), var("j")}), AssignOp::Max)});
    auto k = kernel("peel" + std::to_string(shift),
                    {array("X", DType::F32, {Dim::sym("N"), Dim::sym("M")}, Role::Input),
                     array("S", DType::F32, {Dim::sym("N")}, Role::Output),
                     array("Mx", DType::F32, {Dim::sym("N")}, Role::Output)},
                    {"N", "M"}, loop_to("i", var("N"), loop_to("j", var("M"), body, {poly::mark::kReduction})));
    k.vector_lanes = 16;
    VectorReductionForm form = vector_reductions(k, *first_reduction_loop(*k.body));
    CHECK(form.reductions.size() == 1);
    CHECK(form.peeled.size() == 1);
    ks.push_back(k);
  }
  CHECK(phis(emit_llvm_ir({ks[0]}), "<16 x float>") == 5);
  for (const auto &[path, exe] : both_paths(ks))
    for (int shift : {0, 1})
      for (std::int64_t m : {1, 16, 17, 40, 64, 70}) {
        Buffer X(DType::F32, 2 * m), S(DType::F32, 2), Mx(DType::F32, 2);
        for (std::int64_t e = 0; e < 2 * m; ++e) X.set(e, (e * 13) % 29);
        for (int r = 0; r < 2; ++r) S.set(r, -1), Mx.set(r, -kInf);
        void *arrays[] = {X.data(), S.data(), Mx.data()};
        std::int64_t params[] = {2, m};
        exe->run("peel" + std::to_string(shift), arrays, params);
        for (std::int64_t r = 0; r < 2; ++r) {
          double mx = -kInf;
          for (std::int64_t c = 0; c < m; ++c) mx = std::max(mx, X.get(r * m + c));
          INFO(path << " shift " << shift << " m " << m);
          CHECK(Mx.get(r) == mx);
          CHECK(S.get(r) == (shift == 0 ? 7 : -1));
        }
      }
  // The condition's store may not touch what the loop reads: Mx read there blocks the peeling.
  auto bad = block({branch(binary(BinOp::Eq, var("j"), integer(3)), store("S", {var("i")}, load("Mx", {var("i")}))),
                    store("Mx", {var("i")}, load("X", {var("i"), var("j")}), AssignOp::Max)});
  auto kb = kernel("bad", {array("X", DType::F32, {Dim::sym("N"), Dim::sym("M")}, Role::Input),
                           array("S", DType::F32, {Dim::sym("N")}, Role::Output),
                           array("Mx", DType::F32, {Dim::sym("N")}, Role::Output)},
                   {"N", "M"}, loop_to("i", var("N"), loop_to("j", var("M"), bad, {poly::mark::kReduction})));
  kb.vector_lanes = 16;
  CHECK(vector_reductions(kb, *first_reduction_loop(*kb.body)).reductions.empty());
}

/// for (b < NB) for (u < U, unrolled) { S[b U + u] = s0; Q[b U + u] = q0; for (j < M, reduction)
/// { S[..] op1= X[b U + u, j]; Q[..] op2= X[b U + u, j] } }: rows whose folds wait for the last row.
/// `variant` 1: S's initialisation after the loop; 2: S read in the body; 3: S[b] (one element per block).
poly::LKernel unrolled_rows(const std::string &name, std::int64_t U, AssignOp op1, AssignOp op2, int lanes,
                            int variant = 0) {
  auto row = binary(BinOp::Add, binary(BinOp::Mul, var("b"), integer(U)), var("u"));
  auto srow = variant == 3 ? var("b") : row;
  auto x = load("X", {row, var("j")});
  auto red = loop_to("j", var("M"), block({store("S", {srow}, x, op1), store("Q", {row}, x, op2)}),
                     {poly::mark::kReduction});
  std::vector<poly::LStmtPtr> body;
  if (variant != 1) body.push_back(store("S", {srow}, real(0.5)));
  body.push_back(store("Q", {row}, real(op2 == AssignOp::Mul ? 1.0 : op2 == AssignOp::Min ? kInf : -kInf)));
  body.push_back(red);
  if (variant == 1) body.push_back(store("S", {srow}, real(0.5)));
  if (variant == 2) body.push_back(store("T", {row}, load("S", {srow})));
  auto k = kernel(name, {array("X", DType::F32, {Dim::sym("NR"), Dim::sym("M")}, Role::Input),
                         array("S", DType::F32, {Dim::sym("NR")}, Role::Output),
                         array("Q", DType::F32, {Dim::sym("NR")}, Role::Output),
                         array("T", DType::F32, {Dim::sym("NR")}, Role::Output)},
                  {"NB", "NR", "M"},
                  loop_to("b", var("NB"), loop_to("u", integer(U), block(body), {poly::mark::kUnroll})));
  k.vector_lanes = lanes;
  return k;
}

TEST_CASE("cpu vector reductions: unrolled rows fold their lanes together, and match a scalar fold") {
  struct Case {
    std::string name;
    std::int64_t rows;
    AssignOp s, q;
    int lanes;
  };
  std::vector<Case> cases;
  for (std::int64_t U : {2, 3, 4, 5, 8, 16})
    for (int lanes : {16, 8, 4}) {
      cases.push_back({"sm" + std::to_string(U) + "_" + std::to_string(lanes), U, AssignOp::Add, AssignOp::Max, lanes});
      cases.push_back({"pm" + std::to_string(U) + "_" + std::to_string(lanes), U, AssignOp::Mul, AssignOp::Min, lanes});
    }
  std::vector<poly::LKernel> ks;
  for (const Case &c : cases) {
    ks.push_back(unrolled_rows(c.name, c.rows, c.s, c.q, c.lanes));
    const poly::LStmt *u = loop_named(*ks.back().body, "u");
    CHECK(deferrable_folds(ks.back(), *u).count(loop_named(*u, "j")) == 1);
  }
  // Four rows of 16 lanes: rows paired by two-source shuffles, then one halving of 16 lanes to 8 for
  // each of the two sums (S, Q): 2 x 2 shuffles, where one fold per row would take 8 x 2.
  std::string ir = emit_llvm_ir({unrolled_rows("ir4", 4, AssignOp::Add, AssignOp::Max, 16)});
  CHECK(ir.find("shufflevector <16 x float> %") != std::string::npos);
  CHECK(count(ir, "<16 x float> poison, <8 x i32>") == 4);
  for (const auto &[path, exe] : both_paths(ks))
    for (const Case &c : cases)
      for (std::int64_t m : {1, 7, 16, 33, 64, 70}) {
        const std::int64_t nb = 2, nr = nb * c.rows;
        const bool prod = c.s == AssignOp::Mul;
        Buffer X(DType::F32, static_cast<std::size_t>(nr * m)), S(DType::F32, static_cast<std::size_t>(nr)),
            Q(DType::F32, static_cast<std::size_t>(nr)), T(DType::F32, static_cast<std::size_t>(nr));
        // Row 1: a NaN; row 2: +inf; row 4: -inf (each at a column that moves with m); the rest finite.
        for (std::int64_t r = 0; r < nr; ++r)
          for (std::int64_t j = 0; j < m; ++j) {
            double v = prod ? 1 + (((r * 7 + j * 5) % 9) - 4) / 64.0 : ((r * 41 + j * 17) % 23) - 11.5;
            if (j == (r * 5) % m) v = r == 1 ? std::nan("") : r == 2 ? kInf : r == 4 ? -kInf : v;
            X.set(static_cast<std::size_t>(r * m + j), v);
          }
        void *arrays[] = {X.data(), S.data(), Q.data(), T.data()};
        std::int64_t params[] = {nb, nr, m};
        exe->run(c.name, arrays, params);
        for (std::int64_t r = 0; r < nr; ++r) {
          double ws = 0.5, wq = c.q == AssignOp::Min ? kInf : -kInf, scale = 0.5;
          for (std::int64_t j = 0; j < m; ++j) {
            double x = X.get(static_cast<std::size_t>(r * m + j));
            ws = fold(c.s, ws, x), wq = fold(c.q, wq, x), scale += std::abs(x);
          }
          double gs = S.get(static_cast<std::size_t>(r)), gq = Q.get(static_cast<std::size_t>(r));
          INFO(path << " " << c.name << " m " << m << " row " << r << " S " << gs << " want " << ws << " Q " << gq
                    << " want " << wq);
          if (std::isnan(ws)) CHECK(std::isnan(gs));
          else if (std::isinf(ws)) CHECK(gs == ws);
          else CHECK(std::abs(gs - ws) <= 1e-6 * std::max(1.0, prod ? std::abs(ws) : scale));
          if (std::isnan(wq)) CHECK(std::isnan(gq));
          else CHECK(gq == wq);
        }
      }
}

TEST_CASE("cpu vector reductions: folds wait only where nothing in the unrolled body sees the elements") {
  for (int variant : {1, 2, 3}) {
    poly::LKernel k = unrolled_rows("v" + std::to_string(variant), 4, AssignOp::Add, AssignOp::Max, 16, variant);
    const poly::LStmt *u = loop_named(*k.body, "u");
    INFO("variant " << variant);
    CHECK(vector_reductions(k, *loop_named(*u, "j")).reductions.size() == 2);
    CHECK(deferrable_folds(k, *u).empty());
  }
  // One trip: nothing to group (the backend does not ask), but the analysis still accepts it.
  poly::LKernel one = unrolled_rows("one", 1, AssignOp::Add, AssignOp::Max, 16);
  CHECK(deferrable_folds(one, *loop_named(*one.body, "u")).size() == 1);
}

TEST_CASE("cpu vector reductions: loops that do not qualify keep scalar code") {
  // No kReduction mark: re-association is not allowed.
  poly::LKernel plain = row_reduce("plain", AssignOp::Add, 16, {});
  CHECK(vector_reductions(plain, *loop_named(*plain.body, "j")).reductions.empty());
  CHECK(phis(emit_llvm_ir({plain}), "<16 x float>") == 0);
  // The accumulator is read in the body.
  auto reads = loop_to("j", var("M"),
                       store("R", {var("i")}, binary(BinOp::Mul, load("X", {var("i"), var("j")}), load("R", {var("i")})),
                             AssignOp::Add),
                       {poly::mark::kReduction});
  auto k = kernel("reads", {array("X", DType::F32, {Dim::sym("N"), Dim::sym("M")}, Role::Input),
                            array("R", DType::F32, {Dim::sym("N")}, Role::Output)},
                  {"N", "M"}, loop_to("i", var("N"), reads));
  k.vector_lanes = 16;
  CHECK(vector_reductions(k, *first_reduction_loop(*k.body)).reductions.empty());
  // A plain assignment at a fixed address (the last iteration wins): not a reduction.
  auto last = loop_to("j", var("M"), store("R", {var("i")}, load("X", {var("i"), var("j")})), {poly::mark::kReduction});
  auto k2 = kernel("last", {array("X", DType::F32, {Dim::sym("N"), Dim::sym("M")}, Role::Input),
                            array("R", DType::F32, {Dim::sym("N")}, Role::Output)},
                   {"N", "M"}, loop_to("i", var("N"), last));
  CHECK(vector_reductions(k2, *first_reduction_loop(*k2.body)).reductions.empty());
  // A stride-5 load (beyond the strided loads' limit): no vector form.
  auto strided = loop_to("j", var("M"),
                         store("R", {var("i")}, load("X", {var("i"), binary(BinOp::Mul, var("j"), integer(5))}), AssignOp::Add),
                         {poly::mark::kReduction});
  auto k3 = kernel("strided", {array("X", DType::F32, {Dim::sym("N"), Dim::sym("M")}, Role::Input),
                               array("R", DType::F32, {Dim::sym("N")}, Role::Output)},
                   {"N", "M"}, loop_to("i", var("N"), strided));
  CHECK(vector_reductions(k3, *first_reduction_loop(*k3.body)).reductions.empty());
}
}

}  // namespace
}  // namespace atl::cpu::test
