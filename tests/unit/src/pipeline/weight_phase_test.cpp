// The weight phase: kernels that read only weights run once, before the calls, and their tensors persist across runs.
#include <atoll/batch.h>
#include <atoll/pipeline.h>

#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"

#include <doctest/doctest.h>

#include <filesystem>

using namespace atl;

namespace {

Graph one_graph(const std::string &json) {
  Batch b = read_batch(json);
  REQUIRE(b.graphs.size() == 1);
  if (b.graphs[0].error) FAIL(b.graphs[0].error->what());
  return *b.graphs[0].graph;
}

std::size_t kernel_index(const CompiledGraph &c, const std::string &cluster) {
  for (std::size_t i = 0; i < c.clusters.size(); ++i)
    if (c.clusters[i].name == cluster) return i;
  FAIL("no cluster " << cluster);
  return 0;
}

// w2 = relu(w) * 2 reads only the weight: weight phase; its consumer, the
// MatMul, and the chain s = w2 + b (a weight-only chain feeding an add of
// the input) are split by `fuse: none` so each is one kernel.
const char *kWeights = R"J({"atoll": 1, "graphs": [{"name": "wp", "schedule": {"fuse": "none"},
  "inputs": [{"name": "x", "shape": [24, 32]}],
  "weights": [{"name": "w", "shape": [32, 16]}, {"name": "b", "shape": [16]}],
  "nodes": [{"op": "Relu", "name": "w_relu", "inputs": ["w"], "outputs": ["wr"]},
            {"op": "Add", "name": "w_shift", "inputs": ["wr", "b"], "outputs": ["w2"]},
            {"op": "MatMul", "name": "mm", "inputs": ["x", "w2"], "outputs": ["m"]},
            {"op": "Add", "name": "bias", "inputs": ["m", "b"], "outputs": ["y"]},
            {"op": "Neg", "name": "w_out", "inputs": ["w"], "outputs": ["z"]}],
  "outputs": ["y", "z"]}]})J";

}  // namespace

TEST_SUITE("src") {
TEST_CASE("weight phase: kernels that read only weights, transitively; not those that write an output") {
  Graph g = one_graph(kWeights);
  CompiledGraph c = compile_graph(g, {});
  WeightPhase w = weight_phase(c, g, {});
  CHECK(w.kernel[kernel_index(c, "w_relu")]);
  CHECK(w.kernel[kernel_index(c, "w_shift")]);  // reads wr, which the weight phase writes
  CHECK_FALSE(w.kernel[kernel_index(c, "mm")]);
  CHECK_FALSE(w.kernel[kernel_index(c, "bias")]);
  CHECK_FALSE(w.kernel[kernel_index(c, "w_out")]);  // z is a graph output: written in every call
  CHECK(w.tensors == std::set<std::string>{"wr", "w2"});
  // Outside the arena: the arena only holds m.
  memory::MemoryPlan plan = plan_memory(c, g, {});
  CHECK(!plan.offset_of("w2"));
  CHECK(!plan.offset_of("wr"));
  CHECK(plan.offset_of("m"));
}

TEST_CASE("weight phase: runs once, its tensors persist over repeated runs, outputs equal the reference") {
  Graph g = one_graph(kWeights);
  CompiledGraph c = compile_graph(g, {});
  auto feeds = make_graph_inputs(g);
  std::vector<double> times;
  std::vector<std::vector<double>> per_kernel;
  double weight_ms = -1;
  auto got = run_compiled(c, g, feeds, {}, 4, &times, &per_kernel, &weight_ms);
  VerifyResult v = compare_outputs(got, run_reference(g, feeds), g.outputs);
  CHECK_MESSAGE(v.passed, v.detail);
  CHECK(times.size() == 4);
  CHECK(weight_ms >= 0);
  CHECK(per_kernel[kernel_index(c, "w_relu")].size() == 1);  // once
  CHECK(per_kernel[kernel_index(c, "mm")].size() == 4);      // every timed run
}

TEST_CASE("weight phase: report and manifest mark the phase of each kernel") {
  Batch b = read_batch(kWeights);
  PipelineOptions o;
  o.mode = PipelineOptions::Mode::Run;
  o.bench = true;
  o.verify = true;
  BatchResult r = run_pipeline(b, o);
  REQUIRE(r.graphs.size() == 1);
  REQUIRE(r.graphs[0].ok);
  CHECK(r.graphs[0].verify->passed);
  nlohmann::json j = report_json(r);
  int weights = 0;
  for (const auto &k : j["graphs"][0]["bench"]["kernels"]) weights += k["phase"] == "weights";
  CHECK(weights == 2);
  CHECK(j["graphs"][0]["bench"]["weight_ms"].get<double>() >= 0);
}

TEST_CASE("weight phase: the manifest names the phase and the derived buffers") {
  Batch b = read_batch(kWeights);
  PipelineOptions o;
  o.mode = PipelineOptions::Mode::Compile;
  o.out_dir = (std::filesystem::temp_directory_path() / "atoll_weight_phase_test").string();
  BatchResult r = run_pipeline(b, o);
  REQUIRE(r.graphs.size() == 1);
  REQUIRE_MESSAGE(r.graphs[0].ok, r.graphs[0].error);
  bool derived_arg = false;
  for (const auto &k : r.graphs[0].manifest_kernels) {
    std::string cluster = k["cluster"];
    bool once = cluster == "w_relu" || cluster == "w_shift";
    CHECK_MESSAGE(k["phase"] == (once ? "weights" : "call"), cluster);
    for (const auto &a : k["args"])
      if (a.value("tensor", nlohmann::json()) == "w2") {
        CHECK(a["storage"] == "derived");
        CHECK(a["bytes"] == 32 * 16 * 4);
        derived_arg = true;
      }
  }
  CHECK(derived_arg);
  std::filesystem::remove_all(o.out_dir);
}
}
