// Test data for inputs and weights: `init` specs and a deterministic generator.
#pragma once

#include "graph/ir/graph.h"
#include <atoll/tensor.h>

#include <cstdint>
#include <map>
#include <string>

namespace atl {

/// A parsed `init` spec. Accepted forms (documented in the README):
/// `uniform(lo,hi)` (default `uniform(-1,1)`), `normal(mean,std)`,
/// `constant(v)`, `zeros`, `ones`, `range(start,step)` (start + step * i).
struct InitSpec {
  enum class Kind { Uniform, Normal, Constant, Range } kind = Kind::Uniform;
  double a = -1.0, b = 1.0;
};

/// Parses an init spec; "" gives the default. Throws UserError with the reason.
InitSpec parse_init(const std::string &text);

/// Makes the test data of one declared tensor: its inline `data`, or values
/// from its init spec with a seed derived from (graph, tensor) names, so the
/// same batch always gets the same data. Integers: uniform in [-8, 8] unless
/// the spec says otherwise; bool: half true.
Tensor make_tensor_data(const std::string &graph, const TensorDecl &decl, const Shape &shape);

/// Test data for every input and weight of a concrete graph.
std::map<std::string, Tensor> make_graph_inputs(const Graph &graph);

}  // namespace atl
