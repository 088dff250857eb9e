// Tests of Compute analysis: index ranges, shapes, dtypes, roles, naming and errors.
#include "graph/compute/ast.h"
#include "graph/compute/compute.h"

#include <atoll/diagnostics.h>
#include <doctest/doctest.h>

using namespace atl;
using namespace atl::compute;

namespace {

Signature sig(std::map<std::string, Shape> inputs, std::vector<std::string> outputs, DType dtype = DType::F32) {
  Signature s;
  for (auto &[name, shape] : inputs) s.inputs[name] = {TensorRole::Input, dtype, shape};
  s.outputs = std::move(outputs);
  return s;
}

Analysis run(const std::string &text, const Signature &s) { return analyze(*parse(text), s); }

const Analysis::Index &index(const Analysis &a, std::size_t stmt, const std::string &name) {
  for (const auto &i : a.statements.at(stmt).indices)
    if (i.name == name) return i;
  FAIL("no index " << name);
  static Analysis::Index none;
  return none;
}

void check_error(const std::string &text, const Signature &s, const std::string &msg, int line, int column) {
  try {
    run(text, s);
    FAIL("no error for: " << text);
  } catch (const UserError &e) {
    CHECK_MESSAGE(e.reason().find(msg) != std::string::npos, e.reason());
    CHECK(e.where().line == line);
    CHECK(e.where().column == column);
  }
}

}  // namespace

