// The one compile path (schedule_graph) that compile, run and explain share:
// the simplified graph reaches the polyhedral layer, `compile` alone builds
// no JIT, and clusters the polyhedral layer splits are recorded.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include "src/pipeline/compile_graph.h"

#include "tests/unit/src/pipeline/hint_json.h"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <unistd.h>

using namespace atl;

namespace {

Node node(std::string op, std::vector<std::string> in, std::string out, std::string name, nlohmann::json attrs = {}) {
  Node n;
  n.op = std::move(op);
  n.inputs = std::move(in);
  n.outputs = {std::move(out)};
  n.name = std::move(name);
  if (!attrs.is_null()) n.attrs = std::move(attrs);
  return n;
}

/// y = Relu(Transpose(Transpose(x))): the transposes cancel.
Graph transposes() {
  Graph g;
  g.name = "transposes";
  g.add_input("x", {DType::F32, {4, 6}});
  g.add_node(node("Transpose", {"x"}, "t", "t1", {{"perm", {1, 0}}}));
  g.add_node(node("Transpose", {"t"}, "u", "t2", {{"perm", {1, 0}}}));
  g.add_node(node("Relu", {"u"}, "y", "relu"));
  g.add_output("y");
  g.finalize();
  return g;
}

/// a = Relu(x); b = Sigmoid(a); c = Add(a, b); d = Neg(c): one cluster.
Graph diamond(nlohmann::json tree = nullptr) {
  Graph g;
  g.name = "diamond";
  g.pointer = "/graphs/0";
  g.add_input("x", {DType::F32, {4, 8}});
  g.add_node(node("Relu", {"x"}, "a", "a"));
  g.add_node(node("Sigmoid", {"a"}, "b", "b"));
  g.add_node(node("Add", {"a", "b"}, "c", "c"));
  g.add_node(node("Neg", {"c"}, "d", "d"));
  g.add_output("d");
  g.schedule.tree = test::tree_hint(tree);
  g.finalize();
  return g;
}

const char *kDomain =
    "domain: \"{ a_0[i, j] : 0 <= i <= 3 and 0 <= j <= 7; b_0[i, j] : 0 <= i <= 3 and 0 <= j <= 7; "
    "c_0[i, j] : 0 <= i <= 3 and 0 <= j <= 7; d_0[i, j] : 0 <= i <= 3 and 0 <= j <= 7 }\"\n";

/// a in a loop nest of its own, then b, c, d sharing one: split in two.
std::string split_tree() {
  return std::string(kDomain) + R"(child:
  sequence:
  - filter: "{ a_0[i, j] }"
    child:
      schedule: "[{ a_0[i, j] -> [(i)] }, { a_0[i, j] -> [(j)] }]"
  - filter: "{ b_0[i, j]; c_0[i, j]; d_0[i, j] }"
    child:
      schedule: "[{ b_0[i, j] -> [(i)]; c_0[i, j] -> [(i)]; d_0[i, j] -> [(i)] }]"
      child:
        sequence:
        - filter: "{ b_0[i, j] }"
          child:
            schedule: "[{ b_0[i, j] -> [(j)] }]"
        - filter: "{ c_0[i, j] }"
          child:
            schedule: "[{ c_0[i, j] -> [(j)] }]"
        - filter: "{ d_0[i, j] }"
          child:
            schedule: "[{ d_0[i, j] -> [(j)] }]"
)";
}

/// One outer loop over i around all four statements: not split.
std::string fused_tree() {
  return std::string(kDomain) + R"(child:
  schedule: "[{ a_0[i, j] -> [(i)]; b_0[i, j] -> [(i)]; c_0[i, j] -> [(i)]; d_0[i, j] -> [(i)] }]"
  child:
    sequence:
    - filter: "{ a_0[i, j] }"
      child:
        schedule: "[{ a_0[i, j] -> [(j)] }]"
    - filter: "{ b_0[i, j] }"
      child:
        schedule: "[{ b_0[i, j] -> [(j)] }]"
    - filter: "{ c_0[i, j] }"
      child:
        schedule: "[{ c_0[i, j] -> [(j)] }]"
    - filter: "{ d_0[i, j] }"
      child:
        schedule: "[{ d_0[i, j] -> [(j)] }]"
)";
}

