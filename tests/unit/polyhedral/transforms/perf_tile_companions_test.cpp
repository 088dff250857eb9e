// Epilogues in the tiles of a contraction (tile_companions + tile_for_cpu):
// which statements join the tiles and at which level, the tree and AST they
// give, and random tile sizes over contractions with epilogues whose JIT and
// C code equal the reference.
#include "polyhedral/transforms/schedule/tile_companions.h"
#include "polyhedral/transforms/schedule/tile_for_cpu.h"
#include "tests/unit/polyhedral/transforms/random_variants.h"
#include "tests/unit/polyhedral/transforms/transform_test_util.h"

#include "src/frontend/batch.h"

#include <doctest/doctest.h>

#include <random>
#include <sstream>

using namespace atl;

namespace {

Graph graph_of(const std::string &io_json, const std::string &nodes_json) { return polytest::graph_json(nodes_json, io_json); }

std::string dims(std::initializer_list<long> d) {
  std::string s;
  for (long v : d) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return "[" + s + "]";
}

/// y = Relu(x @ w + b): MatMul with a bias and an activation.
Graph matmul_bias_relu(long m, long k, long n) {
  return graph_of(R"("inputs": [{"name": "x", "shape": )" + dims({m, k}) + R"(}], "weights": [{"name": "w", "shape": )" +
                      dims({k, n}) + R"(}, {"name": "b", "shape": )" + dims({n}) + R"(}], "outputs": ["y"])",
                  R"([{"op": "MatMul", "name": "mm", "inputs": ["x", "w"], "outputs": ["p"]},
                      {"op": "Add", "name": "bias", "inputs": ["p", "b"], "outputs": ["q"]},
                      {"op": "Relu", "name": "relu", "inputs": ["q"], "outputs": ["y"]}])");
}

/// t = Transpose(x @ w + b): the transpose reads in another layout.
Graph matmul_bias_transpose(long m, long k, long n) {
  return graph_of(R"("inputs": [{"name": "x", "shape": )" + dims({m, k}) + R"(}], "weights": [{"name": "w", "shape": )" +
                      dims({k, n}) + R"(}, {"name": "b", "shape": )" + dims({n}) + R"(}], "outputs": ["t"])",
                  R"([{"op": "MatMul", "name": "mm", "inputs": ["x", "w"], "outputs": ["p"]},
                      {"op": "Add", "name": "bias", "inputs": ["p", "b"], "outputs": ["q"]},
                      {"op": "Transpose", "name": "tr", "inputs": ["q"], "outputs": ["t"], "attrs": {"perm": [1, 0]}}])");
}