TEST_SUITE("graph") {

TEST_CASE("compute analysis: matmul ranges from shapes, loop order, naming with _init") {
  Signature s = sig({{"A", {4, 3}}, {"B", {3, 5}}}, {"C"});
  s.node = "mm";
  Analysis a = run("C(i, j) +=! A(i, k) * B(k, j)\nD(j, i) = C(i, j)", s);
  REQUIRE(a.statements.size() == 3);
  CHECK(a.statements[0].name == "mm_0_init");
  CHECK(a.statements[0].init);
  CHECK(a.statements[1].name == "mm_0");
  CHECK(a.statements[2].name == "mm_1");
  REQUIRE(a.statements[0].indices.size() == 2);
  REQUIRE(a.statements[1].indices.size() == 3);
  CHECK(a.statements[1].indices[0].name == "i");
  CHECK(a.statements[1].indices[1].name == "j");
  CHECK(a.statements[1].indices[2].name == "k");
  CHECK(a.statements[1].indices[2].reduction);
  CHECK_FALSE(a.statements[1].indices[0].reduction);
  CHECK(index(a, 1, "i").hi == 4);
  CHECK(index(a, 1, "j").hi == 5);
  CHECK(index(a, 1, "k").hi == 3);
  CHECK(a.statements[2].indices[0].name == "j");  // LHS order, not RHS order
  CHECK(a.tensors.at("C").shape == Shape{4, 5});
  CHECK(a.tensors.at("C").role == TensorRole::Output);
  CHECK(a.tensors.at("D").shape == Shape{5, 4});
  CHECK(a.tensors.at("D").role == TensorRole::Temporary);
  CHECK(a.tensors.at("A").role == TensorRole::Input);
}

TEST_CASE("compute analysis: where clause wins over shapes; shapes intersect") {
  Analysis a = run("y(i) = x(i) where i in 2:5", sig({{"x", {8}}}, {"y"}));
  CHECK(index(a, 0, "i").lo == 2);
  CHECK(index(a, 0, "i").hi == 5);
  CHECK(a.tensors.at("y").shape == Shape{5});
  Analysis b = run("y(i) = a(i) + b(i)", sig({{"a", {5}}, {"b", {3}}}, {"y"}));
  CHECK(index(b, 0, "i").hi == 3);
  Signature s = sig({{"x", {8}}}, {"y"});
  s.params["N"] = 6;
  Analysis c = run("y(i) = x(i + 1) where i in 0:N - 1", s);
  CHECK(index(c, 0, "i").hi == 5);
  s.output_shapes["y"] = {10};
  Analysis d = run("y(i) = x(i) where i in 0:4", s);
  CHECK(d.tensors.at("y").shape == Shape{10});
  CHECK(d.params.at("N") == 6);
}

TEST_CASE("compute analysis: an index takes its range from the written tensor's known shape") {
  Signature s = sig({{"x", {6}}, {"w", {3}}}, {"y"});
  s.output_shapes["y"] = {4};
  Analysis a = run("y(i) +=! guard(x(i + k - 1), 0) * w(k)", s);
  CHECK(index(a, 1, "i").hi == 4);
  CHECK(index(a, 1, "k").hi == 3);
}

TEST_CASE("compute analysis: dtypes of outputs and temporaries") {
  Analysis a = run("t(i) = x(i)\ny(i) = t(i)", sig({{"x", {3}}}, {"y"}, DType::F16));
  CHECK(a.tensors.at("t").dtype == DType::F32);  // f16 programs keep temporaries in f32
  CHECK(a.tensors.at("t").role == TensorRole::Temporary);
  CHECK(a.tensors.at("y").dtype == DType::F16);
  Signature mixed = sig({{"x", {3}}}, {"y"}, DType::F16);
  mixed.inputs["z"] = {TensorRole::Input, DType::BF16, {3}};
  CHECK(run("y(i) = x(i) + z(i)", mixed).tensors.at("y").dtype == DType::F32);
  CHECK(run("y(i) = i where i in 0:3", sig({}, {"y"})).tensors.at("y").dtype == DType::F32);
}

TEST_CASE("compute analysis: temporaries grow to cover every statement that writes them") {
  Analysis a = run("t(i) = 1 where i in 0:3\nt(i + 3) = 2 where i in 0:4\ny() +=! t(i)", sig({}, {"y"}));
  CHECK(a.tensors.at("t").shape == Shape{7});
  CHECK(a.tensors.at("y").shape == Shape{});
  CHECK(index(a, 3, "i").hi == 7);
}

TEST_CASE("compute analysis: reading an output before writing it is allowed") {
  Analysis a = run("y(i) = y(i) + x(i)\ny(i) = 2 * y(i)", sig({{"x", {3}}}, {"y"}));
  CHECK(a.tensors.at("y").shape == Shape{3});
}

TEST_CASE("compute analysis: floor and mod subscripts are bounded") {
  Signature s = sig({{"x", {4, 4}}}, {"y"});
  Analysis a = run("y(i) = x(floor(i / 4), i % 4) where i in 0:16", s);
  CHECK(a.tensors.at("y").shape == Shape{16});
  check_error("y(i) = x(floor(i / 4), i % 4) where i in 0:17", s, "ranges over [0, 4] but 'x' has extent 4", 1, 10);
}

TEST_CASE("compute analysis: indirect subscripts read the whole axis") {
  Signature s = sig({{"data", {5, 2}}, {"idx", {3}}}, {"y"});
  Analysis a = run("y(i, j) = data(idx(i), j)", s);
  CHECK(index(a, 0, "i").hi == 3);
  CHECK(index(a, 0, "j").hi == 2);
  CHECK(a.tensors.at("y").shape == Shape{3, 2});
  check_error("y(idx(i)) = 1", s, "indirect subscript 'idx(i)' on the left-hand side", 1, 3);
}

TEST_CASE("compute analysis: non-affine subscripts are errors with line and column") {
  Signature s = sig({{"a", {16}}}, {"y"});
  s.params["N"] = 4;
  check_error("y(i) = a(i * i) where i in 0:4", s, "non-affine subscript 'i * i'", 1, 10);
  check_error("y(i) = 1 where i in 0:4\ny(i) += a(i * j) where i in 0:4, j in 0:4", s, "non-affine subscript 'i * j'",
              2, 11);
  check_error("y(i) += a(i / j) where i in 0:4, j in 1:4", s, "non-affine subscript 'i / j'", 1, 11);
  check_error("y(i) = a(i * N) where i in 0:4", s, "non-affine", 1, 10);
  check_error("y(i) = a(i) where i in 0:i", s, "not a parameter", 1, 26);
}

TEST_CASE("compute analysis: unbound index and reduction index with '=' are errors naming it") {
  Signature s = sig({{"x", {4}}}, {"y"});
  check_error("y(i) +=! x(i + j) where i in 0:2", s, "cannot infer the range of index 'j'", 1, 16);
  check_error("y(i) = x(i) + x(k)", s, "index 'k' appears only on the right-hand side", 1, 17);
  check_error("y(i) = x(i) where q in 0:3", s, "index 'q' of the 'where' clause does not appear", 1, 19);
}

TEST_CASE("compute analysis: out-of-bounds accesses name the access, dimension, range and extent") {
  Signature s = sig({{"x", {4}}}, {"y"});
  check_error("y(i) = x(i) + x(i + 1)", s,
              "read 'x(i + 1)' is out of bounds in dimension 0: subscript 'i + 1' ranges over [1, 4] but 'x' has extent 4",
              1, 17);
  check_error("y(i - 1) = x(i)", s, "write 'y(i - 1)' is out of bounds in dimension 0", 1, 3);
  Signature o = s;
  o.output_shapes["y"] = {3};
  check_error("y(i) = x(i) where i in 0:4", o, "write 'y(i)' is out of bounds in dimension 0: subscript 'i' ranges over [0, 3] but 'y' has extent 3",
              1, 3);
  // guard() lifts the requirement
  CHECK_NOTHROW(run("y(i) = guard(x(i + 1), 0)", o));
}

TEST_CASE("compute analysis: writing an input, unknown tensors, rank mismatches") {
  Signature s = sig({{"x", {4}}}, {"y"});
  check_error("y(i) = x(i)\nx(i) = 1 where i in 0:4", s, "cannot write input tensor 'x'", 2, 1);
  check_error("y(i) = z(i) where i in 0:4", s, "unknown tensor 'z'", 1, 8);
  check_error("y(i) = x(i, 0)", s, "tensor 'x' has rank 1", 1, 8);
  check_error("y(i) = x(i)\ny(i, j) = 1 where j in 0:2", s, "tensor 'y' has rank 1", 2, 1);
  check_error("z(i) = x(i)", s, "output 'y' is never written", 1, 1);
  check_error("y(i) = x(i)\nt(i) = 1 where i in 3:3", s, "cannot infer the shape of 't'", 2, 1);
}

}  // TEST_SUITE
