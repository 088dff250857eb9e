// Reads an operator batch (batch-format.md) into checked graphs: every field
// validated with its JSON pointer; one failing graph does not stop the others.
#include "src/frontend/batch.h"

#include "graph/ir/op_registry.h"
#include "src/frontend/json_text.h"
#include "src/frontend/schedule_hints.h"
#include "src/runtime/files.h"
#include "src/runtime/npy.h"
#include "src/runtime/init_data.h"

#include <filesystem>
#include <regex>
#include <set>

namespace atl {

using frontend::pointer_join;
using nlohmann::json;

namespace {

const std::regex kBatchName("[A-Za-z_][A-Za-z0-9_.-]*");
const std::regex kIdent("[A-Za-z_][A-Za-z0-9_]*");

[[noreturn]] void field_error(const std::string &ptr, const std::string &what, const std::string &graph = {}) {
  throw UserError(what, {ptr, graph});
}

const char *json_kind(const json &j) {
  switch (j.type()) {
  case json::value_t::null: return "null";
  case json::value_t::boolean: return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned: return "an integer";
  case json::value_t::number_float: return "a number";
  case json::value_t::string: return "a string";
  case json::value_t::array: return "an array";
  case json::value_t::object: return "an object";
  default: return "something else";
  }
}

/// Reads a JSON object's fields against a list of known names.
class ObjectReader {
public:
  ObjectReader(const json &j, std::string ptr, std::string graph, std::initializer_list<const char *> known)
      : j_(j), ptr_(std::move(ptr)), graph_(std::move(graph)) {
    if (!j.is_object()) field_error(ptr_, std::string("expected an object, got ") + json_kind(j), graph_);
    for (const auto &[k, v] : j.items()) {
      bool ok = false;
      for (const char *n : known) ok |= k == n;
      if (!ok) {
        std::string list;
        for (const char *n : known) list += (list.empty() ? "" : ", ") + std::string(n);
        field_error(pointer_join(ptr_, k), "unknown field '" + k + "' (expected one of: " + list + ")", graph_);
      }
    }
  }
  const json *get(const char *key) const { return j_.contains(key) ? &j_.at(key) : nullptr; }
  const json &require(const char *key) const {
    if (!j_.contains(key)) field_error(ptr_, std::string("missing required field '") + key + "'", graph_);
    return j_.at(key);
  }
  std::string at(const char *key) const { return pointer_join(ptr_, key); }
  std::string string(const char *key, bool required, const std::regex *pattern = nullptr) const {
    const json *v = required ? &require(key) : get(key);
    if (!v) return {};
    if (!v->is_string()) field_error(at(key), std::string("expected a string, got ") + json_kind(*v), graph_);
    std::string s = v->get<std::string>();
    if (pattern && !std::regex_match(s, *pattern))
      field_error(at(key), "'" + s + "' is not a valid name (expected [A-Za-z_][A-Za-z0-9_]*)", graph_);
    return s;
  }
  const std::string &ptr() const { return ptr_; }

private:
  const json &j_;
  std::string ptr_, graph_;
};

DType read_dtype(const json &j, const std::string &ptr, const std::string &graph) {
  if (!j.is_string()) field_error(ptr, std::string("expected a dtype name, got ") + json_kind(j), graph);
  auto t = parse_dtype(j.get<std::string>());
  if (!t)
    field_error(ptr, "unknown dtype '" + j.get<std::string>() + "' (expected f32, f16, bf16, i8, i32, i64 or bool)",
                graph);
  return *t;
}

SymShape read_shape(const json &j, const std::string &ptr, const std::string &graph,
                    const std::map<std::string, ParamRange> &params) {
  if (!j.is_array()) field_error(ptr, std::string("expected a shape (an array), got ") + json_kind(j), graph);
  SymShape shape;
  std::int64_t elements = 1;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const json &d = j[i];
    std::string p = pointer_join(ptr, i);
    if (d.is_string()) {
      std::string s = d.get<std::string>();
      if (!params.count(s))
        field_error(p, "symbolic dimension '" + s + "' is not declared in the graph's params", graph);
      shape.push_back(Dim::sym(s));
      std::int64_t mx = params.at(s).max;
      if (elements > kMaxTensorElements / mx)
        field_error(ptr, "tensor is too large at the parameters' maxima (more than 2^32 elements)", graph);
      elements *= mx;
      continue;
    }
    if (!d.is_number_integer())
      field_error(p, std::string("expected a positive integer or a parameter name, got ") + json_kind(d), graph);
    if (d.is_number_unsigned() && d.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxTensorElements))
      field_error(p, "dimension " + d.dump() + " is too large (a tensor holds at most 2^32 elements)", graph);
    std::int64_t v = d.get<std::int64_t>();
    if (v <= 0) field_error(p, "dimension " + std::to_string(v) + " is not positive", graph);
    if (v > kMaxTensorElements || elements > kMaxTensorElements / v)
      field_error(ptr, "tensor has more than 2^32 elements", graph);
    elements *= v;
    shape.push_back(Dim(v));
  }
  return shape;
}

