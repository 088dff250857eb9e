// A direct interpreter of the loop AST for tests: loops, guards, stores and
// expressions with the semantics documented in polyhedral/ast/loop_ast.h.
#include "loop_ast_interpreter.h"

#include <limits>
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

namespace atl::poly::testing {

namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

class Interp {
public:
  Interp(const LKernel &k, std::map<std::string, Tensor> &a, const std::map<std::string, std::int64_t> &p)
      : kernel_(k), arrays_(a), env_(p) {}

  std::int64_t run() {
    for (const auto &arr : kernel_.arrays) {
      if (arrays_.count(arr.name)) continue;
      Shape s;
      for (const Dim &d : arr.shape) s.push_back(d.is_symbolic() ? env_.at(d.symbol) : d.value);
      arrays_.emplace(arr.name, Tensor(arr.dtype, s));
    }
    stmt(*kernel_.body);
    return count_;
  }

private:
  const LKernel &kernel_;
  std::map<std::string, Tensor> &arrays_;
  std::map<std::string, std::int64_t> env_;
  std::int64_t count_ = 0;

  Tensor &array(const std::string &name) {
    auto it = arrays_.find(name);
    if (it == arrays_.end()) throw std::runtime_error("unknown array " + name);
    return it->second;
  }

  std::optional<std::int64_t> offset(const std::string &name, const std::vector<LExprPtr> &idx, bool check) {
    Tensor &t = array(name);
    if (idx.size() != t.shape.size()) throw std::runtime_error("rank mismatch on " + name);
    // A guarded load (check false) is in bounds when every index is; a plain
    // access is checked as the backends address it, by its offset in the
    // array (a coalesced plane's subscripts (0, p) address element p of the
    // two dimensions flattened: coalesce_dims).
    std::int64_t off = 0, size = 1;
    for (std::size_t d = 0; d < idx.size(); ++d) {
      std::int64_t i = index(*idx[d]);
      if (!check && (i < 0 || i >= t.shape[d])) return std::nullopt;
      off = off * t.shape[d] + i;
      size *= t.shape[d];
    }
    if (off < 0 || off >= size)
      throw std::runtime_error("out-of-bounds access to " + name + " at offset " + std::to_string(off) + " of " +
                               std::to_string(size));
    return off;
  }

  std::int64_t index(const LExpr &e) {
    switch (e.kind) {
    case LExprKind::Int: return e.ival;
    case LExprKind::Var: {
      auto it = env_.find(e.name);
      if (it == env_.end()) throw std::runtime_error("unbound variable " + e.name);
      return it->second;
    }
    case LExprKind::ToIndex: return static_cast<std::int64_t>(value(*e.args[0]));
    case LExprKind::Unary: return e.unop == compute::UnOp::Neg ? -index(*e.args[0]) : !index(*e.args[0]);
    case LExprKind::Binary: {
      std::int64_t a = index(*e.args[0]);
      if (e.binop == compute::BinOp::And && !a) return 0;
      if (e.binop == compute::BinOp::Or && a) return 1;
      std::int64_t b = index(*e.args[1]);
      switch (e.binop) {
      case compute::BinOp::Add: return a + b;
      case compute::BinOp::Sub: return a - b;
      case compute::BinOp::Mul: return a * b;
      case compute::BinOp::Div: return floor_div(a, b);
      case compute::BinOp::Mod: return a - floor_div(a, b) * b;
      case compute::BinOp::Lt: return a < b;
      case compute::BinOp::Le: return a <= b;
      case compute::BinOp::Gt: return a > b;
      case compute::BinOp::Ge: return a >= b;
      case compute::BinOp::Eq: return a == b;
      case compute::BinOp::Ne: return a != b;
      case compute::BinOp::And: case compute::BinOp::Or: return b != 0;
      }
      return 0;
    }
    case LExprKind::Min: return std::min(index(*e.args[0]), index(*e.args[1]));
    case LExprKind::Max: return std::max(index(*e.args[0]), index(*e.args[1]));
    case LExprKind::Select: return index(*e.args[0]) ? index(*e.args[1]) : index(*e.args[2]);
    case LExprKind::Float: case LExprKind::Call: case LExprKind::Load: case LExprKind::GuardedLoad:
    case LExprKind::ToValue: break;
    }
    return static_cast<std::int64_t>(value(e));
  }

