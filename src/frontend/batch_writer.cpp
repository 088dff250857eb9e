// Writes graphs as a batch file, large weights as .npy files beside it.
#include "src/frontend/batch_writer.h"

#include "src/runtime/files.h"
#include "src/runtime/npy.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>

namespace atl {

namespace {

using json = nlohmann::ordered_json;

json shape_json(const SymShape &shape) {
  json s = json::array();
  for (const Dim &d : shape) d.is_symbolic() ? s.push_back(d.symbol) : s.push_back(d.value);
  return s;
}

/// A value as JSON: integers of integer and bool tensors as integers, others as numbers.
json value_json(DType t, double v) {
  if (!is_float(t)) return static_cast<std::int64_t>(v);
  return v;
}

/// Whether JSON can hold the values (it has no NaN or infinity).
bool all_finite(const std::vector<double> &data) {
  for (double v : data)
    if (!std::isfinite(v)) return false;
  return true;
}

json tensor_json(const TensorDecl &t) {
  json j = {{"name", t.name}, {"shape", shape_json(t.type.shape)}, {"dtype", dtype_name(t.type.dtype)}};
  if (!t.init.empty()) j["init"] = t.init;
  return j;
}

}  // namespace

std::vector<std::string> write_batch_file(const std::string &batch_name, const std::vector<const Graph *> &graphs,
                                          const std::string &path, const BatchWriteOptions &options) {
  namespace fs = std::filesystem;
  fs::path out(path);
  std::string data_dir_name = out.stem().string() + ".data";
  fs::path data_dir = out.parent_path() / data_dir_name;
  std::vector<std::string> written = {path};
  // One tensor or node a line, in the batch format's field order.
  auto line = [](const json &j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  auto list = [&](const std::vector<std::string> &items, const std::string &indent) {
    std::string text = "[\n";
    for (std::size_t i = 0; i < items.size(); ++i) text += indent + "  " + items[i] + (i + 1 < items.size() ? ",\n" : "\n");
    return text + indent + "]";
  };
  std::string text = "{\n  \"atoll\": 1,\n";
  if (!batch_name.empty()) text += "  \"name\": " + line(batch_name) + ",\n";
  text += "  \"graphs\": [\n";
  std::error_code ec;
  for (std::size_t gi = 0; gi < graphs.size(); ++gi) {
    const Graph *g = graphs[gi];
    text += "    {\n      \"name\": " + line(g->name) + ",\n";
    if (!g->params.empty()) {
      json params = json::object();
      for (const auto &[name, r] : g->params) params[name] = {{"min", r.min}, {"max", r.max}};
      text += "      \"params\": " + line(params) + ",\n";
    }
    std::vector<std::string> inputs, weights, nodes;
    for (const std::string &in : g->inputs) inputs.push_back(line(tensor_json(g->tensor(in))));
    for (const std::string &w : g->weights) {
      const TensorDecl &t = g->tensor(w);
      json wj = tensor_json(t);
      if (t.data && static_cast<std::int64_t>(t.data->size()) <= options.inline_limit && all_finite(*t.data)) {
        json d = json::array();
        for (double v : *t.data) d.push_back(value_json(t.type.dtype, v));
        wj["data"] = d;
      } else if (t.data) {
        Tensor value(t.type.dtype, concrete_shape(t.type.shape));
        value.data = *t.data;
        fs::create_directories(data_dir, ec);
        std::string file = (graphs.size() > 1 ? npy_file_name(g->name) + "." : std::string()) + npy_file_name(w) + ".npy";
        write_npy((data_dir / file).string(), value);
        written.push_back((data_dir / file).string());
        wj["file"] = data_dir_name + "/" + file;
      }
      weights.push_back(line(wj));
    }
    for (NodeId v : g->order()) {
      const Node &n = g->node(v);
      json nj = {{"op", n.op}, {"name", n.name}, {"inputs", n.inputs}, {"outputs", n.outputs}};
      if (!n.attrs.empty()) nj["attrs"] = json::parse(n.attrs.dump());
      nodes.push_back(line(nj));
    }
    text += "      \"inputs\": " + list(inputs, "      ") + ",\n";
    if (!weights.empty()) text += "      \"weights\": " + list(weights, "      ") + ",\n";
    text += "      \"outputs\": " + line(json(g->outputs)) + ",\n";
    text += "      \"nodes\": " + list(nodes, "      ") + "\n";
    text += std::string("    }") + (gi + 1 < graphs.size() ? "," : "") + "\n";
  }
  text += "  ]\n}\n";
  if (out.has_parent_path()) fs::create_directories(out.parent_path(), ec);
  write_file_atomically(path, text);
  return written;
}

}  // namespace atl
