// The C++ module API (include/atoll/module.h): compile, run in place on the
// caller's buffers (against plain loops and against run_compiled), errors,
// explain, threads and write().
#include <atoll/module.h>

#include "graph/ir/graph.h"
#include "src/api/graph_builder.h"
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"

#include "tests/unit/src/api/api_test_data.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

using namespace atl;

namespace {

// y = Relu(x @ w + b), N symbolic; b inline data (the module's own).
const char *kMlp = R"J({"name": "mlp",
 "params": {"N": {"min": 1, "max": 64}},
 "inputs": [{"name": "x", "shape": ["N", 8]}],
 "weights": [{"name": "w", "shape": [8, 4]},
             {"name": "b", "shape": [4], "data": [0.5, -0.25, 0.125, -1.0]}],
 "outputs": ["y"],
 "nodes": [{"op": "MatMul", "name": "mm", "inputs": ["x", "w"], "outputs": ["h"]},
           {"op": "Add", "name": "bias", "inputs": ["h", "b"], "outputs": ["a"]},
           {"op": "Relu", "name": "act", "inputs": ["a"], "outputs": ["y"]}]})J";
constexpr int K = 8, M = 4;
const float kBias[M] = {0.5f, -0.25f, 0.125f, -1.0f};

std::vector<float> reference(const std::vector<float> &x, const std::vector<float> &w, int n) {
  std::vector<float> y(static_cast<std::size_t>(n * M));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < M; ++j) {
      float s = 0;
      for (int k = 0; k < K; ++k) s += x[static_cast<std::size_t>(i * K + k)] * w[static_cast<std::size_t>(k * M + j)];
      s += kBias[j];
      y[static_cast<std::size_t>(i * M + j)] = s > 0 ? s : 0;
    }
  return y;
}

using api_test::close;
using api_test::filled;

using api_test::error_of;
using api_test::has;


Graph one_graph(const std::string &graph_json) {
  Batch b = read_batch(R"({"atoll": 1, "graphs": [)" + graph_json + "]}");
  REQUIRE(b.graphs.size() == 1);
  if (b.graphs[0].error) FAIL(b.graphs[0].error->what());
  return *b.graphs[0].graph;
}

/// `g` with every weight made inline data (the values of its init): the
/// module's own.
Graph with_inline_weights(const Graph &g) {
  Graph out;
  out.name = g.name + "_own";
  out.params = g.params;
  out.schedule = g.schedule;
  for (const std::string &i : g.inputs) out.add_input(i, g.tensor(i).type);
  for (const std::string &w : g.weights) {
    const TensorDecl &d = g.tensor(w);
    out.add_weight(w, d.type, {}, make_tensor_data(g.name, d, concrete_shape(d.type.shape)).data);
  }
  for (NodeId v : g.order()) out.add_node(g.node(v));
  for (const std::string &o : g.outputs) out.add_output(o);
  out.finalize();
  return out;
}

/// Runs `g` through a Module (twice, on the same buffers) and through
/// compile_graph + run_compiled on the same inputs: the outputs' bytes are
/// equal (same kernels, same arena plan).
void same_as_run_compiled(const Graph &g, const std::map<std::string, std::int64_t> &params, const std::string &label) {
  INFO(label);
  ModuleOptions o;
  o.params = params;
  Module m = compile(builder_from_graph(g), o);
  Graph concrete = params.empty() ? g : g.instantiate(params);
  std::map<std::string, Tensor> feeds = make_graph_inputs(concrete);
  std::map<std::string, std::vector<unsigned char>> in, out;
  std::vector<Binding> list;
  for (const std::string &t : m.inputs()) {
    REQUIRE(feeds.count(t));
    in[t] = to_raw(feeds.at(t));
    CHECK(static_cast<std::int64_t>(in[t].size()) == m.bytes(t));
    list.push_back({t.c_str(), in[t].data()});
  }
  for (const std::string &t : m.outputs()) {
    out[t].assign(static_cast<std::size_t>(m.bytes(t)), 0xAB);  // garbage: the run zeroes what it reduces into
    list.push_back({t.c_str(), out[t].data()});
  }
  CompiledGraph cg = compile_graph(g, CompileOptions{});
  std::map<std::string, Tensor> expected = run_compiled(cg, concrete, feeds, params);
  for (int run = 0; run < 2; ++run) {
    m.run(list);
    for (const std::string &t : m.outputs()) {
      INFO(t << ", run " << run);
      CHECK(out[t] == to_raw(expected.at(t)));
    }
  }
}

}  // namespace

