// Reference data movement: Transpose, Reshape, Flatten, Squeeze, Unsqueeze,
// Concat, Split, Slice, Pad, Expand, Tile, Gather, GatherElements, Trilu,
// DepthToSpace, SpaceToDepth, EyeLike and OneHot.
#include "src/reference/reference_internal.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace atl::reference::detail {

namespace {

/// out[i] = X[offset_of(output multi-index)] for every element of `out`.
template <class OffsetOf>
void gather_into(Tensor &out, const Tensor &X, OffsetOf offset_of) {
  std::vector<std::int64_t> index(out.shape.size(), 0);
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    out.set(i, X.get(offset_of(index)));
    next_index(index, out.shape);
  }
}

/// The same data under a new shape (Reshape, Flatten, Squeeze, Unsqueeze).
std::vector<Tensor> reshaped(const OpArgs &a, const Tensor &X, const Shape &shape) {
  Tensor out = a.make_output(0, shape);
  ATOLL_ASSERT(out.numel() == X.numel(), a.op() + ": element count changes");
  for (std::int64_t i = 0; i < X.numel(); ++i) out.set(i, X.get(i));
  return {std::move(out)};
}

/// Normalizes a list of axes for `rank`, rejecting duplicates.
std::vector<int> normalize_axes(const OpArgs &a, const std::vector<std::int64_t> &axes, int rank) {
  std::vector<int> out;
  for (std::int64_t ax : axes) {
    int d = normalize_axis(a, ax, rank);
    if (std::find(out.begin(), out.end(), d) != out.end())
      a.fail("axis " + std::to_string(ax) + " appears twice in 'axes' " + ints_to_string(axes));
    out.push_back(d);
  }
  return out;
}

std::vector<Tensor> op_transpose(const OpArgs &a) {
  const Tensor &X = a.input(0);
  int rank = X.rank();
  std::vector<std::int64_t> perm = a.attr_ints("perm", {});
  if (!a.has_attr("perm"))
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  if (static_cast<int>(perm.size()) != rank) a.fail("perm " + ints_to_string(perm) + " does not match rank " + std::to_string(rank));
  for (std::int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) a.fail("perm " + ints_to_string(perm) + " is not a permutation");
    seen[p] = true;
  }
  Shape shape;
  for (std::int64_t p : perm) shape.push_back(X.shape[p]);
  Tensor out = a.make_output(0, shape);
  std::vector<std::int64_t> in_strides = shape_strides(X.shape);
  gather_into(out, X, [&](const std::vector<std::int64_t> &idx) {
    std::int64_t off = 0;
    for (int d = 0; d < rank; ++d) off += idx[d] * in_strides[perm[d]];
    return off;
  });
  return {std::move(out)};
}

std::vector<Tensor> op_reshape(const OpArgs &a) {
  const Tensor &X = a.input(0);
  auto spec = a.const_ints("shape", 1);
  if (!spec) a.fail("'shape' is required");
  bool allowzero = a.attr_int("allowzero", 0) != 0;
  Shape shape;
  int infer = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < spec->size(); ++i) {
    std::int64_t s = (*spec)[i];
    if (s == 0 && !allowzero) {
      if (i >= X.shape.size()) a.fail("shape " + ints_to_string(*spec) + " copies dim " + std::to_string(i) + " that the input lacks");
      s = X.shape[i];
    } else if (s == -1) {
      if (infer >= 0) a.fail("shape " + ints_to_string(*spec) + " has more than one -1");
      infer = static_cast<int>(i);
      shape.push_back(1);
      continue;
    } else if (s < 0) {
      a.fail("shape " + ints_to_string(*spec) + " has an invalid entry " + std::to_string(s));
    }
    known *= s;
    shape.push_back(s);
  }
  if (infer >= 0) {
    if (known == 0 || X.numel() % known != 0)
      a.fail("cannot infer -1 in shape " + ints_to_string(*spec) + " for " + std::to_string(X.numel()) + " elements");
    shape[infer] = X.numel() / known;
  }
  if (shape_numel(shape) != X.numel())
    a.fail("cannot reshape " + shape_to_string(X.shape) + " into " + shape_to_string(shape));
  return reshaped(a, X, shape);
}

