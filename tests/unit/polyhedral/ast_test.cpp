// The loop AST built from schedules: structure and marks, and values
// computed by the interpreter against the Compute evaluator.
#include "poly_test_util.h"

#include "polyhedral/ast/build_ast.h"
#include "polyhedral/schedule/schedule.h"

#include <functional>

using namespace polytest;
using namespace atl::poly;

namespace {

void collect_loops(const LStmt &s, int depth, std::vector<std::pair<int, const LStmt *>> &out) {
  if (s.kind == LStmtKind::For) out.push_back({depth, &s});
  for (const auto &b : s.body) collect_loops(*b, depth + (s.kind == LStmtKind::For), out);
  if (s.then_body) collect_loops(*s.then_body, depth, out);
  if (s.else_body) collect_loops(*s.else_body, depth, out);
}

struct Case {
  std::string op;
  std::vector<In> ins;
  json attrs;
};

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("matmul AST: a 3-deep nest with a parallel outer loop and a += store") {
  auto g = one_node("MatMul", {{"A", {3, 5}}, {"B", {5, 7}}});
  ClusterResult r = compile(g);
  std::vector<std::pair<int, const LStmt *>> loops;
  collect_loops(*r.kernel.body, 0, loops);
  int deepest = 0;
  for (const auto &[d, l] : loops) deepest = std::max(deepest, d + 1);
  CHECK(deepest == 3);
  REQUIRE_FALSE(loops.empty());
  CHECK(loops.front().second->marks.count(mark::kParallel) == 1);
  CHECK(r.ast_text.find("+=") != std::string::npos);
  CHECK(r.kernel.arrays.size() == 3);
  CHECK(r.fallbacks.empty());
  CHECK(r.algorithm == "isl");
}

TEST_CASE("prefix sum AST: the sequential loop is not parallel") {
  auto g = one_node("Compute", {{"A", {9}}}, {{"expr", "y0(i) = A(i)\ny0(i) += y0(i - 1) where i in 1:9"}});
  ClusterResult r = compile(g);
  std::vector<std::pair<int, const LStmt *>> loops;
  collect_loops(*r.kernel.body, 0, loops);
  bool sequential = false;
  for (const auto &[d, l] : loops) sequential |= l->marks.count(mark::kParallel) == 0;
  CHECK(sequential);
  CHECK(check_against_definitions(g, r) < 1e-9);
}

TEST_CASE("relu AST: one parallel, vector loop") {
  auto g = one_node("Relu", {{"x", {17}}});
  ClusterResult r = compile(g);
  std::vector<std::pair<int, const LStmt *>> loops;
  collect_loops(*r.kernel.body, 0, loops);
  REQUIRE(loops.size() == 1);
  CHECK(loops[0].second->marks.count(mark::kParallel) == 1);
  CHECK(loops[0].second->marks.count(mark::kVector) == 1);
}

TEST_CASE("the scheduled AST computes what the definitions compute (registry operators, odd shapes)") {
  std::vector<Case> cases = {
      {"Relu", {{"x", {3, 5}}}, json::object()},
      {"Add", {{"a", {3, 5}}, {"b", {5}}}, json::object()},
      {"Mul", {{"a", {1, 7}}, {"b", {3, 1}}}, json::object()},
      {"Sigmoid", {{"x", {11}}}, json::object()},
      {"Gelu", {{"x", {2, 3}}}, json::object()},
      {"MatMul", {{"A", {3, 5}}, {"B", {5, 7}}}, json::object()},
      {"MatMul", {{"A", {2, 3, 5}}, {"B", {5, 1}}}, json::object()},
      {"Gemm", {{"A", {5, 3}}, {"B", {5, 4}}, {"C", {4}}}, {{"transA", 1}, {"alpha", 0.5}, {"beta", 2.0}}},
      {"Conv", {{"x", {1, 2, 5, 7}}, {"w", {3, 2, 3, 3}}}, {{"pads", {1, 1, 1, 1}}}},
      {"Conv", {{"x", {1, 4, 5, 5}}, {"w", {4, 2, 3, 3}}}, {{"group", 2}, {"strides", {2, 2}}}},
      {"MaxPool", {{"x", {1, 2, 5, 5}}}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}},
      {"AveragePool", {{"x", {1, 1, 6, 5}}}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}},
      {"GlobalAveragePool", {{"x", {1, 3, 3, 5}}}, json::object()},
      {"Softmax", {{"x", {3, 7}}}, {{"axis", 1}}},
      {"LogSoftmax", {{"x", {2, 5}}}, {{"axis", -1}}},
      {"LayerNormalization", {{"x", {3, 5}}, {"s", {5}}, {"b", {5}}}, {{"axis", -1}}},
      {"ReduceSum", {{"x", {3, 4, 5}}}, {{"axes", {1}}, {"keepdims", 0}}},
      {"ReduceMax", {{"x", {3, 4}}}, {{"axes", {0}}}},
      {"ReduceMean", {{"x", {3, 5}}}, {{"axes", {1}}}},
      {"Transpose", {{"x", {2, 3, 5}}}, {{"perm", {2, 0, 1}}}},
      {"Concat", {{"a", {2, 3}}, {"b", {2, 4}}}, {{"axis", 1}}},
      {"Pad", {{"x", {3, 5}}}, {{"pads", {1, 0, 0, 2}}}},
      {"Slice", {{"x", {7, 5}}}, {{"starts", {1}}, {"ends", {6}}, {"axes", {0}}, {"steps", {2}}}},
      {"Gather", {{"data", {5, 3}}, {"idx", {2}, DType::I64, std::vector<double>{4, 0}}}, {{"axis", 0}}},
      {"Where", {{"c", {3, 1}, DType::Bool}, {"a", {3, 4}}, {"b", {4}}}, json::object()},
  };
  for (const auto &c : cases) {
    INFO(c.op << " " << c.attrs.dump());
    atl::Graph g = one_node(c.op, c.ins, c.attrs);
    for (const std::string sched : {"isl", "feautrier"}) {
      INFO("scheduler " << sched);
      PolyOptions o;
      o.scheduler = sched;
      ClusterResult r = compile(g, o);
      INFO(r.ast_text);
      CHECK(check_against_definitions(g, r) < 1e-5);
    }
  }
}

