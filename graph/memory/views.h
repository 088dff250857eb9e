// Nodes that need no kernel because their output is a view of another
// tensor's memory (Reshape, Flatten, Squeeze, Unsqueeze; Concat written in
// place by its producers where legal: its inputs alias the output at byte
// offsets).
#pragma once

#include "graph/ir/graph.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace atl::memory {

/// `tensor` lives inside the storage of `base`, starting `byte_offset` bytes
/// into it. `base` is never itself an alias (chains are resolved).
struct TensorAlias {
  std::string tensor;
  std::string base;
  std::int64_t byte_offset = 0;
};

/// The aliases of a finalized graph, and in `no_kernel` the nodes whose work
/// they make unnecessary (their outputs are views). Data layout operators
/// that only relabel a row-major buffer become aliases of their input.
std::vector<TensorAlias> plan_views(const Graph &graph, std::set<NodeId> *no_kernel);

}  // namespace atl::memory