std::vector<Tensor> op_flatten(const OpArgs &a) {
  const Tensor &X = a.input(0);
  std::int64_t axis = a.attr_int("axis", 1);
  if (axis < -X.rank() || axis > X.rank())
    a.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(X.rank()));
  int ax = static_cast<int>(axis < 0 ? axis + X.rank() : axis);
  return reshaped(a, X, {dims_product(X.shape, 0, ax), dims_product(X.shape, ax, X.rank())});
}

std::vector<Tensor> op_squeeze(const OpArgs &a) {
  const Tensor &X = a.input(0);
  std::vector<bool> drop(X.shape.size(), false);
  if (auto axes = a.const_ints("axes", 1)) {
    for (int d : normalize_axes(a, *axes, X.rank())) {
      if (X.shape[d] != 1) a.fail("cannot squeeze axis " + std::to_string(d) + " of size " + std::to_string(X.shape[d]));
      drop[d] = true;
    }
  } else {
    for (std::size_t d = 0; d < X.shape.size(); ++d) drop[d] = X.shape[d] == 1;
  }
  Shape shape;
  for (std::size_t d = 0; d < X.shape.size(); ++d)
    if (!drop[d]) shape.push_back(X.shape[d]);
  return reshaped(a, X, shape);
}

std::vector<Tensor> op_unsqueeze(const OpArgs &a) {
  const Tensor &X = a.input(0);
  auto axes = a.const_ints("axes", 1);
  if (!axes) a.fail("'axes' is required");
  int rank = X.rank() + static_cast<int>(axes->size());
  std::vector<bool> added(static_cast<std::size_t>(rank), false);
  for (int d : normalize_axes(a, *axes, rank)) added[d] = true;
  Shape shape;
  std::size_t next = 0;
  for (int d = 0; d < rank; ++d) shape.push_back(added[d] ? 1 : X.shape[next++]);
  return reshaped(a, X, shape);
}

std::vector<Tensor> op_concat(const OpArgs &a) {
  if (a.num_inputs() == 0) a.fail("needs at least one input");
  if (!a.has_attr("axis")) a.fail("attribute 'axis' is required");
  const Tensor &first = a.input(0);
  if (first.rank() == 0) a.fail("inputs must have rank 1 or more");
  int axis = normalize_axis(a, a.attr_int("axis", 0), first.rank());
  Shape shape = first.shape;
  shape[axis] = 0;
  for (std::size_t k = 0; k < a.num_inputs(); ++k) {
    const Tensor &t = a.input(k);
    Shape s = t.shape;
    if (t.rank() == first.rank()) s[axis] = first.shape[axis];
    if (s != first.shape)
      a.fail("input " + std::to_string(k) + " of shape " + shape_to_string(t.shape) + " does not match " +
             shape_to_string(first.shape) + " outside axis " + std::to_string(axis));
    shape[axis] += t.shape[axis];
  }
  Tensor out = a.make_output(0, shape);
  std::int64_t outer = dims_product(shape, 0, axis), inner = dims_product(shape, axis + 1, static_cast<int>(shape.size()));
  std::int64_t row = shape[axis] * inner, at = 0;  // `at`: where input k's block starts in an output row
  for (std::size_t k = 0; k < a.num_inputs(); ++k) {
    const Tensor &t = a.input(k);
    std::int64_t block = t.shape[axis] * inner;
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t e = 0; e < block; ++e) out.set(o * row + at + e, t.get(o * block + e));
    at += block;
  }
  return {std::move(out)};
}

