// Host tensors: shapes, element storage and strides, used by the reference
// interpreter, the Compute evaluator, verification and .npy I/O.
#pragma once

#include <atoll/dtype.h>

#include <cstdint>
#include <string>
#include <vector>

namespace atl {

/// The most elements a tensor holds: the batch reader refuses declared
/// tensors, and shape inference node outputs, with more.
inline constexpr std::int64_t kMaxTensorElements = std::int64_t(1) << 32;

using Shape = std::vector<std::int64_t>;

/// Number of elements of a shape (1 for rank 0). Throws UserError when the
/// product overflows int64.
std::int64_t shape_numel(const Shape &shape);
/// "[1, 64, 56, 56]".
std::string shape_to_string(const Shape &shape);
/// Row-major strides in elements.
std::vector<std::int64_t> shape_strides(const Shape &shape);

/// A dense row-major tensor. Values are held as doubles already rounded to
/// `dtype` (see round_to), which keeps every evaluator simple and exact for
/// every element type the batch format has.
struct Tensor {
  DType dtype = DType::F32;
  Shape shape;
  std::vector<double> data;

  Tensor() = default;
  Tensor(DType t, Shape s);  ///< zero-filled

  std::int64_t numel() const { return static_cast<std::int64_t>(data.size()); }
  int rank() const { return static_cast<int>(shape.size()); }
  /// Stores v rounded to dtype.
  void set(std::int64_t linear, double v) { data[static_cast<std::size_t>(linear)] = round_to(dtype, v); }
  double get(std::int64_t linear) const { return data[static_cast<std::size_t>(linear)]; }
  /// Linear index of a multi-index (no bounds check beyond an assertion).
  std::int64_t offset(const std::vector<std::int64_t> &index) const;
};

}  // namespace atl
