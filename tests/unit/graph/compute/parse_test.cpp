// Tests of the Compute parser and printer: precedence, operators, syntax errors, round trips.
#include "graph/compute/ast.h"
#include "graph/compute/compute.h"

#include <atoll/diagnostics.h>
#include <doctest/doctest.h>

#include <cmath>

using namespace atl;
using namespace atl::compute;

namespace {

const Expr &rhs_of(const std::string &text) {
  static std::shared_ptr<const Program> keep;
  keep = parse(text);
  REQUIRE(keep->statements.size() == 1);
  return *keep->statements[0].rhs;
}

/// Fully parenthesised form to expose the tree's structure.
std::string tree(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Number: return print(e);
  case ExprKind::Var: return e.name;
  case ExprKind::Unary: return std::string("(") + (e.unop == UnOp::Neg ? "-" : "!") + tree(*e.args[0]) + ")";
  case ExprKind::Binary: return "(" + tree(*e.args[0]) + " " + binop_name(e.binop) + " " + tree(*e.args[1]) + ")";
  case ExprKind::Select: return "(" + tree(*e.args[0]) + " ? " + tree(*e.args[1]) + " : " + tree(*e.args[2]) + ")";
  case ExprKind::Call:
  case ExprKind::Read:
  case ExprKind::Guard: return print(e);
  }
  return "?";
}

std::string shape_of(const std::string &rhs) { return tree(rhs_of("y() = " + rhs)); }

void check_error(const std::string &text, const std::string &msg, int line, int column) {
  try {
    parse(text);
    FAIL("no error for: " << text);
  } catch (const UserError &e) {
    CHECK_MESSAGE(e.reason().find(msg) != std::string::npos, e.reason());
    CHECK(e.where().line == line);
    CHECK(e.where().column == column);
  }
}

}  // namespace

