// Evaluates one node of a finalized graph through its registry definition
// (OpInfo::define, then compute::parse / analyze / evaluate): the one way
// passes compute values, so no operator is implemented twice.
#pragma once

#include "graph/ir/graph.h"
#include <atoll/tensor.h>

#include <map>
#include <string>
#include <vector>

namespace atl {

/// The values of node `v`'s outputs (one per output; an omitted output "" is
/// an empty Tensor), from `values`, which must hold every non-empty input by
/// tensor name with concrete shapes. Results are rounded to the inferred
/// output dtypes. Throws UserError naming the graph and node.
std::vector<Tensor> evaluate_node(const Graph &graph, NodeId v, const std::map<std::string, const Tensor *> &values);

}  // namespace atl
