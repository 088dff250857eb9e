// Softmax, LayerNormalization, ReduceSum and ReduceMax through the whole compiler at odd row lengths, against the reference.
#include "src/pipeline/pipeline.h"

#include "backends/cpu/cpu_backend.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"

#include <doctest/doctest.h>

#include <cmath>

namespace atl {
namespace {

/// One operator over x[rows, n] (LayerNormalization also takes scale and bias [n]).
Graph row_graph(const std::string &op, std::int64_t rows, std::int64_t n, nlohmann::json attrs) {
  Graph g;
  g.name = "g_" + std::to_string(n);
  g.add_input("x", {DType::F32, {rows, n}});
  std::vector<std::string> in{"x"};
  if (op == "LayerNormalization") {
    g.add_input("scale", {DType::F32, {n}});
    g.add_input("bias", {DType::F32, {n}});
    in = {"x", "scale", "bias"};
  }
  Node node;
  node.op = op;
  node.name = "op";
  node.inputs = in;
  node.outputs = {"y"};
  node.attrs = std::move(attrs);
  g.add_node(std::move(node));
  g.add_output("y");
  g.finalize();
  return g;
}

/// Largest |got - ref| over the largest |ref| (a normwise relative error).
double relative_error(const Tensor &got, const Tensor &ref) {
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < ref.data.size(); ++i) {
    err = std::max(err, std::abs(got.data[i] - ref.data[i]));
    scale = std::max(scale, std::abs(ref.data[i]));
  }
  return scale > 0 ? err / scale : err;
}

/// Number of <16 x float> phis (partial accumulators) in the kernels' IR.
std::size_t vector_phis(const CompiledGraph &cg) {
  std::vector<poly::LKernel> ks;
  for (const auto &c : cg.clusters) ks.push_back(c.kernel);
  std::string ir = cpu::emit_llvm_ir(ks);
  std::size_t n = 0;
  for (std::size_t p = ir.find("= phi "); p != std::string::npos; p = ir.find("= phi ", p + 1)) {
    std::size_t eol = ir.find('\n', p);
    if (ir.substr(p, eol - p).find("x float> [") != std::string::npos) ++n;
  }
  return n;
}

TEST_SUITE("backends") {

TEST_CASE("cpu vector reductions: Softmax, LayerNormalization, ReduceSum and ReduceMax at odd row lengths match the reference") {
  struct OpCase {
    const char *op;
    nlohmann::json attrs;
  };
  std::vector<OpCase> ops = {{"Softmax", {{"axis", -1}}},
                             {"LayerNormalization", {{"axis", -1}, {"epsilon", 1e-5}}},
                             {"ReduceSum", {{"axes", {-1}}, {"keepdims", 1}}},
                             {"ReduceMax", {{"axes", {-1}}, {"keepdims", 0}}}};
  for (const OpCase &oc : ops)
    for (std::int64_t n : {1, 15, 17, 33, 1000}) {
      const std::int64_t rows = 3;
      INFO(oc.op << " rows of " << n);
      Graph g = row_graph(oc.op, rows, n, oc.attrs);
      CompiledGraph cg = compile_graph(g, CompileOptions{});
      std::map<std::string, Tensor> feeds = make_graph_inputs(g);
      for (auto &[name, t] : feeds)
        for (double &v : t.data) v = round_to(DType::F32, 4 * v);  // [-4, 4): exp's range matters
      std::map<std::string, Tensor> got = run_compiled(cg, g, feeds, {});
      std::map<std::string, Tensor> ref = run_reference(g, feeds);
      REQUIRE(got.count("y"));
      CHECK(relative_error(got.at("y"), ref.at("y")) <= 1e-5);
      // Rows long enough for a vector chunk keep partial vector accumulators.
      if (n >= 17) CHECK(vector_phis(cg) > 0);
    }
}
}

}  // namespace
}  // namespace atl
