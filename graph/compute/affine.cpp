// Quasi-affine forms of subscripts: recognition from expressions, evaluation, text.
#include "graph/compute/ast.h"

#include <cmath>

namespace atl::compute {

namespace {

using QA = QuasiAffine;

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

QA constant(std::int64_t c) {
  QA q;
  q.constant = c;
  return q;
}

QA scale(QA a, std::int64_t c) {
  if (c == 0) return constant(0);
  a.constant *= c;
  for (auto &[name, coeff] : a.vars) coeff *= c;
  for (auto &t : a.terms) t.coeff *= c;
  return a;
}

QA add(QA a, const QA &b, std::int64_t sign) {
  a.constant += sign * b.constant;
  for (const auto &[name, coeff] : b.vars) {
    std::int64_t &c = a.vars[name];
    c += sign * coeff;
    if (c == 0) a.vars.erase(name);
  }
  for (auto t : b.terms) {
    t.coeff *= sign;
    a.terms.push_back(std::move(t));
  }
  return a;
}

bool divisible(const QA &a, std::int64_t d) {
  if (a.constant % d != 0) return false;
  for (const auto &[name, coeff] : a.vars)
    if (coeff % d != 0) return false;
  for (const auto &t : a.terms)
    if (t.coeff % d != 0) return false;
  return true;
}

std::optional<QA> divide(const QA &num, const Expr &den_expr, bool mod) {
  auto den = to_quasi_affine(den_expr);
  if (!den || !den->is_constant() || den->constant <= 0) return std::nullopt;
  std::int64_t d = den->constant;
  if (num.is_constant()) {
    std::int64_t q = floor_div(num.constant, d);
    return constant(mod ? num.constant - q * d : q);
  }
  if (divisible(num, d)) {
    if (mod) return constant(0);
    QA q = num;
    q.constant /= d;
    for (auto &[name, coeff] : q.vars) coeff /= d;
    for (auto &t : q.terms) t.coeff /= d;
    return q;
  }
  QA out;
  out.terms.push_back({mod ? QA::Term::Kind::Mod : QA::Term::Kind::FloorDiv, 1, std::make_shared<QA>(num), d});
  return out;
}

}  // namespace

std::optional<QuasiAffine> to_quasi_affine(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Number:
    if (!std::isfinite(e.number) || e.number != std::floor(e.number) || std::fabs(e.number) > 1e15) return std::nullopt;
    return constant(static_cast<std::int64_t>(e.number));
  case ExprKind::Var: {
    QA q;
    q.vars[e.name] = 1;
    return q;
  }
  case ExprKind::Unary: {
    if (e.unop != UnOp::Neg) return std::nullopt;
    auto a = to_quasi_affine(*e.args[0]);
    if (!a) return std::nullopt;
    return scale(std::move(*a), -1);
  }
  case ExprKind::Binary: {
    auto a = to_quasi_affine(*e.args[0]);
    if (!a) return std::nullopt;
    switch (e.binop) {
    case BinOp::Add:
    case BinOp::Sub: {
      auto b = to_quasi_affine(*e.args[1]);
      if (!b) return std::nullopt;
      return add(std::move(*a), *b, e.binop == BinOp::Add ? 1 : -1);
    }
    case BinOp::Mul: {
      auto b = to_quasi_affine(*e.args[1]);
      if (!b) return std::nullopt;
      if (b->is_constant()) return scale(std::move(*a), b->constant);
      if (a->is_constant()) return scale(std::move(*b), a->constant);
      return std::nullopt;
    }
    case BinOp::Div: return divide(*a, *e.args[1], false);
    case BinOp::Mod: return divide(*a, *e.args[1], true);
    case BinOp::Lt:
    case BinOp::Le:
    case BinOp::Gt:
    case BinOp::Ge:
    case BinOp::Eq:
    case BinOp::Ne:
    case BinOp::And:
    case BinOp::Or: return std::nullopt;
    }
    return std::nullopt;
  }
  case ExprKind::Call:
    if (e.func != Func::Floor) return std::nullopt;
    return to_quasi_affine(*e.args[0]);  // floor(e / c) is e / c; floor of an integer form is itself
  case ExprKind::Select:
  case ExprKind::Read:
  case ExprKind::Guard: return std::nullopt;
  }
  return std::nullopt;
}

bool contains_read(const Expr &e) {
  if (e.kind == ExprKind::Read || e.kind == ExprKind::Guard) return true;
  for (const auto &a : e.args)
    if (contains_read(*a)) return true;
  return false;
}

std::int64_t QuasiAffine::evaluate(const std::map<std::string, std::int64_t> &values) const {
  std::int64_t v = constant;
  for (const auto &[name, coeff] : vars) v += coeff * values.at(name);
  for (const auto &t : terms) {
    std::int64_t n = t.num->evaluate(values);
    std::int64_t q = floor_div(n, t.den);
    v += t.coeff * (t.kind == Term::Kind::FloorDiv ? q : n - q * t.den);
  }
  return v;
}

std::string QuasiAffine::to_string() const {
  std::string out;
  auto put = [&](std::int64_t coeff, const std::string &what) {
    if (out.empty()) {
      out += coeff == -1 ? "-" : coeff == 1 ? "" : std::to_string(coeff) + "*";
    } else {
      out += coeff < 0 ? " - " : " + ";
      std::int64_t m = coeff < 0 ? -coeff : coeff;
      if (m != 1) out += std::to_string(m) + "*";
    }
    out += what;
  };
  for (const auto &[name, coeff] : vars) put(coeff, name);
  for (const auto &t : terms) {
    std::string inner = "(" + t.num->to_string() + ")";
    put(t.coeff, t.kind == Term::Kind::FloorDiv ? "floor(" + inner + "/" + std::to_string(t.den) + ")"
                                                : "(" + inner + " mod " + std::to_string(t.den) + ")");
  }
  if (out.empty()) return std::to_string(constant);
  if (constant > 0) out += " + " + std::to_string(constant);
  if (constant < 0) out += " - " + std::to_string(-constant);
  return out;
}

}  // namespace atl::compute