  double value(const LExpr &e) {
    if (e.type == LType::Index && e.kind != LExprKind::ToValue) return static_cast<double>(index(e));
    switch (e.kind) {
    case LExprKind::Float: return e.fval;
    case LExprKind::ToValue: return static_cast<double>(index(*e.args[0]));
    case LExprKind::Unary: return e.unop == compute::UnOp::Neg ? -value(*e.args[0]) : (value(*e.args[0]) == 0);
    case LExprKind::Binary: {
      double a = value(*e.args[0]);
      if (e.binop == compute::BinOp::And && a == 0) return 0;
      if (e.binop == compute::BinOp::Or && a != 0) return 1;
      double b = value(*e.args[1]);
      switch (e.binop) {
      case compute::BinOp::Add: return a + b;
      case compute::BinOp::Sub: return a - b;
      case compute::BinOp::Mul: return a * b;
      case compute::BinOp::Div: return a / b;
      case compute::BinOp::Mod: return a - std::floor(a / b) * b;
      case compute::BinOp::Lt: return a < b;
      case compute::BinOp::Le: return a <= b;
      case compute::BinOp::Gt: return a > b;
      case compute::BinOp::Ge: return a >= b;
      case compute::BinOp::Eq: return a == b;
      case compute::BinOp::Ne: return a != b;
      case compute::BinOp::And: case compute::BinOp::Or: return b != 0;
      }
      return 0;
    }
    case LExprKind::Min: return std::min(value(*e.args[0]), value(*e.args[1]));
    case LExprKind::Max: return std::max(value(*e.args[0]), value(*e.args[1]));
    case LExprKind::Select: return value(*e.args[0]) != 0 ? value(*e.args[1]) : value(*e.args[2]);
    case LExprKind::Call: {
      double a = value(*e.args[0]);
      switch (e.func) {
      case compute::Func::Exp: return std::exp(a);
      case compute::Func::Log: return std::log(a);
      case compute::Func::Sqrt: return std::sqrt(a);
      case compute::Func::Tanh: return std::tanh(a);
      case compute::Func::Sigmoid: return 1 / (1 + std::exp(-a));
      case compute::Func::Erf: return std::erf(a);
      case compute::Func::Abs: return std::fabs(a);
      case compute::Func::Floor: return std::floor(a);
      case compute::Func::Min: return std::min(a, value(*e.args[1]));
      case compute::Func::Max: return std::max(a, value(*e.args[1]));
      case compute::Func::Pow: return std::pow(a, value(*e.args[1]));
      case compute::Func::Sin: return std::sin(a);
      case compute::Func::Cos: return std::cos(a);
      case compute::Func::Tan: return std::tan(a);
      case compute::Func::Asin: return std::asin(a);
      case compute::Func::Acos: return std::acos(a);
      case compute::Func::Atan: return std::atan(a);
      case compute::Func::Sinh: return std::sinh(a);
      case compute::Func::Cosh: return std::cosh(a);
      case compute::Func::Asinh: return std::asinh(a);
      case compute::Func::Acosh: return std::acosh(a);
      case compute::Func::Atanh: return std::atanh(a);
      }
      return 0;
    }
    case LExprKind::Load: return array(e.name).get(*offset(e.name, e.args, true));
    case LExprKind::GuardedLoad: {
      const LExpr &ld = *e.args[0];
      auto off = offset(ld.name, ld.args, false);
      return off ? array(ld.name).get(*off) : value(*e.args[1]);
    }
    case LExprKind::Int: case LExprKind::Var: case LExprKind::ToIndex: break;
    }
    return static_cast<double>(index(e));
  }

  void stmt(const LStmt &s) {
    switch (s.kind) {
    case LStmtKind::Block:
      for (const auto &b : s.body) stmt(*b);
      return;
    case LStmtKind::For: {
      std::int64_t saved_present = env_.count(s.iterator);
      std::int64_t saved = saved_present ? env_[s.iterator] : 0;
      for (env_[s.iterator] = index(*s.init); index(*s.cond); env_[s.iterator] += s.step) {
        // Local arrays start every iteration filled with NaN: a value carried
        // from an earlier iteration (an illegal contraction) shows in the results.
        for (const std::string &l : s.locals) {
          for (const auto &arr : kernel_.locals)
            if (arr.name == l) {
              Shape shape;
              for (const Dim &d : arr.shape) shape.push_back(d.value);
              Tensor t(arr.dtype, shape);
              for (double &x : t.data) x = std::numeric_limits<double>::quiet_NaN();
              arrays_.insert_or_assign(l, std::move(t));
            }
        }
        for (const auto &b : s.body) stmt(*b);
      }
      for (const std::string &l : s.locals) arrays_.erase(l);
      if (saved_present) env_[s.iterator] = saved;
      else env_.erase(s.iterator);
      return;
    }
    case LStmtKind::If:
      if (index(*s.cond)) stmt(*s.then_body);
      else if (s.else_body) stmt(*s.else_body);
      return;
    case LStmtKind::Store: {
      Tensor &t = array(s.array);
      std::int64_t off = *offset(s.array, s.indices, true);
      double v = value(*s.value), old = t.get(off);
      switch (s.op) {
      case compute::AssignOp::Assign: break;
      case compute::AssignOp::Add: v = old + v; break;
      case compute::AssignOp::Mul: v = old * v; break;
      case compute::AssignOp::Max: v = std::max(old, v); break;
      case compute::AssignOp::Min: v = std::min(old, v); break;
      }
      t.set(off, v);
      ++count_;
      return;
    }
    }
  }
};

}  // namespace

std::int64_t interpret(const LKernel &kernel, std::map<std::string, Tensor> &arrays,
                       const std::map<std::string, std::int64_t> &params) {
  return Interp(kernel, arrays, params).run();
}

}  // namespace atl::poly::testing
