// The ONNX reader on models built here with ONNX's protobuf classes: node
// order, folding, older opsets' rules, external data, and every truncation
// and many byte flips of a model (a UserError or a graph, never a crash).
#include "src/frontend/onnx_reader.h"

#include "graph/passes/evaluate_node.h"

#include <onnx/onnx_pb.h>

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <random>

namespace atl {
namespace {

onnx::ValueInfoProto value_info(const std::string &name, std::vector<std::int64_t> shape, int type = 1) {
  onnx::ValueInfoProto vi;
  vi.set_name(name);
  auto *tt = vi.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  auto *s = tt->mutable_shape();
  for (std::int64_t d : shape) s->add_dim()->set_dim_value(d);
  return vi;
}

onnx::NodeProto *add_node(onnx::GraphProto *g, const std::string &op, std::vector<std::string> in,
                          std::vector<std::string> out, const std::string &name = {}) {
  onnx::NodeProto *n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const auto &i : in) n->add_input(i);
  for (const auto &o : out) n->add_output(o);
  return n;
}

void add_int_attr(onnx::NodeProto *n, const std::string &name, std::int64_t v) {
  auto *a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void add_floats_init(onnx::GraphProto *g, const std::string &name, std::vector<std::int64_t> dims,
                     const std::vector<float> &values) {
  onnx::TensorProto *t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t->add_dims(d);
  for (float v : values) t->add_float_data(v);
}

onnx::ModelProto make_model(int opset) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto *op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  m.mutable_graph()->set_name("g");
  return m;
}

std::string bytes_of(const onnx::ModelProto &m) {
  std::string s;
  REQUIRE(m.SerializeToString(&s));
  return s;
}

Graph read(const onnx::ModelProto &m, const std::string &dir = ".") {
  OnnxReadOptions o;
  o.graph_name = "g";
  return read_onnx_bytes(bytes_of(m), dir, o);
}

/// A model: y = Relu(x + w) * 2, with nodes listed in reverse order.
onnx::ModelProto small_model() {
  onnx::ModelProto m = make_model(17);
  auto *g = m.mutable_graph();
  *g->add_input() = value_info("x", {2, 3});
  *g->add_output() = value_info("y", {2, 3});
  add_floats_init(g, "w", {2, 3}, {1, -2, 3, -4, 5, -6});
  add_floats_init(g, "two", {}, {2});
  add_node(g, "Mul", {"r", "two"}, {"y"}, "mul");
  add_node(g, "Relu", {"s"}, {"r"}, "relu");
  add_node(g, "Add", {"x", "w"}, {"s"}, "add");
  return m;
}

TEST_CASE("onnx: nodes in any order are read in a topological order") {
  Graph g = read(small_model());
  REQUIRE(g.num_nodes() == 3);
  std::vector<std::string> ops;
  for (NodeId v : g.order()) ops.push_back(g.node(v).op);
  CHECK(ops == std::vector<std::string>{"Add", "Relu", "Mul"});
  CHECK(g.inputs == std::vector<std::string>{"x"});
  CHECK(g.tensor("w").data.has_value());
}

TEST_CASE("onnx: weights and intermediates get identifier names; inputs and outputs keep theirs") {
  onnx::ModelProto m = make_model(17);
  auto *g = m.mutable_graph();
  *g->add_input() = value_info("in/x:0", {2, 3});
  *g->add_output() = value_info("out.y", {2, 3});
  add_floats_init(g, "block1/w", {2, 3}, {1, -2, 3, -4, 5, -6});
  add_floats_init(g, "block1_w", {2, 3}, {1, 1, 1, 1, 1, 1});  // the renamed name is taken
  add_floats_init(g, "max", {}, {2});                           // a Compute function's name
  add_node(g, "Add", {"in/x:0", "block1/w"}, {"sum/"}, "add");
  add_node(g, "Add", {"sum/", "block1_w"}, {"s2"}, "add2");
  add_node(g, "Mul", {"s2", "max"}, {"out.y"}, "mul");
  Graph r = read(m);
  CHECK(r.inputs == std::vector<std::string>{"in/x:0"});
  CHECK(r.outputs == std::vector<std::string>{"out.y"});
  std::vector<std::string> names;
  for (const auto &[name, decl] : r.tensors()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"block1_w", "block1_w_1", "in/x:0", "out.y", "s2", "sum_v", "t_max"});
  REQUIRE(r.tensor("block1_w_1").data);
  CHECK(*r.tensor("block1_w_1").data == std::vector<double>{1, -2, 3, -4, 5, -6});
  REQUIRE(r.tensor("block1_w").data);
  CHECK(*r.tensor("block1_w").data == std::vector<double>{1, 1, 1, 1, 1, 1});
  REQUIRE(r.tensor("t_max").data);
  CHECK(*r.tensor("t_max").data == std::vector<double>{2});
}

