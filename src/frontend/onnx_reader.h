// ONNX models (.onnx files) read into Atoll's graph IR, with the ONNX
// project's own protobuf classes: initializers become weights with their
// values, shape sub-graphs and other small constant computations are folded
// while reading, operators of older opsets are rewritten to the semantics
// the batch format uses (docs/onnx.md lists every rule).
#pragma once

#include "graph/ir/graph.h"
#include "src/frontend/batch.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace atl {

struct OnnxReadOptions {
  /// The graph's name; empty: the file's stem ("resnet50.onnx" -> "resnet50"),
  /// made an identifier.
  std::string graph_name;
  /// Nodes whose inputs are all constant are evaluated while reading when
  /// each of their outputs holds at most this many elements; larger ones stay
  /// nodes (the graph's fold_constants pass may fold them later).
  std::int64_t fold_limit = std::int64_t(1) << 16;
};

/// Whether `path` names an ONNX model (it ends in ".onnx").
bool is_onnx_path(const std::string &path);

/// Reads an ONNX model file into a finalized graph. Throws UserError whose
/// reason names the place in the model ("node 'Loop_12' (Loop): operator not
/// supported", "initializer 'w': ..."); the caller adds the file's name.
Graph read_onnx_file(const std::string &path, const OnnxReadOptions &options = {});
/// The same from the model's bytes; `model_dir` resolves external data files.
Graph read_onnx_bytes(std::string_view bytes, const std::string &model_dir, const OnnxReadOptions &options);

/// A batch of one graph read from an ONNX model. An error that stops the
/// model throws UserError (as an unreadable batch file does).
Batch read_onnx_batch(const std::string &path);

/// A batch file (JSON) or an ONNX model, by the file's name.
Batch read_input_file(const std::string &path);

}  // namespace atl
