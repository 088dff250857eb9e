// tile_window_for_cpu: the tree it builds for depthwise convolutions and pools (bands, marks, isolate option),
// the shapes it leaves alone, and random register tiles whose JIT and C code equal the reference.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include "backends/cpu/cpu_backend.h"
#include "polyhedral/compile_cluster.h"
#include "polyhedral/transforms/schedule/tile_window_for_cpu.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"
#include "tests/unit/polyhedral/transforms/random_variants.h"
#include "tests/unit/polyhedral/transforms/transform_test_util.h"
#include "tests/unit/src/ops/op_cases.h"

#include <doctest/doctest.h>

#include <random>
#include <sstream>

using namespace atl;

namespace {

test::In f(Shape s) { return test::In{std::move(s)}; }

poly::CpuTarget avx512() {
  poly::CpuTarget t;
  t.l1_bytes = 32 * 1024, t.l2_bytes = 1024 * 1024, t.l3_bytes = 32 * 1024 * 1024;
  t.vector_lanes = 16, t.vector_registers = 32, t.cores = 1, t.isa = "avx512";
  return t;
}

/// Depthwise convolution: `c` channels (times `mult` outputs each) of h x w, a k x k window.
test::Case depthwise(long c, long h, long w, long k, nlohmann::json attrs = nlohmann::json::object(), long mult = 1) {
  attrs["group"] = c;
  return {"Conv", {f({1, c, h, w}), f({c * mult, 1, k, k})}, attrs};
}

std::vector<test::Case> window_cases() {
  using test::Case;
  return {
      depthwise(5, 13, 37, 3, {{"pads", {1, 1, 1, 1}}}),
      depthwise(3, 11, 21, 5, {{"pads", {2, 2, 2, 2}}}),
      depthwise(4, 15, 35, 3, {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}),
      depthwise(3, 12, 40, 5, {{"strides", {2, 2}}, {"pads", {2, 1, 2, 1}}}),
      depthwise(2, 14, 33, 3, {{"dilations", {2, 2}}, {"pads", {2, 2, 2, 2}}}),
      depthwise(3, 9, 20, 3, {{"pads", {1, 1, 1, 1}}}, 2),
      {"Conv", {f({2, 4, 7, 9}), f({4, 1, 3, 3}), f({4})}, {{"group", 4}, {"pads", {0, 1, 2, 1}}}},
      depthwise(3, 1, 1, 3, {{"pads", {1, 1, 1, 1}}}),
      depthwise(2, 18, 48, 3),
      {"MaxPool", {f({1, 3, 13, 35})}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}},
      {"MaxPool", {f({2, 2, 11, 19})}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}},
      {"MaxPool", {f({1, 2, 9, 10})}, {{"kernel_shape", {2, 3}}, {"strides", {2, 1}}, {"ceil_mode", 1}}},
      {"AveragePool", {f({1, 3, 12, 37})}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}},
      {"AveragePool",
       {f({1, 2, 10, 23})},
       {{"kernel_shape", {5, 5}}, {"pads", {2, 2, 2, 2}}, {"count_include_pad", 1}}},
      {"AveragePool", {f({1, 2, 1, 1})}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}},
  };
}

std::string dims(std::initializer_list<long> d) {
  std::string s;
  for (long v : d) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return "[" + s + "]";
}