TEST_SUITE("src") {

TEST_CASE("module: compile JSON then query tensors and run in place against a plain loop") {
  ModuleOptions o;
  o.params = {{"N", 5}};
  Module m = compile_graph_json(kMlp, o);
  CHECK(m.name() == "mlp");
  CHECK(m.target() == "cpu");
  CHECK(m.inputs() == std::vector<std::string>{"x", "w"});
  CHECK(m.outputs() == std::vector<std::string>{"y"});
  CHECK(m.own_weights() == std::vector<std::string>{"b"});
  CHECK(m.shape("x") == std::vector<std::int64_t>{5, 8});
  CHECK(m.shape("y") == std::vector<std::int64_t>{5, 4});
  CHECK(m.dtype("w") == "f32");
  CHECK(m.bytes("y") == 5 * 4 * 4);
  CHECK(m.params().at("N") == 5);
  CHECK(m.num_kernels() >= 1);
  std::vector<float> x = filled(5 * K, 1), w = filled(K * M, 2), y(5 * M, -7.0f);
  m.run({{"x", x.data()}, {"w", w.data()}}, {{"y", y.data()}});
  CHECK(close(y, reference(x, w, 5)));
  // Again on other inputs, through the list form.
  x = filled(5 * K, 3);
  std::fill(y.begin(), y.end(), 123.0f);
  m.run({{"y", y.data()}, {"w", w.data()}, {"x", x.data()}});
  CHECK(close(y, reference(x, w, 5)));
}

TEST_CASE("module: the C target and a graph built in code") {
  GraphBuilder g("axpy");
  g.add_input("x", {DType::F32, {6}});
  g.add_input("y", {DType::F32, {6}});
  g.add_node("Compute", {"x", "y"}, {"z"}, {{"expr", "z(i) = 2 * x(i) + y(i)"}});
  g.add_output("z");
  g.finalize();
  CHECK(g.tensor_type("z").str() == "f32[6]");
  CHECK(g.text().find("Compute") != std::string::npos);
  for (const char *target : {"cpu", "cpu-c"}) {
    INFO(target);
    ModuleOptions o;
    o.target = target;
    Module m = compile(g, o);
    float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {10, 20, 30, 40, 50, 60}, z[6] = {};
    m.run({{"x", x}, {"y", y}}, {{"z", z}});
    for (int i = 0; i < 6; ++i) CHECK(z[i] == 2 * x[i] + y[i]);
  }
}

TEST_CASE("module: runs as run_compiled does with a weight phase and views and samples") {
  // The weight phase reads a weight of the caller's: it runs in every call.
  const char *weights = R"J({"name": "wp", "schedule": {"fuse": "none"},
    "inputs": [{"name": "x", "shape": [24, 32]}],
    "weights": [{"name": "w", "shape": [32, 16]}, {"name": "b", "shape": [16]}],
    "nodes": [{"op": "Relu", "name": "w_relu", "inputs": ["w"], "outputs": ["wr"]},
              {"op": "Add", "name": "w_shift", "inputs": ["wr", "b"], "outputs": ["w2"]},
              {"op": "MatMul", "name": "mm", "inputs": ["x", "w2"], "outputs": ["m"]},
              {"op": "Add", "name": "bias", "inputs": ["m", "b"], "outputs": ["y"]},
              {"op": "Neg", "name": "w_out", "inputs": ["w"], "outputs": ["z"]}],
    "outputs": ["y", "z"]})J";
  same_as_run_compiled(one_graph(weights), {}, "weight phase, caller's weights");
  // The same weights as inline data (folded by simplification, mostly).
  Module own = compile(builder_from_graph(with_inline_weights(one_graph(weights))));
  CHECK(own.inputs() == std::vector<std::string>{"x"});
  same_as_run_compiled(with_inline_weights(one_graph(weights)), {}, "weights as inline data");
  // Packed GEMM weights (pack_gemm_weights, where the host's tile packs
  // them): a weight phase of the caller's weights, run in every call, and of
  // the module's own, run once at compile time.
  const char *linear = R"J({"name": "linear", "params": {"B": {"min": 1, "max": 40}},
    "inputs": [{"name": "x", "shape": ["B", 40]}, {"name": "s", "shape": [3, "B", 48]}],
    "weights": [{"name": "w", "shape": [48, 40]}, {"name": "b", "shape": [48]}, {"name": "v", "shape": [48, 32]},
                {"name": "c", "shape": [1, 32]}],
    "nodes": [{"op": "Gemm", "name": "fc", "inputs": ["x", "w", "b"], "outputs": ["h"], "attrs": {"transB": 1}},
              {"op": "Relu", "name": "act", "inputs": ["h"], "outputs": ["y"]},
              {"op": "MatMul", "name": "batched", "inputs": ["s", "v"], "outputs": ["z"]},
              {"op": "Gemm", "name": "scaled", "inputs": ["y", "v", "c"], "outputs": ["u"], "attrs": {"alpha": 0.5, "beta": 2.0}}],
    "outputs": ["y", "z", "u"]})J";
  same_as_run_compiled(one_graph(linear), {{"B", 17}}, "packed weights of the caller's");
  same_as_run_compiled(with_inline_weights(one_graph(linear)), {{"B", 17}}, "packed weights of the module's own");
  // A weight too large to fold (simplify's max_folded_elements): its own
  // weight phase (Relu of the weight) runs once, at compile time.
  same_as_run_compiled(with_inline_weights(one_graph(R"J({"name": "large", "schedule": {"fuse": "none"},
    "inputs": [{"name": "x", "shape": [2, 1025]}],
    "weights": [{"name": "w", "shape": [1025, 1024]}],
    "nodes": [{"op": "Relu", "name": "w_relu", "inputs": ["w"], "outputs": ["wr"]},
              {"op": "MatMul", "name": "mm", "inputs": ["x", "wr"], "outputs": ["y"]}],
    "outputs": ["y"]})J")),
                       {}, "a weight phase of the module's own weights");
  // Views: an output that is a view of an input, one of an intermediate.
  same_as_run_compiled(one_graph(R"J({"name": "views",
    "inputs": [{"name": "x", "shape": [4, 6]}],
    "nodes": [{"op": "Reshape", "inputs": ["x"], "outputs": ["v"], "attrs": {"shape": [24]}},
              {"op": "Relu", "inputs": ["x"], "outputs": ["r"]},
              {"op": "Flatten", "inputs": ["r"], "outputs": ["f"], "attrs": {"axis": 0}},
              {"op": "Neg", "inputs": ["v"], "outputs": ["n"]}],
    "outputs": ["v", "f", "n"]})J"),
                       {}, "views");
  // The bundled samples (the MLP at two batch sizes).
  for (const char *file : {"mlp.json", "custom_compute.json", "mobilenetv2_block.json"}) {
    Batch b = read_batch_file((std::filesystem::path(ATOLL_SAMPLES_DIR) / file).string());
    for (const BatchGraph &bg : b.graphs) {
      REQUIRE(bg.graph);
      if (bg.graph->params.empty()) {
        same_as_run_compiled(*bg.graph, {}, std::string(file) + "/" + bg.name);
        continue;
      }
      for (bool at_max : {false, true}) {
        std::map<std::string, std::int64_t> p;
        for (const auto &[name, r] : bg.graph->params) p[name] = at_max ? r.max : r.min;
        same_as_run_compiled(*bg.graph, p, std::string(file) + "/" + bg.name);
      }
    }
  }
}

