// The reference interpreter's entry point: evaluates one ONNX operator node
// with plain loops written from the ONNX definitions (the correctness oracle).
#pragma once

#include "graph/ir/graph.h"
#include <atoll/tensor.h>

#include <vector>

namespace atl::reference {

/// Evaluates one node. inputs[i] is nullptr for an omitted optional input and
/// for a constant input the front end delivered as an attribute. `outputs`
/// gives each output's concrete type (dtype + shape, already inferred by the
/// registry). Returns one Tensor per output. Throws UserError for unsupported
/// or invalid cases, naming the operator and the reason; the location names
/// the node.
///
/// Semantics are ONNX's (opset 17 and later, Gelu as in opset 20). Values
/// are computed in double and rounded to the output dtype on store.
std::vector<Tensor> reference_op(const Node &node, const std::vector<const Tensor *> &inputs,
                                 const std::vector<TensorType> &outputs);

/// True when reference_op knows the operator `op`.
bool has_reference_op(const std::string &op);

}  // namespace atl::reference
