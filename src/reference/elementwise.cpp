// Reference elementwise operators: arithmetic (Mod, PRelu), activations,
// trigonometric and hyperbolic functions, Round, comparisons, IsInf, IsNaN
// and logic with numpy broadcasting, plus Clip, Where, Cast, CastLike and
// Identity.
#include "src/reference/reference_internal.h"

#include <cmath>
#include <limits>

namespace atl::reference::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// out[i] = f(values of every input at the broadcast position of i); the
/// output shape is the numpy broadcast of the input shapes.
template <class F>
Tensor map_broadcast(const OpArgs &a, const std::vector<const Tensor *> &ins, F f) {
  std::vector<Shape> shapes;
  for (const Tensor *t : ins) shapes.push_back(t->shape);
  Shape shape = broadcast_shapes(a, shapes);
  Tensor out = a.make_output(0, shape);
  std::vector<std::vector<std::int64_t>> strides;
  for (const Tensor *t : ins) strides.push_back(broadcast_strides(t->shape, shape));
  std::vector<std::int64_t> index(shape.size(), 0);
  std::vector<double> values(ins.size());
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    for (std::size_t k = 0; k < ins.size(); ++k) {
      std::int64_t off = 0;
      for (std::size_t d = 0; d < shape.size(); ++d) off += index[d] * strides[k][d];
      values[k] = ins[k]->get(off);
    }
    out.set(i, f(values.data()));
    next_index(index, shape);
  }
  return out;
}

template <class F>
std::vector<Tensor> unary(const OpArgs &a, F f) {
  const Tensor *x = &a.input(0);
  return {map_broadcast(a, {x}, [&](const double *v) { return f(v[0]); })};
}

template <class F>
std::vector<Tensor> binary(const OpArgs &a, F f) {
  const Tensor *x = &a.input(0), *y = &a.input(1);
  return {map_broadcast(a, {x, y}, [&](const double *v) { return f(v[0], v[1]); })};
}

/// Max/Min over 1+ inputs; NaN propagates (as numpy's maximum/minimum).
template <class Pick>
std::vector<Tensor> variadic(const OpArgs &a, Pick pick) {
  if (a.num_inputs() == 0) a.fail("needs at least one input");
  std::vector<const Tensor *> ins;
  for (std::size_t i = 0; i < a.num_inputs(); ++i) ins.push_back(&a.input(i));
  std::size_t n = ins.size();
  return {map_broadcast(a, ins, [&](const double *v) {
    double r = v[0];
    for (std::size_t k = 1; k < n; ++k) r = (std::isnan(r) || std::isnan(v[k])) ? NAN : pick(r, v[k]);
    return r;
  })};
}

std::vector<Tensor> op_add(const OpArgs &a) { return binary(a, [](double x, double y) { return x + y; }); }
std::vector<Tensor> op_sub(const OpArgs &a) { return binary(a, [](double x, double y) { return x - y; }); }
std::vector<Tensor> op_mul(const OpArgs &a) { return binary(a, [](double x, double y) { return x * y; }); }

std::vector<Tensor> op_div(const OpArgs &a) {
  if (!is_integer(a.output_dtype(0))) return binary(a, [](double x, double y) { return x / y; });
  // C's integer division truncates toward zero; by zero it gives what the
  // generated code's conversion of x / 0 gives: 0 (0 / 0, and i8/i32), the
  // saturated extreme for i64 (round_to).
  return binary(a, [](double x, double y) { return std::trunc(x / y); });
}

std::vector<Tensor> op_pow(const OpArgs &a) { return binary(a, [](double x, double y) { return std::pow(x, y); }); }
std::vector<Tensor> op_max(const OpArgs &a) { return variadic(a, [](double x, double y) { return x < y ? y : x; }); }
std::vector<Tensor> op_min(const OpArgs &a) { return variadic(a, [](double x, double y) { return y < x ? y : x; }); }

