// The reference dispatcher: coverage of the operator registry, error
// locations and the consistency check against inferred output shapes.
#include "tests/unit/src/reference/reference_test_util.h"

#include "graph/ir/op_registry.h"

using namespace atl;
using namespace atl::reference::test;
using nlohmann::json;

TEST_SUITE("src") {
TEST_CASE("reference implements every registered operator but Compute") {
  int checked = 0;
  for (const OpInfo *op : all_ops()) {
    if (std::string(op->name) == "Compute") continue;
    INFO("operator " << op->name);
    CHECK(reference::has_reference_op(op->name));
    ++checked;
  }
  CHECK(checked > 50);
}

TEST_CASE("reference user errors name the operator and the node") {
  Node node;
  node.op = "Gather";
  node.name = "g1";
  node.pointer = "/graphs/0/nodes/3";
  Tensor x = f32({2}, {1, 2}), idx = make(DType::I64, {1}, {2});
  try {
    reference::reference_op(node, {&x, &idx}, {f32t({1})});
    FAIL("expected a UserError");
  } catch (const UserError &e) {
    CHECK(e.where().node == "g1");
    CHECK(e.where().pointer == "/graphs/0/nodes/3");
    CHECK(e.reason().rfind("Gather: ", 0) == 0);
  }
}

TEST_CASE("reference asserts that inferred output shapes agree with its own") {
  Tensor a = f32({2}, {1, 2});
  CHECK_THROWS_WITH_AS(run1("Add", {}, {&a, &a}, f32t({3})), doctest::Contains("inferred as [3]"), InternalError);
}
}
