// Shared helpers of the operator registry entries (see ops_util.h).
#include "graph/ir/ops/ops_util.h"

#include <charconv>
#include <cctype>
#include <cmath>
#include <set>

namespace atl::ops {

void fail(const OpContext &ctx, const std::string &reason) { throw ctx.error(ctx.node.op + ": " + reason); }

bool has_input(const OpContext &ctx, int slot) {
  return slot >= 0 && slot < static_cast<int>(ctx.inputs.size()) && ctx.inputs[slot].has_value();
}

const TensorType &in(const OpContext &ctx, int slot) {
  if (!has_input(ctx, slot)) fail(ctx, "input " + std::to_string(slot) + " is required");
  return *ctx.inputs[slot];
}

bool has_output(const OpContext &ctx, int slot) {
  return slot >= 0 && slot < static_cast<int>(ctx.node.outputs.size()) && !ctx.node.outputs[slot].empty();
}

std::vector<std::string> out_names(const OpContext &ctx, const std::vector<std::string> &formal) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ctx.node.outputs.size(); ++i)
    out.push_back(has_output(ctx, static_cast<int>(i)) && i < formal.size() ? formal[i] : std::string());
  return out;
}

std::vector<std::string> in_names(const OpContext &ctx, const std::vector<std::string> &formal) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i)
    out.push_back(has_input(ctx, static_cast<int>(i)) && i < formal.size() ? formal[i] : std::string());
  return out;
}

void require_float(const OpContext &ctx, const TensorType &t, const std::string &what) {
  if (!is_float(t.dtype))
    fail(ctx, what + " must be a float tensor (f32, f16, bf16), not " + dtype_name(t.dtype));
}

void require_numeric(const OpContext &ctx, const TensorType &t, const std::string &what) {
  if (t.dtype == DType::Bool) fail(ctx, what + " must be a numeric tensor, not bool");
}

void require_bool(const OpContext &ctx, const TensorType &t, const std::string &what) {
  if (t.dtype != DType::Bool) fail(ctx, what + " must be a bool tensor, not " + dtype_name(t.dtype));
}

void require_index(const OpContext &ctx, const TensorType &t, const std::string &what) {
  if (t.dtype != DType::I32 && t.dtype != DType::I64)
    fail(ctx, what + " must be an i32 or i64 tensor, not " + dtype_name(t.dtype));
}

void require_same_dtype(const OpContext &ctx, const TensorType &a, const std::string &wa, const TensorType &b,
                        const std::string &wb) {
  if (a.dtype != b.dtype)
    fail(ctx, wa + " is " + dtype_name(a.dtype) + " but " + wb + " is " + dtype_name(b.dtype) +
                  "; they must have the same element type");
}

void require_rank_at_least(const OpContext &ctx, const TensorType &t, int rank, const std::string &what) {
  if (t.rank() < rank)
    fail(ctx, what + " must have rank at least " + std::to_string(rank) + ", got " + t.str());
}

SymShape broadcast_shapes(const OpContext &ctx, const std::vector<SymShape> &shapes) {
  std::size_t rank = 0;
  for (const SymShape &s : shapes) rank = std::max(rank, s.size());
  SymShape out(rank, Dim(1));
  for (const SymShape &s : shapes) {
    std::size_t off = rank - s.size();
    for (std::size_t i = 0; i < s.size(); ++i) {
      Dim &o = out[off + i];
      const Dim &d = s[i];
      if (d == o || (!d.is_symbolic() && d.value == 1)) continue;
      if (!o.is_symbolic() && o.value == 1) {
        o = d;
        continue;
      }
      std::string why = "shapes ";
      for (std::size_t k = 0; k < shapes.size(); ++k) why += (k ? " and " : "") + sym_shape_to_string(shapes[k]);
      why += " do not broadcast: dimension " + o.str() + " against " + d.str();
      if (o.is_symbolic() || d.is_symbolic()) why += " (a symbolic dimension broadcasts only with itself or 1)";
      fail(ctx, why);
    }
  }
  return out;
}

bool broadcasts_to(const SymShape &from, const SymShape &to) {
  if (from.size() > to.size()) return false;
  std::size_t off = to.size() - from.size();
  for (std::size_t i = 0; i < from.size(); ++i)
    if (from[i] != to[off + i] && from[i] != Dim(1)) return false;
  return true;
}