std::vector<Tensor> op_relu(const OpArgs &a) {
  return unary(a, [](double x) { return x < 0 ? 0.0 : x; });
}
std::vector<Tensor> op_leaky_relu(const OpArgs &a) {
  double alpha = a.attr_float("alpha", 0.01);
  return unary(a, [=](double x) { return x < 0 ? alpha * x : x; });
}
std::vector<Tensor> op_sigmoid(const OpArgs &a) {
  return unary(a, [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
}
std::vector<Tensor> op_tanh(const OpArgs &a) { return unary(a, [](double x) { return std::tanh(x); }); }
std::vector<Tensor> op_exp(const OpArgs &a) { return unary(a, [](double x) { return std::exp(x); }); }
std::vector<Tensor> op_log(const OpArgs &a) { return unary(a, [](double x) { return std::log(x); }); }
std::vector<Tensor> op_sqrt(const OpArgs &a) { return unary(a, [](double x) { return std::sqrt(x); }); }
std::vector<Tensor> op_reciprocal(const OpArgs &a) { return unary(a, [](double x) { return 1.0 / x; }); }
std::vector<Tensor> op_neg(const OpArgs &a) { return unary(a, [](double x) { return -x; }); }
std::vector<Tensor> op_abs(const OpArgs &a) { return unary(a, [](double x) { return std::fabs(x); }); }
std::vector<Tensor> op_erf(const OpArgs &a) { return unary(a, [](double x) { return std::erf(x); }); }

std::vector<Tensor> op_gelu(const OpArgs &a) {
  std::string approx = a.attr_string("approximate", "none");
  if (approx == "none")
    return unary(a, [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); });
  if (approx == "tanh")
    return unary(a, [](double x) {
      const double pi = 3.14159265358979323846;
      return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (x + 0.044715 * x * x * x)));
    });
  a.fail("attribute 'approximate' must be \"none\" or \"tanh\", got \"" + approx + "\"");
}

std::vector<Tensor> op_hard_sigmoid(const OpArgs &a) {
  double alpha = a.attr_float("alpha", 0.2), beta = a.attr_float("beta", 0.5);
  return unary(a, [=](double x) { return std::isnan(x) ? x : std::max(0.0, std::min(1.0, alpha * x + beta)); });
}
std::vector<Tensor> op_hard_swish(const OpArgs &a) {
  return unary(a, [](double x) { return x * std::max(0.0, std::min(1.0, x / 6.0 + 0.5)); });
}

std::vector<Tensor> op_elu(const OpArgs &a) {
  double alpha = a.attr_float("alpha", 1.0);
  return unary(a, [=](double x) { return x < 0 ? alpha * (std::exp(x) - 1.0) : x; });
}
std::vector<Tensor> op_selu(const OpArgs &a) {
  double alpha = a.attr_float("alpha", 1.67326319217681884765625);
  double gamma = a.attr_float("gamma", 1.05070102214813232421875);
  return unary(a, [=](double x) { return x <= 0 ? gamma * (alpha * std::exp(x) - alpha) : gamma * x; });
}
std::vector<Tensor> op_softplus(const OpArgs &a) {
  // log(exp(x) + 1), rearranged so that exp cannot overflow.
  return unary(a, [](double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); });
}
std::vector<Tensor> op_softsign(const OpArgs &a) { return unary(a, [](double x) { return x / (1.0 + std::fabs(x)); }); }

std::vector<Tensor> op_prelu(const OpArgs &a) {
  const Tensor &X = a.input(0), &slope = a.input(1);
  if (broadcast_shapes(a, {X.shape, slope.shape}) != X.shape)
    a.fail("slope " + shape_to_string(slope.shape) + " does not broadcast to X " + shape_to_string(X.shape));
  return binary(a, [](double x, double s) { return x < 0 ? s * x : x; });
}

std::vector<Tensor> op_mod(const OpArgs &a) {
  std::int64_t fmod = a.attr_int("fmod", 0);
  if (fmod != 0 && fmod != 1) a.fail("fmod must be 0 or 1, got " + std::to_string(fmod));
  if (fmod == 1) return binary(a, [](double x, double y) { return std::fmod(x, y); });
  if (!is_integer(a.output_dtype(0))) a.fail("fmod=0 needs integer inputs; float inputs need fmod=1");
  // The sign of the divisor (Python's %). By zero: NaN, which an integer
  // store turns into 0, as the generated code's conversion does.
  return binary(a, [](double x, double y) { return y == 0 ? NAN : x - y * std::floor(x / y); });
}

