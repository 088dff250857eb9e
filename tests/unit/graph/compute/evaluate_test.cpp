// Tests of the Compute evaluator against hand-computed values.
#include "graph/compute/ast.h"
#include "graph/compute/compute.h"

#include <atoll/diagnostics.h>
#include <doctest/doctest.h>

#include <cmath>
#include <random>

using namespace atl;
using namespace atl::compute;

namespace {

Tensor tensor(Shape shape, std::vector<double> data, DType t = DType::F32) {
  Tensor x(t, std::move(shape));
  REQUIRE(data.size() == x.data.size());
  for (std::size_t k = 0; k < data.size(); ++k) x.set(static_cast<std::int64_t>(k), data[k]);
  return x;
}

struct Run {
  Signature sig;
  std::map<std::string, Tensor> in;

  Run &input(const std::string &name, Tensor t) {
    sig.inputs[name] = {TensorRole::Input, t.dtype, t.shape};
    in[name] = std::move(t);
    return *this;
  }
  Run &param(const std::string &name, std::int64_t v) {
    sig.params[name] = v;
    return *this;
  }
  std::map<std::string, Tensor> operator()(const std::string &text, std::vector<std::string> outputs) {
    sig.outputs = std::move(outputs);
    auto prog = parse(text);
    Analysis a = analyze(*prog, sig);
    std::map<std::string, const Tensor *> ptrs;
    for (auto &[name, t] : in) ptrs[name] = &t;
    return evaluate(*prog, a, ptrs, sig.params);
  }
};

std::vector<double> values(const Tensor &t) { return t.data; }

}  // namespace

