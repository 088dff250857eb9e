// Registry entries of the elementwise operators: unary math (trigonometric
// and hyperbolic functions, Round), activations, broadcasting binary
// arithmetic (Mod, PRelu), comparisons, IsInf and IsNaN, logic (Xor), Where,
// Clip, Cast and CastLike.
#include "graph/ir/ops/ops_util.h"

#include <map>

namespace atl::ops {
namespace {

/// What element types an operator's data inputs allow.
enum class Allow { Any, Numeric, Float, Bool };
/// What the output's element type is.
enum class Result { Same, Bool, CastTo, Like };

using Expr = std::string (*)(const OpContext &ctx, const std::vector<std::string> &args);

struct Spec {
  const char *name;
  int min_in, max_in;
  std::vector<std::string> in;  ///< formal input names; a variadic op repeats the last as name_i
  std::string out;
  Allow allow;
  Result result;
  int flops;  ///< per output element; -1: computed by the operator
  Expr expr;
  std::vector<AttrSpec> attrs;
  std::vector<std::pair<int, const char *>> const_inputs;
};

std::string un(const char *f, const std::string &x) { return std::string(f) + "(" + x + ")"; }
std::string bin(const std::vector<std::string> &a, const char *op) { return a[0] + " " + op + " " + a[1]; }

/// max then min: with min > max every value becomes max, as ONNX specifies.
std::string clip_expr(const OpContext &ctx, const std::vector<std::string> &a) {
  std::string e = a[0];
  if (ctx.attr("min")) e = "max(" + e + ", " + num(ctx.attr_float("min", 0)) + ")";
  if (ctx.attr("max")) e = "min(" + e + ", " + num(ctx.attr_float("max", 0)) + ")";
  return e;
}

std::string gelu_expr(const OpContext &ctx, const std::vector<std::string> &a) {
  const std::string &x = a[0];
  if (ctx.attr_string("approximate", "none") == "tanh")
    return "0.5 * " + x + " * (1 + tanh(0.7978845608028654 * (" + x + " + 0.044715 * " + x + " * " + x + " * " + x +
           ")))";
  return "0.5 * " + x + " * (1 + erf(" + x + " * 0.7071067811865476))";
}

std::string elu_expr(const OpContext &ctx, const std::vector<std::string> &a) {
  const std::string &x = a[0];
  return x + " < 0 ? " + num(ctx.attr_float("alpha", 1.0)) + " * (exp(" + x + ") - 1) : " + x;
}

// ONNX's defaults, the f32 values of Selu's constants.
constexpr double kSeluAlpha = 1.67326319217681884765625, kSeluGamma = 1.05070102214813232421875;

std::string selu_expr(const OpContext &ctx, const std::vector<std::string> &a) {
  const std::string &x = a[0];
  std::string alpha = num(ctx.attr_float("alpha", kSeluAlpha)), gamma = num(ctx.attr_float("gamma", kSeluGamma));
  return x + " <= 0 ? " + gamma + " * (" + alpha + " * exp(" + x + ") - " + alpha + ") : " + gamma + " * " + x;
}

/// log(exp(x) + 1) as max(x, 0) + log(1 + exp(-|x|)): exp never overflows,
/// so large x give x rather than inf.
std::string softplus_expr(const OpContext &, const std::vector<std::string> &a) {
  const std::string &x = a[0];
  return "max(" + x + ", 0) + log(1 + exp(-abs(" + x + ")))";
}

/// Mod: fmod=0 is floored modulo (the divisor's sign, Python's %), which is
/// the Compute language's `%`; fmod=1 is C's fmod, the remainder of the
/// quotient truncated toward zero (the dividend's sign).
std::string mod_expr(const OpContext &ctx, const std::vector<std::string> &a) {
  if (ctx.attr_int("fmod", 0) == 0) return a[0] + " % " + a[1];
  std::string q = "(" + a[0] + " / " + a[1] + ")";
  return a[0] + " - " + a[1] + " * (" + q + " < 0 ? -floor(-" + q + ") : floor(" + q + "))";
}

/// Round half to even from floor: the fraction decides, and a tie goes to
/// the even neighbour (f - 2 floor(f / 2) is 0 for an even f). Infinities and
/// NaN come out as they went in (inf - inf makes every test false).
std::string round_expr(const OpContext &, const std::vector<std::string> &a) {
  const std::string &x = a[0];
  std::string f = "floor(" + x + ")", r = "(" + x + " - " + f + ")";
  return r + " > 0.5 ? " + f + " + 1 : " + r + " < 0.5 ? " + f + " : " + f + " - 2 * floor(" + f + " / 2) == 0 ? " +
         f + " : " + f + " + 1";
}

/// IsInf: which infinities count (both by default); neither gives false,
/// written as a test no value passes.
std::string isinf_expr(const OpContext &ctx, const std::vector<std::string> &a) {
  const std::string &x = a[0];
  bool neg = ctx.attr_int("detect_negative", 1) != 0, pos = ctx.attr_int("detect_positive", 1) != 0;
  if (neg && pos) return "abs(" + x + ") == inf";
  if (pos) return x + " == inf";
  if (neg) return x + " == (-inf)";
  return x + " == inf && " + x + " == (-inf)";
}

/// Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
std::string celu_expr(const OpContext &ctx, const std::vector<std::string> &a) {
  const std::string &x = a[0];
  std::string alpha = num(ctx.attr_float("alpha", 1.0));
  return "max(" + x + ", 0) + min(0, " + alpha + " * (exp(" + x + " / " + alpha + ") - 1))";
}

/// Shrink: x + bias below -lambd, x - bias above lambd, 0 between.
std::string shrink_expr(const OpContext &ctx, const std::vector<std::string> &a) {
  const std::string &x = a[0];
  std::string bias = num(ctx.attr_float("bias", 0.0)), lambd = num(ctx.attr_float("lambd", 0.5));
  return x + " < -" + lambd + " ? " + x + " + " + bias + " : " + x + " > " + lambd + " ? " + x + " - " + bias + " : 0";
}

std::string variadic(const std::vector<std::string> &a, const char *f) {
  std::string e = a[0];
  for (std::size_t i = 1; i < a.size(); ++i) e = std::string(f) + "(" + e + ", " + a[i] + ")";
  return e;
}

const std::vector<Spec> &specs() {
  using V = std::vector<std::string>;
  static const std::vector<Spec> s = {
      // unary
      {"Relu", 1, 1, {"X"}, "Y", Allow::Numeric, Result::Same, 1, [](const OpContext &, const V &a) { return "max(" + a[0] + ", 0)"; }, {}, {}},
      {"LeakyRelu", 1, 1, {"X"}, "Y", Allow::Float, Result::Same, 2,
       [](const OpContext &c, const V &a) { return a[0] + " < 0 ? " + num(c.attr_float("alpha", 0.01)) + " * " + a[0] + " : " + a[0]; },
       {{"alpha", AttrKind::Float}}, {}},
      {"Sigmoid", 1, 1, {"X"}, "Y", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("sigmoid", a[0]); }, {}, {}},
      {"Tanh", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("tanh", a[0]); }, {}, {}},
      {"Exp", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("exp", a[0]); }, {}, {}},
      {"Log", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("log", a[0]); }, {}, {}},
      {"Sqrt", 1, 1, {"X"}, "Y", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("sqrt", a[0]); }, {}, {}},
      {"Reciprocal", 1, 1, {"X"}, "Y", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return "1 / " + a[0]; }, {}, {}},
      {"Neg", 1, 1, {"X"}, "Y", Allow::Numeric, Result::Same, 1, [](const OpContext &, const V &a) { return "-" + a[0]; }, {}, {}},
      {"Abs", 1, 1, {"X"}, "Y", Allow::Numeric, Result::Same, 1, [](const OpContext &, const V &a) { return un("abs", a[0]); }, {}, {}},
      {"Erf", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("erf", a[0]); }, {}, {}},
      {"Gelu", 1, 1, {"X"}, "Y", Allow::Float, Result::Same, -1, gelu_expr, {{"approximate", AttrKind::String}}, {}},
      {"Sin", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("sin", a[0]); }, {}, {}},
      {"Cos", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("cos", a[0]); }, {}, {}},
      {"Tan", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("tan", a[0]); }, {}, {}},
      {"Asin", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("asin", a[0]); }, {}, {}},
      {"Acos", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("acos", a[0]); }, {}, {}},
      {"Atan", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("atan", a[0]); }, {}, {}},
      {"Sinh", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("sinh", a[0]); }, {}, {}},
      {"Cosh", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("cosh", a[0]); }, {}, {}},
      {"Asinh", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("asinh", a[0]); }, {}, {}},
      {"Acosh", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("acosh", a[0]); }, {}, {}},
      {"Atanh", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 1, [](const OpContext &, const V &a) { return un("atanh", a[0]); }, {}, {}},
      {"Round", 1, 1, {"X"}, "Y", Allow::Float, Result::Same, 6, round_expr, {}, {}},
      {"IsNaN", 1, 1, {"X"}, "Y", Allow::Float, Result::Bool, 1, [](const OpContext &, const V &a) { return a[0] + " != " + a[0]; }, {}, {}},
      {"IsInf", 1, 1, {"X"}, "Y", Allow::Float, Result::Bool, 2, isinf_expr,
       {{"detect_negative", AttrKind::Int}, {"detect_positive", AttrKind::Int}}, {}},
      {"HardSigmoid", 1, 1, {"X"}, "Y", Allow::Float, Result::Same, 4,
       [](const OpContext &c, const V &a) {
         return "max(0, min(1, " + num(c.attr_float("alpha", 0.2)) + " * " + a[0] + " + " + num(c.attr_float("beta", 0.5)) + "))";
       },
       {{"alpha", AttrKind::Float}, {"beta", AttrKind::Float}}, {}},
      {"HardSwish", 1, 1, {"X"}, "Y", Allow::Float, Result::Same, 5,
       [](const OpContext &, const V &a) { return a[0] + " * max(0, min(1, " + a[0] + " / 6 + 0.5))"; }, {}, {}},
      {"Elu", 1, 1, {"X"}, "Y", Allow::Float, Result::Same, 3, elu_expr, {{"alpha", AttrKind::Float}}, {}},
      {"Selu", 1, 1, {"X"}, "Y", Allow::Float, Result::Same, 4, selu_expr,
       {{"alpha", AttrKind::Float}, {"gamma", AttrKind::Float}}, {}},
      {"Softplus", 1, 1, {"X"}, "Y", Allow::Float, Result::Same, 5, softplus_expr, {}, {}},
      {"Softsign", 1, 1, {"input"}, "output", Allow::Float, Result::Same, 3,
       [](const OpContext &, const V &a) { return a[0] + " / (1 + abs(" + a[0] + "))"; }, {}, {}},
      {"Celu", 1, 1, {"X"}, "Y", Allow::Float, Result::Same, 6, celu_expr, {{"alpha", AttrKind::Float}}, {}},
      {"ThresholdedRelu", 1, 1, {"X"}, "Y", Allow::Float, Result::Same, 1,
       [](const OpContext &c, const V &a) { return a[0] + " > " + num(c.attr_float("alpha", 1.0)) + " ? " + a[0] + " : 0"; },
       {{"alpha", AttrKind::Float}}, {}},
      {"Shrink", 1, 1, {"input"}, "output", Allow::Numeric, Result::Same, 3, shrink_expr,
       {{"bias", AttrKind::Float}, {"lambd", AttrKind::Float}}, {}},
      // opset 24: x * sigmoid(alpha * x)
      {"Swish", 1, 1, {"X"}, "Y", Allow::Float, Result::Same, 3,
       [](const OpContext &c, const V &a) { return a[0] + " * sigmoid(" + num(c.attr_float("alpha", 1.0)) + " * " + a[0] + ")"; },
       {{"alpha", AttrKind::Float}}, {}},
      {"Clip", 1, 3, {"input", "min", "max"}, "output", Allow::Numeric, Result::Same, -1, clip_expr,
       {{"min", AttrKind::Float}, {"max", AttrKind::Float}}, {{1, "min"}, {2, "max"}}},
      {"Cast", 1, 1, {"input"}, "output", Allow::Any, Result::CastTo, 0, [](const OpContext &, const V &a) { return a[0]; },
       {{"to", AttrKind::DType}, {"saturate", AttrKind::Int}}, {}},
      // the output has the input's shape and target_type's dtype; target_type's values are not read
      {"CastLike", 2, 2, {"input", "target_type"}, "output", Allow::Any, Result::Like, 0,
       [](const OpContext &, const V &a) { return a[0]; }, {{"saturate", AttrKind::Int}}, {}},
      {"Identity", 1, 1, {"input"}, "output", Allow::Any, Result::Same, 0, [](const OpContext &, const V &a) { return a[0]; }, {}, {}},
      {"Not", 1, 1, {"X"}, "Y", Allow::Bool, Result::Same, 1, [](const OpContext &, const V &a) { return "!" + a[0]; }, {}, {}},
      // binary, broadcasting
      {"Add", 2, 2, {"A", "B"}, "C", Allow::Numeric, Result::Same, 1, [](const OpContext &, const V &a) { return bin(a, "+"); }, {}, {}},
      {"Sub", 2, 2, {"A", "B"}, "C", Allow::Numeric, Result::Same, 1, [](const OpContext &, const V &a) { return bin(a, "-"); }, {}, {}},
      {"Mul", 2, 2, {"A", "B"}, "C", Allow::Numeric, Result::Same, 1, [](const OpContext &, const V &a) { return bin(a, "*"); }, {}, {}},
      {"Div", 2, 2, {"A", "B"}, "C", Allow::Numeric, Result::Same, 1, [](const OpContext &, const V &a) { return bin(a, "/"); }, {}, {}},
      {"Pow", 2, 2, {"X", "Y"}, "Z", Allow::Numeric, Result::Same, 1,
       [](const OpContext &, const V &a) { return "pow(" + a[0] + ", " + a[1] + ")"; }, {}, {}},
      {"Mod", 2, 2, {"A", "B"}, "C", Allow::Numeric, Result::Same, -1, mod_expr, {{"fmod", AttrKind::Int}}, {}},
      // slope broadcasts to X (unidirectionally): the output has X's shape
      {"PRelu", 2, 2, {"X", "slope"}, "Y", Allow::Numeric, Result::Same, 2,
       [](const OpContext &, const V &a) { return a[0] + " < 0 ? " + a[1] + " * " + a[0] + " : " + a[0]; }, {}, {}},
      {"Max", 1, -1, {"data_"}, "Y", Allow::Numeric, Result::Same, -1, [](const OpContext &, const V &a) { return variadic(a, "max"); }, {}, {}},
      {"Min", 1, -1, {"data_"}, "Y", Allow::Numeric, Result::Same, -1, [](const OpContext &, const V &a) { return variadic(a, "min"); }, {}, {}},
      {"Equal", 2, 2, {"A", "B"}, "C", Allow::Any, Result::Bool, 1, [](const OpContext &, const V &a) { return bin(a, "=="); }, {}, {}},
      {"Less", 2, 2, {"A", "B"}, "C", Allow::Numeric, Result::Bool, 1, [](const OpContext &, const V &a) { return bin(a, "<"); }, {}, {}},
      {"Greater", 2, 2, {"A", "B"}, "C", Allow::Numeric, Result::Bool, 1, [](const OpContext &, const V &a) { return bin(a, ">"); }, {}, {}},
      {"LessOrEqual", 2, 2, {"A", "B"}, "C", Allow::Numeric, Result::Bool, 1, [](const OpContext &, const V &a) { return bin(a, "<="); }, {}, {}},
      {"GreaterOrEqual", 2, 2, {"A", "B"}, "C", Allow::Numeric, Result::Bool, 1, [](const OpContext &, const V &a) { return bin(a, ">="); }, {}, {}},
      {"And", 2, 2, {"A", "B"}, "C", Allow::Bool, Result::Bool, 1, [](const OpContext &, const V &a) { return bin(a, "&&"); }, {}, {}},
      {"Or", 2, 2, {"A", "B"}, "C", Allow::Bool, Result::Bool, 1, [](const OpContext &, const V &a) { return bin(a, "||"); }, {}, {}},
      {"Xor", 2, 2, {"A", "B"}, "C", Allow::Bool, Result::Bool, 1, [](const OpContext &, const V &a) { return bin(a, "!="); }, {}, {}},
      {"Where", 3, 3, {"condition", "X", "Y"}, "output", Allow::Any, Result::Same, 1,
       [](const OpContext &, const V &a) { return a[0] + " ? " + a[1] + " : " + a[2]; }, {}, {}},
  };
  return s;
}

