// Element type names and rounding (f16, bf16, integer wrap, bool).
#include <atoll/dtype.h>

#include <doctest/doctest.h>

#include <cmath>

using namespace atl;

TEST_SUITE("graph") {
TEST_CASE("dtype names round-trip") {
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::I8, DType::I32, DType::I64, DType::Bool, DType::U8,
                  DType::F64})
    CHECK(parse_dtype(dtype_name(t)) == t);
  CHECK(!parse_dtype("u16"));
  CHECK(parse_dtype("double") == DType::F64);
  CHECK(parse_dtype("uint8") == DType::U8);
  CHECK(dtype_from_onnx(10) == DType::F16);
  CHECK(dtype_from_onnx(2) == DType::U8);
  CHECK(dtype_from_onnx(11) == DType::F64);
  CHECK(!dtype_from_onnx(4));  // UINT16
  CHECK(dtype_size(DType::F64) == 8);
  CHECK(dtype_size(DType::U8) == 1);
  CHECK(is_float(DType::F64));
  CHECK(is_integer(DType::U8));
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

TEST_CASE("u8 and f64 rounding") {
  CHECK(round_to(DType::U8, 255.9) == 255.0);
  CHECK(round_to(DType::U8, 256.0) == 0.0);   // wraps modulo 256
  CHECK(round_to(DType::U8, -1.0) == 255.0);
  CHECK(round_to(DType::U8, -2.5) == 254.0);  // truncates toward zero first
  CHECK(round_to(DType::U8, NAN) == 0.0);
  CHECK(round_to(DType::F64, 0.1) == 0.1);    // kept, not rounded to f32
  CHECK(round_to(DType::F64, 1e300) == 1e300);
}
}
