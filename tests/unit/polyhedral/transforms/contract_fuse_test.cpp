// Tests of fuse_sibling_bands and contract_arrays: what they change in the
// schedule and the loop AST, and that the kernels still compute the graphs'
// definitions (the interpreter refills local arrays with NaN every iteration
// of their loop, so a value carried across iterations shows).
#include "../poly_test_util.h"

#include "polyhedral/deps/dependences.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/schedule.h"
#include "polyhedral/transforms/ast/contract_arrays.h"
#include "polyhedral/transforms/schedule/fuse_sibling_bands.h"

#include "src/frontend/batch.h"

#include <sstream>

using namespace atl;
using namespace atl::poly;

namespace {

Graph bias_gelu(int rows, int cols) {
  std::string io = R"("inputs": [{"name": "x", "shape": [)" + std::to_string(rows) + ", " + std::to_string(cols) +
                   R"(]}, {"name": "b", "shape": [)" + std::to_string(cols) + R"(]}], "outputs": ["g"])";
  return polytest::graph_json(R"([{"op": "Add", "name": "bias", "inputs": ["x", "b"], "outputs": ["f"]},
                      {"op": "Gelu", "name": "gelu", "inputs": ["f"], "outputs": ["g"]}])",
                  io);
}

Graph scale_softmax(int a, int b, int c) {
  std::string shape = std::to_string(a) + ", " + std::to_string(b) + ", " + std::to_string(c);
  std::string io = R"("inputs": [{"name": "x", "shape": [)" + shape + R"(]}, {"name": "s", "shape": [1]}], "outputs": ["p"])";
  return polytest::graph_json(R"([{"op": "Mul", "name": "scale", "inputs": ["x", "s"], "outputs": ["xs"]},
                      {"op": "Softmax", "name": "sm", "inputs": ["xs"], "outputs": ["p"], "attrs": {"axis": -1}}])",
                  io);
}

Graph add_layernorm(int rows, int cols) {
  std::string io = R"("inputs": [{"name": "x", "shape": [)" + std::to_string(rows) + ", " + std::to_string(cols) +
                   R"(]}, {"name": "r", "shape": [)" + std::to_string(rows) + ", " + std::to_string(cols) +
                   R"(]}, {"name": "gm", "shape": [)" + std::to_string(cols) + R"(]}, {"name": "bt", "shape": [)" +
                   std::to_string(cols) + R"(]}], "outputs": ["y"])";
  return polytest::graph_json(R"([{"op": "Add", "name": "res", "inputs": ["x", "r"], "outputs": ["h"]},
                      {"op": "LayerNormalization", "name": "ln", "inputs": ["h", "gm", "bt"], "outputs": ["y"],
                       "attrs": {"axis": -1}}])",
                  io);
}

std::string ast_text(const ClusterResult &r) {
  std::ostringstream os;
  print_loop_ast(os, r.kernel);
  return os.str();
}

bool has_array(const std::vector<LArray> &arrays, const std::string &name) {
  for (const LArray &a : arrays)
    if (a.name == name) return true;
  return false;
}

const LArray *local(const ClusterResult &r, const std::string &name) {
  for (const LArray &a : r.kernel.locals)
    if (a.name == name) return &a;
  return nullptr;
}

/// Options that keep the temporaries these tests are about: no producer
/// is recomputed in its readers (transforms/scop/inline_producers).
PolyOptions kept() {
  PolyOptions o;
  o.inline_producers = false;
  return o;
}

/// Contraction alone: reuse_temporaries (which runs first and would give
/// these temporaries their reader's storage) off.
PolyOptions contract_only() {
  PolyOptions o = kept();
  o.reuse_temporaries = false;
  return o;
}

}  // namespace

