// Guard versioning: register tiles whose guarded reads are in bounds run a copy without guards (see version_guards.h).
#include "polyhedral/transforms/ast/version_guards.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace atl::poly {

namespace {

using compute::BinOp;

/// sum(coef[v] * v) + k over loop iterators and parameters.
struct Affine {
  std::map<std::string, std::int64_t> coef;
  std::int64_t k = 0;

  bool constant() const { return coef.empty(); }
  Affine scaled(std::int64_t f) const {
    Affine r;
    if (f == 0) return r;
    for (const auto &[v, c] : coef) r.coef[v] = c * f;
    r.k = k * f;
    return r;
  }
  Affine plus(const Affine &o) const {
    Affine r = *this;
    for (const auto &[v, c] : o.coef)
      if ((r.coef[v] += c) == 0) r.coef.erase(v);
    r.k += o.k;
    return r;
  }
};

std::optional<Affine> affine(const LExpr &e) {
  if (e.type != LType::Index) return std::nullopt;
  switch (e.kind) {
  case LExprKind::Int: {
    Affine a;
    a.k = e.ival;
    return a;
  }
  case LExprKind::Var: {
    Affine a;
    a.coef[e.name] = 1;
    return a;
  }
  case LExprKind::Unary:
    if (e.unop == compute::UnOp::Neg)
      if (auto a = affine(*e.args[0])) return a->scaled(-1);
    return std::nullopt;
  case LExprKind::Binary: {
    auto a = affine(*e.args[0]), b = affine(*e.args[1]);
    if (!a || !b) return std::nullopt;
    if (e.binop == BinOp::Add) return a->plus(*b);
    if (e.binop == BinOp::Sub) return a->plus(b->scaled(-1));
    if (e.binop == BinOp::Mul && a->constant()) return b->scaled(a->k);
    if (e.binop == BinOp::Mul && b->constant()) return a->scaled(b->k);
    return std::nullopt;
  }
  case LExprKind::Float: case LExprKind::Min: case LExprKind::Max: case LExprKind::Select: case LExprKind::Call:
  case LExprKind::Load: case LExprKind::GuardedLoad: case LExprKind::ToValue: case LExprKind::ToIndex:
    return std::nullopt;
  }
  return std::nullopt;
}

/// The range of a loop's iterator: affine bounds (inclusive) where known.
struct Range {
  std::optional<Affine> lo, hi;
  int depth = 0;
};

/// An affine bound of `e`: `e` itself, or, through `through` (Max for a
/// lower bound: max(a, b) >= a; Min for an upper bound), one of its operands.
std::optional<Affine> bound_of(const LExpr &e, LExprKind through) {
  if (auto a = affine(e)) return a;
  if (e.kind == through)
    for (const LExprPtr &x : e.args)
      if (auto a = bound_of(*x, through)) return a;
  return std::nullopt;
}

/// The range of loop `s` at nesting `depth` (cond: `i <= e` or `i < e`).
Range range_of(const LStmt &s, int depth) {
  Range r;
  r.depth = depth;
  if (s.step <= 0) return r;
  if (s.init) r.lo = bound_of(*s.init, LExprKind::Max);
  const LExpr *c = s.cond.get();
  if (c && c->kind == LExprKind::Binary && (c->binop == BinOp::Le || c->binop == BinOp::Lt) &&
      c->args[0]->kind == LExprKind::Var && c->args[0]->name == s.iterator) {
    r.hi = bound_of(*c->args[1], LExprKind::Min);
    if (r.hi && c->binop == BinOp::Lt) r.hi->k -= 1;
  }
  return r;
}

/// The least (`least`) or greatest value of `f` as its variables that
/// `ranges` names take their ranges, innermost loop first: affine in the
/// other variables, or nothing when a range is unknown.
std::optional<Affine> extreme(Affine f, const std::map<std::string, Range> &ranges, bool least) {
  for (;;) {
    const std::string *pick = nullptr;
    int depth = -1;
    for (const auto &[v, c] : f.coef) {
      auto it = ranges.find(v);
      if (it != ranges.end() && it->second.depth > depth) depth = it->second.depth, pick = &it->first;
    }
    if (!pick) return f;
    std::string v = *pick;
    std::int64_t c = f.coef.at(v);
    const Range &r = ranges.at(v);
    const std::optional<Affine> &bound = (c > 0) == least ? r.lo : r.hi;
    if (!bound || bound->coef.count(v)) return std::nullopt;
    f.coef.erase(v);
    f = f.plus(bound->scaled(c));
  }
}

LExprPtr to_expr(const Affine &a) {
  LExprPtr e;
  for (const auto &[v, c] : a.coef) {
    LExprPtr term = c == 1 ? build::var(v) : build::binary(BinOp::Mul, build::integer(c), build::var(v));
    e = e ? build::binary(BinOp::Add, e, term) : term;
  }
  if (!e) return build::integer(a.k);
  if (a.k > 0) return build::binary(BinOp::Add, e, build::integer(a.k));
  if (a.k < 0) return build::binary(BinOp::Sub, e, build::integer(-a.k));
  return e;
}

/// One run-time check `f >= 0` is its affine function f.
using Check = Affine;

std::string key_of(const Affine &a) {
  std::string k;
  for (const auto &[v, c] : a.coef) k += v + "*" + std::to_string(c) + " ";
  return k;
}

constexpr std::size_t kMaxVersions = 3;  ///< copies of a tile, the guarded one included

class Versioner {
public:
  explicit Versioner(const LKernel &k) {
    for (const auto *list : {&k.arrays, &k.locals})
      for (const LArray &a : *list) shapes_[a.name] = a.shape;
  }