TEST_CASE("onnx: an initializer also listed as a graph input (IR 3) is a weight") {
  onnx::ModelProto m = small_model();
  m.set_ir_version(3);
  *m.mutable_graph()->add_input() = value_info("w", {2, 3});
  Graph g = read(m);
  CHECK(g.inputs == std::vector<std::string>{"x"});
  CHECK(g.tensor("w").role == TensorRole::Weight);
}

TEST_CASE("onnx: opset 12 Hardmax flattens as Softmax: one 1 in each row of the trailing dimensions") {
  onnx::ModelProto m = make_model(12);
  auto *g = m.mutable_graph();
  *g->add_input() = value_info("x", {2, 3, 4});
  *g->add_output() = value_info("y", {2, 3, 4});
  add_int_attr(add_node(g, "Hardmax", {"x"}, {"y"}, "hm"), "axis", 1);
  Graph graph = read(m);
  std::vector<std::string> ops;
  for (NodeId v : graph.order()) ops.push_back(graph.node(v).op);
  CHECK(ops == std::vector<std::string>{"Reshape", "Hardmax", "Reshape"});
  Tensor x(DType::F32, {2, 3, 4});
  for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, static_cast<double>(i % 7));
  std::map<std::string, Tensor> values = {{"x", x}};
  for (NodeId v : graph.order()) {
    std::map<std::string, const Tensor *> in;
    for (const std::string &t : graph.node(v).inputs)
      if (!t.empty()) in[t] = &values.at(t);
    values[graph.node(v).outputs[0]] = evaluate_node(graph, v, in)[0];
  }
  // Rows of 12 (i % 7): the first maximum, 6, is at 6 in the first row and at 13 in the second.
  const Tensor &y = values.at("y");
  for (std::int64_t i = 0; i < y.numel(); ++i) CHECK(y.get(i) == (i == 6 || i == 13 ? 1.0 : 0.0));
}

TEST_CASE("onnx: opset 12 Softmax on a middle axis flattens the trailing dimensions") {
  onnx::ModelProto m = make_model(12);
  auto *g = m.mutable_graph();
  *g->add_input() = value_info("x", {2, 3, 4});
  *g->add_output() = value_info("y", {2, 3, 4});
  add_int_attr(add_node(g, "Softmax", {"x"}, {"y"}, "sm"), "axis", 1);
  Graph graph = read(m);
  std::vector<std::string> ops;
  for (NodeId v : graph.order()) ops.push_back(graph.node(v).op);
  CHECK(ops == std::vector<std::string>{"Reshape", "Softmax", "Reshape"});
  // Values: each row of 12 sums to one.
  Tensor x(DType::F32, {2, 3, 4});
  for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, 0.1 * static_cast<double>(i % 7));
  std::map<std::string, Tensor> values = {{"x", x}};
  for (NodeId v : graph.order()) {
    std::map<std::string, const Tensor *> in;
    for (const std::string &t : graph.node(v).inputs)
      if (!t.empty()) in[t] = &values.at(t);
    values[graph.node(v).outputs[0]] = evaluate_node(graph, v, in)[0];
  }
  const Tensor &y = values.at("y");
  for (int row = 0; row < 2; ++row) {
    double sum = 0;
    for (int k = 0; k < 12; ++k) sum += y.get(row * 12 + k);
    CHECK(sum == doctest::Approx(1.0));
  }
}

