// Printer of Compute ASTs (output parses back to an equal program), operator
// and function names, and structural equality.
#include "graph/compute/ast.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace atl::compute {

namespace {

/// Precedence of the printed form: 0 ?:, 1 ||, 2 &&, 3 == !=, 4 < <= > >=, 5 + -, 6 * / %, 7 unary, 8 primary.
int binop_level(BinOp op) {
  switch (op) {
  case BinOp::Or: return 1;
  case BinOp::And: return 2;
  case BinOp::Eq:
  case BinOp::Ne: return 3;
  case BinOp::Lt:
  case BinOp::Le:
  case BinOp::Gt:
  case BinOp::Ge: return 4;
  case BinOp::Add:
  case BinOp::Sub: return 5;
  case BinOp::Mul:
  case BinOp::Div:
  case BinOp::Mod: return 6;
  }
  return 8;
}

int level(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Select: return 0;
  case ExprKind::Binary: return binop_level(e.binop);
  case ExprKind::Unary: return 7;
  case ExprKind::Number: return e.number < 0 ? 7 : 8;
  case ExprKind::Var:
  case ExprKind::Call:
  case ExprKind::Read:
  case ExprKind::Guard: return 8;
  }
  return 8;
}

std::string number_text(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "(0 * inf)";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  for (int prec = 6; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string wrap(const Expr &e, bool parens) { return parens ? "(" + print(e) + ")" : print(e); }

std::string list(const std::vector<ExprPtr> &args) {
  std::string out;
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (k) out += ", ";
    out += print(*args[k]);
  }
  return out;
}

}  // namespace

std::string print(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Number: return number_text(e.number);
  case ExprKind::Var: return e.name;
  case ExprKind::Unary:
    return std::string(e.unop == UnOp::Neg ? "-" : "!") + wrap(*e.args[0], level(*e.args[0]) < 7);
  case ExprKind::Binary: {
    int l = binop_level(e.binop);
    return wrap(*e.args[0], level(*e.args[0]) < l) + " " + binop_name(e.binop) + " " +
           wrap(*e.args[1], level(*e.args[1]) <= l);
  }
  case ExprKind::Select:
    return wrap(*e.args[0], level(*e.args[0]) == 0) + " ? " + print(*e.args[1]) + " : " + print(*e.args[2]);
  case ExprKind::Call: return std::string(func_name(e.func)) + "(" + list(e.args) + ")";
  case ExprKind::Read: return e.name + "(" + list(e.args) + ")";
  case ExprKind::Guard: return "guard(" + list(e.args) + ")";
  }
  return "?";
}

std::string print(const Statement &s) {
  std::string out = print(*s.lhs) + " " + assign_op_name(s.op) + (s.init ? "!" : "") + " " + print(*s.rhs);
  for (std::size_t k = 0; k < s.where.size(); ++k) {
    out += k ? ", " : " where ";
    out += s.where[k].name + " in " + print(*s.where[k].lo) + ":" + print(*s.where[k].hi);
  }
  return out;
}

std::string print(const Program &p) {
  std::string out;
  for (const auto &s : p.statements) out += print(s) + "\n";
  return out;
}

bool equal(const Expr &a, const Expr &b) {
  if (a.kind != b.kind || a.args.size() != b.args.size()) return false;
  switch (a.kind) {
  case ExprKind::Number:
    if (!(a.number == b.number || (std::isnan(a.number) && std::isnan(b.number)))) return false;
    break;
  case ExprKind::Var:
  case ExprKind::Read:
    if (a.name != b.name) return false;
    break;
  case ExprKind::Unary:
    if (a.unop != b.unop) return false;
    break;
  case ExprKind::Binary:
    if (a.binop != b.binop) return false;
    break;
  case ExprKind::Call:
    if (a.func != b.func) return false;
    break;
  case ExprKind::Select:
  case ExprKind::Guard: break;
  }
  for (std::size_t k = 0; k < a.args.size(); ++k)
    if (!equal(*a.args[k], *b.args[k])) return false;
  return true;
}

bool equal(const Program &a, const Program &b) {
  if (a.statements.size() != b.statements.size()) return false;
  for (std::size_t k = 0; k < a.statements.size(); ++k) {
    const Statement &s = a.statements[k], &t = b.statements[k];
    if (s.op != t.op || s.init != t.init || !equal(*s.lhs, *t.lhs) || !equal(*s.rhs, *t.rhs) ||
        s.where.size() != t.where.size())
      return false;
    for (std::size_t r = 0; r < s.where.size(); ++r)
      if (s.where[r].name != t.where[r].name || !equal(*s.where[r].lo, *t.where[r].lo) ||
          !equal(*s.where[r].hi, *t.where[r].hi))
        return false;
  }
  return true;
}

}  // namespace atl::compute
