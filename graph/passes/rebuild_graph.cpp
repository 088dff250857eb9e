// Rebuilding graphs after a pass edited their node list, tensor renaming, and a Compute node's program.
#include "graph/passes/rebuild_graph.h"

#include "graph/compute/compute.h"

#include <cctype>

namespace atl {

Graph rebuild_graph(const Graph &src, const std::vector<Node> &nodes, const std::vector<TensorDecl> &new_weights,
                    const std::set<std::string> &drop_weights) {
  Graph out;
  out.name = src.name;
  out.pointer = src.pointer;
  out.params = src.params;
  out.schedule = src.schedule;
  out.outputs = src.outputs;
  for (const std::string &i : src.inputs) {
    const TensorDecl &d = src.tensor(i);
    out.add_input(i, d.type, d.init);
    out.set_tensor_pointer(i, d.pointer);
  }
  for (const std::string &w : src.weights) {
    if (drop_weights.count(w)) continue;
    const TensorDecl &d = src.tensor(w);
    out.add_weight(w, d.type, d.init, d.data);
    out.set_tensor_pointer(w, d.pointer);
  }
  for (const TensorDecl &d : new_weights) {
    out.add_weight(d.name, d.type, d.init, d.data);
    out.set_tensor_pointer(d.name, d.pointer);
  }
  for (const Node &n : nodes) out.add_node(n);
  out.finalize();
  return out;
}

std::vector<Node> nodes_in_order(const Graph &src) {
  std::vector<Node> nodes;
  nodes.reserve(src.order().size());
  for (NodeId v : src.order()) nodes.push_back(src.node(v));
  return nodes;
}

double number_attr(const Node &n, const char *name, double fallback) {
  return n.attrs.contains(name) && n.attrs[name].is_number() ? n.attrs[name].get<double>() : fallback;
}

std::shared_ptr<const compute::Program> compute_program(const Node &n) {
  if (n.op != "Compute" || !n.attrs.contains("expr") || !n.attrs["expr"].is_string()) return nullptr;
  try {
    return compute::parse(n.attrs["expr"].get<std::string>());
  } catch (const std::exception &) {
    return nullptr;
  }
}

Graph rewrite_each_node(const Graph &src, const PassStats &stats,
                        const std::function<std::vector<Node>(const Node &)> &rewrite) {
  std::vector<Node> nodes;
  for (const Node &n : nodes_in_order(src)) {
    std::vector<Node> out = rewrite(n);
    nodes.insert(nodes.end(), out.begin(), out.end());
  }
  if (stats.changes == 0) return src;
  return rebuild_graph(src, nodes);
}

void rename_inputs(std::vector<Node> &nodes, const std::map<std::string, std::string> &rename) {
  if (rename.empty()) return;
  for (Node &n : nodes)
    for (std::string &in : n.inputs) {
      for (std::size_t hops = 0; hops <= rename.size(); ++hops) {
        auto it = rename.find(in);
        if (it == rename.end()) break;
        in = it->second;
      }
    }
}

std::map<std::string, int> count_uses(const Graph &g) {
  std::map<std::string, int> uses;
  for (NodeId v : g.order())
    for (const std::string &in : g.node(v).inputs)
      if (!in.empty()) ++uses[in];
  for (const std::string &o : g.outputs) ++uses[o];
  return uses;
}

std::string fresh_tensor_name(const Graph &g, const std::string &base, std::set<std::string> &taken) {
  std::string name = base;
  for (int k = 1; g.has_tensor(name) || taken.count(name); ++k) name = base + "_" + std::to_string(k);
  taken.insert(name);
  return name;
}

std::string fresh_node_name(const std::string &base, std::set<std::string> &names) {
  std::string name = base;
  for (int k = 1; names.count(name); ++k) name = base + "_" + std::to_string(k);
  names.insert(name);
  return name;
}

bool compute_identifier(const std::string &name) {
  static const std::set<std::string> reserved = {"exp", "log", "sqrt", "tanh", "sigmoid", "erf",  "abs", "min",
                                                 "max", "pow", "floor", "guard", "where", "in",  "inf",
                                                 "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
                                                 "asinh", "acosh", "atanh"};
  if (name.empty() || name.back() == '_' || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return !reserved.count(name);
}

}  // namespace atl