TEST_CASE("onnx: a shape sub-graph folds into Reshape's shape") {
  onnx::ModelProto m = make_model(17);
  auto *g = m.mutable_graph();
  *g->add_input() = value_info("x", {2, 3, 4});
  *g->add_output() = value_info("y", {2, 12});
  add_node(g, "Shape", {"x"}, {"s"});
  onnx::NodeProto *c = add_node(g, "Constant", {}, {"i"});
  auto *a = c->add_attribute();
  a->set_name("value_ints");
  a->set_type(onnx::AttributeProto::INTS);
  a->add_ints(0);
  add_node(g, "Gather", {"s", "i"}, {"n"});
  onnx::NodeProto *k = add_node(g, "Constant", {}, {"m1"});
  auto *b = k->add_attribute();
  b->set_name("value_ints");
  b->set_type(onnx::AttributeProto::INTS);
  b->add_ints(-1);
  add_int_attr(add_node(g, "Concat", {"n", "m1"}, {"shape"}), "axis", 0);
  add_node(g, "Reshape", {"x", "shape"}, {"y"}, "reshape");
  Graph graph = read(m);
  REQUIRE(graph.num_nodes() == 1);
  const Node &n = graph.node(graph.order()[0]);
  CHECK(n.op == "Reshape");
  CHECK(n.attrs.at("shape") == nlohmann::json({2, -1}));
  CHECK(graph.tensor("y").type.str() == "f32[2, 12]");
}

TEST_CASE("onnx: an output that folds to a constant gets an Identity node") {
  onnx::ModelProto m = make_model(17);
  auto *g = m.mutable_graph();
  *g->add_input() = value_info("x", {5, 7});
  *g->add_output() = value_info("s", {2}, 7);
  add_node(g, "Shape", {"x"}, {"s"});
  Graph graph = read(m);
  REQUIRE(graph.num_nodes() == 1);
  const Node &n = graph.node(graph.order()[0]);
  CHECK(n.op == "Identity");
  CHECK(*graph.tensor(n.inputs[0]).data == std::vector<double>{5, 7});
}

