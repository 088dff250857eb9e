// The Compute language's AST: expressions, statements, programs, quasi-affine
// subscript forms and the printer that writes a program back as source. Its
// operators and functions are the shared scalar vocabulary
// (graph/core/scalar_ops.h), which the loop AST and the backends use too.
#pragma once

#include "graph/core/scalar_ops.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace atl::compute {

/// Kinds of expression nodes. Walk them with a switch without `default:`.
enum class ExprKind {
  Number,  ///< numeric literal or `inf` (value in `number`)
  Var,     ///< an index or a parameter (name in `name`; analysis tells which)
  Unary,   ///< `unop` applied to args[0]
  Binary,  ///< args[0] `binop` args[1]
  Select,  ///< args[0] ? args[1] : args[2]
  Call,    ///< function `func` applied to args
  Read,    ///< tensor `name` read at subscripts args
  Guard,   ///< guard(args[0], args[1]): args[0] is a Read, args[1] the padding value
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

/// An expression node. `line`/`column` locate its first character.
struct Expr {
  ExprKind kind = ExprKind::Number;
  int line = 0, column = 0;
  double number = 0;          ///< Number
  std::string name;           ///< Var: variable; Read: tensor
  UnOp unop = UnOp::Neg;      ///< Unary
  BinOp binop = BinOp::Add;   ///< Binary
  Func func = Func::Exp;      ///< Call
  std::vector<ExprPtr> args;  ///< operands, call arguments or subscripts
};

/// `name in lo:hi` of a `where` clause (half-open; bounds use parameters only).
struct IndexRange {
  std::string name;
  ExprPtr lo, hi;
  int line = 0, column = 0;
};

/// `LHS OP RHS [where ...]`.
struct Statement {
  ExprPtr lhs;             ///< a Read node: the tensor written and its subscripts
  AssignOp op = AssignOp::Assign;
  bool init = false;       ///< `op=!`: set every written element to op's identity first
  ExprPtr rhs;
  std::vector<IndexRange> where;
  int line = 0, column = 0;
};

/// A parsed Compute source.
struct Program {
  std::vector<Statement> statements;
};

/// A quasi-affine form: constant + sum of coeff * variable + sum of
/// coeff * floor(num / den) or coeff * (num mod den) with den > 0 (mod has
/// floor semantics, result in [0, den)). Variables are indices and
/// parameters by name, as isl writes them.
struct QuasiAffine {
  struct Term {
    enum class Kind { FloorDiv, Mod } kind;
    std::int64_t coeff;
    std::shared_ptr<const QuasiAffine> num;
    std::int64_t den;
  };
  std::int64_t constant = 0;
  std::map<std::string, std::int64_t> vars;  ///< no zero coefficients
  std::vector<Term> terms;

  bool is_constant() const { return vars.empty() && terms.empty(); }
  bool is_linear() const { return terms.empty(); }  ///< affine, no floor/mod
  /// Value for given variable values (every variable must be present).
  std::int64_t evaluate(const std::map<std::string, std::int64_t> &values) const;
  /// isl-style text: "2i + N - 1 + floor((j)/4) + ((k) mod 3)".
  std::string to_string() const;
};

/// The subscript `e` as a quasi-affine form, or empty when it is not one
/// (a tensor read, a product of two variables, division by a variable or by
/// a non-positive constant, a non-integer literal, a comparison, a call
/// other than floor(e / c)...). `/` is floor division here.
std::optional<QuasiAffine> to_quasi_affine(const Expr &e);

/// True when `e` contains a tensor read (an indirect subscript).
bool contains_read(const Expr &e);

/// Source text of an expression / statement / program; parse() reads the
/// program's text back to an equal program (see equal()).
std::string print(const Expr &e);
std::string print(const Statement &s);
std::string print(const Program &p);

/// Structural equality, ignoring source locations.
bool equal(const Expr &a, const Expr &b);
bool equal(const Program &a, const Program &b);

}  // namespace atl::compute
