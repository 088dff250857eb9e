// coalesce_dims: NCHW pointwise convolutions and elementwise kernels run their rows and columns as one dimension, the
// kernels it leaves alone, and random shapes whose JIT and C code equal the reference.
#include "src/frontend/batch.h"

#include "polyhedral/compile_cluster.h"
#include "tests/unit/polyhedral/transforms/random_variants.h"
#include "tests/unit/src/ops/op_cases.h"

#include <doctest/doctest.h>

#include <random>
#include <sstream>

using namespace atl;

namespace {

test::In f(Shape s) { return test::In{std::move(s)}; }

std::string dims(std::initializer_list<long> d) {
  std::string s;
  for (long v : d) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return "[" + s + "]";
}

/// x [1, ci, h, w] -> 1x1 Conv to co channels -> BatchNormalization -> Relu
/// (-> Add of a second input, when `residual`): MobileNetV2's expand, ResNet's conv3.
Graph pointwise_bn_relu(long ci, long co, long h, long w, bool residual) {
  std::string weights = R"J({"name": "wc", "shape": )J" + dims({co, ci, 1, 1}) + R"J(, "init": "uniform(-0.3,0.3)"})J";
  for (const char *n : {"g", "b", "m", "v"})
    weights += std::string(R"J(, {"name": "bn_)J") + n + R"J(", "shape": )J" + dims({co}) + R"J(, "init": "uniform(0.5,1.5)"})J";
  std::string nodes = R"J([{"op": "Conv", "name": "pw", "inputs": ["x", "wc"], "outputs": ["c"], "attrs": {"kernel_shape": [1, 1]}},
      {"op": "BatchNormalization", "name": "bn", "inputs": ["c", "bn_g", "bn_b", "bn_m", "bn_v"], "outputs": ["cb"]},
      {"op": "Relu", "name": "relu", "inputs": ["cb"], "outputs": [")J" + std::string(residual ? "r" : "y") + R"J("]})J";
  std::string inputs = R"J([{"name": "x", "shape": )J" + dims({1, ci, h, w}) + "}";
  if (residual) {
    nodes += R"J(, {"op": "Add", "name": "res", "inputs": ["r", "skip"], "outputs": ["y"]})J";
    inputs += R"J(, {"name": "skip", "shape": )J" + dims({1, co, h, w}) + "}";
  }
  std::string text = R"J({"atoll": 1, "graphs": [{"name": "g", "inputs": )J" + inputs + R"J(], "weights": [)J" + weights +
                     R"J(], "outputs": ["y"], "nodes": )J" + nodes + "]}]}";
  Batch b = read_batch(text);
  REQUIRE(b.graphs.size() == 1);
  REQUIRE_MESSAGE(b.graphs[0].graph.has_value(), (b.graphs[0].error ? b.graphs[0].error->what() : ""));
  return *b.graphs[0].graph;
}

poly::ClusterResult compile_all(const Graph &g, const poly::PolyOptions &po) { return poly::compile_cluster(g, g.order(), po); }

/// A band of a 1x1 conv's output rows, as band_depthwise_chain writes it:
/// e(n, m, h, w) +=! x(n, c, first + h, w) * wc(m, c, 0, 0) for h in
/// [0, rows) of an image of `height` rows (`row_read` replaces
/// "first + h_" when given), then a Clip.
Graph pointwise_band(long ci, long co, long height, long width, long first, long rows, std::string row_read = "") {
  if (row_read.empty()) row_read = first ? std::to_string(first) + " + h_" : "h_";
  std::string expr = "e(n_, m_, h_, w_) +=! x(n_, c_, " + row_read + ", w_) * wc(m_, c_, 0, 0) where n_ in 0:1, m_ in 0:" +
                     std::to_string(co) + ", h_ in 0:" + std::to_string(rows) + ", w_ in 0:" + std::to_string(width) +
                     ", c_ in 0:" + std::to_string(ci);
  std::string text = R"J({"atoll": 1, "graphs": [{"name": "g", "inputs": [{"name": "x", "shape": )J" +
                     dims({1, ci, height, width}) + R"J(}], "weights": [{"name": "wc", "shape": )J" + dims({co, ci, 1, 1}) +
                     R"J(, "init": "uniform(-0.3,0.3)"}], "outputs": ["y"], "nodes": [{"op": "Compute", "name": "band",
      "inputs": ["x", "wc"], "outputs": ["e"], "attrs": {"expr": ")J" + expr + R"J(", "shape": )J" + dims({1, co, rows, width}) +
                     R"J(}}, {"op": "Clip", "name": "clip", "inputs": ["e"], "outputs": ["y"], "attrs": {"min": 0.0, "max": 6.0}}]}]})J";
  Batch b = read_batch(text);
  REQUIRE(b.graphs.size() == 1);
  REQUIRE_MESSAGE(b.graphs[0].graph.has_value(), (b.graphs[0].error ? b.graphs[0].error->what() : ""));
  return *b.graphs[0].graph;
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("coalesce_dims: a 1x1 conv over 56x56 with its epilogue runs over 3136 pixels in whole vectors") {
  poly::PolyOptions po;
  po.target = polytest::avx512_target();
  poly::ClusterResult r = compile_all(pointwise_bn_relu(24, 48, 56, 56, true), po);
  CHECK(r.stats["dimensions_coalesced"] == 1);
  CHECK(r.stats["register_tiles"] == 1);
  CAPTURE(r.ast_text);
  // The plane is addressed as one row (subscripts (0, p)); the register
  // tile's columns are whole vectors with no partial remainder per image row.
  CHECK(r.ast_text.find("x[0, c") != std::string::npos);
  CHECK(r.ast_text.find(", 0, c") != std::string::npos);
  CHECK(r.ast_text.find("(c2 <= 48)") != std::string::npos);  // 49 tiles of 64 pixels: 3136
  CHECK(r.ast_text.find("((64 * c2) + 63)") != std::string::npos);
  CHECK(r.ast_text.find("min(") == std::string::npos);
  CHECK(r.scop_text.find("mod 56") != std::string::npos);  // the relations stay exact
}

TEST_CASE("coalesce_dims: rows of whole vectors, windows, broadcasts along the columns and tile hints are left alone") {
  poly::PolyOptions po;
  po.target = polytest::avx512_target();
  CHECK(compile_all(pointwise_bn_relu(8, 16, 4, 32, false), po).stats.count("dimensions_coalesced") == 0);
  Graph dw = test::make_case_graph({"Conv", {f({1, 4, 9, 9}), f({4, 1, 3, 3})}, {{"group", 4}, {"pads", {1, 1, 1, 1}}}}, "g", "n");
  CHECK(compile_all(dw, po).stats.count("dimensions_coalesced") == 0);
  Graph bias = test::make_case_graph({"Add", {f({6, 10}), f({10})}}, "g", "n");
  CHECK(compile_all(bias, po).stats.count("dimensions_coalesced") == 0);
  Graph pool = test::make_case_graph({"MaxPool", {f({1, 2, 9, 9})}, {{"kernel_shape", {3, 3}}}}, "g", "n");
  CHECK(compile_all(pool, po).stats.count("dimensions_coalesced") == 0);
  Graph g = pointwise_bn_relu(8, 16, 7, 7, false);
  poly::PolyOptions hinted = po;
  hinted.tile_sizes = {0, 4, 0, 0};
  CHECK(compile_all(g, hinted).stats.count("dimensions_coalesced") == 0);
  CHECK(compile_all(g, po).stats["dimensions_coalesced"] == 1);
  poly::PolyOptions scalar = po;
  scalar.target.vector_lanes = 1;
  CHECK(compile_all(g, scalar).stats.count("dimensions_coalesced") == 0);
}

TEST_CASE("coalesce_dims: with 16 registers a row must hold whole register tiles of two vectors") {
  poly::PolyOptions po;
  po.target = polytest::avx2_target();
  // 56 = 7 vectors of 8, but 3.5 tiles of 6 x 16: coalesced (ResNet's conv3 on AMD Zen 3).
  CHECK(compile_all(pointwise_bn_relu(8, 16, 7, 56, false), po).stats["dimensions_coalesced"] == 1);
  CHECK(compile_all(pointwise_bn_relu(8, 16, 4, 32, false), po).stats.count("dimensions_coalesced") == 0);
  po.target.vector_registers = 32;  // one vector per register tile's row: 56 is whole
  CHECK(compile_all(pointwise_bn_relu(8, 16, 7, 56, false), po).stats.count("dimensions_coalesced") == 0);
}

TEST_CASE("coalesce_dims: a tree printed for the coalesced statements is taken back as a given tree") {
  poly::PolyOptions po;
  po.target = polytest::avx512_target();
  Graph g = pointwise_bn_relu(8, 16, 7, 7, true);
  poly::ClusterResult r = compile_all(g, po);
  REQUIRE(r.stats["dimensions_coalesced"] == 1);
  poly::PolyOptions given = po;
  given.scheduler = "given";
  given.tree = r.schedule_yaml;
  poly::ClusterResult again = compile_all(g, given);
  CHECK(again.stats["dimensions_coalesced"] == 1);
  CHECK(again.algorithm == "given");
}

TEST_CASE("coalesce_dims: a band of an image's rows reads the image as one run from the band's first row") {
  poly::PolyOptions po;
  po.target = polytest::avx2_target();
  // MobileNetV2's second expand band: rows 27..55 of a 56x56 image, 29 x 56
  // = 1624 pixels, one 8-column remainder for the band instead of one a row.
  poly::ClusterResult r = compile_all(pointwise_band(24, 36, 56, 56, 27, 29), po);
  CHECK(r.stats["dimensions_coalesced"] == 1);
  CAPTURE(r.ast_text);
  CHECK(r.ast_text.find(" + 1512)]") != std::string::npos);  // x[0, c, 0, p + 27 * 56]
  CHECK(r.ast_text.find("1616; ") != std::string::npos);      // the band's one remainder, pixels 1616..1623
  // The first band (rows from 0) too.
  CHECK(compile_all(pointwise_band(24, 36, 56, 56, 0, 29), po).stats["dimensions_coalesced"] == 1);
  // Not a run of the image: a row read backwards, two bands' rows, a narrower image row.
  CHECK(compile_all(pointwise_band(4, 8, 9, 14, 0, 9, "8 - h_"), po).stats.count("dimensions_coalesced") == 0);
  CHECK(compile_all(pointwise_band(4, 8, 18, 14, 0, 9, "2 * h_"), po).stats.count("dimensions_coalesced") == 0);
}

TEST_CASE("coalesce_dims: random bands of image rows keep results equal (JIT and C)") {
  const unsigned base_seed = 8282;
  std::mt19937 shapes(base_seed);
  std::vector<Graph> graphs;
  std::vector<std::string> names;
  for (int p = 0; p < 5; ++p) {
    long ci = 1 + static_cast<long>(shapes() % 12), co = 1 + static_cast<long>(shapes() % 20);
    long height = 2 + static_cast<long>(shapes() % 12), width = 3 + static_cast<long>(shapes() % 29);
    long rows = 1 + static_cast<long>(shapes() % static_cast<unsigned>(height));
    long first = static_cast<long>(shapes() % static_cast<unsigned>(height - rows + 1));
    graphs.push_back(pointwise_band(ci, co, height, width, first, rows));
    std::ostringstream what;
    what << "band rows " << first << ".." << first + rows - 1 << " of " << ci << "x" << height << "x" << width << " -> " << co;
    names.push_back(what.str());
  }
  int coalesced = polytest::sweep_variants(graphs, names, base_seed, "cb", polytest::avx2_target(), "avx2",
                                           "dimensions_coalesced", [](poly::PolyOptions &po) { po.tile_sizes.clear(); });
  CHECK(coalesced >= 5);
}

TEST_CASE("coalesce_dims: random pointwise convs and elementwise kernels keep results equal (JIT and C)") {
  const unsigned base_seed = 7171;
  std::mt19937 shapes(base_seed);
  std::vector<Graph> graphs;
  std::vector<std::string> names;
  for (int p = 0; p < 6; ++p) {
    long ci = 1 + static_cast<long>(shapes() % 20), co = 1 + static_cast<long>(shapes() % 40);
    long h = 1 + static_cast<long>(shapes() % 13), w = 2 + static_cast<long>(shapes() % 30);
    graphs.push_back(pointwise_bn_relu(ci, co, h, w, p % 2 == 0));
    std::ostringstream what;
    what << "pointwise " << ci << "->" << co << " " << h << "x" << w << (p % 2 == 0 ? " residual" : "");
    names.push_back(what.str());
  }
  for (const test::Case &c : {test::Case{"Add", {f({1, 3, 5, 7}), f({1, 3, 5, 7})}},
                              test::Case{"Mul", {f({2, 4, 6, 10}), f({1, 4, 1, 1})}},
                              test::Case{"Sigmoid", {f({3, 11, 9})}},
                              test::Case{"Relu", {f({5, 33})}}}) {
    graphs.push_back(test::make_case_graph(c, "e" + std::to_string(graphs.size()), "n" + std::to_string(graphs.size())));
    names.push_back(test::describe_case(c));
  }
  // A tile hint turns coalescing off.
  int coalesced = polytest::sweep_variants(graphs, names, base_seed, "ck", polytest::avx512_target(), "avx512",
                                           "dimensions_coalesced", [](poly::PolyOptions &po) { po.tile_sizes.clear(); });
  CHECK(coalesced >= 10);
}

}  // TEST_SUITE