TEST_SUITE("polyhedral") {

TEST_CASE("contract_arrays turns a fused elementwise temporary into one row per parallel iteration") {
  Graph g = bias_gelu(6, 37);
  ClusterResult r = polytest::compile(g, contract_only());
  const LArray *f = local(r, r.array_of_tensor.at("f"));
  REQUIRE(f != nullptr);
  CHECK(!has_array(r.kernel.arrays, f->name));
  CHECK(f->role == LArray::Role::Local);
  CHECK(f->shape == SymShape{1, 37});  // the vector loop's dimension stays
  CHECK(r.stats.at("arrays_contracted") == 1);
  CHECK(r.stats.at("contracted_bytes_saved") == (6 * 37 - 37) * 4);
  CHECK(ast_text(r).find("local " + f->name + ";") != std::string::npos);
  CHECK(polytest::check_against_definitions(g, r) < 1e-6);
}

TEST_CASE("a temporary read by a Pad's guarded load is not contracted") {
  // Relu -> Pad along the rows: the padded rows' guard tests the temporary's
  // extents, which a one-row local buffer would always pass.
  Graph g = polytest::graph_json(
      R"([{"op": "Relu", "name": "act", "inputs": ["x"], "outputs": ["r"]},
          {"op": "Pad", "name": "pad", "inputs": ["r"], "outputs": ["y"],
           "attrs": {"pads": [0, 0, 2, 0, 0, 0, 1, 0]}}])",
      R"("inputs": [{"name": "x", "shape": [2, 3, 5, 6]}], "outputs": ["y"])");
  ClusterResult r = polytest::compile(g, contract_only());
  CHECK(local(r, r.array_of_tensor.at("r")) == nullptr);
  CHECK(has_array(r.kernel.arrays, r.array_of_tensor.at("r")));
  CHECK(polytest::check_against_definitions(g, r) < 1e-6);
}

TEST_CASE("without vectorization the temporary of an elementwise chain becomes a scalar") {
  Graph g = bias_gelu(5, 9);
  PolyOptions o = contract_only();
  o.vectorize = false;
  ClusterResult r = polytest::compile(g, o);
  const LArray *f = local(r, r.array_of_tensor.at("f"));
  REQUIRE(f != nullptr);
  CHECK(f->shape == SymShape{1, 1});
  CHECK(polytest::check_against_definitions(g, r) < 1e-6);
}

TEST_CASE("contraction is an option, and a graph output is never contracted") {
  Graph g = bias_gelu(4, 8);
  PolyOptions o = kept();
  o.contract = false;
  o.reuse_temporaries = false;
  ClusterResult r = polytest::compile(g, o);
  CHECK(r.kernel.locals.empty());
  CHECK(r.stats.count("arrays_contracted") == 0);
  CHECK(has_array(r.kernel.arrays, r.array_of_tensor.at("f")));
  ClusterResult c = polytest::compile(g, kept());
  CHECK(has_array(c.kernel.arrays, c.array_of_tensor.at("g")));
}

TEST_CASE("a residual Add feeding LayerNormalization keeps one row and scalar statistics") {
  for (auto [rows, cols] : {std::pair{3, 17}, std::pair{8, 64}, std::pair{2, 5}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    Graph g = add_layernorm(rows, cols);
    ClusterResult r = polytest::compile(g, kept());
    const LArray *h = local(r, r.array_of_tensor.at("h"));
    REQUIRE(h != nullptr);
    CHECK(h->shape == SymShape{1, cols});
    CHECK(r.kernel.arrays.size() == 5);  // x, r, gm, bt, y: the statistics are local too
    CHECK(polytest::check_against_definitions(g, r) < 1e-5);
  }
}

TEST_CASE("a temporary with a symbolic batch dimension contracts to a constant row") {
  Batch b = read_batch(R"({"atoll": 1, "graphs": [{"name": "g", "params": {"N": {"min": 1, "max": 16}},
    "inputs": [{"name": "x", "shape": ["N", 24]}, {"name": "b", "shape": [24]}], "outputs": ["y"],
    "nodes": [{"op": "Add", "name": "bias", "inputs": ["x", "b"], "outputs": ["h"]},
              {"op": "Relu", "name": "relu", "inputs": ["h"], "outputs": ["y"]}]}]})");
  REQUIRE(b.graphs[0].graph.has_value());
  const Graph &g = *b.graphs[0].graph;
  ClusterResult r = polytest::compile(g, contract_only());
  const LArray *h = local(r, r.array_of_tensor.at("h"));
  REQUIRE(h != nullptr);
  CHECK(h->shape == SymShape{1, 24});
  for (std::int64_t n : {1, 5, 16}) {
    CAPTURE(n);
    auto in = polytest::feeds(g, 3, {{"N", n}});
    std::map<std::string, Tensor> arrays;
    for (const auto &[tensor, array] : r.array_of_tensor)
      if (in.count(tensor)) arrays[array] = in.at(tensor);
    arrays.emplace("y", Tensor(DType::F32, {n, 24}));
    testing::interpret(r.kernel, arrays, {{"N", n}});
    const Tensor &y = arrays.at(r.array_of_tensor.at("y"));
    for (std::int64_t i = 0; i < n * 24; ++i)
      CHECK(y.data[static_cast<std::size_t>(i)] ==
            std::max(0.0, static_cast<double>(static_cast<float>(in.at("x").data[static_cast<std::size_t>(i)] +
                                                                 in.at("b").data[static_cast<std::size_t>(i % 24)]))));
  }
}

