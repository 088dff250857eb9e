// Decodes ONNX TensorProtos into Atoll tensors (values as doubles rounded to
// the dtype, as every Atoll tensor holds them).
#include "src/frontend/onnx_tensor.h"

#include <atoll/diagnostics.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace atl::onnx_import {

namespace {

using TP = onnx::TensorProto;

/// Little-endian load of `n` bytes at `p` (x86 and every ONNX file are little-endian).
template <typename T>
T load(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// Bytes per element of the ONNX types whose raw data Atoll decodes.
std::size_t raw_size(int type) {
  switch (type) {
  case TP::FLOAT: case TP::INT32: return 4;
  case TP::FLOAT16: case TP::BFLOAT16: return 2;
  case TP::INT8: case TP::UINT8: case TP::BOOL: return 1;
  case TP::INT64: case TP::DOUBLE: return 8;
  default: return 0;
  }
}

double decode_raw(int type, const char *p) {
  switch (type) {
  case TP::FLOAT: return load<float>(p);
  case TP::INT32: return load<std::int32_t>(p);
  case TP::FLOAT16: return half_to_float(load<std::uint16_t>(p));
  case TP::BFLOAT16: return bfloat_to_float(load<std::uint16_t>(p));
  case TP::INT8: return load<std::int8_t>(p);
  case TP::BOOL: return load<std::uint8_t>(p) != 0;
  case TP::INT64: return static_cast<double>(load<std::int64_t>(p));
  case TP::UINT8: return load<std::uint8_t>(p);
  case TP::DOUBLE: return load<double>(p);
  default: return 0;
  }
}

/// The bytes of an external-data tensor: `location` relative to the model's
/// directory, from `offset`, `length` bytes (the rest of the file when absent).
std::string read_external(const TP &t, const std::string &model_dir, const std::string &what) {
  std::string location;
  std::int64_t offset = 0, length = -1;
  for (const auto &kv : t.external_data()) {
    auto number = [&](const char *key) -> std::int64_t {
      try {
        std::size_t used = 0;
        long long v = std::stoll(kv.value(), &used);
        if (used != kv.value().size() || v < 0) throw std::invalid_argument(key);
        return v;
      } catch (const std::exception &) {
        throw UserError(what + ": external data " + key + " '" + kv.value() + "' is not a non-negative integer");
      }
    };
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") offset = number("offset");
    else if (kv.key() == "length") length = number("length");
  }
  if (location.empty()) throw UserError(what + ": external data without a 'location'");
  std::filesystem::path rel(location);
  bool escapes = rel.is_absolute();
  for (const auto &part : rel) escapes |= part == "..";
  if (escapes)
    throw UserError(what + ": external data file '" + location +
                    "' is not inside the model's directory (ONNX requires a relative path without '..')");
  std::filesystem::path file = std::filesystem::path(model_dir.empty() ? "." : model_dir) / rel;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw UserError(what + ": external data file '" + location + "' not found (looked for " + file.string() + ")");
  auto size = static_cast<std::int64_t>(std::filesystem::file_size(file, ec));
  if (ec) throw UserError(what + ": cannot read external data file '" + file.string() + "'");
  if (length < 0) length = size - offset;
  if (offset > size || length > size - offset)
    throw UserError(what + ": external data file '" + file.string() + "' holds " + std::to_string(size) +
                    " bytes, fewer than offset " + std::to_string(offset) + " + length " + std::to_string(length));
  std::ifstream in(file, std::ios::binary);
  std::string bytes(static_cast<std::size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  if (!in) throw UserError(what + ": cannot read external data file '" + file.string() + "'");
  return bytes;
}

}  // namespace

std::string onnx_dtype_name(int type) {
  if (TP::DataType_IsValid(type)) return TP::DataType_Name(static_cast<TP::DataType>(type));
  switch (type) {  // types newer than this ONNX library
  case 17: return "FLOAT8E4M3FN";
  case 18: return "FLOAT8E4M3FNUZ";
  case 19: return "FLOAT8E5M2";
  case 20: return "FLOAT8E5M2FNUZ";
  case 21: return "UINT4";
  case 22: return "INT4";
  case 23: return "FLOAT4E2M1";
  default: return "data type " + std::to_string(type);
  }
}

DType atoll_dtype(int type, const std::string &what) {
  if (auto t = dtype_from_onnx(type)) return *t;
  throw UserError(what + " has element type " + onnx_dtype_name(type) +
                  ", which Atoll does not support (FLOAT, DOUBLE, FLOAT16, BFLOAT16, INT8, UINT8, INT32, INT64, BOOL)");
}

Tensor read_tensor(const TP &t, const std::string &model_dir, const std::string &what) {
  if (!t.has_data_type()) throw UserError(what + " has no data type");
  DType dtype = atoll_dtype(t.data_type(), what);
  Shape shape;
  std::int64_t n = 1;
  for (std::int64_t d : t.dims()) {
    if (d < 0) throw UserError(what + " has a negative dimension " + std::to_string(d));
    if (d > 0 && n > kMaxTensorElements / d)
      throw UserError(what + " has more than 2^32 elements");
    n *= d;
    shape.push_back(d);
  }
  if (t.data_type() == TP::STRING) throw UserError(what + " holds strings, which Atoll does not support");
  Tensor out(dtype, shape);
  auto count_error = [&](std::int64_t got) {
    return UserError(what + " has " + std::to_string(got) + " values but its shape " + shape_to_string(shape) +
                     " holds " + std::to_string(n));
  };
  const bool external = t.has_data_location() && t.data_location() == TP::EXTERNAL;
  if (external || t.has_raw_data()) {
    std::string external_bytes;
    const std::string &bytes = external ? (external_bytes = read_external(t, model_dir, what)) : t.raw_data();
    std::size_t size = raw_size(t.data_type());
    if (bytes.size() % size != 0 || static_cast<std::int64_t>(bytes.size() / size) != n)
      throw UserError(what + " has " + std::to_string(bytes.size()) + " bytes of data but its shape " +
                      shape_to_string(shape) + " needs " + std::to_string(n * static_cast<std::int64_t>(size)));
    for (std::int64_t i = 0; i < n; ++i) out.set(i, decode_raw(t.data_type(), bytes.data() + i * size));
    return out;
  }
  switch (t.data_type()) {
  case TP::FLOAT:
    if (t.float_data_size() != n) throw count_error(t.float_data_size());
    for (std::int64_t i = 0; i < n; ++i) out.set(i, t.float_data(static_cast<int>(i)));
    break;
  case TP::INT64:
    if (t.int64_data_size() != n) throw count_error(t.int64_data_size());
    for (std::int64_t i = 0; i < n; ++i) out.set(i, static_cast<double>(t.int64_data(static_cast<int>(i))));
    break;
  case TP::DOUBLE:
    if (t.double_data_size() != n) throw count_error(t.double_data_size());
    for (std::int64_t i = 0; i < n; ++i) out.set(i, t.double_data(static_cast<int>(i)));
    break;
  default: {  // INT32, INT8, UINT8, BOOL, and FLOAT16 / BFLOAT16 as their bits
    if (t.int32_data_size() != n) throw count_error(t.int32_data_size());
    for (std::int64_t i = 0; i < n; ++i) {
      std::int32_t v = t.int32_data(static_cast<int>(i));
      double x = t.data_type() == TP::FLOAT16    ? half_to_float(static_cast<std::uint16_t>(v))
                 : t.data_type() == TP::BFLOAT16 ? bfloat_to_float(static_cast<std::uint16_t>(v))
                                                 : static_cast<double>(v);
      out.set(i, x);
    }
  }
  }
  return out;
}

}  // namespace atl::onnx_import
