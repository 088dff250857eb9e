// The registry table and OpContext's attribute readers.
#include "tests/unit/graph/ir/ops/op_test_util.h"

#include <set>

using namespace optest;
using atl::UserError;

TEST_SUITE("graph") {

TEST_CASE("registry: every batch-format operator is registered once") {
  const char *names[] = {
      "Add", "Sub", "Mul", "Div", "Max", "Min", "Pow", "Relu", "LeakyRelu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt",
      "Reciprocal", "Neg", "Abs", "Erf", "Gelu", "HardSigmoid", "HardSwish", "Clip", "Where", "Cast", "Identity",
      "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or", "MatMul", "Gemm", "Conv",
      "ConvTranspose", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "BatchNormalization",
      "LayerNormalization", "InstanceNormalization", "Softmax", "LogSoftmax", "ReduceSum", "ReduceMean", "ReduceMax",
      "ReduceMin", "ReduceProd", "Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Concat", "Split", "Slice",
      "Pad", "Expand", "Gather", "Compute",
      "PRelu", "Elu", "Selu", "Softplus", "Softsign", "Mod", "CastLike",
      "RMSNormalization", "LRN",
      "Tile", "GatherElements",
      "Resize",
      "ArgMax", "ArgMin", "Trilu",
      "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Round", "IsNaN", "IsInf",
      "Celu", "ThresholdedRelu", "Shrink", "Swish", "Xor",
      "Hardmax", "LpNormalization", "LpPool", "DepthToSpace", "SpaceToDepth", "EyeLike",
      "OneHot"};
  for (const char *n : names) {
    INFO(n);
    REQUIRE(atl::find_op(n));
    CHECK(std::string(atl::find_op(n)->name) == n);
  }
  std::set<std::string> seen;
  for (const atl::OpInfo *op : atl::all_ops()) CHECK(seen.insert(op->name).second);
  CHECK(seen.size() == std::size(names));
  CHECK(atl::find_op("Conv2D") == nullptr);
  CHECK(std::string(atl::pattern_name(atl::PatternKind::OutFusable)) == "out-fusable");
  REQUIRE(atl::find_op("Reshape")->const_inputs.size() == 1);
  CHECK(atl::find_op("Reshape")->const_inputs[0].first == 1);
  CHECK(std::string(atl::find_op("Reshape")->const_inputs[0].second) == "shape");
  CHECK(atl::find_op("Slice")->const_inputs.size() == 4);
  REQUIRE(atl::find_op("Tile")->const_inputs.size() == 1);
  CHECK(std::string(atl::find_op("Tile")->const_inputs[0].second) == "repeats");
  CHECK(atl::find_op("Resize")->const_inputs.size() == 3);
}

TEST_CASE("registry: attribute readers accept the batch encodings") {
  atl::Node n;
  n.op = "X";
  n.attrs = {{"i", 3}, {"f", 2}, {"one", {1.5}}, {"ints", {1, -2}}, {"int1", 4}, {"fl", {1, 2.5}}, {"s", "a"}, {"bad", "x"}};
  atl::OpContext c{n, {}, {}, nullptr};
  CHECK(c.attr_int("i", 0) == 3);
  CHECK(c.attr_int("missing", 7) == 7);
  CHECK(c.attr_float("f", 0) == 2.0);
  CHECK(c.attr_float("one", 0) == 1.5);  // a constant input moved into attrs
  CHECK(c.attr_ints("ints", {}) == std::vector<std::int64_t>{1, -2});
  CHECK(c.attr_ints("int1", {}) == std::vector<std::int64_t>{4});
  CHECK(c.attr_floats("fl", {}) == std::vector<double>{1, 2.5});
  CHECK(c.attr_string("s", "") == "a");
  CHECK_THROWS_WITH_AS(c.attr_int("bad", 0), doctest::Contains("attribute 'bad' must be an integer"), UserError);
  CHECK_THROWS_WITH_AS(c.attr_ints("fl", {}), doctest::Contains("must be a list of integers"), UserError);
  CHECK_THROWS_WITH_AS(c.attr_string("i", ""), doctest::Contains("must be a string"), UserError);
  CHECK(c.error("why").where().node == "");
}

TEST_CASE("registry: inference checks attribute names and kinds") {
  CHECK_THROWS_WITH_AS(Op("Relu", {T({2})}, {{"alpha", 1}}).infer(),
                       doctest::Contains("Relu: unknown attribute 'alpha' (accepted: none)"), UserError);
  CHECK_THROWS_WITH_AS(Op("Conv", {T({1, 1, 3, 3}), T({1, 1, 1, 1})}, {{"pads", "same"}}).infer(),
                       doctest::Contains("attribute 'pads' must be a list of integers"), UserError);
  CHECK_THROWS_WITH_AS(Op("Softmax", {T({2})}, {{"axis", 1.5}}).infer(), doctest::Contains("must be an integer"),
                       UserError);
  try {
    Op("Relu", {T({2}, DType::Bool)}).infer();
    FAIL("no error");
  } catch (const UserError &e) {
    CHECK(e.where().node == "n0");
  }
}

}  // TEST_SUITE