TEST_CASE("module: compile errors name the place in the graph object") {
  std::string e = error_of([] { compile_graph_json("{\"name\": \"g\",\n \"inputs\": [}"); });
  CHECK_MESSAGE(has(e, "line 2"), e);
  CHECK_MESSAGE(has(e, "column"), e);
  e = error_of([] {
    compile_graph_json(R"({"name": "g", "inputs": [{"name": "x", "shape": [4]}], "outputs": ["y"],
      "nodes": [{"op": "Frobnicate", "name": "bad_node", "inputs": ["x"], "outputs": ["y"]}]})");
  });
  CHECK_MESSAGE((has(e, "node 'bad_node'") && has(e, "Frobnicate") && has(e, "at /nodes/0/op")), e);
  CHECK_MESSAGE(!has(e, "/graphs/"), e);
  e = error_of([] { compile_graph_json("[1, 2]"); });
  CHECK_MESSAGE(has(e, "graph object"), e);
  e = error_of([] { compile_graph_json(kMlp); });  // N has no value
  CHECK_MESSAGE(has(e, "'N'"), e);
  e = error_of([] {
    ModuleOptions o;
    o.params = {{"N", 4}, {"M", 2}};
    compile_graph_json(kMlp, o);
  });
  CHECK_MESSAGE(has(e, "'M'"), e);
  e = error_of([] {
    ModuleOptions o;
    o.params = {{"N", 4}};
    o.target = "cuda";
    compile_graph_json(kMlp, o);
  });
  CHECK_MESSAGE(has(e, "cuda"), e);
  e = error_of([] {
    ModuleOptions o;
    o.params = {{"N", 4}};
    o.scheduler = "magic";
    compile_graph_json(kMlp, o);
  });
  CHECK_MESSAGE(has(e, "magic"), e);
  CHECK(!error_of([] { Module().inputs(); }).empty());
  e = error_of([] {
    GraphBuilder g("raw");
    g.add_input("x", {DType::F32, {4}});
    g.add_node("Relu", {"x"}, {"y"});
    g.add_output("y");
    compile(g);  // not finalized
  });
  CHECK_MESSAGE(has(e, "finalize"), e);
}

