// Element type names, sizes, ONNX enum mapping and rounding to each type.
#include <atoll/dtype.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace atl {

const char *dtype_name(DType t) {
  switch (t) {
  case DType::F32: return "f32";
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::I8: return "i8";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  case DType::Bool: return "bool";
  case DType::U8: return "u8";
  case DType::F64: return "f64";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view n) {
  if (n == "f32" || n == "float" || n == "float32") return DType::F32;
  if (n == "f16" || n == "float16") return DType::F16;
  if (n == "bf16" || n == "bfloat16") return DType::BF16;
  if (n == "i8" || n == "int8") return DType::I8;
  if (n == "i32" || n == "int32") return DType::I32;
  if (n == "i64" || n == "int64") return DType::I64;
  if (n == "bool") return DType::Bool;
  if (n == "u8" || n == "uint8") return DType::U8;
  if (n == "f64" || n == "float64" || n == "double") return DType::F64;
  return std::nullopt;
}

std::optional<DType> dtype_from_onnx(long long e) {
  switch (e) {
  case 1: return DType::F32;
  case 2: return DType::U8;
  case 3: return DType::I8;
  case 6: return DType::I32;
  case 7: return DType::I64;
  case 9: return DType::Bool;
  case 10: return DType::F16;
  case 11: return DType::F64;
  case 16: return DType::BF16;
  default: return std::nullopt;
  }
}

std::size_t dtype_size(DType t) {
  switch (t) {
  case DType::F32: return 4;
  case DType::F16: return 2;
  case DType::BF16: return 2;
  case DType::I8: return 1;
  case DType::I32: return 4;
  case DType::I64: return 8;
  case DType::Bool: return 1;
  case DType::U8: return 1;
  case DType::F64: return 8;
  }
  return 0;
}

bool is_float(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16 || t == DType::F64; }
bool is_integer(DType t) { return t == DType::I8 || t == DType::U8 || t == DType::I32 || t == DType::I64; }

std::uint16_t float_to_half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::uint32_t exp = (x >> 23) & 0xffu;
  std::uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow to inf
  if (e <= 0) {
    if (e < -10) return static_cast<std::uint16_t>(sign);  // underflow to zero
    mant |= 0x800000u;
    int shift = 14 - e;
    std::uint32_t half = mant >> shift;
    std::uint32_t rem = mant & ((1u << shift) - 1u);
    std::uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (mant >> 13);
  std::uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // may carry into exponent: correct
  return static_cast<std::uint16_t>(sign | half);
}

float half_to_float(std::uint16_t h) {
  std::uint32_t sign = (h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400u));
      x = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

std::uint16_t float_to_bfloat(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);  // NaN
  std::uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return static_cast<std::uint16_t>(x >> 16);
}

float bfloat_to_float(std::uint16_t b) {
  std::uint32_t x = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

template <typename Int>
static double wrap_int(double v) {
  if (std::isnan(v)) return 0.0;
  // Infinities (an integer division by zero) give 0 for i8/i32, as the
  // generated code's conversions do; i64 saturates.
  if (std::isinf(v) && sizeof(Int) < 8) return 0.0;
  double t = std::trunc(v);
  // C conversion of an out-of-range value is undefined; wrap modulo 2^bits
  // as two's complement hardware does for in-range int64 intermediates.
  constexpr double range = static_cast<double>(std::numeric_limits<Int>::max()) + 1.0;
  if (t >= -range && t < range) return t;
  if (sizeof(Int) >= 8) return t < 0 ? -range : range - 1;  // saturate i64
  double m = std::fmod(t, 2 * range);
  if (m >= range) m -= 2 * range;
  if (m < -range) m += 2 * range;
  return m;
}

/// Unsigned 8 bits: truncate, then wrap modulo 256 as C's conversions do.
static double wrap_u8(double v) {
  if (std::isnan(v) || std::isinf(v)) return 0.0;
  double m = std::fmod(std::trunc(v), 256.0);
  return m < 0 ? m + 256.0 : m;
}

double round_to(DType t, double v) {
  switch (t) {
  case DType::F32: return static_cast<double>(static_cast<float>(v));
  case DType::F16: return half_to_float(float_to_half(static_cast<float>(v)));
  case DType::BF16: return bfloat_to_float(float_to_bfloat(static_cast<float>(v)));
  case DType::I8: return wrap_int<std::int8_t>(v);
  case DType::I32: return wrap_int<std::int32_t>(v);
  case DType::I64: return wrap_int<std::int64_t>(v);
  case DType::U8: return wrap_u8(v);
  case DType::F64: return v;
  case DType::Bool: return (v != 0.0 && !std::isnan(v)) ? 1.0 : (std::isnan(v) ? 1.0 : 0.0);
  }
  return v;
}

}  // namespace atl
