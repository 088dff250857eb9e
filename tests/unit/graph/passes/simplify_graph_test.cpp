// simplify_graph: all passes to a fixed point, with a summary; values unchanged.
#include "graph/passes/simplify_graph.h"

#include "run_graph.h"

#include <doctest/doctest.h>

#include <sstream>

using namespace atl;
using namespace atl::test;

TEST_SUITE("graph") {
TEST_CASE("simplify_graph reaches a fixed point and prints what each pass did") {
  Graph g;
  g.name = "all";
  g.add_input("x", {DType::F32, {1, 2, 3, 3}});
  g.add_weight("W", {DType::F32, {2, 2, 1, 1}}, {}, random_values(4, 1));
  g.add_weight("s", {DType::F32, {3}}, {}, std::vector<double>{1.0, 2.0, 3.0});
  g.add_weight("bn_scale", {DType::F32, {2}}, {}, std::vector<double>{0.5, 1.5});
  g.add_weight("bn_b", {DType::F32, {2}}, {}, std::vector<double>{0.1, -0.2});
  g.add_weight("bn_mean", {DType::F32, {2}}, {}, std::vector<double>{0.3, 0.0});
  g.add_weight("bn_var", {DType::F32, {2}}, {}, std::vector<double>{1.0, 4.0});
  g.add_node(make_node("Exp", {"s"}, {"es"}, "exp_s"));                 // folded
  g.add_node(make_node("Transpose", {"x"}, {"t1"}, "t1", {{"perm", {0, 2, 3, 1}}}));
  g.add_node(make_node("Transpose", {"t1"}, {"t2"}, "t2", {{"perm", {0, 3, 1, 2}}}));  // cancels
  g.add_node(make_node("Conv", {"t2", "W"}, {"c"}, "conv"));
  g.add_node(make_node("BatchNormalization", {"c", "bn_scale", "bn_b", "bn_mean", "bn_var"}, {"bn"}, "bn"));
  g.add_node(make_node("Relu", {"bn"}, {"r1"}, "relu1"));
  g.add_node(make_node("Relu", {"bn"}, {"r2"}, "relu2"));                 // merged
  g.add_node(make_node("Add", {"r1", "r2"}, {"y"}, "add"));
  g.add_node(make_node("Neg", {"x"}, {"dead"}, "dead"));                  // removed
  g.add_node(make_node("Sub", {"y", "es"}, {"out"}, "sub", nlohmann::json::object()));
  g.add_output("out");
  g.finalize();
  SimplifySummary sum;
  Graph out = simplify_graph(g, {}, &sum);
  CHECK(ops_in_order(out) == std::vector<std::string>{"Conv", "Relu", "Add", "Sub"});
  CHECK(out.outputs == std::vector<std::string>{"out"});
  CHECK(out.tensor("out").type.str() == "f32[1, 2, 3, 3]");
  CHECK(sum.converged);
  CHECK(sum.nodes_before == 10);
  CHECK(sum.nodes_after == 4);
  CHECK(max_output_difference(g, out) < 1e-5);
  std::ostringstream os;
  print_simplify_summary(os, sum);
  CHECK(os.str().find("fold_batchnorm: batchnorms folded: 1") != std::string::npos);
  CHECK(os.str().find("eliminate_common_subexpr: nodes merged: 1") != std::string::npos);
  CHECK(os.str().find("nodes: 10 -> 4 in ") != std::string::npos);

  // A second run finds nothing to do.
  SimplifySummary again;
  Graph same = simplify_graph(out, {}, &again);
  CHECK(again.rounds == 1);
  CHECK(same.num_nodes() == 4);
}

TEST_CASE("simplify_graph runs only the enabled passes") {
  Graph g;
  g.name = "opts";
  g.add_input("x", {DType::F32, {4}});
  g.add_node(make_node("Relu", {"x"}, {"a"}, "r1"));
  g.add_node(make_node("Relu", {"x"}, {"b"}, "r2"));
  g.add_node(make_node("Add", {"a", "b"}, {"y"}, "add"));
  g.add_output("y");
  g.finalize();
  SimplifyOptions opts;
  opts.eliminate_common_subexpr = false;
  SimplifySummary sum;
  Graph out = simplify_graph(g, opts, &sum);
  CHECK(out.num_nodes() == 3);
  CHECK(sum.passes.size() == 4);
  CHECK(simplify_graph(g).num_nodes() == 2);
}

TEST_CASE("simplify_graph runs the enabled rows of its pass table, in table order") {
  Graph g;
  g.name = "rows";
  g.add_input("x", {DType::F32, {4}});
  g.add_node(make_node("Relu", {"x"}, {"y"}, "r"));
  g.add_output("y");
  g.finalize();
  SimplifyOptions all;
  all.name_inputs = all.fold_pad = all.block_conv_layout = all.band_depthwise_chain = all.batchnorm_scale_shift = true;
  all.split_compute_node = all.transpose_contraction_operand = true;
  all.gemm_weight_panel = 16;
  SimplifySummary every, defaults;
  simplify_graph(g, all, &every);
  simplify_graph(g, SimplifyOptions{}, &defaults);
  const PassTable<SimplifyState> &table = simplify_passes();
  REQUIRE(every.passes.size() == table.size());  // every row, each once
  for (std::size_t k = 0; k < table.size(); ++k) CHECK(every.passes[k].first == table[k].name);
  std::vector<std::string> on;
  for (const auto &[name, stats] : defaults.passes) on.push_back(name);
  CHECK(on == std::vector<std::string>{"fold_constants", "fold_batchnorm", "cancel_transposes", "eliminate_common_subexpr",
                                       "eliminate_dead_nodes"});
  for (const PassLine &l : pass_lines(table)) {
    CHECK(l.level == "graph");
    CHECK(!l.description.empty());
  }
}

TEST_CASE("simplify_graph keeps params, symbolic shapes and schedule hints") {
  Graph g;
  g.name = "sym";
  g.params["N"] = ParamRange{1, 8};
  g.schedule.scheduler = "isl";
  g.add_input("x", {DType::F32, {Dim::sym("N"), 4}});
  g.add_weight("w", {DType::F32, {4}}, {}, random_values(4, 2));
  g.add_node(make_node("Neg", {"w"}, {"nw"}, "neg"));
  g.add_node(make_node("Reshape", {"x"}, {"a"}, "r1", {{"shape", {-1, 2, 2}}}));
  g.add_node(make_node("Reshape", {"a"}, {"b"}, "r2", {{"shape", {-1, 4}}}));  // back to [N, 4]: both go
  g.add_node(make_node("Add", {"b", "nw"}, {"y"}, "add"));
  g.add_output("y");
  g.finalize();
  Graph out = simplify_graph(g);
  CHECK(ops_in_order(out) == std::vector<std::string>{"Add"});
  CHECK(out.node(out.order()[0]).inputs == std::vector<std::string>{"x", "nw"});
  CHECK(out.params.at("N").max == 8);
  CHECK(out.schedule.scheduler == "isl");
  CHECK(out.tensor("y").type.str() == "f32[N, 4]");
  CHECK(max_output_difference(g.instantiate({{"N", 3}}), out.instantiate({{"N", 3}})) == 0.0);
}
}
