// Builds isl's AST for a schedule and converts it once into the loop AST:
// loops with parallel/vector/reduction marks, guards, and stores whose
// bodies are the statements' Compute expressions with the indices replaced
// by the isl AST's expressions of the loop iterators.
#include "polyhedral/ast/build_ast.h"

#include "polyhedral/ast/gpu_launches.h"

#include "polyhedral/isl/isl_context.h"

#include <atoll/diagnostics.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace atl::poly {

namespace {

using compute::BinOp;
using compute::Expr;
using compute::ExprKind;

/// What the dependences say about one generated loop.
struct LoopInfo {
  bool carries_any = false;        ///< some dependence (reductions included) is carried
  bool carries_non_reduction = false;
};

std::string vars(const char *p, unsigned n) {
  std::string s;
  for (unsigned i = 0; i < n; ++i) s += (i ? ", " : "") + std::string(p) + std::to_string(i);
  return s;
}

/// True when `deps`, mapped through the partial schedule, has instance
/// pairs equal on the outer dimensions and different on the last one.
bool carried(const isl::union_map &deps, const isl::union_map &partial) {
  if (deps.is_empty()) return false;
  isl::union_set deltas = deps.apply_domain(partial).apply_range(partial).deltas();
  bool found = false;
  deltas.foreach_set([&](isl::set d) {
    if (found) return;
    unsigned n = d.tuple_dim();
    if (n == 0) return;
    std::string c = "true";
    for (unsigned i = 0; i + 1 < n; ++i) c += " and x" + std::to_string(i) + " = 0";
    c += " and x" + std::to_string(n - 1) + " != 0";
    isl::set bad(d.ctx(), "{ " + tuple_name(d) + "[" + vars("x", n) + "] : " + c + " }");
    if (!d.intersect(bad).is_empty()) found = true;
  });
  return found;
}

double identity_of(compute::AssignOp op, DType t) {
  bool integer = is_integer(t) || t == DType::Bool;
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  if (integer) {
    switch (t) {
    case DType::I8: lo = -128, hi = 127; break;
    case DType::I32: lo = -2147483648.0, hi = 2147483647.0; break;
    case DType::I64: lo = -9223372036854775808.0, hi = 9223372036854775807.0; break;
    case DType::Bool: lo = 0, hi = 1; break;
    case DType::U8: lo = 0, hi = 255; break;
    case DType::F32: case DType::F16: case DType::BF16: case DType::F64: break;
    }
  }
  switch (op) {
  case compute::AssignOp::Add: return 0;
  case compute::AssignOp::Mul: return 1;
  case compute::AssignOp::Max: return lo;
  case compute::AssignOp::Min: return hi;
  case compute::AssignOp::Assign: return 0;
  }
  return 0;
}

}  // namespace

