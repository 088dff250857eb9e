// Guard versioning (transforms/ast/version_guards): which tiles get a plain
// copy and under which checks, on hand-built loop ASTs and on window
// kernels; random windows, paddings and tilings whose JIT and C code equal
// the reference (the interpreter also fails on any read out of bounds).
#include "polyhedral/transforms/ast/version_guards.h"
#include "tests/unit/polyhedral/transforms/random_variants.h"
#include "tests/unit/polyhedral/transforms/transform_test_util.h"

#include "src/frontend/batch.h"

#include <doctest/doctest.h>

#include <random>
#include <sstream>

using namespace atl;
using namespace atl::poly;

namespace {

std::string ast_of(const LKernel &k) {
  std::ostringstream os;
  print_loop_ast(os, k);
  return os.str();
}

std::size_t count(const std::string &text, const std::string &what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

using namespace atl::poly::build;
using compute::BinOp;

LExprPtr add(LExprPtr a, std::int64_t k) { return binary(BinOp::Add, std::move(a), integer(k)); }
LExprPtr mul(std::int64_t k, LExprPtr a) { return binary(BinOp::Mul, integer(k), std::move(a)); }

/// y[i] = x[i - 1] + x[i + 1] (guarded) over `n` outputs in tiles of 4: a
/// tile loop t, an unrolled loop i over 4 * t .. 4 * t + 3.
LKernel shift_sum(std::int64_t n, std::int64_t x_len, bool affine_subscripts = true) {
  LKernel k;
  k.name = "k";
  k.arrays = {{"x", DType::F32, {x_len}, LArray::Role::Input}, {"y", DType::F32, {n}, LArray::Role::Output}};
  LExprPtr i = var("i");
  LExprPtr left = affine_subscripts ? add(i, -1) : binary(BinOp::Div, i, integer(2));
  LExprPtr sum = binary(BinOp::Add, guarded_load(load("x", {left}), real(0)), guarded_load(load("x", {add(i, 1)}), real(0)));
  LStmtPtr point = loop("i", mul(4, var("t")), binary(BinOp::Le, i, add(mul(4, var("t")), 3)), 1,
                        block({store("y", {i}, sum)}), {mark::kUnroll});
  k.body = block({loop("t", integer(0), binary(BinOp::Le, var("t"), integer(n / 4 - 1)), 1, block({point}))});
  return k;
}

std::map<std::string, Tensor> shift_sum_arrays(std::int64_t n, std::int64_t x_len) {
  std::map<std::string, Tensor> a;
  a["x"] = Tensor(DType::F32, {x_len});
  for (std::int64_t j = 0; j < x_len; ++j) a["x"].data[static_cast<std::size_t>(j)] = static_cast<double>(j + 1);
  a["y"] = Tensor(DType::F32, {n});
  return a;
}

Graph graph_of(const std::string &io_json, const std::string &nodes_json) { return polytest::graph_json(nodes_json, io_json); }

std::string dims(std::initializer_list<long> d) {
  std::string s;
  for (long v : d) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return "[" + s + "]";
}

/// A depthwise 3x3 Conv (`c` channels, h x w, pads `pad`, stride `stride`), optionally with a bias, then Clip(0, 6).
Graph depthwise(long c, long h, long w, long pad, long stride, bool bias) {
  std::string attrs = R"({"group": )" + std::to_string(c) + R"(, "kernel_shape": [3, 3], "pads": )" +
                      dims({pad, pad, pad, pad}) + R"(, "strides": )" + dims({stride, stride}) + "}";
  std::string inputs = bias ? R"(["x", "k", "b"])" : R"(["x", "k"])";
  return graph_of(R"("inputs": [{"name": "x", "shape": )" + dims({1, c, h, w}) + R"(}], "weights": [{"name": "k", "shape": )" +
                      dims({c, 1, 3, 3}) + R"(}, {"name": "b", "shape": )" + dims({c}) + R"(}], "outputs": ["y"])",
                  R"([{"op": "Conv", "name": "dw", "inputs": )" + inputs + R"(, "outputs": ["d"], "attrs": )" + attrs + R"(},
                      {"op": "Clip", "name": "clip", "inputs": ["d"], "outputs": ["y"], "attrs": {"min": 0.0, "max": 6.0}}])");
}

/// MaxPool 3x3, stride 2, pads 1 (the guard's fallback is -inf).
Graph max_pool(long c, long h, long w) {
  return graph_of(R"("inputs": [{"name": "x", "shape": )" + dims({1, c, h, w}) + R"(}], "outputs": ["y"])",
                  R"([{"op": "MaxPool", "name": "pool", "inputs": ["x"], "outputs": ["y"],
                       "attrs": {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}}])");
}

