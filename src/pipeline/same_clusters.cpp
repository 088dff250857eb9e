// Clusters that are the same computation under other names (the repeated
// blocks of a network: ResNet-50's bottlenecks, a transformer's layers)
// compile once: the compiled result of the first is renamed for the others.
//
// A cluster's shape is its nodes in graph order (operator, attributes,
// inputs and outputs), with every node and tensor name replaced by its
// order of first appearance, and then those tensors' types and roles (a
// constant's value where the SCoP reads it, whether the tensor leaves the
// cluster). Two clusters of one graph with equal shapes differ only by that
// renaming, so renaming one's compiled kernel gives a kernel for the other.
#include "src/pipeline/compile_graph.h"

#include "graph/core/text_keys.h"
#include "graph/ir/node_graph.h"
#include "polyhedral/scop/scop.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

namespace atl {

namespace {

/// Graph names to placeholders in order of first appearance. A placeholder
/// holds a byte no name or attribute text contains, so the shape text is
/// the same for two clusters exactly when one renames into the other.
class Canon {
public:
  std::string of(const std::string &name) {
    auto [it, added] = index_.emplace(name, names_.size());
    if (added) names_.push_back(name);
    return "\x01" + std::to_string(it->second) + "\x01";
  }
  /// A name already seen gets its placeholder; any other token is kept.
  std::string token(const std::string &t) const {
    auto it = index_.find(t);
    return it == index_.end() ? t : "\x01" + std::to_string(it->second) + "\x01";
  }
  bool has(const std::string &name) const { return index_.count(name) != 0; }
  std::vector<std::string> names_;

private:
  std::map<std::string, std::size_t> index_;
};

/// `j` with the names in its strings (a Compute node's `expr`) made placeholders.
nlohmann::json canonical_strings(const nlohmann::json &j, const Canon &canon) {
  if (j.is_string())
    return map_identifiers(j.get<std::string>(), [&](const std::string &t) { return canon.token(t); });
  if (!j.is_structured()) return j;
  nlohmann::json out = j;
  for (auto it = out.begin(); it != out.end(); ++it) *it = canonical_strings(*it, canon);
  return out;
}

}  // namespace

ClusterShape cluster_shape(const Graph &graph, const std::vector<NodeId> &cluster) {
  std::map<NodeId, std::size_t> position;
  for (std::size_t i = 0; i < graph.order().size(); ++i) position[graph.order()[i]] = i;
  std::vector<NodeId> nodes = cluster;
  std::sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) { return position.at(a) < position.at(b); });
  std::set<NodeId> members(nodes.begin(), nodes.end());

  Canon canon;
  std::vector<std::string> tensors;  // in order of first appearance
  auto tensor = [&](const std::string &t) {
    if (t.empty()) return std::string("-");
    if (!canon.has(t)) tensors.push_back(t);
    return canon.of(t);
  };
  std::string key;
  for (NodeId v : nodes) {
    const Node &n = graph.node(v);
    key += "node " + canon.of(n.name) + " " + n.op + " (";
    for (const std::string &t : n.inputs) key += tensor(t) + ",";
    key += ") -> (";
    for (const std::string &t : n.outputs) key += tensor(t) + ",";
    key += ") ";
    // Compute definitions name tensors in their text: those become placeholders too.
    key += canonical_strings(n.attrs, canon).dump() + "\n";
  }
  for (const std::string &t : tensors) {
    const TensorDecl &d = graph.tensor(t);
    key += canon.token(t) + ": " + dtype_name(d.type.dtype) + sym_shape_to_string(d.type.shape) + " role " + std::to_string(static_cast<int>(d.role));
    if (d.data) {
      key += " constant";
      // build_scop reads a one-element f32 constant's value into the SCoP.
      if (d.data->size() == 1) {
        char buf[40];
        std::snprintf(buf, sizeof buf, " %.17g", d.data->front());
        key += buf;
      }
    }
    auto prod = graph.producer(t);
    if (prod && members.count(*prod)) {
      bool used = false, escapes = std::find(graph.outputs.begin(), graph.outputs.end(), t) != graph.outputs.end();
      for (auto [e, end] = boost::out_edges(*prod, graph.nodes()); e != end; ++e) {
        if (graph.nodes()[*e].tensor != t) continue;
        used = true;
        if (!members.count(boost::target(*e, graph.nodes()))) escapes = true;
      }
      key += std::string(" made") + (used ? " used" : "") + (escapes ? " escapes" : "");
    } else {
      key += prod ? " produced" : " given";
    }
    key += "\n";
  }
  return {std::move(key), std::move(canon.names_)};
}