/// An isl AST expression of iterators and parameters as an Index expression.
LExprPtr index_expr_from_isl(const isl::ast_expr &e, const std::function<std::string(const std::string &)> &rename) {
  if (e.isa<isl::ast_expr_id>()) return build::var(rename ? rename(e.as<isl::ast_expr_id>().id().name()) : e.as<isl::ast_expr_id>().id().name());
  if (e.isa<isl::ast_expr_int>()) return build::integer(e.as<isl::ast_expr_int>().val().get_num_si());
  auto op = e.as<isl::ast_expr_op>();
  auto arg = [&](int i) { return index_expr_from_isl(op.arg(i), rename); };
  auto fold = [&](auto f) {
    LExprPtr r = arg(0);
    for (unsigned i = 1; i < op.n_arg(); ++i) r = f(r, arg(i));
    return r;
  };
  auto bin = [&](BinOp b) { return fold([&](LExprPtr x, LExprPtr y) { return build::binary(b, x, y); }); };
  if (op.isa<isl::ast_expr_op_add>()) return bin(BinOp::Add);
  if (op.isa<isl::ast_expr_op_sub>()) return bin(BinOp::Sub);
  if (op.isa<isl::ast_expr_op_mul>()) return bin(BinOp::Mul);
  if (op.isa<isl::ast_expr_op_div>() || op.isa<isl::ast_expr_op_fdiv_q>() || op.isa<isl::ast_expr_op_pdiv_q>())
    return bin(BinOp::Div);
  if (op.isa<isl::ast_expr_op_pdiv_r>() || op.isa<isl::ast_expr_op_zdiv_r>()) return bin(BinOp::Mod);
  if (op.isa<isl::ast_expr_op_minus>()) return build::unary(compute::UnOp::Neg, arg(0));
  if (op.isa<isl::ast_expr_op_min>()) return fold([](LExprPtr x, LExprPtr y) { return build::min(x, y); });
  if (op.isa<isl::ast_expr_op_max>()) return fold([](LExprPtr x, LExprPtr y) { return build::max(x, y); });
  if (op.isa<isl::ast_expr_op_and>() || op.isa<isl::ast_expr_op_and_then>()) return bin(BinOp::And);
  if (op.isa<isl::ast_expr_op_or>() || op.isa<isl::ast_expr_op_or_else>()) return bin(BinOp::Or);
  if (op.isa<isl::ast_expr_op_eq>()) return bin(BinOp::Eq);
  if (op.isa<isl::ast_expr_op_le>()) return bin(BinOp::Le);
  if (op.isa<isl::ast_expr_op_lt>()) return bin(BinOp::Lt);
  if (op.isa<isl::ast_expr_op_ge>()) return bin(BinOp::Ge);
  if (op.isa<isl::ast_expr_op_gt>()) return bin(BinOp::Gt);
  if (op.isa<isl::ast_expr_op_cond>() || op.isa<isl::ast_expr_op_select>())
    return build::select(arg(0), arg(1), arg(2));
  ATOLL_ASSERT(false, "unsupported isl AST expression " + e.to_C_str());
  return nullptr;
}

namespace {

class Converter {
public:
  Converter(const Scop &scop, const std::vector<LoopInfo> &loops, const AstOptions &o,
            const std::set<std::string> &disabled)
      : scop_(scop), loops_(loops), opts_(o) {
    for (const PackedRead &p : o.packs) packs_[p.statement] = {&p, disabled.count(p.buffer) > 0};
  }

  LStmtPtr node(const isl::ast_node &n, bool inside_parallel) {
    if (n.isa<isl::ast_node_block>()) {
      std::vector<LStmtPtr> body;
      isl::ast_node_list list = n.as<isl::ast_node_block>().children();
      for (unsigned i = 0; i < list.size(); ++i) body.push_back(node(list.at(i), inside_parallel));
      return build::block(std::move(body));
    }
    if (n.isa<isl::ast_node_for>()) return loop(n.as<isl::ast_node_for>(), for_tag(n), inside_parallel);
    if (n.isa<isl::ast_node_if>()) {
      auto i = n.as<isl::ast_node_if>();
      LStmtPtr else_body = i.has_else_node() ? as_block(node(i.else_node(), inside_parallel)) : nullptr;
      return build::branch(expr(i.cond()), as_block(node(i.then_node(), inside_parallel)), else_body);
    }
    if (n.isa<isl::ast_node_mark>()) {
      auto m = n.as<isl::ast_node_mark>();
      LStmtPtr inner = node(m.node(), inside_parallel);
      // The schedule tree's "unroll" mark (transforms/schedule/tile_for_cpu) asks
      // for the loops of the band below it to be unrolled.
      if (m.id().name() == mark::kUnroll) return opts_.unroll ? with_mark(inner, mark::kUnroll) : inner;
      // GPU mapping marks (transforms/schedule/map_to_gpu) stay on the loop
      // of the one-member band below them.
      const std::string name = m.id().name();
      return parse_gpu_mark(name) ? with_mark(inner, name.c_str()) : inner;
    }
    if (n.isa<isl::ast_node_user>()) return statement(n.as<isl::ast_node_user>().expr());
    ATOLL_ASSERT(false, "unknown isl AST node kind");
    return nullptr;
  }

private:
  const Scop &scop_;
  std::set<const Expr *> bounded_;  ///< while converting a statement: its exps bounded above
  const std::vector<LoopInfo> &loops_;
  AstOptions opts_;

