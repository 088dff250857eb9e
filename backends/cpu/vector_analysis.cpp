// Linear index forms, constant trip counts and the vector-form test of kVector loops.
#include "backends/cpu/vector_analysis.h"

#include "backends/cpu/kernel_info.h"
#include "backends/cpu/lower_shuffles.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace atl::cpu {

namespace {

using compute::BinOp;
using poly::LExpr;
using poly::LExprKind;
using poly::LStmt;
using poly::LStmtKind;
using poly::LType;

/// sum(coeff * var) + constant.
struct Linear {
  std::map<std::string, std::int64_t> terms;
  std::int64_t constant = 0;
};

std::optional<Linear> linear(const LExpr &e) {
  if (e.type != LType::Index) return std::nullopt;
  switch (e.kind) {
  case LExprKind::Int: return Linear{{}, e.ival};
  case LExprKind::Var: return Linear{{{e.name, 1}}, 0};
  case LExprKind::Unary: {
    if (e.unop != compute::UnOp::Neg) return std::nullopt;
    auto a = linear(*e.args[0]);
    if (!a) return std::nullopt;
    for (auto &[v, c] : a->terms) c = -c;
    a->constant = -a->constant;
    return a;
  }
  case LExprKind::Binary: {
    auto a = linear(*e.args[0]), b = linear(*e.args[1]);
    if (!a || !b) return std::nullopt;
    if (e.binop == BinOp::Add || e.binop == BinOp::Sub) {
      std::int64_t sign = e.binop == BinOp::Add ? 1 : -1;
      for (auto &[v, c] : b->terms) a->terms[v] += sign * c;
      a->constant += sign * b->constant;
      return a;
    }
    if (e.binop == BinOp::Mul) {
      if (!a->terms.empty() && !b->terms.empty()) return std::nullopt;
      if (!a->terms.empty()) std::swap(a, b);
      for (auto &[v, c] : b->terms) c *= a->constant;
      b->constant *= a->constant;
      return b;
    }
    return std::nullopt;
  }
  case LExprKind::Float: case LExprKind::Min: case LExprKind::Max: case LExprKind::Select: case LExprKind::Call:
  case LExprKind::Load: case LExprKind::GuardedLoad: case LExprKind::ToValue: case LExprKind::ToIndex:
    return std::nullopt;
  }
  return std::nullopt;
}

bool mentions(const LExpr &e, const std::string &v) {
  if (e.kind == LExprKind::Var && e.name == v) return true;
  for (const auto &a : e.args)
    if (mentions(*a, v)) return true;
  return false;
}

bool invariant(const LExpr &e, const std::string &it) { return !mentions(e, it); }

/// Subscripts constant along `it` except the last, which moves by one (stride 1),
/// or every subscript constant (`allow_invariant`).
bool contiguous(const std::vector<poly::LExprPtr> &idx, const std::string &it, bool allow_invariant) {
  if (idx.empty()) return allow_invariant;
  for (std::size_t d = 0; d + 1 < idx.size(); ++d)
    if (!invariant(*idx[d], it)) return false;
  if (invariant(*idx.back(), it)) return allow_invariant;
  auto c = coefficient(*idx.back(), it);
  return c && *c == 1;
}

/// Subscripts constant along `it` except the last, which moves by a constant
/// 1..kMaxVectorLoadStride (wide loads and a shuffle), or every subscript constant.
bool loadable(const std::vector<poly::LExprPtr> &idx, const std::string &it) {
  if (idx.empty()) return true;
  for (std::size_t d = 0; d + 1 < idx.size(); ++d)
    if (!invariant(*idx[d], it)) return false;
  auto c = coefficient(*idx.back(), it);
  return c && *c >= 0 && *c <= kMaxVectorLoadStride;
}

bool value_ok(const poly::LKernel &k, const LExpr &e, const std::string &it) {
  if (e.type == LType::Index) return invariant(e, it);
  switch (e.kind) {
  case LExprKind::Float: return true;
  case LExprKind::Unary: return e.unop == compute::UnOp::Neg && value_ok(k, *e.args[0], it);
  case LExprKind::Binary:
    if (e.binop != BinOp::Add && e.binop != BinOp::Sub && e.binop != BinOp::Mul && e.binop != BinOp::Div) return false;
    return value_ok(k, *e.args[0], it) && value_ok(k, *e.args[1], it);
  case LExprKind::Min: case LExprKind::Max:
    return value_ok(k, *e.args[0], it) && value_ok(k, *e.args[1], it);
  case LExprKind::Call:
    switch (e.func) {
    case compute::Func::Exp: case compute::Func::Log: case compute::Func::Sqrt: case compute::Func::Abs:
    case compute::Func::Floor: case compute::Func::Pow: case compute::Func::Sigmoid: case compute::Func::Min:
    case compute::Func::Max: case compute::Func::Tanh: case compute::Func::Erf:
      for (const auto &a : e.args)
        if (!value_ok(k, *a, it)) return false;
      return true;
    // libm calls, one element at a time
    case compute::Func::Sin: case compute::Func::Cos: case compute::Func::Tan: case compute::Func::Asin:
    case compute::Func::Acos: case compute::Func::Atan: case compute::Func::Sinh: case compute::Func::Cosh:
    case compute::Func::Asinh: case compute::Func::Acosh: case compute::Func::Atanh:
      return false;
    }
    return false;
  case LExprKind::Load: {
    const poly::LArray *a = find_array(k, e.name);
    return a && a->dtype == DType::F32 && loadable(e.args, it);
  }
  case LExprKind::ToValue: return invariant(*e.args[0], it);
  case LExprKind::GuardedLoad: {
    // Padding: a masked vector load (lanes outside the array take the fallback).
    const LExpr &ld = *e.args[0];
    const poly::LArray *a = find_array(k, ld.name);
    return a && a->dtype == DType::F32 && loadable(ld.args, it) && value_ok(k, *e.args[1], it);
  }
  case LExprKind::Select: case LExprKind::ToIndex: case LExprKind::Int:
  case LExprKind::Var: return false;
  }
  return false;
}

bool body_ok(const poly::LKernel &k, const LStmt &s, const std::string &it) {
  switch (s.kind) {
  case LStmtKind::Block:
    for (const auto &b : s.body)
      if (b && !body_ok(k, *b, it)) return false;
    return true;
  case LStmtKind::Store: {
    const poly::LArray *a = find_array(k, s.array);
    return a && a->dtype == DType::F32 && contiguous(s.indices, it, false) && value_ok(k, *s.value, it);
  }
  case LStmtKind::For: case LStmtKind::If: return false;
  }
  return false;
}

/// Arrays read anywhere in `e`.
void loaded(const LExpr &e, std::set<std::string> &out) {
  if (e.kind == LExprKind::Load) out.insert(e.name);
  for (const auto &a : e.args) loaded(*a, out);
}

/// What a vector reduction loop's body touches (vector_reductions).
struct ReductionBody {
  const poly::LKernel &k;
  const std::string &it;
  VectorReductionForm form;
  std::map<std::string, int> stores;        ///< stores per array (peeled conditions apart)
  std::set<std::string> read;               ///< arrays read (peeled conditions apart)
  std::set<std::string> peel_written, peel_read;

