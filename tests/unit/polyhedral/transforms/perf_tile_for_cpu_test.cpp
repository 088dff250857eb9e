// tile_for_cpu and the footprint cost model: the tree it builds (bands,
// isolate option, marks), footprints, hints, and random tile sizes, unroll
// factors and vector widths whose JIT and C code equal the reference.
#include "src/pipeline/pipeline.h"

#include "backends/cpu/cpu_backend.h"
#include "polyhedral/compile_cluster.h"
#include "polyhedral/transforms/schedule/footprint.h"
#include "polyhedral/transforms/schedule/tile_for_cpu.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"
#include "tests/unit/polyhedral/transforms/random_variants.h"
#include "tests/unit/polyhedral/transforms/transform_test_util.h"
#include "tests/unit/src/ops/op_cases.h"

#include <doctest/doctest.h>

#include <random>

using namespace atl;

namespace {

test::In f(Shape s) { return test::In{std::move(s)}; }

Graph matmul(long m, long k, long n, const std::string &name = "mm") {
  return test::make_case_graph({"MatMul", {f({m, k}), f({k, n})}}, name, name + "_n");
}

poly::CpuTarget avx512() { return polytest::avx512_target(); }

test::Case blocked_conv(long n, long ci, long h, long w, long cb, long k, long s, long ow);

/// The GEMM-shaped cases the random test draws from: odd sizes, batches, Gemm, convolutions.
std::vector<test::Case> gemm_cases() {
  using test::Case;
  return {
      {"MatMul", {f({37, 23}), f({23, 45})}},
      {"MatMul", {f({6, 64}), f({64, 64})}},
      {"MatMul", {f({13, 1}), f({1, 17})}},
      {"MatMul", {f({3, 9, 20}), f({3, 20, 33})}},
      {"MatMul", {f({2, 7, 5}), f({5, 70})}},
      {"Gemm", {f({19, 11}), f({11, 29}), f({29})}, {{"alpha", 0.5}, {"beta", 2.0}}},
      {"Gemm", {f({11, 19}), f({29, 11}), f({19, 29})}, {{"transA", 1}, {"transB", 1}}},
      {"Conv", {f({1, 5, 11, 13}), f({7, 5, 3, 3})}, {{"pads", {1, 1, 1, 1}}}},
      {"Conv", {f({2, 8, 9, 20}), f({12, 8, 1, 1})}},
      {"Conv", {f({1, 4, 12, 35}), f({6, 4, 3, 3})}, {{"strides", {2, 2}}, {"pads", {0, 1, 2, 1}}}},
      {"Conv", {f({1, 6, 9, 18}), f({6, 2, 3, 3})}, {{"group", 3}, {"pads", {1, 1, 1, 1}}}},
      {"Conv", {f({2, 12, 5, 9}), f({20, 3, 1, 1}), f({20})}, {{"group", 4}}},
      blocked_conv(2, 3, 9, 11, 3, 3, 1, 7),
      blocked_conv(1, 5, 12, 16, 2, 1, 2, 5),
  };
}

/// A channel-blocked conv as block_conv_layout writes it: x0 NCHW [N, CI, H, W],
/// x1 [CB, CI, K, K, 16], y0 [N, CB, OH, OW, 16] with stride S and no padding.
test::Case blocked_conv(long n, long ci, long h, long w, long cb, long k, long s, long ow) {
  long oh = (h - k) / s + 1;
  std::string S = s == 1 ? "" : std::to_string(s) + " * ";
  std::string expr = "y0(n_, ob_, oh_, ow_, o_) +=! x0(n_, c_, " + S + "oh_ + kh_, " + S + "ow_ + kw_) * x1(ob_, c_, kh_, kw_, o_)"
                     " where n_ in 0:" + std::to_string(n) + ", ob_ in 0:" + std::to_string(cb) + ", oh_ in 0:" +
                     std::to_string(oh) + ", ow_ in 0:" + std::to_string(ow) + ", o_ in 0:16, c_ in 0:" +
                     std::to_string(ci) + ", kh_ in 0:" + std::to_string(k) + ", kw_ in 0:" + std::to_string(k);
  return {"Compute", {f({n, ci, h, w}), f({cb, ci, k, k, 16})}, {{"expr", expr}}};
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("footprint: a GEMM tile touches its three blocks") {
  polytest::Scheduled s(matmul(64, 256, 128));
  const poly::ScopStatement *st = nullptr;
  for (const auto &x : s.scop.statements)
    if (!x.init) st = &x;
  REQUIRE(st);
  // mm_0[m, n, k]: C 6x64, A 6x128, B 128x64 floats.
  CHECK(poly::tile_footprint_bytes(s.scop, *st, {6, 64, 128}) == (6 * 64 + 6 * 128 + 128 * 64) * 4);
  // Size 0: the whole extent.
  CHECK(poly::tile_footprint_bytes(s.scop, *st, {1, 0, 1}) == (128 + 1 + 128) * 4);
}

TEST_CASE("tile_for_cpu: rows of symbolic extent get a power-of-two register tile with 16 registers, the cost model's with 32") {
  atl::Graph g = polytest::graph_json(
      R"([{"op": "MatMul", "name": "mm", "inputs": ["x", "w"], "outputs": ["y"]}])",
      R"("params": {"N": {"min": 1, "max": 64}}, "inputs": [{"name": "x", "shape": ["N", 784]}],
         "weights": [{"name": "w", "shape": [784, 512]}], "outputs": ["y"])");
  polytest::Scheduled s(g);
  poly::CpuTileOptions o;
  o.target = avx512();
  poly::CpuTileResult r = poly::tile_for_cpu(s.scop, s.schedule, o);
  REQUIRE(r.applied);
  CHECK(r.mr == 6);  // the leftover rows' tile is specialized per count (specialize_remainders)
  CHECK(s.legal(r.schedule));
  o.target = polytest::avx2_target();
  CHECK(poly::tile_for_cpu(s.scop, s.schedule, o).mr == 4);  // 6 by the register count; N = 64, 16, 1 fill tiles of 4
  o.unroll = 6;      // the hint still decides
  CHECK(poly::tile_for_cpu(s.scop, s.schedule, o).mr == 6);
  o.target = avx512();
  polytest::Scheduled c(matmul(64, 784, 512));
  o.unroll = 0;
  CHECK(poly::tile_for_cpu(c.scop, c.schedule, o).mr == 6);
}

TEST_CASE("tile_for_cpu: the B panel that every register row sweeps stays within 3/4 of L2, in equal column tiles") {
  for (poly::CpuTarget t : {polytest::avx2_target(), avx512()}) {
    CAPTURE(t.l2_bytes);
    polytest::Scheduled s(matmul(1024, 1024, 1024));
    poly::CpuTileOptions o;
    o.target = t;
    poly::CpuTileResult r = poly::tile_for_cpu(s.scop, s.schedule, o);
    REQUIRE(r.applied);
    long kc = r.cache_sizes[2], nc = r.cache_sizes[1] > 0 ? r.cache_sizes[1] : 1024;  // mm_0[m, n, k]; 0: untiled
    CAPTURE(kc);
    CAPTURE(nc);
    REQUIRE(kc > 0);
    if (t.l2_bytes < 1024 * 1024) CHECK(nc < 1024);  // 1024 columns x kc rows would not fit
    CHECK(kc * nc * 4 <= t.l2_bytes * 3 / 4);
    CHECK(1024 % nc == 0);
    CHECK(nc % r.nr == 0);
    CHECK(s.legal(r.schedule));
  }
}

TEST_CASE("tile_for_cpu: MatMul gets cache, register and vector bands, an isolate option and marks") {
  polytest::Scheduled s(matmul(100, 300, 200));
  poly::CpuTileOptions o;
  o.target = avx512();
  poly::CpuTileResult r = poly::tile_for_cpu(s.scop, s.schedule, o);
  REQUIRE(r.applied);
  CHECK(r.mr == 6);
  CHECK(r.nr == 64);
  CHECK(s.legal(r.schedule));
  std::string yaml = poly::schedule_to_yaml(r.schedule);
  CHECK(yaml.find("mark: \"unroll\"") != std::string::npos);
  CHECK(yaml.find("mark: \"vector\"") != std::string::npos);
  CHECK(yaml.find("isolate") != std::string::npos);
  CHECK(yaml.find("floor((x0)/6)") != std::string::npos);  // rows of the register tile
  // The L1 tile along k: footprint of 6 x 64 x kc within 32 KiB.
  long kc = r.cache_sizes[2];
  CHECK(kc > 0);
  CHECK(kc < 300);
  std::string ast = s.ast(r.schedule);
  CHECK(ast.find("// unroll") != std::string::npos);
  CHECK(ast.find("// vector") != std::string::npos);
}

TEST_CASE("tile_for_cpu: hints set the cache tiles and the register rows; other shapes are left alone") {
  polytest::Scheduled s(matmul(40, 50, 60));
  poly::CpuTileOptions o;
  o.target = avx512();
  o.cache_sizes = {16, 0, 8};
  o.unroll = 2;
  poly::CpuTileResult r = poly::tile_for_cpu(s.scop, s.schedule, o);
  REQUIRE(r.applied);
  CHECK(r.cache_sizes == std::vector<long>{16, 0, 8});
  CHECK(r.mr == 2);
  CHECK(s.legal(r.schedule));
  o.vectorize = false;
  CHECK(poly::tile_for_cpu(s.scop, s.schedule, o).nr == 1);
  polytest::Scheduled relu(test::make_case_graph({"Relu", {f({4, 9})}}, "r", "r_n"));
  poly::CpuTileResult none = poly::tile_for_cpu(relu.scop, relu.schedule, o);
  CHECK_FALSE(none.applied);
  CHECK(none.reason == "no GEMM-shaped statement");
}

TEST_CASE("tile_for_cpu: a channel-blocked conv gets rows over the output pixels and unrolled column blocks") {
  Graph g = test::make_case_graph(blocked_conv(1, 8, 58, 58, 4, 3, 1, 56), "bc", "bc_n");
  polytest::Scheduled s(g);
  poly::CpuTileOptions o;
  o.target = avx512();
  poly::CpuTileResult r = poly::tile_for_cpu(s.scop, s.schedule, o);
  REQUIRE(r.applied);
  CHECK(r.mr == 6);       // 56 output pixels = 9 full tiles of 6 rows + 2 (7 rows: 28 + 4 + 1 registers > 32)
  CHECK(r.nu == 4);       // 4 blocks of 16 output channels: 24 accumulators + 4 weight vectors + the row value
  CHECK(r.nr == 4 * 16);  // all columns of the micro-tile
  CHECK(s.legal(r.schedule));
  std::string ast = s.ast(r.schedule);
  CHECK(ast.find("(6 * c2)") != std::string::npos);
  CHECK(ast.find("// unroll\n") != std::string::npos);
  // The input channel loop is the innermost reduction around the micro-tile.
  CHECK(ast.find("for (c7 = 0; (c7 <= 7); c7 += 1) {\n") != std::string::npos);
  // Ow = 20 with 2 column blocks: 10 rows x 2 blocks (20 accumulators) over 2 full tiles.
  polytest::Scheduled s2(test::make_case_graph(blocked_conv(1, 8, 22, 22, 2, 3, 1, 20), "bc2", "bc2_n"));
  poly::CpuTileResult r2 = poly::tile_for_cpu(s2.scop, s2.schedule, o);
  REQUIRE(r2.applied);
  CHECK(r2.nu == 2);
  CHECK(20 % r2.mr == 0);
  CHECK(r2.mr * r2.nu + r2.nu + 1 <= 32);
  // Without vectors the column blocks are ordinary parallel loops.
  o.vectorize = false;
  CHECK(poly::tile_for_cpu(s.scop, s.schedule, o).nu == 1);
}

TEST_CASE("tile_for_cpu: a grouped conv gets rows over each group's output channels") {
  // Y(n, 68 * g + m, hw) +=! X(n, 68 * g + c, hw) * W(68 * g + m, c): m is
  // a row dimension although no subscript is m alone; g stays outside.
  polytest::Scheduled s(test::make_case_graph({"Conv", {f({1, 272, 14, 14}), f({272, 68, 1, 1})}, {{"group", 4}}}, "gc", "gc_n"));
  poly::CpuTileOptions o;
  o.target = avx512();
  poly::CpuTileResult r = poly::tile_for_cpu(s.scop, s.schedule, o);
  REQUIRE_MESSAGE(r.applied, r.reason);
  CHECK(r.mr > 1);
  CHECK(r.nr >= 16);
  CHECK(s.legal(r.schedule));
  std::string ast = s.ast(r.schedule);
  CHECK(ast.find("// unroll") != std::string::npos);
  CHECK(ast.find("// vector") != std::string::npos);
}

TEST_CASE("tile_for_cpu: compile_cluster counts what it did and explains the schedule") {
  Graph g = matmul(64, 64, 64);
  poly::PolyOptions po;
  po.target = avx512();
  poly::ClusterResult r = poly::compile_cluster(g, g.order(), po);
  CHECK(r.stats["bands_tiled"] == 1);
  CHECK(r.stats["loops_vectorized"] >= 1);
  CHECK(r.stats["loops_unrolled"] >= 1);
  CHECK(r.kernel.vector_lanes == 16);
  CHECK(r.schedule_yaml.find("mark: \"unroll\"") != std::string::npos);
  po.tile = false;
  CHECK(poly::compile_cluster(g, g.order(), po).stats.count("bands_tiled") == 0);
}

TEST_CASE("tile_for_cpu: random tile sizes, unroll factors and vector widths keep results equal (JIT and C)") {
  const unsigned base_seed = 777;
  std::vector<test::Case> pool = gemm_cases();
  using polytest::Variant;
  std::vector<Graph> graphs;
  std::vector<Variant> variants;
  for (std::size_t p = 0; p < pool.size(); ++p)
    graphs.push_back(test::make_case_graph(pool[p], "g" + std::to_string(p), "n" + std::to_string(p)));
  const int per_case = 4;
  int applied = 0;
  for (std::size_t p = 0; p < pool.size(); ++p) {
    for (int v = 0; v < per_case; ++v) {
      unsigned seed = base_seed + static_cast<unsigned>(variants.size());
      std::mt19937 rng(seed);
      std::ostringstream what;
      poly::PolyOptions po = polytest::random_cpu_options(rng, what);
      const polytest::Variant *added =
          polytest::add_variant(variants, p, seed, what.str(), test::describe_case(pool[p]), "pk",
                                [&] { return poly::compile_cluster(graphs[p], graphs[p].order(), po); });
      if (added) applied += added->cluster.stats.count("bands_tiled") ? 1 : 0;
    }
  }
  CHECK(applied >= static_cast<int>(variants.size()) * 3 / 4);
  polytest::check_variants(variants, graphs, pool);
}

TEST_CASE("tile_for_cpu: reduction blocks of equal length (no short last block of K)") {
  for (poly::CpuTarget t : {polytest::avx2_target(), avx512()}) {
    for (long k : {784L, 520L, 1000L}) {
      polytest::Scheduled s(matmul(64, k, 256));
      poly::CpuTileOptions o;
      o.target = t;
      poly::CpuTileResult r = poly::tile_for_cpu(s.scop, s.schedule, o);
      REQUIRE(r.applied);
      long kc = r.cache_sizes.at(2);
      CAPTURE(k);
      CAPTURE(kc);
      if (kc == 0 || kc >= k) continue;  // one block
      long blocks = (k + kc - 1) / kc, last = k - (blocks - 1) * kc;
      CHECK(kc % 16 == 0);
      CHECK(last + 16 * blocks >= kc);  // the blocks differ by less than the rounding to 16
      CHECK(s.legal(r.schedule));
    }
  }
}

TEST_CASE("tile_for_cpu: few rows over 64-column weight panels take one panel a column tile") {
  // The MLP's fc1: 64 x 784 x 512 over [8, 784, 64] panels.
  auto fc1 = [](int width) {
    std::string P = std::to_string(width), n = std::to_string(512 / width);
    return polytest::graph_json(
        R"([{"op": "Compute", "name": "mm", "inputs": ["x", "wp"], "outputs": ["y"],
             "attrs": {"expr": "y(m_, n_) +=! x(m_, k_) * wp(floor(n_ / )" + P + R"(), k_, n_ % )" + P +
            R"() where n_ in 0:512"}}])",
        R"("inputs": [{"name": "x", "shape": [64, 784]}],
           "weights": [{"name": "wp", "shape": [)" + n + R"(, 784, )" + P + R"(]}], "outputs": ["y"])");
  };
  // Two cores (the column tiles carry the parallelism): 8 tiles of one panel, where the fewest
  // tiles that fit were 4 of two.
  polytest::Scheduled s(fc1(64));
  poly::CpuTileOptions o;
  o.target = polytest::avx512_target(2);
  poly::CpuTileResult r = poly::tile_for_cpu(s.scop, s.schedule, o);
  REQUIRE(r.applied);
  CHECK(r.nr == 64);
  CHECK(r.cache_sizes.at(1) == 64);
  CHECK(s.legal(r.schedule));
  // Twelve panels (BERT's 768 columns) and 48 (its 3072) divide among 2 cores too.
  for (int panels : {12, 48}) {
    CAPTURE(panels);
    std::string N = std::to_string(64 * panels), n = std::to_string(panels);
    polytest::Scheduled p(polytest::graph_json(
        R"([{"op": "Compute", "name": "mm", "inputs": ["x", "wp"], "outputs": ["y"],
             "attrs": {"expr": "y(m_, n_) +=! x(m_, k_) * wp(floor(n_ / 64), k_, n_ % 64) where n_ in 0:)" + N + R"("}}])",
        R"("inputs": [{"name": "x", "shape": [64, 768]}],
           "weights": [{"name": "wp", "shape": [)" + n + R"(, 768, 64]}], "outputs": ["y"])"));
    poly::CpuTileResult t = poly::tile_for_cpu(p.scop, p.schedule, o);
    REQUIRE(t.applied);
    CHECK(t.cache_sizes.at(1) == 64);
    CHECK(p.legal(t.schedule));
  }
}

