// Graph construction and checking: declarations, node naming, constant-input
// normalisation, edges, topological order and cycle detection (Boost.Graph),
// type inference through the operator registry, instantiation of symbols.
#include "graph/ir/graph.h"
#include "graph/ir/node_graph.h"

#include "graph/ir/op_registry.h"

#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/topological_sort.hpp>

#include <algorithm>
#include <regex>
#include <set>

namespace atl {

namespace {

/// Records the first back edge a depth-first search meets: a cycle.
struct CycleFinder : boost::default_dfs_visitor {
  std::optional<NodeGraph::edge_descriptor> *back;
  explicit CycleFinder(std::optional<NodeGraph::edge_descriptor> *b) : back(b) {}
  void back_edge(NodeGraph::edge_descriptor e, const NodeGraph &) {
    if (!*back) *back = e;
  }
};

bool is_scalar_const_attr(const std::string &attr) {
  return attr == "min" || attr == "max" || attr == "constant_value";
}

/// Constant inputs that an operator's definition can also read at run time,
/// because the value does not shape the output: Trilu's diagonal offset k.
/// A constant still moves into the attribute (an affine condition).
bool may_be_runtime(const std::string &op, const std::string &attr) { return op == "Trilu" && attr == "k"; }

}  // namespace

void Graph::declare(TensorDecl decl) {
  if (tensors_.count(decl.name))
    throw UserError("duplicate tensor name '" + decl.name + "'", {decl.pointer, name});
  for (const Dim &d : decl.type.shape)
    if (!d.is_symbolic() && d.value <= 0)
      throw UserError("tensor '" + decl.name + "' has a non-positive dimension " + std::to_string(d.value),
                      {decl.pointer, name});
  tensors_.emplace(decl.name, std::move(decl));
}

Graph::Graph() : g_(std::make_unique<NodeGraph>()) {}
Graph::Graph(const Graph &other)
    : name(other.name), inputs(other.inputs), weights(other.weights), outputs(other.outputs), params(other.params),
      schedule(other.schedule), pointer(other.pointer), g_(std::make_unique<NodeGraph>(*other.g_)),
      order_(other.order_), tensors_(other.tensors_), finalized_(other.finalized_) {}
// A moved-from Graph keeps an (empty) adjacency list, so it stays usable.
Graph::Graph(Graph &&other) noexcept
    : name(std::move(other.name)), inputs(std::move(other.inputs)), weights(std::move(other.weights)),
      outputs(std::move(other.outputs)), params(std::move(other.params)), schedule(std::move(other.schedule)),
      pointer(std::move(other.pointer)), g_(std::make_unique<NodeGraph>()), order_(std::move(other.order_)),
      tensors_(std::move(other.tensors_)), finalized_(other.finalized_) {
  g_.swap(other.g_);
}
Graph &Graph::operator=(const Graph &other) {
  if (this != &other) *this = Graph(other);
  return *this;
}
Graph &Graph::operator=(Graph &&other) noexcept {
  name = std::move(other.name);
  inputs = std::move(other.inputs);
  weights = std::move(other.weights);
  outputs = std::move(other.outputs);
  params = std::move(other.params);
  schedule = std::move(other.schedule);
  pointer = std::move(other.pointer);
  g_.swap(other.g_);
  order_ = std::move(other.order_);
  tensors_ = std::move(other.tensors_);
  finalized_ = other.finalized_;
  return *this;
}
Graph::~Graph() = default;

const Node &Graph::node(NodeId v) const { return (*g_)[v]; }
std::size_t Graph::num_nodes() const { return boost::num_vertices(*g_); }

void Graph::add_input(const std::string &tname, TensorType type, std::string init) {
  TensorDecl d{tname, std::move(type), TensorRole::Input, std::move(init), std::nullopt, ""};
  declare(std::move(d));
  inputs.push_back(tname);
}

void Graph::add_weight(const std::string &tname, TensorType type, std::string init, ConstantData data) {
  TensorDecl d{tname, std::move(type), TensorRole::Weight, std::move(init), std::move(data), ""};
  declare(std::move(d));
  weights.push_back(tname);
}

void Graph::set_tensor_pointer(const std::string &tname, std::string ptr) {
  auto it = tensors_.find(tname);
  if (it != tensors_.end()) it->second.pointer = std::move(ptr);
}

NodeId Graph::add_node(Node node) {
  finalized_ = false;
  return boost::add_vertex(std::move(node), *g_);
}

const TensorDecl &Graph::tensor(const std::string &tname) const {
  auto it = tensors_.find(tname);
  if (it == tensors_.end()) throw UserError("unknown tensor '" + tname + "'", {pointer, name});
  return it->second;
}

std::optional<NodeId> Graph::producer(const std::string &tname) const {
  for (NodeId v : boost::make_iterator_range(boost::vertices(*g_)))
    for (const std::string &o : (*g_)[v].outputs)
      if (o == tname) return v;
  return std::nullopt;
}

void Graph::finalize() {
  Location gloc{pointer, name};
  // Forget tensors produced by nodes (finalize may run again after edits).
  for (auto it = tensors_.begin(); it != tensors_.end();)
    it = it->second.role == TensorRole::Intermediate ? tensors_.erase(it) : std::next(it);
  boost::remove_edge_if([](auto) { return true; }, *g_);

  for (const auto &[pname, range] : params)
    if (range.min < 1 || range.max < range.min)
      throw UserError("parameter '" + pname + "' has an empty or non-positive range " + std::to_string(range.min) +
                          ":" + std::to_string(range.max),
                      gloc);
  for (const auto &[tname, decl] : tensors_) {
    for (const Dim &d : decl.type.shape)
      if (d.is_symbolic() && !params.count(d.symbol))
        throw UserError("tensor '" + tname + "' uses symbolic dimension '" + d.symbol +
                            "' that the graph's params do not declare",
                        {decl.pointer, name});
    if (decl.data) {
      if (!is_concrete(decl.type.shape))
        throw UserError("tensor '" + tname + "' has inline data but a symbolic shape", {decl.pointer, name});
      std::int64_t n = shape_numel(concrete_shape(decl.type.shape));
      if (static_cast<std::int64_t>(decl.data->size()) != n)
        throw UserError("tensor '" + tname + "' has " + std::to_string(decl.data->size()) +
                            " data values but its shape " + sym_shape_to_string(decl.type.shape) + " holds " +
                            std::to_string(n),
                        {decl.pointer, name});
    }
  }

  // Node names: default n<position>; user names must be unique and must not
  // take a default name of another node.
  std::set<std::string> user_names;
  std::size_t position = 0;
  for (NodeId v : boost::make_iterator_range(boost::vertices(*g_))) {
    Node &n = (*g_)[v];
    if (!n.name.empty()) {
      if (!user_names.insert(n.name).second)
        throw UserError("duplicate node name '" + n.name + "'", {n.pointer, name, n.name});
    }
    ++position;
  }
  position = 0;
  for (NodeId v : boost::make_iterator_range(boost::vertices(*g_))) {
    Node &n = (*g_)[v];
    std::string dflt = "n" + std::to_string(position);
    if (n.name.empty()) {
      if (user_names.count(dflt))
        throw UserError("node name '" + dflt + "' clashes with the default name of the node at position " +
                            std::to_string(position),
                        {n.pointer, name, dflt});
      n.name = dflt;
    }
    ++position;
  }

  // Operators exist; constant inputs move into attributes.
  for (NodeId v : boost::make_iterator_range(boost::vertices(*g_))) {
    Node &n = (*g_)[v];
    Location nloc{n.pointer, name, n.name};
    const OpInfo *op = find_op(n.op);
    if (!op) throw UserError("unknown operator '" + n.op + "'", nloc);
    int nin = static_cast<int>(n.inputs.size());
    if (nin < op->min_inputs || (op->max_inputs >= 0 && nin > op->max_inputs))
      throw UserError(n.op + " takes " +
                          (op->max_inputs < 0 ? "at least " + std::to_string(op->min_inputs)
                           : op->min_inputs == op->max_inputs
                               ? std::to_string(op->min_inputs)
                               : std::to_string(op->min_inputs) + " to " + std::to_string(op->max_inputs)) +
                          " inputs, got " + std::to_string(nin),
                      nloc);
    int nout = static_cast<int>(n.outputs.size());
    if (nout < op->min_outputs || nout > op->max_outputs)
      throw UserError(n.op + " produces " +
                          (op->min_outputs == op->max_outputs
                               ? std::to_string(op->min_outputs)
                               : std::to_string(op->min_outputs) + " to " + std::to_string(op->max_outputs)) +
                          " outputs, got " + std::to_string(nout),
                      nloc);
    for (auto [slot, attr] : op->const_inputs) {
      if (slot >= nin || n.inputs[slot].empty()) continue;
      const std::string &tname = n.inputs[slot];
      auto it = tensors_.find(tname);
      if (n.attrs.contains(attr))
        throw UserError(std::string("'") + attr + "' is given both as input '" + tname + "' and as attribute", nloc);
      if ((it == tensors_.end() || !it->second.data) && may_be_runtime(n.op, attr)) continue;
      if (it == tensors_.end() || !it->second.data)
        throw UserError(n.op + "'s input '" + attr + "' ('" + tname +
                            "') must be a constant: a weight with inline data, or the attribute '" + attr + "'",
                        nloc);
      const std::vector<double> &data = *it->second.data;
      if (is_scalar_const_attr(attr)) {
        if (data.size() != 1)
          throw UserError(std::string("'") + attr + "' must hold one value, '" + tname + "' holds " +
                              std::to_string(data.size()),
                          nloc);
        n.attrs[attr] = data[0];
      } else {
        // Integer lists (shapes, axes, pads) but for a list of numbers such
        // as Resize's scales.
        bool floats = false;
        for (const AttrSpec &a : op->attrs)
          if (std::string_view(a.name) == attr) floats = a.kind == AttrKind::Floats;
        nlohmann::json list = nlohmann::json::array();
        for (double x : data) {
          if (floats) list.push_back(x);
          else list.push_back(static_cast<std::int64_t>(x));
        }
        n.attrs[attr] = list;
      }
      n.inputs[slot].clear();
    }
    while (!n.inputs.empty() && n.inputs.back().empty() && static_cast<int>(n.inputs.size()) > op->min_inputs)
      n.inputs.pop_back();
  }

  // Produced tensors, and edges from producer to consumer.
  std::map<std::string, NodeId> produced_by;
  for (NodeId v : boost::make_iterator_range(boost::vertices(*g_))) {
    const Node &n = (*g_)[v];
    for (const std::string &o : n.outputs) {
      if (o.empty()) continue;
      if (tensors_.count(o))
        throw UserError("tensor '" + o + "' is produced by node '" + n.name + "' but is already a graph " +
                            (tensors_.at(o).role == TensorRole::Input ? "input" : "weight"),
                        {n.pointer, name, n.name});
      if (!produced_by.emplace(o, v).second)
        throw UserError("tensor '" + o + "' is produced twice (also by node '" + (*g_)[produced_by[o]].name + "')",
                        {n.pointer, name, n.name});
    }
  }
  for (NodeId v : boost::make_iterator_range(boost::vertices(*g_))) {
    const Node &n = (*g_)[v];
    for (std::size_t slot = 0; slot < n.inputs.size(); ++slot) {
      const std::string &in = n.inputs[slot];
      if (in.empty()) continue;
      auto p = produced_by.find(in);
      if (p != produced_by.end()) {
        boost::add_edge(p->second, v, Edge{in, static_cast<int>(slot)}, *g_);
      } else if (!tensors_.count(in)) {
        throw UserError("unknown tensor '" + in + "' (not an input, weight or node output)",
                        {n.pointer, name, n.name});
      }
    }
  }
  for (const std::string &o : outputs)
    if (!produced_by.count(o) && !tensors_.count(o))
      throw UserError("graph output '" + o + "' is not produced by any node", gloc);
  if (outputs.empty()) throw UserError("graph has no outputs", gloc);

  // Cycles (depth-first search with a back-edge visitor), then a topological order.
  std::optional<NodeGraph::edge_descriptor> back;
  std::vector<boost::default_color_type> colors(boost::num_vertices(*g_));
  boost::depth_first_search((*g_), boost::visitor(CycleFinder(&back)).color_map(
                                    boost::make_iterator_property_map(colors.begin(),
                                                                      boost::get(boost::vertex_index, *g_))));
  if (back) {
    const Node &from = (*g_)[boost::source(*back, *g_)];
    const Node &to = (*g_)[boost::target(*back, *g_)];
    throw UserError("the graph has a cycle: node '" + from.name + "' feeds tensor '" + (*g_)[*back].tensor +
                        "' back to node '" + to.name + "', which it depends on",
                    {to.pointer, name, to.name});
  }
  order_.clear();
  boost::topological_sort((*g_), std::back_inserter(order_));
  std::reverse(order_.begin(), order_.end());

  // Types of produced tensors, in topological order.
  for (NodeId v : order_) {
    const Node &n = (*g_)[v];
    const OpInfo *op = find_op(n.op);
    OpContext ctx{n, {}, {}, &params};
    for (const std::string &in : n.inputs) {
      if (in.empty())
        ctx.inputs.push_back(std::nullopt);
      else
        ctx.inputs.push_back(tensors_.at(in).type);
    }
    std::vector<TensorType> outs;
    try {
      outs = op->infer(ctx);
    } catch (const UserError &e) {
      // A Compute error with a line and column points into the node's `expr`.
      std::string ptr = n.pointer;
      if (e.where().line > 0 && n.op == "Compute" && !ptr.empty()) ptr += "/attrs/expr";
      throw e.with({ptr, name, n.name});
    }
    ATOLL_ASSERT(outs.size() >= n.outputs.size(), "operator " + n.op + " inferred too few outputs");
    for (std::size_t i = 0; i < n.outputs.size(); ++i) {
      if (n.outputs[i].empty()) continue;
      for (const Dim &d : outs[i].shape)
        if (!d.is_symbolic() && d.value <= 0)
          throw UserError("output '" + n.outputs[i] + "' would have an empty shape " +
                              sym_shape_to_string(outs[i].shape),
                          {n.pointer, name, n.name});
      // The same bound the batch reader puts on declared tensors, at the parameters' maxima.
      std::int64_t elements = 1;
      for (const Dim &d : outs[i].shape) {
        std::int64_t v = d.is_symbolic() ? (params.count(d.symbol) ? params.at(d.symbol).max : 1) : d.value;
        if (v > kMaxTensorElements || elements > kMaxTensorElements / v) {
          throw UserError("output '" + n.outputs[i] + "' would have shape " + sym_shape_to_string(outs[i].shape) +
                              ": more than 2^32 elements, the most a tensor holds",
                          {n.pointer, name, n.name});
        }
        elements *= v;
      }
      TensorDecl d{n.outputs[i], outs[i], TensorRole::Intermediate, "", std::nullopt, n.pointer};
      tensors_.emplace(n.outputs[i], std::move(d));
    }
  }
  finalized_ = true;
}

Graph Graph::instantiate(const std::map<std::string, std::int64_t> &values) const {
  Graph out;
  out.name = name;
  out.pointer = pointer;
  out.outputs = outputs;
  out.schedule = schedule;
  auto subst = [&](TensorType t) {
    for (Dim &d : t.shape) {
      if (!d.is_symbolic()) continue;
      auto it = values.find(d.symbol);
      if (it == values.end()) throw UserError("no value given for symbolic dimension '" + d.symbol + "'", {pointer, name});
      d = Dim(it->second);
    }
    return t;
  };
  for (const auto &[pname, range] : params) {
    auto it = values.find(pname);
    if (it == values.end()) throw UserError("no value given for parameter '" + pname + "'", {pointer, name});
    if (it->second < range.min || it->second > range.max)
      throw UserError("parameter " + pname + "=" + std::to_string(it->second) + " is outside its range " +
                          std::to_string(range.min) + ":" + std::to_string(range.max),
                      {pointer, name});
  }
  for (const std::string &i : inputs) {
    const TensorDecl &d = tensors_.at(i);
    out.add_input(i, subst(d.type), d.init);
    out.tensors_.at(i).pointer = d.pointer;
  }
  for (const std::string &w : weights) {
    const TensorDecl &d = tensors_.at(w);
    out.add_weight(w, subst(d.type), d.init, d.data);
    out.tensors_.at(w).pointer = d.pointer;
  }
  // Each parameter keeps its value as a one-point range: no shape is
  // symbolic any more, but Compute text may still name it (`where i in 0:N`).
  for (const auto &[pname, range] : params) out.params[pname] = ParamRange{values.at(pname), values.at(pname)};
  for (NodeId v : boost::make_iterator_range(boost::vertices(*g_))) out.add_node((*g_)[v]);
  out.finalize();
  return out;
}

std::int64_t Graph::flops() const {
  std::int64_t total = 0;
  for (NodeId v : order_) {
    const Node &n = (*g_)[v];
    const OpInfo *op = find_op(n.op);
    OpContext ctx{n, {}, {}, &params};
    for (const std::string &in : n.inputs)
      ctx.inputs.push_back(in.empty() ? std::optional<TensorType>() : std::optional<TensorType>(tensors_.at(in).type));
    for (const std::string &o : n.outputs) ctx.outputs.push_back(o.empty() ? TensorType{} : tensors_.at(o).type);
    total += op->flops(ctx);
  }
  return total;
}

}  // namespace atl