  /// Collects a straight-line body: false on a loop, a condition that cannot
  /// be peeled or a store without a vector form.
  bool collect(const LStmt &s) {
    switch (s.kind) {
    case LStmtKind::Block:
      for (const auto &b : s.body)
        if (b && !collect(*b)) return false;
      return true;
    case LStmtKind::Store: {
      const poly::LArray *a = find_array(k, s.array);
      if (!a || a->dtype != DType::F32 || !value_ok(k, *s.value, it)) return false;
      bool fixed = true;
      for (const auto &i : s.indices)
        if (!invariant(*i, it)) fixed = false;
      if (fixed) {
        if (s.op == compute::AssignOp::Assign) return false;
        form.reductions.push_back(&s);
      } else if (!contiguous(s.indices, it, false)) {
        return false;
      }
      ++stores[s.array];
      loaded(*s.value, read);
      for (const auto &i : s.indices) loaded(*i, read);
      return true;
    }
    case LStmtKind::If:
      if (!peelable(s)) return false;
      form.peeled.push_back(&s);
      return true;
    case LStmtKind::For: return false;
    }
    return false;
  }

  /// if (it == e) { stores that do not depend on it }.
  bool peelable(const LStmt &s) {
    const LExpr &c = *s.cond;
    if (s.else_body || !s.then_body || c.kind != LExprKind::Binary || c.binop != BinOp::Eq) return false;
    const LExpr &l = *c.args[0], &r = *c.args[1];
    bool is_it_l = l.kind == LExprKind::Var && l.name == it, is_it_r = r.kind == LExprKind::Var && r.name == it;
    if (!((is_it_l && r.type == LType::Index && invariant(r, it)) || (is_it_r && l.type == LType::Index && invariant(l, it))))
      return false;
    return peeled_stores(*s.then_body);
  }

