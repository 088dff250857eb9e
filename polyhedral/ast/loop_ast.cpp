// Loop AST constructors and the pseudo-C printer (explain --stage ast).
#include "polyhedral/ast/loop_ast.h"

#include <atoll/diagnostics.h>

#include <cmath>
#include <sstream>

namespace atl::poly {

namespace build {

namespace {
std::shared_ptr<LExpr> make(LExprKind k, LType t) {
  auto e = std::make_shared<LExpr>();
  e->kind = k;
  e->type = t;
  return e;
}
bool is_comparison_or_logic(compute::BinOp op) {
  using compute::BinOp;
  switch (op) {
  case BinOp::Lt: case BinOp::Le: case BinOp::Gt: case BinOp::Ge: case BinOp::Eq: case BinOp::Ne:
  case BinOp::And: case BinOp::Or: return true;
  case BinOp::Add: case BinOp::Sub: case BinOp::Mul: case BinOp::Div: case BinOp::Mod: return false;
  }
  return false;
}
}  // namespace

LExprPtr integer(std::int64_t v) {
  auto e = make(LExprKind::Int, LType::Index);
  e->ival = v;
  return e;
}
LExprPtr real(double v) {
  auto e = make(LExprKind::Float, LType::Value);
  e->fval = v;
  return e;
}
LExprPtr var(const std::string &name) {
  auto e = make(LExprKind::Var, LType::Index);
  e->name = name;
  return e;
}
LExprPtr unary(compute::UnOp op, LExprPtr a) {
  auto e = make(LExprKind::Unary, a->type);
  e->unop = op;
  e->args = {std::move(a)};
  return e;
}
LExprPtr to_value(LExprPtr a) {
  if (a->type == LType::Value) return a;
  auto e = make(LExprKind::ToValue, LType::Value);
  e->args = {std::move(a)};
  return e;
}
LExprPtr to_index(LExprPtr a) {
  if (a->type == LType::Index) return a;
  auto e = make(LExprKind::ToIndex, LType::Index);
  e->args = {std::move(a)};
  return e;
}
LExprPtr binary(compute::BinOp op, LExprPtr a, LExprPtr b) {
  LType t = (a->type == LType::Value || b->type == LType::Value) ? LType::Value : LType::Index;
  if (t == LType::Value) {
    a = to_value(std::move(a));
    b = to_value(std::move(b));
  }
  auto e = make(LExprKind::Binary, t);
  e->binop = op;
  e->args = {std::move(a), std::move(b)};
  (void)is_comparison_or_logic;
  return e;
}
static LExprPtr minmax(LExprKind k, LExprPtr a, LExprPtr b) {
  LType t = (a->type == LType::Value || b->type == LType::Value) ? LType::Value : LType::Index;
  if (t == LType::Value) {
    a = to_value(std::move(a));
    b = to_value(std::move(b));
  }
  auto e = make(k, t);
  e->args = {std::move(a), std::move(b)};
  return e;
}
LExprPtr min(LExprPtr a, LExprPtr b) { return minmax(LExprKind::Min, std::move(a), std::move(b)); }
LExprPtr max(LExprPtr a, LExprPtr b) { return minmax(LExprKind::Max, std::move(a), std::move(b)); }
LExprPtr select(LExprPtr c, LExprPtr a, LExprPtr b) {
  LType t = (a->type == LType::Value || b->type == LType::Value) ? LType::Value : LType::Index;
  if (t == LType::Value) {
    a = to_value(std::move(a));
    b = to_value(std::move(b));
  }
  auto e = make(LExprKind::Select, t);
  e->args = {std::move(c), std::move(a), std::move(b)};
  return e;
}
LExprPtr call(compute::Func f, std::vector<LExprPtr> args, bool bounded_above) {
  auto e = make(LExprKind::Call, LType::Value);
  e->func = f;
  e->bounded_above = bounded_above;
  for (auto &a : args) e->args.push_back(to_value(std::move(a)));
  return e;
}
LExprPtr load(const std::string &array, std::vector<LExprPtr> indices) {
  auto e = make(LExprKind::Load, LType::Value);
  e->name = array;
  for (auto &i : indices) e->args.push_back(to_index(std::move(i)));
  return e;
}
LExprPtr guarded_load(LExprPtr ld, LExprPtr fallback) {
  ATOLL_ASSERT(ld->kind == LExprKind::Load, "guarded_load needs a Load");
  auto e = make(LExprKind::GuardedLoad, LType::Value);
  e->args = {std::move(ld), to_value(std::move(fallback))};
  return e;
}
LStmtPtr block(std::vector<LStmtPtr> body) {
  auto s = std::make_shared<LStmt>();
  s->kind = LStmtKind::Block;
  s->body = std::move(body);
  return s;
}
LStmtPtr loop(const std::string &iterator, LExprPtr init, LExprPtr cond, std::int64_t step, LStmtPtr body,
              std::set<std::string> marks) {
  auto s = std::make_shared<LStmt>();
  s->kind = LStmtKind::For;
  s->iterator = iterator;
  s->init = std::move(init);
  s->cond = std::move(cond);
  s->step = step;
  s->body = {body && body->kind == LStmtKind::Block ? body : block({body})};
  s->marks = std::move(marks);
  return s;
}
LStmtPtr branch(LExprPtr cond, LStmtPtr then_body, LStmtPtr else_body) {
  auto s = std::make_shared<LStmt>();
  s->kind = LStmtKind::If;
  s->cond = std::move(cond);
  s->then_body = std::move(then_body);
  s->else_body = std::move(else_body);
  return s;
}
LStmtPtr store(const std::string &array, std::vector<LExprPtr> indices, LExprPtr value, compute::AssignOp op,
               std::string statement, bool nan_insensitive) {
  auto s = std::make_shared<LStmt>();
  s->kind = LStmtKind::Store;
  s->array = array;
  for (auto &i : indices) s->indices.push_back(to_index(std::move(i)));
  s->value = to_value(std::move(value));
  s->op = op;
  s->statement = std::move(statement);
  s->nan_insensitive = nan_insensitive;
  return s;
}

}  // namespace build

namespace {

std::string expr_text(const LExpr &e);

bool has_bounded_exp(const LExpr &e) {
  if (e.kind == LExprKind::Call && e.bounded_above) return true;
  for (const LExprPtr &a : e.args)
    if (a && has_bounded_exp(*a)) return true;
  return false;
}

std::string args_text(const LExpr &e, std::size_t from = 0) {
  std::string s;
  for (std::size_t i = from; i < e.args.size(); ++i) s += (i > from ? ", " : "") + expr_text(*e.args[i]);
  return s;
}

std::string expr_text(const LExpr &e) {
  switch (e.kind) {
  case LExprKind::Int: return std::to_string(e.ival);
  case LExprKind::Float: {
    if (std::isinf(e.fval)) return e.fval > 0 ? "inf" : "-inf";
    std::ostringstream os;
    os.precision(9);
    os << e.fval;
    std::string s = os.str();
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
  }
  case LExprKind::Var: return e.name;
  case LExprKind::Unary: return std::string(e.unop == compute::UnOp::Neg ? "-" : "!") + "(" + expr_text(*e.args[0]) + ")";
  case LExprKind::Binary: {
    std::string op = compute::binop_name(e.binop);
    if (e.type == LType::Index && e.binop == compute::BinOp::Div)
      return "floord(" + expr_text(*e.args[0]) + ", " + expr_text(*e.args[1]) + ")";
    if (e.binop == compute::BinOp::Mod)
      return "mod(" + expr_text(*e.args[0]) + ", " + expr_text(*e.args[1]) + ")";
    return "(" + expr_text(*e.args[0]) + " " + op + " " + expr_text(*e.args[1]) + ")";
  }
  case LExprKind::Min: return "min(" + args_text(e) + ")";
  case LExprKind::Max: return "max(" + args_text(e) + ")";
  case LExprKind::Select:
    return "(" + expr_text(*e.args[0]) + " ? " + expr_text(*e.args[1]) + " : " + expr_text(*e.args[2]) + ")";
  case LExprKind::Call: return std::string(compute::func_name(e.func)) + "(" + args_text(e) + ")";
  case LExprKind::Load: return e.name + "[" + args_text(e) + "]";
  case LExprKind::GuardedLoad: return "guard(" + expr_text(*e.args[0]) + ", " + expr_text(*e.args[1]) + ")";
  case LExprKind::ToValue: return "(value)" + expr_text(*e.args[0]);
  case LExprKind::ToIndex: return "(index)" + expr_text(*e.args[0]);
  }
  return "?";
}

void stmt_text(std::ostream &os, const LStmt &s, int depth) {
  std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
  switch (s.kind) {
  case LStmtKind::Block:
    for (const LStmtPtr &c : s.body) stmt_text(os, *c, depth);
    return;
  case LStmtKind::For: {
    for (const std::string &m : s.marks) os << pad << "// " << m << "\n";
    os << pad << "for (" << s.iterator << " = " << expr_text(*s.init) << "; " << expr_text(*s.cond) << "; "
       << s.iterator << " += " << s.step << ") {\n";
    for (const std::string &l : s.locals) os << pad << "  local " << l << ";  // one per iteration\n";
    for (const LStmtPtr &c : s.body) stmt_text(os, *c, depth + 1);
    os << pad << "}\n";
    return;
  }
  case LStmtKind::If:
    os << pad << "if (" << expr_text(*s.cond) << ") {\n";
    if (s.then_body) stmt_text(os, *s.then_body, depth + 1);
    if (s.else_body) {
      os << pad << "} else {\n";
      stmt_text(os, *s.else_body, depth + 1);
    }
    os << pad << "}\n";
    return;
  case LStmtKind::Store: {
    std::string idx;
    for (std::size_t i = 0; i < s.indices.size(); ++i) idx += (i ? ", " : "") + expr_text(*s.indices[i]);
    const char *op = s.op == compute::AssignOp::Assign ? "=" : compute::assign_op_name(s.op);
    os << pad << s.array << "[" << idx << "] " << op << " " << expr_text(*s.value) << ";";
    if (!s.statement.empty())
      os << "  // " << s.statement << (s.nan_insensitive ? ", NaN-insensitive" : "")
         << (has_bounded_exp(*s.value) ? ", exp bounded above" : "");
    os << "\n";
    return;
  }
  }
}

const char *role_name(LArray::Role r) {
  switch (r) {
  case LArray::Role::Input: return "in";
  case LArray::Role::Output: return "out";
  case LArray::Role::Temporary: return "temp";
  case LArray::Role::Local: return "local";
  }
  return "?";
}

}  // namespace

void print_loop_ast(std::ostream &os, const LKernel &k) {
  os << "kernel " << k.name << "(";
  bool first = true;
  for (const LArray &a : k.arrays) {
    os << (first ? "" : ", ") << role_name(a.role) << " " << dtype_name(a.dtype) << " " << a.name
       << sym_shape_to_string(a.shape);
    first = false;
  }
  for (const std::string &p : k.params) {
    os << (first ? "" : ", ") << "i64 " << p;
    first = false;
  }
  os << ") {\n";
  for (const LArray &a : k.locals)
    os << "  " << role_name(a.role) << " " << dtype_name(a.dtype) << " " << a.name << sym_shape_to_string(a.shape) << ";\n";
  if (k.body) stmt_text(os, *k.body, 1);
  os << "}\n";
}

namespace {

LExprPtr copy_expr(const LExprPtr &e, const std::function<void(LExpr &)> &f) {
  if (!e) return e;
  auto copy = std::make_shared<LExpr>(*e);
  for (LExprPtr &a : copy->args) a = copy_expr(a, f);
  if (f) f(*copy);
  return copy;
}

}  // namespace

bool same_expr(const LExpr &a, const LExpr &b) {
  if (a.kind != b.kind || a.type != b.type || a.args.size() != b.args.size()) return false;
  switch (a.kind) {
  case LExprKind::Int: return a.ival == b.ival;
  case LExprKind::Float: return a.fval == b.fval;
  case LExprKind::Var: return a.name == b.name;
  case LExprKind::Unary: if (a.unop != b.unop) return false; break;
  case LExprKind::Binary: if (a.binop != b.binop) return false; break;
  case LExprKind::Call: if (a.func != b.func || a.bounded_above != b.bounded_above) return false; break;
  case LExprKind::Load: if (a.name != b.name) return false; break;
  case LExprKind::Min: case LExprKind::Max: case LExprKind::Select: case LExprKind::GuardedLoad:
  case LExprKind::ToValue: case LExprKind::ToIndex: break;
  }
  for (std::size_t i = 0; i < a.args.size(); ++i)
    if (!same_expr(*a.args[i], *b.args[i])) return false;
  return true;
}

LStmtPtr copy_loop_ast(const LStmtPtr &s, const std::function<void(LExpr &)> &expr,
                       const std::function<void(const LStmt &original, LStmt &copy)> &stmt) {
  if (!s) return s;
  auto copy = std::make_shared<LStmt>(*s);
  for (LStmtPtr &c : copy->body) c = copy_loop_ast(c, expr, stmt);
  copy->then_body = copy_loop_ast(copy->then_body, expr, stmt);
  copy->else_body = copy_loop_ast(copy->else_body, expr, stmt);
  copy->init = copy_expr(copy->init, expr);
  copy->cond = copy_expr(copy->cond, expr);
  copy->value = copy_expr(copy->value, expr);
  for (LExprPtr &i : copy->indices) i = copy_expr(i, expr);
  if (stmt) stmt(*s, *copy);
  return copy;
}

}  // namespace atl::poly

namespace atl::poly {

std::string print_loop_expr(const LExpr &e) { return expr_text(e); }

void print_loop_stmt(std::ostream &os, const LStmt &s, int depth) { stmt_text(os, s, depth); }

}  // namespace atl::poly