void flatten_data(const json &j, const std::string &ptr, const std::string &graph, std::vector<double> &out) {
  if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) flatten_data(j[i], pointer_join(ptr, i), graph, out);
  } else if (j.is_number()) {
    out.push_back(j.get<double>());
  } else if (j.is_boolean()) {
    out.push_back(j.get<bool>() ? 1.0 : 0.0);
  } else {
    field_error(ptr, std::string("expected a number, got ") + json_kind(j), graph);
  }
}

std::map<std::string, ParamRange> read_params(const json &j, const std::string &ptr, const std::string &graph) {
  std::map<std::string, ParamRange> params;
  if (!j.is_object()) field_error(ptr, std::string("expected an object of parameter ranges, got ") + json_kind(j), graph);
  for (const auto &[name, range] : j.items()) {
    std::string p = pointer_join(ptr, name);
    if (!std::regex_match(name, kIdent)) field_error(p, "'" + name + "' is not a valid parameter name", graph);
    ObjectReader r(range, p, graph, {"min", "max"});
    ParamRange pr;
    for (const char *k : {"min", "max"}) {
      const json &v = r.require(k);
      if (!v.is_number_integer()) field_error(r.at(k), std::string("expected an integer, got ") + json_kind(v), graph);
      std::int64_t x = v.get<std::int64_t>();
      if (x < 1 || x > kMaxTensorElements) field_error(r.at(k), "must be between 1 and 2^32", graph);
      (std::string(k) == "min" ? pr.min : pr.max) = x;
    }
    if (pr.max < pr.min) field_error(p, "max is smaller than min", graph);
    params[name] = pr;
  }
  return params;
}

/// A weight's values from an .npy file (`file`, relative to the batch's
/// directory): its shape must be the declared one, its element type the
/// dtype's NumPy type (write_npy's).
std::vector<double> read_weight_file(const std::string &file, const std::string &ptr, const std::string &graph,
                                     const TensorType &type, const std::string &base_dir) {
  if (!is_concrete(type.shape)) field_error(ptr, "a weight read from a file needs a concrete shape", graph);
  std::filesystem::path path = std::filesystem::path(file).is_absolute() ? std::filesystem::path(file)
                                                                          : std::filesystem::path(base_dir) / file;
  Tensor t;
  std::string descr;
  try {
    t = read_npy(path.string(), &descr);
  } catch (const UserError &e) {
    field_error(ptr, e.reason(), graph);
  }
  if (descr != npy_type(type.dtype))
    field_error(ptr, "'" + file + "' holds " + descr + " values, expected " + npy_type(type.dtype) + " for " +
                         dtype_name(type.dtype), graph);
  if (t.shape != concrete_shape(type.shape))
    field_error(ptr, "'" + file + "' has shape " + shape_to_string(t.shape) + ", the weight is declared " +
                         sym_shape_to_string(type.shape), graph);
  for (double &v : t.data) v = round_to(type.dtype, v);
  return std::move(t.data);
}