  VersionGuardsResult result;

  LStmtPtr stmt(const LStmtPtr &s) {
    if (!s) return s;
    switch (s->kind) {
    case LStmtKind::Block: {
      auto c = std::make_shared<LStmt>(*s);
      for (LStmtPtr &b : c->body) b = stmt(b);
      return c;
    }
    case LStmtKind::If: {
      auto c = std::make_shared<LStmt>(*s);
      c->then_body = stmt(s->then_body);
      c->else_body = stmt(s->else_body);
      return c;
    }
    case LStmtKind::Store: return s;
    case LStmtKind::For: break;
    }
    auto c = std::make_shared<LStmt>(*s);
    outer_[s->iterator] = range_of(*s, static_cast<int>(outer_.size()));
    bool tile = !marked(*s) && has_guard(*s) && straight(*s) && has_loop(*s);
    if (tile && !c->body.empty()) {
      LStmtPtr versioned = version(*s);
      if (versioned) c->body = {build::block({versioned})};
    } else {
      for (LStmtPtr &b : c->body) b = stmt(b);
    }
    outer_.erase(s->iterator);
    return c;
  }

private:
  std::map<std::string, SymShape> shapes_;
  std::map<std::string, Range> outer_;  // the enclosing loops, by iterator

  static bool marked(const LStmt &s) { return s.marks.count(mark::kUnroll) || s.marks.count(mark::kVector); }

  static bool expr_has_guard(const LExprPtr &e) {
    if (!e) return false;
    if (e->kind == LExprKind::GuardedLoad) return true;
    return std::any_of(e->args.begin(), e->args.end(), expr_has_guard);
  }
  static bool has_guard(const LStmt &s) {
    if (expr_has_guard(s.value) || expr_has_guard(s.cond) || expr_has_guard(s.init)) return true;
    for (const LExprPtr &i : s.indices)
      if (expr_has_guard(i)) return true;
    for (const auto *b : {&s.then_body, &s.else_body})
      if (*b && has_guard(**b)) return true;
    return std::any_of(s.body.begin(), s.body.end(), [](const LStmtPtr &b) { return b && has_guard(*b); });
  }
  /// A loop below `s` (a point's own statement is not worth a check).
  static bool has_loop(const LStmt &s) {
    for (const LStmtPtr &b : s.body)
      if (b && (b->kind == LStmtKind::For || has_loop(*b))) return true;
    for (const auto *b : {&s.then_body, &s.else_body})
      if (*b && has_loop(**b)) return true;
    return false;
  }
  /// Every loop below `s` is unrolled or a vector loop.
  static bool straight(const LStmt &s) {
    for (const LStmtPtr &b : s.body)
      if (b && ((b->kind == LStmtKind::For && !marked(*b)) || !straight(*b))) return false;
    for (const auto *b : {&s.then_body, &s.else_body})
      if (*b && !straight(**b)) return false;
    return true;
  }

