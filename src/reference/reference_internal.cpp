// Shared helpers of the reference interpreter: attribute readers, axis and
// broadcasting utilities, multi-index iteration.
#include "src/reference/reference_internal.h"

#include <algorithm>
#include <cmath>

namespace atl::reference::detail {

namespace {

/// An integer from a JSON number (integral floats accepted); empty otherwise.
std::optional<std::int64_t> json_to_int(const nlohmann::json &j) {
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number_float()) {
    double d = j.get<double>();
    if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.2e18) return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

}  // namespace

const Tensor &OpArgs::input(std::size_t i) const {
  const Tensor *t = optional_input(i);
  if (!t) fail("input " + std::to_string(i) + " is required but missing");
  return *t;
}

Shape OpArgs::output_shape(std::size_t i) const {
  if (i >= outputs_.size()) fail("output " + std::to_string(i) + " has no type");
  return concrete_shape(outputs_[i].shape);
}

DType OpArgs::output_dtype(std::size_t i) const {
  if (i >= outputs_.size()) fail("output " + std::to_string(i) + " has no type");
  return outputs_[i].dtype;
}

Tensor OpArgs::make_output(std::size_t i, const Shape &computed) const {
  Shape inferred = output_shape(i);
  ATOLL_ASSERT(inferred == computed, node_.op + " '" + node_.name + "': output " + std::to_string(i) +
                                         " was inferred as " + shape_to_string(inferred) +
                                         " but the reference computes " + shape_to_string(computed));
  return Tensor(output_dtype(i), inferred);
}

bool OpArgs::has_attr(const char *name) const {
  return node_.attrs.is_object() && node_.attrs.contains(name) && !node_.attrs.at(name).is_null();
}

std::int64_t OpArgs::attr_int(const char *name, std::int64_t dflt) const {
  if (!has_attr(name)) return dflt;
  const nlohmann::json &j = node_.attrs.at(name);
  const nlohmann::json &v = (j.is_array() && j.size() == 1) ? j[0] : j;
  if (auto i = json_to_int(v)) return *i;
  fail(std::string("attribute '") + name + "' must be an integer, got " + j.dump());
}

double OpArgs::attr_float(const char *name, double dflt) const {
  auto v = attr_float_opt(name);
  return v ? *v : dflt;
}

std::optional<double> OpArgs::attr_float_opt(const char *name) const {
  if (!has_attr(name)) return std::nullopt;
  const nlohmann::json &j = node_.attrs.at(name);
  const nlohmann::json &v = (j.is_array() && j.size() == 1) ? j[0] : j;
  if (v.is_number()) return v.get<double>();
  fail(std::string("attribute '") + name + "' must be a number, got " + j.dump());
}

std::string OpArgs::attr_string(const char *name, const std::string &dflt) const {
  if (!has_attr(name)) return dflt;
  const nlohmann::json &j = node_.attrs.at(name);
  if (j.is_string()) return j.get<std::string>();
  fail(std::string("attribute '") + name + "' must be a string, got " + j.dump());
}

std::optional<std::vector<std::int64_t>> OpArgs::attr_ints_opt(const char *name) const {
  if (!has_attr(name)) return std::nullopt;
  const nlohmann::json &j = node_.attrs.at(name);
  std::vector<std::int64_t> out;
  if (auto one = json_to_int(j)) return std::vector<std::int64_t>{*one};
  if (!j.is_array()) fail(std::string("attribute '") + name + "' must be a list of integers, got " + j.dump());
  for (const nlohmann::json &e : j) {
    auto i = json_to_int(e);
    if (!i) fail(std::string("attribute '") + name + "' must be a list of integers, got " + j.dump());
    out.push_back(*i);
  }
  return out;
}

std::vector<std::int64_t> OpArgs::attr_ints(const char *name, std::vector<std::int64_t> dflt) const {
  auto v = attr_ints_opt(name);
  return v ? *v : dflt;
}

std::optional<std::vector<std::int64_t>> OpArgs::const_ints(const char *name, std::size_t slot) const {
  if (auto v = attr_ints_opt(name)) return v;
  const Tensor *t = optional_input(slot);
  if (!t) return std::nullopt;
  if (t->rank() > 1) fail(std::string("'") + name + "' must be a 1-D tensor, got shape " + shape_to_string(t->shape));
  std::vector<std::int64_t> out;
  for (double v : t->data) out.push_back(static_cast<std::int64_t>(v));
  return out;
}

std::optional<double> OpArgs::const_float(const char *name, std::size_t slot) const {
  if (auto v = attr_float_opt(name)) return v;
  const Tensor *t = optional_input(slot);
  if (!t) return std::nullopt;
  if (t->numel() != 1) fail(std::string("'") + name + "' must be a scalar, got shape " + shape_to_string(t->shape));
  return t->get(0);
}

void OpArgs::fail(const std::string &reason) const {
  Location where;
  where.node = node_.name;
  where.pointer = node_.pointer;
  throw UserError(node_.op + ": " + reason, where);
}

int normalize_axis(const OpArgs &a, std::int64_t axis, int rank) {
  if (axis < -rank || axis >= rank)
    a.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Shape broadcast_shapes(const OpArgs &a, const std::vector<Shape> &shapes) {
  std::size_t rank = 0;
  for (const Shape &s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape &s : shapes) {
    std::size_t shift = rank - s.size();
    for (std::size_t i = 0; i < s.size(); ++i) {
      std::int64_t &o = out[shift + i];
      if (s[i] == o || s[i] == 1) continue;
      if (o == 1) {
        o = s[i];
        continue;
      }
      std::string all;
      for (const Shape &t : shapes) all += (all.empty() ? "" : " and ") + shape_to_string(t);
      a.fail("shapes " + all + " cannot be broadcast together");
    }
  }
  return out;
}

std::vector<std::int64_t> broadcast_strides(const Shape &in, const Shape &out) {
  ATOLL_ASSERT(in.size() <= out.size(), "broadcast_strides: input rank exceeds output rank");
  std::vector<std::int64_t> strides(out.size(), 0);
  std::vector<std::int64_t> own = shape_strides(in);
  std::size_t shift = out.size() - in.size();
  for (std::size_t i = 0; i < in.size(); ++i) {
    ATOLL_ASSERT(in[i] == out[shift + i] || in[i] == 1, "broadcast_strides: shapes do not broadcast");
    strides[shift + i] = in[i] == 1 ? 0 : own[i];
  }
  return strides;
}

bool next_index(std::vector<std::int64_t> &index, const Shape &shape) {
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    if (++index[d] < shape[d]) return true;
    index[d] = 0;
  }
  return false;
}

std::int64_t dims_product(const Shape &shape, int begin, int end) {
  std::int64_t p = 1;
  for (int i = begin; i < end; ++i) p *= shape[i];
  return p;
}

WindowAttrs read_window(const OpArgs &a, const Shape &in_spatial, std::vector<std::int64_t> kernel, bool resolve_same) {
  std::size_t n = in_spatial.size();
  WindowAttrs w;
  if (auto ks = a.attr_ints_opt("kernel_shape")) {
    if (!kernel.empty() && *ks != kernel)
      a.fail("kernel_shape " + ints_to_string(*ks) + " disagrees with the weight's spatial shape " + ints_to_string(kernel));
    kernel = *ks;
  }
  if (kernel.empty()) a.fail("attribute 'kernel_shape' is required");
  w.kernel = kernel;
  w.strides = a.attr_ints("strides", std::vector<std::int64_t>(n, 1));
  w.dilations = a.attr_ints("dilations", std::vector<std::int64_t>(n, 1));
  w.pads = a.attr_ints("pads", std::vector<std::int64_t>(2 * n, 0));
  w.auto_pad = a.attr_string("auto_pad", "NOTSET");
  auto check = [&](const char *name, const std::vector<std::int64_t> &v, std::size_t len, std::int64_t min) {
    if (v.size() != len)
      a.fail(std::string("'") + name + "' has " + std::to_string(v.size()) + " values, expected " + std::to_string(len) +
             " for " + std::to_string(n) + " spatial dims");
    for (std::int64_t x : v)
      if (x < min) a.fail(std::string("'") + name + "' values must be at least " + std::to_string(min) + ", got " + ints_to_string(v));
  };
  check("kernel_shape", w.kernel, n, 1);
  check("strides", w.strides, n, 1);
  check("dilations", w.dilations, n, 1);
  check("pads", w.pads, 2 * n, 0);
  const std::string &ap = w.auto_pad;
  if (ap != "NOTSET" && ap != "VALID" && ap != "SAME_UPPER" && ap != "SAME_LOWER")
    a.fail("auto_pad must be NOTSET, VALID, SAME_UPPER or SAME_LOWER, got \"" + ap + "\"");
  if (resolve_same && ap == "VALID") w.pads.assign(2 * n, 0);
  if (resolve_same && (ap == "SAME_UPPER" || ap == "SAME_LOWER")) {
    for (std::size_t i = 0; i < n; ++i) {
      std::int64_t out = (in_spatial[i] + w.strides[i] - 1) / w.strides[i];
      std::int64_t total = std::max<std::int64_t>(0, (out - 1) * w.strides[i] + w.extent(i) - in_spatial[i]);
      std::int64_t small = total / 2, large = total - small;
      w.pads[i] = ap == "SAME_UPPER" ? small : large;
      w.pads[n + i] = ap == "SAME_UPPER" ? large : small;
    }
  }
  return w;
}

Geometry3 make_geometry3(const OpArgs &a, const Shape &in_spatial, const Shape &out_spatial, const WindowAttrs &w) {
  std::size_t n = in_spatial.size();
  if (n < 1 || n > 3) a.fail("supports 1 to 3 spatial dimensions, got " + std::to_string(n));
  ATOLL_ASSERT(out_spatial.size() == n && w.kernel.size() == n, "make_geometry3: rank mismatch");
  Geometry3 g;
  std::size_t shift = 3 - n;
  for (std::size_t i = 0; i < n; ++i) {
    g.in[shift + i] = in_spatial[i];
    g.out[shift + i] = out_spatial[i];
    g.kernel[shift + i] = w.kernel[i];
    g.stride[shift + i] = w.strides[i];
    g.dilation[shift + i] = w.dilations[i];
    g.pad[shift + i] = w.pad_begin(i);
  }
  return g;
}

std::string ints_to_string(const std::vector<std::int64_t> &v) { return shape_to_string(v); }

}  // namespace atl::reference::detail