int norm_axis(const OpContext &ctx, std::int64_t axis, int rank, const std::string &what) {
  if (axis < -rank || axis >= rank)
    fail(ctx, what + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank) + " (allowed " +
                  std::to_string(-rank) + ".." + std::to_string(rank - 1) + ")");
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::vector<int> norm_axes(const OpContext &ctx, const std::vector<std::int64_t> &axes, int rank,
                           const std::string &what) {
  std::vector<int> out;
  std::set<int> seen;
  for (std::int64_t a : axes) {
    int n = norm_axis(ctx, a, rank, what);
    if (!seen.insert(n).second) fail(ctx, what + " names axis " + std::to_string(n) + " twice");
    out.push_back(n);
  }
  return out;
}

std::int64_t concrete(const OpContext &ctx, const Dim &d, const std::string &why) {
  if (d.is_symbolic())
    fail(ctx, "dimension '" + d.symbol + "' is symbolic, but " + why + " needs a concrete size");
  return d.value;
}

std::int64_t elements(const SymShape &shape) { return product(shape, 0, static_cast<int>(shape.size())); }

std::int64_t product(const SymShape &shape, int from, int to) {
  std::int64_t p = 1;
  for (int i = from; i < to; ++i) p *= shape[i].value;
  return p;
}

bool Window::reads_outside() const {
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    if (pad_begin[i] > 0) return true;
    if ((out[i] - 1) * strides[i] + (kernel[i] - 1) * dilations[i] - pad_begin[i] >= in[i]) return true;
  }
  return false;
}

namespace {

std::vector<std::int64_t> positive_list(const OpContext &ctx, const char *name, std::size_t n) {
  std::vector<std::int64_t> v = ctx.attr_ints(name, std::vector<std::int64_t>(n, 1));
  if (v.size() != n)
    fail(ctx, std::string("attribute '") + name + "' has " + std::to_string(v.size()) + " values, expected " +
                  std::to_string(n) + " (one per spatial axis)");
  for (std::int64_t x : v)
    if (x < 1) fail(ctx, std::string("attribute '") + name + "' must be positive, got " + std::to_string(x));
  return v;
}

}  // namespace

std::vector<std::int64_t> kernel_shape(const OpContext &ctx, std::size_t spatial,
                                       const std::vector<std::int64_t> &dflt) {
  if (!ctx.attr("kernel_shape")) {
    if (dflt.empty()) fail(ctx, "attribute 'kernel_shape' is required");
    return dflt;
  }
  std::vector<std::int64_t> k = positive_list(ctx, "kernel_shape", spatial);
  if (!dflt.empty() && k != dflt) {
    std::string a, b;
    for (std::size_t i = 0; i < k.size(); ++i) a += (i ? "x" : "") + std::to_string(k[i]);
    for (std::size_t i = 0; i < dflt.size(); ++i) b += (i ? "x" : "") + std::to_string(dflt[i]);
    fail(ctx, "kernel_shape " + a + " does not match the weight's spatial shape " + b);
  }
  return k;
}

Window resolve_window(const OpContext &ctx, const TensorType &x, const std::vector<std::int64_t> &kernel,
                      bool with_ceil) {
  std::size_t k = kernel.size();
  Window w;
  w.kernel = kernel;
  w.strides = positive_list(ctx, "strides", k);
  w.dilations = positive_list(ctx, "dilations", k);
  for (std::size_t i = 0; i < k; ++i)
    w.in.push_back(concrete(ctx, x.shape[2 + i], "the output size of a sliding window"));
  std::string auto_pad = ctx.attr_string("auto_pad", "NOTSET");
  bool ceil_mode = with_ceil && ctx.attr_int("ceil_mode", 0) != 0;
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    fail(ctx, "auto_pad must be NOTSET, VALID, SAME_UPPER or SAME_LOWER, not '" + auto_pad + "'");
  std::vector<std::int64_t> pads(2 * k, 0);
  if (ctx.attr("pads")) {
    if (auto_pad != "NOTSET") fail(ctx, "'pads' cannot be used together with auto_pad " + auto_pad);
    pads = ctx.attr_ints("pads", {});
    if (pads.size() != 2 * k)
      fail(ctx, "attribute 'pads' has " + std::to_string(pads.size()) + " values, expected " + std::to_string(2 * k) +
                    " (begin and end per spatial axis)");
    for (std::int64_t p : pads)
      if (p < 0) fail(ctx, "attribute 'pads' must not be negative, got " + std::to_string(p));
  }
  for (std::size_t i = 0; i < k; ++i) {
    std::int64_t in = w.in[i], s = w.strides[i], eff = (kernel[i] - 1) * w.dilations[i] + 1;
    std::int64_t pb = pads[i], pe = pads[k + i], out = 0;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = (in + s - 1) / s;
      std::int64_t total = std::max<std::int64_t>(0, (out - 1) * s + eff - in);
      pb = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    } else {
      std::int64_t span = in + pb + pe - eff;
      if (span < 0)
        fail(ctx, "window of extent " + std::to_string(eff) + " (kernel " + std::to_string(kernel[i]) +
                      ", dilation " + std::to_string(w.dilations[i]) + ") is larger than the padded input size " +
                      std::to_string(in + pb + pe) + " on spatial axis " + std::to_string(i));
      if (ceil_mode && auto_pad == "NOTSET") {
        out = (span + s - 1) / s + 1;
        if ((out - 1) * s >= in + pb) --out;  // the last window must start inside the input or its begin pad
      } else {
        out = span / s + 1;
      }
    }
    w.pad_begin.push_back(pb);
    w.pad_end.push_back(pe);
    w.out.push_back(out);
  }
  return w;
}

