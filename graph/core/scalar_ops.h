// The scalar vocabulary every layer shares: the unary and binary operators,
// the built-in functions and the assignment (reduction) operators of the
// Compute language, which the loop AST and the backends reuse, with their
// spellings. Below the Compute AST (graph/compute/ast.h), so that a backend
// includes this and nothing else of graph/.
#pragma once

#include <optional>
#include <string_view>

namespace atl::compute {

enum class UnOp { Neg, Not };

/// Binary operators. In a subscript (and a `where` bound) `/` is floor
/// division and `%` floor modulo; in values `/` is real division and `%` is
/// floored modulo (the result has the sign of the divisor).
enum class BinOp { Add, Sub, Mul, Div, Mod, Lt, Le, Gt, Ge, Eq, Ne, And, Or };

/// Built-in functions. A call whose name is one of these is a function call;
/// any other name followed by `(` is a tensor read. The trigonometric and
/// hyperbolic functions (and their inverses) are C's.
enum class Func {
  Exp, Log, Sqrt, Tanh, Sigmoid, Erf, Abs, Floor, Min, Max, Pow,
  Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh,
};

/// Assignment operators. Every operator but Assign reduces into the element.
enum class AssignOp { Assign, Add, Mul, Max, Min };

/// Name of a function as written ("exp"), its number of arguments, and the
/// lookup by name (empty when `name` is not a function).
const char *func_name(Func f);
int func_arity(Func f);
std::optional<Func> find_func(std::string_view name);
/// Spelling of operators: "+", "<=", "&&"; "+=" and friends (without `!`).
const char *binop_name(BinOp op);
const char *assign_op_name(AssignOp op);

}  // namespace atl::compute
