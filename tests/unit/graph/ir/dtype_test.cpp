// Element type names and rounding (f16, bf16, integer wrap, bool).
#include <atoll/dtype.h>

#include <doctest/doctest.h>

#include <cmath>

using namespace atl;

TEST_SUITE("graph") {
TEST_CASE("dtype names round-trip") {
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::I8, DType::I32, DType::I64, DType::Bool})
    CHECK(parse_dtype(dtype_name(t)) == t);
  CHECK(!parse_dtype("f64"));
  CHECK(dtype_from_onnx(10) == DType::F16);
}

TEST_CASE("f16 rounding") {
  CHECK(round_to(DType::F16, 1.0) == 1.0);
  CHECK(round_to(DType::F16, 65504.0) == 65504.0);
  CHECK(std::isinf(round_to(DType::F16, 70000.0)));
  CHECK(round_to(DType::F16, 1.0 + 1.0 / 2048) == 1.0);  // tie to even
  CHECK(round_to(DType::F16, 1.0 + 3.0 / 2048) == 1.0 + 2.0 / 1024);
  CHECK(round_to(DType::F16, 5.960464477539063e-08) == doctest::Approx(5.960464477539063e-08));  // subnormal
  CHECK(std::isnan(round_to(DType::F16, NAN)));
}

TEST_CASE("bf16 and integer rounding") {
  CHECK(round_to(DType::BF16, 1.00390625) == 1.0);  // tie to even
  CHECK(round_to(DType::I32, -2.7) == -2.0);
  CHECK(round_to(DType::I8, 130.0) == -126.0);
  CHECK(round_to(DType::Bool, 0.5) == 1.0);
  CHECK(round_to(DType::Bool, 0.0) == 0.0);
}
}