const Spec &spec_of(const OpContext &ctx) {
  for (const Spec &s : specs())
    if (ctx.node.op == s.name) return s;
  ATOLL_ASSERT(false, "no elementwise spec for " + ctx.node.op);
  return specs()[0];
}

/// Formal name of data input `i`.
std::string formal_in(const Spec &s, std::size_t i) {
  if (s.max_in < 0) return s.in[0] + std::to_string(i);
  return s.in[i];
}

/// Number of data (tensor) inputs: Clip's min/max arrive as attributes and
/// CastLike reads only its first input.
std::size_t data_inputs(const Spec &s, const OpContext &ctx) {
  return s.const_inputs.empty() && s.result != Result::Like ? ctx.inputs.size() : 1;
}

std::vector<TensorType> infer_elementwise(const OpContext &ctx) {
  const Spec &s = spec_of(ctx);
  for (const auto &[slot, attr] : s.const_inputs)
    if (has_input(ctx, slot))
      fail(ctx, std::string("'") + attr + "' must be a constant: give it as inline data or as the attribute");
  std::size_t n = data_inputs(s, ctx);
  std::vector<SymShape> shapes;
  bool where = ctx.node.op == "Where";
  for (std::size_t i = 0; i < n; ++i) {
    const TensorType &t = in(ctx, static_cast<int>(i));
    std::string what = "input '" + formal_in(s, i) + "'";
    if (where && i == 0) {
      require_bool(ctx, t, what);
    } else {
      switch (s.allow) {
      case Allow::Any: break;
      case Allow::Numeric: require_numeric(ctx, t, what); break;
      case Allow::Float: require_float(ctx, t, what); break;
      case Allow::Bool: require_bool(ctx, t, what); break;
      }
      std::size_t first = where ? 1 : 0;
      if (i > first && ctx.node.op != "Pow")
        require_same_dtype(ctx, in(ctx, static_cast<int>(first)), "input '" + formal_in(s, first) + "'", t, what);
    }
    shapes.push_back(t.shape);
  }
  TensorType out;
  out.shape = broadcast_shapes(ctx, shapes);
  out.dtype = in(ctx, where ? 1 : 0).dtype;
  if (s.result == Result::Bool) out.dtype = DType::Bool;
  if (s.result == Result::CastTo) {
    const nlohmann::json *to = ctx.attr("to");
    if (!to) fail(ctx, "attribute 'to' is required");
    std::optional<DType> t;
    if (to->is_string()) t = parse_dtype(to->get<std::string>());
    else if (to->is_number_integer()) t = dtype_from_onnx(to->get<long long>());
    if (!t) fail(ctx, "attribute 'to' names no supported element type: " + to->dump());
    out.dtype = *t;
  }
  if (s.result == Result::Like) out.dtype = in(ctx, 1).dtype;
  if (ctx.node.op == "PRelu" && !broadcasts_to(in(ctx, 1).shape, in(ctx, 0).shape))
    fail(ctx, "slope " + in(ctx, 1).str() + " does not broadcast to X " + in(ctx, 0).str() +
                  " (PRelu broadcasts slope to X only)");
  if (ctx.node.op == "Mod") {
    std::int64_t fmod = ctx.attr_int("fmod", 0);
    if (fmod != 0 && fmod != 1) fail(ctx, "fmod must be 0 or 1, got " + std::to_string(fmod));
    if (fmod == 0 && !is_integer(out.dtype))
      fail(ctx, "fmod=0 (integer modulo) needs integer inputs; " + std::string(dtype_name(out.dtype)) +
                    " inputs need fmod=1, as ONNX requires");
  }
  if (ctx.node.op == "Gelu") {
    std::string a = ctx.attr_string("approximate", "none");
    if (a != "none" && a != "tanh") fail(ctx, "approximate must be 'none' or 'tanh', not '" + a + "'");
  }
  if (s.max_in >= 0 && static_cast<int>(n) > s.max_in) fail(ctx, "too many inputs");
  if (has_output(ctx, 1) || ctx.node.outputs.size() > 1) fail(ctx, "has exactly one output");
  return {out};
}