TEST_CASE("tile_for_cpu: a weight in panels takes the reduction in blocks of up to 768 (the whole of it up to 1024)") {
  for (long k : {768L, 784L, 3072L}) {
    std::string K = std::to_string(k);
    atl::Graph g = polytest::graph_json(
        R"([{"op": "Compute", "name": "mm", "inputs": ["x", "wp"], "outputs": ["y"],
             "attrs": {"expr": "y(m_, n_) +=! x(m_, k_) * wp(floor(n_ / 16), k_, n_ % 16) where n_ in 0:768"}}])",
        R"("inputs": [{"name": "x", "shape": [64, )" + K + R"(]}],
           "weights": [{"name": "wp", "shape": [48, )" + K + R"(, 16]}], "outputs": ["y"])");
    polytest::Scheduled s(g);
    poly::CpuTileOptions o;
    o.target = polytest::avx2_target();
    poly::CpuTileResult r = poly::tile_for_cpu(s.scop, s.schedule, o);
    REQUIRE(r.applied);
    CAPTURE(k);
    CHECK(r.nr == 16);
    long kc = r.cache_sizes.at(2);
    CHECK((kc == 0 || kc >= k ? k : kc) == (k <= 1024 ? k : 768));
    CHECK(s.legal(r.schedule));
  }
}
}
