// Recursive-descent parser of the Compute language (precedence climbing by level).
#include "graph/compute/ast.h"
#include "graph/compute/compute.h"
#include "graph/compute/lexer.h"

#include <atoll/diagnostics.h>

#include <limits>

namespace atl::compute {

namespace {

using detail::Tok;
using detail::Token;

class Parser {
public:
  explicit Parser(std::vector<Token> tokens) : toks_(std::move(tokens)) {}

  Program program() {
    Program p;
    skip_separators();
    while (peek().kind != Tok::End) {
      p.statements.push_back(statement());
      const Token &t = peek();
      if (t.kind != Tok::Newline && t.kind != Tok::Semicolon && t.kind != Tok::End)
        fail(t, "expected end of statement (newline or ';')");
      skip_separators();
    }
    return p;
  }

private:
  std::vector<Token> toks_;
  std::size_t pos_ = 0;

  const Token &peek(std::size_t k = 0) const {
    std::size_t i = pos_ + k;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  const Token &next() {
    const Token &t = peek();
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool accept(Tok k) {
    if (peek().kind != k) return false;
    next();
    return true;
  }
  [[noreturn]] static void fail(const Token &t, const std::string &expected) {
    Location loc;
    loc.line = t.line;
    loc.column = t.column;
    throw UserError(expected + ", found " + detail::describe(t), loc);
  }
  const Token &expect(Tok k, const char *what) {
    if (peek().kind != k) fail(peek(), std::string("expected ") + what);
    return next();
  }
  void skip_separators() {
    while (peek().kind == Tok::Newline || peek().kind == Tok::Semicolon) next();
  }

  static std::shared_ptr<Expr> node(ExprKind kind, const Token &at) {
    auto e = std::make_shared<Expr>();
    e->kind = kind;
    e->line = at.line;
    e->column = at.column;
    return e;
  }

  Statement statement() {
    Statement s;
    const Token &first = peek();
    s.line = first.line;
    s.column = first.column;
    if (first.kind != Tok::Ident) fail(first, "expected a tensor name to assign");
    if (find_func(first.text) || first.text == "guard")
      fail(first, "expected a tensor name to assign (not a function name)");
    next();
    auto lhs = node(ExprKind::Read, first);
    lhs->name = first.text;
    expect(Tok::LParen, "'(' after the assigned tensor's name");
    lhs->args = arguments();
    s.lhs = lhs;

    const Token &op = peek();
    std::size_t op_end = 0;
    if (op.kind == Tok::Assign) {
      s.op = AssignOp::Assign;
      next();
      op_end = 0;  // plain '=' takes no '!'
    } else if (op.kind == Tok::PlusAssign || op.kind == Tok::StarAssign) {
      s.op = op.kind == Tok::PlusAssign ? AssignOp::Add : AssignOp::Mul;
      next();
      op_end = op.offset + 2;
    } else if (op.kind == Tok::Ident && (op.text == "max" || op.text == "min") && peek(1).kind == Tok::Assign) {
      s.op = op.text == "max" ? AssignOp::Max : AssignOp::Min;
      next();
      op_end = next().offset + 1;
    } else {
      fail(op, "expected an assignment operator ('=', '+=', '*=', 'max=', 'min=', optionally followed by '!')");
    }
    if (op_end != 0 && peek().kind == Tok::Bang && peek().offset == op_end) {
      s.init = true;
      next();
    }
    s.rhs = expr();
    check_height(*s.rhs);
    if (peek().kind == Tok::Ident && peek().text == "where") {
      next();
      do {
        const Token &name = expect(Tok::Ident, "an index name in 'where'");
        IndexRange r;
        r.name = name.text;
        r.line = name.line;
        r.column = name.column;
        const Token &in = peek();
        if (in.kind != Tok::Ident || in.text != "in") fail(in, "expected 'in' after the index name");
        next();
        r.lo = expr();
        expect(Tok::Colon, "':' between the range's bounds");
        r.hi = expr();
        s.where.push_back(std::move(r));
      } while (accept(Tok::Comma));
    }
    return s;
  }

  /// Rejects trees deeper than later recursive passes can safely walk
  /// (long operator chains nest without parentheses). Iterative on purpose.
  static void check_height(const Expr &root) {
    constexpr int kMaxHeight = 2000;
    std::vector<std::pair<const Expr *, int>> stack{{&root, 1}};
    while (!stack.empty()) {
      auto [e, h] = stack.back();
      stack.pop_back();
      if (h > kMaxHeight) {
        Location loc;
        loc.line = root.line;
        loc.column = root.column;
        throw UserError("expression too deep (more than 2000 nested operations)", loc);
      }
      for (const auto &a : e->args) stack.push_back({a.get(), h + 1});
    }
  }

  /// Arguments after '(' up to and including ')'.
  std::vector<ExprPtr> arguments() {
    std::vector<ExprPtr> args;
    if (accept(Tok::RParen)) return args;
    do {
      args.push_back(expr());
    } while (accept(Tok::Comma));
    expect(Tok::RParen, "',' or ')' in the argument list");
    return args;
  }

  ExprPtr expr() {
    if (++depth_ > kMaxDepth) fail(peek(), "expression nested too deeply (more than 200 levels)");
    ExprPtr e = ternary();
    --depth_;
    return e;
  }
  static constexpr int kMaxDepth = 200;
  int depth_ = 0, unary_depth_ = 0;

  ExprPtr ternary() {
    ExprPtr c = binary(0);
    if (peek().kind != Tok::Question) return c;
    next();
    auto e = std::make_shared<Expr>();
    e->kind = ExprKind::Select;
    e->line = c->line;
    e->column = c->column;
    ExprPtr a = expr();
    expect(Tok::Colon, "':' in 'c ? a : b'");
    ExprPtr b = expr();
    e->args = {c, a, b};
    return e;
  }

  // Binary levels from low to high precedence.
  static int level_of(Tok k, BinOp &op) {
    switch (k) {
    case Tok::OrOr: op = BinOp::Or; return 0;
    case Tok::AndAnd: op = BinOp::And; return 1;
    case Tok::EqEq: op = BinOp::Eq; return 2;
    case Tok::Ne: op = BinOp::Ne; return 2;
    case Tok::Lt: op = BinOp::Lt; return 3;
    case Tok::Le: op = BinOp::Le; return 3;
    case Tok::Gt: op = BinOp::Gt; return 3;
    case Tok::Ge: op = BinOp::Ge; return 3;
    case Tok::Plus: op = BinOp::Add; return 4;
    case Tok::Minus: op = BinOp::Sub; return 4;
    case Tok::Star: op = BinOp::Mul; return 5;
    case Tok::Slash: op = BinOp::Div; return 5;
    case Tok::Percent: op = BinOp::Mod; return 5;
    default: return -1;
    }
  }
  static constexpr int kLevels = 6;

  ExprPtr binary(int level) {
    if (level == kLevels) return unary();
    ExprPtr left = binary(level + 1);
    for (;;) {
      BinOp op = BinOp::Add;  // set by level_of whenever it returns this level
      if (level_of(peek().kind, op) != level) return left;
      next();
      ExprPtr right = binary(level + 1);
      auto e = std::make_shared<Expr>();
      e->kind = ExprKind::Binary;
      e->binop = op;
      e->line = left->line;
      e->column = left->column;
      e->args = {left, right};
      left = e;
    }
  }

  ExprPtr unary() {
    const Token &t = peek();
    if (t.kind == Tok::Minus || t.kind == Tok::Bang) {
      if (++unary_depth_ > kMaxDepth) fail(t, "expression nested too deeply (more than 200 unary operators)");
      next();
      auto e = node(ExprKind::Unary, t);
      e->unop = t.kind == Tok::Minus ? UnOp::Neg : UnOp::Not;
      e->args = {unary()};
      --unary_depth_;
      return e;
    }
    return primary();
  }

  ExprPtr primary() {
    const Token &t = peek();
    switch (t.kind) {
    case Tok::Number: {
      next();
      auto e = node(ExprKind::Number, t);
      e->number = t.number;
      return e;
    }
    case Tok::LParen: {
      next();
      ExprPtr e = expr();
      expect(Tok::RParen, "')'");
      return e;
    }
    case Tok::Ident: {
      next();
      if (peek().kind != Tok::LParen) {
        if (t.text == "inf") {
          auto e = node(ExprKind::Number, t);
          e->number = std::numeric_limits<double>::infinity();
          return e;
        }
        if (t.text == "where" || t.text == "in") fail(t, "expected an expression");
        auto e = node(ExprKind::Var, t);
        e->name = t.text;
        return e;
      }
      const Token &open = next();
      std::vector<ExprPtr> args = arguments();
      if (t.text == "guard") {
        if (args.size() != 2) arity_error(t, "guard", 2, args.size());
        if (args[0]->kind != ExprKind::Read) {
          Location loc;
          loc.line = args[0]->line;
          loc.column = args[0]->column;
          throw UserError("guard's first argument must be a tensor read such as x(i - 1)", loc);
        }
        auto e = node(ExprKind::Guard, t);
        e->args = std::move(args);
        return e;
      }
      if (auto f = find_func(t.text)) {
        if (static_cast<int>(args.size()) != func_arity(*f)) arity_error(t, t.text, func_arity(*f), args.size());
        auto e = node(ExprKind::Call, t);
        e->func = *f;
        e->args = std::move(args);
        return e;
      }
      if (t.text == "inf" || t.text == "where" || t.text == "in")
        fail(open, "expected an expression ('" + t.text + "' is reserved)");
      auto e = node(ExprKind::Read, t);
      e->name = t.text;
      e->args = std::move(args);
      return e;
    }
    default: fail(t, "expected an expression (number, name, '(' or unary operator)");
    }
  }

  [[noreturn]] static void arity_error(const Token &t, const std::string &name, int want, std::size_t got) {
    Location loc;
    loc.line = t.line;
    loc.column = t.column;
    throw UserError("function '" + name + "' takes " + std::to_string(want) + " argument" + (want == 1 ? "" : "s") +
                        ", got " + std::to_string(got),
                    loc);
  }
};

}  // namespace

std::shared_ptr<const Program> parse(std::string_view text) {
  Parser p(detail::lex(text));
  return std::make_shared<const Program>(p.program());
}

}  // namespace atl::compute
