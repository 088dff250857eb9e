// specialize_remainders: the leftover rows of a symbolic batch run as one straight-line tile per count, and every
// batch size (whole tiles, each leftover count, fewer rows than a tile) equals the reference in JIT and C code.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include "backends/cpu/cpu_backend.h"
#include "polyhedral/compile_cluster.h"
#include "polyhedral/transforms/ast/specialize_remainders.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"
#include "tests/unit/polyhedral/transforms/random_variants.h"

#include <doctest/doctest.h>

#include <functional>
#include <sstream>

using namespace atl;

namespace {

/// x [N, k] -> MatMul w [k, n] -> + b -> Relu, N symbolic in [1, 80].
Graph batch_dense(long k, long n) {
  const std::string text = R"J({"atoll": 1, "graphs": [{"name": "g", "params": {"N": {"min": 1, "max": 80}},
      "inputs": [{"name": "x", "shape": ["N", )J" + std::to_string(k) + R"J(]}],
      "weights": [{"name": "w", "shape": [)J" + std::to_string(k) + ", " + std::to_string(n) +
                           R"J(], "init": "uniform(-0.3,0.3)"}, {"name": "b", "shape": [)J" + std::to_string(n) +
                           R"J(], "init": "uniform(-0.3,0.3)"}],
      "outputs": ["y"], "nodes": [{"op": "MatMul", "name": "mm", "inputs": ["x", "w"], "outputs": ["t"]},
        {"op": "Add", "name": "bias", "inputs": ["t", "b"], "outputs": ["u"]},
        {"op": "Relu", "name": "relu", "inputs": ["u"], "outputs": ["y"]}]}]})J";
  Batch b = read_batch(text);
  REQUIRE(b.graphs.size() == 1);
  REQUIRE_MESSAGE(b.graphs[0].graph.has_value(), (b.graphs[0].error ? b.graphs[0].error->what() : ""));
  return *b.graphs[0].graph;
}