  /// A packed operand: its copy statement's origin as last seen in the AST,
  /// and which loop bound each iterator there (valid where the same loops bind them).
  struct PackState {
    const PackedRead *pack = nullptr;
    bool disabled = false;
    std::vector<LExprPtr> origin;
    std::map<std::string, int> bound;
  };
  std::map<std::string, PackState> packs_;          ///< by copy statement
  /// An enclosing loop: iterator, id, bounds.
  struct Open {
    std::string first;
    int second;
    LExprPtr init, cond;
  };
  std::vector<Open> open_;
  int next_loop_ = 0;
  const ScopStatement *current_ = nullptr;         ///< the statement being converted

  static void variables(const LExpr &e, std::set<std::string> &out) {
    if (e.kind == LExprKind::Var) out.insert(e.name);
    for (const LExprPtr &a : e.args) variables(*a, out);
  }

  /// The innermost open loop binding `name`, or -1.
  int binding(const std::string &name) const {
    for (auto it = open_.rbegin(); it != open_.rend(); ++it)
      if (it->first == name) return it->second;
    return -1;
  }

  /// `e` / d when every coefficient and constant of `e` is a multiple of d.
  static LExprPtr divided(const LExprPtr &e, std::int64_t d) {
    switch (e->kind) {
    case LExprKind::Int: return e->ival % d == 0 ? build::integer(e->ival / d) : nullptr;
    case LExprKind::Binary: {
      if (e->type != LType::Index) return nullptr;
      if (e->binop == BinOp::Mul && e->args[0]->kind == LExprKind::Int && e->args[0]->ival % d == 0)
        return e->args[0]->ival == d ? e->args[1] : build::binary(BinOp::Mul, build::integer(e->args[0]->ival / d), e->args[1]);
      if (e->binop == BinOp::Add || e->binop == BinOp::Sub) {
        LExprPtr a = divided(e->args[0], d), b = divided(e->args[1], d);
        return a && b ? build::binary(e->binop, a, b) : nullptr;
      }
      return nullptr;
    }
    case LExprKind::Float: case LExprKind::Var: case LExprKind::Unary: case LExprKind::Min: case LExprKind::Max:
    case LExprKind::Select: case LExprKind::Call: case LExprKind::Load: case LExprKind::GuardedLoad:
    case LExprKind::ToValue: case LExprKind::ToIndex:
      return nullptr;
    }
    return nullptr;
  }

  /// (v - o) / d and (v - o) mod d as affine expressions when `v` is the
  /// iterator of a loop over [d e, d e + d - 1] (or less) and o is a multiple of d.
  std::optional<std::pair<LExprPtr, LExprPtr>> split_aligned(const LExprPtr &v, const LExprPtr &o, std::int64_t d) const {
    if (v->kind != LExprKind::Var) return std::nullopt;
    const Open *loop = nullptr;
    for (auto it = open_.rbegin(); it != open_.rend() && !loop; ++it)
      if (it->first == v->name) loop = &*it;
    LExprPtr oq = divided(o, d);
    if (!loop || !oq || !loop->cond || loop->cond->kind != LExprKind::Binary || loop->cond->binop != BinOp::Le ||
        loop->cond->args[0]->kind != LExprKind::Var || loop->cond->args[0]->name != v->name)
      return std::nullopt;
    LExprPtr e = divided(loop->init, d);
    if (!e) return std::nullopt;
    // The upper bound (or one argument of a min) is init + c with c < d.
    auto near = [&](const LExprPtr &u) {
      if (u->kind == LExprKind::Int && loop->init->kind == LExprKind::Int) return u->ival - loop->init->ival < d;
      return u->kind == LExprKind::Binary && u->binop == BinOp::Add && same_expr(*u->args[0], *loop->init) &&
             u->args[1]->kind == LExprKind::Int && u->args[1]->ival < d;
    };
    const LExprPtr &u = loop->cond->args[1];
    bool bounded = near(u);
    if (u->kind == LExprKind::Min) bounded = near(u->args[0]) || near(u->args[1]);
    if (!bounded) return std::nullopt;
    bool zero = oq->kind == LExprKind::Int && oq->ival == 0;
    return std::make_pair(zero ? e : build::binary(BinOp::Sub, e, oq), build::binary(BinOp::Sub, v, loop->init));
  }

