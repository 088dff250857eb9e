// ONNX models into Atoll: read a .onnx file into a graph (compile it with
// <atoll/module.h>), and write graphs as an operator batch. Reference:
// docs/onnx.md. The model is read with the ONNX project's protobuf classes;
// nothing of them appears in this header.
#pragma once

#include <atoll/diagnostics.h>
#include <atoll/graph.h>

#include <cstdint>
#include <string>
#include <vector>

namespace atl {

struct OnnxImportOptions {
  /// The graph's name; empty: the file's stem, made an identifier
  /// ("resnet-50.onnx" -> "resnet_50").
  std::string graph_name;
};

/// Reads an ONNX model into a finalized graph: initializers become weights
/// with their values (module-owned constants), shape computations fold,
/// symbolic dimensions (dim_param) become the graph's parameters. Errors
/// are UserErrors whose message starts with the file's name and names the
/// place: "model.onnx: node 'Loop_12' (Loop): operator not supported".
GraphBuilder import_onnx(const std::string &path, const OnnxImportOptions &options = {});

/// Writes finalized graphs as one batch file (batch-format.md) at `path`:
/// weights with at most `inline_limit` values inline, larger ones as .npy
/// files in STEM.data/ beside it (the batch names them with "file"). Returns
/// the files written, the batch file first.
std::vector<std::string> write_batch(const std::vector<GraphBuilder> &graphs, const std::string &path,
                                     const std::string &batch_name = {}, std::int64_t inline_limit = 64);

}  // namespace atl