/// A channel-blocked conv (as block_conv_layout writes it) with a per-channel
/// scale, Relu, the conversion back to NCHW and a residual Add in NCHW.
Graph blocked_conv_epilogue(long ci, long h, long w, long cb) {
  long oh = h - 2, ow = w - 2;
  std::string conv = "y(n_, ob_, oh_, ow_, o_) +=! x(n_, c_, oh_ + kh_, ow_ + kw_) * wb(ob_, c_, kh_, kw_, o_) where n_ in 0:1, ob_ in 0:" +
                     std::to_string(cb) + ", oh_ in 0:" + std::to_string(oh) + ", ow_ in 0:" + std::to_string(ow) +
                     ", o_ in 0:16, c_ in 0:" + std::to_string(ci) + ", kh_ in 0:3, kw_ in 0:3";
  std::string scale = "z(n_, cb_, h_, w_, l_) = y(n_, cb_, h_, w_, l_) * s(16 * cb_ + l_) where n_ in 0:1, cb_ in 0:" +
                      std::to_string(cb) + ", h_ in 0:" + std::to_string(oh) + ", w_ in 0:" + std::to_string(ow) +
                      ", l_ in 0:16";
  std::string back = "u(n_, 16 * cb_ + l_, h_, w_) = r(n_, cb_, h_, w_, l_) where n_ in 0:1, cb_ in 0:" + std::to_string(cb) +
                     ", l_ in 0:16, h_ in 0:" + std::to_string(oh) + ", w_ in 0:" + std::to_string(ow);
  return graph_of(
      R"("inputs": [{"name": "x", "shape": )" + dims({1, ci, h, w}) + R"(}, {"name": "res", "shape": )" +
          dims({1, 16 * cb, oh, ow}) + R"(}], "weights": [{"name": "wb", "shape": )" + dims({cb, ci, 3, 3, 16}) +
          R"(}, {"name": "s", "shape": )" + dims({16 * cb}) + R"(}], "outputs": ["out"])",
      R"([{"op": "Compute", "name": "conv", "inputs": ["x", "wb"], "outputs": ["y"], "attrs": {"expr": ")" + conv + R"("}},
          {"op": "Compute", "name": "scale", "inputs": ["y", "s"], "outputs": ["z"], "attrs": {"expr": ")" + scale + R"("}},
          {"op": "Relu", "name": "relu", "inputs": ["z"], "outputs": ["r"]},
          {"op": "Compute", "name": "back", "inputs": ["r"], "outputs": ["u"], "attrs": {"expr": ")" + back + R"("}},
          {"op": "Add", "name": "add", "inputs": ["u", "res"], "outputs": ["out"]}])");
}

/// p = x @ w, then a row sum of p: a reduction is no epilogue.
Graph matmul_rowsum(long m, long k, long n) {
  return graph_of(R"("inputs": [{"name": "x", "shape": )" + dims({m, k}) + R"(}], "weights": [{"name": "w", "shape": )" +
                      dims({k, n}) + R"(}], "outputs": ["p", "r"])",
                  R"([{"op": "MatMul", "name": "mm", "inputs": ["x", "w"], "outputs": ["p"]},
                      {"op": "ReduceSum", "name": "sum", "inputs": ["p"], "outputs": ["r"], "attrs": {"axes": [1]}}])");
}

/// Relu(Gemm(x, w, c)): the Gemm adds C in place (`Y = Y + C`).
Graph gemm_c_relu(long m, long k, long n) {
  return graph_of(R"("inputs": [{"name": "x", "shape": )" + dims({m, k}) + R"(}], "weights": [{"name": "w", "shape": )" +
                      dims({k, n}) + R"(}, {"name": "c", "shape": )" + dims({n}) + R"(}], "outputs": ["y"])",
                  R"([{"op": "Gemm", "name": "gemm", "inputs": ["x", "w", "c"], "outputs": ["p"], "attrs": {"beta": 0.5}},
                      {"op": "Relu", "name": "relu", "inputs": ["p"], "outputs": ["y"]}])");
}

/// Clip(Conv(x, w, b)) of a 1x1 conv: the Conv adds its bias in place (`Y += B(m)`).
Graph conv_bias_clip(long ci, long co, long h, long w) {
  return graph_of(R"("inputs": [{"name": "x", "shape": )" + dims({1, ci, h, w}) + R"(}], "weights": [{"name": "k", "shape": )" +
                      dims({co, ci, 1, 1}) + R"(}, {"name": "b", "shape": )" + dims({co}) + R"(}], "outputs": ["y"])",
                  R"([{"op": "Conv", "name": "conv", "inputs": ["x", "k", "b"], "outputs": ["d"]},
                      {"op": "Clip", "name": "clip", "inputs": ["d"], "outputs": ["y"], "attrs": {"min": 0.0, "max": 6.0}}])");
}

poly::CpuTarget avx512() { return polytest::avx512_target(); }

poly::CpuTileResult tile(const polytest::Scheduled &s, bool epilogue = true) {
  poly::CpuTileOptions o;
  o.target = avx512();
  o.epilogue = epilogue;
  return poly::tile_for_cpu(s.scop, s.schedule, o);
}

