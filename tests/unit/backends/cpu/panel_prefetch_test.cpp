// Prefetching the next cache tile's weight panels from a GEMM's micro-kernel (next_panel_tile, prefetch_next_panels).
#include "tests/unit/backends/cpu/test_kernels.h"

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/vector_analysis.h"
#include "polyhedral/target/cpu_target.h"
#include "src/pipeline/compile_graph.h"

#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include <doctest/doctest.h>

namespace atl::cpu::test {
namespace {

using namespace poly::build;
using compute::BinOp;

/// for (it = init; it <= init + extent - 1; it += step), body empty: only the header matters here.
poly::LStmtPtr header(const std::string &it, poly::LExprPtr init, std::int64_t extent, std::int64_t step = 1) {
  auto last = binary(BinOp::Add, init, integer(extent - 1));
  return loop(it, init, binary(BinOp::Le, var(it), last), step, block({}));
}

poly::LExprPtr times(std::int64_t c, const std::string &v) { return binary(BinOp::Mul, integer(c), var(v)); }

/// P[first, second, l - 64 first] with l the vector iterator.
poly::LExprPtr panel_read(poly::LExprPtr first, poly::LExprPtr second) {
  auto column = binary(BinOp::Sub, var("l"), binary(BinOp::Mul, integer(64), first));
  return load("P", {first, second, column});
}

std::vector<const poly::LStmt *> raw(const std::vector<poly::LStmtPtr> &loops) {
  std::vector<const poly::LStmt *> out;
  for (const auto &l : loops) out.push_back(l.get());
  return out;
}

/// The GEMM cluster's kernel (the one reading a `_panels` array) of a one-MatMul graph, M x K x N.
std::vector<poly::LKernel> panel_kernels(std::int64_t m, std::int64_t k, std::int64_t n) {
  std::string json = R"({"atoll": 1, "graphs": [{"name": "mm", "inputs": [{"name": "x", "shape": [)" + std::to_string(m) +
                     ", " + std::to_string(k) + R"(]}], "weights": [{"name": "w", "shape": [)" + std::to_string(k) + ", " +
                     std::to_string(n) +
                     R"(]}], "nodes": [{"op": "MatMul", "inputs": ["x", "w"], "outputs": ["y"]}], "outputs": ["y"]}]})";
  Batch b = read_batch(json);
  REQUIRE(b.graphs.size() == 1);
  CompiledGraph c = compile_graph(*b.graphs[0].graph, {});
  std::vector<poly::LKernel> out;
  for (const auto &cl : c.clusters)
    for (const poly::LArray &a : cl.kernel.arrays)
      if (a.role == poly::LArray::Role::Input && a.name.find("_panels") != std::string::npos) out.push_back(cl.kernel);
  return out;
}

}  // namespace

TEST_SUITE("backends") {

TEST_CASE("panel prefetch: the next cache tile is the next panel group, or the next k block, past the row tiles") {
  // BERT's 64 x 768 x 3072: for c0 (panel pairs) for c1 (row tiles) for c2 = 2 c0 .. 2 c0 + 1 for k.
  {
    std::vector<poly::LStmtPtr> loops = {header("c0", integer(0), 24), header("c1", integer(0), 11),
                                         header("c2", times(2, "c0"), 2), header("c3", integer(0), 768)};
    auto next = next_panel_tile(raw(loops), *panel_read(var("c2"), var("c3")));
    REQUIRE(next);
    CHECK(next->rows == loops[1].get());
    CHECK(next->delta == std::vector<std::int64_t>{2, 0});
  }
  // 64 x 3072 x 768 in k blocks of 768: for c0 (pairs) for c1 (k blocks) for c2 (row tiles) for c3 (panel) for k.
  {
    std::vector<poly::LStmtPtr> loops = {header("c0", integer(0), 6), header("c1", integer(0), 4),
                                         header("c2", integer(0), 11), header("c3", times(2, "c0"), 2),
                                         header("c4", times(768, "c1"), 768)};
    auto next = next_panel_tile(raw(loops), *panel_read(var("c3"), var("c4")));
    REQUIRE(next);
    CHECK(next->rows == loops[2].get());
    CHECK(next->delta == std::vector<std::int64_t>{0, 768});
  }
  // A loop step of 2 moving the panel index by 3 a step: 6 panels further.
  {
    std::vector<poly::LStmtPtr> loops = {header("a", integer(0), 8, 2), header("r", integer(0), 5),
                                         header("p", times(3, "a"), 2), header("k", integer(0), 64)};
    auto next = next_panel_tile(raw(loops), *panel_read(var("p"), var("k")));
    REQUIRE(next);
    CHECK(next->delta == std::vector<std::int64_t>{6, 0});
  }
  // One row tile (no loop reuses the panels): the hardware prefetcher's single stream, nothing to do.
  {
    std::vector<poly::LStmtPtr> loops = {header("c0", integer(0), 24), header("c2", times(2, "c0"), 2),
                                         header("c3", integer(0), 768)};
    CHECK_FALSE(next_panel_tile(raw(loops), *panel_read(var("c2"), var("c3"))));
  }
  // Row tiles outermost: no next tile outside them.
  {
    std::vector<poly::LStmtPtr> loops = {header("c1", integer(0), 11), header("c2", integer(0), 48),
                                         header("c3", integer(0), 768)};
    CHECK_FALSE(next_panel_tile(raw(loops), *panel_read(var("c2"), var("c3"))));
  }
  // A start that is not affine in the iterators (a min): not followed.
  {
    auto bounded = min(times(2, "c0"), integer(40));
    std::vector<poly::LStmtPtr> loops = {header("c0", integer(0), 24), header("c1", integer(0), 11),
                                         header("c2", bounded, 2), header("c3", integer(0), 768)};
    CHECK_FALSE(next_panel_tile(raw(loops), *panel_read(var("c2"), var("c3"))));
  }
}

TEST_CASE("panel prefetch: a GEMM over weight panels prefetches once a k step when several row tiles share them") {
  const std::int64_t p = poly::gemm_tile_columns(poly::host_target());
  if (p <= 1) return;  // no vector panels on this host
  // 64 rows: several row tiles reuse each panel; one prefetch in each
  // micro-kernel (full and remainder row tiles) when a panel's k row spans
  // two lines or more (AVX-512's 64 columns), none with one line (AVX2's 16).
  std::vector<poly::LKernel> many = panel_kernels(64, 256, 8 * p);
  REQUIRE(many.size() == 1);
  std::string ir = emit_llvm_ir(many);
  INFO("panel columns " << p);
  if (poly::panel_row_spans_lines(p, 4)) {
    CHECK(count(ir, "call void @llvm.prefetch") >= 1);
    CHECK(count(ir, "call void @llvm.prefetch") <= 2);
  } else {
    CHECK(count(ir, "call void @llvm.prefetch") == 0);
  }
  // Four rows: one row tile reads each panel once, the hardware prefetcher's stream; no prefetch.
  std::vector<poly::LKernel> few = panel_kernels(4, 256, 8 * p);
  REQUIRE(few.size() == 1);
  CHECK(count(emit_llvm_ir(few), "@llvm.prefetch") == 0);
}
}

}  // namespace atl::cpu::test