TEST_CASE("module: run errors are UserErrors naming the tensor and nothing runs") {
  ModuleOptions o;
  o.params = {{"N", 2}};
  Module m = compile_graph_json(kMlp, o);
  std::vector<float> x = filled(2 * K, 1), w = filled(K * M, 2), y(2 * M, -1.0f);
  std::string e = error_of([&] { m.run({{"x", x.data()}, {"w", w.data()}, {"nope", x.data()}}, {{"y", y.data()}}); });
  CHECK_MESSAGE((has(e, "'nope'") && has(e, "graph 'mlp'")), e);
  e = error_of([&] { m.run({{"x", x.data()}, {"w", w.data()}}, {}); });
  CHECK_MESSAGE(has(e, "no buffer for: y"), e);
  e = error_of([&] { m.run(std::map<std::string, const void *>{}, {}); });
  CHECK_MESSAGE(has(e, "no buffer for: x, w, y"), e);
  e = error_of([&] { m.run({{"x", x.data()}, {"w", nullptr}}, {{"y", y.data()}}); });
  CHECK_MESSAGE((has(e, "'w'") && has(e, "null")), e);
  e = error_of([&] { m.run({{"x", x.data()}, {"w", w.data()}, {"b", w.data()}}, {{"y", y.data()}}); });
  CHECK_MESSAGE((has(e, "'b'") && has(e, "inline data")), e);
  e = error_of([&] { m.run({{"x", x.data()}, {"w", w.data()}, {"y", y.data()}}, {}); });
  CHECK_MESSAGE(has(e, "'y' is an output"), e);
  e = error_of([&] { m.run({{"x", x.data()}}, {{"w", w.data()}, {"y", y.data()}}); });
  CHECK_MESSAGE(has(e, "'w' is an input"), e);
  e = error_of([&] { m.run({{"x", x.data()}, {"w", w.data()}, {"x", x.data()}, {"y", y.data()}}); });
  CHECK_MESSAGE(has(e, "'x' is given twice"), e);
  e = error_of([&] { m.run({{nullptr, x.data()}}); });
  CHECK_MESSAGE(has(e, "no name"), e);
  e = error_of([&] { m.shape("h"); });
  CHECK_MESSAGE((has(e, "'h'") && has(e, "x, w, y")), e);
  CHECK(!m.has_tensor("b"));
  CHECK(m.has_tensor("y"));
  // No output was written by the failed calls; a good one still runs.
  for (float v : y) CHECK(v == -1.0f);
  m.run({{"x", x.data()}, {"w", w.data()}}, {{"y", y.data()}});
  CHECK(close(y, reference(x, w, 2)));
}

