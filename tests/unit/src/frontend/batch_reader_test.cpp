// The batch reader: fields, defaults, inline data, per-graph errors with JSON
// pointers, whole-batch errors, schedule hints.
#include "src/frontend/batch.h"

#include <doctest/doctest.h>

using namespace atl;

namespace {

std::string one_graph(const std::string &graph_fields) {
  return R"({"atoll": 1, "name": "t", "graphs": [{"name": "g", )" + graph_fields + "}]}";
}

}  // namespace

TEST_SUITE("src") {
TEST_CASE("a valid batch reads into checked graphs") {
  Batch b = read_batch(R"({"atoll": 1, "name": "demo.v1", "defaults": {"dtype": "f16"}, "graphs": [
    {"name": "g", "inputs": [{"name": "x", "shape": [2, 3]}],
     "weights": [{"name": "w", "shape": [2, 3], "dtype": "f32", "data": [[1, 2, 3], [4, 5, 6.5]]}],
     "outputs": ["y"],
     "nodes": [{"op": "Cast", "inputs": ["x"], "outputs": ["xf"], "attrs": {"to": 1}},
               {"op": "Add", "name": "add", "inputs": ["xf", "w"], "outputs": ["y"]}]}]})");
  CHECK(b.name == "demo.v1");
  REQUIRE(b.graphs.size() == 1);
  REQUIRE(b.graphs[0].graph);
  const Graph &g = *b.graphs[0].graph;
  CHECK(g.tensor("x").type.dtype == DType::F16);  // the batch default
  CHECK(g.tensor("y").type.str() == "f32[2, 3]");
  CHECK((*g.tensor("w").data)[5] == 6.5);
}

TEST_CASE("an error in one graph leaves the others") {
  Batch b = read_batch(R"({"atoll": 1, "graphs": [
    {"name": "bad", "inputs": [], "outputs": ["y"], "nodes": [{"op": "Relu", "inputs": ["q"], "outputs": ["y"]}]},
    {"name": "good", "inputs": [{"name": "x", "shape": [1]}], "outputs": ["y"],
     "nodes": [{"op": "Relu", "inputs": ["x"], "outputs": ["y"]}]}]})");
  REQUIRE(b.graphs.size() == 2);
  REQUIRE(b.graphs[0].error);
  CHECK(std::string(b.graphs[0].error->what()).find("graph 'bad', node 'n0'") != std::string::npos);
  CHECK(b.graphs[0].error->where().pointer == "/graphs/0/nodes/0");
  CHECK(b.graphs[1].graph);
}

TEST_CASE("field errors carry the JSON pointer") {
  auto error_of = [](const std::string &text) {
    Batch b = read_batch(text);
    REQUIRE(b.graphs.size() == 1);
    REQUIRE(b.graphs[0].error);
    return *b.graphs[0].error;
  };
  CHECK(error_of(one_graph(R"("inputs": [{"name": "x", "shape": [2, 0]}], "outputs": ["x"], "nodes": [])"))
            .where().pointer == "/graphs/0/inputs/0/shape/1");
  CHECK(error_of(one_graph(R"("inputs": [{"name": "x", "shape": [2.5]}], "outputs": ["x"], "nodes": [])"))
            .where().pointer == "/graphs/0/inputs/0/shape/0");
  UserError e = error_of(one_graph(R"("inputs": [{"name": "x", "shape": [2]}], "outputs": ["y"],
      "nodes": [{"op": "LeakyRelu", "inputs": ["x"], "outputs": ["y"], "attrs": {"alpha": "big"}}])"));
  CHECK(e.where().pointer == "/graphs/0/nodes/0/attrs/alpha");
  CHECK(e.reason() == "expected a number, got a string");
  e = error_of(one_graph(R"("inputs": [{"name": "x", "shape": [2]}], "outputs": ["x"], "nodes": [], "color": 1)"));
  CHECK(e.where().pointer == "/graphs/0/color");
}

TEST_CASE("whole-batch errors throw") {
  CHECK_THROWS_WITH_AS(read_batch("{\"atoll\": 1,\n \"graphs\": [}"), doctest::Contains("line 2, column"), UserError);
  CHECK_THROWS_WITH_AS(read_batch(R"({"atoll": "1", "graphs": []})"), doctest::Contains("/atoll"), UserError);
  CHECK_THROWS_WITH_AS(read_batch(R"({"atoll": 1, "graphs": []})"), doctest::Contains("no graphs"), UserError);
  CHECK_THROWS_WITH_AS(read_batch(std::string(300, '[') + std::string(300, ']')), doctest::Contains("nested deeper"),
                       UserError);
  CHECK_THROWS_WITH_AS(read_batch_file("/nonexistent/batch.json"), doctest::Contains("cannot read"), UserError);
}

TEST_CASE("schedule hints are validated and kept") {
  Batch b = read_batch(one_graph(R"("inputs": [{"name": "x", "shape": [4, 4]}], "outputs": ["y"],
      "nodes": [{"op": "Relu", "name": "r", "inputs": ["x"], "outputs": ["y"]}],
      "schedule": {"fuse": [["r"]], "tile": {"r": [2, 0]}, "vectorize": false, "unroll": 4,
                   "scheduler": "feautrier", "tree": "{ domain: \"{ r_0[i, j] : 0 <= i < 4 and 0 <= j < 4 }\" }"})"));
  REQUIRE(b.graphs[0].graph);
  const ScheduleHints &h = b.graphs[0].graph->schedule;
  CHECK(h.tile.at("r") == std::vector<std::int64_t>{2, 0});
  CHECK(h.vectorize == false);
  CHECK(h.unroll == 4);
  CHECK(h.scheduler == "feautrier");
  Batch bad = read_batch(one_graph(R"("inputs": [{"name": "x", "shape": [4]}], "outputs": ["x"], "nodes": [],
      "schedule": {"parallel": "yes"})"));
  REQUIRE(bad.graphs[0].error);
  CHECK(bad.graphs[0].error->where().hint == "parallel");
}

TEST_CASE("symbolic shapes need declared params") {
  Batch b = read_batch(one_graph(R"("params": {"N": {"min": 1, "max": 4}}, "inputs": [{"name": "x", "shape": ["N", 2]}],
      "outputs": ["y"], "nodes": [{"op": "Relu", "inputs": ["x"], "outputs": ["y"]}])"));
  REQUIRE(b.graphs[0].graph);
  CHECK(b.graphs[0].graph->tensor("y").type.str() == "f32[N, 2]");
  Batch bad = read_batch(one_graph(R"("params": {"N": {"min": 5, "max": 4}}, "inputs": [], "outputs": ["x"], "nodes": [])"));
  REQUIRE(bad.graphs[0].error);
  CHECK(bad.graphs[0].error->reason() == "max is smaller than min");
}
}
