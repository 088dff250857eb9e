// Host tensors: element counts with overflow checks, strides, offsets.
#include <atoll/diagnostics.h>
#include <atoll/tensor.h>

#include <limits>

namespace atl {

std::int64_t shape_numel(const Shape &shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) throw UserError("negative dimension " + std::to_string(d) + " in shape " + shape_to_string(shape));
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d)
      throw UserError("element count of shape " + shape_to_string(shape) + " overflows 64 bits");
    n *= d;
  }
  return n;
}

std::string shape_to_string(const Shape &shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::vector<std::int64_t> shape_strides(const Shape &shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

Tensor::Tensor(DType t, Shape s) : dtype(t), shape(std::move(s)) {
  data.assign(static_cast<std::size_t>(shape_numel(shape)), 0.0);
}

std::int64_t Tensor::offset(const std::vector<std::int64_t> &index) const {
  ATOLL_ASSERT(index.size() == shape.size(), "tensor index rank mismatch");
  std::int64_t off = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    ATOLL_ASSERT(index[i] >= 0 && index[i] < shape[i], "tensor index out of bounds");
    off = off * shape[i] + index[i];
  }
  return off;
}

}  // namespace atl