/// Number of top-level loop nests of a kernel's AST text (lines "  for (" at depth one).
int top_level_loops(const std::string &ast) {
  int n = 0;
  std::istringstream in(ast);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("  for (", 0) == 0) ++n;
  return n;
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("tile_companions: init, bias and activation of a MatMul run in its register tiles") {
  polytest::Scheduled s(matmul_bias_relu(48, 64, 128));
  poly::CpuTileResult r = tile(s);
  REQUIRE(r.applied);
  CHECK(r.companions == 3);  // mm's init, bias, relu
  CHECK(s.legal(r.schedule));
  std::string ast = s.ast(r.schedule);
  // One loop nest: the init, the k loop and the epilogue share the tile loops.
  CHECK(top_level_loops(ast) == 1);
  std::size_t k = ast.find("+= (x["), bias = ast.find("// bias"), relu = ast.find("// relu");
  CHECK(k != std::string::npos);
  CHECK(bias > k);
  CHECK(relu > bias);
  // The tree: the register band holds all four statements, a sequence below it.
  std::string yaml = poly::schedule_to_yaml(r.schedule);
  CHECK(yaml.find("sequence") != std::string::npos);
  // Without the option the epilogue is distributed after the contraction.
  poly::CpuTileResult plain = tile(s, false);
  CHECK(plain.companions == 0);
  CHECK(top_level_loops(s.ast(plain.schedule)) > 1);
}

TEST_CASE("tile_companions: which statements may join and at which level") {
  polytest::Scheduled s(matmul_bias_transpose(32, 16, 48));
  const poly::ScopStatement *mm = nullptr, *bias = nullptr, *tr = nullptr;
  for (const auto &st : s.scop.statements) {
    if (st.node == "mm" && !st.init) mm = &st;
    if (st.node == "bias") bias = &st;
    if (st.node == "tr") tr = &st;
  }
  REQUIRE((mm && bias && tr));
  isl::union_pw_aff rows(isl::ctx(s.ctx), "{ " + mm->name + "[i, j, k] -> [(floor(i / 8))] }");
  isl::union_pw_aff cols(isl::ctx(s.ctx), "{ " + mm->name + "[i, j, k] -> [(floor(j / 16))] }");
  poly::tiling::TileCompanions c(s.scop, *mm, {rows, cols});
  CHECK(c.same_element(*bias));
  auto tb = c.tile_of(*bias, 2);
  REQUIRE(tb);
  c.add(*bias);
  // The transpose reads q[j, i] for t[i, j]: another layout, still one tile.
  CHECK_FALSE(c.same_element(*tr));
  auto tt = c.tile_of(*tr, 2);
  REQUIRE(tt);
  CHECK(isl::union_map::from(*tt).is_equal(
      isl::union_map(isl::ctx(s.ctx), "{ " + tr->name + "[i, j] -> [floor(j / 8), floor(i / 16)] : 0 <= i < 48 and 0 <= j < 32 }")));
  CHECK_FALSE(poly::tiling::TileCompanions::pointwise(*bias, *tr));
  // A reduction over the MatMul's rows is not an epilogue.
  polytest::Scheduled s2(matmul_rowsum(16, 8, 32));
  poly::CpuTileResult r2 = tile(s2);
  REQUIRE_MESSAGE(r2.applied, r2.reason << "\n" << poly::schedule_to_yaml(s2.schedule));
  CHECK(r2.companions == 1);  // the init only
  CHECK(s2.legal(r2.schedule));
}

