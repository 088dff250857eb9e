// Inside the ONNX reader: the state of one import (the tensors known so far,
// their types and constant values, the nodes emitted) that the per-operator
// rules (onnx_ops.cpp) read and extend.
#pragma once

#include "graph/ir/graph.h"
#include "src/frontend/onnx_tensor.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace atl::onnx_import {

/// A tensor known to the import: its type and, when known while reading
/// (an initializer, a Constant, a folded computation), its values.
struct Value {
  TensorType type;
  std::optional<Tensor> constant;
};

class Importer {
public:
  Importer(std::string graph_name, std::string model_dir, std::int64_t fold_limit)
      : graph_name_(std::move(graph_name)), model_dir_(std::move(model_dir)), fold_limit_(fold_limit) {}

  /// The default domain's opset version the model imports.
  int opset = 0;
  /// The node being translated (set by the reader for each node).
  const onnx::NodeProto *node = nullptr;
  int node_index = 0;
  std::map<std::string, ParamRange> params;

  /// "node 'Conv_3' (Conv)", or "node #3 (Conv)" for a node without a name.
  std::string describe() const;
  /// A UserError "node '...' (Op): reason".
  [[noreturn]] void fail(const std::string &reason) const;
  const std::string &model_dir() const { return model_dir_; }

  /// Whether a tensor name is known (declared, produced or aliased).
  bool has(const std::string &name) const;
  /// The tensor behind an alias chain (Identity, Dropout).
  std::string resolve(const std::string &name) const;
  /// The value of a known tensor; fails naming the tensor when unknown.
  const Value &value(const std::string &name) const;
  /// Its constant values, or nullptr when it is known only at run time.
  const Tensor *constant(const std::string &name) const;

  void define_input(const std::string &name, TensorType type);
  void define_constant(const std::string &name, Tensor value);
  /// `out` names the same tensor as `in` (no node).
  void alias(const std::string &out, const std::string &in);
  /// A new tensor or node name that no tensor of the model uses, from `base`.
  std::string fresh(const std::string &base);
  /// Reserves the names the model uses, so that fresh() avoids them.
  void reserve(const std::string &name) { used_names_.insert(name); }

  /// Adds an operator node: its types are inferred at once (the registry's
  /// rules, as Graph::finalize applies them); when every input is constant
  /// and every output small, it is evaluated instead and its outputs become
  /// constants. The node's name is made from the ONNX node's.
  void emit(Node n);

  /// The whole graph: the model's inputs, the constants that emitted nodes
  /// read (as weights with data), the nodes, and `outputs` (an output that is
  /// a constant or another tensor's alias gets an Identity node).
  Graph finish(const std::vector<std::string> &inputs, const std::vector<std::string> &outputs);

private:
  std::string graph_name_, model_dir_;
  std::int64_t fold_limit_;
  std::map<std::string, Value> values_;
  std::map<std::string, std::string> aliases_;
  std::set<std::string> used_names_, node_names_;
  std::set<std::string> read_constants_;  ///< constants that emitted nodes read
  std::vector<Node> nodes_;
  std::map<std::string, std::string> onnx_node_of_;  ///< Atoll node name -> describe() of its ONNX node

  std::string node_name();
};

/// The attributes of the current node as the batch format writes them
/// (ints, floats, strings and their lists); tensor- and graph-valued
/// attributes are left out (the rules that take one read it themselves).
nlohmann::json attributes_json(const onnx::NodeProto &node);

/// Translates `im.node` into Atoll nodes, constants or aliases.
void translate_node(Importer &im);

/// One ONNX node as an expansion (onnx_expand.cpp) reads it: its inputs
/// ("" for an omitted optional one), its outputs (trailing omitted ones
/// removed), its attributes as attributes_json gives them, and the opset.
struct ExpandNode {
  Importer &im;
  const std::vector<std::string> &inputs;
  const std::vector<std::string> &outputs;
  const nlohmann::json &attrs;
  int opset;
};

/// Operators the reader expands into several registry operators
/// (onnx_expand.cpp; docs/onnx.md, "Expansions").
void expand_attention(const ExpandNode &n);
void expand_nll_loss(const ExpandNode &n);
void expand_softmax_cross_entropy_loss(const ExpandNode &n);
void expand_rotary_embedding(const ExpandNode &n);

}  // namespace atl::onnx_import
