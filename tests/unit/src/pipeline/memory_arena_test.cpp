// run_compiled with one arena: outputs equal the reference, buffers are reused,
// reused bytes are cleared for kernels that accumulate, Concat is written in place.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include "backends/cpu/cpu_backend.h"
#include "graph/memory/check_arena.h"
#include "graph/memory/plan_arena.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"

#include <doctest/doctest.h>


using namespace atl;

namespace {

Graph read_graph(const std::string &json) {
  Batch b = read_batch(json);
  REQUIRE(b.graphs.size() == 1);
  if (b.graphs[0].error) FAIL(b.graphs[0].error->what());
  return *b.graphs[0].graph;
}

/// Compiles like compile_graph, but plans views first (aliases, no kernel for
/// view nodes), as the pipeline does once views are wired in.
CompiledGraph compile_with_views(const Graph &g) {
  CompiledGraph out;
  std::set<NodeId> no_kernel;
  out.aliases = memory::plan_views(g, &no_kernel);
  std::vector<NodeId> nodes;
  for (NodeId v : g.order())
    if (!no_kernel.count(v)) nodes.push_back(v);
  CompileOptions co;
  std::vector<poly::LKernel> kernels;
  for (NodeId v : nodes) {
    poly::PolyOptions po = cluster_options(g, g.node(v).name, nodes.size(), co);
    out.clusters.push_back(poly::compile_cluster(g, {v}, po));
    kernels.push_back(out.clusters.back().kernel);
  }
  std::shared_ptr<cpu::CpuExecutable> exe = cpu::jit_kernels(kernels);
  for (const auto &k : kernels) out.functions.push_back(exe->entry(k.name));
  out.keep_alive = exe;
  return out;
}

VerifyResult verify(const CompiledGraph &c, const Graph &g, const std::map<std::string, std::int64_t> &params = {},
                    int repeat = 0) {
  Graph concrete = params.empty() ? g : g.instantiate(params);
  auto feeds = make_graph_inputs(concrete);
  auto got = run_compiled(c, concrete, feeds, params, repeat);
  return compare_outputs(got, run_reference(concrete, feeds), concrete.outputs);
}

// x[64, 32] -> relu a -> neg b -> c(i, j) += b(i, k) * w(k, j) (accumulates into
// zero) -> exp y. c can take a's bytes (a is dead after neg): the runner must
// clear them before c's kernel. No fusion: one kernel per node.
const char *kAccumulate = R"J({"atoll": 1, "graphs": [{"name": "acc", "schedule": {"fuse": "none"},
  "inputs": [{"name": "x", "shape": [64, 32]}], "weights": [{"name": "w", "shape": [32, 16]}],
  "nodes": [{"op": "Relu", "inputs": ["x"], "outputs": ["a"]},
            {"op": "Neg", "inputs": ["a"], "outputs": ["b"]},
            {"op": "Compute", "inputs": ["b", "w"], "outputs": ["c"], "attrs": {"expr": "c(i, j) += b(i, k) * w(k, j)"}},
            {"op": "Exp", "inputs": ["c"], "outputs": ["y"]}],
  "outputs": ["y"]}]})J";

const char *kConcat = R"({"atoll": 1, "graphs": [{"name": "cat",
  "inputs": [{"name": "x", "shape": [1, 6, 40]}],
  "nodes": [{"op": "Relu", "name": "branch_relu", "inputs": ["x"], "outputs": ["a"]},
            {"op": "Neg", "name": "branch_neg", "inputs": ["x"], "outputs": ["b"]},
            {"op": "Tanh", "name": "branch_tanh", "inputs": ["x"], "outputs": ["c"]},
            {"op": "Concat", "name": "cat", "inputs": ["a", "b", "c"], "outputs": ["abc"], "attrs": {"axis": 1}},
            {"op": "Exp", "name": "head_exp", "inputs": ["abc"], "outputs": ["y"]}],
  "outputs": ["y"]}]})";

}  // namespace

