// Reads an ONNX model: parses the protobuf, declares its inputs and
// initializers, walks its nodes in a topological order through the
// per-operator rules (onnx_ops.cpp), and assembles a finalized graph.
#include "src/frontend/onnx_reader.h"

#include "graph/ir/op_registry.h"
#include "graph/passes/evaluate_node.h"
#include "graph/passes/rebuild_graph.h"
#include "src/frontend/onnx_import.h"
#include "src/runtime/files.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <queue>
#include <regex>

namespace atl {

using onnx_import::Importer;
using onnx_import::Value;

namespace onnx_import {

namespace {

/// `text` as an identifier [A-Za-z_][A-Za-z0-9_]* (other bytes become '_').
std::string identifier(const std::string &text, const std::string &fallback) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (out.empty()) out = fallback;
  if (std::isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
  return out;
}

}  // namespace

std::string Importer::describe() const {
  std::string op = node ? node->op_type() : std::string("?");
  if (node && !node->name().empty()) return "node '" + node->name() + "' (" + op + ")";
  return "node #" + std::to_string(node_index) + " (" + op + ")";
}

void Importer::fail(const std::string &reason) const { throw UserError(describe() + ": " + reason); }

bool Importer::has(const std::string &name) const { return values_.count(resolve(name)) != 0; }

std::string Importer::resolve(const std::string &name) const {
  std::string n = name;
  for (auto it = aliases_.find(n); it != aliases_.end(); it = aliases_.find(n)) n = it->second;
  return n;
}

const Value &Importer::value(const std::string &name) const {
  auto it = values_.find(resolve(name));
  if (it == values_.end())
    fail("unknown tensor '" + name + "' (not a graph input, an initializer or an output of an earlier node)");
  return it->second;
}

const Tensor *Importer::constant(const std::string &name) const {
  const Value &v = value(name);
  return v.constant ? &*v.constant : nullptr;
}

void Importer::define_input(const std::string &name, TensorType type) {
  used_names_.insert(name);
  values_[name] = Value{std::move(type), std::nullopt};
}

void Importer::define_constant(const std::string &name, Tensor t) {
  used_names_.insert(name);
  TensorType type;
  type.dtype = t.dtype;
  for (std::int64_t d : t.shape) type.shape.push_back(Dim(d));
  values_[name] = Value{std::move(type), std::move(t)};
}

void Importer::alias(const std::string &out, const std::string &in) {
  if (values_.count(out) || aliases_.count(out)) fail("tensor '" + out + "' is produced twice");
  (void)value(in);
  used_names_.insert(out);
  aliases_[out] = resolve(in);
}

std::string Importer::fresh(const std::string &base) {
  std::string name = base;
  for (int k = 1; used_names_.count(name) || node_names_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_names_.insert(name);
  return name;
}

std::string Importer::node_name() {
  std::string base = identifier(node && !node->name().empty() ? node->name()
                                                              : (node ? node->op_type() : std::string("node")) +
                                                                    std::to_string(node_index),
                                "node");
  // "n<digits>" is the batch format's name of an unnamed node: keep clear of it.
  if (std::regex_match(base, std::regex("n[0-9]+"))) base = "onnx_" + base;
  std::string name = base;
  for (int k = 1; node_names_.count(name); ++k) name = base + "_" + std::to_string(k);
  node_names_.insert(name);
  return name;
}

void Importer::emit(Node n) {
  n.name = node_name();
  for (std::string &in : n.inputs)
    if (!in.empty()) in = resolve(in);
  for (const std::string &out : n.outputs)
    if (!out.empty() && (values_.count(out) || aliases_.count(out))) fail("tensor '" + out + "' is produced twice");
  // The node alone, in a graph whose inputs are its inputs: Graph::finalize
  // checks it and infers its output types exactly as for the whole graph.
  Graph mini;
  mini.name = graph_name_;
  mini.params = params;
  // The values go into the mini graph only where finalize or evaluation
  // reads them: the inputs the operator takes as attributes, or every
  // input of a node that may fold. A large weight is not copied otherwise.
  bool all_constant = true, any_input = false;
  for (const std::string &in : n.inputs)
    if (!in.empty()) {
      any_input = true;
      all_constant &= value(in).constant.has_value();
    }
  std::set<std::string> attribute_inputs;
  if (const OpInfo *op = find_op(n.op))
    for (const auto &[slot, attr] : op->const_inputs)
      if (slot < static_cast<int>(n.inputs.size())) attribute_inputs.insert(n.inputs[slot]);
  std::set<std::string> declared;
  for (const std::string &in : n.inputs) {
    if (in.empty() || !declared.insert(in).second) continue;
    const Value &v = value(in);
    if (!v.constant) {
      mini.add_input(in, v.type);
      continue;
    }
    if (v.constant->numel() == 0) fail("input '" + in + "' is an empty tensor, which Atoll does not support here");
    if (all_constant || attribute_inputs.count(in)) mini.add_weight(in, v.type, {}, v.constant->data);
    else mini.add_weight(in, v.type);
  }
  NodeId id = mini.add_node(n);
  for (const std::string &out : n.outputs)
    if (!out.empty()) mini.add_output(out);
  try {
    mini.finalize();
  } catch (const UserError &e) {
    fail(e.reason());
  }
  bool small = true;
  for (const std::string &out : n.outputs) {
    if (out.empty()) continue;
    const TensorType &t = mini.tensor(out).type;
    small &= is_concrete(t.shape) && shape_numel(concrete_shape(t.shape)) <= fold_limit_;
  }
  if (all_constant && any_input && small) {
    std::map<std::string, const Tensor *> inputs;
    for (const std::string &in : n.inputs)
      if (!in.empty()) inputs[in] = constant(in);
    std::vector<Tensor> results;
    try {
      results = evaluate_node(mini, id, inputs);
    } catch (const UserError &e) {
      fail(e.reason());
    }
    for (std::size_t k = 0; k < n.outputs.size(); ++k)
      if (!n.outputs[k].empty()) define_constant(n.outputs[k], std::move(results[k]));
    return;
  }
  for (const std::string &out : n.outputs)
    if (!out.empty()) {
      used_names_.insert(out);
      values_[out] = Value{mini.tensor(out).type, std::nullopt};
    }
  // Keep the node as finalize left it: constant inputs that the operator
  // takes as attributes (Reshape's shape, ...) are attributes now.
  std::string name = n.name;
  n = mini.node(id);
  n.name = name;
  for (const std::string &in : n.inputs)
    if (!in.empty() && values_.at(in).constant) read_constants_.insert(in);
  onnx_node_of_[n.name] = describe();
  nodes_.push_back(std::move(n));
}

Graph Importer::finish(const std::vector<std::string> &inputs, const std::vector<std::string> &outputs) {
  node = nullptr;
  Graph g;
  g.name = graph_name_;
  g.params = params;
  for (const std::string &in : inputs) g.add_input(in, values_.at(in).type);
  // Outputs that no node of their own produces: a constant, a graph input or
  // another output under a second name each get an Identity node.
  std::vector<Node> extra;
  std::set<std::string> produced;
  for (const Node &n : nodes_)
    for (const std::string &o : n.outputs) produced.insert(o);
  std::set<std::string> seen;
  for (const std::string &out : outputs) {
    if (!seen.insert(out).second) throw UserError("graph output '" + out + "' is listed twice");
    if (!has(out)) throw UserError("graph output '" + out + "' is not produced by any node");
    std::string src = resolve(out);
    bool is_input = std::find(inputs.begin(), inputs.end(), src) != inputs.end();
    if (src == out && (produced.count(out) || is_input)) continue;  // a node's output, or an input returned as is
    if (src == out) {  // a constant that is itself an output: the Identity reads it under a new name
      std::string copy = fresh(out + "_value");
      values_[copy] = values_.at(out);
      values_.erase(out);
      for (Node &n : nodes_)
        for (std::string &in : n.inputs)
          if (in == out) in = copy;
      if (read_constants_.erase(out)) read_constants_.insert(copy);
      src = copy;
    }
    if (values_.at(src).constant) read_constants_.insert(src);
    Node id;
    id.op = "Identity";
    id.name = fresh("output_" + identifier(out, "y"));
    id.inputs = {src};
    id.outputs = {out};
    extra.push_back(std::move(id));
  }
  // Names the Compute language can spell: the graph passes that rewrite
  // operators into Compute nodes (blocked convolutions, packed weights,
  // batch norms as a scale and a shift) refuse other names, and ONNX names
  // often hold '/', ':' or '.' (SqueezeNet's "fire2/expand3x3_w_0").
  // Weights and intermediates are renamed; graph inputs and outputs keep
  // their names, by which callers feed and read them.
  std::set<std::string> kept(inputs.begin(), inputs.end());
  kept.insert(outputs.begin(), outputs.end());
  std::map<std::string, std::string> spelled;
  auto spell = [&](std::string &t) {
    if (t.empty() || kept.count(t) || compute_identifier(t)) return;
    auto [it, added] = spelled.try_emplace(t);
    if (added) {
      std::string base = identifier(t, "t");
      if (base.back() == '_') base += "v";
      if (!compute_identifier(base)) base = "t_" + base;
      it->second = fresh(base);
    }
    t = it->second;
  };
  for (std::vector<Node> *ns : {&nodes_, &extra})
    for (Node &n : *ns) {
      for (std::string &in : n.inputs) spell(in);
      for (std::string &out : n.outputs) spell(out);
    }
  std::set<std::string> constants;
  for (std::string c : read_constants_) {
    const std::string old = c;
    spell(c);
    if (c != old) values_.try_emplace(c, std::move(values_.at(old)));  // the old name is not read again
    constants.insert(c);
  }
  read_constants_ = std::move(constants);
  // The values move into the graph: a network's weights are most of the
  // memory reading it takes, and the importer ends here.
  for (const std::string &c : read_constants_) {
    Value &v = values_.at(c);
    g.add_weight(c, v.type, {}, std::move(v.constant->data));
  }
  for (Node &n : nodes_) g.add_node(std::move(n));
  for (Node &n : extra) g.add_node(std::move(n));
  for (const std::string &out : outputs) g.add_output(out);
  try {
    g.finalize();
  } catch (const UserError &e) {
    auto it = onnx_node_of_.find(e.where().node);
    throw UserError(it != onnx_node_of_.end() ? it->second + ": " + e.reason() : e.reason());
  }
  return g;
}

nlohmann::json attributes_json(const onnx::NodeProto &node) {
  using AP = onnx::AttributeProto;
  nlohmann::json attrs = nlohmann::json::object();
  for (const AP &a : node.attribute()) {
    AP::AttributeType type = a.type();
    if (type == AP::UNDEFINED) {  // older writers leave the type out: take the field that is set
      if (a.has_i()) type = AP::INT;
      else if (a.has_f()) type = AP::FLOAT;
      else if (a.has_s()) type = AP::STRING;
      else if (a.ints_size()) type = AP::INTS;
      else if (a.floats_size()) type = AP::FLOATS;
      else if (a.strings_size()) type = AP::STRINGS;
    }
    nlohmann::json v;
    switch (type) {
    case AP::INT: v = a.i(); break;
    case AP::FLOAT: v = static_cast<double>(a.f()); break;
    case AP::STRING: v = a.s(); break;
    case AP::INTS: v = std::vector<std::int64_t>(a.ints().begin(), a.ints().end()); break;
    case AP::FLOATS:
      v = nlohmann::json::array();
      for (float f : a.floats()) v.push_back(static_cast<double>(f));
      break;
    case AP::STRINGS: v = std::vector<std::string>(a.strings().begin(), a.strings().end()); break;
    default: continue;
    }
    attrs[a.name()] = std::move(v);
  }
  return attrs;
}

namespace {

/// The type of a graph input from its ValueInfoProto: symbolic dimensions
/// (dim_param) become parameters of the graph, unnamed unknown dimensions
/// fresh ones.
TensorType input_type(const onnx::ValueInfoProto &vi, Importer &im, std::map<std::string, std::string> &param_names) {
  const std::string what = "input '" + vi.name() + "'";
  if (!vi.has_type() || !vi.type().has_tensor_type())
    throw UserError(what + " is not a tensor (sequences, maps and optional values are not supported)");
  const onnx::TypeProto::Tensor &tt = vi.type().tensor_type();
  TensorType t;
  t.dtype = onnx_import::atoll_dtype(tt.elem_type(), what);
  if (!tt.has_shape()) throw UserError(what + " has no shape (Atoll needs every input's rank)");
  for (int k = 0; k < tt.shape().dim_size(); ++k) {
    const auto &d = tt.shape().dim(k);
    if (d.has_dim_value()) {
      if (d.dim_value() <= 0)
        throw UserError(what + ": dimension " + std::to_string(k) + " is " + std::to_string(d.dim_value()) +
                        " (Atoll needs positive dimensions)");
      t.shape.push_back(Dim(d.dim_value()));
      continue;
    }
    std::string onnx_name = d.has_dim_param() && !d.dim_param().empty() ? d.dim_param()
                                                                         : vi.name() + "_dim" + std::to_string(k);
    auto it = param_names.find(onnx_name);
    if (it == param_names.end()) {
      std::string p = identifier(onnx_name, "dim");
      for (int n = 1; im.params.count(p); ++n) p = identifier(onnx_name, "dim") + "_" + std::to_string(n);
      im.params[p] = ParamRange{1, 1};
      it = param_names.emplace(onnx_name, p).first;
    }
    t.shape.push_back(Dim::sym(it->second));
  }
  return t;
}

/// Ranges of the symbolic dimensions: 1 to the largest value (at most 65536)
/// for which every input holds at most 2^32 elements with all of its
/// parameters at their maxima.
void set_param_ranges(Importer &im, const std::vector<TensorType> &types) {
  std::int64_t max = 65536;
  for (const TensorType &t : types) {
    int symbolic = 0;
    double fixed = 1;
    for (const Dim &d : t.shape) (d.is_symbolic() ? (void)++symbolic : (void)(fixed *= static_cast<double>(d.value)));
    if (symbolic == 0) continue;
    double room = static_cast<double>(kMaxTensorElements) / fixed;
    max = std::min<std::int64_t>(max, static_cast<std::int64_t>(std::floor(std::pow(room, 1.0 / symbolic))));
  }
  max = std::max<std::int64_t>(max, 1);
  for (auto &[name, range] : im.params) range = ParamRange{1, max};
}

/// The nodes in a topological order (Kahn's algorithm, the model's order
/// among ready nodes): ONNX requires a sorted list, but not every writer
/// keeps it. A cycle is an error naming one node on it.
std::vector<int> node_order(const onnx::GraphProto &graph, const std::set<std::string> &available) {
  const int n = graph.node_size();
  std::map<std::string, int> producer;
  for (int i = 0; i < n; ++i)
    for (const std::string &o : graph.node(i).output())
      if (!o.empty()) producer.emplace(o, i);
  std::vector<std::vector<int>> users(n);
  std::vector<int> pending(n, 0);
  for (int i = 0; i < n; ++i) {
    std::set<int> preds;
    for (const std::string &in : graph.node(i).input()) {
      if (in.empty() || available.count(in)) continue;
      auto p = producer.find(in);
      if (p != producer.end()) preds.insert(p->second);
    }
    for (int p : preds) users[p].push_back(i);
    pending[i] = static_cast<int>(preds.size());
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push(i);
  std::vector<int> order;
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int u : users[i])
      if (--pending[u] == 0) ready.push(u);
  }
  if (static_cast<int>(order.size()) != n) {
    for (int i = 0; i < n; ++i)
      if (pending[i] > 0) {
        const auto &node = graph.node(i);
        std::string who = node.name().empty() ? "node #" + std::to_string(i) : "node '" + node.name() + "'";
        throw UserError("the graph has a cycle through " + who + " (" + node.op_type() + ")");
      }
  }
  return order;
}

std::string file_stem_identifier(const std::string &path) {
  return identifier(std::filesystem::path(path).stem().string(), "model");
}

}  // namespace

}  // namespace onnx_import

bool is_onnx_path(const std::string &path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

namespace {

Graph read_onnx_model(onnx::ModelProto &model, const std::string &model_dir, const OnnxReadOptions &options);

/// The model's protobuf, parsed from the bytes of a .onnx file.
void parse_model(std::string_view bytes, onnx::ModelProto &model) {
  if (bytes.empty()) throw UserError("the file is empty, not an ONNX model");
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX))
    throw UserError("the model is larger than 2 GiB; ONNX stores such models with external data files");
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    std::size_t i = bytes.find_first_not_of(" \t\r\n");
    bool json = i != std::string_view::npos && bytes[i] == '{';
    throw UserError(std::string("not an ONNX model: the file does not parse as an ONNX protobuf (") +
                    (json ? "it looks like JSON: an Atoll batch is read from a .json file" : "corrupt or truncated?") +
                    ")");
  }
}

}  // namespace

