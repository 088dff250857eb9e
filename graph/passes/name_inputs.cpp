// Graph inputs given identifier names through no-op Reshapes (see name_inputs.h).
#include "graph/passes/name_inputs.h"

#include "graph/passes/rebuild_graph.h"

#include <cctype>

namespace atl {

namespace {

/// An identifier made from `name`: other characters as '_', a leading digit
/// or a Compute word prefixed, no trailing '_'.
std::string identifier_from(const std::string &name) {
  std::string id;
  for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "t" + id;
  while (id.size() > 1 && id.back() == '_') id.pop_back();
  if (!compute_identifier(id)) id = "in_" + id;
  if (id.back() == '_') id += "x";
  return id;
}

/// The Reshape name_inputs adds: one input, every extent copied.
bool naming_reshape(const Node &n) {
  if (n.op != "Reshape" || n.inputs.size() != 1 || n.outputs.size() != 1 || !compute_identifier(n.outputs[0]))
    return false;
  auto shape = n.attrs.find("shape");
  if (shape == n.attrs.end() || !shape->is_array() || n.attrs.value("allowzero", 0) != 0) return false;
  for (const auto &d : *shape)
    if (!d.is_number_integer() || d.get<std::int64_t>() != 0) return false;
  return true;
}

}  // namespace

Graph name_inputs(const Graph &graph, PassStats *stats) {
  std::vector<Node> nodes = nodes_in_order(graph);
  std::set<std::string> taken, node_names;
  for (const Node &n : nodes) node_names.insert(n.name);
  PassStats local;
  std::vector<Node> added;
  std::map<std::string, std::string> rename;
  for (const std::string &in : graph.inputs) {
    if (compute_identifier(in)) continue;
    bool read = false;
    for (const Node &n : nodes)
      if (!naming_reshape(n))
        for (const std::string &t : n.inputs) read = read || t == in;
    if (!read) continue;
    Node r;
    r.op = "Reshape";
    r.name = fresh_node_name(identifier_from(in) + "_named", node_names);
    r.inputs = {in};
    r.outputs = {fresh_tensor_name(graph, identifier_from(in), taken)};
    r.attrs = {{"shape", std::vector<std::int64_t>(graph.tensor(in).type.shape.size(), 0)}};
    rename[in] = r.outputs[0];
    added.push_back(std::move(r));
    local.count("inputs named");
  }
  if (added.empty()) {
    if (stats) stats->merge(local);
    return graph;
  }
  // Every reader but the naming Reshapes reads the new name.
  for (Node &n : nodes)
    if (!naming_reshape(n))
      for (std::string &t : n.inputs)
        if (auto it = rename.find(t); it != rename.end()) t = it->second;
  added.insert(added.end(), nodes.begin(), nodes.end());
  Graph out = rebuild_graph(graph, added);
  if (stats) stats->merge(local);
  return out;
}

}  // namespace atl