  /// The copy statement of a packed operand: buffer[j] = array[o + j] (see PackedRead for panels).
  LStmtPtr copy(PackState &p, const isl::ast_expr_op &op) {
    const std::size_t rank = p.pack->shape.size() - (p.pack->panel > 0 ? 1 : 0);
    const std::size_t n = 2 * rank + (p.pack->panel > 0 ? 1 : 0);
    ATOLL_ASSERT(op.n_arg() == n + 1, "copy statement arity");
    if (p.disabled) return build::block({});
    std::vector<LExprPtr> origin, at, from;
    for (std::size_t d = 0; d < rank; ++d) origin.push_back(expr(op.arg(static_cast<int>(1 + d))));
    for (std::size_t d = rank; d < n; ++d) at.push_back(expr(op.arg(static_cast<int>(1 + d))));
    for (std::size_t d = 0; d < rank; ++d) {
      LExprPtr j = at[p.pack->panel > 0 ? d + 1 : d];
      if (p.pack->panel > 0 && d + 1 == rank)
        j = build::binary(BinOp::Add, build::binary(BinOp::Mul, build::integer(p.pack->panel), at[0]), at.back());
      from.push_back(build::binary(BinOp::Add, origin[d], j));
    }
    p.origin = origin;
    p.bound.clear();
    std::set<std::string> names;
    for (const LExprPtr &e : origin) variables(*e, names);
    for (const std::string &n : names) p.bound[n] = binding(n);
    return build::store(p.pack->buffer, std::move(at), build::load(p.pack->array, std::move(from)),
                        compute::AssignOp::Assign, p.pack->statement);
  }

  /// The packed state that a read of `array` by the current statement uses, or null.
  const PackState *packed(const std::string &array) const {
    if (!current_) return nullptr;
    for (const auto &[name, p] : packs_) {
      if (p.disabled || p.pack->array != array || p.pack->reader != current_->name || p.origin.empty()) continue;
      bool valid = true;
      for (const auto &[var, loop] : p.bound) valid &= binding(var) == loop;
      if (valid) return &p;
    }
    return nullptr;
  }

  /// isl names iterators c0, c1, ...; one that equals an array's name gets
  /// underscores appended (a tensor may well be called c1).
  std::string avoid_array_names(std::string name) const {
    while (scop_.array(name)) name += "_";
    return name;
  }

  /// `s` with `m` added to its outermost loops (through blocks and ifs).
  static LStmtPtr with_mark(const LStmtPtr &s, const char *m) {
    switch (s->kind) {
    case LStmtKind::For: {
      // A GPU mark belongs to the loop of its own band; where isl made no
      // loop (one value), the mark stops at the loop that has one already.
      if (parse_gpu_mark(m) && gpu_mark_of(*s)) return s;
      std::set<std::string> marks = s->marks;
      marks.insert(m);
      return build::loop(s->iterator, s->init, s->cond, s->step, s->body.front(), marks);
    }
    case LStmtKind::Block: {
      std::vector<LStmtPtr> body;
      for (const auto &b : s->body) body.push_back(with_mark(b, m));
      return build::block(std::move(body));
    }
    case LStmtKind::If:
      return build::branch(s->cond, with_mark(s->then_body, m), s->else_body ? with_mark(s->else_body, m) : nullptr);
    case LStmtKind::Store: return s;
    }
    return s;
  }

  static LStmtPtr as_block(LStmtPtr s) { return s->kind == LStmtKind::Block ? s : build::block({s}); }

  LStmtPtr loop(const isl::ast_node_for &f, int tag, bool inside_parallel) {
    std::string it = avoid_array_names(f.iterator().as<isl::ast_expr_id>().id().name());
    LoopInfo info = tag >= 0 && tag < static_cast<int>(loops_.size()) ? loops_[tag] : LoopInfo{true, true};
    bool par = opts_.parallel && !inside_parallel && !info.carries_any;
    open_.push_back(Open{it, next_loop_++, expr(f.init()), expr(f.cond())});
    LStmtPtr body = as_block(node(f.body(), inside_parallel || par));
    open_.pop_back();
    std::int64_t step = f.inc().as<isl::ast_expr_int>().val().get_num_si();
    std::set<std::string> marks;
    if (par) marks.insert(mark::kParallel);
    if (!info.carries_non_reduction && info.carries_any) marks.insert(mark::kReduction);
    if (opts_.vectorize && !info.carries_any && step == 1 && innermost(*body) && unit_stride(*body, it))
      marks.insert(mark::kVector);
    return build::loop(it, expr(f.init()), expr(f.cond()), step, body, marks);
  }

