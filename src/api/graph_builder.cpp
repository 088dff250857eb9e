// GraphBuilder (include/atoll/graph.h): the public way to build a graph,
// a thin layer over the graph IR (graph/ir/graph.h) and the batch reader.
#include "src/api/graph_builder.h"

#include "src/frontend/batch.h"
#include "src/frontend/json_text.h"

#include <nlohmann/json.hpp>

#include <sstream>
#include <utility>

namespace atl {

namespace {

nlohmann::json attr_json(const Attr &a) {
  return std::visit([](const auto &v) { return nlohmann::json(v); }, a.value());
}

}  // namespace

UserError relative_to_graph(const UserError &e) {
  static const std::string prefix = "/graphs/0";
  Location where = e.where();
  if (where.pointer.rfind(prefix, 0) == 0 &&
      (where.pointer.size() == prefix.size() || where.pointer[prefix.size()] == '/'))
    where.pointer = where.pointer.substr(prefix.size());
  return UserError(e.reason(), where);
}

Graph read_graph_object(const std::string &text) {
  try {
    nlohmann::json g = frontend::parse_json(text);
    if (!g.is_object())
      throw UserError("expected a graph object (batch-format.md), got " + std::string(g.type_name()));
    nlohmann::json batch = {{"atoll", 1}, {"graphs", nlohmann::json::array({std::move(g)})}};
    Batch b = read_batch(batch.dump());
    BatchGraph &entry = b.graphs.at(0);
    if (entry.error) throw *entry.error;
    return std::move(*entry.graph);
  } catch (const UserError &e) {
    throw relative_to_graph(e);
  }
}

const GraphBuilder::Impl &graph_builder_impl(const GraphBuilder &builder) {
  if (!builder.impl_) throw UserError("GraphBuilder: the builder was moved from");
  return *builder.impl_;
}

GraphBuilder make_graph_builder(std::unique_ptr<GraphBuilder::Impl> impl) {
  GraphBuilder b("");
  b.impl_ = std::move(impl);
  return b;
}

GraphBuilder builder_from_graph(Graph graph) {
  auto impl = std::make_unique<GraphBuilder::Impl>();
  impl->graph = std::move(graph);
  impl->finalized = true;
  return make_graph_builder(std::move(impl));
}

GraphBuilder::GraphBuilder(std::string name) : impl_(std::make_unique<Impl>()) { impl_->graph.name = std::move(name); }

GraphBuilder GraphBuilder::from_json(const std::string &graph_json) { return builder_from_graph(read_graph_object(graph_json)); }

GraphBuilder::GraphBuilder(const GraphBuilder &other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
GraphBuilder &GraphBuilder::operator=(const GraphBuilder &other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}
GraphBuilder::GraphBuilder(GraphBuilder &&other) noexcept = default;
GraphBuilder &GraphBuilder::operator=(GraphBuilder &&other) noexcept = default;
GraphBuilder::~GraphBuilder() = default;

namespace {

/// A moved-from builder has no graph; every call on it is a UserError.
void check_held(const std::unique_ptr<GraphBuilder::Impl> &impl, const char *what) {
  if (!impl) throw UserError(std::string("GraphBuilder::") + what + ": the builder was moved from");
}

GraphBuilder::Impl &editable(std::unique_ptr<GraphBuilder::Impl> &impl, const char *what) {
  check_held(impl, what);
  if (impl->finalized)
    throw UserError(std::string("GraphBuilder::") + what + ": graph '" + impl->graph.name +
                    "' is finalized; build another graph to change it");
  return *impl;
}

const GraphBuilder::Impl &checked(const std::unique_ptr<GraphBuilder::Impl> &impl, const char *what) {
  check_held(impl, what);
  if (!impl->finalized)
    throw UserError(std::string("GraphBuilder::") + what + ": graph '" + impl->graph.name +
                    "' is not finalized (call finalize() first)");
  return *impl;
}

}  // namespace

void GraphBuilder::add_param(const std::string &name, std::int64_t min, std::int64_t max) {
  Impl &i = editable(impl_, "add_param");
  if (i.graph.params.count(name)) throw UserError("duplicate parameter '" + name + "'", {"", i.graph.name});
  i.graph.params[name] = {min, max};
}

void GraphBuilder::add_input(const std::string &name, TensorType type, std::string init) {
  editable(impl_, "add_input").graph.add_input(name, std::move(type), std::move(init));
}

void GraphBuilder::add_weight(const std::string &name, TensorType type, std::string init) {
  editable(impl_, "add_weight").graph.add_weight(name, std::move(type), std::move(init));
}

void GraphBuilder::add_weight_data(const std::string &name, TensorType type, std::vector<double> data) {
  editable(impl_, "add_weight_data").graph.add_weight(name, std::move(type), {}, std::move(data));
}

void GraphBuilder::add_node(const std::string &op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                            const std::map<std::string, Attr> &attrs, const std::string &name) {
  Impl &i = editable(impl_, "add_node");
  Node n;
  n.op = op;
  n.name = name;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  for (const auto &[key, value] : attrs) n.attrs[key] = attr_json(value);
  i.graph.add_node(std::move(n));
}

void GraphBuilder::add_output(const std::string &name) { editable(impl_, "add_output").graph.add_output(name); }

void GraphBuilder::finalize() {
  Impl &i = editable(impl_, "finalize");
  i.graph.finalize();
  i.finalized = true;
}

bool GraphBuilder::finalized() const { return impl_ && impl_->finalized; }

const std::string &GraphBuilder::name() const {
  check_held(impl_, "name");
  return impl_->graph.name;
}

std::vector<std::string> GraphBuilder::inputs() const { return checked(impl_, "inputs").graph.inputs; }
std::vector<std::string> GraphBuilder::weights() const { return checked(impl_, "weights").graph.weights; }
std::vector<std::string> GraphBuilder::outputs() const { return checked(impl_, "outputs").graph.outputs; }

TensorType GraphBuilder::tensor_type(const std::string &tensor) const {
  return checked(impl_, "tensor_type").graph.tensor(tensor).type;
}

std::int64_t GraphBuilder::flops(const std::map<std::string, std::int64_t> &params) const {
  const Graph &g = checked(impl_, "flops").graph;
  return g.params.empty() ? g.flops() : g.instantiate(params).flops();
}

std::string GraphBuilder::text() const {
  std::ostringstream os;
  print_graph(os, checked(impl_, "text").graph);
  return os.str();
}

std::string GraphBuilder::dot() const {
  std::ostringstream os;
  print_graph_dot(os, checked(impl_, "dot").graph);
  return os.str();
}

}  // namespace atl