  bool peeled_stores(const LStmt &s) {
    if (s.kind == LStmtKind::Block) {
      for (const auto &b : s.body)
        if (b && !peeled_stores(*b)) return false;
      return true;
    }
    if (s.kind != LStmtKind::Store || !invariant(*s.value, it)) return false;
    for (const auto &i : s.indices)
      if (!invariant(*i, it)) return false;
    peel_written.insert(s.array);
    loaded(*s.value, peel_read);
    for (const auto &i : s.indices) loaded(*i, peel_read);
    return true;
  }

  /// Reductions own their arrays; peeled stores commute with the rest of the body.
  bool independent() {
    for (const LStmt *r : form.reductions)
      if (stores[r->array] != 1 || read.count(r->array) || peel_written.count(r->array) || peel_read.count(r->array))
        return false;
    for (const std::string &a : peel_written)
      if (stores.count(a) || read.count(a)) return false;
    for (const std::string &a : peel_read)
      if (stores.count(a)) return false;
    return true;
  }
};

/// The last statement touching each array, in program order (null: a loop
/// bound or a condition).
void last_touch(const LStmt &s, std::map<std::string, const LStmt *> &last) {
  std::set<std::string> read;
  switch (s.kind) {
  case LStmtKind::Block:
    for (const auto &b : s.body)
      if (b) last_touch(*b, last);
    return;
  case LStmtKind::For:
    if (s.init) loaded(*s.init, read);
    if (s.cond) loaded(*s.cond, read);
    for (const std::string &a : read) last[a] = nullptr;
    for (const auto &b : s.body)
      if (b) last_touch(*b, last);
    return;
  case LStmtKind::If:
    loaded(*s.cond, read);
    for (const std::string &a : read) last[a] = nullptr;
    if (s.then_body) last_touch(*s.then_body, last);
    if (s.else_body) last_touch(*s.else_body, last);
    return;
  case LStmtKind::Store:
    loaded(*s.value, read);
    for (const auto &i : s.indices) loaded(*i, read);
    for (const std::string &a : read) last[a] = &s;
    last[s.array] = &s;
    return;
  }
}

struct StraightLine {
  const poly::LKernel &k;
  std::int64_t lanes, max_unroll;
  std::vector<std::string> outer;  ///< iterators the store addresses must not depend on
  std::set<std::string> written, read;
  std::vector<std::string> inner;  ///< iterators of the enclosing unrolled loops
  int stores = 0;
  bool long_loop = true;  ///< the promoted loop keeps masked accumulators (long_promoted_loop)