TEST_CASE("forced fallback through compile_cluster is recorded and still computes the right values") {
  auto g = one_node("Softmax", {{"x", {3, 5}}}, {{"axis", 1}});
  PolyOptions o;
  o.force_fallback = "all";
  ClusterResult r = compile(g, o);
  CHECK(r.algorithm == "original");
  CHECK(r.fallbacks.size() == 2);
  CHECK(check_against_definitions(g, r) < 1e-6);
}

TEST_CASE("compile_cluster: stage texts, timings, unknown and unavailable schedulers") {
  auto g = one_node("MatMul", {{"A", {3, 5}}, {"B", {5, 7}}});
  ClusterResult r = compile(g);
  CHECK(r.scop_text.find("statement n0_0") != std::string::npos);
  CHECK(r.deps_text.find("reduction n0_0") != std::string::npos);
  CHECK(r.schedule_yaml.find("domain") != std::string::npos);
  CHECK(r.timings_ms.size() == 4);
  PolyOptions o;
  o.scheduler = "pluto";
#if __has_include("polyhedral/schedule/schedule_pluto.h")
  CHECK(check_against_definitions(g, compile(g, o)) < 1e-5);
#else
  CHECK_THROWS_WITH_AS(compile(g, o), doctest::Contains("scheduler pluto is not available"), atl::UserError);
#endif
  o.scheduler = "magic";
  CHECK_THROWS_WITH_AS(compile(g, o), doctest::Contains("unknown scheduler 'magic'"), atl::UserError);
}

TEST_CASE("compile_cluster: a given tree is used; an illegal one is an IllegalSchedule naming the dependence") {
  auto g = one_node("Compute", {{"A", {8}}}, {{"expr", "y0(i) = A(i)\ny0(i) += y0(i - 1) where i in 1:8"}});
  ClusterResult plain = compile(g);
  PolyOptions o;
  o.scheduler = "given";
  o.tree = plain.original_yaml;
  ClusterResult r = compile(g, o);
  CHECK(r.algorithm == "given");
  CHECK(check_against_definitions(g, r) < 1e-9);
  o.tree = "{ domain: \"{ n0_0[i] : 0 <= i < 8; n0_1[i] : 1 <= i < 8 }\", child: { schedule: \"[{ n0_0[i] -> "
           "[(8 - i)]; n0_1[i] -> [(8 - i)] }]\" } }";
  CHECK_THROWS_WITH_AS(compile(g, o), doctest::Contains("dependence from statement n0_"), IllegalSchedule);
}

TEST_CASE("symbolic N: the kernel takes N as a parameter and computes at several values") {
  auto g = one_node("Softmax", {{"x", {Dim::sym("N"), 5}}}, {{"axis", 1}}, 1, {{"N", {1, 16}}});
  ClusterResult r = compile(g);
  REQUIRE(r.kernel.params == std::vector<std::string>{"N"});
  for (std::int64_t n : {1, 7, 16}) {
    atl::Graph gi = g.instantiate({{"N", n}});
    auto in = feeds(gi, 3);
    auto want = atl::run_definitions(gi, in);
    std::map<std::string, atl::Tensor> arrays;
    arrays["x"] = in.at("x");
    atl::poly::testing::interpret(r.kernel, arrays, {{"N", n}});
    const auto &got = arrays.at(r.array_of_tensor.at("y0"));
    REQUIRE(got.data.size() == want.at("y0").data.size());
    for (std::size_t k = 0; k < got.data.size(); ++k) CHECK(got.data[k] == doctest::Approx(want.at("y0").data[k]).epsilon(1e-6));
  }
}

}