std::vector<Tensor> op_split(const OpArgs &a) {
  const Tensor &X = a.input(0);
  if (X.rank() == 0) a.fail("input must have rank 1 or more");
  int axis = normalize_axis(a, a.attr_int("axis", 0), X.rank());
  std::int64_t dim = X.shape[axis], n = static_cast<std::int64_t>(a.num_outputs());
  std::vector<std::int64_t> sizes;
  if (auto split = a.const_ints("split", 1)) {
    if (a.has_attr("num_outputs")) a.fail("'split' and 'num_outputs' cannot both be given");
    sizes = *split;
    std::int64_t total = 0;
    for (std::int64_t s : sizes) {
      if (s < 0) a.fail("'split' " + ints_to_string(sizes) + " has a negative size");
      total += s;
    }
    if (total != dim)
      a.fail("'split' " + ints_to_string(sizes) + " does not sum to the axis size " + std::to_string(dim));
  } else {
    if (a.has_attr("num_outputs") && a.attr_int("num_outputs", 0) != n)
      a.fail("num_outputs " + std::to_string(a.attr_int("num_outputs", 0)) + " differs from the " + std::to_string(n) +
             " outputs");
    if (n < 1) a.fail("needs at least one output");
    // ONNX 18: equal chunks of ceil(dim / n); the last one is smaller.
    std::int64_t chunk = (dim + n - 1) / n, last = dim - chunk * (n - 1);
    if (last <= 0) a.fail("cannot split an axis of size " + std::to_string(dim) + " into " + std::to_string(n) + " parts");
    sizes.assign(static_cast<std::size_t>(n - 1), chunk);
    sizes.push_back(last);
  }
  if (static_cast<std::int64_t>(sizes.size()) != n)
    a.fail("'split' " + ints_to_string(sizes) + " has " + std::to_string(sizes.size()) + " parts for " + std::to_string(n) +
           " outputs");
  std::int64_t outer = dims_product(X.shape, 0, axis), inner = dims_product(X.shape, axis + 1, X.rank());
  std::vector<Tensor> result;
  std::int64_t at = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    Shape shape = X.shape;
    shape[axis] = sizes[k];
    Tensor out = a.make_output(k, shape);
    std::int64_t block = sizes[k] * inner;
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t e = 0; e < block; ++e) out.set(o * block + e, X.get(o * dim * inner + at + e));
    at += block;
    result.push_back(std::move(out));
  }
  return result;
}

std::vector<Tensor> op_slice(const OpArgs &a) {
  const Tensor &X = a.input(0);
  int rank = X.rank();
  auto starts = a.const_ints("starts", 1), ends = a.const_ints("ends", 2);
  if (!starts || !ends) a.fail("'starts' and 'ends' are required");
  std::size_t n = starts->size();
  std::vector<std::int64_t> axes_in(n), steps(n, 1);
  for (std::size_t i = 0; i < n; ++i) axes_in[i] = static_cast<std::int64_t>(i);
  if (auto v = a.const_ints("axes", 3)) axes_in = *v;
  if (auto v = a.const_ints("steps", 4)) steps = *v;
  if (ends->size() != n || axes_in.size() != n || steps.size() != n)
    a.fail("'starts', 'ends', 'axes' and 'steps' must have the same length");
  std::vector<int> axes = normalize_axes(a, axes_in, rank);
  std::vector<std::int64_t> first(static_cast<std::size_t>(rank), 0), step(static_cast<std::size_t>(rank), 1);
  Shape shape = X.shape;
  for (std::size_t i = 0; i < n; ++i) {
    int d = axes[i];
    std::int64_t dim = X.shape[d], s = (*starts)[i], e = (*ends)[i], st = steps[i];
    if (st == 0) a.fail("'steps' must be non-zero");
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    std::int64_t len;
    if (st > 0) {
      s = std::clamp<std::int64_t>(s, 0, dim);
      e = std::clamp<std::int64_t>(e, 0, dim);
      len = e > s ? (e - s - 1) / st + 1 : 0;
    } else {
      s = std::clamp<std::int64_t>(s, 0, dim - 1);
      e = std::clamp<std::int64_t>(e, -1, dim - 1);
      std::int64_t back = st == std::numeric_limits<std::int64_t>::min() ? std::numeric_limits<std::int64_t>::max() : -st;
      len = s > e ? (s - e - 1) / back + 1 : 0;
    }
    first[d] = s;
    step[d] = st;
    shape[d] = len;
  }
  Tensor out = a.make_output(0, shape);
  std::vector<std::int64_t> strides = shape_strides(X.shape);
  gather_into(out, X, [&](const std::vector<std::int64_t> &idx) {
    std::int64_t off = 0;
    for (int d = 0; d < rank; ++d) off += (first[d] + idx[d] * step[d]) * strides[d];
    return off;
  });
  return {std::move(out)};
}