std::vector<Tensor> op_sin(const OpArgs &a) { return unary(a, [](double x) { return std::sin(x); }); }
std::vector<Tensor> op_cos(const OpArgs &a) { return unary(a, [](double x) { return std::cos(x); }); }
std::vector<Tensor> op_tan(const OpArgs &a) { return unary(a, [](double x) { return std::tan(x); }); }
std::vector<Tensor> op_asin(const OpArgs &a) { return unary(a, [](double x) { return std::asin(x); }); }
std::vector<Tensor> op_acos(const OpArgs &a) { return unary(a, [](double x) { return std::acos(x); }); }
std::vector<Tensor> op_atan(const OpArgs &a) { return unary(a, [](double x) { return std::atan(x); }); }
std::vector<Tensor> op_sinh(const OpArgs &a) { return unary(a, [](double x) { return std::sinh(x); }); }
std::vector<Tensor> op_cosh(const OpArgs &a) { return unary(a, [](double x) { return std::cosh(x); }); }
std::vector<Tensor> op_asinh(const OpArgs &a) { return unary(a, [](double x) { return std::asinh(x); }); }
std::vector<Tensor> op_acosh(const OpArgs &a) { return unary(a, [](double x) { return std::acosh(x); }); }
std::vector<Tensor> op_atanh(const OpArgs &a) { return unary(a, [](double x) { return std::atanh(x); }); }

/// Round half to even (the default rounding mode's nearbyint).
std::vector<Tensor> op_round(const OpArgs &a) { return unary(a, [](double x) { return std::nearbyint(x); }); }
std::vector<Tensor> op_isnan(const OpArgs &a) { return unary(a, [](double x) { return std::isnan(x) ? 1.0 : 0.0; }); }
std::vector<Tensor> op_isinf(const OpArgs &a) {
  bool neg = a.attr_int("detect_negative", 1) != 0, pos = a.attr_int("detect_positive", 1) != 0;
  return unary(a, [=](double x) { return (pos && x == kInf) || (neg && x == -kInf) ? 1.0 : 0.0; });
}
std::vector<Tensor> op_celu(const OpArgs &a) {
  double alpha = a.attr_float("alpha", 1.0);
  return unary(a, [=](double x) { return std::max(0.0, x) + std::min(0.0, alpha * (std::exp(x / alpha) - 1.0)); });
}
std::vector<Tensor> op_thresholded_relu(const OpArgs &a) {
  double alpha = a.attr_float("alpha", 1.0);
  return unary(a, [=](double x) { return x > alpha ? x : 0.0; });
}
std::vector<Tensor> op_shrink(const OpArgs &a) {
  double bias = a.attr_float("bias", 0.0), lambd = a.attr_float("lambd", 0.5);
  return unary(a, [=](double x) { return x < -lambd ? x + bias : x > lambd ? x - bias : 0.0; });
}
std::vector<Tensor> op_swish(const OpArgs &a) {
  double alpha = a.attr_float("alpha", 1.0);
  return unary(a, [=](double x) { return x / (1.0 + std::exp(-alpha * x)); });
}

std::vector<Tensor> op_clip(const OpArgs &a) {
  double lo = a.const_float("min", 1).value_or(-kInf), hi = a.const_float("max", 2).value_or(kInf);
  // ONNX: min > max sets every value to max, which this order gives.
  return unary(a, [=](double x) { return std::isnan(x) ? x : std::min(hi, std::max(lo, x)); });
}

std::vector<Tensor> op_where(const OpArgs &a) {
  const Tensor *c = &a.input(0), *x = &a.input(1), *y = &a.input(2);
  return {map_broadcast(a, {c, x, y}, [](const double *v) { return v[0] != 0 ? v[1] : v[2]; })};
}

std::vector<Tensor> op_cast(const OpArgs &a) {
  if (!a.has_attr("to")) a.fail("attribute 'to' is required");
  const nlohmann::json &to = a.node().attrs.at("to");
  std::optional<DType> t;
  if (to.is_string()) t = parse_dtype(to.get<std::string>());
  else if (to.is_number_integer()) t = dtype_from_onnx(to.get<long long>());
  if (!t) a.fail("unsupported target type " + to.dump());
  ATOLL_ASSERT(*t == a.output_dtype(0), "Cast: output dtype disagrees with 'to'");
  // Tensor::set rounds to the target type: floats to nearest even, integers
  // truncate toward zero, bool is (x != 0).
  return unary(a, [](double x) { return x; });
}