TEST_CASE("fuse_sibling_bands fuses Softmax's phases on the row loops, and the row temporaries contract") {
  Graph g = scale_softmax(3, 5, 19);
  IslContext ctx;
  Scop scop = build_scop(ctx, g, g.order());
  Dependences deps = compute_dependences(scop, DepOptions{});
  ScheduleResult s = schedule_isl(scop, deps, ScheduleOptions{});
  FuseBandsResult f = fuse_sibling_bands(scop, deps, s.schedule);
  CHECK(!check_legality(scop, deps, f.schedule));
  if (s.schedule.root().child(0).isa<isl::schedule_node_sequence>()) CHECK(f.fusions >= 1);
  CHECK(!f.schedule.root().child(0).isa<isl::schedule_node_sequence>());  // one outer band now

  ClusterResult r = polytest::compile(g, kept());
  CHECK(r.kernel.arrays.size() == 3);  // x, s, p
  const LArray *xs = local(r, r.array_of_tensor.at("xs"));
  REQUIRE(xs != nullptr);
  CHECK(xs->shape == SymShape{1, 1, 19});
  CHECK(polytest::check_against_definitions(g, r) < 1e-6);
}

TEST_CASE("fuse_sibling_bands leaves independent nests and single bands alone") {
  // Two outputs computed from the input only: no data passes between the nests.
  Graph g = polytest::graph_json(R"([{"op": "Relu", "name": "a", "inputs": ["x"], "outputs": ["y"]},
                         {"op": "Neg", "name": "b", "inputs": ["x"], "outputs": ["z"]}])",
                     R"("inputs": [{"name": "x", "shape": [4, 6]}], "outputs": ["y", "z"])");
  IslContext ctx;
  Scop scop = build_scop(ctx, g, g.order());
  Dependences deps = compute_dependences(scop, DepOptions{});
  isl::schedule original = scop.original_schedule();
  FuseBandsResult f = fuse_sibling_bands(scop, deps, original);
  CHECK(f.fusions == 0);
  CHECK(schedule_to_yaml(f.schedule) == schedule_to_yaml(original));
}

TEST_CASE("contract_arrays refuses a temporary read in a later iteration of its loop") {
  // t[i] = x[i]; y[i] = t[i - 1]: the value crosses iterations of the loop.
  LKernel k;
  k.name = "k";
  k.arrays = {LArray{"x", DType::F32, {8}, LArray::Role::Input}, LArray{"y", DType::F32, {8}, LArray::Role::Output},
              LArray{"t", DType::F32, {8}, LArray::Role::Temporary}};
  using namespace build;
  auto i = var("i");
  auto body = block({store("t", {i}, load("x", {i})),
                     branch(binary(compute::BinOp::Ge, i, integer(1)),
                            block({store("y", {i}, load("t", {binary(compute::BinOp::Sub, i, integer(1))}))}))});
  k.body = block({loop("i", integer(0), binary(compute::BinOp::Lt, i, integer(8)), 1, body)});
  ContractResult r = contract_arrays(k);
  CHECK(r.arrays.empty());
  CHECK(k.locals.empty());
  CHECK(k.arrays.size() == 3);
}

TEST_CASE("contract_arrays refuses a temporary shared by the iterations of a parallel loop outside its chain") {
  // parallel for j { t[0] = x[j]; y[j] = t[0] }: t is not indexed by j.
  LKernel k;
  k.name = "k";
  k.arrays = {LArray{"x", DType::F32, {8}, LArray::Role::Input}, LArray{"y", DType::F32, {8}, LArray::Role::Output},
              LArray{"t", DType::F32, {2}, LArray::Role::Temporary}};
  using namespace build;
  auto j = var("j");
  auto body = block({store("t", {integer(0)}, load("x", {j})), store("y", {j}, load("t", {integer(0)}))});
  k.body = block({loop("j", integer(0), binary(compute::BinOp::Lt, j, integer(8)), 1, body, {mark::kParallel})});
  CHECK(contract_arrays(k).arrays.empty());
}

TEST_CASE("contract_arrays keeps buffers within the size limit") {
  Graph g = bias_gelu(4, 3000);
  IslContext ctx;
  ClusterResult r = polytest::compile(g, contract_only());
  REQUIRE(local(r, r.array_of_tensor.at("f")) != nullptr);  // 12 KB row
  LKernel k = polytest::compile(g, [] { PolyOptions o = contract_only(); o.contract = false; return o; }()).kernel;
  ContractOptions small;
  small.max_bytes = 1024;
  CHECK(contract_arrays(k, small).arrays.empty());
}

}  // TEST_SUITE
