// The operator sweep: cases for every operator of the batch format (odd
// sizes, size-1 dimensions, broadcasting corners, dtypes), shared by the
// definition and the compiled-code sweeps.
#pragma once

#include "graph/ir/graph.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace atl::test {

struct In {
  Shape shape;
  DType dtype = DType::F32;
  std::string init;                        ///< "" = default uniform(-1,1)
  std::optional<std::vector<double>> data;  ///< a constant input
};

struct Case {
  std::string op;
  std::vector<In> inputs;
  nlohmann::json attrs = nlohmann::json::object();
  int outputs = 1;
};


/// Every case, in a fixed order.
std::vector<Case> all_op_cases();

/// A one-node graph named `name` for a case; its node is called `node`.
Graph make_case_graph(const Case &c, const std::string &name, const std::string &node);

/// "Conv {attrs} inputs f32[...] ..." for messages.
std::string describe_case(const Case &c);

}  // namespace atl::test