TEST_SUITE("graph") {

TEST_CASE("compute evaluate: small matmul with +=!") {
  auto out = Run()
                 .input("A", tensor({2, 3}, {1, 2, 3, 4, 5, 6}))
                 .input("B", tensor({3, 2}, {1, 0, 0, 1, 1, 1}))("C(i, j) +=! A(i, k) * B(k, j)", {"C"});
  CHECK(out.at("C").shape == Shape{2, 2});
  CHECK(values(out.at("C")) == std::vector<double>{4, 5, 10, 11});
}

TEST_CASE("compute evaluate: sequential prefix sum with a parameter") {
  auto out = Run().param("N", 5).input("x", tensor({5}, {1, 2, 3, 4, 5}))(
      "B(i) = x(i)\nB(i) += B(i - 1) where i in 1:N", {"B"});
  CHECK(values(out.at("B")) == std::vector<double>{1, 3, 6, 10, 15});
}

TEST_CASE("compute evaluate: softmax as four statements with temporaries") {
  double l3 = std::log(3.0);
  auto out = Run().input("x", tensor({2, 2}, {1, 1 + l3, 2, 2}))("m(i) max=! x(i, j)\n"
                                                                 "e(i, j) = exp(x(i, j) - m(i))\n"
                                                                 "s(i) +=! e(i, j)\n"
                                                                 "y(i, j) = e(i, j) / s(i)",
                                                                 {"y"});
  const Tensor &y = out.at("y");
  CHECK(y.data[0] == doctest::Approx(0.25));
  CHECK(y.data[1] == doctest::Approx(0.75));
  CHECK(y.data[2] == doctest::Approx(0.5));
  CHECK(y.data[3] == doctest::Approx(0.5));
  CHECK(out.at("m").data[0] == static_cast<float>(1 + l3));
  CHECK(out.at("s").data[1] == 2.0);
}

TEST_CASE("compute evaluate: guard pads a 1-D convolution with zeros") {
  Run r;
  r.input("x", tensor({4}, {1, 2, 3, 4})).input("w", tensor({3}, {1, 10, 100}));
  r.sig.output_shapes["y"] = {4};
  auto out = r("y(i) +=! guard(x(i + k - 1), 0) * w(k)", {"y"});
  // y(i) = x(i-1) + 10 x(i) + 100 x(i+1)
  CHECK(values(out.at("y")) == std::vector<double>{210, 321, 432, 43});
  Run p;
  p.input("x", tensor({2}, {5, 6}));
  p.sig.output_shapes["y"] = {4};
  CHECK(values(p("y(i) = guard(x(i - 1), -1)", {"y"}).at("y")) == std::vector<double>{-1, 5, 6, -1});
}

TEST_CASE("compute evaluate: every reduction operator with '!'") {
  Tensor x = tensor({2, 2}, {1, 2, 3, 4});
  CHECK(values(Run().input("x", x)("y(i) +=! x(i, j)", {"y"}).at("y")) == std::vector<double>{3, 7});
  CHECK(values(Run().input("x", x)("y(i) *=! x(i, j)", {"y"}).at("y")) == std::vector<double>{2, 12});
  CHECK(values(Run().input("x", x)("y(i) max=! x(i, j)", {"y"}).at("y")) == std::vector<double>{2, 4});
  CHECK(values(Run().input("x", x)("y(i) min=! x(i, j)", {"y"}).at("y")) == std::vector<double>{1, 3});
  Tensor n = tensor({2, 2}, {-1, -2, -3, -4});
  CHECK(values(Run().input("x", n)("y(i) max=! x(i, j)", {"y"}).at("y")) == std::vector<double>{-1, -3});
}

TEST_CASE("compute evaluate: every reduction operator without '!' reduces into the current value") {
  Tensor x = tensor({2, 2}, {1, 2, 3, 4});
  const std::string init = "y(i) = 2.5 where i in 0:2\n";
  CHECK(values(Run().input("x", x)(init + "y(i) += x(i, j)", {"y"}).at("y")) == std::vector<double>{5.5, 9.5});
  CHECK(values(Run().input("x", x)(init + "y(i) *= x(i, j)", {"y"}).at("y")) == std::vector<double>{5, 30});
  CHECK(values(Run().input("x", x)(init + "y(i) max= x(i, j)", {"y"}).at("y")) == std::vector<double>{2.5, 4});
  CHECK(values(Run().input("x", x)(init + "y(i) min= x(i, j)", {"y"}).at("y")) == std::vector<double>{1, 2.5});
  // outputs start at zero
  CHECK(values(Run().input("x", x)("y(i) += x(i, j)", {"y"}).at("y")) == std::vector<double>{3, 7});
  CHECK(values(Run().input("x", x)("y(i) *= x(i, j)", {"y"}).at("y")) == std::vector<double>{0, 0});
}

TEST_CASE("compute evaluate: floor and mod subscripts, strided reads") {
  Tensor x = tensor({3, 2}, {10, 11, 12, 13, 14, 15});
  CHECK(values(Run().input("x", x)("y(i) = x(floor(i / 2), i % 2) where i in 0:6", {"y"}).at("y")) ==
        std::vector<double>{10, 11, 12, 13, 14, 15});
  CHECK(values(Run().input("x", x)("y(i, j) = x(i / 2 + j, (i + 1) % 2) where i in 0:2, j in 0:2", {"y"}).at("y")) ==
        std::vector<double>{11, 13, 10, 12});
  Tensor a = tensor({7}, {0, 1, 2, 3, 4, 5, 6});
  CHECK(values(Run().input("a", a)("y(i) = a(2 * i + 1) where i in 0:3", {"y"}).at("y")) ==
        std::vector<double>{1, 3, 5});
  CHECK(values(Run().input("a", a)("y(floor(i / 2)) += a(i) where i in 0:6", {"y"}).at("y")) ==
        std::vector<double>{1, 5, 9});
}

TEST_CASE("compute evaluate: left-hand side offsets concatenate") {
  auto out = Run()
                 .input("a", tensor({2, 2}, {1, 2, 3, 4}))
                 .input("b", tensor({2, 1}, {5, 6}))("y(i, j) = a(i, j)\ny(i, j + 2) = b(i, j)", {"y"});
  CHECK(out.at("y").shape == Shape{2, 3});
  CHECK(values(out.at("y")) == std::vector<double>{1, 2, 5, 3, 4, 6});
}

TEST_CASE("compute evaluate: gather with indirect subscripts, errors for bad indices") {
  Tensor data = tensor({3, 2}, {1, 2, 3, 4, 5, 6});
  auto out = Run().input("data", data).input("idx", tensor({2}, {2, 0}, DType::I64))("y(i, j) = data(idx(i), j)", {"y"});
  CHECK(values(out.at("y")) == std::vector<double>{5, 6, 1, 2});
  try {
    Run().input("data", data).input("idx", tensor({2}, {1, 3}, DType::I64))("y(i, j) = data(idx(i), j)", {"y"});
    FAIL("no error");
  } catch (const UserError &e) {
    CHECK_MESSAGE(e.reason().find("'idx(i)' of 'data(idx(i), j)' has value 3, outside [0, 3)") != std::string::npos,
                  e.reason());
    CHECK(e.reason().find("i = 1") != std::string::npos);
    CHECK(e.where().line == 1);
    CHECK(e.where().column == 16);
  }
  CHECK_THROWS_WITH_AS(Run().input("data", data).input("idx", tensor({1}, {0.5}))("y(i, j) = data(idx(i), j)", {"y"}),
                       doctest::Contains("not an integer"), UserError);
  // guard() turns an out-of-range gathered index into padding
  CHECK(values(Run().input("data", data).input("idx", tensor({2}, {-1, 1}))("y(i, j) = guard(data(idx(i), j), 9)",
                                                                            {"y"})
                   .at("y")) == std::vector<double>{9, 9, 3, 4});
}

TEST_CASE("compute evaluate: parameters as values and in ranges") {
  auto out = Run().param("N", 3).input("x", tensor({3}, {1, 2, 3}))("y(i) = x(i) * N + i where i in 0:N", {"y"});
  CHECK(values(out.at("y")) == std::vector<double>{3, 7, 11});
  Run r;
  r.param("N", 3).input("x", tensor({3}, {1, 2, 3}));
  auto prog = parse("y(i) = x(i) where i in 0:N");
  r.sig.outputs = {"y"};
  Analysis a = analyze(*prog, r.sig);
  std::map<std::string, const Tensor *> in{{"x", &r.in["x"]}};
  CHECK_THROWS_WITH_AS(evaluate(*prog, a, in, {{"N", 4}}), doctest::Contains("parameter 'N'"), UserError);
  CHECK_THROWS_WITH_AS(evaluate(*prog, a, {}), doctest::Contains("missing input tensor 'x'"), UserError);
}

TEST_CASE("compute evaluate: stores round to f16") {
  auto out = Run().input("x", tensor({2}, {1, 2048}, DType::F16))("y(i) = x(i) + 0.0001\nz(i) = x(i) + 1", {"y", "z"});
  CHECK(out.at("y").dtype == DType::F16);
  CHECK(values(out.at("y")) == std::vector<double>{1, 2048});
  CHECK(values(out.at("z")) == std::vector<double>{2, 2048});  // 2049 is not an f16: ties to even
  auto f32 = Run().input("x", tensor({1}, {1}))("y(i) = x(i) + 0.0001", {"y"});
  CHECK(f32.at("y").data[0] == static_cast<double>(1.0001f));
}

TEST_CASE("compute evaluate: integer outputs use integer identities") {
  auto out = Run().input("x", tensor({2}, {-7, 5}, DType::I32))("y() max=! x(i)\nz() min=! x(i)", {"y", "z"});
  CHECK(out.at("y").data[0] == 5);
  CHECK(out.at("z").data[0] == -7);
}

TEST_CASE("compute evaluate: operators, functions and select") {
  auto out = Run().input("x", tensor({3}, {-2, 0, 3}))(
      "a(i) = x(i) > 0 ? x(i) : -x(i) * 10\n"
      "b(i) = (x(i) < 0) + 2 * (x(i) <= 0) + 4 * (x(i) >= 3) + 8 * (x(i) == 0) + 16 * (x(i) != 3)\n"
      "c(i) = (x(i) < 0 && i == 0) + 2 * (x(i) > 0 || i == 1) + 4 * !x(i)\n"
      "d(i) = x(i) % 2 + 10 * (7 / 2) + 100 * floor(x(i) / 2)\n"
      "e(i) = abs(x(i)) + min(x(i), 1) * 10 + max(x(i), 1) * 100 + pow(2, x(i)) * 1000\n"
      "f(i) = exp(0) + log(1) + sqrt(4) + tanh(0) + sigmoid(0) + erf(0) + -inf * 0 * 0 + 0 * i where i in 0:1",
      {"a", "b", "c", "d", "e"});
  CHECK(values(out.at("a")) == std::vector<double>{20, 0, 3});
  CHECK(values(out.at("b")) == std::vector<double>{1 + 2 + 16, 2 + 8 + 16, 4});
  CHECK(values(out.at("c")) == std::vector<double>{1, 2 + 4, 2});
  CHECK(values(out.at("d")) == std::vector<double>{0 + 35 - 100, 35, 1 + 35 + 100});
  CHECK(values(out.at("e")) == std::vector<double>{2 - 20 + 100 + 250, 0 + 0 + 100 + 1000, 3 + 10 + 300 + 8000});
  CHECK(std::isnan(out.at("f").data[0]));  // -inf * 0
}

TEST_CASE("compute evaluate: select evaluates only the branch taken") {
  // data(idx(i)) would be out of range for i = 1 if the else-branch ran
  auto out = Run()
                 .input("data", tensor({2}, {7, 8}))
                 .input("idx", tensor({2}, {1, 5}))("y(i) = i == 0 ? data(idx(i)) : -1", {"y"});
  CHECK(values(out.at("y")) == std::vector<double>{8, -1});
}

TEST_CASE("compute evaluate: rank-0 tensors") {
  auto out = Run().input("x", tensor({}, {4}))("y() = x() * 2\nz() +=! y() * i where i in 0:4", {"y", "z"});
  CHECK(values(out.at("y")) == std::vector<double>{8});
  CHECK(values(out.at("z")) == std::vector<double>{48});
}

TEST_CASE("compute evaluate: 128^3 matmul matches a plain triple loop") {
  const std::int64_t n = 128;
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> dist(-1, 1);
  Tensor a(DType::F32, {n, n}), b(DType::F32, {n, n});
  for (auto *t : {&a, &b})
    for (std::int64_t k = 0; k < n * n; ++k) t->set(k, dist(rng));
  auto out = Run().input("A", a).input("B", b)("C(i, j) +=! A(i, k) * B(k, j)", {"C"});
  const Tensor &c = out.at("C");
  std::int64_t mismatches = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (std::int64_t k = 0; k < n; ++k) acc = round_to(DType::F32, acc + a.data[i * n + k] * b.data[k * n + j]);
      if (acc != c.data[i * n + j]) ++mismatches;
    }
  CHECK(mismatches == 0);
}

}  // TEST_SUITE