TEST_CASE("onnx: external data with an offset, and errors for a missing or short file") {
  auto dir = std::filesystem::temp_directory_path() / "atoll_onnx_external_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir / "w.bin", std::ios::binary);
    std::vector<float> pad = {99, 99}, w = {1, 2, 3, 4, 5, 6};
    f.write(reinterpret_cast<const char *>(pad.data()), 8);
    f.write(reinterpret_cast<const char *>(w.data()), 24);
  }
  onnx::ModelProto m = small_model();
  onnx::TensorProto *t = m.mutable_graph()->mutable_initializer(0);
  t->clear_float_data();
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto kv = [&](const char *k, const char *v) {
    auto *e = t->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  kv("location", "w.bin");
  kv("offset", "8");
  kv("length", "24");
  Graph g = read(m, dir.string());
  CHECK(*g.tensor("w").data == std::vector<double>{1, 2, 3, 4, 5, 6});
  t->mutable_external_data(1)->set_value("16");
  CHECK_THROWS_WITH_AS(read(m, dir.string()), doctest::Contains("fewer than offset 16 + length 24"), UserError);
  t->mutable_external_data(0)->set_value("../w.bin");
  CHECK_THROWS_WITH_AS(read(m, dir.string()), doctest::Contains("not inside the model's directory"), UserError);
  t->mutable_external_data(0)->set_value("nowhere.bin");
  CHECK_THROWS_WITH_AS(read(m, dir.string()), doctest::Contains("'nowhere.bin' not found"), UserError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("onnx: opset 6 broadcasting with an axis aligns B inside A") {
  onnx::ModelProto m = make_model(6);
  auto *g = m.mutable_graph();
  *g->add_input() = value_info("x", {2, 3, 4});
  *g->add_output() = value_info("y", {2, 3, 4});
  add_floats_init(g, "b", {3}, {10, 20, 30});
  onnx::NodeProto *n = add_node(g, "Add", {"x", "b"}, {"y"}, "add");
  add_int_attr(n, "broadcast", 1);
  add_int_attr(n, "axis", 1);
  Graph graph = read(m);
  // The aligned constant folds to shape [1, 3, 1].
  const Node &add = graph.node(graph.order().back());
  CHECK(add.op == "Add");
  CHECK(graph.tensor(add.inputs[1]).type.str() == "f32[1, 3, 1]");
}

TEST_CASE("onnx: symbolic dimensions become parameters with a range that fits 2^32 elements") {
  onnx::ModelProto m = make_model(17);
  auto *g = m.mutable_graph();
  onnx::ValueInfoProto x = value_info("x", {});
  auto *shape = x.mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->add_dim()->set_dim_param("batch size");
  shape->add_dim()->set_dim_value(1 << 20);
  *g->add_input() = x;
  *g->add_output() = value_info("y", {});
  add_node(g, "Relu", {"x"}, {"y"});
  Graph graph = read(m);
  REQUIRE(graph.params.count("batch_size"));
  CHECK(graph.params.at("batch_size").max == 4096);
  CHECK(graph.tensor("x").type.str() == "f32[batch_size, 1048576]");
}

TEST_CASE("onnx: every truncation and random byte flips give a graph or a UserError") {
  const std::string bytes = bytes_of(small_model());
  OnnxReadOptions o;
  int errors = 0, graphs = 0;
  auto attempt = [&](const std::string &b) {
    try {
      (void)read_onnx_bytes(b, ".", o);
      ++graphs;
    } catch (const UserError &) {
      ++errors;
    }
  };
  for (std::size_t n = 0; n < bytes.size(); ++n) attempt(bytes.substr(0, n));
  std::mt19937 rng(5);
  for (int k = 0; k < 2000; ++k) {
    std::string b = bytes;
    for (int f = 0; f < 1 + k % 4; ++f) b[rng() % b.size()] = static_cast<char>(rng() & 0xff);
    attempt(b);
  }
  CHECK(errors > 0);
  CHECK(errors + graphs == static_cast<int>(bytes.size()) + 2000);
}

/// Evaluates a read graph node by node on `values` (its inputs), with the
/// values of its weights.
std::map<std::string, Tensor> evaluate_graph(const Graph &graph, std::map<std::string, Tensor> values) {
  for (NodeId v : graph.order()) {
    std::map<std::string, const Tensor *> in;
    for (const std::string &t : graph.node(v).inputs) {
      if (t.empty()) continue;
      if (!values.count(t)) {
        const auto &info = graph.tensor(t);
        REQUIRE(info.data.has_value());
        Tensor w(info.type.dtype, concrete_shape(info.type.shape));
        w.data = *info.data;
        values[t] = std::move(w);
      }
      in[t] = &values.at(t);
    }
    std::vector<Tensor> out = evaluate_node(graph, v, in);
    for (std::size_t k = 0; k < out.size(); ++k) values[graph.node(v).outputs[k]] = std::move(out[k]);
  }
  return values;
}

Tensor filled(DType dtype, Shape shape, const std::function<double(std::int64_t)> &f) {
  Tensor t(dtype, std::move(shape));
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, f(i));
  return t;
}

TEST_CASE("onnx: Attention with grouped-query heads and a causal mask expands to its definition") {
  // 4 query heads share 2 key/value heads (heads 0, 1 -> 0; 2, 3 -> 1).
  onnx::ModelProto m = make_model(23);
  auto *g = m.mutable_graph();
  *g->add_input() = value_info("q", {1, 4, 3, 2});
  *g->add_input() = value_info("k", {1, 2, 3, 2});
  *g->add_input() = value_info("v", {1, 2, 3, 2});
  *g->add_output() = value_info("y", {1, 4, 3, 2});
  add_int_attr(add_node(g, "Attention", {"q", "k", "v"}, {"y"}, "att"), "is_causal", 1);
  Graph graph = read(m);
  for (NodeId v : graph.order()) CHECK(graph.node(v).op != "Attention");
  Tensor q = filled(DType::F32, {1, 4, 3, 2}, [](std::int64_t i) { return 0.3 * static_cast<double>(i % 5) - 0.6; });
  Tensor k = filled(DType::F32, {1, 2, 3, 2}, [](std::int64_t i) { return 0.2 * static_cast<double>(i % 7) - 0.5; });
  Tensor v = filled(DType::F32, {1, 2, 3, 2}, [](std::int64_t i) { return static_cast<double>(i); });
  Tensor y = evaluate_graph(graph, {{"q", q}, {"k", k}, {"v", v}}).at("y");
  REQUIRE(y.shape == Shape{1, 4, 3, 2});
  for (int h = 0; h < 4; ++h)
    for (int i = 0; i < 3; ++i) {
      int kv = h / 2;
      std::vector<double> p;
      double sum = 0;
      for (int j = 0; j <= i; ++j) {  // causal: keys 0..i
        double dot = 0;
        for (int d = 0; d < 2; ++d) dot += q.get((h * 3 + i) * 2 + d) * k.get((kv * 3 + j) * 2 + d);
        p.push_back(std::exp(dot / std::sqrt(2.0)));
        sum += p.back();
      }
      for (int d = 0; d < 2; ++d) {
        double want = 0;
        for (int j = 0; j <= i; ++j) want += p[static_cast<std::size_t>(j)] / sum * v.get((kv * 3 + j) * 2 + d);
        CHECK(y.get((h * 3 + i) * 2 + d) == doctest::Approx(want).epsilon(1e-5));
      }
    }
}

TEST_CASE("onnx: NegativeLogLikelihoodLoss skips ignored targets, even out of range ones") {
  for (const char *reduction : {"none", "mean"}) {
    CAPTURE(reduction);
    onnx::ModelProto m = make_model(22);
    auto *g = m.mutable_graph();
    *g->add_input() = value_info("x", {3, 4});
    *g->add_input() = value_info("t", {3}, onnx::TensorProto::INT64);
    *g->add_output() = value_info("loss", std::string(reduction) == "none" ? std::vector<std::int64_t>{3}
                                                                            : std::vector<std::int64_t>{});
    add_floats_init(g, "w", {4}, {1, 2, 3, 4});
    onnx::NodeProto *n = add_node(g, "NegativeLogLikelihoodLoss", {"x", "t", "w"}, {"loss"}, "nll");
    add_int_attr(n, "ignore_index", -1);
    auto *a = n->add_attribute();
    a->set_name("reduction");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(reduction);
    Graph graph = read(m);
    Tensor x = filled(DType::F32, {3, 4}, [](std::int64_t i) { return -0.25 * static_cast<double>(i + 1); });
    Tensor t(DType::I64, {3});
    t.set(0, 1);
    t.set(1, -1);  // ignored: read as class 0, then 0
    t.set(2, 3);
    Tensor loss = evaluate_graph(graph, {{"x", x}, {"t", t}}).at("loss");
    double l0 = -x.get(1) * 2, l2 = -x.get(11) * 4;
    if (std::string(reduction) == "none") {
      REQUIRE(loss.shape == Shape{3});
      CHECK(loss.get(0) == doctest::Approx(l0));
      CHECK(loss.get(1) == 0);
      CHECK(loss.get(2) == doctest::Approx(l2));
    } else {
      REQUIRE(loss.shape == Shape{});
      CHECK(loss.get(0) == doctest::Approx((l0 + l2) / (2 + 4)));
    }
  }
}

TEST_CASE("onnx: Attention takes a symbolic batch, and names another symbolic dimension") {
  auto attention = [](const char *batch, const char *seq) {
    onnx::ModelProto m = make_model(23);
    auto *g = m.mutable_graph();
    for (const char *name : {"q", "kv"}) {
      onnx::ValueInfoProto x = value_info(name, {});
      auto *shape = x.mutable_type()->mutable_tensor_type()->mutable_shape();
      shape->add_dim()->set_dim_param(batch);
      if (seq) shape->add_dim()->set_dim_param(seq);
      else shape->add_dim()->set_dim_value(3);
      shape->add_dim()->set_dim_value(std::string(name) == "q" ? 8 : 4);
      *g->add_input() = x;
    }
    *g->add_output() = value_info("y", {});
    onnx::NodeProto *n = add_node(g, "Attention", {"q", "kv", "kv"}, {"y"}, "att");
    add_int_attr(n, "q_num_heads", 4);
    add_int_attr(n, "kv_num_heads", 2);
    add_int_attr(n, "is_causal", 1);
    return read(m);
  };
  Graph graph = attention("batch", nullptr);
  for (NodeId v : graph.order()) CHECK(graph.node(v).op != "Attention");
  CHECK(graph.tensor("y").type.str() == "f32[batch, 3, 8]");
  CHECK_THROWS_WITH_AS(attention("batch", "seq"),
                       doctest::Contains("node 'att' (Attention): Q 'q' has symbolic dimensions [batch, seq, 8], "
                                         "which this expansion needs fixed but for the first (the batch)"),
                       UserError);
}

}  // namespace
}  // namespace atl
