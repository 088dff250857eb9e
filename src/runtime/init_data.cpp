// Parses `init` specs and generates reproducible test data (splitmix64).
#include "src/runtime/init_data.h"

#include <cmath>
#include <cstdlib>
#include <regex>

namespace atl {

namespace {

/// splitmix64: small, fast, and the same on every platform (unlike std:: distributions).
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform01() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
};

std::uint64_t fnv1a(const std::string &s, std::uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

double parse_number(const std::string &s, const std::string &spec) {
  char *end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v))
    throw UserError("init '" + spec + "': '" + s + "' is not a finite number");
  return v;
}

}  // namespace

InitSpec parse_init(const std::string &text) {
  InitSpec spec;
  std::string t;
  for (char c : text)
    if (c != ' ' && c != '\t') t += c;
  if (t.empty()) return spec;
  if (t == "zeros" || t == "ones") {
    spec.kind = InitSpec::Kind::Constant;
    spec.a = t == "ones" ? 1.0 : 0.0;
    return spec;
  }
  static const std::regex call(R"(([a-z]+)\(([^,()]*)(?:,([^,()]*))?\))");
  std::smatch m;
  if (!std::regex_match(t, m, call))
    throw UserError("init '" + text + "' is not one of uniform(lo,hi), normal(mean,std), constant(v), zeros, ones, "
                    "range(start,step)");
  std::string fn = m[1];
  bool two = m[3].matched;
  if (fn == "uniform" || fn == "normal" || fn == "range") {
    if (!two) throw UserError("init '" + text + "': " + fn + " takes two numbers");
    spec.kind = fn == "uniform" ? InitSpec::Kind::Uniform : fn == "normal" ? InitSpec::Kind::Normal : InitSpec::Kind::Range;
    spec.a = parse_number(m[2], text);
    spec.b = parse_number(m[3], text);
    if (spec.kind == InitSpec::Kind::Uniform && spec.b < spec.a)
      throw UserError("init '" + text + "': uniform needs lo <= hi");
    if (spec.kind == InitSpec::Kind::Normal && spec.b < 0) throw UserError("init '" + text + "': normal needs std >= 0");
    return spec;
  }
  if (fn == "constant") {
    if (two) throw UserError("init '" + text + "': constant takes one number");
    spec.kind = InitSpec::Kind::Constant;
    spec.a = parse_number(m[2], text);
    return spec;
  }
  throw UserError("init '" + text + "': unknown generator '" + fn + "'");
}

Tensor make_tensor_data(const std::string &graph, const TensorDecl &decl, const Shape &shape) {
  Tensor t(decl.type.dtype, shape);
  if (decl.data) {
    for (std::size_t i = 0; i < decl.data->size() && i < t.data.size(); ++i) t.set(static_cast<std::int64_t>(i), (*decl.data)[i]);
    return t;
  }
  InitSpec spec = parse_init(decl.init);
  bool integer = is_integer(decl.type.dtype);
  if (integer && decl.init.empty()) {  // small values; u8 has no negative ones
    spec.a = decl.type.dtype == DType::U8 ? 0 : -8;
    spec.b = decl.type.dtype == DType::U8 ? 16 : 8;
  }
  Rng rng{fnv1a(decl.name, fnv1a(graph + "/"))};
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    double v = 0;
    switch (spec.kind) {
    case InitSpec::Kind::Uniform:
      if (decl.type.dtype == DType::Bool && decl.init.empty())
        v = rng.next() & 1u;
      else if (integer)
        v = std::ceil(spec.a) + std::floor(rng.uniform01() * (std::floor(spec.b) - std::ceil(spec.a) + 1));
      else
        v = spec.a + (spec.b - spec.a) * rng.uniform01();
      break;
    case InitSpec::Kind::Normal: {
      double u1 = rng.uniform01(), u2 = rng.uniform01();
      if (u1 < 1e-300) u1 = 1e-300;
      v = spec.a + spec.b * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
      break;
    }
    case InitSpec::Kind::Constant: v = spec.a; break;
    case InitSpec::Kind::Range: v = spec.a + spec.b * static_cast<double>(i); break;
    }
    if (integer && spec.kind == InitSpec::Kind::Uniform) v = std::min(v, std::floor(spec.b));
    t.set(i, v);
  }
  return t;
}

std::map<std::string, Tensor> make_graph_inputs(const Graph &graph) {
  std::map<std::string, Tensor> out;
  for (const auto &names : {graph.inputs, graph.weights})
    for (const std::string &n : names) {
      const TensorDecl &d = graph.tensor(n);
      out.emplace(n, make_tensor_data(graph.name, d, concrete_shape(d.type.shape)));
    }
  return out;
}

}  // namespace atl