/// Depthwise conv (c channels, h x w, k x k, `stride`, `pad`), then
/// BatchNormalization (when `bn`) and Clip(0, 6): MobileNetV2's middle.
Graph depthwise_bn_clip(long c, long h, long w, long k, long stride, long pad, bool bn, bool bias = false,
                        bool clip = true) {
  std::string p = std::to_string(pad), st = std::to_string(stride), ks = std::to_string(k);
  std::string weights = R"J({"name": "wd", "shape": )J" + dims({c, 1, k, k}) + R"J(, "init": "uniform(-0.3,0.3)"},
      {"name": "lo", "shape": [], "data": 0.0}, {"name": "hi", "shape": [], "data": 6.0})J";
  for (const char *n : {"g", "b", "m", "v"})
    weights += std::string(R"J(, {"name": "bn_)J") + n + R"J(", "shape": )J" + dims({c}) + R"J(, "init": "uniform(0.5,1.5)"})J";
  std::string conv_in = R"J(["x", "wd")J" + std::string(bias ? R"J(, "bn_b"])J" : "]");
  std::string nodes = R"J([{"op": "Conv", "name": "dw", "inputs": )J" + conv_in + R"J(, "outputs": ["d"], "attrs": {"group": )J" +
                      std::to_string(c) + R"J(, "pads": [)J" + p + ", " + p + ", " + p + ", " + p + R"J(], "strides": [)J" + st +
                      ", " + st + R"J(], "kernel_shape": [)J" + ks + ", " + ks + "]}}";
  std::string clip_in = "d";
  if (bn) {
    nodes += R"J(, {"op": "BatchNormalization", "name": "bn", "inputs": ["d", "bn_g", "bn_b", "bn_m", "bn_v"], "outputs": ["db"], "attrs": {"epsilon": 1e-05}})J";
    clip_in = "db";
  }
  if (clip) nodes += R"J(, {"op": "Clip", "name": "clip", "inputs": [")J" + clip_in + R"J(", "lo", "hi"], "outputs": ["y"]})J";
  nodes += "]";
  if (!clip && !bn) nodes.replace(nodes.find(R"J("outputs": ["d"])J"), 16, R"J("outputs": ["y"])J");  // the conv alone
  std::string text = R"J({"atoll": 1, "graphs": [{"name": "g", "inputs": [{"name": "x", "shape": )J" + dims({1, c, h, w}) +
                     R"J(, "init": "uniform(-2,6)"}], "weights": [)J" + weights + R"J(], "outputs": ["y"], "nodes": )J" + nodes +
                     "}]}";
  Batch b = read_batch(text);
  REQUIRE(b.graphs.size() == 1);
  REQUIRE_MESSAGE(b.graphs[0].graph.has_value(), (b.graphs[0].error ? b.graphs[0].error->what() : ""));
  return *b.graphs[0].graph;
}

/// Lines of loop-AST text that open a loop at the outermost level.
int top_level_fors(const std::string &ast) {
  std::istringstream in(ast);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.rfind("  for ", 0) == 0 ? 1 : 0;  // the kernel body's indent
  return n;
}

