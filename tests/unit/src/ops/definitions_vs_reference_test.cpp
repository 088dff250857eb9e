// Every operator of the batch format, on at least three shapes each (odd
// sizes, size-1 dimensions, broadcasting corners): the registry's Compute
// definition, evaluated directly, against the reference interpreter.
#include "graph/ir/graph.h"
#include "src/pipeline/pipeline.h"

#include "graph/ir/op_registry.h"
#include "src/runtime/init_data.h"
#include "tests/unit/src/ops/op_cases.h"

#include <doctest/doctest.h>

#include <map>

using namespace atl;
using namespace atl::test;

TEST_SUITE("src") {
TEST_CASE("every operator: registry definition vs reference on several shapes") {
  std::vector<Case> cases = all_op_cases();
  std::map<std::string, int> per_op;
  int index = 0;
  for (const Case &c : cases) {
    ++per_op[c.op];
    INFO(describe_case(c));
    try {
      Graph g = make_case_graph(c, "case" + std::to_string(index), "op");
      std::map<std::string, Tensor> feeds = make_graph_inputs(g);
      std::map<std::string, Tensor> ref = run_reference(g, feeds);
      std::map<std::string, Tensor> def = run_definitions(g, feeds);
      VerifyResult v = compare_outputs(def, ref, g.outputs);
      CHECK_MESSAGE(v.passed, v.detail);
    } catch (const std::exception &e) {
      FAIL_CHECK(c.op << " " << c.attrs.dump() << ": " << std::string(e.what()));
    }
    ++index;
  }
  // Every registered operator but Compute is covered at least three times.
  for (const OpInfo *op : all_ops()) {
    if (std::string(op->name) == "Compute") continue;
    CHECK_MESSAGE(per_op[op->name] >= 3, op->name << " has only " << per_op[op->name] << " cases");
  }
}
}
