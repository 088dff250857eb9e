// Helpers of the polyhedral tests: one-node graphs from the registry,
// compiling their cluster, and running the kernel with the interpreter
// against the registry's definitions (compute::evaluate).
#pragma once

#include "loop_ast_interpreter.h"

#include "polyhedral/compile_cluster.h"

#include "src/frontend/batch.h"
#include "graph/ir/graph.h"
#include "src/pipeline/pipeline.h"
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace polytest {

using atl::Dim;
using atl::DType;
using atl::TensorType;
using json = nlohmann::json;

/// The one graph "g" of a batch text: `io_json` holds its "inputs", "weights"
/// and "outputs" members, `nodes_json` its node array.
inline atl::Graph graph_json(const std::string &nodes_json, const std::string &io_json) {
  std::string text = R"({"atoll": 1, "graphs": [{"name": "g", )" + io_json + R"(, "nodes": )" + nodes_json + "}]}";
  atl::Batch b = atl::read_batch(text);
  REQUIRE(b.graphs.size() == 1);
  REQUIRE_MESSAGE(b.graphs[0].graph.has_value(), (b.graphs[0].error ? b.graphs[0].error->what() : ""));
  return *b.graphs[0].graph;
}

struct In {
  std::string name;
  atl::SymShape shape;
  DType dtype = DType::F32;
  std::optional<std::vector<double>> data = std::nullopt;  ///< makes it a constant weight
};

/// A finalized graph of one node `op` reading `ins` and writing `nout` outputs y0, y1...
inline atl::Graph one_node(const std::string &op, const std::vector<In> &ins, json attrs = json::object(), int nout = 1,
                           std::map<std::string, atl::ParamRange> params = {}) {
  atl::Graph g;
  g.name = "g";
  g.params = std::move(params);
  atl::Node n;
  n.op = op;
  n.name = "n0";
  n.attrs = std::move(attrs);
  for (const auto &i : ins) {
    if (i.data) g.add_weight(i.name, TensorType{i.dtype, i.shape}, {}, i.data);
    else g.add_input(i.name, TensorType{i.dtype, i.shape});
    n.inputs.push_back(i.name);
  }
  for (int k = 0; k < nout; ++k) {
    n.outputs.push_back("y" + std::to_string(k));
    g.add_output("y" + std::to_string(k));
  }
  g.add_node(n);
  g.finalize();
  return g;
}

inline std::vector<atl::NodeId> all_nodes(const atl::Graph &g) { return g.order(); }

inline atl::poly::ClusterResult compile(const atl::Graph &g, atl::poly::PolyOptions o = {}) {
  return atl::poly::compile_cluster(g, all_nodes(g), o);
}

/// Random feeds for the graph's inputs (weights with data use their data).
inline std::map<std::string, atl::Tensor> feeds(const atl::Graph &g, unsigned seed,
                                                const std::map<std::string, std::int64_t> &values = {}) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::map<std::string, atl::Tensor> f;
  auto make = [&](const std::string &name) {
    const atl::TensorDecl &d = g.tensor(name);
    atl::Shape s;
    for (const Dim &x : d.type.shape) s.push_back(x.is_symbolic() ? values.at(x.symbol) : x.value);
    atl::Tensor t(d.type.dtype, s);
    for (std::int64_t k = 0; k < t.numel(); ++k)
      t.set(k, d.data ? (*d.data)[static_cast<std::size_t>(k)] : (atl::is_float(d.type.dtype) ? u(rng) : std::floor(u(rng) * 5)));
    f[name] = t;
  };
  for (const auto &n : g.inputs) make(n);
  for (const auto &n : g.weights) make(n);
  return f;
}

/// Runs the compiled kernel with the interpreter and compares every graph
/// output with run_definitions (the Compute evaluator). Returns the largest
/// relative error.
inline double check_against_definitions(const atl::Graph &g, const atl::poly::ClusterResult &r, unsigned seed = 1) {
  auto in = feeds(g, seed);
  auto want = atl::run_definitions(g, in);
  std::map<std::string, atl::Tensor> arrays;
  for (const auto &[tensor, array] : r.array_of_tensor)
    if (in.count(tensor)) arrays[array] = in.at(tensor);
  atl::poly::testing::interpret(r.kernel, arrays);
  double worst = 0;
  for (const auto &out : g.outputs) {
    const atl::Tensor &w = want.at(out);
    const atl::Tensor &got = arrays.at(r.array_of_tensor.at(out));
    REQUIRE(got.data.size() == w.data.size());
    for (std::size_t k = 0; k < w.data.size(); ++k) {
      double a = got.data[k], b = w.data[k];
      if (std::isinf(a) && a == b) continue;
      double err = std::fabs(a - b) / std::max(1.0, std::fabs(b));
      if (std::isnan(a) != std::isnan(b)) err = 1;
      worst = std::max(worst, err);
    }
  }
  return worst;
}

}  // namespace polytest