std::vector<Tensor> op_cast_like(const OpArgs &a) {
  ATOLL_ASSERT(a.input(1).dtype == a.output_dtype(0), "CastLike: output dtype disagrees with target_type");
  const Tensor *x = &a.input(0);
  return {map_broadcast(a, {x}, [](const double *v) { return v[0]; })};
}

std::vector<Tensor> op_identity(const OpArgs &a) { return unary(a, [](double x) { return x; }); }

std::vector<Tensor> op_equal(const OpArgs &a) { return binary(a, [](double x, double y) { return x == y ? 1.0 : 0.0; }); }
std::vector<Tensor> op_less(const OpArgs &a) { return binary(a, [](double x, double y) { return x < y ? 1.0 : 0.0; }); }
std::vector<Tensor> op_greater(const OpArgs &a) { return binary(a, [](double x, double y) { return x > y ? 1.0 : 0.0; }); }
std::vector<Tensor> op_less_equal(const OpArgs &a) {
  return binary(a, [](double x, double y) { return x <= y ? 1.0 : 0.0; });
}
std::vector<Tensor> op_greater_equal(const OpArgs &a) {
  return binary(a, [](double x, double y) { return x >= y ? 1.0 : 0.0; });
}
std::vector<Tensor> op_not(const OpArgs &a) { return unary(a, [](double x) { return x != 0 ? 0.0 : 1.0; }); }
std::vector<Tensor> op_and(const OpArgs &a) {
  return binary(a, [](double x, double y) { return (x != 0 && y != 0) ? 1.0 : 0.0; });
}
std::vector<Tensor> op_or(const OpArgs &a) {
  return binary(a, [](double x, double y) { return (x != 0 || y != 0) ? 1.0 : 0.0; });
}
std::vector<Tensor> op_xor(const OpArgs &a) {
  return binary(a, [](double x, double y) { return (x != 0) != (y != 0) ? 1.0 : 0.0; });
}

}  // namespace

const OpTable &elementwise_ops() {
  static const OpTable table = {
      {"Add", op_add},           {"Sub", op_sub},
      {"Mul", op_mul},           {"Div", op_div},
      {"Pow", op_pow},           {"Max", op_max},
      {"Min", op_min},           {"Relu", op_relu},
      {"LeakyRelu", op_leaky_relu}, {"Sigmoid", op_sigmoid},
      {"Tanh", op_tanh},         {"Exp", op_exp},
      {"Log", op_log},           {"Sqrt", op_sqrt},
      {"Reciprocal", op_reciprocal}, {"Neg", op_neg},
      {"Abs", op_abs},           {"Erf", op_erf},
      {"Gelu", op_gelu},         {"HardSigmoid", op_hard_sigmoid},
      {"HardSwish", op_hard_swish}, {"Clip", op_clip},
      {"Where", op_where},       {"Cast", op_cast},
      {"Identity", op_identity}, {"Equal", op_equal},
      {"Less", op_less},         {"Greater", op_greater},
      {"LessOrEqual", op_less_equal}, {"GreaterOrEqual", op_greater_equal},
      {"Not", op_not},           {"And", op_and},
      {"Or", op_or},             {"Elu", op_elu},
      {"Selu", op_selu},         {"Softplus", op_softplus},
      {"Softsign", op_softsign}, {"PRelu", op_prelu},
      {"Mod", op_mod},           {"CastLike", op_cast_like},
      {"Sin", op_sin},
      {"Cos", op_cos},
      {"Tan", op_tan},
      {"Asin", op_asin},
      {"Acos", op_acos},
      {"Atan", op_atan},
      {"Sinh", op_sinh},
      {"Cosh", op_cosh},
      {"Asinh", op_asinh},
      {"Acosh", op_acosh},
      {"Atanh", op_atanh},
      {"Round", op_round},       {"IsNaN", op_isnan},
      {"IsInf", op_isinf},       {"Celu", op_celu},
      {"ThresholdedRelu", op_thresholded_relu}, {"Shrink", op_shrink},
      {"Swish", op_swish},       {"Xor", op_xor},
  };
  return table;
}

}  // namespace atl::reference::detail
