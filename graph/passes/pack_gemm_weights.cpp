// Lays the weight operand of a MatMul out in column panels [N/P, K, P], written once by a weight-phase kernel.
#include "graph/passes/pack_gemm_weights.h"

#include "graph/passes/rebuild_graph.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace atl {

namespace {

std::string num(std::int64_t v) { return std::to_string(v); }

}  // namespace

Graph pack_gemm_weights(const Graph &graph, PassStats *stats, int panel) {
  PassStats local;
  if (panel <= 1) return graph;
  std::vector<Node> nodes = nodes_in_order(graph);
  std::set<std::string> names, taken;
  for (const Node &n : nodes) names.insert(n.name);
  auto fresh_node = [&](const std::string &base) {
    std::string name = base;
    for (int k = 1; names.count(name); ++k) name = base + "_" + num(k);
    names.insert(name);
    return name;
  };
  // Tensors computed from weights alone (memoised): constant across calls.
  std::map<std::string, bool> memo;
  std::function<bool(const std::string &)> from_weights = [&](const std::string &t) -> bool {
    if (auto it = memo.find(t); it != memo.end()) return it->second;
    bool r = false;
    if (graph.has_tensor(t) && graph.tensor(t).role == TensorRole::Weight) {
      r = true;
    } else if (auto p = graph.producer(t)) {
      const Node &n = graph.node(*p);
      r = !n.inputs.empty();
      for (const std::string &i : n.inputs) r = r && (i.empty() || from_weights(i));
    }
    return memo[t] = r;
  };
  std::map<std::string, std::string> packed;  // weight -> its panels
  std::vector<Node> out;
  for (Node &node : nodes) {
    auto refuse = [&](const std::string &why) {
      local.count("not packed: " + why, 1, false);
      out.push_back(node);
    };
    const bool gemm = node.op == "Gemm";
    if ((node.op != "MatMul" && !gemm) || node.inputs.size() < 2 || node.outputs.size() != 1) {
      out.push_back(node);
      continue;
    }
    const std::string &a = node.inputs[0], &w = node.inputs[1], &y = node.outputs[0];
    const std::string c = gemm && node.inputs.size() > 2 ? node.inputs[2] : "";
    const TensorType &ta = graph.tensor(a).type, &tw = graph.tensor(w).type;
    const bool trans_a = gemm && number_attr(node, "transA", 0) != 0, trans_b = gemm && number_attr(node, "transB", 0) != 0;
    const double alpha = gemm ? number_attr(node, "alpha", 1) : 1, beta = gemm ? number_attr(node, "beta", 1) : 1;
    if (!from_weights(w)) {
      out.push_back(node);  // an activation product (attention): nothing to prepack
      continue;
    }
    if (tw.dtype != DType::F32 || ta.dtype != DType::F32) { refuse("not f32"); continue; }
    if (tw.rank() != 2) { refuse("weight not a matrix"); continue; }
    if (ta.rank() < 2) { refuse("left operand is a vector"); continue; }
    if (tw.shape[0].is_symbolic() || tw.shape[1].is_symbolic()) { refuse("symbolic weight shape"); continue; }
    const std::int64_t k = tw.shape[trans_b ? 1 : 0].value, n = tw.shape[trans_b ? 0 : 1].value;
    // Columns that are not whole panels: the last panel is zero-padded (the
    // product reads only the columns below N). Panels make W one stream a
    // register tile; in its own layout W is read across rows at N's stride
    // (gathered under transB), and square products with N off the panel
    // (1000, 1023) ran measurably slower than their packed neighbours.
    if (n <= panel) { refuse("columns not more than one panel"); continue; }
    if (!compute_identifier(a) || !compute_identifier(w) || !compute_identifier(y) ||
        (!c.empty() && !compute_identifier(c))) {
      refuse("a tensor name is not a Compute identifier");
      continue;
    }
    // A `tile` hint whose column tiles are not whole panels would read the
    // panels across their boundaries (floor and mod in every access).
    if (auto t = graph.schedule.tile.find(node.name); t != graph.schedule.tile.end()) {
      const std::size_t columns = static_cast<std::size_t>(std::max(ta.rank(), 2)) - 1;  // domain: batch.., m, n, k
      if (columns < t->second.size() && t->second[columns] % panel != 0) {
        refuse("a tile hint splits the panels");
        continue;
      }
    }
    const std::string P = num(panel);
    auto [it, fresh] = packed.try_emplace(w + (trans_b ? "^T" : ""));
    if (fresh) {
      it->second = fresh_tensor_name(graph, w + (trans_b ? "_t" : "") + "_panels", taken);
      Node p;
      p.op = "Compute";
      p.name = fresh_node(w + "_pack");
      p.inputs = {w};
      p.outputs = {it->second};
      const std::string col = P + " * p_ + l_";
      std::string read = w + (trans_b ? "(" + col + ", k_)" : "(k_, " + col + ")");
      if (n % panel != 0) read = "guard(" + read + ", 0)";  // the last panel's columns past N are 0
      p.attrs = {{"expr", it->second + "(p_, k_, l_) = " + read + " where p_ in 0:" + num((n + panel - 1) / panel) +
                              ", k_ in 0:" + num(k) + ", l_ in 0:" + P}};
      p.pointer = node.pointer;
      out.push_back(p);
      local.count("weights packed");
    }
    std::string batch;
    for (int d = 0; d + 2 < ta.rank(); ++d) batch += "b" + num(d) + "_, ";
    // Gemm's alpha, beta and C: an elementwise epilogue of its own (fusion puts it back in the kernel).
    const bool epilogue = alpha != 1.0 || !c.empty();
    const std::string product = epilogue ? fresh_tensor_name(graph, y + "_mm", taken) : y;
    Node mm = node;
    mm.op = "Compute";
    mm.inputs = {a, it->second};
    mm.outputs = {product};
    mm.attrs = {{"expr", product + "(" + batch + "m_, n_) +=! " + a + "(" + batch + (trans_a ? "k_, m_" : "m_, k_") +
                             ") * " + it->second + "(floor(n_ / " + P + "), k_, n_ % " + P + ") where n_ in 0:" + num(n)}};
    out.push_back(mm);
    if (epilogue) {
      auto real = [](double v) {
        std::ostringstream os;
        os.precision(17);
        os << v;
        std::string t = os.str();
        return t.find_first_of(".eE") == std::string::npos ? t + ".0" : t;
      };
      std::string e = (alpha != 1.0 ? real(alpha) + " * " : "") + product + "(m_, n_)";
      if (!c.empty()) {
        // C broadcasts to [M, N] (ONNX unidirectional broadcasting): aligned on the right.
        const TensorType &tc = graph.tensor(c).type;
        std::string subs;
        for (int d = 0; d < tc.rank(); ++d) {
          const int from_right = tc.rank() - d;
          const bool one = !tc.shape[d].is_symbolic() && tc.shape[d].value == 1;
          subs += std::string(d ? ", " : "") + (one || from_right > 2 ? "0" : from_right == 2 ? "m_" : "n_");
        }
        e += " + " + (beta != 1.0 ? real(beta) + " * " : "") + c + (tc.rank() ? "(" + subs + ")" : "");
      }
      Node ep;
      ep.op = "Compute";
      ep.name = fresh_node(node.name + "_epilogue");
      ep.inputs = {product};
      if (!c.empty()) ep.inputs.push_back(c);
      ep.outputs = {y};
      ep.attrs = {{"expr", y + "(m_, n_) = " + e}};
      ep.pointer = node.pointer;
      out.push_back(ep);
    }
    local.count("matmuls reading packed weights");
  }
  if (stats) stats->merge(local);
  if (local.changes == 0) return graph;
  return rebuild_graph(graph, out);
}

}  // namespace atl