TEST_CASE("tile_companions: a Conv's bias and a Gemm's C, added in place, run in the tiles with the activation") {
  for (bool conv : {true, false}) {
    Graph g = conv ? conv_bias_clip(8, 24, 7, 9) : gemm_c_relu(20, 16, 48);
    polytest::Scheduled s(conv ? conv_bias_clip(8, 24, 7, 9) : gemm_c_relu(20, 16, 48));
    poly::CpuTileResult r = tile(s);
    REQUIRE(r.applied);
    CHECK(r.companions == 3);  // the init, the in-place bias or C, the activation
    CHECK(s.legal(r.schedule));
    poly::PolyOptions po;
    po.target = avx512();
    poly::ClusterResult cr = poly::compile_cluster(g, g.order(), po);
    CHECK(cr.stats["statements_in_tiles"] == 3);
    CHECK(polytest::check_against_definitions(g, cr) < 1e-5);
  }
}

TEST_CASE("tile_companions: a blocked conv's conversion back to NCHW runs per cache tile, after its register tiles") {
  polytest::Scheduled s(blocked_conv_epilogue(8, 9, 16, 2));
  poly::CpuTileResult r = tile(s);
  REQUIRE_MESSAGE(r.applied, r.reason << "\n" << poly::schedule_to_yaml(s.schedule));
  CHECK(r.companions == 5);  // init, scale, relu, conversion, residual add
  CHECK(s.legal(r.schedule));
  std::string ast = s.ast(r.schedule);
  CHECK(top_level_loops(ast) == 1);
  // scale and relu share the loops of the register tile; the conversion and
  // the Add come after the register tiles of a row.
  std::size_t relu = ast.find("// relu"), back = ast.find("// back"), add = ast.find("// add");
  REQUIRE((relu != std::string::npos && back != std::string::npos && add != std::string::npos));
  CHECK(relu < back);
  CHECK(back < add);
  poly::PolyOptions po;
  po.target = avx512();
  Graph g = blocked_conv_epilogue(8, 9, 16, 2);
  poly::ClusterResult cr = poly::compile_cluster(g, g.order(), po);
  CHECK(cr.stats["statements_in_tiles"] == 5);
  CHECK(cr.stats.count("epilogue_placements_rejected") == 0);
}

TEST_CASE("tile_companions: random tile sizes and vector widths over contractions with epilogues (JIT and C)") {
  const unsigned base_seed = 4242;
  std::vector<Graph> graphs = {matmul_bias_relu(37, 23, 45), matmul_bias_relu(6, 64, 64),  matmul_bias_transpose(19, 11, 29),
                               matmul_bias_transpose(64, 8, 16), blocked_conv_epilogue(3, 7, 13, 1),
                               blocked_conv_epilogue(5, 10, 11, 2), matmul_rowsum(13, 5, 21),
                               gemm_c_relu(17, 9, 33),             conv_bias_clip(5, 13, 6, 11)};
  std::vector<std::string> names = {"mm+bias+relu 37x23x45", "mm+bias+relu 6x64x64", "mm+bias+transpose 19x11x29",
                                    "mm+bias+transpose 64x8x16", "blocked conv 3ch 7x13", "blocked conv 5ch 10x11",
                                    "mm+rowsum 13x5x21", "gemm+C+relu 17x9x33", "conv1x1+bias+clip 5->13 6x11"};
  using polytest::Variant;
  std::vector<Variant> variants;
  int with_companions = 0;
  for (std::size_t p = 0; p < graphs.size(); ++p) {
    for (int v = 0; v < 5; ++v) {
      unsigned seed = base_seed + static_cast<unsigned>(variants.size());
      std::mt19937 rng(seed);
      std::ostringstream what;
      poly::PolyOptions po = polytest::random_cpu_options(rng, what);
      const polytest::Variant *added =
          polytest::add_variant(variants, p, seed, what.str(), names[p], "ek",
                                [&] { return poly::compile_cluster(graphs[p], graphs[p].order(), po); });
      if (added) with_companions += added->cluster.stats.count("statements_in_tiles") ? 1 : 0;
    }
  }
  CHECK(with_companions >= static_cast<int>(variants.size()) * 3 / 4);
  polytest::check_variants(variants, graphs, names);
}
}