/// Options of the window sweeps: AVX-512 with 16 lanes for the first variant
/// of a case (v == 0), otherwise 1/4/8/16 lanes; 16 or 32 registers; 1 or 2
/// cores when `cores`; sometimes (v > 0) a row count for the register tile.
poly::PolyOptions random_window_options(std::mt19937 &rng, int v, bool cores, std::ostream &what) {
  poly::PolyOptions po;
  po.target = avx512();
  int lanes[] = {1, 4, 8, 16};
  po.target.vector_lanes = v == 0 ? 16 : lanes[rng() % 4];
  po.target.vector_registers = rng() % 2 ? 32 : 16;
  if (cores) po.target.cores = 1 + static_cast<int>(rng() % 2);
  what << "lanes " << po.target.vector_lanes << " regs " << po.target.vector_registers;
  if (v > 0 && rng() % 2) po.unroll = 1 + static_cast<long>(rng() % 7), what << " rows " << po.unroll;
  return po;
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("tile_window_for_cpu: a 3x3 depthwise conv gets output bands, an unrolled window, rows and vectors") {
  polytest::Scheduled s(test::make_case_graph(depthwise(8, 56, 56, 3, {{"pads", {1, 1, 1, 1}}}), "dw", "dw"));
  poly::WindowTileOptions o;
  o.target = avx512();
  poly::WindowTileResult r = poly::tile_window_for_cpu(s.scop, s.schedule, o);
  REQUIRE(r.applied);
  REQUIRE(r.tiles.size() == 1);
  CHECK(r.tiles[0].vector);
  CHECK(r.tiles[0].unrolled);
  CHECK(r.tiles[0].columns == 48);  // three vectors of 16
  CHECK(r.tiles[0].rows == 4);      // 56 = 14 x 4 full rows, 12 accumulators
  CHECK(s.legal(r.schedule));
  std::string yaml = poly::schedule_to_yaml(r.schedule);
  CHECK(yaml.find("mark: \"vector\"") != std::string::npos);
  CHECK(yaml.find("mark: \"unroll\"") != std::string::npos);
  // 56 columns: the full strips (48) first, the 8 left over in a subtree of their own.
  CHECK(yaml.find("x3 <= 47") != std::string::npos);
  CHECK(yaml.find("x3 >= 48") != std::string::npos);
  CHECK(yaml.find("floor((x2)/4)") != std::string::npos);  // rows of the register tile
  CHECK(yaml.find("isolate") == std::string::npos);        // 56 = 14 x 4 rows: no partial tiles left
  std::string ast = s.ast(r.schedule);
  CHECK(ast.find("// vector") != std::string::npos);
  CHECK(ast.find("// unroll") != std::string::npos);
}

TEST_CASE("tile_window_for_cpu: register-tile rows load the fewest input rows, a partial last tile counted") {
  // AVX2 (16 registers, 8 lanes): two vectors a row, at most 6 rows of
  // accumulators. A tile of r rows of a 3x3 window loads r + 2 input rows.
  auto rows_for = [](long h) {
    polytest::Scheduled s(test::make_case_graph(depthwise(4, h, 56, 3, {{"pads", {1, 1, 1, 1}}}), "dw", "dw"));
    poly::WindowTileOptions o;
    o.target = avx512();
    o.target.vector_lanes = 8, o.target.vector_registers = 16;
    poly::WindowTileResult r = poly::tile_window_for_cpu(s.scop, s.schedule, o);
    REQUIRE(r.applied);
    CHECK(s.legal(r.schedule));
    return r.tiles[0].rows;
  };
  CHECK(rows_for(28) == 6);  // 4 x 8 + (4 + 2) = 38 input rows; 4-row tiles 7 x 6 = 42 (a MobileNetV2 band)
  CHECK(rows_for(56) == 6);  // 9 x 8 + 4 = 76; 14 x 6 = 84
  CHECK(rows_for(20) == 5);  // 4 x 7 = 28, as many as 6-row tiles (3 x 8 + 4): full tiles win the tie
  CHECK(rows_for(4) == 4);   // one tile
}

TEST_CASE("tile_window_for_cpu: a stride-2 window keeps scalar columns; hints set rows and columns") {
  polytest::Scheduled s(
      test::make_case_graph(depthwise(4, 28, 28, 3, {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}), "dw", "dw"));
  poly::WindowTileOptions o;
  o.target = avx512();
  poly::WindowTileResult r = poly::tile_window_for_cpu(s.scop, s.schedule, o);
  REQUIRE(r.applied);
  CHECK_FALSE(r.tiles[0].vector);
  CHECK(r.tiles[0].columns == 8);
  CHECK(s.legal(r.schedule));
  CHECK(poly::schedule_to_yaml(r.schedule).find("mark: \"vector\"") == std::string::npos);
  o.rows = 3, o.vectors = 2;
  r = poly::tile_window_for_cpu(s.scop, s.schedule, o);
  CHECK(r.tiles[0].rows == 3);
  CHECK(r.tiles[0].columns == 2);
  CHECK(s.legal(r.schedule));
  o.max_unrolled = 0;
  r = poly::tile_window_for_cpu(s.scop, s.schedule, o);
  CHECK_FALSE(r.tiles[0].unrolled);
  CHECK(s.legal(r.schedule));
}

TEST_CASE("tile_window_for_cpu: contractions and elementwise nodes are left alone") {
  poly::WindowTileOptions o;
  o.target = avx512();
  // Each result holds isl objects of its graph's context: it must go before that context does.
  polytest::Scheduled mm(test::make_case_graph({"MatMul", {f({8, 9}), f({9, 10})}}, "mm", "mm"));
  {
    poly::WindowTileResult r = poly::tile_window_for_cpu(mm.scop, mm.schedule, o);
    CHECK_FALSE(r.applied);
    CHECK(r.reason == "a contraction dimension (GEMM-shaped)");
  }
  polytest::Scheduled conv(test::make_case_graph({"Conv", {f({1, 4, 9, 9}), f({6, 4, 3, 3})}}, "cv", "cv"));
  CHECK(poly::tile_window_for_cpu(conv.scop, conv.schedule, o).reason == "a contraction dimension (GEMM-shaped)");
  polytest::Scheduled relu(test::make_case_graph({"Relu", {f({4, 9})}}, "r", "r"));
  {
    poly::WindowTileResult r = poly::tile_window_for_cpu(relu.scop, relu.schedule, o);
    CHECK_FALSE(r.applied);
    CHECK(r.reason == "no window reduction");
  }
  polytest::Scheduled sum(test::make_case_graph({"ReduceSum", {f({4, 9}), {{1}, DType::I64, "", std::vector<double>{1}}}},
                                                "rs", "rs"));
  CHECK_FALSE(poly::tile_window_for_cpu(sum.scop, sum.schedule, o).applied);
}

TEST_CASE("tile_window_for_cpu: compile_cluster takes the window path for depthwise convs and pools") {
  poly::PolyOptions po;
  po.target = avx512();
  for (const test::Case &c : {depthwise(6, 20, 40, 3, {{"pads", {1, 1, 1, 1}}}),
                              test::Case{"MaxPool", {f({1, 3, 16, 33})}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}}},
                              test::Case{"AveragePool", {f({1, 3, 16, 32})}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}}}) {
    CAPTURE(test::describe_case(c));
    Graph g = test::make_case_graph(c, "g", "n");
    poly::ClusterResult r = poly::compile_cluster(g, g.order(), po);
    CHECK(r.stats["window_tiles"] >= 1);
    CHECK(r.stats.count("bands_tiled") == 0);
    CHECK(r.stats.count("window_tilings_rejected") == 0);
  }
  Graph g = test::make_case_graph(depthwise(6, 20, 40, 3), "g", "n");
  po.tile = false;
  CHECK(poly::compile_cluster(g, g.order(), po).stats.count("window_tiles") == 0);
}

