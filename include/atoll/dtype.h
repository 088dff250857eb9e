// Element types of tensors, their names, sizes and rounding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace atl {

/// Element types of the batch format: f32 everywhere, f16/bf16/i8/i32 where an
/// operator allows, i64 for shape and index constants, bool for conditions,
/// u8 (images, quantized data) and f64 (scientific data; kernels that touch
/// an f64 tensor compute in double and are not vectorized).
enum class DType : std::uint8_t { F32, F16, BF16, I8, I32, I64, Bool, U8, F64 };

/// The batch-format name: "f32", "f16", "bf16", "i8", "i32", "i64", "bool",
/// "u8", "f64".
const char *dtype_name(DType t);
/// Parses a batch-format name ("f32") or an ONNX TensorProto enum name in
/// lower case ("float", "float16", "int64"...). Empty when unknown.
std::optional<DType> parse_dtype(std::string_view name);
/// Maps ONNX's TensorProto.DataType integer (1 = FLOAT, 10 = FLOAT16, ...).
std::optional<DType> dtype_from_onnx(long long onnx_enum);
/// Bytes per element.
std::size_t dtype_size(DType t);
bool is_float(DType t);    ///< f32, f16, bf16, f64
bool is_integer(DType t);  ///< i8, u8, i32, i64 (not bool)

/// Rounds a value to what a tensor of type `t` can hold: f32 and f16 and bf16
/// round to nearest even (f64 keeps it), integers truncate toward zero and
/// wrap as C's conversions do, bool becomes 0 or 1. NaN stays NaN in float
/// types.
double round_to(DType t, double v);

/// IEEE binary16 and bfloat16 conversions (round to nearest even).
std::uint16_t float_to_half(float f);
float half_to_float(std::uint16_t h);
std::uint16_t float_to_bfloat(float f);
float bfloat_to_float(std::uint16_t b);

}  // namespace atl