TEST_CASE("module: explain stages and passes") {
  ModuleOptions o;
  o.params = {{"N", 4}};
  Module m = compile_graph_json(kMlp, o);
  std::string ast = m.explain("ast");
  CHECK(has(ast, "// graph mlp"));
  CHECK(has(ast, "// cluster"));
  CHECK(m.explain("ast") == ast);
  CHECK(has(m.explain("scop"), "mm"));
  CHECK(has(m.explain("schedule"), "scheduler"));
  CHECK(has(m.explain("llvm"), "define"));
  CHECK(has(m.explain("c"), "void"));
  std::string tile = m.explain("tile_for_cpu");
  CHECK_MESSAGE(has(tile, "// after tile_for_cpu"), tile);
  CHECK(has(tile, "// cluster"));
  std::vector<std::string> stages = Module::stages();
  CHECK(std::find(stages.begin(), stages.end(), "tile_for_cpu") != stages.end());
  CHECK(stages.front() == "scop");
  std::string e = error_of([&] { m.explain("bogus"); });
  CHECK_MESSAGE((has(e, "unknown stage 'bogus'") && has(e, "ast") && has(e, "tile_for_cpu")), e);
}

TEST_CASE("module: two threads run one module at once on their own buffers") {
  ModuleOptions o;
  o.params = {{"N", 16}};
  const Module m = compile_graph_json(kMlp, o);
  const std::vector<float> w = filled(K * M, 9);
  bool ok[2] = {false, false};
  auto job = [&](int t) {
    bool good = true;
    for (int i = 0; i < 50; ++i) {
      std::vector<float> x = filled(16 * K, static_cast<unsigned>(100 * (t + 1) + i)), y(16 * M);
      m.run({{"x", x.data()}, {"w", w.data()}}, {{"y", y.data()}});
      good = good && close(y, reference(x, w, 16));
    }
    ok[t] = good;
  };
  std::thread a(job, 0), b(job, 1);
  a.join();
  b.join();
  CHECK(ok[0]);
  CHECK(ok[1]);
}

TEST_CASE("module: write() writes the code as atoll compile does") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "atoll_module_test_write";
  fs::remove_all(dir);
  ModuleOptions o;
  o.params = {{"N", 4}};
  Module m = compile_graph_json(kMlp, o);
  std::vector<std::string> files = m.write((dir / "cpu").string());
  CHECK(files == std::vector<std::string>{"mlp.o", "mlp.h"});
  CHECK(fs::file_size(dir / "cpu" / "mlp.o") > 0);
  CHECK(fs::file_size(dir / "cpu" / "mlp.h") > 0);
  o.target = "cpu-c";
  Module c = compile_graph_json(kMlp, o);
  files = c.write((dir / "c").string());
  CHECK(files == std::vector<std::string>{"mlp.c"});
  std::ifstream in(dir / "c" / "mlp.c");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == c.explain("c"));
  fs::remove_all(dir);
}

}  // TEST_SUITE

