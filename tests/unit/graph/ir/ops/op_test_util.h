// Helpers of the operator registry tests: build a node, infer its types,
// count FLOPs, and parse / analyze / evaluate its Compute definition.
#pragma once

#include "graph/compute/compute.h"
#include "graph/ir/op_registry.h"

#include "graph/ir/graph.h"
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

namespace optest {

using atl::Dim;
using atl::DType;
using atl::TensorType;
using json = nlohmann::json;

inline TensorType T(atl::SymShape s, DType d = DType::F32) { return TensorType{d, std::move(s)}; }
inline Dim S(const std::string &name) { return Dim::sym(name); }

inline atl::Tensor tensor(atl::Shape shape, std::vector<double> data, DType t = DType::F32) {
  atl::Tensor x(t, std::move(shape));
  REQUIRE(data.size() == x.data.size());
  for (std::size_t k = 0; k < data.size(); ++k) x.set(static_cast<std::int64_t>(k), data[k]);
  return x;
}

/// One operator application under test.
struct Op {
  atl::Node node;
  std::vector<std::optional<TensorType>> ins;
  std::map<std::string, atl::ParamRange> params;

  Op(std::string op, std::vector<std::optional<TensorType>> inputs, json attrs = json::object(), int nout = 1)
      : ins(std::move(inputs)) {
    node.op = std::move(op);
    node.name = "n0";
    node.attrs = std::move(attrs);
    for (std::size_t i = 0; i < ins.size(); ++i) node.inputs.push_back(ins[i] ? "in" + std::to_string(i) : "");
    for (int i = 0; i < nout; ++i) node.outputs.push_back("out" + std::to_string(i));
  }
  Op &param(const std::string &name, std::int64_t lo, std::int64_t hi) {
    params[name] = {lo, hi};
    return *this;
  }

  const atl::OpInfo &info() const {
    const atl::OpInfo *op = atl::find_op(node.op);
    REQUIRE_MESSAGE(op, "operator not registered: " << node.op);
    return *op;
  }
  atl::OpContext context() const { return atl::OpContext{node, ins, {}, &params}; }
  std::vector<TensorType> infer() const { return info().infer(context()); }
  /// Inferred type of output 0 as text ("f32[2, 3]").
  std::string type() const { return infer().at(0).str(); }
  atl::OpContext full_context() const {
    atl::OpContext c = context();
    c.outputs = infer();
    return c;
  }
  std::int64_t flops() const { return info().flops(full_context()); }
  atl::OpDefinition define() const { return info().define(full_context()); }
  atl::PatternKind pattern() const { return atl::node_pattern(info(), full_context()); }

  /// The definition, parsed and analyzed at `values` of the symbols; checks
  /// that every output gets the inferred (instantiated) shape and that it
  /// evaluates on random data. Returns the outputs.
  std::vector<atl::Tensor> check_definition(const std::map<std::string, std::int64_t> &values = {},
                                            std::vector<atl::Tensor> data = {}) const {
    std::vector<TensorType> outs = infer();
    atl::OpContext c = context();
    c.outputs = outs;
    atl::OpDefinition def = info().define(c);
    INFO("definition of " << node.op << ":\n" << def.text);
    auto inst = [&](const atl::SymShape &s) {
      atl::Shape sh;
      for (const Dim &d : s) sh.push_back(d.is_symbolic() ? values.at(d.symbol) : d.value);
      return sh;
    };
    atl::compute::Signature sig;
    sig.params = values;
    std::mt19937 rng(7);
    std::map<std::string, atl::Tensor> tensors;
    REQUIRE(def.inputs.size() >= ins.size());
    for (std::size_t i = 0; i < ins.size(); ++i) {
      if (!ins[i]) continue;
      REQUIRE(!def.inputs[i].empty());
      atl::Tensor t(ins[i]->dtype, inst(ins[i]->shape));
      if (i < data.size()) {
        t = data[i];
      } else {
        std::uniform_real_distribution<double> u(-1, 1);
        for (std::int64_t k = 0; k < t.numel(); ++k) t.set(k, t.dtype == DType::Bool ? (rng() & 1) : u(rng) * 4);
      }
      sig.inputs[def.inputs[i]] = {atl::compute::TensorRole::Input, t.dtype, t.shape};
      tensors[def.inputs[i]] = std::move(t);
    }
    REQUIRE(def.outputs.size() == outs.size());
    for (std::size_t i = 0; i < outs.size(); ++i) {
      sig.outputs.push_back(def.outputs[i]);
      sig.output_shapes[def.outputs[i]] = inst(outs[i].shape);
    }
    auto prog = atl::compute::parse(def.text);
    atl::compute::Analysis a = atl::compute::analyze(*prog, sig);
    std::map<std::string, const atl::Tensor *> ptrs;
    for (auto &[name, t] : tensors) ptrs[name] = &t;
    auto result = atl::compute::evaluate(*prog, a, ptrs, values);
    std::vector<atl::Tensor> out;
    for (std::size_t i = 0; i < outs.size(); ++i) {
      CHECK(a.tensors.at(def.outputs[i]).shape == inst(outs[i].shape));
      atl::Tensor t = result.at(def.outputs[i]);
      CHECK(t.shape == inst(outs[i].shape));
      for (double &x : t.data) x = atl::round_to(outs[i].dtype, x);
      t.dtype = outs[i].dtype;
      out.push_back(std::move(t));
    }
    return out;
  }
  /// Output 0 of the definition evaluated on the given inputs.
  std::vector<double> eval(std::vector<atl::Tensor> data) const { return check_definition({}, std::move(data)).at(0).data; }
};

/// Element-wise approximate comparison of value lists.
inline void check_close(const std::vector<double> &got, const std::vector<double> &want, double tol = 1e-5) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == doctest::Approx(want[i]).epsilon(tol));
  }
}

}  // namespace optest
