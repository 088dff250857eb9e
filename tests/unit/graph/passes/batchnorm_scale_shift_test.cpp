// batchnorm_scale_shift: an inference BatchNormalization becomes a per-channel
// scale and shift and a multiply-add; refused forms stay.
#include "graph/passes/batchnorm_scale_shift.h"
#include "graph/passes/simplify_graph.h"

#include "run_graph.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::test;

namespace {

/// y = BatchNormalization(x, scale, B, mean, var) on x of `shape`; scale, B
/// and mean are run-time inputs (constants when `constant`), var a constant
/// (positive, which random feeds would not be).
Graph bn_graph(const Shape &shape, bool constant = false, nlohmann::json attrs = {{"epsilon", 1e-3}}) {
  Graph g;
  g.name = "bn";
  g.add_input("x", {DType::F32, to_sym_shape(shape)});
  std::int64_t c = shape[1];
  const char *names[] = {"scale", "B", "mean", "var"};
  for (int i = 0; i < 4; ++i) {
    std::vector<double> v = random_values(static_cast<std::size_t>(c), 5 + static_cast<unsigned>(i));
    if (i == 3)
      for (double &x : v) x = 1.25 + x;  // positive variances
    if (constant) g.add_weight(names[i], {DType::F32, {c}}, {}, v);
    else if (i == 3) g.add_weight(names[i], {DType::F32, {c}}, {}, v);
    else g.add_input(names[i], {DType::F32, {c}});
  }
  g.add_node(make_node("BatchNormalization", {"x", "scale", "B", "mean", "var"}, {"y"}, "bn", attrs));
  g.add_output("y");
  g.finalize();
  return g;
}

}  // namespace

TEST_SUITE("graph") {
TEST_CASE("batchnorm_scale_shift: the parameters once per channel, a multiply-add per element") {
  for (const Shape &s : {Shape{2, 5, 7, 3}, Shape{3, 17}, Shape{1, 4, 6}}) {
    CAPTURE(s.size());
    Graph g = bn_graph(s);
    PassStats st;
    Graph out = batchnorm_scale_shift(g, &st);
    CHECK(st.counts["batch normalizations as scale and shift"] == 1);
    CHECK(ops_in_order(out) == std::vector<std::string>{"Compute", "Compute"});
    const Node &params = out.node(out.order()[0]);
    CHECK(params.name == "bn_ss");
    CHECK(params.outputs == std::vector<std::string>{"y_scale", "y_shift"});
    CHECK(out.tensor("y_scale").type.str() == "f32[" + std::to_string(s[1]) + "]");
    const Node &y = out.node(out.order()[1]);
    CHECK(y.name == "bn");  // keeps the BatchNormalization's name
    CHECK(y.attrs["expr"].get<std::string>().find("x(i0_, c_") != std::string::npos);
    CHECK(out.tensor("y").type.str() == g.tensor("y").type.str());
    CHECK(max_output_difference(g, out) < 1e-5);
  }
}

TEST_CASE("batchnorm_scale_shift: constant parameters fold to constant scale and shift") {
  Graph g = bn_graph({1, 6, 4, 4}, true);
  SimplifyOptions o;
  o.batchnorm_scale_shift = true;
  Graph out = simplify_graph(g, o);
  CHECK(ops_in_order(out) == std::vector<std::string>{"Compute"});
  CHECK(out.tensor("y_scale").data.has_value());
  CHECK(out.tensor("y_shift").data.has_value());
  CHECK(max_output_difference(g, out) < 1e-5);
}

TEST_CASE("batchnorm_scale_shift: a symbolic shape stays BatchNormalization") {
  Graph g;
  g.name = "sym";
  g.params["N"] = ParamRange{1, 8};
  g.add_input("x", {DType::F32, {Dim::sym("N"), Dim(3)}});
  for (const char *p : {"scale", "B", "mean", "var"}) g.add_input(p, {DType::F32, {3}});
  g.add_node(make_node("BatchNormalization", {"x", "scale", "B", "mean", "var"}, {"y"}, "bn"));
  g.add_output("y");
  g.finalize();
  PassStats s2;
  Graph o2 = batchnorm_scale_shift(g, &s2);
  CHECK(s2.counts["not rewritten: symbolic shape"] == 1);
  CHECK(ops_in_order(o2) == std::vector<std::string>{"BatchNormalization"});
}
}