  static bool innermost(const LStmt &s) {
    switch (s.kind) {
    case LStmtKind::For: return false;
    case LStmtKind::Block:
      for (const auto &b : s.body)
        if (!innermost(*b)) return false;
      return true;
    case LStmtKind::If: return innermost(*s.then_body) && (!s.else_body || innermost(*s.else_body));
    case LStmtKind::Store: return true;
    }
    return true;
  }

  /// Coefficient of `it` in an Index expression; empty when not linear in it.
  static std::optional<std::int64_t> coeff(const LExpr &e, const std::string &it) {
    switch (e.kind) {
    case LExprKind::Int: case LExprKind::Float: return 0;
    case LExprKind::Var: return e.name == it ? 1 : 0;
    case LExprKind::Unary: {
      auto a = coeff(*e.args[0], it);
      if (!a) return std::nullopt;
      return e.unop == compute::UnOp::Neg ? -*a : (*a == 0 ? std::optional<std::int64_t>(0) : std::nullopt);
    }
    case LExprKind::Binary: {
      auto a = coeff(*e.args[0], it), b = coeff(*e.args[1], it);
      if (!a || !b) return std::nullopt;
      if (e.binop == BinOp::Add) return *a + *b;
      if (e.binop == BinOp::Sub) return *a - *b;
      if (e.binop == BinOp::Mul) {
        if (*a == 0 && *b == 0) return 0;
        if (*a == 0 && e.args[0]->kind == LExprKind::Int) return e.args[0]->ival * *b;
        if (*b == 0 && e.args[1]->kind == LExprKind::Int) return e.args[1]->ival * *a;
        return std::nullopt;
      }
      return (*a == 0 && *b == 0) ? std::optional<std::int64_t>(0) : std::nullopt;
    }
    case LExprKind::Min: case LExprKind::Max: case LExprKind::Select: case LExprKind::Call:
    case LExprKind::Load: case LExprKind::GuardedLoad: case LExprKind::ToValue: case LExprKind::ToIndex:
      for (const auto &a : e.args) {
        auto c = coeff(*a, it);
        if (!c || *c != 0) return std::nullopt;
      }
      return 0;
    }
    return std::nullopt;
  }

  /// Every store writes consecutive elements along `it` (last subscript
  /// coefficient 1, others 0).
  static bool unit_stride(const LStmt &s, const std::string &it) {
    switch (s.kind) {
    case LStmtKind::For: return false;
    case LStmtKind::Block:
      for (const auto &b : s.body)
        if (!unit_stride(*b, it)) return false;
      return true;
    case LStmtKind::If: return unit_stride(*s.then_body, it) && (!s.else_body || unit_stride(*s.else_body, it));
    case LStmtKind::Store:
      if (s.indices.empty()) return false;
      for (std::size_t d = 0; d < s.indices.size(); ++d) {
        auto c = coeff(*s.indices[d], it);
        if (!c || *c != (d + 1 == s.indices.size() ? 1 : 0)) return false;
      }
      return true;
    }
    return false;
  }

  LExprPtr expr(const isl::ast_expr &e) {
    return index_expr_from_isl(e, [this](const std::string &n) { return avoid_array_names(n); });
  }

  // ---- statement bodies -------------------------------------------------

  using Subst = std::map<std::string, LExprPtr>;

