// Softmax's and LogSoftmax's row maximum is nan_insensitive: the SCoP and the AST mark it (and nothing
// else), the compiled rows (JIT and C) equal the reference, and a row holding a NaN is NaN everywhere as there.
#include "src/frontend/batch.h"

#include "polyhedral/compile_cluster.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/scop/scop.h"
#include "tests/unit/polyhedral/transforms/random_variants.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace atl;

namespace {

Graph one_op(const std::string &op, const std::string &attrs, const std::vector<long> &shape) {
  std::string dims;
  for (long d : shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
  std::string text = R"J({"atoll": 1, "graphs": [{"name": "g", "inputs": [{"name": "x", "shape": [)J" + dims +
                     R"J(], "init": "uniform(-4,4)"}], "weights": [{"name": "s", "shape": [)J" +
                     std::to_string(shape.back()) + R"J(]}, {"name": "b", "shape": [)J" + std::to_string(shape.back()) +
                     R"J(]}], "outputs": ["y"], "nodes": [{"op": ")J" + op + R"J(", "name": "n", "inputs": ["x")J" +
                     (op == "LayerNormalization" ? R"J(, "s", "b")J" : "") + R"J(], "outputs": ["y"], "attrs": )J" +
                     attrs + "}]}]}";
  Batch b = read_batch(text);
  REQUIRE(b.graphs.size() == 1);
  REQUIRE_MESSAGE(b.graphs[0].graph.has_value(), (b.graphs[0].error ? b.graphs[0].error->what() : ""));
  return *b.graphs[0].graph;
}

int marked(const poly::Scop &scop) {
  int n = 0;
  for (const poly::ScopStatement &s : scop.statements) n += s.nan_insensitive;
  return n;
}

}  // namespace

TEST_SUITE("backends") {

TEST_CASE("nan_insensitive: Softmax's and LogSoftmax's row maximum, and no other reduction") {
  poly::IslContext ctx;
  for (const char *op : {"Softmax", "LogSoftmax"}) {
    Graph g = one_op(op, R"J({"axis": -1})J", {3, 9});
    poly::Scop scop = poly::build_scop(ctx, g, g.order());
    REQUIRE(marked(scop) == 1);
    for (const poly::ScopStatement &s : scop.statements)
      if (s.nan_insensitive) CHECK(s.op == compute::AssignOp::Max);
    // Printed in the SCoP and the AST (explain --stage scop, ast).
    poly::PolyOptions po;
    po.target = polytest::avx512_target();
    poly::ClusterResult c = poly::compile_cluster(g, g.order(), po);
    CHECK(c.scop_text.find("max= x(i0, i1)  (NaN-insensitive)") != std::string::npos);
    CHECK(c.ast_text.find("// n_0, NaN-insensitive") != std::string::npos);
  }
  for (const char *op : {"ReduceMax", "ReduceMin"}) {
    Graph g = one_op(op, R"J({"axes": [1], "keepdims": 1})J", {3, 9});
    CHECK(marked(poly::build_scop(ctx, g, g.order())) == 0);
  }
  Graph ln = one_op("LayerNormalization", R"J({"axis": -1})J", {3, 9});
  CHECK(marked(poly::build_scop(ctx, ln, ln.order())) == 0);
}

TEST_CASE("nan_insensitive: Softmax and LogSoftmax rows with NaN and infinities equal the reference (JIT and C)") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // 8 rows of 64 (four interleaved rows, joint folds) and of 37 (a remainder past the vectors).
  for (long cols : {64L, 37L})
    for (const char *op : {"Softmax", "LogSoftmax"}) {
      for (const char *path : {"jit", "c"}) {
        CAPTURE(op);
        CAPTURE(cols);
        CAPTURE(path);
        Graph g = one_op(op, R"J({"axis": -1})J", {8, cols});
        poly::PolyOptions po;
        po.target = polytest::avx512_target();
        poly::ClusterResult c = poly::compile_cluster(g, g.order(), po);
        std::shared_ptr<cpu::CpuExecutable> exe =
            path[0] == 'j' ? cpu::jit_kernels({c.kernel}) : cpu::build_c_kernels({c.kernel});
        if (path[0] == 'c') {
          // The C form of the row maximum: a compare and select, not atoll_maxf.
          const std::string src = cpu::emit_c_source({c.kernel});
          CHECK(src.find("(atoll_v > ") != std::string::npos);
          CHECK(src.find("atoll_maxf(atoll_v") == std::string::npos);
        }
        std::map<std::string, Tensor> feeds = make_graph_inputs(g);
        Tensor &x = feeds.at("x");
        // Row 0: a NaN early; 1: a NaN in the last element; 2: NaN and +inf;
        // 3: every element NaN; 4: +inf; 5: every element -inf; 6, 7: plain.
        auto at = [&](long r, long j) { return r * cols + j; };
        x.set(at(0, 2), nan);
        x.set(at(1, cols - 1), nan);
        x.set(at(2, 5), nan), x.set(at(2, 9), inf);
        for (long j = 0; j < cols; ++j) x.set(at(3, j), nan), x.set(at(5, j), -inf);
        x.set(at(4, 7), inf);
        CompiledGraph cg;
        cg.clusters = {c};
        cg.functions.push_back(exe->entry(c.kernel.name));
        cg.keep_alive = exe;
        Tensor got = run_compiled(cg, g, feeds, {}).at("y"), want = run_reference(g, feeds).at("y");
        for (long r = 0; r < 8; ++r)
          for (long j = 0; j < cols; ++j) {
            double a = got.get(at(r, j)), b = want.get(at(r, j));
            INFO("row " << r << " column " << j << ": " << a << " against " << b);
            if (std::isnan(b)) CHECK(std::isnan(a));
            else CHECK(std::abs(a - b) <= 1e-5 * std::max(1.0, std::abs(b)));
            if (r <= 3) CHECK(std::isnan(a));  // a NaN in the row reaches every output
          }
      }
    }
}

}  // TEST_SUITE