std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "(-inf)";
  ATOLL_ASSERT(!std::isnan(v), "NaN literal in an operator definition");
  char buf[512];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  ATOLL_ASSERT(r.ec == std::errc(), "literal too long");
  std::string s(buf, r.ptr);
  return v < 0 ? "(" + s + ")" : s;
}

std::string dim_text(const Dim &d) { return d.is_symbolic() ? "$" + d.symbol : std::to_string(d.value); }

std::string resolve_param_refs(const std::string &text, const std::map<std::string, ParamRange> *params) {
  auto ident_start = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  auto ident_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::set<std::string> used;
  for (std::size_t i = 0; i < text.size();) {
    if (!ident_start(text[i]) || (i && ident_char(text[i - 1]))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && ident_char(text[j])) ++j;
    used.insert(text.substr(i, j - i));
    i = j;
  }
  std::map<std::string, std::string> renamed;
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {  // a number: copy it whole
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '.')) out += text[i++];
      continue;
    }
    bool marked = c == '$';
    if (!marked && !ident_start(c)) {
      out += text[i++];
      continue;
    }
    std::size_t b = marked ? i + 1 : i, j = b;
    while (j < text.size() && ident_char(text[j])) ++j;
    std::string name = text.substr(b, j - b);
    std::size_t k = j;
    while (k < text.size() && text[k] == ' ') ++k;
    bool call_or_read = k < text.size() && text[k] == '(';
    if (!marked && !call_or_read && params && params->count(name)) {
      auto it = renamed.find(name);
      if (it == renamed.end()) {
        std::string fresh = name + "_";
        while (params->count(fresh) || used.count(fresh)) fresh += "_";
        used.insert(fresh);
        it = renamed.emplace(name, fresh).first;
      }
      name = it->second;
    }
    out += name;
    i = j;
  }
  return out;
}

std::string call(const std::string &name, const std::vector<std::string> &subs) {
  std::string s = name + "(";
  for (std::size_t i = 0; i < subs.size(); ++i) s += (i ? ", " : "") + subs[i];
  return s + ")";
}

std::vector<std::string> index_names(int n, const std::string &prefix) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back(prefix + std::to_string(i));
  return v;
}

std::vector<std::string> broadcast_subs(const SymShape &in, const SymShape &out, const std::vector<std::string> &idx) {
  std::vector<std::string> subs;
  std::size_t off = out.size() - in.size();
  for (std::size_t i = 0; i < in.size(); ++i) {
    bool one = !in[i].is_symbolic() && in[i].value == 1;
    bool out_one = !out[off + i].is_symbolic() && out[off + i].value == 1;
    subs.push_back(one && !out_one ? "0" : idx[off + i]);
  }
  return subs;
}

std::string where_clause(const std::vector<std::pair<std::string, std::int64_t>> &ranges) {
  std::string s;
  for (const auto &[name, hi] : ranges) s += (s.empty() ? "" : ", ") + name + " in 0:" + std::to_string(hi);
  return s;
}

std::string Affine::str() const {
  std::string s;
  for (const auto &[name, coef] : terms) {
    std::int64_t c = coef;
    if (!s.empty()) {
      s += c < 0 ? " - " : " + ";
      c = c < 0 ? -c : c;
    } else if (c < 0) {
      s += "-";
      c = -c;
    }
    s += name;
    if (c != 1) s += " * " + std::to_string(c);
  }
  if (s.empty()) return std::to_string(constant);
  if (constant > 0) s += " + " + std::to_string(constant);
  if (constant < 0) s += " - " + std::to_string(-constant);
  return s;
}

}  // namespace atl::ops
