// What fusion knows about one node: its pattern kind, statement count and tensor sizes.
#pragma once

#include "graph/ir/graph.h"

#include "graph/ir/op_registry.h"

#include <cstdint>
#include <string>

namespace atl::fusion {

/// The node's pattern kind (op_registry's node_pattern: a Broadcast operator
/// whose inputs all have the output's shape is Elementwise).
PatternKind node_kind(const Graph &graph, NodeId v);

/// Heavy operators (a contraction, a reduction or an opaque Compute node):
/// at most one of them goes into a fused cluster.
bool is_heavy(PatternKind kind);

/// Number of Compute statements of the node's definition (at least 1): what
/// the node adds to its cluster's SCoP.
int node_statements(const Graph &graph, NodeId v);

/// Bytes of a tensor; a symbolic dimension counts at its parameter's maximum.
std::int64_t tensor_bytes(const Graph &graph, const std::string &tensor);

/// "name (Op)", as messages name a node.
std::string node_label(const Graph &graph, NodeId v);

}  // namespace atl::fusion