void read_tensor_list(const json &j, const std::string &ptr, const std::string &graph, bool weights, DType dflt,
                      Graph &g, const std::string &base_dir) {
  if (!j.is_array()) field_error(ptr, std::string("expected an array of tensors, got ") + json_kind(j), graph);
  for (std::size_t i = 0; i < j.size(); ++i) {
    std::string p = pointer_join(ptr, i);
    ObjectReader r(j[i], p, graph,
                   weights ? std::initializer_list<const char *>{"name", "shape", "dtype", "init", "data", "file"}
                           : std::initializer_list<const char *>{"name", "shape", "dtype", "init"});
    std::string name = r.string("name", true);
    if (name.empty()) field_error(r.at("name"), "tensor name is empty", graph);
    TensorType type;
    type.shape = read_shape(r.require("shape"), r.at("shape"), graph, g.params);
    type.dtype = r.get("dtype") ? read_dtype(*r.get("dtype"), r.at("dtype"), graph) : dflt;
    std::string init = r.string("init", false);
    try {
      (void)parse_init(init);
    } catch (const UserError &e) {
      field_error(r.at("init"), e.reason(), graph);
    }
    std::optional<std::vector<double>> data;
    if (const json *d = r.get("data")) {
      data.emplace();
      flatten_data(*d, r.at("data"), graph, *data);
      if (is_concrete(type.shape)) {
        std::int64_t n = shape_numel(concrete_shape(type.shape));
        if (static_cast<std::int64_t>(data->size()) != n)
          field_error(r.at("data"), "has " + std::to_string(data->size()) + " values but shape " +
                                        sym_shape_to_string(type.shape) + " holds " + std::to_string(n),
                      graph);
      }
      for (double &v : *data) v = round_to(type.dtype, v);
    }
    if (const json *f = r.get("file")) {
      if (data) field_error(r.at("file"), "a weight has either 'data' or 'file', not both", graph);
      if (!f->is_string() || f->get<std::string>().empty())
        field_error(r.at("file"), std::string("expected a file name, got ") + json_kind(*f), graph);
      data = read_weight_file(f->get<std::string>(), r.at("file"), graph, type, base_dir);
    }
    if (g.has_tensor(name)) field_error(r.at("name"), "duplicate tensor name '" + name + "'", graph);
    if (weights)
      g.add_weight(name, type, init, std::move(data));
    else
      g.add_input(name, type, init);
    g.set_tensor_pointer(name, p);
  }
}

void read_nodes(const json &j, const std::string &ptr, const std::string &graph, Graph &g) {
  if (!j.is_array()) field_error(ptr, std::string("expected an array of nodes, got ") + json_kind(j), graph);
  for (std::size_t i = 0; i < j.size(); ++i) {
    std::string p = pointer_join(ptr, i);
    ObjectReader r(j[i], p, graph, {"op", "name", "inputs", "outputs", "attrs"});
    Node n;
    n.pointer = p;
    n.op = r.string("op", true);
    n.name = r.string("name", false, &kIdent);
    const OpInfo *op = find_op(n.op);
    if (!op)  // named as the graph would name it (an unnamed node is n<position>)
      throw UserError("unknown operator '" + n.op + "'", {r.at("op"), graph, n.name.empty() ? "n" + std::to_string(i) : n.name});
    for (const char *key : {"inputs", "outputs"}) {
      const json *list = std::string(key) == "inputs" ? &r.require(key) : &r.require(key);
      if (!list->is_array()) field_error(r.at(key), std::string("expected an array of tensor names, got ") + json_kind(*list), graph);
      for (std::size_t k = 0; k < list->size(); ++k) {
        const json &t = (*list)[k];
        if (!t.is_string())
          field_error(pointer_join(r.at(key), k), std::string("expected a tensor name, got ") + json_kind(t), graph);
        std::string name = t.get<std::string>();
        if (std::string(key) == "outputs" && name.empty())
          field_error(pointer_join(r.at(key), k), "an output needs a name", graph);
        (std::string(key) == "inputs" ? n.inputs : n.outputs).push_back(name);
      }
    }
    if (const json *attrs = r.get("attrs")) {
      if (!attrs->is_object()) field_error(r.at("attrs"), std::string("expected an object, got ") + json_kind(*attrs), graph);
      for (const auto &[k, v] : attrs->items()) {
        std::string ap = pointer_join(r.at("attrs"), k);
        const AttrSpec *spec = nullptr;
        for (const AttrSpec &s : op->attrs)
          if (k == s.name) spec = &s;
        if (!spec) {
          std::string list;
          for (const AttrSpec &s : op->attrs) list += (list.empty() ? "" : ", ") + std::string(s.name);
          throw UserError("unknown attribute '" + k + "' of " + n.op + " (accepted: " + (list.empty() ? "none" : list) + ")",
                          {ap, graph, n.name});
        }
        if (!attr_kind_matches(spec->kind, v, true))
          throw UserError(std::string("expected ") + attr_kind_text(spec->kind) + ", got " + json_kind(v), {ap, graph, n.name});
      }
      n.attrs = *attrs;
    }
    g.add_node(std::move(n));
  }
}