  /// Values (accumulators) one execution of `s` produces, or -1 when not straight-line.
  std::int64_t count(const LStmt &s) {
    switch (s.kind) {
    case LStmtKind::Block: {
      std::int64_t n = 0;
      for (const auto &b : s.body) {
        if (!b) continue;
        std::int64_t c = count(*b);
        if (c < 0) return -1;
        n += c;
      }
      return n;
    }
    case LStmtKind::Store: {
      const poly::LArray *a = find_array(k, s.array);
      if (!a || a->dtype != DType::F32 || s.op == compute::AssignOp::Assign) return -1;
      for (const auto &i : s.indices)
        for (const std::string &it : outer)
          if (mentions(*i, it)) return -1;
      // Distinct instances must write distinct elements (one accumulator
      // each): every unrolled iterator owns a subscript it moves linearly.
      if (++stores > 1) return -1;
      for (const std::string &it : inner) {
        bool owns = false;
        for (const auto &i : s.indices) {
          auto c = coefficient(*i, it);
          bool alone = true;
          for (const std::string &other : inner)
            if (other != it && mentions(*i, other)) alone = false;
          if (c && *c != 0 && alone) owns = true;
        }
        if (!owns) return -1;
      }
      written.insert(s.array);
      loaded(*s.value, read);
      for (const auto &i : s.indices) loaded(*i, read);
      return 1;
    }
    case LStmtKind::If: return -1;
    case LStmtKind::For: {
      if (s.marks.count(poly::mark::kParallel) || !loop_upper_bound(s)) return -1;
      auto trip = constant_trip_count(s);
      if (!trip) return -1;
      std::int64_t per = 0;
      if (lanes > 1 && has_vector_form(k, s)) {
        if (*trip / lanes > max_unroll || *trip % lanes > max_unroll) return -1;
        per = vector_pieces(lanes, *trip, long_loop);
      } else if (s.marks.count(poly::mark::kUnroll) && *trip <= max_unroll) {
        per = *trip;
      } else {
        return -1;
      }
      std::int64_t sum = 0;
      inner.push_back(s.iterator);
      for (const auto &b : s.body) {
        if (!b) continue;
        std::int64_t c = count(*b);
        if (c < 0) return -1;
        sum += c;
      }
      inner.pop_back();
      return per * sum;
    }
    }
    return -1;
  }
};

}  // namespace

bool long_promoted_loop(const LStmt &loop) {
  std::optional<std::int64_t> trip = constant_trip_count(loop);
  return !trip || *trip >= 16;
}

std::set<std::string> promotable_accumulators(const poly::LKernel &k, const LStmt &loop, std::int64_t lanes,
                                              std::int64_t max_unroll, std::int64_t max_accumulators) {
  if (loop.kind != LStmtKind::For || !loop.marks.count(poly::mark::kReduction) ||
      loop.marks.count(poly::mark::kParallel) || !loop_upper_bound(loop) || loop.step <= 0)
    return {};
  StraightLine sl{k, lanes, max_unroll, {loop.iterator}, {}, {}, {}, 0, long_promoted_loop(loop)};
  std::int64_t n = 0;
  for (const auto &b : loop.body) {
    if (!b) continue;
    std::int64_t c = sl.count(*b);
    if (c < 0) return {};
    n += c;
  }
  if (n == 0 || n > max_accumulators) return {};
  for (const std::string &a : sl.written)
    if (sl.read.count(a)) return {};
  return sl.written;
}

VectorReductionForm vector_reductions(const poly::LKernel &k, const LStmt &loop) {
  if (loop.kind != LStmtKind::For || loop.step != 1 || !loop.marks.count(poly::mark::kReduction) ||
      loop.marks.count(poly::mark::kParallel) || !loop_upper_bound(loop) || !uses_float_values(k))
    return {};
  ReductionBody body{k, loop.iterator, {}, {}, {}, {}, {}};
  for (const auto &b : loop.body)
    if (b && !body.collect(*b)) return {};
  if (body.form.reductions.empty() || !body.independent()) return {};
  return body.form;
}