TEST_SUITE("graph") {

TEST_CASE("compute parser: arithmetic precedence and associativity") {
  CHECK(shape_of("a + b * c") == "(a + (b * c))");
  CHECK(shape_of("a * b + c") == "((a * b) + c)");
  CHECK(shape_of("a - b - c") == "((a - b) - c)");
  CHECK(shape_of("a / b % c * d") == "(((a / b) % c) * d)");
  CHECK(shape_of("-a * b") == "((-a) * b)");
  CHECK(shape_of("!a && b") == "((!a) && b)");
  CHECK(shape_of("(a + b) * c") == "((a + b) * c)");
  CHECK(shape_of("- -a") == "(-(-a))");
}

TEST_CASE("compute parser: comparison, logic and select precedence") {
  CHECK(shape_of("a < b == c >= d") == "((a < b) == (c >= d))");
  CHECK(shape_of("a + 1 <= b") == "((a + 1) <= b)");
  CHECK(shape_of("a > b != c") == "((a > b) != c)");
  CHECK(shape_of("a || b && c") == "(a || (b && c))");
  CHECK(shape_of("a == b && c != d || e") == "(((a == b) && (c != d)) || e)");
  CHECK(shape_of("a ? b : c ? d : e") == "(a ? b : (c ? d : e))");
  CHECK(shape_of("a || b ? c + 1 : d") == "((a || b) ? (c + 1) : d)");
}

TEST_CASE("compute parser: literals, inf, calls and reads") {
  const Expr &n = rhs_of("y() = 2.5e-3");
  CHECK(n.kind == ExprKind::Number);
  CHECK(n.number == doctest::Approx(0.0025));
  CHECK(rhs_of("y() = .5").number == 0.5);
  CHECK(rhs_of("y() = 1E2").number == 100.0);
  CHECK(std::isinf(rhs_of("y() = inf").number));
  const Expr &c = rhs_of("y() = pow(exp(x(i)), 2)");
  CHECK(c.kind == ExprKind::Call);
  CHECK(c.func == Func::Pow);
  CHECK(c.args[0]->kind == ExprKind::Call);
  CHECK(c.args[0]->args[0]->kind == ExprKind::Read);
  CHECK(c.args[0]->args[0]->name == "x");
  const Expr &g = rhs_of("y(i) = guard(x(i - 1), 0)");
  CHECK(g.kind == ExprKind::Guard);
  CHECK(g.args[0]->kind == ExprKind::Read);
  for (const char *f : {"exp", "log", "sqrt", "tanh", "sigmoid", "erf", "abs", "floor", "sin", "cos", "tan", "asin",
                        "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"})
    CHECK(rhs_of(std::string("y() = ") + f + "(a)").kind == ExprKind::Call);
  for (const char *f : {"min", "max", "pow"}) CHECK(rhs_of(std::string("y() = ") + f + "(a, b)").kind == ExprKind::Call);
}

TEST_CASE("compute parser: assignment operators, where, separators, comments") {
  auto p = parse("# header comment\n"
                 "C(i, j) +=! A(i, k) * B(k, j)  # matmul\n"
                 "D(i) *= C(i, 0); E(i) max=! C(i, j)\n"
                 "\n"
                 "F(i) min= E(i) where i in 0:N - 1, j in 1:2\n"
                 "G(i) = E(i)\n"
                 "H(i) += !E(i)\n"
                 "K(i) min=!E(i)\n");
  REQUIRE(p->statements.size() == 7);
  CHECK(p->statements[0].op == AssignOp::Add);
  CHECK(p->statements[0].init);
  CHECK(p->statements[1].op == AssignOp::Mul);
  CHECK_FALSE(p->statements[1].init);
  CHECK(p->statements[2].op == AssignOp::Max);
  CHECK(p->statements[2].init);
  CHECK(p->statements[3].op == AssignOp::Min);
  REQUIRE(p->statements[3].where.size() == 2);
  CHECK(p->statements[3].where[0].name == "i");
  CHECK(print(*p->statements[3].where[0].hi) == "N - 1");
  CHECK(p->statements[4].op == AssignOp::Assign);
  CHECK(p->statements[5].op == AssignOp::Add);  // "+= !x": a spaced '!' negates
  CHECK_FALSE(p->statements[5].init);
  CHECK(p->statements[5].rhs->kind == ExprKind::Unary);
  CHECK(p->statements[6].op == AssignOp::Min);
  CHECK(p->statements[6].init);
  CHECK(p->statements[6].line == 8);
  CHECK(p->statements[2].column == 18);
}

TEST_CASE("compute parser: syntax errors name the expected token with line and column") {
  check_error("C(i) = A(i", "expected ',' or ')'", 1, 11);
  check_error("C(i) = A(i) +", "expected an expression", 1, 14);
  check_error("C(i) A(i)", "expected an assignment operator", 1, 6);
  check_error("C(i) = 1\nD(i) = 2 3", "expected end of statement", 2, 10);
  check_error("C(i) = a ? b", "expected ':'", 1, 13);
  check_error("C(i) = A(i) where i 0:3", "expected 'in'", 1, 21);
  check_error("C(i) = A(i) where i in 0 3", "expected ':'", 1, 26);
  check_error("C(i) = A(i) $ 2", "unexpected character '$'", 1, 13);
  check_error("exp(i) = 1", "not a function name", 1, 1);
  check_error("C(i) = 12abc", "malformed number", 1, 8);
}

TEST_CASE("compute parser: function arity errors") {
  check_error("C(i) = exp(a, b)", "function 'exp' takes 1 argument, got 2", 1, 8);
  check_error("C(i) = max(a)", "function 'max' takes 2 arguments, got 1", 1, 8);
  check_error("C(i) = guard(x(i))", "function 'guard' takes 2 arguments, got 1", 1, 8);
  check_error("C(i) = guard(i + 1, 0)", "guard's first argument must be a tensor read", 1, 14);
}

TEST_CASE("compute printer: output parses back to an equal program") {
  const char *sources[] = {
      "C(i, j) +=! A(i, k) * B(k, j)",
      "y(n, c, h, w) +=! guard(x(n, c, h + kh - 1, w + kw - 1), 0) * k(c, kh, kw) where kh in 0:3, kw in 0:3",
      "y() = -(a + b) * c - (d - e) / f % 3 + -g + !(a < b)",
      "y() = a ? b ? c : d : (e ? f : g) ? h : i",
      "y() = (a || b) && c == (d != e) || x(floor(i / 4), i % 4) >= 1.5e-07",
      "y() = pow(2, -inf) + min(1, max(2, 3)) + sigmoid(erf(tanh(0.1)))",
      "B(i) += B(i - 1) where i in 1:N\nZ(i) max=! x(i, j); W() min= 2; V(i) *=! a(2 * i + 1)",
      "y() = a - (b - c) + (a < b) < c",
      "y() = 0.1 + 1234567.125 + 1e+300",
  };
  for (const char *src : sources) {
    auto p = parse(src);
    std::string text = print(*p);
    auto q = parse(text);
    CHECK_MESSAGE(equal(*p, *q), src << " printed as " << text);
    CHECK(print(*q) == text);
  }
  CHECK(print(*parse("C(i,j)+=!A(i,k)*B(k,j)")) == "C(i, j) +=! A(i, k) * B(k, j)\n");
  CHECK_FALSE(equal(*parse("y() = a - b - c"), *parse("y() = a - (b - c)")));
}

TEST_CASE("compute quasi-affine forms of subscripts") {
  auto sub = [](const std::string &s) { return to_quasi_affine(rhs_of("y() = " + s)); };
  auto q = sub("2 * i + 3 - j + N");
  REQUIRE(q);
  CHECK(q->constant == 3);
  CHECK(q->vars.at("i") == 2);
  CHECK(q->vars.at("j") == -1);
  CHECK(q->vars.at("N") == 1);
  CHECK(q->is_linear());
  CHECK(q->evaluate({{"i", 5}, {"j", 1}, {"N", 10}}) == 22);
  auto f = sub("floor(i / 4) + i % 4 * 2");
  REQUIRE(f);
  CHECK_FALSE(f->is_linear());
  CHECK(f->evaluate({{"i", 7}}) == 1 + 3 * 2);
  CHECK(f->evaluate({{"i", -1}}) == -1 + 3 * 2);  // floor semantics
  CHECK(sub("(i - 1) / 2")->evaluate({{"i", 0}}) == -1);
  CHECK(sub("(2 * i + 4) / 2")->is_linear());
  CHECK(sub("i * (3 - 1)")->vars.at("i") == 2);
  CHECK(sub("i - i")->is_constant());
  CHECK(sub("i % 4")->to_string() == "((i) mod 4)");
  CHECK(sub("2 * i - N + 1")->to_string() == "-N + 2*i + 1");
  CHECK_FALSE(sub("i * i"));
  CHECK_FALSE(sub("i * j"));
  CHECK_FALSE(sub("i / j"));
  CHECK_FALSE(sub("i / 0"));
  CHECK_FALSE(sub("i % -2"));
  CHECK_FALSE(sub("i * 0.5"));
  CHECK_FALSE(sub("idx(i)"));
  CHECK_FALSE(sub("i < 2"));
  CHECK(contains_read(rhs_of("y() = 1 + idx(i)")));
  CHECK_FALSE(contains_read(rhs_of("y() = 1 + i")));
}

}  // TEST_SUITE

TEST_SUITE("graph") {

TEST_CASE("compute parser: pathological nesting is an error, not a crash") {
  std::string parens = "y() = " + std::string(5000, '(') + "1" + std::string(5000, ')');
  CHECK_THROWS_WITH_AS(parse(parens), doctest::Contains("nested too deeply"), UserError);
  std::string minus = "y() = " + std::string(5000, '-') + "1";
  CHECK_THROWS_WITH_AS(parse(minus), doctest::Contains("nested too deeply"), UserError);
  std::string select = "y() = 1";
  for (int k = 0; k < 5000; ++k) select += " ? 1 : 1";
  CHECK_THROWS_WITH_AS(parse(select), doctest::Contains("nested too deeply"), UserError);
  std::string chain = "y() = 1";
  for (int k = 0; k < 5000; ++k) chain += " + 1";
  CHECK_THROWS_WITH_AS(parse(chain), doctest::Contains("expression too deep"), UserError);
  std::string ok = "y() = 1";
  for (int k = 0; k < 500; ++k) ok += " + 1";
  CHECK(parse(ok)->statements.size() == 1);
}

}  // TEST_SUITE