TEST_SUITE("src") {
TEST_CASE("arena: a chain reuses dead buffers and still equals the reference") {
  Graph g = read_graph(kAccumulate);
  CompiledGraph c = compile_graph(g, {});
  memory::MemoryPlan plan = plan_memory(c, g, {});
  CHECK(memory::check_arena(plan.buffers, plan.layout).empty());
  REQUIRE(plan.buffers.size() == 3);  // a, b, c (x, w, y are outside the arena)
  CHECK(plan.intermediates_bytes == 64 * 32 * 4 * 2 + 64 * 16 * 4);
  CHECK(plan.peak_bytes() < plan.intermediates_bytes);
  CHECK(*plan.offset_of("c") == *plan.offset_of("a"));  // c takes a's bytes
  CHECK(!plan.offset_of("x"));
  CHECK(!plan.offset_of("y"));
  VerifyResult v = verify(c, g);
  CHECK_MESSAGE(v.passed, v.detail);
}

TEST_CASE("arena: repeated runs clear reused bytes before kernels that accumulate") {
  Graph g = read_graph(kAccumulate);
  CompiledGraph c = compile_graph(g, {});
  VerifyResult v = verify(c, g, {}, 3);
  CHECK_MESSAGE(v.passed, v.detail);
}

TEST_CASE("arena: symbolic shapes are planned at each run's parameter values") {
  Graph g = read_graph(R"({"atoll": 1, "graphs": [{"name": "sym", "schedule": {"fuse": "none"}, "params": {"N": {"min": 1, "max": 40}},
    "inputs": [{"name": "x", "shape": ["N", 24]}], "weights": [{"name": "w", "shape": [24, 8]}, {"name": "b", "shape": [8]}],
    "nodes": [{"op": "Relu", "inputs": ["x"], "outputs": ["a"]},
              {"op": "MatMul", "inputs": ["a", "w"], "outputs": ["m"]},
              {"op": "Add", "inputs": ["m", "b"], "outputs": ["s"]},
              {"op": "Softmax", "inputs": ["s"], "outputs": ["y"], "attrs": {"axis": -1}}],
    "outputs": ["y"]}]})");
  CompiledGraph c = compile_graph(g, {});
  std::int64_t small = plan_memory(c, g.instantiate({{"N", 3}}), {{"N", 3}}).intermediates_bytes;
  std::int64_t large = plan_memory(c, g.instantiate({{"N", 40}}), {{"N", 40}}).intermediates_bytes;
  CHECK(small >= 3 * (24 + 8 + 8) * 4);  // a, m, s (and Softmax's row temporaries)
  CHECK(large * 3 == small * 40);         // every buffer has N rows
  for (std::int64_t n : {1, 17, 40}) {
    VerifyResult v = verify(c, g, {{"N", n}}, 1);
    std::string where = v.detail + " at N=" + std::to_string(n);
    CHECK_MESSAGE(v.passed, where);
  }
}

TEST_CASE("arena: Concat written in place by its producers equals the reference") {
  Graph g = read_graph(kConcat);
  CompiledGraph c = compile_with_views(g);
  REQUIRE(c.clusters.size() == 4);  // no kernel for the Concat
  memory::MemoryPlan plan = plan_memory(c, g, {});
  REQUIRE(plan.buffers.size() == 1);  // abc, with a, b, c inside it
  CHECK(*plan.offset_of("b") == *plan.offset_of("abc") + 6 * 40 * 4);
  CHECK(*plan.offset_of("c") == *plan.offset_of("abc") + 2 * 6 * 40 * 4);
  VerifyResult v = verify(c, g, {}, 2);
  CHECK_MESSAGE(v.passed, v.detail);
}

TEST_CASE("arena: a Concat that cannot be in place is a kernel and equals the reference") {
  std::string text = kConcat;
  text.replace(text.find("\"axis\": 1"), 9, "\"axis\": 2");
  Graph g = read_graph(text);
  CompiledGraph c = compile_with_views(g);
  CHECK(c.aliases.empty());
  CHECK(c.clusters.size() == 5);
  VerifyResult v = verify(c, g);
  CHECK_MESSAGE(v.passed, v.detail);
}

TEST_CASE("arena: a graph output that views an intermediate stays outside the arena") {
  Graph g = read_graph(R"({"atoll": 1, "graphs": [{"name": "outview",
    "inputs": [{"name": "x", "shape": [4, 6]}],
    "nodes": [{"op": "Relu", "inputs": ["x"], "outputs": ["a"]},
              {"op": "Flatten", "inputs": ["a"], "outputs": ["y"], "attrs": {"axis": 0}},
              {"op": "Neg", "inputs": ["a"], "outputs": ["z"]}],
    "outputs": ["y", "z"]}]})");
  CompiledGraph c = compile_with_views(g);
  memory::MemoryPlan plan = plan_memory(c, g, {});
  CHECK(plan.buffers.empty());
  VerifyResult v = verify(c, g, {}, 1);
  CHECK_MESSAGE(v.passed, v.detail);
}
}