TEST_CASE("tile_window_for_cpu: random register tiles and vector widths keep results equal (JIT and C)") {
  const unsigned base_seed = 4242;
  std::vector<test::Case> pool = window_cases();
  using polytest::Variant;
  std::vector<Graph> graphs;
  std::vector<Variant> variants;
  for (std::size_t p = 0; p < pool.size(); ++p)
    graphs.push_back(test::make_case_graph(pool[p], "w" + std::to_string(p), "n" + std::to_string(p)));
  const int per_case = 3;
  int applied = 0;
  for (std::size_t p = 0; p < pool.size(); ++p) {
    for (int v = 0; v < per_case; ++v) {
      unsigned seed = base_seed + static_cast<unsigned>(variants.size());
      std::mt19937 rng(seed);
      std::ostringstream what;
      poly::PolyOptions po = random_window_options(rng, v, true, what);
      const polytest::Variant *added =
          polytest::add_variant(variants, p, seed, what.str(), test::describe_case(pool[p]), "wk",
                                [&] { return poly::compile_cluster(graphs[p], graphs[p].order(), po); });
      if (added) applied += added->cluster.stats.count("window_tiles") ? 1 : 0;
    }
  }
  CHECK(applied == static_cast<int>(variants.size()));
  polytest::check_variants(variants, graphs, pool);
}

TEST_CASE("tile_window_for_cpu: the depthwise conv's BatchNormalization and Clip run inside its tiles") {
  polytest::Scheduled s(depthwise_bn_clip(8, 56, 56, 3, 1, 1, true));
  poly::WindowTileOptions o;
  o.target = avx512();
  poly::WindowTileResult r = poly::tile_window_for_cpu(s.scop, s.schedule, o);
  REQUIRE(r.applied);
  CHECK(r.companions >= 2);  // BN (one or more statements) and Clip
  CHECK(s.legal(r.schedule));
  std::string ast = s.ast(r.schedule);
  CAPTURE(ast);
  // One loop nest over the channels, holding both column parts (full
  // strips, the 8 left over): no whole-tensor epilogue loops after.
  CHECK(top_level_fors(ast) == 1);
  CHECK(ast.find("// vector") != std::string::npos);
  o.epilogue = false;
  poly::WindowTileResult off = poly::tile_window_for_cpu(s.scop, s.schedule, o);
  CHECK(off.companions == 0);
  CHECK(top_level_fors(s.ast(off.schedule)) > 2);
}

TEST_CASE("tile_window_for_cpu: the epilogue in the tiles adds no stores (hoist_epilogues)") {
  // Each tile row's BatchNormalization and Clip run where the row's
  // accumulators are final, and the row is stored once: the lowered kernel
  // has as many vector stores as the conv alone (twice as many before).
  poly::PolyOptions po;
  po.target = avx512();
  po.target.vector_lanes = 8, po.target.vector_registers = 16;  // AVX2, where the registers ran out
  auto stores = [&](const Graph &g) {
    poly::ClusterResult r = poly::compile_cluster(g, g.order(), po);
    std::string ir = cpu::emit_llvm_ir({r.kernel});
    int n = 0;
    for (std::size_t at = ir.find("store <"); at != std::string::npos; at = ir.find("store <", at + 1)) ++n;
    return n;
  };
  int alone = stores(depthwise_bn_clip(16, 56, 56, 3, 1, 1, false, false, false));
  CHECK(alone > 0);
  CHECK(stores(depthwise_bn_clip(16, 56, 56, 3, 1, 1, false)) == alone);
  CHECK(stores(depthwise_bn_clip(16, 56, 56, 3, 1, 1, true)) == alone);
}