Graph read_onnx_bytes(std::string_view bytes, const std::string &model_dir, const OnnxReadOptions &options) {
  onnx::ModelProto model;
  parse_model(bytes, model);
  return read_onnx_model(model, model_dir, options);
}

namespace {

Graph read_onnx_model(onnx::ModelProto &model, const std::string &model_dir, const OnnxReadOptions &options) {
  if (model.ir_version() <= 0 || !model.has_graph())
    throw UserError("not an ONNX model: no ir_version or no graph in the file");
  onnx::GraphProto &graph = *model.mutable_graph();
  Importer im(options.graph_name.empty() ? std::string("model") : options.graph_name, model_dir,
              options.fold_limit);
  for (const auto &op : model.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") im.opset = static_cast<int>(op.version());
  }
  if (im.opset == 0) {
    if (model.opset_import_size() > 0)
      throw UserError("the model imports no opset of the default ONNX domain (only " +
                      model.opset_import(0).domain() + "): not supported");
    im.opset = 1;  // IR version 1 models predate opset_import
  }
  // Opsets 24 to 28 added element types (4-bit and 8-bit floats, 2-bit
  // integers) and operators; of the operators Atoll has, only Mod changed
  // meaning (opset 28 allows fmod = 0 on floats, which Atoll refuses), so
  // reading them with the rules of opset 23 is right.
  if (im.opset > 28)
    throw UserError("the model uses opset " + std::to_string(im.opset) + "; Atoll reads opsets 1 to 28: not supported");

  for (const auto &t : graph.initializer()) im.reserve(t.name());
  for (const auto &vi : graph.input()) im.reserve(vi.name());
  for (const auto &n : graph.node())
    for (const std::string &o : n.output()) im.reserve(o);

  // Initializers are constants; a graph input of the same name (IR < 4
  // lists every initializer as an input too) is the initializer.
  std::set<std::string> available;
  // Each initializer's bytes are dropped once read: the model's weights are
  // then held once, as the importer's values, not twice.
  for (onnx::TensorProto &t : *graph.mutable_initializer()) {
    if (t.name().empty()) throw UserError("an initializer has no name");
    if (available.count(t.name())) throw UserError("initializer '" + t.name() + "' is given twice");
    im.define_constant(t.name(), onnx_import::read_tensor(t, model_dir, "initializer '" + t.name() + "'"));
    available.insert(t.name());
    t.clear_raw_data();
    t.clear_float_data();
    t.clear_double_data();
    t.clear_int32_data();
    t.clear_int64_data();
  }
  if (graph.sparse_initializer_size() > 0) throw UserError("sparse initializers are not supported");
  std::vector<std::string> inputs;
  std::vector<TensorType> input_types;
  std::map<std::string, std::string> param_names;
  for (const auto &vi : graph.input()) {
    if (available.count(vi.name())) continue;
    if (vi.name().empty()) throw UserError("a graph input has no name");
    TensorType t = onnx_import::input_type(vi, im, param_names);
    input_types.push_back(t);
    inputs.push_back(vi.name());
  }
  onnx_import::set_param_ranges(im, input_types);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    im.define_input(inputs[i], input_types[i]);
    available.insert(inputs[i]);
  }
  if (graph.output_size() == 0) throw UserError("the graph has no outputs");