  /// The guarded loads of the tile body, with the ranges of its loops.
  struct Guarded {
    const LExpr *load;
    std::map<std::string, Range> inner;
  };
  void collect(const LExprPtr &e, const std::map<std::string, Range> &inner, std::vector<Guarded> &out) {
    if (!e) return;
    if (e->kind == LExprKind::GuardedLoad) out.push_back({e.get(), inner});
    for (const LExprPtr &a : e->args) collect(a, inner, out);
  }
  void collect(const LStmt &s, std::map<std::string, Range> &inner, int depth, std::vector<Guarded> &out) {
    if (s.kind == LStmtKind::For) {
      collect(s.init, inner, out);
      inner[s.iterator] = range_of(s, depth);
      collect(s.cond, inner, out);
    }
    collect(s.value, inner, out);
    for (const LExprPtr &i : s.indices) collect(i, inner, out);
    if (s.kind == LStmtKind::If) collect(s.cond, inner, out);
    for (const LStmtPtr &b : s.body)
      if (b) collect(*b, inner, depth + (s.kind == LStmtKind::For ? 1 : 0), out);
    if (s.then_body) collect(*s.then_body, inner, depth, out);
    if (s.else_body) collect(*s.else_body, inner, depth, out);
    if (s.kind == LStmtKind::For) inner.erase(s.iterator);
  }

  /// The checks that put every subscript of `g` within its array; nothing
  /// when a subscript or a range is not affine.
  std::optional<std::vector<Check>> checks_of(const Guarded &g) {
    const LExpr &ld = *g.load->args[0];
    auto shape = shapes_.find(ld.name);
    if (shape == shapes_.end() || shape->second.size() != ld.args.size()) return std::nullopt;
    std::vector<Check> out;
    for (std::size_t d = 0; d < ld.args.size(); ++d) {
      auto f = affine(*ld.args[d]);
      if (!f) return std::nullopt;
      auto lo = extreme(*f, g.inner, true), hi = extreme(*f, g.inner, false);
      if (!lo || !hi) return std::nullopt;
      const Dim &ext = shape->second[d];
      Affine limit;  // extent - 1 - hi >= 0
      if (ext.is_symbolic()) limit.coef[ext.symbol] = 1;
      else limit.k = ext.value;
      limit.k -= 1;
      out.push_back(*lo);
      out.push_back(limit.plus(hi->scaled(-1)));
    }
    return out;
  }

  /// Whether `c` holds for every iteration of the enclosing loops (true),
  /// for none (false), or depends on them.
  std::optional<bool> always(const Check &c) {
    auto least = extreme(c, outer_, true);
    if (least && least->constant() && least->k >= 0) return true;
    auto most = extreme(c, outer_, false);
    if (most && most->constant() && most->k < 0) return false;
    return std::nullopt;
  }

  LExprPtr unguard(const LExprPtr &e, const std::set<const LExpr *> &safe) {
    if (!e) return e;
    if (e->kind == LExprKind::GuardedLoad && safe.count(e.get())) return unguard(e->args[0], safe);
    bool changed = false;
    std::vector<LExprPtr> args;
    for (const LExprPtr &a : e->args) {
      args.push_back(unguard(a, safe));
      changed |= args.back() != a;
    }
    if (!changed) return e;
    auto c = std::make_shared<LExpr>(*e);
    c->args = std::move(args);
    return c;
  }
  LStmtPtr unguard(const LStmtPtr &s, const std::set<const LExpr *> &safe) {
    if (!s) return s;
    auto c = std::make_shared<LStmt>(*s);
    c->value = unguard(s->value, safe);
    c->cond = unguard(s->cond, safe);
    c->init = unguard(s->init, safe);
    for (LExprPtr &i : c->indices) i = unguard(i, safe);
    for (LStmtPtr &b : c->body) b = unguard(b, safe);
    c->then_body = unguard(s->then_body, safe);
    c->else_body = unguard(s->else_body, safe);
    return c;
  }

