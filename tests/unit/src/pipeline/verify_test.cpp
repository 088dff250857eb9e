// compare_outputs: normwise relative error, dtype tolerances, NaN positions; f32 outputs computed through f16.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace atl;

TEST_SUITE("src") {
TEST_CASE("normwise relative error against the dtype's tolerance") {
  Tensor r(DType::F32, {3});
  r.data = {1, -4, 2};
  Tensor a = r;
  a.data[1] = -4.0002;  // abs 2e-4, rel 5e-5 of max |r| = 4
  VerifyResult v = compare_outputs({{"y", a}}, {{"y", r}}, {"y"});
  CHECK(v.passed);
  CHECK(v.max_abs_err == doctest::Approx(2e-4));
  CHECK(v.max_rel_err == doctest::Approx(5e-5));
  a.data[1] = -4.01;
  v = compare_outputs({{"y", a}}, {{"y", r}}, {"y"});
  CHECK(!v.passed);
  CHECK(v.detail.find("exceeds 0.0001") != std::string::npos);
  Tensor h = r, ha = r;
  h.dtype = ha.dtype = DType::F16;
  ha.data[1] = -4.01;
  CHECK(compare_outputs({{"y", ha}}, {{"y", h}}, {"y"}).passed);
}

TEST_CASE("non-finite values must match in position") {
  Tensor r(DType::F32, {2});
  r.data = {NAN, 1};
  Tensor a = r;
  CHECK(compare_outputs({{"y", a}}, {{"y", r}}, {"y"}).passed);
  a.data = {1, 1};
  CHECK(!compare_outputs({{"y", a}}, {{"y", r}}, {"y"}).passed);
  r.data = {INFINITY, 1};
  a.data = {-INFINITY, 1};
  CHECK(!compare_outputs({{"y", a}}, {{"y", r}}, {"y"}).passed);
}

TEST_CASE("integers must be exact; shapes must agree") {
  Tensor r(DType::I32, {2});
  r.data = {3, 4};
  Tensor a = r;
  a.data[0] = 2;
  CHECK(!compare_outputs({{"y", a}}, {{"y", r}}, {"y"}).passed);
  Tensor s(DType::I32, {1, 2});
  s.data = r.data;
  CHECK(compare_outputs({{"y", s}}, {{"y", r}}, {"y"}).detail.find("shape") != std::string::npos);
}
TEST_CASE("f32 outputs computed through f16 or bf16 are verified with that dtype's tolerance") {
  // A random graph (seed 407): LayerNorm, then a Cast to f16 and back. One
  // LayerNorm value sat 4 f32 ulps from the midpoint of two f16 values, so
  // the compiled sum's last bit moved it by one f16 ulp: 1.01e-4 normwise.
  Batch b = read_batch(R"J({"atoll": 1, "graphs": [{"name": "g", "inputs": [{"name": "x", "shape": [4]}],
    "outputs": ["y", "z", "w"], "nodes": [
      {"op": "Cast", "name": "c1", "inputs": ["x"], "outputs": ["h"], "attrs": {"to": "f16"}},
      {"op": "Cast", "name": "c2", "inputs": ["h"], "outputs": ["hf"], "attrs": {"to": "f32"}},
      {"op": "Relu", "name": "r", "inputs": ["hf"], "outputs": ["y"]},
      {"op": "Cast", "name": "c3", "inputs": ["x"], "outputs": ["bh"], "attrs": {"to": "bf16"}},
      {"op": "Add", "name": "a", "inputs": ["h", "h"], "outputs": ["h2"]},
      {"op": "Cast", "name": "c4", "inputs": ["h2"], "outputs": ["h2f"], "attrs": {"to": "f32"}},
      {"op": "Cast", "name": "c5", "inputs": ["bh"], "outputs": ["bf"], "attrs": {"to": "f32"}},
      {"op": "Mul", "name": "m", "inputs": ["h2f", "bf"], "outputs": ["z"]},
      {"op": "Exp", "name": "e", "inputs": ["x"], "outputs": ["w"]}]}]})J");
  REQUIRE(b.graphs.size() == 1);
  REQUIRE(b.graphs[0].graph.has_value());
  std::map<std::string, DType> p = verify_precisions(*b.graphs[0].graph);
  CHECK(p.size() == 2);
  CHECK(p.at("y") == DType::F16);
  CHECK(p.at("z") == DType::BF16);  // through both: bf16, the coarser
  CHECK(p.count("w") == 0);         // f32 all the way

  Tensor r(DType::F32, {3});
  r.data = {1, -4, 2};
  Tensor a = r;
  a.data[1] = -4.002;  // rel 5e-4: one f16 ulp
  CHECK(!compare_outputs({{"y", a}}, {{"y", r}}, {"y"}).passed);
  VerifyResult v = compare_outputs({{"y", a}}, {{"y", r}}, {"y"}, {{"y", DType::F16}});
  CHECK(v.passed);
  a.data[1] = -4.1;
  v = compare_outputs({{"y", a}}, {{"y", r}}, {"y"}, {{"y", DType::F16}});
  CHECK(!v.passed);
  CHECK(v.detail.find("exceeds 0.01 for f32 computed through f16") != std::string::npos);
}
}