namespace {

/// Names of a compiled cluster renamed for another: exact graph names (and
/// their C identifiers), and names derived from one by a suffix ("r5_blk"
/// from "r5", "n7_0" from node "n7": the longest such prefix).
class Renamer {
public:
  bool add(const std::string &from, const std::string &to) {
    return put(from, to) && put(poly::sanitize_identifier(from), poly::sanitize_identifier(to));
  }
  std::string operator()(const std::string &s) const {
    if (auto it = map_.find(s); it != map_.end()) return it->second;
    for (std::size_t i = s.size(); i-- > 1;) {
      if (s[i] != '_') continue;
      if (auto it = map_.find(s.substr(0, i)); it != map_.end()) return it->second + s.substr(i);
    }
    return s;
  }

private:
  std::map<std::string, std::string> map_;
  bool put(const std::string &from, const std::string &to) {
    auto [it, added] = map_.emplace(from, to);
    return added || it->second == to;
  }
};

}  // namespace

std::optional<poly::ClusterResult> renamed_cluster(const poly::ClusterResult &from, const ClusterShape &from_shape,
                                                   const ClusterShape &to_shape) {
  if (from_shape.key != to_shape.key || from_shape.names.size() != to_shape.names.size()) return std::nullopt;
  Renamer rename;
  for (std::size_t i = 0; i < from_shape.names.size(); ++i)
    if (!rename.add(from_shape.names[i], to_shape.names[i])) return std::nullopt;

  poly::ClusterResult r = from;
  // Names the code uses: renamed one to one, or the kernel is not reused.
  std::map<std::string, std::string> used;
  bool clash = false;
  auto note = [&](const std::string &old_name) {
    std::string new_name = rename(old_name);
    auto [it, added] = used.emplace(old_name, new_name);
    if (!added && it->second != new_name) clash = true;
    return new_name;
  };
  r.name = note(from.name);
  r.kernel.name = note(from.kernel.name);
  for (poly::LArray &a : r.kernel.arrays) a.name = note(a.name);
  for (poly::LArray &a : r.kernel.locals) a.name = note(a.name);
  r.kernel.body = poly::copy_loop_ast(
      from.kernel.body,
      [&](poly::LExpr &e) {
        if (e.kind == poly::LExprKind::Load) e.name = note(e.name);
      },
      [&](const poly::LStmt &, poly::LStmt &s) {
        if (s.kind == poly::LStmtKind::Store) {
          s.array = note(s.array);
          s.statement = note(s.statement);
        }
        for (std::string &l : s.locals) l = note(l);
      });
  std::set<std::string> distinct;
  for (const auto &[old_name, new_name] : used) distinct.insert(new_name);
  if (clash || distinct.size() != used.size()) return std::nullopt;

  std::map<std::string, std::string> name_of;  // from's node and tensor names -> to's
  for (std::size_t i = 0; i < from_shape.names.size(); ++i) name_of[from_shape.names[i]] = to_shape.names[i];
  r.array_of_tensor.clear();
  for (const auto &[tensor, array] : from.array_of_tensor) {
    auto t = name_of.find(tensor);
    if (t == name_of.end()) return std::nullopt;
    // An array the passes removed (inlined, contracted) keeps its entry under
    // a name that must not be one of the kernel's.
    auto a = used.find(array);
    std::string name = a != used.end() ? a->second : rename(array);
    if (a == used.end() && distinct.count(name)) return std::nullopt;
    r.array_of_tensor[t->second] = name;
  }
  r.inlined.clear();
  for (const auto &[node, into] : from.inlined) {
    auto a = name_of.find(node), b = name_of.find(into);
    if (a == name_of.end() || b == name_of.end()) return std::nullopt;
    r.inlined[a->second] = b->second;
  }
  // The texts explain prints, renamed token by token.
  auto text = [&](const std::string &t) { return map_identifiers(t, [&](const std::string &w) { return rename(w); }); };
  r.scop_text = text(from.scop_text);
  r.deps_text = text(from.deps_text);
  r.schedule_yaml = text(from.schedule_yaml);
  r.original_yaml = text(from.original_yaml);
  r.ast_text = text(from.ast_text);
  for (poly::PrintedPass &p : r.printed) p.text = text(p.text);
  for (std::string &f : r.fallbacks) f = text(f);
  r.written_first.clear();
  for (const std::string &a : from.written_first)
    if (auto it = used.find(a); it != used.end()) r.written_first.insert(it->second);
  r.same_as = from.kernel.name;
  // Nothing was spent compiling this one.
  r.timings_ms.clear();
  for (poly::PassRecord &p : r.passes) p.ms = 0;
  return r;
}

}  // namespace atl