  for (int i : onnx_import::node_order(graph, available)) {
    im.node = &graph.node(i);
    im.node_index = i;
    onnx_import::translate_node(im);
  }
  std::vector<std::string> outputs;
  for (const auto &vi : graph.output()) outputs.push_back(vi.name());
  return im.finish(inputs, outputs);
}

}  // namespace

Graph read_onnx_file(const std::string &path, const OnnxReadOptions &options) {
  onnx::ModelProto model;
  {
    // The file's bytes are freed once parsed.
    std::string bytes = read_file_text(path, "ONNX model");
    parse_model(bytes, model);
  }
  OnnxReadOptions o = options;
  if (o.graph_name.empty()) o.graph_name = onnx_import::file_stem_identifier(path);
  return read_onnx_model(model, file_directory(path), o);
}

Batch read_onnx_batch(const std::string &path) {
  Batch batch;
  Graph g = read_onnx_file(path);
  batch.name = g.name;
  BatchGraph entry;
  entry.name = g.name;
  entry.pointer = "/graphs/0";
  entry.graph = std::move(g);
  batch.graphs.push_back(std::move(entry));
  return batch;
}

Batch read_input_file(const std::string &path) {
  return is_onnx_path(path) ? read_onnx_batch(path) : read_batch_file(path);
}

}  // namespace atl
