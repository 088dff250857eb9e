// The spellings and arities of the shared scalar operators and functions.
#include "graph/core/scalar_ops.h"

namespace atl::compute {

namespace {

struct FuncInfo {
  Func f;
  const char *name;
  int arity;
};
constexpr FuncInfo kFuncs[] = {
    {Func::Exp, "exp", 1},   {Func::Log, "log", 1}, {Func::Sqrt, "sqrt", 1}, {Func::Tanh, "tanh", 1},
    {Func::Sigmoid, "sigmoid", 1}, {Func::Erf, "erf", 1}, {Func::Abs, "abs", 1}, {Func::Floor, "floor", 1},
    {Func::Min, "min", 2},   {Func::Max, "max", 2}, {Func::Pow, "pow", 2},
    {Func::Sin, "sin", 1},   {Func::Cos, "cos", 1}, {Func::Tan, "tan", 1}, {Func::Asin, "asin", 1},
    {Func::Acos, "acos", 1}, {Func::Atan, "atan", 1}, {Func::Sinh, "sinh", 1}, {Func::Cosh, "cosh", 1},
    {Func::Asinh, "asinh", 1}, {Func::Acosh, "acosh", 1}, {Func::Atanh, "atanh", 1},
};

}  // namespace

const char *func_name(Func f) {
  for (const auto &i : kFuncs)
    if (i.f == f) return i.name;
  return "?";
}

int func_arity(Func f) {
  for (const auto &i : kFuncs)
    if (i.f == f) return i.arity;
  return 0;
}

std::optional<Func> find_func(std::string_view name) {
  for (const auto &i : kFuncs)
    if (name == i.name) return i.f;
  return std::nullopt;
}

const char *binop_name(BinOp op) {
  switch (op) {
  case BinOp::Add: return "+";
  case BinOp::Sub: return "-";
  case BinOp::Mul: return "*";
  case BinOp::Div: return "/";
  case BinOp::Mod: return "%";
  case BinOp::Lt: return "<";
  case BinOp::Le: return "<=";
  case BinOp::Gt: return ">";
  case BinOp::Ge: return ">=";
  case BinOp::Eq: return "==";
  case BinOp::Ne: return "!=";
  case BinOp::And: return "&&";
  case BinOp::Or: return "||";
  }
  return "?";
}

const char *assign_op_name(AssignOp op) {
  switch (op) {
  case AssignOp::Assign: return "=";
  case AssignOp::Add: return "+=";
  case AssignOp::Mul: return "*=";
  case AssignOp::Max: return "max=";
  case AssignOp::Min: return "min=";
  }
  return "?";
}

}  // namespace atl::compute
