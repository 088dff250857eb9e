// Integer evaluation of loop-AST Index expressions on the host: a launch's
// grid from the kernel's parameters (opencl_runtime), and loop bounds and
// subscripts thread by thread (simt_check). The semantics are the
// printers': floor division and modulo, comparisons and logic as 1 or 0.
#pragma once

#include "polyhedral/ast/loop_ast.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace atl::gpu {

inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

/// `e` with `lookup(name)` giving each variable (std::optional<int64_t>);
/// empty where `e` depends on a value (a load, a float) or a variable
/// lookup does not know. Division and modulo by zero give 0.
template <class Lookup>
std::optional<std::int64_t> eval_index_expr(const poly::LExpr &e, const Lookup &lookup) {
  using poly::LExprKind;
  auto arg = [&](std::size_t i) { return eval_index_expr(*e.args[i], lookup); };
  switch (e.kind) {
  case LExprKind::Int: return e.ival;
  case LExprKind::Var: return lookup(e.name);
  case LExprKind::Unary: {
    auto a = arg(0);
    if (!a) return a;
    return e.unop == compute::UnOp::Neg ? -*a : std::int64_t(!*a);
  }
  case LExprKind::Binary: {
    auto a = arg(0);
    if (e.binop == compute::BinOp::And && a && !*a) return 0;  // evaluated lazily, as the printers do
    if (e.binop == compute::BinOp::Or && a && *a) return 1;
    auto b = arg(1);
    if (!a || !b) return std::nullopt;
    switch (e.binop) {
    case compute::BinOp::Add: return *a + *b;
    case compute::BinOp::Sub: return *a - *b;
    case compute::BinOp::Mul: return *a * *b;
    case compute::BinOp::Div: return *b ? floor_div(*a, *b) : 0;
    case compute::BinOp::Mod: return *b ? *a - *b * floor_div(*a, *b) : 0;
    case compute::BinOp::Lt: return *a < *b;
    case compute::BinOp::Le: return *a <= *b;
    case compute::BinOp::Gt: return *a > *b;
    case compute::BinOp::Ge: return *a >= *b;
    case compute::BinOp::Eq: return *a == *b;
    case compute::BinOp::Ne: return *a != *b;
    case compute::BinOp::And: return *a && *b;
    case compute::BinOp::Or: return *a || *b;
    }
    return std::nullopt;
  }
  case LExprKind::Min:
  case LExprKind::Max: {
    auto a = arg(0), b = arg(1);
    if (!a || !b) return std::nullopt;
    return e.kind == LExprKind::Min ? std::min(*a, *b) : std::max(*a, *b);
  }
  case LExprKind::Select: {
    auto c = arg(0);
    if (!c) return std::nullopt;
    return *c ? arg(1) : arg(2);
  }
  case LExprKind::ToValue: return arg(0);
  case LExprKind::Float:
  case LExprKind::Call:
  case LExprKind::Load:
  case LExprKind::GuardedLoad:
  case LExprKind::ToIndex: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace atl::gpu