std::vector<Tensor> op_pad(const OpArgs &a) {
  const Tensor &X = a.input(0);
  int rank = X.rank();
  auto pads = a.const_ints("pads", 1);
  if (!pads) a.fail("'pads' is required");
  double value = a.const_float("constant_value", 2).value_or(0.0);
  std::string mode = a.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    a.fail("mode must be constant, reflect, edge or wrap, got \"" + mode + "\"");
  std::vector<std::int64_t> axes_in;
  for (int d = 0; d < rank; ++d) axes_in.push_back(d);
  if (auto v = a.const_ints("axes", 3)) axes_in = *v;
  std::vector<int> axes = normalize_axes(a, axes_in, rank);
  if (pads->size() != 2 * axes.size())
    a.fail("'pads' " + ints_to_string(*pads) + " must have 2 values per padded axis (" + std::to_string(axes.size()) + " axes)");
  std::vector<std::int64_t> before(static_cast<std::size_t>(rank), 0), after(static_cast<std::size_t>(rank), 0);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    before[axes[i]] = (*pads)[i];
    after[axes[i]] = (*pads)[axes.size() + i];
  }
  // Negative pads crop first; the positive pads then extend the cropped
  // source (whose elements also feed reflect, edge and wrap).
  std::vector<std::int64_t> crop(static_cast<std::size_t>(rank)), src(static_cast<std::size_t>(rank));
  Shape shape(static_cast<std::size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    crop[d] = std::max<std::int64_t>(0, -before[d]);
    src[d] = X.shape[d] - crop[d] - std::max<std::int64_t>(0, -after[d]);
    shape[d] = X.shape[d] + before[d] + after[d];
    if (shape[d] < 0) a.fail("pads " + ints_to_string(*pads) + " crop more than axis " + std::to_string(d) + " holds");
    if (src[d] <= 0 && shape[d] > 0 && mode != "constant")
      a.fail("mode " + mode + " needs at least one source element on axis " + std::to_string(d));
  }
  Tensor out = a.make_output(0, shape);
  std::vector<std::int64_t> strides = shape_strides(X.shape), index(static_cast<std::size_t>(rank), 0);
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    std::int64_t off = 0;
    bool constant = false;
    for (int d = 0; d < rank && !constant; ++d) {
      std::int64_t j = index[d] - std::max<std::int64_t>(0, before[d]), n = src[d];
      if (j < 0 || j >= n) {
        if (mode == "constant") {
          constant = true;
        } else if (mode == "edge") {
          j = std::clamp<std::int64_t>(j, 0, n - 1);
        } else if (mode == "wrap") {
          j = ((j % n) + n) % n;
        } else {  // reflect: period 2(n-1), the edge element is not repeated
          std::int64_t period = 2 * (n - 1);
          j = period == 0 ? 0 : ((j % period) + period) % period;
          if (j >= n) j = period - j;
        }
      }
      off += (j + crop[d]) * strides[d];
    }
    out.set(i, constant ? value : X.get(off));
    next_index(index, shape);
  }
  return {std::move(out)};
}

std::vector<Tensor> op_expand(const OpArgs &a) {
  const Tensor &X = a.input(0);
  auto spec = a.const_ints("shape", 1);
  if (!spec) a.fail("'shape' is required");
  for (std::int64_t s : *spec)
    if (s < 1) a.fail("shape " + ints_to_string(*spec) + " must have positive entries");
  Shape shape = broadcast_shapes(a, {X.shape, *spec});
  Tensor out = a.make_output(0, shape);
  std::vector<std::int64_t> strides = broadcast_strides(X.shape, shape);
  gather_into(out, X, [&](const std::vector<std::int64_t> &idx) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) off += idx[d] * strides[d];
    return off;
  });
  return {std::move(out)};
}

std::vector<Tensor> op_gather(const OpArgs &a) {
  const Tensor &X = a.input(0), &indices = a.input(1);
  if (X.rank() == 0) a.fail("data must have rank 1 or more");
  int axis = normalize_axis(a, a.attr_int("axis", 0), X.rank());
  Shape shape(X.shape.begin(), X.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), X.shape.begin() + axis + 1, X.shape.end());
  Tensor out = a.make_output(0, shape);
  std::int64_t dim = X.shape[axis], outer = dims_product(X.shape, 0, axis);
  std::int64_t inner = dims_product(X.shape, axis + 1, X.rank()), count = indices.numel();
  for (std::int64_t k = 0; k < count; ++k) {
    double raw = indices.get(k);
    if (!(raw >= static_cast<double>(-dim) && raw < static_cast<double>(dim)) || raw != std::trunc(raw))
      a.fail("index " + (raw == std::trunc(raw) && std::fabs(raw) < 9e18 ? std::to_string(static_cast<std::int64_t>(raw))
                                                                          : std::to_string(raw)) +
             " is out of range for axis " + std::to_string(axis) + " of size " + std::to_string(dim));
    std::int64_t idx = static_cast<std::int64_t>(raw);
    if (idx < 0) idx += dim;
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t e = 0; e < inner; ++e)
        out.set((o * count + k) * inner + e, X.get((o * dim + idx) * inner + e));
  }
  return {std::move(out)};
}