/// Unrolled loops whose trip count is not a constant (their bounds differ by more than an integer).
int variable_unrolled_loops(const poly::LStmtPtr &s) {
  if (!s) return 0;
  int n = 0;
  if (s->kind == poly::LStmtKind::For && s->marks.count(poly::mark::kUnroll) && s->cond &&
      s->cond->kind == poly::LExprKind::Binary && s->cond->args.size() == 2) {
    const poly::LExpr &bound = *s->cond->args[1];
    const bool constant_trip = bound.kind == poly::LExprKind::Binary && bound.binop == compute::BinOp::Add &&
                               bound.args[1]->kind == poly::LExprKind::Int && poly::same_expr(*bound.args[0], *s->init);
    if (!constant_trip && s->init->kind != poly::LExprKind::Int) {
      // A tile loop of a whole tile (6 * c1 .. 6 * c1 + 5) is constant too: only the remainder's start has a mod.
      std::function<bool(const poly::LExpr &)> has_mod = [&](const poly::LExpr &e) {
        if (e.kind == poly::LExprKind::Binary && e.binop == compute::BinOp::Mod) return true;
        for (const auto &a : e.args)
          if (a && has_mod(*a)) return true;
        return false;
      };
      if (has_mod(*s->init)) ++n;
    }
  }
  for (const auto &b : s->body) n += variable_unrolled_loops(b);
  return n + variable_unrolled_loops(s->then_body) + variable_unrolled_loops(s->else_body);
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("specialize_remainders: a symbolic batch's leftover rows run as one straight-line tile per count") {
  Graph g = batch_dense(40, 64);
  poly::PolyOptions po;
  po.target = polytest::avx512_target();
  po.inline_producers = false;
  poly::ClusterResult r = poly::compile_cluster(g, g.order(), po);
  CAPTURE(r.ast_text);
  CHECK(r.stats["remainders_specialized"] == 1);
  CHECK(r.stats["remainder_copies"] == 6);  // 1 .. 6 rows: the tile's rows are 6 (32 registers)
  CHECK(variable_unrolled_loops(r.kernel.body) == 0);
  CHECK(r.ast_text.find("== 1)) {") != std::string::npos);
  CHECK(r.ast_text.find("== 5)) {") != std::string::npos);
  poly::LKernel again = r.kernel;
  CHECK(poly::specialize_remainders(again).regions == 0);  // nothing left to do
}

TEST_CASE("specialize_remainders: a count that can be zero or negative runs no iteration") {
  using namespace poly;
  // for (i = mod(N, 4); i < 2; i += 1) y[i] = 1: 2 - mod(N, 4) iterations, from 2 down to -1.
  LKernel k;
  k.name = "sr_negative";
  k.params = {"N"};
  k.arrays = {LArray{"y", DType::F32, {Dim(8)}, LArray::Role::Output}};
  LExprPtr init = build::binary(compute::BinOp::Mod, build::var("N"), build::integer(4));
  LExprPtr cond = build::binary(compute::BinOp::Lt, build::var("i"), build::integer(2));
  LStmtPtr body = build::block({build::store("y", {build::var("i")}, build::real(1.0))});
  k.body = build::block({build::loop("i", init, cond, 1, body, {mark::kUnroll})});
  SpecializeResult r = specialize_remainders(k);
  CHECK(r.regions == 1);
  CHECK(r.copies == 3);  // no iteration (any count <= 0), 1, 2
  std::ostringstream os;
  print_loop_ast(os, k);
  CAPTURE(os.str());
  CHECK(os.str().find("<= 0") != std::string::npos);
  std::vector<std::shared_ptr<cpu::CpuExecutable>> exes;
  exes.emplace_back(cpu::jit_kernels({k}));
  exes.emplace_back(cpu::build_c_kernels({k}));
  for (const auto &exe : exes)
    for (std::int64_t n = 0; n < 8; ++n) {
      std::vector<float> y(8, 0.0f);
      void *arrays[] = {y.data()};
      std::int64_t params[] = {n};
      exe->run("sr_negative", arrays, params);
      for (std::int64_t i = 0; i < 8; ++i) CHECK_MESSAGE(y[static_cast<std::size_t>(i)] == (i >= n % 4 && i < 2 ? 1.0f : 0.0f), "N " << n << " i " << i);
    }
}

TEST_CASE("specialize_remainders: every batch size equals the reference (JIT and C, AVX-512 and AVX2 tiles)") {
  for (const poly::CpuTarget &t : {polytest::avx512_target(), polytest::avx2_target()}) {
    for (auto [k, n] : {std::pair<long, long>{40, 64}, {17, 24}}) {
      Graph g = batch_dense(k, n);
      poly::PolyOptions po;
      po.target = t;
      poly::ClusterResult r = poly::compile_cluster(g, g.order(), po);
      CHECK(r.stats.count("remainders_specialized") == 1);
      r.kernel.name = "sr_" + std::to_string(t.vector_lanes) + "_" + std::to_string(k);
      r.name = r.kernel.name;
      std::vector<std::pair<std::string, std::shared_ptr<cpu::CpuExecutable>>> exes;
      exes.emplace_back("jit", cpu::jit_kernels({r.kernel}));
      exes.emplace_back("c", cpu::build_c_kernels({r.kernel}));
      for (auto &[path, exe] : exes)
        for (std::int64_t rows : {1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 16, 37, 64, 79, 80}) {
          std::map<std::string, std::int64_t> params{{"N", rows}};
          Graph concrete = g.instantiate(params);
          std::map<std::string, Tensor> feeds = make_graph_inputs(concrete);
          CompiledGraph cg;
          cg.clusters = {r};
          cg.functions.push_back(exe->entry(r.kernel.name));
          cg.keep_alive = exe;
          VerifyResult v = compare_outputs(run_compiled(cg, concrete, feeds, params), run_reference(concrete, feeds),
                                           concrete.outputs);
          CHECK_MESSAGE(v.passed, path << " " << t.isa << " k " << k << " n " << n << " N " << rows << ": " << v.detail);
        }
    }
  }
}

}  // TEST_SUITE