  /// The body of tile loop `s` as `if (checks) plain else guarded`, or null.
  /// With at most three distinct checks, the tiles that fail some of them
  /// (an image's top rows) get a version of their own too, each without the
  /// guards of the reads that the checks it passes cover: at most
  /// kMaxVersions copies of the tile in all.
  LStmtPtr version(const LStmt &s) {
    std::vector<Guarded> guarded;
    std::map<std::string, Range> inner;
    for (const LStmtPtr &b : s.body)
      if (b) collect(*b, inner, static_cast<int>(outer_.size()), guarded);
    // Per distinct variable part, the strictest constant; per read, the
    // checks it needs.
    std::map<std::string, Check> strictest;
    std::vector<std::pair<const LExpr *, std::set<std::string>>> needs;
    for (const Guarded &g : guarded) {
      auto cs = checks_of(g);
      if (!cs) continue;
      bool never = false;
      std::set<std::string> keys;
      for (const Check &c : *cs) {
        std::optional<bool> a = always(c);
        if (a && !*a) never = true;
        if (a) continue;
        std::string k = key_of(c);
        keys.insert(k);
        auto it = strictest.find(k);
        if (it == strictest.end() || c.k < it->second.k) strictest[k] = c;
      }
      if (!never) needs.emplace_back(g.load, keys);  // else out of bounds in every tile: guarded
    }
    if (needs.empty()) return nullptr;
    std::vector<std::string> keys;
    for (const auto &[k, c] : strictest) keys.push_back(k);
    // The versions: subsets of the checks, most checks first.
    std::vector<std::vector<std::string>> subsets;
    if (keys.size() <= 3) {
      for (unsigned m = (1u << keys.size()) - 1; m > 0; --m) {
        std::vector<std::string> sub;
        for (std::size_t i = 0; i < keys.size(); ++i)
          if (m & (1u << i)) sub.push_back(keys[i]);
        subsets.push_back(sub);
      }
      std::stable_sort(subsets.begin(), subsets.end(), [](const auto &a, const auto &b) { return a.size() > b.size(); });
    } else {
      subsets.push_back(keys);
    }
    if (keys.empty()) subsets.push_back({});
    auto safe_of = [&](const std::vector<std::string> &sub) {
      std::set<const LExpr *> safe;
      for (const auto &[load, need] : needs)
        if (std::includes(sub.begin(), sub.end(), need.begin(), need.end())) safe.insert(load);
      return safe;
    };
    // A version is kept when fewer checks do not unguard the same reads.
    std::vector<std::pair<std::vector<std::string>, std::set<const LExpr *>>> versions;
    for (const auto &sub : subsets) {
      std::set<const LExpr *> safe = safe_of(sub);
      if (safe.empty()) continue;
      bool redundant = false;
      for (const auto &other : subsets)
        if (other.size() < sub.size() && std::includes(sub.begin(), sub.end(), other.begin(), other.end()) &&
            safe_of(other) == safe)
          redundant = true;
      if (!redundant) versions.emplace_back(sub, safe);
      if (versions.size() + 1 >= kMaxVersions) break;
    }
    if (versions.empty()) return nullptr;
    LStmtPtr body = s.body.size() == 1 ? s.body.front() : build::block(s.body);
    ++result.tiles;
    result.loads += static_cast<int>(versions.front().second.size());
    if (versions.front().first.empty()) return unguard(body, versions.front().second);  // in bounds everywhere
    LStmtPtr chain = body;
    for (auto v = versions.rbegin(); v != versions.rend(); ++v) {
      LExprPtr cond;
      for (const std::string &k : v->first) {
        Affine rest = strictest.at(k);
        std::int64_t bound = -rest.k;  // rest >= -k
        rest.k = 0;
        LExprPtr test = build::binary(BinOp::Ge, to_expr(rest), build::integer(bound));
        cond = cond ? build::binary(BinOp::And, cond, test) : test;
      }
      chain = build::branch(cond, unguard(body, v->second), chain);
    }
    return chain;
  }
};

}  // namespace

VersionGuardsResult version_guards(LKernel &kernel) {
  Versioner v(kernel);
  kernel.body = v.stmt(kernel.body);
  return v.result;
}

}  // namespace atl::poly
