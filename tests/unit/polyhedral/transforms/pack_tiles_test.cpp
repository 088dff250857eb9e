// pack_tiles: the extension node and copy statements it adds to the tiled
// schedule, the loop AST that reads the packed buffer, the cost model's
// choices, and GEMM, batched and conv kernels (odd sizes, partial tiles,
// random tile sizes) whose JIT and C code equal the reference with packing on.
#include "src/pipeline/pipeline.h"

#include "backends/cpu/cpu_backend.h"
#include "polyhedral/compile_cluster.h"
#include "polyhedral/transforms/ast/contract_arrays.h"
#include "polyhedral/transforms/schedule/pack_tiles.h"
#include "polyhedral/transforms/schedule/tile_for_cpu.h"
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

poly::CpuTarget avx512(int cores = 1) { return polytest::avx512_target(cores); }

/// Packing forced on any strided operand (tests of the mechanism, not of the cost model).
poly::PackOptions forced(bool rows, bool panels = true) {
  poly::PackOptions o;
  o.min_reuse = 1;
  o.min_column_reuse = 0;
  o.conflict_stride = 0;
  o.rows = rows;
  o.panels = panels;
  return o;
}

/// compile_cluster's result for `g` whose kernel is rebuilt from tile_for_cpu
/// + pack_tiles(`pk`) + build_ast; `packed` = the buffers made.
poly::ClusterResult packed_cluster(const Graph &g, const poly::PolyOptions &po, poly::PackOptions pk, int &packed) {
  poly::PolyOptions plain = po;
  plain.pack = false;
  poly::ClusterResult c = poly::compile_cluster(g, g.order(), plain);
  polytest::Scheduled s(g);
  poly::CpuTileOptions to;
  to.target = po.target;
  to.cache_sizes = po.tile_sizes;
  to.unroll = po.unroll;
  to.vectorize = po.vectorize;
  poly::CpuTileResult t = poly::tile_for_cpu(s.scop, s.schedule, to);
  packed = 0;
  if (!t.applied || !s.legal(t.schedule)) return c;
  pk.target = po.target;
  poly::PackResult p = poly::pack_tiles(s.scop, t.schedule, poly::gemm_tiling(t), pk);
  poly::AstOptions ao;
  ao.packs = p.packs;
  poly::LKernel k = poly::build_ast(s.scop, s.deps, p.schedule, ao);
  k.vector_lanes = po.target.vector_lanes;
  poly::contract_arrays(k);
  packed = static_cast<int>(k.locals.size());
  c.kernel = k;
  c.schedule_yaml = poly::schedule_to_yaml(p.schedule);
  return c;
}

