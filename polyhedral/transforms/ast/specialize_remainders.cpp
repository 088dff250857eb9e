// Copies a remainder register tile once per possible run-time trip count of its unrolled loops.
#include "polyhedral/transforms/ast/specialize_remainders.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace atl::poly {

namespace {

using compute::BinOp;

/// c + sum coeff * var + sum coeff * mod(e, den) (each mod term in [0, den - 1]).
struct Bounded {
  std::int64_t constant = 0;
  std::map<std::string, std::int64_t> vars;
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> mods;  ///< key -> (coeff, den)
};

/// A structural key of an index expression (equal keys: equal expressions).
std::string key(const LExpr &e) {
  std::string s = std::to_string(static_cast<int>(e.kind)) + ":" + std::to_string(static_cast<int>(e.binop)) + ":" +
                  std::to_string(static_cast<int>(e.unop)) + ":" + std::to_string(e.ival) + ":" + e.name + "(";
  for (const LExprPtr &a : e.args) s += (a ? key(*a) : std::string("-")) + ",";
  return s + ")";
}

void add(Bounded &a, const Bounded &b, std::int64_t sign) {
  a.constant += sign * b.constant;
  for (const auto &[v, c] : b.vars) a.vars[v] += sign * c;
  for (const auto &[k, cd] : b.mods) {
    auto &slot = a.mods[k];
    slot.first += sign * cd.first;
    slot.second = cd.second;
  }
}

std::optional<Bounded> bounded(const LExpr &e) {
  if (e.type != LType::Index) return std::nullopt;
  switch (e.kind) {
  case LExprKind::Int: return Bounded{e.ival, {}, {}};
  case LExprKind::Var: return Bounded{0, {{e.name, 1}}, {}};
  case LExprKind::Unary: {
    if (e.unop != compute::UnOp::Neg || !e.args[0]) return std::nullopt;
    auto a = bounded(*e.args[0]);
    if (!a) return std::nullopt;
    Bounded r;
    add(r, *a, -1);
    return r;
  }
  case LExprKind::Binary: {
    if (e.args.size() != 2 || !e.args[0] || !e.args[1]) return std::nullopt;
    if (e.binop == BinOp::Mod) {
      if (e.args[1]->kind != LExprKind::Int || e.args[1]->ival <= 0) return std::nullopt;
      Bounded r;
      r.mods[key(e)] = {1, e.args[1]->ival};
      return r;
    }
    auto a = bounded(*e.args[0]), b = bounded(*e.args[1]);
    if (!a || !b) return std::nullopt;
    if (e.binop == BinOp::Add || e.binop == BinOp::Sub) {
      add(*a, *b, e.binop == BinOp::Add ? 1 : -1);
      return a;
    }
    if (e.binop == BinOp::Mul) {
      const Bounded *k = a->vars.empty() && a->mods.empty() ? &*a : b->vars.empty() && b->mods.empty() ? &*b : nullptr;
      if (!k) return std::nullopt;
      Bounded r;
      add(r, k == &*a ? *b : *a, k->constant);
      return r;
    }
    return std::nullopt;
  }
  case LExprKind::Float: case LExprKind::Min: case LExprKind::Max: case LExprKind::Select: case LExprKind::Call:
  case LExprKind::Load: case LExprKind::GuardedLoad: case LExprKind::ToValue: case LExprKind::ToIndex:
    return std::nullopt;
  }
  return std::nullopt;
}

void collect_vars(const LExpr &e, std::set<std::string> &out) {
  if (e.kind == LExprKind::Var) out.insert(e.name);
  for (const LExprPtr &a : e.args)
    if (a) collect_vars(*a, out);
}

/// An unrolled loop `for (i = init; i < bound or i <= bound; i += 1)` whose
/// trip count varies at run time within [lo, hi].
struct Candidate {
  std::string group;  ///< keys of init and bound
  std::int64_t lo = 0, hi = 0;
  bool below_zero = false;  ///< the difference can be negative: lo (0) stands for every count <= 0
  bool inclusive = false;
  LExprPtr init, bound;
};

std::optional<Candidate> candidate(const LStmt &s, int max_trip) {
  if (s.kind != LStmtKind::For || s.step != 1 || !s.marks.count(mark::kUnroll) || !s.init || !s.cond) return std::nullopt;
  const LExpr &c = *s.cond;
  if (c.kind != LExprKind::Binary || (c.binop != BinOp::Lt && c.binop != BinOp::Le) || c.args.size() != 2 || !c.args[0] ||
      !c.args[1] || c.args[0]->kind != LExprKind::Var || c.args[0]->name != s.iterator)
    return std::nullopt;
  auto b = bounded(*c.args[1]), i = bounded(*s.init);
  if (!b || !i) return std::nullopt;
  add(*b, *i, -1);  // bound - init
  for (const auto &[v, k] : b->vars)
    if (k != 0) return std::nullopt;
  Candidate r;
  r.inclusive = c.binop == BinOp::Le;
  const std::int64_t extra = r.inclusive ? 1 : 0;
  r.lo = r.hi = b->constant + extra;
  bool varies = false;
  for (const auto &[k, cd] : b->mods) {
    if (cd.first == 0) continue;
    varies = true;
    (cd.first > 0 ? r.hi : r.lo) += cd.first * (cd.second - 1);
  }
  r.below_zero = r.lo < 0;
  r.lo = std::max<std::int64_t>(r.lo, 0);
  if (!varies || r.hi <= r.lo || r.hi > max_trip) return std::nullopt;
  r.group = key(*s.init) + "|" + key(*c.args[1]) + (r.inclusive ? "|le" : "|lt");
  r.init = s.init;
  r.bound = c.args[1];
  return r;
}

/// Per group: its candidate loops under `s`; `iterators` gets every loop
/// iterator defined under `s`.
void survey(const LStmtPtr &s, int max_trip, std::map<std::string, std::vector<const LStmt *>> &groups,
            std::map<std::string, Candidate> &info, std::set<std::string> &iterators) {
  if (!s) return;
  if (s->kind == LStmtKind::For) {
    iterators.insert(s->iterator);
    if (auto c = candidate(*s, max_trip)) {
      groups[c->group].push_back(s.get());
      info.emplace(c->group, *c);
    }
  }
  for (const LStmtPtr &b : s->body) survey(b, max_trip, groups, info, iterators);
  survey(s->then_body, max_trip, groups, info, iterators);
  survey(s->else_body, max_trip, groups, info, iterators);
}

class Specializer {
public:
  Specializer(int max_trip, SpecializeResult &res) : max_trip_(max_trip), res_(res) {}