  LExprPtr index(const Expr &e, const Subst &s) {
    switch (e.kind) {
    case ExprKind::Number: return build::integer(static_cast<std::int64_t>(e.number));
    case ExprKind::Var: {
      auto it = s.find(e.name);
      return it != s.end() ? it->second : build::var(e.name);
    }
    case ExprKind::Unary: return build::unary(e.unop, index(*e.args[0], s));
    case ExprKind::Binary: return build::binary(e.binop, index(*e.args[0], s), index(*e.args[1], s));
    case ExprKind::Call:
      if (e.func == compute::Func::Floor) return index(*e.args[0], s);
      if (e.func == compute::Func::Min) return build::min(index(*e.args[0], s), index(*e.args[1], s));
      if (e.func == compute::Func::Max) return build::max(index(*e.args[0], s), index(*e.args[1], s));
      break;
    case ExprKind::Select:
      return build::select(index(*e.args[0], s), index(*e.args[1], s), index(*e.args[2], s));
    case ExprKind::Read:
    case ExprKind::Guard: return build::to_index(value(e, s));
    }
    return build::to_index(value(e, s));
  }

  /// `v / d` and `v % d` of an iterator whose loop runs within one aligned
  /// block of d elements: the block (init / d) and `v - init`. A weight
  /// laid out in panels (`w(floor(n / 16), k, n % 16)`, pack_gemm_weights)
  /// then reads stride-1 along the register tile's columns.
  LExprPtr within_block(const LExprPtr &e) const {
    if (e->kind != LExprKind::Binary || (e->binop != BinOp::Div && e->binop != BinOp::Mod) ||
        e->args[1]->kind != LExprKind::Int || e->args[1]->ival <= 1)
      return e;
    auto split = split_aligned(e->args[0], build::integer(0), e->args[1]->ival);
    if (!split) return e;
    return e->binop == BinOp::Div ? split->first : split->second;
  }

  LExprPtr load(const Expr &read, const Subst &s) {
    std::vector<LExprPtr> subs;
    for (const auto &a : read.args) subs.push_back(within_block(index(*a, s)));
    if (const PackState *p = packed(read.name); p && p->origin.size() == subs.size()) {
      const std::int64_t panel = p->pack->panel;
      if (panel > 0) {
        LExprPtr last = subs.back();
        auto split = split_aligned(last, p->origin.back(), panel);
        if (!split) {
          LExprPtr off = build::binary(BinOp::Sub, last, p->origin.back());
          split = std::make_pair(build::binary(BinOp::Div, off, build::integer(panel)),
                                 build::binary(BinOp::Mod, off, build::integer(panel)));
        }
        subs.pop_back();
        for (std::size_t d = 0; d < subs.size(); ++d) subs[d] = build::binary(BinOp::Sub, subs[d], p->origin[d]);
        subs.insert(subs.begin(), split->first);
        subs.push_back(split->second);
      } else {
        for (std::size_t d = 0; d < subs.size(); ++d) subs[d] = build::binary(BinOp::Sub, subs[d], p->origin[d]);
      }
      return build::load(p->pack->buffer, std::move(subs));
    }
    flatten_planes(read.name, subs);
    return build::load(read.name, std::move(subs));
  }

  /// Subscripts (e / W + c, e % W) of two dimensions of an array whose inner
  /// extent is W address element e + c W of the two flattened
  /// (coalesce_dims; c is a band's first row, often 0): written (0, e + c W),
  /// so that e moves with stride 1 (the address is the same).
  void flatten_planes(const std::string &array, std::vector<LExprPtr> &subs) const {
    const ScopArray *a = scop_.array(array);
    if (!a) return;
    auto by = [](const LExprPtr &e, BinOp op) {
      return e->kind == LExprKind::Binary && e->binop == op && e->args.size() == 2 && e->args[1]->kind == LExprKind::Int;
    };
    for (std::size_t d = 0; d + 1 < subs.size() && d + 1 < a->array.shape.size(); ++d) {
      LExprPtr q = subs[d];
      const LExprPtr &r = subs[d + 1];
      std::int64_t rows = 0;  // c
      if (q->kind == LExprKind::Binary && q->binop == BinOp::Add && q->args.size() == 2)
        for (std::size_t k = 0; k < 2; ++k)
          if (const LExprPtr &c = q->args[k], &quotient = q->args[1 - k]; c->kind == LExprKind::Int && by(quotient, BinOp::Div)) {
            rows = c->ival;
            q = quotient;
            break;
          }
      if (!by(q, BinOp::Div) || !by(r, BinOp::Mod) || q->args[0] != r->args[0] || q->args[1]->ival != r->args[1]->ival) continue;
      const Dim &inner = a->array.shape[d + 1];
      if (inner.is_symbolic() || inner.value != q->args[1]->ival) continue;
      LExprPtr e = q->args[0];
      if (rows != 0) e = build::binary(BinOp::Add, e, build::integer(rows * inner.value));
      subs[d] = build::integer(0);
      subs[d + 1] = e;
    }
  }

