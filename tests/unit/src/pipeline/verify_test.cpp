// compare_outputs: normwise relative error, dtype tolerances, NaN positions.
#include <atoll/pipeline.h>

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
}