using Parts = std::vector<std::vector<std::string>>;

/// A batch of one graph for run_pipeline.
Batch one_graph_batch(const Graph &g) {
  Batch b;
  b.name = "t";
  BatchGraph e;
  e.name = g.name;
  e.pointer = "/graphs/0";
  e.graph = g;
  b.graphs.push_back(std::move(e));
  return b;
}

/// `g` run (JIT) and verified against the reference interpreter; its result.
GraphRun run_verified(const Graph &g, bool stats = false) {
  PipelineOptions o;
  o.mode = PipelineOptions::Mode::Run;
  o.verify = true;
  o.stats = stats;
  BatchRun r = run_pipeline(one_graph_batch(g), o);
  REQUIRE(r.graphs.size() == 1);
  const GraphRun &gr = r.graphs[0];
  REQUIRE_MESSAGE(gr.ok, gr.error);
  REQUIRE(gr.verify.has_value());
  CHECK(gr.verify->passed);
  return gr;
}

std::string temp_dir(const std::string &tag) {
  auto p = std::filesystem::temp_directory_path() / ("atoll-compile-path-" + tag + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(p);
  return p.string();
}

}  // namespace

TEST_SUITE("src") {
TEST_CASE("schedule_graph: the polyhedral layer sees the simplified graph (cancelled transposes)") {
  Graph g = transposes();
  ScheduledGraph s = schedule_graph(g, {});
  CHECK(s.prepared.simplified);
  REQUIRE(s.clusters.size() == 1);
  CHECK(s.clusters[0].name == "relu");
  CHECK(s.clusters[0].scop_text.find("t1_0") == std::string::npos);
  CHECK(s.clusters[0].scop_text.find("relu_0") != std::string::npos);
  // compile_graph compiles the very same clusters.
  CompileOptions co;
  co.executable = false;
  CompiledGraph c = compile_graph(g, co);
  REQUIRE(c.clusters.size() == 1);
  CHECK(c.clusters[0].ast_text == s.clusters[0].ast_text);
}

TEST_CASE("schedule_graph: views get no kernel and are aliases") {
  Graph g;
  g.name = "view";
  g.add_input("x", {DType::F32, {2, 3, 4}});
  g.add_node(node("Relu", {"x"}, "a", "relu"));
  g.add_node(node("Flatten", {"a"}, "f", "flat", {{"axis", 1}}));
  g.add_node(node("Exp", {"f"}, "y", "exp"));
  g.add_output("y");
  g.finalize();
  ScheduledGraph s = schedule_graph(g, {});
  for (const auto &c : s.clusters) CHECK(c.name != "flat");
  REQUIRE(s.plan.aliases.size() == 1);
  CHECK(s.plan.aliases[0].tensor == "f");
}

TEST_CASE("the driver's stages: one table, run in order; schedule_graph stops before codegen") {
  std::vector<std::string> names;
  for (const PassLine &l : pass_lines(graph_stages())) names.push_back(l.name);
  CHECK(names == std::vector<std::string>{"prepare", "plan_clusters", "compile_clusters", "split_clusters", "codegen"});
  Graph g = diamond();  // elementwise: one cluster
  CompileOptions o;
  GraphCompileState s{g, o, {}, {}, {}, {}};
  for (const PassRow<GraphCompileState> &row : graph_stages()) {
    INFO(row.name);
    if (std::string(row.name) == "codegen") {
      CHECK(row.enabled(s));  // executable by default
      CHECK(s.functions.empty());
    }
    if (row.enabled(s)) row.run(s);
  }
  CHECK(s.scheduled.clusters.size() == 1);
  CHECK(s.functions.size() == 1);
  CHECK(s.keep_alive);
  ScheduledGraph scheduled = schedule_graph(g, o);
  CHECK(scheduled.clusters.size() == 1);
  CHECK(scheduled.clusters[0].kernel.name == s.scheduled.clusters[0].kernel.name);
}

TEST_CASE("compile_graph: executable = false builds no code, true builds the kernels") {
  Graph g = diamond();
  CompileOptions co;
  co.executable = false;
  CompiledGraph none = compile_graph(g, co);
  CHECK_FALSE(none.executable);
  CHECK(none.functions.empty());
  CHECK_FALSE(none.keep_alive);
  CHECK(none.stage_ms.count("jit") == 0);
  CHECK(none.clusters.size() == 1);
  co.executable = true;
  CompiledGraph built = compile_graph(g, co);
  CHECK(built.executable);
  CHECK(built.functions.size() == built.clusters.size());
  CHECK(built.stage_ms.count("jit") == 1);
}

TEST_CASE("compile without --verify or --bench writes the object and builds no JIT; with --verify it does") {
  Graph g = diamond();
  Batch b = one_graph_batch(g);
  PipelineOptions o;
  o.mode = PipelineOptions::Mode::Compile;
  o.out_dir = temp_dir("nojit");
  BatchRun r = run_pipeline(b, o);
  REQUIRE(r.graphs.size() == 1);
  const GraphRun &gr = r.graphs[0];
  REQUIRE_MESSAGE(gr.ok, gr.error);
  CHECK(gr.stage_ms.count("jit") == 0);
  REQUIRE(gr.stage_ms.count("emit") == 1);
  CHECK(std::filesystem::exists(std::filesystem::path(o.out_dir) / "diamond.o"));
  CHECK(std::filesystem::exists(std::filesystem::path(o.out_dir) / "diamond.h"));
  // compile_ms covers the file generation too.
  REQUIRE(gr.compile_ms.has_value());
  CHECK(*gr.compile_ms >= gr.stage_ms.at("emit"));
  CHECK(gr.stage_ms.at("codegen") >= gr.stage_ms.at("emit"));

  o.verify = true;
  o.out_dir = temp_dir("verify");
  BatchRun v = run_pipeline(b, o);
  REQUIRE(v.graphs[0].ok);
  CHECK(v.graphs[0].stage_ms.count("jit") == 1);
  REQUIRE(v.graphs[0].verify.has_value());
  CHECK(v.graphs[0].verify->passed);
  CHECK(std::filesystem::exists(std::filesystem::path(o.out_dir) / "diamond.o"));
  std::filesystem::remove_all(temp_dir("nojit"));
  std::filesystem::remove_all(temp_dir("verify"));
}

TEST_CASE("cluster_layout: a given schedule that distributes a fused cluster is a split") {
  Graph g = diamond(split_tree());
  CompileOptions co;
  co.executable = false;
  CompiledGraph c = compile_graph(g, co);
  REQUIRE(c.layouts.size() == 1);
  const ClusterLayout &l = c.layouts[0];
  CHECK(l.name == "a");
  CHECK(l.nodes == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(l.loop_nests == 2);
  CHECK(l.parts == Parts{{"a"}, {"b", "c", "d"}});
  CHECK(l.split());
}

TEST_CASE("cluster_layout: one outer loop around every operator is not a split") {
  Graph g = diamond(fused_tree());
  CompileOptions co;
  co.executable = false;
  CompiledGraph c = compile_graph(g, co);
  REQUIRE(c.layouts.size() == 1);
  CHECK(c.layouts[0].loop_nests == 1);
  CHECK(c.layouts[0].parts == Parts{{"a", "b", "c", "d"}});
  CHECK_FALSE(c.layouts[0].split());
}

TEST_CASE("cluster_layout: nests are read through top-level ifs; stores outside loops count; copies are ignored") {
  using namespace poly::build;
  poly::ClusterResult r;
  r.name = "p";
  auto st = [](const std::string &s) { return store("A", {integer(0)}, real(1), compute::AssignOp::Assign, s); };
  auto lp = [](std::vector<poly::LStmtPtr> body) {
    return loop("i", integer(0), binary(compute::BinOp::Lt, var("i"), integer(4)), 1, block(std::move(body)));
  };
  // if (...) { for { p_0_init; p_0 } for { q_1 } } ; r_0 ; for { copy }
  r.kernel.body = block({branch(binary(compute::BinOp::Lt, integer(0), integer(1)),
                                block({lp({st("p_0_init"), st("p_0")}), lp({st("q_1")})})),
                         st("r_0"), lp({st("copy")})});
  Graph g;
  g.name = "layout";
  g.add_input("x", {DType::F32, {4}});
  g.add_node(node("Relu", {"x"}, "a", "p"));
  g.add_node(node("Relu", {"a"}, "b", "q"));
  g.add_node(node("Relu", {"b"}, "y", "r"));
  g.add_output("y");
  g.finalize();
  ClusterLayout l = cluster_layout(g, {0, 1, 2}, r);
  CHECK(l.loop_nests == 4);
  CHECK(l.parts == Parts{{"p"}, {"q"}, {"r"}});
  CHECK(l.split());
  // The same statements in one loop: one part.
  r.kernel.body = block({lp({st("p_0"), st("q_0"), st("r_1_init"), st("r_1")})});
  ClusterLayout one = cluster_layout(g, {0, 1, 2}, r);
  CHECK(one.loop_nests == 1);
  CHECK(one.parts == Parts{{"p", "q", "r"}});
  CHECK_FALSE(one.split());
}

/// A depthwise 3x3 Conv, a Relu and a 1x1 Conv (MobileNet's depthwise and
/// project), all three in one explicit `fuse` group.
Graph depthwise_project_group(nlohmann::json tree = nullptr) {
  Graph g;
  g.name = "dwp";
  g.pointer = "/graphs/0";
  g.add_input("x", {DType::F32, {1, 8, 10, 13}}, "uniform(-1,1)");
  g.add_weight("w_dw", {DType::F32, {8, 1, 3, 3}}, "uniform(-0.5,0.5)");
  g.add_weight("w_p", {DType::F32, {5, 8, 1, 1}}, "uniform(-0.5,0.5)");
  g.add_node(node("Conv", {"x", "w_dw"}, "d", "dw", {{"group", 8}, {"pads", {1, 1, 1, 1}}, {"kernel_shape", {3, 3}}}));
  g.add_node(node("Relu", {"d"}, "r", "relu"));
  g.add_node(node("Conv", {"r", "w_p"}, "y", "proj"));
  g.add_output("y");
  g.schedule.fuse = test::fuse_hint(nlohmann::json::array({{"dw", "relu", "proj"}}));
  g.schedule.tree = test::tree_hint(tree);
  g.finalize();
  return g;
}

TEST_CASE("split_cluster: a fused cluster whose schedule splits two convolutions apart runs as two kernels") {
  Graph g = depthwise_project_group();
  CompileOptions co;
  co.executable = false;
  CompiledGraph c = compile_graph(g, co);
  // isl puts the depthwise and the 1x1 Conv in loop nests of their own; each
  // becomes a kernel, compiled as a cluster of its own.
  REQUIRE(c.layouts.size() == 2);
  CHECK(c.layouts[0].nodes == std::vector<std::string>{"dw", "relu"});
  CHECK(c.layouts[1].nodes == std::vector<std::string>{"proj"});
  for (const ClusterLayout &l : c.layouts) {
    CHECK_FALSE(l.split());
    CHECK(l.split_from.name == "dw");
    CHECK(l.split_from.parts.size() >= 2);
    CHECK(l.split_from.loop_nests >= 2);
  }
  CHECK(clusters_split(c.layouts) == 1);
  // The 1x1 Conv gets its own schedule: vector code (in the split cluster it
  // was a scalar nest under the depthwise's schedule).
  CHECK(c.clusters[1].stats["loops_vectorized"] > 0);

  // Run and checked against the reference interpreter; report.json records the split.
  Batch b = one_graph_batch(g);
  PipelineOptions o;
  o.mode = PipelineOptions::Mode::Run;
  o.verify = true;
  o.stats = true;
  BatchRun r = run_pipeline(b, o);
  REQUIRE_MESSAGE(r.graphs[0].ok, r.graphs[0].error);
  REQUIRE(r.graphs[0].verify.has_value());
  CHECK(r.graphs[0].verify->passed);
  CHECK(r.graphs[0].kernels == 2);
  nlohmann::json j = report_json(r);
  const nlohmann::json &clusters = j["graphs"][0]["clusters"];
  REQUIRE(clusters.size() == 2);
  CHECK(clusters[1]["name"] == "proj");
  CHECK(clusters[1]["split_from"]["cluster"] == "dw");
  CHECK(clusters[1]["split_from"]["parts"].size() >= 2);
  CHECK(j["graphs"][0]["stats"]["clusters_split"] == 1);
}

TEST_CASE("split_cluster: a part laid out before a part it reads runs after it") {
  // As when isl hoists an initialisation: the 1x1 Conv's first nest comes first.
  Graph g = depthwise_project_group();
  ClusterLayout l;
  l.name = "dw";
  l.nodes = {"dw", "relu", "proj"};
  l.loop_nests = 3;
  l.parts = {{"proj"}, {"dw", "relu"}};
  CompileOptions co;
  co.executable = false;
  auto compile = [&](const std::vector<NodeId> &nodes) {
    return poly::compile_cluster(g, nodes, cluster_options(g, g.node(nodes.front()).name, 1, co));
  };
  std::vector<ClusterPiece> pieces = split_cluster(g, {0, 1, 2}, l, compile);
  REQUIRE(pieces.size() == 2);
  CHECK(pieces[0].layout.nodes == std::vector<std::string>{"dw", "relu"});
  CHECK(pieces[1].layout.nodes == std::vector<std::string>{"proj"});
  CHECK(pieces[1].layout.split_from.parts == l.parts);
}

TEST_CASE("split_cluster: a split between one heavy part and its epilogues stays one kernel") {
  // The diamond's operators are all elementwise: the given schedule splits
  // them, and they stay one kernel (the epilogue nests write in place).
  Graph g = diamond(split_tree());
  ClusterLayout l;
  l.name = "a";
  l.nodes = {"a", "b", "c", "d"};
  l.loop_nests = 2;
  l.parts = {{"a"}, {"b", "c", "d"}};
  int compiles = 0;
  auto compile = [&](const std::vector<NodeId> &) {
    ++compiles;
    return poly::ClusterResult{};
  };
  CHECK(split_cluster(g, {0, 1, 2, 3}, l, compile).empty());
  CHECK(compiles == 0);
  CompileOptions co;
  co.executable = false;
  CHECK(compile_graph(g, co).layouts.size() == 1);
}

TEST_CASE("split_compute_node: a Compute node of three contractions runs as three kernels equal to the reference") {
  // MobileNet's expand -> depthwise -> project as one node, at odd sizes
  // (partial register tiles and vectors).
  for (auto [c, e, h, w] : std::vector<std::array<int, 4>>{{3, 10, 7, 9}, {5, 13, 11, 17}, {2, 7, 1, 31}}) {
    CAPTURE(c);
    CAPTURE(h);
    CAPTURE(w);
    Graph g;
    g.name = "ir";
    g.pointer = "/graphs/0";
    g.add_input("x", {DType::F32, {1, c, h, w}}, "uniform(-1,1)");
    g.add_weight("We", {DType::F32, {e, c}}, "uniform(-0.5,0.5)");
    g.add_weight("Wd", {DType::F32, {e, 3, 3}}, "uniform(-0.5,0.5)");
    g.add_weight("Wp", {DType::F32, {c, e}}, "uniform(-0.5,0.5)");
    const std::string range =
        " where c in 0:" + std::to_string(e) + ", h in 0:" + std::to_string(h) + ", w in 0:" + std::to_string(w);
    g.add_node(node("Compute", {"x", "We", "Wd", "Wp"}, "y", "block",
                    {{"expr", "e(c, h, w) +=! x(0, k, h, w) * We(c, k)\n"
                              "ea(c, h, w) = min(max(e(c, h, w), 0), 6)\n"
                              "d(c, h, w) +=! guard(ea(c, h + kh - 1, w + kw - 1), 0) * Wd(c, kh, kw)" +
                                  range + ", kh in 0:3, kw in 0:3\n"
                              "y(0, o, h, w) +=! d(c, h, w) * Wp(o, c)\n"
                              "y(0, o, h, w) = y(0, o, h, w) + x(0, o, h, w)"}}));
    g.add_output("y");
    g.finalize();
    CHECK(run_verified(g).kernels == 3);
  }
}

TEST_CASE("transpose_contraction_operand: attention as one Compute node reads a copy of K and equals the reference") {
  // QK^T, scale, Softmax and PV in one node at odd sizes: split into three
  // parts, and the QK^T part's K (keys along its rows) copied transposed.
  for (auto [heads, queries, keys, depth] : std::vector<std::array<int, 4>>{{2, 9, 11, 5}, {3, 5, 17, 7}}) {
    CAPTURE(queries);
    CAPTURE(keys);
    Graph g;
    g.name = "attention";
    g.pointer = "/graphs/0";
    g.add_input("q", {DType::F32, {heads, queries, depth}}, "uniform(-1,1)");
    g.add_input("k", {DType::F32, {heads, keys, depth}}, "uniform(-1,1)");
    g.add_input("v", {DType::F32, {heads, keys, depth}}, "uniform(-1,1)");
    g.add_node(node("Compute", {"q", "k", "v"}, "y", "attn",
                    {{"expr", "s(h, i, j) +=! q(h, i, d) * k(h, j, d)\n"
                              "t(h, i, j) = s(h, i, j) * 0.125\n"
                              "m(h, i) max=! t(h, i, j)\n"
                              "e(h, i, j) = exp(t(h, i, j) - m(h, i))\n"
                              "z(h, i) +=! e(h, i, j)\n"
                              "p(h, i, j) = e(h, i, j) / z(h, i)\n"
                              "y(h, i, c) +=! p(h, i, j) * v(h, j, c)"}}));
    g.add_output("y");
    g.finalize();
    PreparedGraph p = prepare_graph(g);
    REQUIRE(p.simplified);
    bool copied = false;
    for (NodeId v : p.graph.order())
      copied = copied || p.graph.node(v).attrs.value("expr", "") == "k_t(i0_, i2_, i1_) = k(i0_, i1_, i2_)";
    CHECK(copied);
    run_verified(g);
  }
}

TEST_CASE("prepare_graph: explicit `fuse` groups keep the simplification passes that rewrite nodes under their names") {
  // Conv -> BatchNormalization (run-time parameters) -> Relu -> Add, grouped
  // [conv, bn, relu]: the BatchNormalization becomes a scale and shift
  // (its parameters node runs in the weight phase) and keeps its name.
  Graph g;
  g.name = "convbn";
  g.pointer = "/graphs/0";
  g.add_input("x", {DType::F32, {1, 3, 6, 7}}, "uniform(-1,1)");
  g.add_weight("W", {DType::F32, {5, 3, 3, 3}}, "uniform(-0.5,0.5)");
  for (const char *p : {"gamma", "beta", "mean"}) g.add_weight(p, {DType::F32, {5}}, "uniform(-0.5,0.5)");
  g.add_weight("var", {DType::F32, {5}}, "uniform(0.5,1.5)");
  g.add_node(node("Conv", {"x", "W"}, "c", "conv", {{"pads", {1, 1, 1, 1}}}));
  g.add_node(node("BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, "b", "bn"));
  g.add_node(node("Relu", {"b"}, "r", "relu"));
  g.add_node(node("Add", {"r", "x0"}, "y", "add"));
  g.add_input("x0", {DType::F32, {1, 5, 6, 7}}, "uniform(-1,1)");
  g.add_output("y");
  g.schedule.fuse = test::fuse_hint(nlohmann::json::parse(R"([["conv", "bn", "relu"]])"));
  g.finalize();
  PreparedGraph p = prepare_graph(g);
  REQUIRE_MESSAGE(p.simplified, p.skipped);
  CHECK(p.summary.passes.size() > 0);
  CHECK(p.graph.schedule.fuse == test::fuse_hint(nlohmann::json::parse(R"([["conv", "bn", "relu"]])")));
  bool bn_is_scale_shift = false;
  for (NodeId v : p.graph.order())
    if (p.graph.node(v).name == "bn") bn_is_scale_shift = p.graph.node(v).op == "Compute";
  CHECK(bn_is_scale_shift);
  bool grouped = false;
  for (const auto &c : plan_clusters(p.graph).fusion.clusters) {
    std::vector<std::string> members;
    for (NodeId v : c) members.push_back(p.graph.node(v).name);
    grouped = grouped || members == std::vector<std::string>{"conv", "bn", "relu"};
  }
  CHECK(grouped);
  run_verified(g);
  // Groups refused on the graph as written: not simplified, and the error
  // names the original nodes (plan_clusters on the original graph).
  Graph bad = diamond();
  bad.schedule.fuse = test::fuse_hint(nlohmann::json::parse(R"([["a", "c"]])"));
  CHECK(prepare_graph(bad).skipped == "the explicit `fuse` groups are refused");
  CHECK_THROWS_WITH_AS(compile_graph(bad, CompileOptions{}), doctest::Contains("fuse group 0 [a, c]"), UserError);
}

TEST_CASE("report.json: per graph, each kernel's cluster with loop nests and split; --stats counts splits") {
  Batch b = one_graph_batch(diamond(split_tree()));
  PipelineOptions o;
  o.mode = PipelineOptions::Mode::Run;
  o.stats = true;
  BatchRun r = run_pipeline(b, o);
  REQUIRE_MESSAGE(r.graphs[0].ok, r.graphs[0].error);
  nlohmann::json j = report_json(r);
  const nlohmann::json &clusters = j["graphs"][0]["clusters"];
  REQUIRE(clusters.is_array());
  REQUIRE(clusters.size() == 1);
  CHECK(clusters[0]["name"] == "a");
  CHECK(clusters[0]["nodes"] == nlohmann::json::parse(R"(["a", "b", "c", "d"])"));
  CHECK(clusters[0]["loop_nests"] == 2);
  CHECK(clusters[0]["parts"] == nlohmann::json::parse(R"([["a"], ["b", "c", "d"]])"));
  CHECK(clusters[0]["split"] == true);
  CHECK(j["graphs"][0]["stats"]["clusters_split"] == 1);

  Batch f = one_graph_batch(diamond(fused_tree()));
  nlohmann::json jf = report_json(run_pipeline(f, o));
  CHECK(jf["graphs"][0]["clusters"][0]["split"] == false);
  CHECK(jf["graphs"][0]["stats"]["clusters_split"] == 0);
}
}

TEST_SUITE("src") {
TEST_CASE("compiled Relu and Clip against constant bounds keep NaN and clamp (JIT and C)") {
  Graph g;
  g.name = "clamps";
  g.add_input("x", {DType::F32, {2, 37}});
  g.add_node(node("Relu", {"x"}, "r", "relu"));
  g.add_node(node("Clip", {"x"}, "c", "clip", {{"min", -1.5}, {"max", 6.0}}));
  g.add_node(node("Add", {"r", "c"}, "y", "sum"));
  g.add_output("y");
  g.finalize();
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  Tensor x(DType::F32, {2, 37});
  for (std::size_t i = 0; i < x.data.size(); ++i) x.data[i] = -9.0 + 0.5 * static_cast<double>(i);
  for (std::size_t i : {3u, 16u, 40u, 73u}) x.data[i] = nan;
  x.data[5] = inf;
  x.data[6] = -inf;
  for (const char *target : {"cpu", "cpu-c"}) {
    CAPTURE(target);
    CompileOptions co;
    co.target = target;
    CompiledGraph c = compile_graph(g, co);
    Tensor y = run_compiled(c, g, {{"x", x}}, {}).at("y");
    for (std::size_t i = 0; i < x.data.size(); ++i) {
      CAPTURE(i);
      double v = x.data[i];
      if (std::isnan(v)) {
        CHECK(std::isnan(y.data[i]));
        continue;
      }
      CHECK(y.data[i] == std::max(v, 0.0) + std::min(std::max(v, -1.5), 6.0));
    }
  }
}
}
