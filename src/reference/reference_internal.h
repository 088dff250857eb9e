// Shared helpers of the reference interpreter: the per-call argument view with
// attribute readers, shape/axis utilities and broadcasting index mapping.
#pragma once

#include <atoll/diagnostics.h>
#include "graph/ir/graph.h"
#include <atoll/tensor.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace atl::reference::detail {

/// What one operator evaluation sees: the node, its inputs (nullptr when
/// omitted) and its output types; plus readers that throw UserErrors naming
/// the operator.
class OpArgs {
public:
  OpArgs(const Node &node, const std::vector<const Tensor *> &inputs, const std::vector<TensorType> &outputs)
      : node_(node), inputs_(inputs), outputs_(outputs) {}

  const Node &node() const { return node_; }
  const std::string &op() const { return node_.op; }

  std::size_t num_inputs() const { return inputs_.size(); }
  std::size_t num_outputs() const { return outputs_.size(); }
  /// Input i, or nullptr when absent (omitted or past the end).
  const Tensor *optional_input(std::size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  /// Input i; a UserError names it when absent.
  const Tensor &input(std::size_t i) const;
  /// The concrete shape and dtype of output i.
  Shape output_shape(std::size_t i) const;
  DType output_dtype(std::size_t i) const;
  /// A zero-filled tensor of output i's type, after asserting that its
  /// inferred shape equals `computed` (what this operator derived itself).
  Tensor make_output(std::size_t i, const Shape &computed) const;

  /// Attribute readers; `name` absent gives the default. Integer lists accept
  /// one number as a list of one; numbers accept a one-element list.
  bool has_attr(const char *name) const;
  std::int64_t attr_int(const char *name, std::int64_t dflt) const;
  double attr_float(const char *name, double dflt) const;
  std::string attr_string(const char *name, const std::string &dflt) const;
  std::vector<std::int64_t> attr_ints(const char *name, std::vector<std::int64_t> dflt) const;
  std::optional<std::vector<std::int64_t>> attr_ints_opt(const char *name) const;
  std::optional<double> attr_float_opt(const char *name) const;

  /// A constant operand that ONNX passes as an input and the batch format as
  /// an attribute: the attribute `name` if present, else the values of the
  /// input tensor at `slot` if present, else empty.
  std::optional<std::vector<std::int64_t>> const_ints(const char *name, std::size_t slot) const;
  std::optional<double> const_float(const char *name, std::size_t slot) const;

  /// A UserError "<Op>: reason" located at the node.
  [[noreturn]] void fail(const std::string &reason) const;

private:
  const Node &node_;
  const std::vector<const Tensor *> &inputs_;
  const std::vector<TensorType> &outputs_;
};

using OpFn = std::vector<Tensor> (*)(const OpArgs &);
using OpTable = std::vector<std::pair<const char *, OpFn>>;

/// The operators of each family (one file each).
const OpTable &elementwise_ops();
const OpTable &linalg_ops();
const OpTable &conv_ops();
const OpTable &pool_ops();
const OpTable &normalization_ops();
const OpTable &reduce_ops();
const OpTable &movement_ops();
const OpTable &resize_ops();

/// Maps a possibly negative axis into [0, rank); UserError when out of range.
int normalize_axis(const OpArgs &a, std::int64_t axis, int rank);

/// Numpy broadcast of several shapes (right-aligned, 1 stretches);
/// UserError when incompatible.
Shape broadcast_shapes(const OpArgs &a, const std::vector<Shape> &shapes);

/// Strides of `in` viewed at the (right-aligned) rank of `out`, with 0 for
/// broadcast dimensions, so that an output multi-index maps to an input
/// offset by a dot product. `in` must broadcast to `out`.
std::vector<std::int64_t> broadcast_strides(const Shape &in, const Shape &out);

/// Advances a row-major multi-index over `shape`; false after the last one.
bool next_index(std::vector<std::int64_t> &index, const Shape &shape);

/// Product of shape[begin, end).
std::int64_t dims_product(const Shape &shape, int begin, int end);

/// The position k in [0, n) of X's largest (`max`) or smallest value at
/// offsets base + k * stride: the first, or the last with `last`; a NaN wins
/// over any number, as numpy's argmax and argmin take the first NaN
/// (ArgMax, ArgMin, Hardmax).
std::int64_t extreme_index(const Tensor &X, std::int64_t base, std::int64_t n, std::int64_t stride, bool max,
                           bool last = false);

/// Sliding-window attributes of Conv, ConvTranspose and the pools for n
/// spatial dims: pads hold n begin values then n end values.
struct WindowAttrs {
  std::vector<std::int64_t> kernel, strides, dilations, pads;
  std::string auto_pad;  ///< NOTSET, VALID, SAME_UPPER or SAME_LOWER
  std::int64_t pad_begin(std::size_t i) const { return pads[i]; }
  std::int64_t pad_end(std::size_t i) const { return pads[kernel.size() + i]; }
  std::int64_t extent(std::size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }  ///< dilated kernel
};

/// Reads kernel_shape (default `kernel`; must match it when both are given),
/// strides and dilations (default 1), pads (default 0) and auto_pad, checking
/// lengths and signs. With `resolve_same`, SAME_UPPER/SAME_LOWER become pads
/// that give ceil(in / stride) outputs (the extra pad at the end for UPPER, at
/// the beginning for LOWER) and VALID becomes zero pads.
WindowAttrs read_window(const OpArgs &a, const Shape &in_spatial, std::vector<std::int64_t> kernel, bool resolve_same);

/// A window geometry over 1 to 3 spatial dims, padded in front with unit dims
/// to exactly three, so that every loop nest is three deep.
struct Geometry3 {
  std::int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, kernel[3] = {1, 1, 1};
  std::int64_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
};
/// Fills a Geometry3 from n (1..3) spatial dims; UserError for other ranks.
Geometry3 make_geometry3(const OpArgs &a, const Shape &in_spatial, const Shape &out_spatial, const WindowAttrs &w);

/// "[1, 2, 3]" of an int list (for messages).
std::string ints_to_string(const std::vector<std::int64_t> &v);

}  // namespace atl::reference::detail