std::set<const LStmt *> streaming_stores(const poly::LKernel &k, std::int64_t min_bytes) {
  std::map<std::string, const LStmt *> last;
  if (k.body) last_touch(*k.body, last);
  std::set<const LStmt *> out;
  for (const poly::LArray &a : k.arrays) {
    if (a.role != poly::LArray::Role::Output || a.dtype != DType::F32) continue;
    std::int64_t bytes = 4;
    bool constant = true;
    for (const Dim &d : a.shape) {
      if (d.is_symbolic()) constant = false;
      else bytes *= d.value;
    }
    auto it = last.find(a.name);
    if (constant && bytes >= min_bytes && it != last.end() && it->second && it->second->array == a.name)
      out.insert(it->second);
  }
  return out;
}

namespace {

/// Every store and every array read in `s` (indices, values, bounds, conditions).
void touches(const LStmt &s, std::vector<const LStmt *> &stores, std::set<std::string> &read) {
  std::function<void(const LExpr &)> expr = [&](const LExpr &e) {
    if (e.kind == LExprKind::Load) read.insert(e.name);
    for (const auto &a : e.args) expr(*a);
  };
  if (s.init) expr(*s.init);
  if (s.cond) expr(*s.cond);
  if (s.value) expr(*s.value);
  for (const auto &i : s.indices) expr(*i);
  if (s.kind == LStmtKind::Store) stores.push_back(&s);
  for (const auto &b : s.body)
    if (b) touches(*b, stores, read);
  if (s.then_body) touches(*s.then_body, stores, read);
  if (s.else_body) touches(*s.else_body, stores, read);
}

/// The statements of a block, nested blocks flattened.
void direct(const LStmt &s, std::vector<const LStmt *> &out) {
  if (s.kind != LStmtKind::Block) return out.push_back(&s);
  for (const auto &b : s.body)
    if (b) direct(*b, out);
}

bool same_subscripts(const LStmt &a, const LStmt &b) {
  if (a.indices.size() != b.indices.size()) return false;
  for (std::size_t d = 0; d < a.indices.size(); ++d)
    if (!poly::same_expr(*a.indices[d], *b.indices[d])) return false;
  return true;
}

}  // namespace

std::set<const LStmt *> deferrable_folds(const poly::LKernel &k, const LStmt &u) {
  std::set<const LStmt *> out;
  if (u.kind != LStmtKind::For) return out;
  std::vector<const LStmt *> items;
  for (const auto &b : u.body)
    if (b) direct(*b, items);
  std::vector<const LStmt *> stores;
  std::set<std::string> read;
  touches(u, stores, read);
  // Candidate loops and the reduction store of each array.
  std::map<std::string, int> loops_into;
  std::vector<std::pair<const LStmt *, std::vector<const LStmt *>>> candidates;
  for (const LStmt *s : items) {
    if (s->kind != LStmtKind::For) continue;
    VectorReductionForm f = vector_reductions(k, *s);
    if (f.reductions.empty()) continue;
    candidates.push_back({s, f.reductions});
    for (const LStmt *r : f.reductions) ++loops_into[r->array];
  }
  auto position = [&](const LStmt *s) { return std::find(items.begin(), items.end(), s) - items.begin(); };
  // An initialisation before the loop: the deferred fold then combines into it.
  auto array_ok = [&](const LStmt *loop, const LStmt &r) {
    if (loops_into[r.array] != 1 || read.count(r.array)) return false;
    bool moves = false;
    for (const auto &i : r.indices) {
      std::optional<std::int64_t> c = coefficient(*i, u.iterator);
      if (!c) return false;
      moves = moves || *c != 0;
    }
    if (!moves) return false;
    for (const LStmt *s : stores) {
      if (s->array != r.array || s == &r) continue;
      bool init = s->op == compute::AssignOp::Assign && position(s) < position(loop) && same_subscripts(*s, r);
      if (!init) return false;
    }
    return true;
  };
  for (const auto &[loop, reductions] : candidates)
    if (std::all_of(reductions.begin(), reductions.end(), [&](const LStmt *r) { return array_ok(loop, *r); }))
      out.insert(loop);
  return out;
}