std::vector<test::Case> pack_cases() {
  using test::Case;
  return {
      {"MatMul", {f({37, 23}), f({23, 45})}},
      {"MatMul", {f({64, 64}), f({64, 128})}},
      {"MatMul", {f({13, 1}), f({1, 17})}},
      {"MatMul", {f({3, 9, 20}), f({3, 20, 33})}},
      {"MatMul", {f({2, 7, 5}), f({5, 70})}},
      {"Gemm", {f({19, 11}), f({11, 29}), f({29})}, {{"alpha", 0.5}, {"beta", 2.0}}},
      {"Gemm", {f({11, 19}), f({29, 11}), f({19, 29})}, {{"transA", 1}, {"transB", 1}}},
      {"Conv", {f({1, 5, 11, 13}), f({7, 5, 3, 3})}, {{"pads", {1, 1, 1, 1}}}},
      {"Conv", {f({2, 8, 9, 20}), f({12, 8, 1, 1})}},
      {"Conv", {f({1, 16, 7, 9}), f({12, 16, 1, 1})}},
      {"Conv", {f({1, 4, 12, 35}), f({6, 4, 3, 3})}, {{"strides", {2, 2}}, {"pads", {0, 1, 2, 1}}}},
  };
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("pack_tiles: the B panel of a tiled MatMul is copied by an extension node and read from the buffer") {
  polytest::Scheduled s(matmul(40, 50, 70));
  poly::CpuTileOptions to;
  to.target = avx512();
  to.cache_sizes = {16, 32, 8};  // m, n, k
  to.unroll = 2;
  poly::CpuTileResult t = poly::tile_for_cpu(s.scop, s.schedule, to);
  REQUIRE(t.applied);
  poly::PackOptions po = forced(false, false);
  po.target = to.target;
  poly::PackResult p = poly::pack_tiles(s.scop, t.schedule, poly::gemm_tiling(t), po);
  REQUIRE(p.packs.size() == 1);
  CHECK(p.packs[0].array == "x1");
  CHECK(p.packs[0].buffer == "x1_pack");
  CHECK(p.packs[0].shape == std::vector<long>{8, 32});  // k-tile x n-tile
  CHECK(p.packed_bytes == 8 * 32 * 4);
  // Golden: the extension below the cache-tile band (prefix [m tile, n tile, k tile]); the copy band before the register tiles.
  std::string yaml = poly::schedule_to_yaml(p.schedule);
  CHECK_MESSAGE(yaml.find(R"(extension: "{ [i0, i1, i2] -> pack_x1[8i2, 32i1, o2, o3] : 0 <= i0 <= 2 and o2 >= 0 and )"
                          R"(-8i2 <= o2 <= 49 - 8i2 and o2 <= 7 and o3 >= 0 and -32i1 <= o3 <= 69 - 32i1 and o3 <= 31 }")") !=
                    std::string::npos,
                yaml);
  CHECK_MESSAGE(yaml.find(R"(            sequence:
            - filter: "{ pack_x1[i0, i1, i2, i3] }"
              child:
                schedule: "[{ pack_x1[z0, z1, z2, z3] -> [(z2)] }, { pack_x1[z0, z1, z2, z3] -> [(z3)] }]"
            - filter: "{ mm_n_0[m, n, k] }")") != std::string::npos,
                yaml);
  CHECK(s.legal(t.schedule));
  // Golden: the copy loop nest at the top of the tile, and the micro-kernel reading the buffer.
  poly::AstOptions ao;
  ao.packs = p.packs;
  std::ostringstream os;
  poly::print_loop_ast(os, poly::build_ast(s.scop, s.deps, p.schedule, ao));
  std::string ast = os.str();
  // The buffer belongs to one iteration of the k-tile loop; the copy fills it (partial tiles: only what exists).
  CHECK_MESSAGE(ast.find(R"(  local f32 x1_pack[8, 32];
  // parallel
  for (c0 = 0; (c0 <= 2); c0 += 1) {)") != std::string::npos,
                ast);
  CHECK(ast.find(R"(      for (c2 = 0; (c2 <= 6); c2 += 1) {
        local x1_pack;  // one per iteration
        for (c3 = 0; (c3 <= min(7, ((-8 * c2) + 49))); c3 += 1) {
          // vector
          for (c4 = 0; (c4 <= min(31, ((-32 * c1) + 69))); c4 += 1) {
            x1_pack[c3, c4] = x1[((8 * c2) + c3), ((32 * c1) + c4)];  // pack_x1
          }
        }
)") != std::string::npos);
  // The micro-kernel reads the buffer relative to the tile's origin, stride 1 along the vector loop.
  CHECK(ast.find(R"(                for (c7 = (32 * c1); (c7 <= ((32 * c1) + 31)); c7 += 1) {
                  y0[c6, c7] += (x0[c6, c5] * x1_pack[(c5 - (8 * c2)), (c7 - (32 * c1))]);  // mm_n_0)") !=
        std::string::npos);
  CHECK(ast.find("* x1[") == std::string::npos);  // the main statement no longer reads x1
}

TEST_CASE("pack_tiles: the B panel in micro-panel order ([n / NR][k][NR]) is read with affine subscripts") {
  polytest::Scheduled s(matmul(40, 50, 200));
  poly::CpuTileOptions to;
  to.target = avx512();
  to.cache_sizes = {16, 128, 8};  // m, n, k
  to.unroll = 2;
  poly::CpuTileResult t = poly::tile_for_cpu(s.scop, s.schedule, to);
  REQUIRE(t.applied);
  REQUIRE(t.nr == 64);
  poly::PackOptions po = forced(false);
  po.target = to.target;
  poly::PackResult p = poly::pack_tiles(s.scop, t.schedule, poly::gemm_tiling(t), po);
  REQUIRE(p.packs.size() == 1);
  CHECK(p.packs[0].panel == 64);
  CHECK(p.packs[0].shape == std::vector<long>{2, 8, 64});  // 128 columns = 2 panels of 8 x 64
  std::string yaml = poly::schedule_to_yaml(p.schedule);
  // Copy loops: rows of the source outside the panels, so each row is read contiguously across them.
  CHECK_MESSAGE(yaml.find(R"(schedule: "[{ pack_x1[z0, z1, z2, z3, z4] -> [(z3)] }, { pack_x1[z0, z1, z2, z3, z4] -> [(z2)] }, )"
                          R"({ pack_x1[z0, z1, z2, z3, z4] -> [(z4)] }]")") != std::string::npos,
                yaml);
  poly::AstOptions ao;
  ao.packs = p.packs;
  std::ostringstream os;
  poly::print_loop_ast(os, poly::build_ast(s.scop, s.deps, p.schedule, ao));
  std::string ast = os.str();
  // Copy: row, panel, lane; 64 consecutive floats of a row of x1 into 64 consecutive floats of the buffer.
  CHECK_MESSAGE(ast.find("x1_pack[c4, c3, c5] = x1[((8 * c2) + c3), ((128 * c1) + ((64 * c4) + c5))];  // pack_x1") !=
                    std::string::npos,
                ast);
  // Micro-kernel: panel = column tile - tile origin / 64, lane = column - its tile's first column.
  CHECK_MESSAGE(ast.find("x1_pack[(c4 - (2 * c1)), (c5 - (8 * c2)), (c7 - (64 * c4))]") != std::string::npos, ast);
  CHECK(ast.find("% 64") == std::string::npos);
}

TEST_CASE("pack_tiles: the cost model packs power-of-two strided panels that are reused, and nothing else") {
  poly::PackOptions po;
  po.target = avx512();
  poly::CpuTileOptions to;
  to.target = avx512();
  {  // 256 x 512 x 1024: B rows 4 KiB apart, reused by every row of the 256-row tile.
    polytest::Scheduled s(matmul(256, 512, 1024));
    poly::CpuTileResult t = poly::tile_for_cpu(s.scop, s.schedule, to);
    REQUIRE(t.applied);
    poly::PackResult p = poly::pack_tiles(s.scop, t.schedule, poly::gemm_tiling(t), po);
    REQUIRE(p.packs.size() == 1);
    CHECK(p.packs[0].array == "x1");
    CHECK(p.packed_bytes <= po.max_bytes);
  }
  {  // 2048^3: the kc x nc panel (in micro-panel order) fits L2, since tile_for_cpu keeps it within 3/4 of L2.
    polytest::Scheduled s(matmul(2048, 2048, 2048));
    poly::CpuTileResult t = poly::tile_for_cpu(s.scop, s.schedule, to);
    REQUIRE(t.applied);
    poly::PackResult p = poly::pack_tiles(s.scop, t.schedule, poly::gemm_tiling(t), po);
    REQUIRE(p.packs.size() == 1);
    CHECK(p.packs[0].panel == 64);
    CHECK(p.packed_bytes <= to.target.l2_bytes * 3 / 4);
    po.target.l2_bytes = p.packed_bytes - 1;  // an L2 smaller than the panel: not packed
    CHECK(poly::pack_tiles(s.scop, t.schedule, poly::gemm_tiling(t), po).packs.empty());
    po.target = avx512();
  }
  {  // 1000-float rows: no set conflicts, not packed.
    polytest::Scheduled s(matmul(200, 300, 1000));
    poly::CpuTileResult t = poly::tile_for_cpu(s.scop, s.schedule, to);
    REQUIRE(t.applied);
    poly::PackResult p = poly::pack_tiles(s.scop, t.schedule, poly::gemm_tiling(t), po);
    CHECK(p.packs.empty());
    CHECK(p.reason.find("no set conflicts") != std::string::npos);
  }
  {  // 256-byte rows: no set conflicts.
    polytest::Scheduled s(matmul(20, 30, 64));
    poly::CpuTileResult t = poly::tile_for_cpu(s.scop, s.schedule, to);
    poly::PackResult p = poly::pack_tiles(s.scop, t.schedule, poly::gemm_tiling(t), po);
    CHECK(p.packs.empty());
    CHECK(p.reason.find("no set conflicts") != std::string::npos);
  }
  {  // BERT's 64 x 768 x 768: B rows 3 KiB apart, each element serves 64 rows: copied in panels.
    polytest::Scheduled s(matmul(64, 768, 768));
    poly::CpuTileResult t = poly::tile_for_cpu(s.scop, s.schedule, to);
    REQUIRE(t.applied);
    poly::PackResult p = poly::pack_tiles(s.scop, t.schedule, poly::gemm_tiling(t), po);
    CHECK_MESSAGE(p.packs.size() == 1, p.reason);
  }
  {  // 16 rows: each element of B serves 16 multiply-adds, read in place.
    polytest::Scheduled s(matmul(16, 768, 768));
    poly::CpuTileResult t = poly::tile_for_cpu(s.scop, s.schedule, to);
    REQUIRE(t.applied);
    poly::PackResult p = poly::pack_tiles(s.scop, t.schedule, poly::gemm_tiling(t), po);
    CHECK(p.packs.empty());
    CHECK_MESSAGE(p.reason.find("reuse 16 (few rows)") != std::string::npos, p.reason);
    poly::PackOptions more = po;
    more.min_column_reuse = 16;
    CHECK(poly::pack_tiles(s.scop, t.schedule, poly::gemm_tiling(t), more).packs.size() == 1);
  }
  {  // Four rows of A: each element of B used 4 times, not worth a copy.
    polytest::Scheduled s(matmul(4, 512, 1024));
    poly::CpuTileResult t = poly::tile_for_cpu(s.scop, s.schedule, to);
    poly::PackResult p = poly::pack_tiles(s.scop, t.schedule, poly::gemm_tiling(t), po);
    CHECK(p.packs.empty());
    CHECK_MESSAGE(p.reason.find("reuse 4 (few rows)") != std::string::npos, p.reason);
  }
}

TEST_CASE("pack_tiles: the next k block is prefetched, by the copy when packed, by the micro-kernel when read in place") {
  poly::PolyOptions po;
  po.target = avx512(2);
  auto ir_of = [](const poly::ClusterResult &r) {
    poly::LKernel k = r.kernel;
    return cpu::emit_llvm_ir({k});
  };
  // 16 x 768 x 768: B read in place; its next k block prefetched from the register tile's k loop.
  Graph few = matmul(16, 768, 768);
  poly::ClusterResult r = poly::compile_cluster(few, few.order(), po);
  CHECK(r.kernel.locals.empty());
  std::string ir = ir_of(r);
  CHECK(ir.find("call void @llvm.prefetch") != std::string::npos);
  // 256 x 256 x 1024 in 128-row tiles: B packed; the copy prefetches the next k block of the source.
  Graph many = matmul(256, 256, 1024);
  po.tile_sizes = {128, 256, 64};
  poly::ClusterResult p = poly::compile_cluster(many, many.order(), po);
  REQUIRE(p.kernel.locals.size() == 1);
  ir = ir_of(p);
  CHECK(ir.find("call void @llvm.prefetch") != std::string::npos);
  // The whole reduction in one block (K = 16): nothing to prefetch.
  Graph one = matmul(64, 16, 256);
  po.tile_sizes.clear();
  poly::ClusterResult o = poly::compile_cluster(one, one.order(), po);
  CHECK_MESSAGE(ir_of(o).find("@llvm.prefetch") == std::string::npos, o.ast_text);
}

TEST_CASE("pack_tiles: compile_cluster counts packed arrays and bytes; the buffer lives inside the parallel loop") {
  Graph g = matmul(256, 256, 1024);
  poly::PolyOptions po;
  po.target = avx512(2);
  po.tile_sizes = {128, 256, 64};  // 128-row tiles: each element of B serves enough rows to be copied
  poly::ClusterResult r = poly::compile_cluster(g, g.order(), po);
  CHECK(r.stats["arrays_packed"] == 1);
  CHECK(r.stats["packed_bytes"] == 64 * 256 * 4);
  REQUIRE(r.kernel.locals.size() == 1);
  CHECK(r.kernel.locals[0].shape == SymShape{4, 64, 64});  // 4 panels of 64 rows x 64 columns
  CHECK(r.ast_text.find("parallel") < r.ast_text.find("local x1_pack"));
  po.pack = false;
  poly::ClusterResult off = poly::compile_cluster(g, g.order(), po);
  CHECK(off.stats.count("arrays_packed") == 0);
  CHECK(off.kernel.locals.empty());
}

TEST_CASE("pack_tiles: with the reduction untiled, the panel is copied once per cache tile, before its register tiles") {
  // 64 x 256 x 768 on two AVX2 cores: K fits one L1 block, so the init runs
  // under the register band; the copy must stay above it (it had been made
  // once per 6 x 16 register tile, ten times over).
  Graph g = matmul(64, 256, 768);
  poly::PolyOptions po;
  po.target = polytest::avx2_target(2);
  poly::ClusterResult r = poly::compile_cluster(g, g.order(), po);
  CAPTURE(r.ast_text);
  REQUIRE(r.stats["arrays_packed"] == 1);
  REQUIRE(r.kernel.locals.size() == 1);
  const SymShape &shape = r.kernel.locals[0].shape;
  REQUIRE(shape.size() == 3);
  CHECK(shape[0].value > 1);  // every panel of the cache tile's columns
  CHECK(shape[1].value == 256);
  std::size_t copy = r.ast_text.find("// pack_x1"), init = r.ast_text.find("// mm_n_0_init");
  REQUIRE(copy != std::string::npos);
  REQUIRE(init != std::string::npos);
  CHECK(copy < init);
  CHECK(r.stats["packed_bytes"] == shape[0].value * 256 * 16 * 4);
}

TEST_CASE("pack_tiles: GEMM, batched and conv kernels with packed panels equal the reference (JIT and C)") {
  std::vector<test::Case> pool = pack_cases();
  std::vector<Graph> graphs;
  std::vector<polytest::Variant> variants;
  int packed_kernels = 0;
  for (std::size_t p = 0; p < pool.size(); ++p) {
    graphs.push_back(test::make_case_graph(pool[p], "g" + std::to_string(p), "n" + std::to_string(p)));
    for (bool rows : {false, true}) {
      poly::PolyOptions po;
      po.target = avx512(rows ? 2 : 1);
      po.tile_sizes = {5, 7, 3, 4, 6, 3, 2};  // partial tiles everywhere
      int packed = 0;
      polytest::Variant v{p, 0, rows ? "A and B packed" : "B packed", packed_cluster(graphs[p], po, forced(rows), packed)};
      packed_kernels += packed > 0;
      v.cluster.kernel.name = "pt" + std::to_string(variants.size());
      v.cluster.name = v.cluster.kernel.name;
      variants.push_back(std::move(v));
    }
  }
  CHECK(packed_kernels >= static_cast<int>(variants.size()) * 3 / 4);
  polytest::check_variants(variants, graphs, pool);
}

TEST_CASE("pack_tiles: random tile sizes and register tiles with packing forced keep results equal (JIT and C)") {
  const unsigned base_seed = 4242;
  std::vector<test::Case> pool = pack_cases();
  std::vector<Graph> graphs;
  std::vector<polytest::Variant> variants;
  for (std::size_t p = 0; p < pool.size(); ++p)
    graphs.push_back(test::make_case_graph(pool[p], "g" + std::to_string(p), "n" + std::to_string(p)));
  int packed_kernels = 0;
  for (std::size_t p = 0; p < pool.size(); ++p) {
    for (int k = 0; k < 3; ++k) {
      unsigned seed = base_seed + static_cast<unsigned>(variants.size());
      std::mt19937 rng(seed);
      poly::PolyOptions po;
      po.target = avx512(1 + static_cast<int>(rng() % 2));
      int lanes[] = {1, 4, 8, 16};
      po.target.vector_lanes = lanes[rng() % 4];
      std::ostringstream what;
      what << "lanes " << po.target.vector_lanes << " cores " << po.target.cores << " tile {";
      for (int d = 0; d < 7; ++d) {
        long t = rng() % 4 == 0 ? 0 : 1 + static_cast<long>(rng() % 17);
        po.tile_sizes.push_back(t);
        what << t << ",";
      }
      what << "}";
      if (rng() % 2) po.unroll = 1 + static_cast<long>(rng() % 6), what << " unroll " << po.unroll;
      bool rows = rng() % 2, panels = rng() % 2;
      what << (rows ? " A+B" : " B") << (panels ? " panels" : " boxes");
      int packed = 0;
      const polytest::Variant *added =
          polytest::add_variant(variants, p, seed, what.str(), test::describe_case(pool[p]), "pr",
                                [&] { return packed_cluster(graphs[p], po, forced(rows, panels), packed); });
      if (added) packed_kernels += packed > 0;
    }
  }
  CHECK(packed_kernels >= static_cast<int>(variants.size()) / 2);
  polytest::check_variants(variants, graphs, pool);
}

}  // TEST_SUITE
