// cancel_transposes: Transpose pairs cancel or compose, Reshape pairs compose, no-op Reshapes go.
#include "graph/passes/cancel_transposes.h"

#include "run_graph.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::test;

TEST_SUITE("graph") {
TEST_CASE("cancel_transposes removes an inverse Transpose pair") {
  Graph g;
  g.name = "tt";
  g.add_input("x", {DType::F32, {2, 3, 4}});
  g.add_node(make_node("Transpose", {"x"}, {"t"}, "t1", {{"perm", {1, 2, 0}}}));
  g.add_node(make_node("Transpose", {"t"}, {"u"}, "t2", {{"perm", {2, 0, 1}}}));
  g.add_node(make_node("Relu", {"u"}, {"y"}, "relu"));
  g.add_output("y");
  g.finalize();
  PassStats st;
  Graph out = cancel_transposes(g, &st);
  CHECK(st.counts["transpose pairs cancelled"] == 1);
  // t1 is now unread; eliminate_dead_nodes removes it.
  CHECK(out.node(*out.producer("y")).inputs == std::vector<std::string>{"x"});
  CHECK(out.tensor("y").type.str() == "f32[2, 3, 4]");
  CHECK(max_output_difference(g, out) == 0.0);
}

TEST_CASE("cancel_transposes composes a non-inverse pair and keeps a graph output's name") {
  Graph g;
  g.name = "compose";
  g.add_input("x", {DType::F32, {2, 3, 4}});
  g.add_node(make_node("Transpose", {"x"}, {"t"}, "t1", {{"perm", {1, 0, 2}}}));
  g.add_node(make_node("Transpose", {"t"}, {"y"}, "t2", {{"perm", {0, 2, 1}}}));
  g.add_node(make_node("Transpose", {"x"}, {"a"}, "t3"));  // default perm: reversed
  g.add_node(make_node("Transpose", {"a"}, {"z"}, "t4"));
  g.add_output("y");
  g.add_output("z");
  g.finalize();
  PassStats st;
  Graph out = cancel_transposes(g, &st);
  CHECK(st.counts["transpose pairs composed"] == 1);
  CHECK(st.counts["transpose pairs cancelled"] == 1);
  const Node &t2 = out.node(*out.producer("y"));
  CHECK(t2.inputs == std::vector<std::string>{"x"});
  CHECK(t2.attrs["perm"] == nlohmann::json({1, 2, 0}));
  CHECK(out.tensor("y").type.str() == "f32[3, 4, 2]");
  CHECK(out.node(*out.producer("z")).op == "Identity");
  CHECK(max_output_difference(g, out) == 0.0);
}

TEST_CASE("cancel_transposes composes Reshape pairs and removes a Reshape to the same shape") {
  Graph g;
  g.name = "rr";
  g.add_input("x", {DType::F32, {2, 3, 4}});
  g.add_node(make_node("Reshape", {"x"}, {"a"}, "r1", {{"shape", {6, 4}}}));
  g.add_node(make_node("Reshape", {"a"}, {"b"}, "r2", {{"shape", {4, -1}}}));
  g.add_node(make_node("Reshape", {"x"}, {"c"}, "r3", {{"shape", {0, 0, -1}}}));  // same shape
  g.add_node(make_node("Flatten", {"c"}, {"d"}, "flat", {{"axis", 1}}));     // [2, 12]
  g.add_node(make_node("Reshape", {"d"}, {"e"}, "r4", {{"shape", {0, 3, 4}}}));  // 0 copies a dim of d
  g.add_node(make_node("Reshape", {"e"}, {"f"}, "r5", {{"shape", {0, 12}}}));
  g.add_node(make_node("Relu", {"b"}, {"y"}, "relu"));
  g.add_output("y");
  g.add_output("f");
  g.finalize();
  PassStats st;
  Graph out = cancel_transposes(g, &st);
  CHECK(st.counts["reshape pairs composed"] == 2);
  CHECK(st.counts["no-op reshapes removed"] >= 1);  // 2 when the composed r4/r5 pair is itself a no-op
  const Node &r2 = out.node(*out.producer("b"));
  CHECK(r2.inputs == std::vector<std::string>{"x"});
  CHECK(r2.attrs["shape"] == nlohmann::json({4, -1}));
  CHECK(out.tensor("b").type.str() == "f32[4, 6]");
  CHECK(out.node(*out.producer("d")).inputs == std::vector<std::string>{"x"});
  CHECK(!out.producer("c").has_value());
  // f = Reshape(Reshape(d)) has a 0 in its shape: composed onto d with the
  // concrete shape [2, 12], which is d's; f is a graph output, so it stays.
  const Node &r5 = out.node(*out.producer("f"));
  CHECK(r5.inputs == std::vector<std::string>{"d"});
  CHECK(r5.attrs["shape"] == nlohmann::json({2, 12}));
  CHECK(out.tensor("f").type.str() == "f32[2, 12]");
  CHECK(max_output_difference(g, out) == 0.0);
}

TEST_CASE("cancel_transposes keeps a pair whose inner result is also read elsewhere") {
  Graph g;
  g.name = "shared";
  g.add_input("x", {DType::F32, {2, 3}});
  g.add_node(make_node("Transpose", {"x"}, {"t"}, "t1"));
  g.add_node(make_node("Transpose", {"t"}, {"u"}, "t2"));
  g.add_node(make_node("Relu", {"t"}, {"z"}, "relu"));
  g.add_node(make_node("Neg", {"u"}, {"y"}, "neg"));
  g.add_output("y");
  g.add_output("z");
  g.finalize();
  PassStats st;
  Graph out = cancel_transposes(g, &st);
  CHECK(out.num_nodes() == 3);
  CHECK(out.node(*out.producer("z")).inputs == std::vector<std::string>{"t"});
  CHECK(out.node(*out.producer("y")).inputs == std::vector<std::string>{"x"});
  CHECK(max_output_difference(g, out) == 0.0);
}
}