TEST_CASE("graph builder: errors name the place, and a finalized graph is read-only") {
  // A graph object with an unknown operator: located relative to the object.
  std::string e = error_of([] {
    GraphBuilder::from_json(R"J({"name": "g", "inputs": [{"name": "x", "shape": [4]}], "outputs": ["y"],
      "nodes": [{"op": "Relu", "inputs": ["x"], "outputs": ["a"]}, {"op": "NoSuchOp", "inputs": ["a"], "outputs": ["y"]}]})J");
  });
  CHECK_MESSAGE(has(e, "/nodes/1"), e);
  CHECK_MESSAGE(!has(e, "/graphs/0"), e);
  e = error_of([] { GraphBuilder::from_json("{\"name\": \"g\", "); });  // truncated JSON: line and column
  CHECK_MESSAGE(has(e, "line 1"), e);
  e = error_of([] { GraphBuilder::from_json("[1, 2]"); });
  CHECK_MESSAGE(has(e, "graph object"), e);

  GraphBuilder g("ro");
  g.add_input("x", {DType::F32, {4}});
  CHECK(has(error_of([&] { g.add_input("x", {DType::F32, {4}}); }), "duplicate tensor name 'x'"));
  CHECK(has(error_of([&] { g.add_param("N", 1, 4); g.add_param("N", 1, 8); }), "duplicate parameter 'N'"));
  CHECK(has(error_of([&] { g.text(); }), "not finalized"));
  g.add_node("Relu", {"x"}, {"y"});
  g.add_output("y");
  g.finalize();
  CHECK(g.finalized());
  CHECK(g.tensor_type("y").str() == "f32[4]");
  CHECK(has(error_of([&] { g.tensor_type("nope"); }), "unknown tensor 'nope'"));
  CHECK(has(error_of([&] { g.add_output("x"); }), "finalized"));
  CHECK(has(error_of([&] { g.flops(); }), "no value given for parameter 'N'"));
  CHECK(g.flops({{"N", 2}}) > 0);
  CHECK(has(g.dot(), "Relu"));

  // An operator the graph cannot use fails at finalize, naming the node.
  GraphBuilder bad("bad");
  bad.add_input("x", {DType::F32, {4, 3}});
  bad.add_input("w", {DType::F32, {5, 2}});
  bad.add_node("MatMul", {"x", "w"}, {"y"}, {}, "mm");
  bad.add_output("y");
  e = error_of([&] { bad.finalize(); });
  CHECK_MESSAGE(has(e, "mm"), e);
  CHECK(!bad.finalized());

  // Copies are independent; a moved-from builder refuses every call.
  GraphBuilder copy = g;
  GraphBuilder moved = std::move(g);
  CHECK(copy.text() == moved.text());
  CHECK(has(error_of([&] { g.finalize(); }), "moved from"));  // NOLINT: use after move on purpose
}

TEST_CASE("driver: run_graphs on builders, and its refusals") {
  GraphBuilder g("axpy");
  g.add_input("x", {DType::F32, {16}});
  g.add_input("y", {DType::F32, {16}});
  g.add_node("Compute", {"x", "y"}, {"z"}, {{"expr", "z(i) = 3 * x(i) + y(i)"}});
  g.add_output("z");
  PipelineOptions o;
  o.verify = true;
  CHECK(has(error_of([&] { run_graphs("b", {g}, o); }), "not finalized"));
  g.finalize();
  BatchResult r = run_graphs("b", {g}, o);
  REQUIRE(r.graphs.size() == 1);
  CHECK(r.graphs[0].ok);
  CHECK(r.graphs[0].verify->passed);
  CHECK(r.exit_status() == 0);
  CHECK(has(r.report_json, "\"passes\""));
  CHECK(has(error_of([&] { run_graphs("b", {g, g}, o); }), "duplicate graph name 'axpy'"));
  o.params = {{"N", 4}};
  CHECK(has(error_of([&] { run_graphs("b", {g}, o); }), "no graph of the batch declares a parameter 'N'"));
  // A batch that does not read is the result's error, not an exception.
  BatchResult unread = run_batch("{not json", PipelineOptions{});
  CHECK(unread.error);
  CHECK(unread.exit_status() == 1);
  CHECK(has(unread.report_json, "\"error\""));
}