  LStmtPtr rewrite(const LStmtPtr &s) {
    if (!s) return s;
    std::map<std::string, std::vector<const LStmt *>> groups;
    std::map<std::string, Candidate> info;
    std::set<std::string> inner;
    survey(s, max_trip_, groups, info, inner);
    if (groups.empty()) return s;
    // A group that no single child holds whole, whose bounds use no iterator
    // defined here: specialize this statement for it.
    for (const auto &[g, loops] : groups) {
      if (held_by_one_child(*s, loops)) continue;
      const Candidate &c = info.at(g);
      std::set<std::string> used;
      collect_vars(*c.init, used);
      collect_vars(*c.bound, used);
      bool local = false;
      for (const std::string &v : used) local |= inner.count(v) > 0;
      if (local) continue;
      return specialize(s, c);
    }
    auto copy = std::make_shared<LStmt>(*s);
    for (LStmtPtr &b : copy->body) b = rewrite(b);
    copy->then_body = rewrite(copy->then_body);
    copy->else_body = rewrite(copy->else_body);
    return copy;
  }

private:
  int max_trip_;
  SpecializeResult &res_;

  static bool contains(const LStmtPtr &s, const LStmt *target) {
    if (!s) return false;
    if (s.get() == target) return true;
    for (const LStmtPtr &b : s->body)
      if (contains(b, target)) return true;
    return contains(s->then_body, target) || contains(s->else_body, target);
  }

  static bool held_by_one_child(const LStmt &s, const std::vector<const LStmt *> &loops) {
    std::vector<LStmtPtr> children(s.body.begin(), s.body.end());
    children.push_back(s.then_body);
    children.push_back(s.else_body);
    for (const LStmtPtr &c : children) {
      bool all = c != nullptr;
      for (const LStmt *l : loops) all = all && contains(c, l);
      if (all) return true;
    }
    return false;
  }

  /// `s` once per trip count of group `c`, chosen by a chain of tests.
  LStmtPtr specialize(const LStmtPtr &s, const Candidate &c) {
    auto version = [&](std::int64_t trip) {
      return copy_loop_ast(s, nullptr, [&](const LStmt &original, LStmt &copy) {
        auto cand = candidate(original, max_trip_);
        if (!cand || cand->group != c.group) return;
        copy.cond = build::binary(BinOp::Lt, build::var(copy.iterator),
                                  build::binary(BinOp::Add, copy.init, build::integer(trip)));
      });
    };
    // bound - init (+ 1 when inclusive) == trip.
    LExprPtr span = build::binary(BinOp::Sub, c.bound, c.init);
    if (c.inclusive) span = build::binary(BinOp::Add, span, build::integer(1));
    LStmtPtr chain = version(c.hi);
    for (std::int64_t t = c.hi - 1; t >= c.lo; --t) {
      const bool at_most = t == c.lo && c.below_zero;  // no iteration for any count <= 0
      chain = build::branch(build::binary(at_most ? BinOp::Le : BinOp::Eq, span, build::integer(t)), version(t), chain);
    }
    ++res_.regions;
    res_.copies += static_cast<int>(c.hi - c.lo + 1);
    // The copies may hold further groups (another remainder inside).
    return rewrite_children(chain);
  }

  LStmtPtr rewrite_children(const LStmtPtr &s) {
    if (!s || s->kind != LStmtKind::If) return s;
    auto copy = std::make_shared<LStmt>(*s);
    copy->then_body = rewrite_inner(copy->then_body);
    copy->else_body = copy->else_body && copy->else_body->kind == LStmtKind::If ? rewrite_children(copy->else_body)
                                                                                : rewrite_inner(copy->else_body);
    return copy;
  }

  /// Rewrites the children of a specialized copy (its own group is gone).
  LStmtPtr rewrite_inner(const LStmtPtr &s) {
    if (!s) return s;
    auto copy = std::make_shared<LStmt>(*s);
    for (LStmtPtr &b : copy->body) b = rewrite(b);
    copy->then_body = rewrite(copy->then_body);
    copy->else_body = rewrite(copy->else_body);
    return copy;
  }
};

}  // namespace

SpecializeResult specialize_remainders(LKernel &kernel, int max_trip) {
  SpecializeResult res;
  Specializer sp(max_trip, res);
  kernel.body = sp.rewrite(kernel.body);
  return res;
}

}  // namespace atl::poly
