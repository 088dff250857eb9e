// Atoll's loop AST: the one form every backend reads. Built once from isl's
// AST (polyhedral/ast/build_ast), printed by print_loop_ast.
//
// Before: isl AST    for (int c0 = 0; c0 <= 63; c0 += 1) S_0(c0);
// After:  loop AST   for c0 = 0; c0 <= 63; c0 += 1 { Y[c0] = max(X[c0], 0.0) }
#pragma once

#include "graph/core/scalar_ops.h"
#include "graph/core/kernel_array.h"

#include <atoll/dtype.h>
#include "graph/ir/graph.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace atl::poly {

/// Mark names: the contract between schedule-tree passes, the AST builder
/// and the backends (as in PPCG, intent travels in marks).
namespace mark {
inline constexpr const char *kParallel = "parallel";  ///< iterations are independent
inline constexpr const char *kVector = "vector";      ///< innermost, stride-1, independent: vectorize
inline constexpr const char *kUnroll = "unroll";      ///< unroll fully (small constant trip count)
inline constexpr const char *kReduction = "reduction";///< carries only a re-associable reduction
}  // namespace mark

/// Type of an expression: Index is int64 arithmetic on loop iterators and
/// parameters (subscripts, bounds, conditions); Value is element arithmetic,
/// done in the kernel's value type (f32 for float arrays, f64 when any array
/// is integer or bool, so integer results are exact).
enum class LType { Index, Value };

struct LExpr;
using LExprPtr = std::shared_ptr<const LExpr>;

/// Kinds of loop-AST expressions. Switch over them without `default:`.
enum class LExprKind {
  Int,          ///< integer constant `ival` (Index)
  Float,        ///< constant `fval` (Value; may be +-inf)
  Var,          ///< loop iterator or parameter `name` (Index)
  Unary,        ///< `unop` args[0]
  Binary,       ///< args[0] `binop` args[1]. Index: Div is floor division and
                ///< Mod floor modulo; Value: real division, floored modulo.
                ///< Comparisons, And, Or yield 1/0 in the operands' type.
  Min,          ///< min(args[0], args[1]) (either type)
  Max,          ///< max(args[0], args[1])
  Select,       ///< args[0] ? args[1] : args[2]; only the branch taken is evaluated
  Call,         ///< `func` applied to args (Value)
  Load,         ///< array `name` at indices args (Index each) (Value)
  GuardedLoad,  ///< args[0] is a Load: its value where every index is within the
                ///< array's extents, else args[1] (no out-of-bounds access happens)
  ToValue,      ///< an Index expression used as a Value
  ToIndex,      ///< a Value used as an index (indirect subscript): truncated to int64
};

struct LExpr {
  LExprKind kind = LExprKind::Int;
  LType type = LType::Index;
  std::int64_t ival = 0;
  double fval = 0;
  std::string name;
  compute::UnOp unop = compute::UnOp::Neg;
  compute::BinOp binop = compute::BinOp::Add;
  compute::Func func = compute::Func::Exp;
  std::vector<LExprPtr> args;
  /// Call of exp whose argument is never +inf (the SCoP statement's bounded_exps).
  bool bounded_above = false;
};

struct LStmt;
using LStmtPtr = std::shared_ptr<const LStmt>;

enum class LStmtKind {
  Block,  ///< body in order
  For,    ///< for (iterator = init; cond; iterator += step) body
  If,     ///< if (cond) then_body else else_body (else_body may be null)
  Store,  ///< array[indices] = value, or array[indices] op= value for a reduction
};

