// Graphs written back as an operator batch (batch-format.md): the form
// `atoll import` gives an ONNX model, readable by every atoll command.
#pragma once

#include "graph/ir/graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace atl {

struct BatchWriteOptions {
  /// Weights with at most this many values are written inline ("data");
  /// larger ones go to .npy files ("file") in the directory STEM.data beside
  /// the batch file.
  std::int64_t inline_limit = 64;
};

/// Writes finalized `graphs` as the batch `batch_name` to `path`, and their
/// large weights beside it. Returns the files written (the batch file
/// first). Schedule hints are not written. Throws UserError when a file
/// cannot be written.
std::vector<std::string> write_batch_file(const std::string &batch_name, const std::vector<const Graph *> &graphs,
                                          const std::string &path, const BatchWriteOptions &options = {});

}  // namespace atl