std::vector<Tensor> op_tile(const OpArgs &a) {
  const Tensor &X = a.input(0);
  auto repeats = a.const_ints("repeats", 1);
  if (!repeats) a.fail("'repeats' is required");
  if (static_cast<int>(repeats->size()) != X.rank())
    a.fail("repeats " + ints_to_string(*repeats) + " does not have one entry per axis of " + shape_to_string(X.shape));
  Shape shape = X.shape;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if ((*repeats)[d] < 1) a.fail("repeats " + ints_to_string(*repeats) + " must have positive entries");
    shape[d] *= (*repeats)[d];
  }
  Tensor out = a.make_output(0, shape);
  std::vector<std::int64_t> strides = shape_strides(X.shape);
  gather_into(out, X, [&](const std::vector<std::int64_t> &idx) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) off += (idx[d] % X.shape[d]) * strides[d];
    return off;
  });
  return {std::move(out)};
}

std::vector<Tensor> op_gather_elements(const OpArgs &a) {
  const Tensor &X = a.input(0), &indices = a.input(1);
  if (X.rank() == 0) a.fail("data must have rank 1 or more");
  if (indices.rank() != X.rank())
    a.fail("indices " + shape_to_string(indices.shape) + " must have the rank of data " + shape_to_string(X.shape));
  int axis = normalize_axis(a, a.attr_int("axis", 0), X.rank());
  for (int d = 0; d < X.rank(); ++d)
    if (d != axis && indices.shape[d] > X.shape[d])
      a.fail("indices " + shape_to_string(indices.shape) + " exceed data " + shape_to_string(X.shape) +
             " off the axis");
  Tensor out = a.make_output(0, indices.shape);
  std::vector<std::int64_t> strides = shape_strides(X.shape), index(indices.shape.size(), 0);
  std::int64_t dim = X.shape[axis];
  for (std::int64_t k = 0; k < indices.numel(); ++k) {
    double raw = indices.get(k);
    if (!(raw >= static_cast<double>(-dim) && raw < static_cast<double>(dim)) || raw != std::trunc(raw))
      a.fail("index " + (raw == std::trunc(raw) && std::fabs(raw) < 9e18 ? std::to_string(static_cast<std::int64_t>(raw))
                                                                          : std::to_string(raw)) +
             " is out of range for axis " + std::to_string(axis) + " of size " + std::to_string(dim));
    std::int64_t at = static_cast<std::int64_t>(raw);
    if (at < 0) at += dim;
    std::int64_t off = 0;
    for (std::size_t d = 0; d < index.size(); ++d) off += (static_cast<int>(d) == axis ? at : index[d]) * strides[d];
    out.set(k, X.get(off));
    next_index(index, indices.shape);
  }
  return {std::move(out)};
}

/// The upper (c - r >= k) or lower (c - r <= k) triangle of each matrix of
/// the last two axes; zeros elsewhere.
std::vector<Tensor> op_trilu(const OpArgs &a) {
  const Tensor &X = a.input(0);
  if (X.rank() < 2) a.fail("input must have rank 2 or more");
  std::int64_t k = 0;
  if (auto v = a.const_ints("k", 1)) {
    if (v->size() != 1) a.fail("k must hold one value, got " + ints_to_string(*v));
    k = (*v)[0];
  }
  bool upper = a.attr_int("upper", 1) != 0;
  Tensor out = a.make_output(0, X.shape);
  std::int64_t rows = X.shape[X.rank() - 2], cols = X.shape[X.rank() - 1];
  for (std::int64_t i = 0; i < X.numel(); ++i) {
    std::int64_t c = i % cols, r = i / cols % rows;
    bool keep = upper ? c - r >= k : c - r <= k;
    out.set(i, keep ? X.get(i) : 0.0);
  }
  return {std::move(out)};
}

