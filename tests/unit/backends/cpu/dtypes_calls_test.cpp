// Element types (rounding, truncation, bool) and every built-in function, through the JIT and C.
#include "tests/unit/backends/cpu/test_kernels.h"

#include <atoll/dtype.h>

#include <doctest/doctest.h>

#include <cfenv>
#include <cmath>
#include <limits>
#include <set>
#include <string>

namespace atl::cpu::test {
namespace {

using namespace poly::build;
using compute::BinOp;
using compute::Func;
using Role = poly::LArray::Role;

const std::vector<double> kSamples = {0.0,   -0.0, 1.0,     -2.7,    2.5,     3.5,      300.7,    -129.2,
                                      1e-3,  65504, 70000.0, 1.0009765625 + 1e-7, 3.0e9, -3.0e9, 1e30, 0.4999,
                                      5e-8, -1.00390625 - 1e-6, std::numeric_limits<double>::quiet_NaN()};

/// Y[i] = X[i] (X f64-exact via i64? no: X is f32), converted by the store to `to`.
poly::LKernel convert_kernel(DType from, DType to, std::int64_t n) {
  auto body = loop_to("i", integer(n), store("Y", {var("i")}, load("X", {var("i")})));
  return kernel(std::string("conv_") + dtype_name(from) + "_" + dtype_name(to),
                {array("X", from, {n}, Role::Input), array("Y", to, {n}, Role::Output)}, {}, body);
}

TEST_SUITE("backends") {

TEST_CASE("cpu: stores convert to every dtype as round_to does (f32 source)") {
  // f32 -> f16/bf16 rounds to nearest even; f32 -> ints truncates and wraps; bool is x != 0.
  const DType targets[] = {DType::F32, DType::F16, DType::BF16, DType::I8, DType::I32, DType::I64, DType::Bool};
  std::vector<poly::LKernel> ks;
  for (DType t : targets) ks.push_back(convert_kernel(DType::F32, t, static_cast<std::int64_t>(kSamples.size())));
  for (auto &[path, exe] : both_paths(ks)) {
    for (std::size_t t = 0; t < ks.size(); ++t) {
      DType to = targets[t];
      CAPTURE(path);
      CAPTURE(dtype_name(to));
      Buffer X(DType::F32, kSamples.size()), Y(to, kSamples.size());
      for (std::size_t i = 0; i < kSamples.size(); ++i) X.set(i, kSamples[i]);
      void *arrays[] = {X.data(), Y.data()};
      exe->run(ks[t].name, arrays, nullptr);
      for (std::size_t i = 0; i < kSamples.size(); ++i) {
        double x = X.get(i), want = round_to(to, x), got = Y.get(i);
        CAPTURE(x);
        if (std::isnan(want)) CHECK(std::isnan(got));
        else CHECK(got == want);
      }
    }
  }
}

TEST_CASE("cpu: kernels round to nearest even when the caller's rounding mode is upward") {
  // PPL switches the process to round-upward; run() must still round f16 stores to nearest.
  auto k = convert_kernel(DType::F32, DType::F16, 2);
  for (auto &[path, exe] : both_paths({k})) {
    CAPTURE(path);
    Buffer X(DType::F32, 2), Y(DType::F16, 2);
    X.set(0, -129.2), X.set(1, 1.0009765625 + 1e-7);
    void *arrays[] = {X.data(), Y.data()};
    int saved = std::fegetround();
    std::fesetround(FE_UPWARD);
    exe->run(k.name, arrays, nullptr);
    bool still_upward = std::fegetround() == FE_UPWARD;
    std::fesetround(saved);
    CHECK(still_upward);
    CHECK(Y.get(0) == round_to(DType::F16, X.get(0)));
    CHECK(Y.get(1) == round_to(DType::F16, X.get(1)));
  }
}

TEST_CASE("cpu: loads widen every dtype exactly") {
  const DType sources[] = {DType::F16, DType::BF16, DType::I8, DType::I32, DType::I64, DType::Bool};
  std::vector<poly::LKernel> ks;
  for (DType s : sources) ks.push_back(convert_kernel(s, DType::F32, 8));
  const double vals[] = {0, 1, -1, 0.333, 127, -128, 1000.5, 2049};
  for (auto &[path, exe] : both_paths(ks)) {
    for (std::size_t s = 0; s < ks.size(); ++s) {
      CAPTURE(path);
      CAPTURE(dtype_name(sources[s]));
      Buffer X(sources[s], 8), Y(DType::F32, 8);
      for (int i = 0; i < 8; ++i) X.set(i, vals[i]);
      void *arrays[] = {X.data(), Y.data()};
      exe->run(ks[s].name, arrays, nullptr);
      for (int i = 0; i < 8; ++i) CHECK(Y.get(i) == static_cast<float>(X.get(i)));
    }
  }
}

TEST_CASE("cpu: integer arithmetic is exact in double (i64 values beyond 2^24)") {
  const int N = 4;
  auto body = loop_to("i", integer(N), store("Y", {var("i")}, binary(BinOp::Add, load("X", {var("i")}), real(1))));
  auto k = kernel("inc", {array("X", DType::I64, {N}, Role::Input), array("Y", DType::I64, {N}, Role::Output)}, {}, body);
  for (auto &[path, exe] : both_paths({k})) {
    CAPTURE(path);
    Buffer X(DType::I64, N), Y(DType::I64, N);
    const double v[] = {16777217, -16777219, 1e15, 3};
    for (int i = 0; i < N; ++i) X.set(i, v[i]);
    void *arrays[] = {X.data(), Y.data()};
    exe->run("inc", arrays, nullptr);
    for (int i = 0; i < N; ++i) CHECK(Y.get(i) == v[i] + 1);
  }
}

struct FuncCase {
  Func f;
  double (*ref)(double, double);
  double lo, hi;
};

double ref_sigmoid(double x, double) { return 1.0 / (1.0 + std::exp(-x)); }

TEST_CASE("cpu: every built-in function matches libm in float and in double") {
  const FuncCase cases[] = {
      {Func::Exp, [](double x, double) { return std::exp(x); }, -5, 5},
      {Func::Log, [](double x, double) { return std::log(x); }, 0.01, 50},
      {Func::Sqrt, [](double x, double) { return std::sqrt(x); }, 0, 40},
      {Func::Tanh, [](double x, double) { return std::tanh(x); }, -4, 4},
      {Func::Sigmoid, ref_sigmoid, -8, 8},
      {Func::Erf, [](double x, double) { return std::erf(x); }, -3, 3},
      {Func::Abs, [](double x, double) { return std::fabs(x); }, -3, 3},
      {Func::Floor, [](double x, double) { return std::floor(x); }, -3, 3},
      {Func::Min, [](double x, double y) { return std::fmin(x, y); }, -3, 3},
      {Func::Max, [](double x, double y) { return std::fmax(x, y); }, -3, 3},
      {Func::Pow, [](double x, double y) { return std::pow(x, y); }, 0.1, 4},
      {Func::Sin, [](double x, double) { return std::sin(x); }, -6, 6},
      {Func::Cos, [](double x, double) { return std::cos(x); }, -6, 6},
      {Func::Tan, [](double x, double) { return std::tan(x); }, -1.5, 1.5},
      {Func::Asin, [](double x, double) { return std::asin(x); }, -1, 1},
      {Func::Acos, [](double x, double) { return std::acos(x); }, -1, 1},
      {Func::Atan, [](double x, double) { return std::atan(x); }, -8, 8},
      {Func::Sinh, [](double x, double) { return std::sinh(x); }, -5, 5},
      {Func::Cosh, [](double x, double) { return std::cosh(x); }, -5, 5},
      {Func::Asinh, [](double x, double) { return std::asinh(x); }, -9, 9},
      {Func::Acosh, [](double x, double) { return std::acosh(x); }, 1, 9},
      {Func::Atanh, [](double x, double) { return std::atanh(x); }, -0.95, 0.95},
  };
  const int N = 37;
  for (DType out : {DType::F32, DType::I32}) {  // I32 output alongside makes the kernel compute in double
    std::vector<poly::LKernel> ks;
    for (const FuncCase &c : cases) {
      std::vector<poly::LExprPtr> args{load("X", {var("i")})};
      if (compute::func_arity(c.f) == 2) args.push_back(load("W", {var("i")}));
      auto body = loop_to("i", integer(N), block({store("Y", {var("i")}, call(c.f, args)),
                                                   store("Q", {var("i")}, real(0))}));
      ks.push_back(kernel(std::string("f_") + compute::func_name(c.f),
                          {array("X", DType::F32, {N}, Role::Input), array("W", DType::F32, {N}, Role::Input),
                           array("Y", DType::F32, {N}, Role::Output), array("Q", out, {N}, Role::Output)},
                          {}, body));
    }
    bool in_double = out != DType::F32;
    for (auto &[path, exe] : both_paths(ks)) {
      for (std::size_t c = 0; c < ks.size(); ++c) {
        CAPTURE(path);
        CAPTURE(ks[c].name);
        CAPTURE(in_double);
        Buffer X(DType::F32, N), W(DType::F32, N), Y(DType::F32, N), Q(out, N);
        for (int i = 0; i < N; ++i) {
          X.set(i, cases[c].lo + (cases[c].hi - cases[c].lo) * i / (N - 1));
          W.set(i, 1.5 - 0.1 * i);
        }
        void *arrays[] = {X.data(), W.data(), Y.data(), Q.data()};
        exe->run(ks[c].name, arrays, nullptr);
        for (int i = 0; i < N; ++i) {
          double want = static_cast<float>(cases[c].ref(X.get(i), W.get(i)));
          CAPTURE(X.get(i));
          CHECK(Y.get(i) == doctest::Approx(want).epsilon(in_double ? 3e-7 : 4e-6).scale(1e-6));
        }
      }
    }
  }
}

TEST_CASE("cpu: a Gelu as the graph writes it lowers to one emit_gelu, in vector and scalar code") {
  // 0.5 * x * (1 + erf(x * 0.7071067811865476)) (the Gelu operator's
  // formula) becomes emit_gelu(x): its clamp of x to +-4 sqrt 2 shows in the
  // IR; another constant in place of 1/sqrt 2 keeps the formula and erf.
  const std::int64_t N = 1003;  // 125 vectors of 8 and a scalar rest
  auto gelu = [&](const std::string &name, double c, std::set<std::string> marks) {
    auto x = [] { return load("X", {var("i")}); };
    auto f = binary(BinOp::Mul, binary(BinOp::Mul, real(0.5), x()),
                    binary(BinOp::Add, real(1.0), call(Func::Erf, {binary(BinOp::Mul, x(), real(c))})));
    poly::LKernel k = kernel(name, {array("X", DType::F32, {N}, Role::Input), array("Y", DType::F32, {N}, Role::Output)},
                             {}, loop_to("i", integer(N), store("Y", {var("i")}, f), std::move(marks)));
    k.vector_lanes = 8;
    return k;
  };
  const std::vector<poly::LKernel> ks = {gelu("gelu_vec", 0.7071067811865476, {poly::mark::kVector}),
                                         gelu("gelu_scalar", 0.7071067811865476, {}),
                                         gelu("not_gelu", 0.7, {poly::mark::kVector})};
  auto ir_of = [](const poly::LKernel &k) { return emit_llvm_ir({k}); };
  const std::string clamp = "0x4016A09E60000000";  // 4 sqrt 2 as f32, in LLVM's hex form
  CHECK(ir_of(ks[0]).find(clamp) != std::string::npos);
  CHECK(ir_of(ks[1]).find(clamp) != std::string::npos);
  CHECK(ir_of(ks[2]).find(clamp) == std::string::npos);
  for (auto &[path, exe] : both_paths(ks))
    for (const poly::LKernel &k : ks) {
      CAPTURE(path);
      CAPTURE(k.name);
      const double c = k.name == "not_gelu" ? 0.7 : 0.7071067811865476;
      Buffer X(DType::F32, N), Y(DType::F32, N);
      for (std::int64_t i = 0; i < N; ++i) X.set(i, -9.0 + 18.0 * static_cast<double>(i) / (N - 1));
      void *arrays[] = {X.data(), Y.data()};
      exe->run(k.name, arrays, nullptr);
      for (std::int64_t i = 0; i < N; ++i) {
        const double x = X.get(i), want = 0.5 * x * (1 + std::erf(x * c));
        CAPTURE(x);
        CHECK(std::fabs(Y.get(i) - want) <= 4e-7 * std::max(1.0, std::fabs(x)));
      }
    }
}

TEST_CASE("cpu: min and max propagate NaN like the reference evaluator") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto body = loop_to("i", integer(3), block({
      store("MN", {var("i")}, min(load("A", {var("i")}), load("B", {var("i")}))),
      store("MX", {var("i")}, call(Func::Max, {load("A", {var("i")}), load("B", {var("i")})}))}));
  auto k = kernel("mm_nan", {array("A", DType::F32, {3}, Role::Input), array("B", DType::F32, {3}, Role::Input),
                             array("MN", DType::F32, {3}, Role::Output), array("MX", DType::F32, {3}, Role::Output)},
                  {}, body);
  for (auto &[path, exe] : both_paths({k})) {
    CAPTURE(path);
    Buffer A(DType::F32, 3), B(DType::F32, 3), MN(DType::F32, 3), MX(DType::F32, 3);
    A.set(0, nan), B.set(0, 1), A.set(1, 1), B.set(1, nan), A.set(2, 2), B.set(2, -1);
    void *arrays[] = {A.data(), B.data(), MN.data(), MX.data()};
    exe->run("mm_nan", arrays, nullptr);
    CHECK(std::isnan(MN.get(0)));
    CHECK(std::isnan(MN.get(1)));
    CHECK(std::isnan(MX.get(0)));
    CHECK(std::isnan(MX.get(1)));
    CHECK(MN.get(2) == -1);
    CHECK(MX.get(2) == 2);
  }
}

}  // TEST_SUITE

}  // namespace
}  // namespace atl::cpu::test
