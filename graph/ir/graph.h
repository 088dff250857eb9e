// The graph IR: operator nodes and tensor edges on a Boost.Graph
// adjacency_list, with declared inputs, weights, outputs and symbolic dims.
// The shape vocabulary (Dim, TensorType, ParamRange) is public, in
// <atoll/graph.h>; the public GraphBuilder holds one of these graphs.
#pragma once

#include <atoll/diagnostics.h>
#include <atoll/graph.h>
#include <atoll/dtype.h>
#include <atoll/tensor.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace atl {

enum class TensorRole { Input, Weight, Intermediate };

/// A constant's values (row-major), shared by the copies of a graph: the
/// graph passes, instantiation and the compiled module copy graphs, and a
/// network's weights are most of its memory. The values never change once
/// made; a pass that computes others assigns a new vector.
class ConstantData {
public:
  ConstantData() = default;
  ConstantData(std::nullopt_t) {}
  ConstantData(std::vector<double> values)
      : values_(std::make_shared<const std::vector<double>>(std::move(values))) {}
  ConstantData(std::optional<std::vector<double>> values) {
    if (values) values_ = std::make_shared<const std::vector<double>>(std::move(*values));
  }
  explicit operator bool() const { return values_ != nullptr; }
  bool has_value() const { return values_ != nullptr; }
  const std::vector<double> &operator*() const { return *values_; }
  const std::vector<double> *operator->() const { return values_.get(); }
  void reset() { values_.reset(); }

private:
  std::shared_ptr<const std::vector<double>> values_;
};

/// A tensor of the graph: declared (input, weight) or produced by a node.
struct TensorDecl {
  std::string name;
  TensorType type;
  TensorRole role = TensorRole::Intermediate;
  std::string init;                   ///< "uniform(-1,1)" etc.; empty = default
  ConstantData data;                  ///< inline values (row-major): a constant
  std::string pointer;                ///< JSON pointer of its declaration or producer
};

/// An operator application. `attrs` holds ONNX attributes as JSON values; the
/// front end moves constant inputs that the spec allows as attributes
/// (Reshape's shape, Clip's min/max, ...) into attrs, so operators read them
/// from one place.
struct Node {
  std::string op;
  std::string name;
  std::vector<std::string> inputs;   ///< "" = omitted optional input
  std::vector<std::string> outputs;
  nlohmann::json attrs = nlohmann::json::object();
  std::string pointer;               ///< JSON pointer of the node in the batch
};

/// A data edge from producer to consumer node, carrying one tensor.
struct Edge {
  std::string tensor;
  int input_slot = 0;
};

/// The operators and their data edges as a Boost.Graph adjacency list,
/// defined in graph/ir/node_graph.h: only the files that walk edges include
/// Boost.Graph. A node's id is its vertex index, 0..num_nodes()-1.
struct NodeGraph;
using NodeId = std::size_t;

/// The `fuse` hint: clusters chosen by fusion (absent or "auto"), one
/// operator per kernel ("none"), or the given groups of node names.
struct FuseHint {
  enum class Mode { Auto, None, Groups } mode = Mode::Auto;
  std::vector<std::vector<std::string>> groups;  ///< Mode::Groups: node names, a node in one group at most
  bool operator==(const FuseHint &) const = default;
};

/// The `tree` hint: schedule trees in isl's YAML notation, one for a graph
/// that compiles as one cluster, or one per cluster keyed by its name.
struct TreeHint {
  bool given = false;                             ///< the graph has a `tree` hint
  std::optional<std::string> whole;               ///< the tree of the graph's only cluster
  std::map<std::string, std::string> by_cluster;  ///< cluster name -> tree (when not `whole`)
};

/// Parsed, optional schedule hints of a graph (batch-format.md), typed once
/// by the front end (src/frontend/schedule_hints); honoured (or refused by
/// name) by the optimizer.
struct ScheduleHints {
  FuseHint fuse;
  std::map<std::string, std::vector<std::int64_t>> tile;  ///< node -> sizes per domain dim
  std::optional<bool> vectorize, parallel;
  std::optional<std::int64_t> unroll;
  std::string scheduler;                                 ///< "", "isl", "pluto", "feautrier"
  TreeHint tree;
};

/// A graph of operators. Build it with add_* and then call finalize(), which
/// infers every produced tensor's type, links edges and checks the whole
/// graph (unknown tensors, cycles, duplicates, operator rules).
class Graph {
public:
  Graph();
  Graph(const Graph &other);
  Graph(Graph &&other) noexcept;
  Graph &operator=(const Graph &other);
  Graph &operator=(Graph &&other) noexcept;
  ~Graph();

  std::string name;
  std::vector<std::string> inputs, weights, outputs;
  std::map<std::string, ParamRange> params;
  ScheduleHints schedule;
  std::string pointer;  ///< JSON pointer of the graph in its batch ("" from the API)

  /// Declares a run-time input. `init` says how test data is made.
  void add_input(const std::string &name, TensorType type, std::string init = {});
  /// Declares a weight; `data` (row-major) makes it a compile-time constant.
  void add_weight(const std::string &name, TensorType type, std::string init = {},
                  ConstantData data = {});
  /// Appends a node. Its name defaults to "n<position>".
  NodeId add_node(Node node);
  void add_output(const std::string &name) { outputs.push_back(name); }
  /// Records where a declared tensor came from (a JSON pointer), for messages.
  void set_tensor_pointer(const std::string &tensor, std::string pointer);

  /// Links edges, orders nodes topologically, infers types; throws UserError
  /// that names the graph and node.
  void finalize();

  /// The adjacency list (include graph/ir/node_graph.h to walk it).
  const NodeGraph &nodes() const { return *g_; }
  NodeGraph &nodes() { return *g_; }
  const Node &node(NodeId v) const;
  std::size_t num_nodes() const;
  /// Nodes in a topological order (Boost.Graph topological_sort), valid after finalize().
  const std::vector<NodeId> &order() const { return order_; }

  const std::map<std::string, TensorDecl> &tensors() const { return tensors_; }
  const TensorDecl &tensor(const std::string &name) const;
  bool has_tensor(const std::string &name) const { return tensors_.count(name) != 0; }
  /// The node that produces a tensor, if any.
  std::optional<NodeId> producer(const std::string &tensor) const;

  /// The same graph with every symbolic dimension replaced by its value (each
  /// parameter stays in `params` as the one-point range of its value).
  /// Throws UserError when a value is outside the parameter's range.
  Graph instantiate(const std::map<std::string, std::int64_t> &values) const;

  /// Total FLOPs of the graph's operators (needs concrete shapes; symbolic
  /// graphs: of the instantiation at the given values).
  std::int64_t flops() const;

private:
  std::unique_ptr<NodeGraph> g_;  ///< never null
  std::vector<NodeId> order_;
  std::map<std::string, TensorDecl> tensors_;
  bool finalized_ = false;

  void declare(TensorDecl decl);
  void infer_types();
};

/// Text form of the graph after shape inference (explain --stage graph).
void print_graph(std::ostream &os, const Graph &graph);
/// Graphviz form (boost::write_graphviz).
void print_graph_dot(std::ostream &os, const Graph &graph);

}  // namespace atl