std::optional<NextPanelTile> next_panel_tile(const std::vector<const LStmt *> &loops, const LExpr &load) {
  if (loops.empty()) return std::nullopt;
  const std::size_t k = loops.size() - 1;
  // The subscripts' change when loops[l] advances one step, the loops inside
  // it starting where they then start.
  auto deltas = [&](std::size_t l) -> std::optional<std::vector<std::int64_t>> {
    std::map<std::string, std::int64_t> shift{{loops[l]->iterator, loops[l]->step}};
    for (std::size_t j = l + 1; j <= k; ++j) {
      if (!loops[j]->init) return std::nullopt;
      std::optional<std::int64_t> c = coefficient(*loops[j]->init, loops[l]->iterator);
      if (!c) return std::nullopt;
      if (*c != 0) shift[loops[j]->iterator] = *c * loops[l]->step;
    }
    std::vector<std::int64_t> d;
    for (std::size_t i = 0; i + 1 < load.args.size(); ++i) {
      const LExpr *a = load.args[i].get();
      std::int64_t sum = 0;
      for (const auto &[v, by] : shift) {
        std::optional<std::int64_t> c = coefficient(*a, v);
        if (!c) return std::nullopt;
        sum += *c * by;
      }
      d.push_back(sum);
    }
    return d;
  };
  auto moves = [](const std::vector<std::int64_t> &d) {
    return std::any_of(d.begin(), d.end(), [](std::int64_t x) { return x != 0; });
  };
  NextPanelTile next;
  for (std::size_t l = k; l-- > 0;) {
    std::optional<std::vector<std::int64_t>> d = deltas(l);
    if (!d) return std::nullopt;
    if (!next.rows) {
      if (!moves(*d)) next.rows = loops[l];
    } else if (moves(*d)) {
      next.delta = *d;
      return next;
    }
  }
  return std::nullopt;
}

std::optional<std::int64_t> coefficient(const LExpr &e, const std::string &it) {
  if (invariant(e, it)) return 0;
  auto l = linear(e);
  if (!l) return std::nullopt;
  auto f = l->terms.find(it);
  return f == l->terms.end() ? 0 : f->second;
}

std::optional<std::int64_t> constant_difference(const LExpr &a, const LExpr &b) {
  auto la = linear(a), lb = linear(b);
  if (!la || !lb) return std::nullopt;
  for (auto &[v, c] : la->terms) lb->terms[v] -= c;
  for (auto &[v, c] : lb->terms)
    if (c != 0) return std::nullopt;
  return lb->constant - la->constant;
}

std::optional<std::int64_t> constant_trip_count(const LStmt &loop) {
  auto ub = loop_upper_bound(loop);
  if (!ub || !loop.init) return std::nullopt;
  auto d = constant_difference(*loop.init, *ub->bound);
  if (!d) return std::nullopt;
  std::int64_t span = *d + (ub->inclusive ? 1 : 0);
  if (span <= 0) return 0;
  return (span + loop.step - 1) / loop.step;
}

bool has_vector_form(const poly::LKernel &k, const LStmt &loop) {
  if (loop.kind != LStmtKind::For || loop.step != 1 || !loop.marks.count(poly::mark::kVector)) return false;
  if (!uses_float_values(k)) return false;
  for (const auto &b : loop.body)
    if (!b || !body_ok(k, *b, loop.iterator)) return false;
  return true;
}

}  // namespace atl::cpu