  LExprPtr value(const Expr &e, const Subst &s) {
    switch (e.kind) {
    case ExprKind::Number: return build::real(e.number);
    case ExprKind::Var: return build::to_value(index(e, s));
    case ExprKind::Unary: return build::unary(e.unop, value(*e.args[0], s));
    case ExprKind::Binary: return build::binary(e.binop, value(*e.args[0], s), value(*e.args[1], s));
    case ExprKind::Select: return build::select(value(*e.args[0], s), value(*e.args[1], s), value(*e.args[2], s));
    case ExprKind::Call: {
      std::vector<LExprPtr> args;
      for (const auto &a : e.args) args.push_back(value(*a, s));
      return build::call(e.func, std::move(args), bounded_.count(&e) != 0);
    }
    case ExprKind::Read: {
      // An indirect subscript's run-time value is not known to be in bounds:
      // the read is guarded (0 outside; constant indices are checked when
      // the graph compiles, check_constant_indices).
      for (const auto &sub : e.args)
        if (compute::contains_read(*sub)) return build::guarded_load(load(e, s), build::real(0));
      return load(e, s);
    }
    case ExprKind::Guard: return build::guarded_load(load(*e.args[0], s), value(*e.args[1], s));
    }
    return nullptr;
  }

  LStmtPtr statement(const isl::ast_expr &call) {
    auto op = call.as<isl::ast_expr_op>();
    std::string name = op.arg(0).as<isl::ast_expr_id>().id().name();
    if (auto p = packs_.find(name); p != packs_.end()) return copy(p->second, op);
    const ScopStatement *st = scop_.statement(name);
    current_ = st;
    ATOLL_ASSERT(st, "isl AST names an unknown statement " + name);
    ATOLL_ASSERT(op.n_arg() == st->indices.size() + 1, "statement call arity");
    Subst subst;
    for (std::size_t k = 0; k < st->indices.size(); ++k) subst[st->indices[k]] = expr(op.arg(static_cast<int>(k + 1)));
    std::vector<LExprPtr> subs;
    for (const auto &a : st->lhs->args) subs.push_back(index(*a, subst));
    flatten_planes(st->write.array, subs);
    LExprPtr v;
    if (st->init) v = build::real(identity_of(st->init_of, scop_.array(st->write.array)->array.dtype));
    else {
      // The exp calls bound_shifted_exps recorded, as nodes of this rhs.
      bounded_.clear();
      std::vector<const Expr *> exps = exp_calls(*st->rhs);
      for (int i : st->bounded_exps)
        if (i >= 0 && static_cast<std::size_t>(i) < exps.size()) bounded_.insert(exps[static_cast<std::size_t>(i)]);
      v = value(*st->rhs, subst);
      bounded_.clear();
    }
    current_ = nullptr;
    return build::store(st->write.array, std::move(subs), v, st->op, st->name, st->nan_insensitive);
  }
};

/// Loops around each access of one array, outermost first.
void accesses_of(const LStmt &s, const std::string &array, std::vector<const LStmt *> &loops,
                 std::vector<std::vector<const LStmt *>> &out) {
  auto in_expr = [&](const LExprPtr &e, auto &&self) -> bool {
    if (!e) return false;
    if (e->kind == LExprKind::Load && e->name == array) return true;
    for (const LExprPtr &a : e->args)
      if (self(a, self)) return true;
    return false;
  };
  switch (s.kind) {
  case LStmtKind::Block:
    for (const LStmtPtr &c : s.body)
      if (c) accesses_of(*c, array, loops, out);
    return;
  case LStmtKind::For:
    loops.push_back(&s);
    for (const LStmtPtr &c : s.body)
      if (c) accesses_of(*c, array, loops, out);
    loops.pop_back();
    return;
  case LStmtKind::If:
    if (s.then_body) accesses_of(*s.then_body, array, loops, out);
    if (s.else_body) accesses_of(*s.else_body, array, loops, out);
    return;
  case LStmtKind::Store: {
    bool hit = s.array == array || in_expr(s.value, in_expr);
    for (const LExprPtr &i : s.indices) hit = hit || in_expr(i, in_expr);
    if (hit) out.push_back(loops);
    return;
  }
  }
}

/// `s` with `local` declared by `scope` and no parallel mark on the loops
/// below `scope` that enclose an access (`users`).
LStmtPtr declare_local(const LStmtPtr &s, const std::string &local, const LStmt *scope,
                       const std::set<const LStmt *> &users, bool below) {
  if (!s) return s;
  auto copy = std::make_shared<LStmt>(*s);
  bool inner = below || s.get() == scope;
  for (LStmtPtr &c : copy->body) c = declare_local(c, local, scope, users, inner);
  if (copy->then_body) copy->then_body = declare_local(copy->then_body, local, scope, users, inner);
  if (copy->else_body) copy->else_body = declare_local(copy->else_body, local, scope, users, inner);
  if (s.get() == scope) copy->locals.push_back(local);
  if (below && users.count(s.get())) copy->marks.erase(mark::kParallel);
  return copy;
}

/// The body with a packed buffer placed (see declare_local); the body
/// unchanged when nothing accesses it; nothing when no loop encloses every access.
std::optional<LStmtPtr> place_pack(const LStmtPtr &body, const std::string &buffer) {
  std::vector<const LStmt *> loops;
  std::vector<std::vector<const LStmt *>> all;
  accesses_of(*body, buffer, loops, all);
  if (all.empty()) return body;
  std::vector<const LStmt *> common = all[0];
  std::set<const LStmt *> users;
  for (const auto &a : all) {
    std::size_t n = 0;
    while (n < common.size() && n < a.size() && common[n] == a[n]) ++n;
    common.resize(n);
    users.insert(a.begin(), a.end());
  }
  if (common.empty()) return std::nullopt;
  return declare_local(body, buffer, common.back(), users, false);
}

}  // namespace

