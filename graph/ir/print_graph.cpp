// Prints the graph IR as text (explain --stage graph) and as Graphviz.
#include "graph/ir/graph.h"
#include "graph/ir/node_graph.h"

#include <boost/graph/graphviz.hpp>

namespace atl {

namespace {

std::string compact_json(const nlohmann::json &j) { return j.dump(); }

std::string escape_dot(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

void print_graph(std::ostream &os, const Graph &graph) {
  os << "graph " << graph.name << "\n";
  for (const auto &[pname, range] : graph.params)
    os << "  param " << pname << " min " << range.min << " max " << range.max << "\n";
  for (const std::string &i : graph.inputs) {
    const TensorDecl &d = graph.tensor(i);
    os << "  input " << i << ": " << d.type.str();
    if (!d.init.empty()) os << " init " << d.init;
    os << "\n";
  }
  for (const std::string &w : graph.weights) {
    const TensorDecl &d = graph.tensor(w);
    os << "  weight " << w << ": " << d.type.str();
    if (d.data) os << " data[" << d.data->size() << "]";
    else if (!d.init.empty()) os << " init " << d.init;
    os << "\n";
  }
  for (NodeId v : graph.order()) {
    const Node &n = graph.node(v);
    os << "  node " << n.name << " = " << n.op << "(";
    for (std::size_t i = 0; i < n.inputs.size(); ++i) os << (i ? ", " : "") << n.inputs[i];
    os << ")";
    if (!n.attrs.empty()) os << " " << compact_json(n.attrs);
    os << "\n";
    for (const std::string &o : n.outputs) {
      if (o.empty()) continue;
      os << "    -> " << o << ": " << graph.tensor(o).type.str() << "\n";
    }
  }
  for (const std::string &o : graph.outputs) os << "  output " << o << ": " << graph.tensor(o).type.str() << "\n";
}

void print_graph_dot(std::ostream &os, const Graph &graph) {
  const NodeGraph &g = graph.nodes();
  auto vertex_label = [&](std::ostream &out, NodeId v) {
    const Node &n = g[v];
    std::string label = escape_dot(n.name) + "\\n" + escape_dot(n.op);
    for (const std::string &o : n.outputs)
      if (!o.empty()) label += "\\n" + escape_dot(o + ": " + graph.tensor(o).type.str());
    out << "[label=\"" << label << "\", shape=box]";
  };
  auto edge_label = [&](std::ostream &out, NodeGraph::edge_descriptor e) {
    out << "[label=\"" << escape_dot(g[e].tensor) << "\"]";
  };
  auto graph_props = [&](std::ostream &out) {
    out << "label=\"" << escape_dot(graph.name) << "\";\nrankdir=TB;\n";
    // Graph inputs and weights as plain nodes feeding their consumers.
    for (const auto &[tname, decl] : graph.tensors()) {
      if (decl.role == TensorRole::Intermediate) continue;
      out << "\"t_" << escape_dot(tname) << "\" [label=\"" << escape_dot(tname + ": " + decl.type.str())
          << "\", shape=ellipse, style=" << (decl.role == TensorRole::Input ? "solid" : "dashed") << "];\n";
      for (NodeId v : boost::make_iterator_range(boost::vertices(g)))
        for (const std::string &in : g[v].inputs)
          if (in == tname) out << "\"t_" << escape_dot(tname) << "\" -> " << v << ";\n";
    }
  };
  boost::write_graphviz(os, g, vertex_label, edge_label, graph_props);
}

}  // namespace atl
