// Operator batches (shared/spec/batch-format.md): reading a batch file into
// graphs, each of which is either a checked Graph or the error that stopped it.
#pragma once

#include <atoll/diagnostics.h>
#include <atoll/dtype.h>
#include "graph/ir/graph.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace atl {

/// One graph of a batch: read and checked, or failed with a located error.
struct BatchGraph {
  std::string name;     ///< the graph's name (or "graphs[i]" when it has none)
  std::string pointer;  ///< "/graphs/i"
  std::optional<Graph> graph;
  std::optional<UserError> error;
};

struct Batch {
  std::string name;  ///< batch name ("" when the batch has none)
  DType default_dtype = DType::F32;
  std::vector<BatchGraph> graphs;
};

/// Reads a batch from JSON text. Errors that concern the whole batch (not
/// JSON, wrong version, no graphs, duplicate graph names) throw UserError;
/// an error inside one graph is recorded in that graph and the others go on.
/// A weight's `file` is read relative to `base_dir`.
Batch read_batch(std::string_view json_text, const std::string &base_dir = ".");
/// Reads a batch file (weight files relative to its directory); an
/// unreadable file throws UserError.
Batch read_batch_file(const std::string &path);

/// Limits the reader enforces on untrusted input (documented in the README).
inline constexpr int kMaxJsonDepth = 200;

}  // namespace atl