struct LStmt {
  LStmtKind kind = LStmtKind::Block;
  std::vector<LStmtPtr> body;          ///< Block: statements; For: one Block
  std::string iterator;                ///< For
  LExprPtr init, cond;                 ///< For (cond uses the iterator), If
  std::int64_t step = 1;               ///< For
  std::set<std::string> marks;         ///< For: mark::kParallel, kVector, kUnroll...
  /// For: local arrays (LKernel::locals) that live for one iteration of this
  /// loop; their contents do not carry from one iteration to the next.
  std::vector<std::string> locals;
  LStmtPtr then_body, else_body;       ///< If
  std::string array;                   ///< Store
  std::vector<LExprPtr> indices;       ///< Store (Index each)
  LExprPtr value;                      ///< Store (Value)
  compute::AssignOp op = compute::AssignOp::Assign;  ///< Store: reduction operator
  std::string statement;               ///< Store: the polyhedral statement (NODE_k) it executes
  /// Store: a max or min reduction that may drop NaN (OpDefinition::nan_insensitive).
  bool nan_insensitive = false;
};

/// An array a kernel reads or writes (graph/core/kernel_array.h).
using LArray = KernelArray;

/// One kernel: arrays (pointer arguments, in this order), then integer
/// parameters (symbolic dimensions, in this order), and the loop nest.
struct LKernel {
  std::string name;                 ///< C identifier, unique in its graph
  std::vector<LArray> arrays;
  std::vector<std::string> params;
  LStmtPtr body;
  /// Contracted temporaries (transforms/ast/contract_arrays): not arguments; the
  /// backend gives each a private buffer (constant shape, role Local) valid
  /// for one iteration of the loop whose `locals` names it.
  std::vector<LArray> locals;
  /// f32 lanes the backend uses for loops marked kVector (explicit vector
  /// code); 0 or 1 = scalar code with a vectorization hint only.
  int vector_lanes = 0;
};

/// Prints a kernel as indented pseudo-C with marks as comments
/// (explain --stage ast).
void print_loop_ast(std::ostream &os, const LKernel &kernel);

/// One expression as print_loop_ast writes it ("min(N - 1, c0 + 31)").
std::string print_loop_expr(const LExpr &e);
/// One statement as print_loop_ast writes it, indented `depth` levels.
void print_loop_stmt(std::ostream &os, const LStmt &s, int depth);

/// True when `a` and `b` are the same expression (kind, type, operator,
/// constant, name and operands).
bool same_expr(const LExpr &a, const LExpr &b);

/// A deep copy of `s` for rewriting passes: `expr` is applied to every copied
/// expression after its operands, `stmt` to every copied statement after its
/// parts, with the statement it copies (null callbacks do nothing).
LStmtPtr copy_loop_ast(const LStmtPtr &s, const std::function<void(LExpr &)> &expr,
                       const std::function<void(const LStmt &original, LStmt &copy)> &stmt);

/// Expression and statement constructors (they set `type` consistently).
namespace build {
LExprPtr integer(std::int64_t v);
LExprPtr real(double v);
LExprPtr var(const std::string &name);
LExprPtr unary(compute::UnOp op, LExprPtr a);
LExprPtr binary(compute::BinOp op, LExprPtr a, LExprPtr b);  ///< converts Index operands to Value when mixed
LExprPtr min(LExprPtr a, LExprPtr b);
LExprPtr max(LExprPtr a, LExprPtr b);
LExprPtr select(LExprPtr c, LExprPtr a, LExprPtr b);
LExprPtr call(compute::Func f, std::vector<LExprPtr> args, bool bounded_above = false);
LExprPtr load(const std::string &array, std::vector<LExprPtr> indices);
LExprPtr guarded_load(LExprPtr load, LExprPtr fallback);
LExprPtr to_value(LExprPtr a);
LExprPtr to_index(LExprPtr a);
LStmtPtr block(std::vector<LStmtPtr> body);
LStmtPtr loop(const std::string &iterator, LExprPtr init, LExprPtr cond, std::int64_t step, LStmtPtr body,
              std::set<std::string> marks = {});
LStmtPtr branch(LExprPtr cond, LStmtPtr then_body, LStmtPtr else_body = nullptr);
LStmtPtr store(const std::string &array, std::vector<LExprPtr> indices, LExprPtr value,
               compute::AssignOp op = compute::AssignOp::Assign, std::string statement = {},
               bool nan_insensitive = false);
}  // namespace build

}  // namespace atl::poly
