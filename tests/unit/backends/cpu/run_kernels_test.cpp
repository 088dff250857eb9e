// Runs hand-built kernels through the JIT and the C path and checks the results.
#include "tests/unit/backends/cpu/test_kernels.h"

#include <atoll/diagnostics.h>
#include <atoll/dtype.h>

#include <doctest/doctest.h>

#include <cmath>

namespace atl::cpu::test {
namespace {

using namespace poly::build;
using compute::AssignOp;
using compute::BinOp;
using Role = poly::LArray::Role;

TEST_SUITE("backends") {

TEST_CASE("cpu: elementwise add on odd sizes through the JIT and C") {
  const int M = 7, N = 13;
  auto body = loop_to("i", integer(M), loop_to("j", integer(N),
      store("Z", {var("i"), var("j")},
            binary(BinOp::Add, load("X", {var("i"), var("j")}), load("Y", {var("i"), var("j")})))));
  auto k = kernel("add", {array("X", DType::F32, {M, N}, Role::Input), array("Y", DType::F32, {M, N}, Role::Input),
                          array("Z", DType::F32, {M, N}, Role::Output)}, {}, body);
  for (auto &[path, exe] : both_paths({k})) {
    CAPTURE(path);
    Buffer X(DType::F32, M * N), Y(DType::F32, M * N), Z(DType::F32, M * N);
    for (int i = 0; i < M * N; ++i) X.set(i, 0.5 * i - 3), Y.set(i, 1.25 - i);
    void *arrays[] = {X.data(), Y.data(), Z.data()};
    exe->run("add", arrays, nullptr);
    for (int i = 0; i < M * N; ++i) CHECK(Z.get(i) == static_cast<float>(X.get(i) + Y.get(i)));
  }
}

TEST_CASE("cpu: matmul reduction with an init store matches a plain loop") {
  const int M = 5, K = 11, N = 9;
  auto init = store("C", {var("i"), var("j")}, real(0.0));
  auto update = store("C", {var("i"), var("j")},
                      binary(BinOp::Mul, load("A", {var("i"), var("k")}), load("B", {var("k"), var("j")})),
                      AssignOp::Add);
  auto body = loop_to("i", integer(M), loop_to("j", integer(N),
      block({init, loop_to("k", integer(K), update, {poly::mark::kReduction})})));
  auto k = kernel("mm", {array("A", DType::F32, {M, K}, Role::Input), array("B", DType::F32, {K, N}, Role::Input),
                         array("C", DType::F32, {M, N}, Role::Output)}, {}, body);
  for (auto &[path, exe] : both_paths({k})) {
    CAPTURE(path);
    Buffer A(DType::F32, M * K), B(DType::F32, K * N), C(DType::F32, M * N);
    for (int i = 0; i < M * K; ++i) A.set(i, std::sin(i * 0.7));
    for (int i = 0; i < K * N; ++i) B.set(i, std::cos(i * 0.3));
    for (int i = 0; i < M * N; ++i) C.set(i, 99);  // the init store must clear it
    void *arrays[] = {A.data(), B.data(), C.data()};
    exe->run("mm", arrays, nullptr);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double want = 0;
        for (int kk = 0; kk < K; ++kk) want += A.get(i * K + kk) * B.get(kk * N + j);
        CHECK(C.get(i * N + j) == doctest::Approx(want).epsilon(1e-5));
      }
  }
}

TEST_CASE("cpu: index floor division and modulo with negative operands") {
  const int N = 15;
  auto a = binary(BinOp::Sub, var("i"), integer(7));  // -7 .. 7
  auto body = loop_to("i", integer(N), block({
      store("D", {var("i")}, to_value(binary(BinOp::Div, a, integer(3)))),
      store("M", {var("i")}, to_value(binary(BinOp::Mod, a, integer(3)))),
      store("DN", {var("i")}, to_value(binary(BinOp::Div, a, integer(-3)))),
      store("MN", {var("i")}, to_value(binary(BinOp::Mod, a, integer(-3)))),
      store("FM", {var("i")}, binary(BinOp::Mod, to_value(a), real(2.5)))}));
  auto k = kernel("divmod", {array("D", DType::I64, {N}, Role::Output), array("M", DType::I64, {N}, Role::Output),
                             array("DN", DType::I64, {N}, Role::Output), array("MN", DType::I64, {N}, Role::Output),
                             array("FM", DType::F32, {N}, Role::Output)}, {}, body);
  for (auto &[path, exe] : both_paths({k})) {
    CAPTURE(path);
    Buffer D(DType::I64, N), M(DType::I64, N), DN(DType::I64, N), MN(DType::I64, N), FM(DType::F32, N);
    void *arrays[] = {D.data(), M.data(), DN.data(), MN.data(), FM.data()};
    exe->run("divmod", arrays, nullptr);
    for (int i = 0; i < N; ++i) {
      double x = i - 7;
      CAPTURE(x);
      CHECK(D.get(i) == std::floor(x / 3));
      CHECK(M.get(i) == x - 3 * std::floor(x / 3));
      CHECK(DN.get(i) == std::floor(x / -3));
      CHECK(MN.get(i) == x + 3 * std::floor(x / -3));
      CHECK(FM.get(i) == doctest::Approx(x - 2.5 * std::floor(x / 2.5)));
    }
  }
}

TEST_CASE("cpu: guarded loads read the padding value at the borders") {
  const int H = 5, W = 6;
  auto at = [](const char *a, int di, int dj) {
    return guarded_load(load(a, {binary(BinOp::Add, var("i"), integer(di)), binary(BinOp::Add, var("j"), integer(dj))}),
                        real(-1.0));
  };
  auto sum = binary(BinOp::Add, binary(BinOp::Add, at("X", -1, 0), at("X", 1, 0)),
                    binary(BinOp::Add, at("X", 0, -1), at("X", 0, 1)));
  auto body = loop_to("i", integer(H), loop_to("j", integer(W), store("Y", {var("i"), var("j")}, sum)));
  auto k = kernel("pad", {array("X", DType::F32, {H, W}, Role::Input), array("Y", DType::F32, {H, W}, Role::Output)},
                  {}, body);
  for (auto &[path, exe] : both_paths({k})) {
    CAPTURE(path);
    Buffer X(DType::F32, H * W), Y(DType::F32, H * W);
    for (int i = 0; i < H * W; ++i) X.set(i, i + 1);
    void *arrays[] = {X.data(), Y.data()};
    exe->run("pad", arrays, nullptr);
    auto x = [&](int i, int j) { return (i < 0 || j < 0 || i >= H || j >= W) ? -1.0 : X.get(i * W + j); };
    for (int i = 0; i < H; ++i)
      for (int j = 0; j < W; ++j) CHECK(Y.get(i * W + j) == x(i - 1, j) + x(i + 1, j) + x(i, j - 1) + x(i, j + 1));
  }
}

TEST_CASE("cpu: guarded loads with a symbolic extent") {
  auto g = guarded_load(load("X", {binary(BinOp::Sub, var("i"), integer(2))}), real(7.0));
  auto body = loop_to("i", binary(BinOp::Add, var("N"), integer(4)), store("Y", {var("i")}, g));
  auto k = kernel("padn", {array("X", DType::F32, {Dim::sym("N")}, Role::Input),
                           array("Y", DType::F32, {Dim::sym("M")}, Role::Output)}, {"N", "M"}, body);
  for (auto &[path, exe] : both_paths({k})) {
    CAPTURE(path);
    const std::int64_t n = 5;
    Buffer X(DType::F32, n), Y(DType::F32, n + 4);
    for (int i = 0; i < n; ++i) X.set(i, 10 + i);
    void *arrays[] = {X.data(), Y.data()};
    std::int64_t params[] = {n, n + 4};
    exe->run("padn", arrays, params);
    for (int i = 0; i < n + 4; ++i) CHECK(Y.get(i) == ((i < 2 || i >= n + 2) ? 7.0 : 10.0 + i - 2));
  }
}

TEST_CASE("cpu: select evaluates only the branch taken") {
  // The untaken branch reads 2^40 elements past the end: evaluating it would fault.
  const int N = 9;
  auto far = load("X", {binary(BinOp::Add, var("i"), integer(std::int64_t(1) << 40))});
  auto pick = select(binary(BinOp::Lt, var("i"), integer(100)), load("X", {var("i")}), far);
  auto pick2 = select(binary(BinOp::Ge, var("i"), integer(100)), far, binary(BinOp::Mul, load("X", {var("i")}), real(2)));
  auto body = loop_to("i", integer(N), block({store("Y", {var("i")}, pick), store("Z", {var("i")}, pick2)}));
  auto k = kernel("sel", {array("X", DType::F32, {N}, Role::Input), array("Y", DType::F32, {N}, Role::Output),
                          array("Z", DType::F32, {N}, Role::Output)}, {}, body);
  for (auto &[path, exe] : both_paths({k})) {
    CAPTURE(path);
    Buffer X(DType::F32, N), Y(DType::F32, N), Z(DType::F32, N);
    for (int i = 0; i < N; ++i) X.set(i, i * 3 - 1);
    void *arrays[] = {X.data(), Y.data(), Z.data()};
    exe->run("sel", arrays, nullptr);
    for (int i = 0; i < N; ++i) {
      CHECK(Y.get(i) == X.get(i));
      CHECK(Z.get(i) == 2 * X.get(i));
    }
  }
}

TEST_CASE("cpu: indirect subscripts gather through an index array") {
  const int N = 10, V = 7;
  auto body = loop_to("i", integer(N), store("Y", {var("i")}, load("T", {to_index(load("I", {var("i")}))})));
  auto k = kernel("gather", {array("T", DType::F32, {V}, Role::Input), array("I", DType::I64, {N}, Role::Input),
                             array("Y", DType::F32, {N}, Role::Output)}, {}, body);
  for (auto &[path, exe] : both_paths({k})) {
    CAPTURE(path);
    Buffer T(DType::F32, V), I(DType::I64, N), Y(DType::F32, N);
    for (int i = 0; i < V; ++i) T.set(i, 100 + i * 0.5);
    for (int i = 0; i < N; ++i) I.set(i, (i * 5 + 3) % V);
    void *arrays[] = {T.data(), I.data(), Y.data()};
    exe->run("gather", arrays, nullptr);
    for (int i = 0; i < N; ++i) CHECK(Y.get(i) == T.get((i * 5 + 3) % V));
  }
}

TEST_CASE("cpu: symbolic parameters size the arrays and bound the loops") {
  auto body = loop_to("i", var("N"), loop_to("j", var("M"),
      store("Y", {var("j"), var("i")}, binary(BinOp::Mul, load("X", {var("i"), var("j")}), to_value(var("N"))))));
  auto k = kernel("transpose", {array("X", DType::F32, {Dim::sym("N"), Dim::sym("M")}, Role::Input),
                                array("Y", DType::F32, {Dim::sym("M"), Dim::sym("N")}, Role::Output)},
                  {"N", "M"}, body);
  for (auto &[path, exe] : both_paths({k})) {
    CAPTURE(path);
    for (auto [n, m] : {std::pair<int, int>{1, 1}, {3, 17}, {16, 5}}) {
      Buffer X(DType::F32, n * m), Y(DType::F32, n * m);
      for (int i = 0; i < n * m; ++i) X.set(i, i);
      void *arrays[] = {X.data(), Y.data()};
      std::int64_t params[] = {n, m};
      exe->run("transpose", arrays, params);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j) CHECK(Y.get(j * n + i) == X.get(i * m + j) * n);
    }
  }
}

TEST_CASE("cpu: unknown kernel names and malformed kernels are user errors") {
  auto body = loop_to("i", integer(4), store("Y", {var("i"), var("i")}, real(1)));
  auto bad = kernel("bad", {array("Y", DType::F32, {4}, Role::Output)}, {}, body);
  CHECK_THROWS_WITH_AS(jit_kernels({bad}), doctest::Contains("has rank 1 but is accessed with 2"), UserError);
  CHECK_THROWS_WITH_AS(emit_c_source({bad}), doctest::Contains("has rank 1"), UserError);
  auto unknown = kernel("u", {array("Y", DType::F32, {4}, Role::Output)}, {},
                        loop_to("i", integer(4), store("Y", {var("i")}, load("Q", {var("i")}))));
  CHECK_THROWS_WITH_AS(jit_kernels({unknown}), doctest::Contains("unknown array 'Q'"), UserError);
  auto sym = kernel("s", {array("Y", DType::F32, {Dim::sym("N")}, Role::Output)}, {},
                    loop_to("i", integer(4), store("Y", {var("i")}, real(1))));
  CHECK_THROWS_WITH_AS(jit_kernels({sym}), doctest::Contains("extent 'N', which is not a parameter"), UserError);
  auto ok = kernel("ok", {array("Y", DType::F32, {4}, Role::Output)}, {},
                   loop_to("i", integer(4), store("Y", {var("i")}, real(1))));
  auto exe = jit_kernels({ok});
  CHECK_THROWS_WITH_AS(exe->run("nope", nullptr, nullptr), doctest::Contains("no compiled kernel named 'nope'"),
                       UserError);
}

}  // TEST_SUITE

}  // namespace
}  // namespace atl::cpu::test