/// DepthToSpace and SpaceToDepth as ONNX's reference writes them: a reshape
/// to six dimensions, a transpose, a reshape back; here each output element
/// maps to its input element through the same index arithmetic.
std::vector<Tensor> depth_space(const OpArgs &a, bool to_space) {
  const Tensor &X = a.input(0);
  if (X.rank() != 4) a.fail("input must be N x C x H x W, got " + shape_to_string(X.shape));
  std::int64_t b = a.attr_int("blocksize", 0);
  if (b < 1) a.fail("blocksize must be positive");
  std::string mode = a.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") a.fail("mode must be DCR or CRD, got " + mode);
  bool dcr = mode == "DCR";
  std::int64_t N = X.shape[0], C = X.shape[1], H = X.shape[2], W = X.shape[3];
  if (to_space ? C % (b * b) != 0 : (H % b != 0 || W % b != 0)) a.fail("shape does not divide by blocksize");
  Shape shape = to_space ? Shape{N, C / (b * b), H * b, W * b} : Shape{N, C * b * b, H / b, W / b};
  Tensor out = a.make_output(0, shape);
  std::vector<std::int64_t> index(4, 0);
  for (std::int64_t o = 0; o < out.numel(); ++o) {
    std::int64_t n = index[0], c = index[1], y = index[2], x = index[3], ic, iy, ix;
    if (to_space) {
      std::int64_t i = y % b, j = x % b;
      ic = dcr ? (i * b + j) * (C / (b * b)) + c : c * b * b + i * b + j;
      iy = y / b;
      ix = x / b;
    } else {
      std::int64_t i = dcr ? c / C / b : c / b % b, j = dcr ? c / C % b : c % b;
      ic = dcr ? c % C : c / (b * b);
      iy = y * b + i;
      ix = x * b + j;
    }
    out.set(o, X.get(((n * C + ic) * H + iy) * W + ix));
    next_index(index, shape);
  }
  return {std::move(out)};
}

std::vector<Tensor> op_depth_to_space(const OpArgs &a) { return depth_space(a, true); }
std::vector<Tensor> op_space_to_depth(const OpArgs &a) { return depth_space(a, false); }

/// Ones where column - row == k, zeros elsewhere, in the output's dtype.
std::vector<Tensor> op_eyelike(const OpArgs &a) {
  const Tensor &X = a.input(0);
  if (X.rank() != 2) a.fail("input must have rank 2, got " + shape_to_string(X.shape));
  std::int64_t k = a.attr_int("k", 0);
  Tensor out = a.make_output(0, X.shape);
  for (std::int64_t r = 0; r < X.shape[0]; ++r)
    for (std::int64_t c = 0; c < X.shape[1]; ++c) out.set(r * X.shape[1] + c, c - r == k ? 1.0 : 0.0);
  return {std::move(out)};
}

/// OneHot: values[1] where the index (truncated toward zero; negative counts
/// from the end) equals the position along the new axis, values[0] elsewhere.
std::vector<Tensor> op_onehot(const OpArgs &a) {
  const Tensor &I = a.input(0), &V = a.input(2);
  auto depth_v = a.const_ints("depth", 1);
  if (!depth_v || depth_v->size() != 1) a.fail("depth must be one constant value");
  std::int64_t depth = (*depth_v)[0];
  if (depth < 1) a.fail("depth must be positive");
  if (V.numel() != 2) a.fail("values must hold two values");
  int axis = normalize_axis(a, a.attr_int("axis", -1), I.rank() + 1);
  Shape shape = I.shape;
  shape.insert(shape.begin() + axis, depth);
  Tensor out = a.make_output(0, shape);
  std::int64_t inner = dims_product(I.shape, axis, I.rank());
  for (std::int64_t k = 0; k < I.numel(); ++k) {
    double raw = std::trunc(I.get(k));
    if (raw < 0) raw += static_cast<double>(depth);
    std::int64_t outer = k / inner, rest = k % inner;
    for (std::int64_t d = 0; d < depth; ++d)
      out.set((outer * depth + d) * inner + rest, raw == static_cast<double>(d) ? V.get(1) : V.get(0));
  }
  return {std::move(out)};
}

}  // namespace

const OpTable &movement_ops() {
  static const OpTable table = {{"Transpose", op_transpose}, {"Reshape", op_reshape}, {"Flatten", op_flatten},
                                {"Squeeze", op_squeeze},     {"Unsqueeze", op_unsqueeze}, {"Concat", op_concat},
                                {"Split", op_split},         {"Slice", op_slice},     {"Pad", op_pad},
                                {"Expand", op_expand},       {"Gather", op_gather},   {"Tile", op_tile},
                                {"GatherElements", op_gather_elements}, {"Trilu", op_trilu},
                                {"DepthToSpace", op_depth_to_space}, {"SpaceToDepth", op_space_to_depth},
                                {"EyeLike", op_eyelike}, {"OneHot", op_onehot}};
  return table;
}

}  // namespace atl::reference::detail