std::int64_t flops_elementwise(const OpContext &ctx) {
  const Spec &s = spec_of(ctx);
  std::int64_t per = s.flops;
  if (per < 0) {
    if (ctx.node.op == "Gelu") per = ctx.attr_string("approximate", "none") == "tanh" ? 9 : 5;
    else if (ctx.node.op == "Clip") per = (ctx.attr("min") ? 1 : 0) + (ctx.attr("max") ? 1 : 0);
    else if (ctx.node.op == "Mod") per = ctx.attr_int("fmod", 0) == 0 ? 1 : 4;
    else per = static_cast<std::int64_t>(ctx.inputs.size()) - 1;  // variadic Max / Min
  }
  return per * elements(ctx.outputs[0].shape);
}

OpDefinition define_elementwise(const OpContext &ctx) {
  const Spec &s = spec_of(ctx);
  const SymShape &out = ctx.outputs[0].shape;
  std::vector<std::string> idx = index_names(static_cast<int>(out.size()));
  std::vector<std::string> args, formals;
  for (std::size_t i = 0; i < data_inputs(s, ctx); ++i) {
    formals.push_back(formal_in(s, i));
    args.push_back(call(formals.back(), broadcast_subs(in(ctx, static_cast<int>(i)).shape, out, idx)));
  }
  OpDefinition d;
  d.text = call(s.out, idx) + " = " + s.expr(ctx, args);
  d.inputs = formals;
  // CastLike's target_type is an input of the node that the text does not read.
  if (s.result == Result::Like) d.inputs.push_back(formal_in(s, 1));
  while (d.inputs.size() < ctx.inputs.size()) d.inputs.push_back("");
  d.outputs = {s.out};
  return d;
}

}  // namespace

std::vector<OpInfo> elementwise_ops() {
  std::vector<OpInfo> out;
  for (const Spec &s : specs()) {
    PatternKind p = (s.min_in >= 2 || s.max_in < 0) && s.result != Result::Like ? PatternKind::Broadcast
                                                                                 : PatternKind::Elementwise;
    out.push_back(OpInfo{s.name, p, s.min_in, s.max_in, 1, 1, s.attrs, s.const_inputs, infer_elementwise,
                         flops_elementwise, define_elementwise});
  }
  return out;
}

}  // namespace atl::ops
