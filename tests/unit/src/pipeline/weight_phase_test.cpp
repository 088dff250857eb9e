// The weight phase: kernels that read only weights run once, before the calls, and their tensors persist across runs.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

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
  CHECK(w.tensors == std::map<std::string, std::int64_t>{{"wr", 32 * 16 * 4}, {"w2", 32 * 16 * 4}});
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
  BatchRun r = run_pipeline(b, o);
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
  BatchRun r = run_pipeline(b, o);
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

TEST_CASE("weight phase: GEMMs reading packed weights (pack_gemm_weights) equal the reference at every batch size") {
  // A PyTorch Linear (Gemm, transB, bias) with Relu, a batched MatMul, a
  // weight shared by two products, and a Gemm with alpha, beta and a row C.
  Batch b = read_batch(R"J({"atoll": 1, "graphs": [{"name": "linear", "params": {"B": {"min": 1, "max": 40}},
    "inputs": [{"name": "x", "shape": ["B", 40]}, {"name": "s", "shape": [3, "B", 48]}],
    "weights": [{"name": "w", "shape": [48, 40]}, {"name": "b", "shape": [48]}, {"name": "v", "shape": [48, 32]},
                {"name": "c", "shape": [1, 32]}],
    "nodes": [{"op": "Gemm", "name": "fc", "inputs": ["x", "w", "b"], "outputs": ["h"], "attrs": {"transB": 1}},
              {"op": "Relu", "name": "act", "inputs": ["h"], "outputs": ["y"]},
              {"op": "MatMul", "name": "batched", "inputs": ["s", "v"], "outputs": ["z"]},
              {"op": "Gemm", "name": "scaled", "inputs": ["y", "v", "c"], "outputs": ["u"], "attrs": {"alpha": 0.5, "beta": 2.0}}],
    "outputs": ["y", "z", "u"]}]})J");
  Graph g = *b.graphs[0].graph;
  CompiledGraph c = compile_graph(g, {});
  int products = 0;
  for (const auto &cl : c.clusters)
    for (const poly::LArray &a : cl.kernel.arrays)
      products += a.role == poly::LArray::Role::Input && a.name.find("_panels") != std::string::npos;
  // Panels of the host's register tile: 16 columns with AVX2 (48 and 32 are
  // whole panels: every product reads them), 64 with AVX-512 (none is).
  const int p = poly::gemm_tile_columns(poly::host_target());
  auto packs = [&](int n) { return p > 1 && n % p == 0 && n > p; };
  CHECK(products == (packs(48) ? 1 : 0) + (packs(32) ? 2 : 0));
  // The packs read only weights of concrete size: weight phase, even in a graph with a symbolic batch.
  WeightPhase w = weight_phase(c, g.instantiate({{"B", 17}}), {{"B", 17}});
  for (std::size_t k = 0; k < c.clusters.size(); ++k) {
    const std::string &name = c.clusters[k].name;
    bool pack = name.size() > 5 && name.compare(name.size() - 5, 5, "_pack") == 0;
    CHECK_MESSAGE(w.kernel[k] == pack, name);
  }
  for (std::int64_t n : {1, 17, 40}) {
    Graph concrete = g.instantiate({{"B", n}});
    auto feeds = make_graph_inputs(concrete);
    VerifyResult v = compare_outputs(run_compiled(c, concrete, feeds, {{"B", n}}, 2), run_reference(concrete, feeds), concrete.outputs);
    std::string where = v.detail + " at B=" + std::to_string(n);
    CHECK_MESSAGE(v.passed, where);
  }
}
}