/// A 3x3 Conv of `ci` -> `co` channels with pads 1 and a bias, then Relu.
Graph conv_bias_relu(long ci, long co, long h, long w) {
  return graph_of(R"("inputs": [{"name": "x", "shape": )" + dims({1, ci, h, w}) + R"(}], "weights": [{"name": "k", "shape": )" +
                      dims({co, ci, 3, 3}) + R"(}, {"name": "b", "shape": )" + dims({co}) + R"(}], "outputs": ["y"])",
                  R"([{"op": "Conv", "name": "conv", "inputs": ["x", "k", "b"], "outputs": ["d"],
                       "attrs": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
                      {"op": "Relu", "name": "relu", "inputs": ["d"], "outputs": ["y"]}])");
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("version_guards: a tile whose reads may leave the array runs a plain copy under run-time checks") {
  // 16 outputs read x[-1 .. 16] of a 16-element x: tile t reads
  // x[4t - 1 .. 4t + 4], in bounds for 1 <= t <= 2.
  LKernel k = shift_sum(16, 16);
  VersionGuardsResult r = version_guards(k);
  CHECK(r.tiles == 1);
  CHECK(r.loads == 2);
  std::string ast = ast_of(k);
  INFO(ast);
  // Three copies: both checks (no guard), only t >= 1 (x[i + 1] guarded:
  // the last tile), neither (both guarded).
  CHECK(count(ast, "if (") == 2);
  CHECK(ast.find("(4 * t) >= 1") != std::string::npos);
  CHECK(ast.find("(-4 * t) >= -11") != std::string::npos);  // 4t + 4 <= 15
  CHECK(count(ast, "guard(") == 3);
  auto arrays = shift_sum_arrays(16, 16);
  testing::interpret(k, arrays);
  for (std::int64_t i = 0; i < 16; ++i) {
    double want = (i >= 1 ? i : 0.0) + (i + 2 <= 16 ? i + 2.0 : 0.0);  // x[j] = j + 1
    CHECK(arrays["y"].data[static_cast<std::size_t>(i)] == want);
  }
}

TEST_CASE("version_guards: checks that always hold are dropped, and a tile always in bounds loses its guards") {
  // x has 18 elements, so x[i + 1] <= x[16] is always in bounds; x[i - 1] still needs t >= 1.
  LKernel k = shift_sum(16, 18);
  CHECK(version_guards(k).tiles == 1);
  std::string ast = ast_of(k);
  CHECK(ast.find("(4 * t) >= 1") != std::string::npos);
  CHECK(ast.find(">= -") == std::string::npos);
  // Only 8 outputs of a 40-element x read from t = 0: x[-1] still out of bounds at t = 0.
  LKernel part = shift_sum(8, 40);
  version_guards(part);
  CHECK(count(ast_of(part), "if (") == 1);
}

TEST_CASE("version_guards: a read with a subscript that is not affine keeps its guard in both copies") {
  LKernel k = shift_sum(16, 16, false);  // x[i / 2] and x[i + 1]
  VersionGuardsResult r = version_guards(k);
  CHECK(r.tiles == 1);
  CHECK(r.loads == 1);
  std::string ast = ast_of(k);
  CHECK(count(ast, "guard(") == 3);  // x[i / 2] in both copies, x[i + 1] in the guarded one
  auto arrays = shift_sum_arrays(16, 16);
  testing::interpret(k, arrays);
  CHECK(arrays["y"].data[15] == 8.0);  // x[7] + 0
}

TEST_CASE("version_guards: a depthwise conv's interior tiles read without guards, its edges with them") {
  Graph g = depthwise(3, 30, 40, 1, 1, true);
  PolyOptions o;
  o.target = polytest::avx2_target();
  ClusterResult r = polytest::compile(g, o);
  CHECK(r.stats["tiles_versioned"] >= 1);
  CHECK(r.stats["reads_unguarded"] >= 1);
  std::string ast = ast_of(r.kernel);
  INFO(ast);
  CHECK(ast.find("if ((") != std::string::npos);
  std::size_t plain = ast.find("+= (x["), guarded = ast.find("+= (guard(x[");
  CHECK(plain != std::string::npos);
  CHECK(guarded != std::string::npos);
  CHECK(polytest::check_against_definitions(g, r) < 1e-5);
  // The bias and the Clip run in the tiles, in every copy.
  CHECK(r.stats["statements_in_tiles"] >= 2);
  CHECK(count(ast, "// dw_1") >= 2);
  o.version_guards = false;
  ClusterResult off = polytest::compile(g, o);
  CHECK(off.stats.count("tiles_versioned") == 0);
  CHECK(ast_of(off.kernel).find("+= (x[") == std::string::npos);
}

TEST_CASE("version_guards: random windows, paddings and tilings equal the reference (JIT and C)") {
  std::vector<Graph> graphs = {depthwise(3, 13, 21, 1, 1, false), depthwise(2, 30, 40, 1, 1, true),
                               depthwise(4, 17, 9, 1, 2, true),   depthwise(2, 5, 37, 2, 1, false),
                               max_pool(3, 19, 23),               conv_bias_relu(3, 5, 11, 14)};
  std::vector<std::string> names = {"depthwise 3ch 13x21", "depthwise+bias 2ch 30x40", "depthwise s2+bias 4ch 17x9",
                                    "depthwise pad 2 2ch 5x37", "maxpool s2 3ch 19x23", "conv+bias+relu 3->5 11x14"};
  using polytest::Variant;
  std::vector<Variant> variants;
  int versioned = 0;
  for (std::size_t p = 0; p < graphs.size(); ++p) {
    for (int v = 0; v < 5; ++v) {
      unsigned seed = 5150 + static_cast<unsigned>(variants.size());
      std::mt19937 rng(seed);
      std::ostringstream what;
      PolyOptions po = polytest::random_cpu_options(rng, what);
      const Variant *added = polytest::add_variant(variants, p, seed, what.str(), names[p], "vg",
                                                   [&] { return compile_cluster(graphs[p], graphs[p].order(), po); });
      if (added) {
        versioned += added->cluster.stats.count("tiles_versioned") ? 1 : 0;
        CHECK_MESSAGE(polytest::check_against_definitions(graphs[p], added->cluster) < 1e-5,
                      names[p] << " seed " << seed << " " << what.str());
      }
    }
  }
  CHECK(versioned >= static_cast<int>(variants.size()) / 3);
  polytest::check_variants(variants, graphs, names);
}
}