LKernel build_ast(const Scop &scop, const Dependences &deps, const isl::schedule &schedule, const AstOptions &options) {
  isl::union_map all = deps.all().unite(deps.reduction_closure);
  isl::union_map non_reduction = all.subtract(deps.reduction_deps());

  std::vector<LoopInfo> loops;
  auto before_for = [&](const isl::union_map &partial) {
    LoopInfo info;
    // Bands with AST options (isolate) nest the schedule space: flatten it.
    isl::union_map flat = isl::union_map::empty(partial.ctx());
    partial.foreach_map([&](isl::map m) { flat = flat.unite(isl::union_map(m.flatten_range())); });
    info.carries_any = carried(all, flat);
    info.carries_non_reduction = info.carries_any && carried(non_reduction, flat);
    loops.push_back(info);
    return static_cast<int>(loops.size() - 1);
  };
  isl::ast_build build = isl::ast_build::from_context(scop.context);
  isl::ast_node tree = build_ast_with_hooks(build, schedule, before_for);

  LKernel k;
  k.name = sanitize_identifier(scop.name);
  for (const auto &a : scop.arrays) k.arrays.push_back(a.array);
  k.params = scop.params;
  // Packed buffers that cannot be placed are dropped (their copies too) and the AST converted again.
  std::set<std::string> disabled;
  for (bool again = true; again;) {
    again = false;
    k.locals.clear();
    Converter conv(scop, loops, options, disabled);
    LStmtPtr body = conv.node(tree, false);
    k.body = body->kind == LStmtKind::Block ? body : build::block({body});
    for (const PackedRead &p : options.packs) {
      if (disabled.count(p.buffer)) continue;
      std::optional<LStmtPtr> placed = place_pack(k.body, p.buffer);
      if (!placed) {
        disabled.insert(p.buffer);
        again = true;
        break;
      }
      if (*placed == k.body) continue;  // not used
      k.body = *placed;
      LArray local;
      local.name = p.buffer;
      local.dtype = p.dtype;
      for (long e : p.shape) local.shape.push_back(Dim(e));
      local.role = LArray::Role::Local;
      k.locals.push_back(std::move(local));
    }
  }
  return k;
}

}  // namespace atl::poly
