// name_inputs: graph inputs whose names Compute text cannot hold get an identifier through a no-op Reshape, which
// cancel_transposes keeps, so that block_conv_layout can block the convolution that reads them.
#include "graph/passes/name_inputs.h"
#include "graph/passes/simplify_graph.h"

#include "run_graph.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::test;

namespace {

/// y = Relu(Conv3x3(input, W)), z = input + 1, the input named `name`.
Graph conv_on(const std::string &name) {
  Graph g;
  g.name = "named";
  g.add_input(name, {DType::F32, {1, 16, 20, 20}});
  g.add_weight("W", {DType::F32, {32, 16, 3, 3}});
  g.add_weight("one", {DType::F32, {1}}, {}, std::vector<double>{1.0});
  Node c = make_node("Conv", {name, "W"}, {"c"}, "conv");
  c.attrs = {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}};
  g.add_node(c);
  g.add_node(make_node("Relu", {"c"}, {"y"}, "relu"));
  g.add_node(make_node("Add", {name, "one"}, {"z"}, "add"));
  g.add_output("y");
  g.add_output("z");
  g.finalize();
  return g;
}

const Node *find_node(const Graph &g, const std::string &op) {
  for (NodeId v : g.order())
    if (g.node(v).op == op) return &g.node(v);
  return nullptr;
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("name_inputs: a non-identifier input is read through a no-op Reshape named as an identifier") {
  Graph g = conv_on("gpu_0/data_0");
  PassStats st;
  Graph out = name_inputs(g, &st);
  CHECK(st.counts["inputs named"] == 1);
  const Node *r = find_node(out, "Reshape");
  REQUIRE(r);
  CHECK(r->inputs == std::vector<std::string>{"gpu_0/data_0"});
  CHECK(r->outputs == std::vector<std::string>{"gpu_0_data_0"});
  CHECK(find_node(out, "Conv")->inputs[0] == "gpu_0_data_0");
  CHECK(find_node(out, "Add")->inputs[0] == "gpu_0_data_0");
  CHECK(out.inputs == g.inputs);  // callers feed the same name
  CHECK(max_output_difference(g, out) == 0);
  // A second run finds nothing to do (a fixed point), and identifiers are left alone.
  PassStats again;
  name_inputs(out, &again);
  CHECK(again.changes == 0);
  PassStats none;
  name_inputs(conv_on("data"), &none);
  CHECK(none.changes == 0);
}

TEST_CASE("name_inputs: names that start with a digit, end in '_' or are Compute words become identifiers") {
  for (const std::string name : {"0.input", "input.1", "x_", "exp"}) {
    INFO(name);
    Graph out = name_inputs(conv_on(name));
    const Node *r = find_node(out, "Reshape");
    if (name == "exp" || name == "x_") {
      REQUIRE(r);
    }
    if (!r) continue;
    CHECK(r->inputs[0] == name);
    const std::string &id = r->outputs[0];
    CHECK(id != name);
    for (char ch : id) CHECK((std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'));
    CHECK(id.back() != '_');
  }
}

TEST_CASE("name_inputs: with the other passes, the Reshape stays and the convolution is blocked") {
  Graph g = conv_on("gpu_0/data_0");
  SimplifyOptions o;
  o.name_inputs = true;
  o.block_conv_layout = true;
  o.fold_pad = true;
  SimplifySummary sum;
  Graph out = simplify_graph(g, o, &sum);
  REQUIRE(find_node(out, "Reshape"));
  CHECK(find_node(out, "Conv") == nullptr);  // blocked: a Compute now
  CHECK(max_output_difference(g, out) < 1e-4);
  // Without the pass, the name keeps the convolution from being blocked.
  o.name_inputs = false;
  Graph plain = simplify_graph(g, o);
  CHECK(find_node(plain, "Conv") != nullptr);
}
}
