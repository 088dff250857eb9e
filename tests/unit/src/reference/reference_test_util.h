// Helpers of the reference interpreter's tests: building tensors and nodes,
// running one operator and comparing values.
#pragma once

#include "src/reference/reference_op.h"

#include <atoll/diagnostics.h>
#include "graph/ir/graph.h"
#include <atoll/tensor.h>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace atl::reference::test {

/// A tensor of `dtype` and `shape` holding `values` (rounded to dtype).
inline Tensor make(DType dtype, Shape shape, const std::vector<double> &values) {
  Tensor t(dtype, std::move(shape));
  REQUIRE(static_cast<std::int64_t>(values.size()) == t.numel());
  for (std::size_t i = 0; i < values.size(); ++i) t.set(static_cast<std::int64_t>(i), values[i]);
  return t;
}
inline Tensor f32(Shape shape, const std::vector<double> &values) { return make(DType::F32, std::move(shape), values); }

/// 0, 1, 2, ... (+ `first`) over `shape`.
inline Tensor iota(Shape shape, double first = 0) {
  Tensor t(DType::F32, std::move(shape));
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, first + static_cast<double>(i));
  return t;
}

inline TensorType type(DType dtype, const Shape &shape) { return TensorType{dtype, to_sym_shape(shape)}; }
inline TensorType f32t(const Shape &shape) { return type(DType::F32, shape); }

/// Runs `op` with attributes `attrs` on `inputs` (nullptr = omitted) and the given output types.
inline std::vector<Tensor> run_op(const std::string &op, nlohmann::json attrs, const std::vector<const Tensor *> &inputs,
                                  const std::vector<TensorType> &outputs) {
  Node node;
  node.op = op;
  node.name = "n0";
  node.attrs = attrs.is_null() ? nlohmann::json::object() : std::move(attrs);
  return reference_op(node, inputs, outputs);
}

/// The single output of `op`.
inline Tensor run1(const std::string &op, nlohmann::json attrs, const std::vector<const Tensor *> &inputs,
                   const TensorType &output) {
  std::vector<Tensor> out = run_op(op, std::move(attrs), inputs, {output});
  REQUIRE(out.size() == 1);
  return out[0];
}

/// Checks shape, dtype and values (relative/absolute tolerance `eps`; NaN matches NaN).
inline void check_tensor(const Tensor &t, DType dtype, const Shape &shape, const std::vector<double> &values,
                         double eps = 1e-6) {
  CHECK(t.dtype == dtype);
  CHECK(shape_to_string(t.shape) == shape_to_string(shape));
  REQUIRE(t.data.size() == values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    INFO("element " << i);
    if (std::isnan(values[i])) {
      CHECK(std::isnan(t.data[i]));
    } else if (std::isinf(values[i])) {
      CHECK(t.data[i] == values[i]);
    } else {
      CHECK(t.data[i] == doctest::Approx(values[i]).epsilon(eps).scale(1.0));
    }
  }
}
inline void check_f32(const Tensor &t, const Shape &shape, const std::vector<double> &values, double eps = 1e-6) {
  check_tensor(t, DType::F32, shape, values, eps);
}

}  // namespace atl::reference::test
