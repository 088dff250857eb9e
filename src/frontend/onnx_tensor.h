// ONNX tensors and types (onnx.proto's TensorProto and TypeProto) as Atoll
// tensors and tensor types: element types, dimensions, typed and raw data,
// external data files. Used by the ONNX reader only; the protobuf classes
// are the ONNX project's own (libonnx-dev).
#pragma once

#include <atoll/dtype.h>
#include <atoll/graph.h>
#include <atoll/tensor.h>

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

namespace atl::onnx_import {

/// ONNX's name of a TensorProto.DataType value ("FLOAT", "DOUBLE", ...) or
/// "data type N" for one this ONNX library does not know.
std::string onnx_dtype_name(int onnx_type);

/// The Atoll dtype of an ONNX element type; UserError naming `what` (e.g.
/// "input 'x'") when Atoll has no such dtype.
DType atoll_dtype(int onnx_type, const std::string &what);

/// The values of a TensorProto (typed fields, raw_data, or external data
/// resolved against `model_dir`), with its dtype and shape. UserError naming
/// `what` for a bad dimension, a count that does not match the shape, an
/// unsupported dtype, or an external file that is missing, outside the
/// model's directory or too short.
Tensor read_tensor(const onnx::TensorProto &t, const std::string &model_dir, const std::string &what);

}  // namespace atl::onnx_import