TEST_CASE("tile_window_for_cpu: the conv's output plane lies in place in the Clip's, however small") {
  // Contraction to one plane per channel (the parallel loop) and in-place
  // storage in the Clip's output both apply; with the epilogue in the tiles
  // a private plane would be stored twice (plane and output), even one
  // that fits L1, so the output takes it.
  poly::PolyOptions po;
  po.target = avx512();
  po.target.vector_lanes = 8, po.target.vector_registers = 16;
  auto stats = [&](long hw) {
    Graph g = depthwise_bn_clip(4, hw, hw, 3, 1, 1, false);
    return poly::compile_cluster(g, g.order(), po).stats;
  };
  auto small = stats(32);  // 4 KiB planes
  CHECK(small["statements_in_tiles"] >= 1);
  CHECK(small.count("arrays_contracted") == 0);
  CHECK(small["temporaries_reused"] == 1);
  auto large = stats(112);  // 49 KiB planes, L1 32 KiB
  CHECK(large.count("arrays_contracted") == 0);
  CHECK(large["temporaries_reused"] == 1);
}

TEST_CASE("tile_window_for_cpu: a stride-2 depthwise conv and Clip keeps the Clip in its tiles") {
  polytest::Scheduled s(depthwise_bn_clip(4, 15, 29, 3, 2, 1, false));
  poly::WindowTileOptions o;
  o.target = avx512();
  poly::WindowTileResult r = poly::tile_window_for_cpu(s.scop, s.schedule, o);
  REQUIRE(r.applied);
  CHECK(r.companions >= 1);
  CHECK(s.legal(r.schedule));
  std::string ast = s.ast(r.schedule);
  CAPTURE(ast);
  std::size_t clip = ast.find("clip");
  REQUIRE(clip != std::string::npos);
  CHECK(clip < ast.rfind("// dw_0"));  // the Clip's code comes before the last window code: inside its tiles
}

TEST_CASE("tile_window_for_cpu: compile_cluster counts the epilogue in the window tiles") {
  poly::PolyOptions po;
  po.target = avx512();
  Graph g = depthwise_bn_clip(6, 20, 40, 3, 1, 1, true);
  poly::ClusterResult r = poly::compile_cluster(g, g.order(), po);
  CHECK(r.stats["window_tiles"] >= 1);
  CHECK(r.stats["statements_in_tiles"] >= 2);
  CHECK(r.stats.count("epilogue_placements_rejected") == 0);
}

TEST_CASE("tile_window_for_cpu: random epilogues in the window tiles keep results equal (JIT and C)") {
  const unsigned base_seed = 5353;
  std::mt19937 shapes(base_seed);
  std::vector<Graph> graphs;
  std::vector<std::string> names;
  for (int p = 0; p < 8; ++p) {
    long c = 1 + static_cast<long>(shapes() % 5), h = 1 + static_cast<long>(shapes() % 19);
    long w = 1 + static_cast<long>(shapes() % 41), k = p % 3 == 2 ? 5 : 3;
    long stride = 1 + static_cast<long>(shapes() % 2), pad = static_cast<long>(shapes() % 3);
    if (h + 2 * pad < k) h = k;
    if (w + 2 * pad < k) w = k;
    graphs.push_back(depthwise_bn_clip(c, h, w, k, stride, pad, p % 2 == 0, p % 4 == 1));
    std::ostringstream what;
    what << "dw c" << c << " " << h << "x" << w << " k" << k << " s" << stride << " p" << pad << (p % 2 == 0 ? " bn" : "")
         << (p % 4 == 1 ? " bias" : "") << " clip";
    names.push_back(what.str());
  }
  using polytest::Variant;
  std::vector<Variant> variants;
  int placed = 0;
  for (std::size_t p = 0; p < graphs.size(); ++p) {
    for (int v = 0; v < 3; ++v) {
      unsigned seed = base_seed + static_cast<unsigned>(variants.size());
      std::mt19937 rng(seed);
      std::ostringstream what;
      poly::PolyOptions po = random_window_options(rng, v, false, what);
      const polytest::Variant *added =
          polytest::add_variant(variants, p, seed, what.str(), names[p], "we",
                                [&] { return poly::compile_cluster(graphs[p], graphs[p].order(), po); });
      if (added) placed += added->cluster.stats.count("statements_in_tiles") ? 1 : 0;
    }
  }
  CHECK(placed > static_cast<int>(variants.size()) / 2);
  polytest::check_variants(variants, graphs, names);
}
}
