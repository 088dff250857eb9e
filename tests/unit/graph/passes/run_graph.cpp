// Test helpers: node construction, random feeds, graph evaluation through evaluate_node.
#include "run_graph.h"

#include "graph/passes/evaluate_node.h"

#include <cmath>
#include <limits>
#include <random>

namespace atl::test {

Node make_node(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::string name,
               nlohmann::json attrs) {
  Node n;
  n.op = std::move(op);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.name = std::move(name);
  n.attrs = std::move(attrs);
  return n;
}

std::vector<double> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(n);
  for (double &x : v) x = dist(rng);
  return v;
}

std::map<std::string, Tensor> random_feeds(const Graph &g, std::uint64_t seed) {
  std::map<std::string, Tensor> feeds;
  auto add = [&](const std::string &name) {
    const TensorDecl &d = g.tensor(name);
    if (d.data) return;
    std::uint64_t h = seed * 1099511628211ull;
    for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    Tensor t(d.type.dtype, concrete_shape(d.type.shape));
    std::vector<double> v = random_values(t.data.size(), h);
    for (std::size_t i = 0; i < v.size(); ++i) t.set(static_cast<std::int64_t>(i), v[i]);
    feeds.emplace(name, std::move(t));
  };
  for (const std::string &i : g.inputs) add(i);
  for (const std::string &w : g.weights) add(w);
  return feeds;
}

std::map<std::string, Tensor> run_graph(const Graph &g, const std::map<std::string, Tensor> &feeds) {
  std::map<std::string, Tensor> values = feeds;
  for (const std::string &w : g.weights) {
    const TensorDecl &d = g.tensor(w);
    if (!d.data) continue;
    Tensor t(d.type.dtype, concrete_shape(d.type.shape));
    t.data = *d.data;
    values[w] = std::move(t);
  }
  for (NodeId v : g.order()) {
    const Node &n = g.node(v);
    std::map<std::string, const Tensor *> in;
    for (const std::string &name : n.inputs)
      if (!name.empty()) in[name] = &values.at(name);
    std::vector<Tensor> out = evaluate_node(g, v, in);
    for (std::size_t i = 0; i < n.outputs.size(); ++i)
      if (!n.outputs[i].empty()) values[n.outputs[i]] = std::move(out[i]);
  }
  std::map<std::string, Tensor> result;
  for (const std::string &o : g.outputs) result[o] = values.at(o);
  return result;
}

double max_output_difference(const Graph &before, const Graph &after, std::uint64_t seed) {
  std::map<std::string, Tensor> feeds = random_feeds(before, seed);
  std::map<std::string, Tensor> a = run_graph(before, feeds), b = run_graph(after, feeds);
  const double inf = std::numeric_limits<double>::infinity();
  if (a.size() != b.size()) return inf;
  double worst = 0;
  for (const auto &[name, t] : a) {
    auto it = b.find(name);
    if (it == b.end() || it->second.shape != t.shape || it->second.dtype != t.dtype) return inf;
    for (std::size_t i = 0; i < t.data.size(); ++i) {
      double d = std::fabs(t.data[i] - it->second.data[i]);
      if (std::isnan(d)) return inf;
      worst = std::max(worst, d);
    }
  }
  return worst;
}

std::vector<std::string> ops_in_order(const Graph &g) {
  std::vector<std::string> ops;
  for (NodeId v : g.order()) ops.push_back(g.node(v).op);
  return ops;
}

}  // namespace atl::test