Graph read_graph(const json &j, const std::string &ptr, const std::string &name, DType dflt,
                 const std::string &base_dir) {
  ObjectReader r(j, ptr, name, {"name", "inputs", "weights", "outputs", "nodes", "params", "schedule"});
  Graph g;
  g.name = name;
  g.pointer = ptr;
  if (const json *p = r.get("params")) g.params = read_params(*p, r.at("params"), name);
  read_tensor_list(r.require("inputs"), r.at("inputs"), name, false, dflt, g, base_dir);
  if (const json *w = r.get("weights")) read_tensor_list(*w, r.at("weights"), name, true, dflt, g, base_dir);
  const json &outs = r.require("outputs");
  if (!outs.is_array() || outs.empty())
    field_error(r.at("outputs"), "expected a non-empty array of tensor names", name);
  for (std::size_t i = 0; i < outs.size(); ++i) {
    if (!outs[i].is_string())
      field_error(pointer_join(r.at("outputs"), i), std::string("expected a tensor name, got ") + json_kind(outs[i]), name);
    g.add_output(outs[i].get<std::string>());
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < g.outputs.size(); ++i)
    if (!seen.insert(g.outputs[i]).second)
      field_error(pointer_join(r.at("outputs"), i), "output '" + g.outputs[i] + "' is listed twice", name);
  read_nodes(r.require("nodes"), r.at("nodes"), name, g);
  g.finalize();
  if (const json *s = r.get("schedule")) g.schedule = frontend::read_schedule_hints(*s, r.at("schedule"), g);
  return g;
}

}  // namespace

Batch read_batch(std::string_view text, const std::string &base_dir) {
  json root = frontend::parse_json(text);
  ObjectReader r(root, "", "", {"atoll", "name", "defaults", "graphs"});
  const json &version = r.require("atoll");
  if (!version.is_number_integer() || version.get<std::int64_t>() != 1)
    field_error("/atoll", "unsupported batch format version " + version.dump() + " (expected the integer 1)");
  Batch batch;
  batch.name = r.string("name", false, nullptr);
  if (!batch.name.empty() && !std::regex_match(batch.name, kBatchName))
    field_error("/name", "'" + batch.name + "' is not a valid batch name (expected [A-Za-z_][A-Za-z0-9_.-]*)");
  if (const json *d = r.get("defaults")) {
    ObjectReader dr(*d, "/defaults", "", {"dtype"});
    if (const json *t = dr.get("dtype")) batch.default_dtype = read_dtype(*t, "/defaults/dtype", "");
  }
  const json &graphs = r.require("graphs");
  if (!graphs.is_array()) field_error("/graphs", std::string("expected an array of graphs, got ") + json_kind(graphs));
  if (graphs.empty()) field_error("/graphs", "the batch has no graphs");
  std::map<std::string, std::size_t> names;
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    const json &gj = graphs[i];
    if (gj.is_object() && gj.contains("name") && gj["name"].is_string()) {
      std::string n = gj["name"].get<std::string>();
      auto [it, fresh] = names.emplace(n, i);
      if (!fresh)
        field_error(pointer_join(pointer_join("/graphs", i), "name"),
                    "duplicate graph name '" + n + "' (also /graphs/" + std::to_string(it->second) + ")");
    }
  }
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    const json &gj = graphs[i];
    BatchGraph entry;
    entry.pointer = pointer_join("/graphs", i);
    entry.name = "graphs[" + std::to_string(i) + "]";
    try {
      if (gj.is_object() && gj.contains("name") && gj["name"].is_string()) entry.name = gj["name"].get<std::string>();
      ObjectReader gr(gj, entry.pointer, "", {"name", "inputs", "weights", "outputs", "nodes", "params", "schedule"});
      std::string name = gr.string("name", true, &kIdent);
      entry.graph = read_graph(gj, entry.pointer, name, batch.default_dtype, base_dir);
    } catch (const UserError &e) {
      Location where = e.where();
      if (where.graph.empty() && entry.name.rfind("graphs[", 0) != 0) where.graph = entry.name;
      entry.error = UserError(e.reason(), where);
    }
    batch.graphs.push_back(std::move(entry));
  }
  return batch;
}

Batch read_batch_file(const std::string &path) {
  return read_batch(read_file_text(path, "batch file"), file_directory(path));
}

}  // namespace atl
