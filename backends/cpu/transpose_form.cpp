// Recognises copy nests whose inner block is a square transpose (see transpose_form.h).
#include "backends/cpu/transpose_form.h"

#include "backends/cpu/kernel_info.h"
#include "backends/cpu/vector_analysis.h"

#include <algorithm>
#include <set>
#include <string>

namespace atl::cpu {

namespace {

using poly::LExpr;
using poly::LExprKind;
using poly::LStmt;
using poly::LStmtKind;

/// The one statement of a body (through blocks of one statement), or null.
const LStmt *only(const LStmt &s) {
  if (s.kind != LStmtKind::Block) return &s;
  const LStmt *found = nullptr;
  for (const auto &b : s.body) {
    if (!b) continue;
    if (found) return nullptr;
    found = b.get();
  }
  return found ? only(*found) : nullptr;
}

const LStmt *loop_body(const LStmt &loop) {
  const LStmt *found = nullptr;
  for (const auto &b : loop.body) {
    if (!b) continue;
    if (found) return nullptr;
    found = b.get();
  }
  return found ? only(*found) : nullptr;
}

bool mentions(const LExpr &e, const std::string &v) {
  if (e.kind == LExprKind::Var && e.name == v) return true;
  for (const auto &a : e.args)
    if (mentions(*a, v)) return true;
  return false;
}

bool has_load(const LExpr &e) {
  if (e.kind == LExprKind::Load || e.kind == LExprKind::GuardedLoad) return true;
  for (const auto &a : e.args)
    if (has_load(*a)) return true;
  return false;
}

/// Elements the row-major offset of `idx` into `a` moves when `it` grows by
/// one; nullopt when not linear in it or a needed extent is symbolic.
std::optional<std::int64_t> flat_coefficient(const poly::LArray &a, const std::vector<poly::LExprPtr> &idx,
                                             const std::string &it) {
  std::int64_t total = 0, stride = 1;
  for (std::size_t d = idx.size(); d-- > 0;) {
    auto c = coefficient(*idx[d], it);
    if (!c) return std::nullopt;
    total += *c * stride;
    if (d == 0) break;
    const Dim &ext = a.shape[d];
    if (ext.is_symbolic()) {
      // Only the dimensions left of a moving one need their extents.
      for (std::size_t e = 0; e < d; ++e)
        if (coefficient(*idx[e], it) != 0) return std::nullopt;
      return total;
    }
    stride *= ext.value;
  }
  return total;
}

bool plain_loop(const LStmt &s) {
  return s.kind == LStmtKind::For && s.step > 0 && s.init && s.cond && s.locals.empty() &&
         !s.marks.count(poly::mark::kParallel);
}

}  // namespace

std::optional<TransposeForm> transpose_form(const poly::LKernel &k, const LStmt &loop, std::int64_t lanes) {
  if (lanes < 2 || (lanes & (lanes - 1)) != 0 || !uses_float_values(k)) return std::nullopt;
  if (!plain_loop(loop) || loop.step != 1 || !loop_upper_bound(loop)) return std::nullopt;
  auto trip = constant_trip_count(loop);
  if (!trip || *trip <= 0 || *trip % lanes != 0) return std::nullopt;
  TransposeForm f;
  f.outer = &loop;
  f.trip = *trip;
  const std::string &l = loop.iterator;
  std::vector<std::string> iterators = {l};
  const LStmt *s = loop_body(loop);
  while (s && s->kind == LStmtKind::For && !s->marks.count(poly::mark::kVector)) {
    if (!plain_loop(*s) || mentions(*s->init, l) || mentions(*s->cond, l)) return std::nullopt;
    f.middle.push_back(s);
    iterators.push_back(s->iterator);
    s = loop_body(*s);
  }
  if (!s || s->kind != LStmtKind::For || !plain_loop(*s) || s->step != 1 || !loop_upper_bound(*s)) return std::nullopt;
  if (mentions(*s->init, l) || mentions(*s->cond, l) || !s->marks.count(poly::mark::kVector)) return std::nullopt;
  f.inner = s;
  const std::string &w = s->iterator;
  iterators.push_back(w);
  const LStmt *st = loop_body(*s);
  if (!st || st->kind != LStmtKind::Store || st->op != compute::AssignOp::Assign) return std::nullopt;
  if (st->value->kind != LExprKind::Load || st->value->name == st->array) return std::nullopt;
  f.store = st;
  const poly::LArray *x = find_array(k, st->value->name), *y = find_array(k, st->array);
  if (!x || !y || x->dtype != DType::F32 || y->dtype != DType::F32) return std::nullopt;
  const std::vector<poly::LExprPtr> &xi = st->value->args, &yi = st->indices;
  if (xi.size() != x->shape.size() || yi.size() != y->shape.size() || yi.empty()) return std::nullopt;
  for (const auto &e : xi)
    if (has_load(*e)) return std::nullopt;
  for (const auto &e : yi)
    if (has_load(*e)) return std::nullopt;
  std::optional<std::int64_t> row_stride = flat_coefficient(*x, xi, w);
  if (!row_stride || *row_stride < lanes || flat_coefficient(*x, xi, l) != 1) return std::nullopt;
  f.row_stride = *row_stride;
  // Y: w moves only the last subscript, by one; each iterator owns one subscript.
  if (coefficient(*yi.back(), w) != 1) return std::nullopt;
  for (std::size_t d = 0; d + 1 < yi.size(); ++d)
    if (mentions(*yi[d], w)) return std::nullopt;
  std::set<std::size_t> owned;
  for (const std::string &it : iterators) {
    std::size_t found = yi.size();
    for (std::size_t d = 0; d < yi.size(); ++d) {
      if (!mentions(*yi[d], it)) continue;
      auto c = coefficient(*yi[d], it);
      if (found != yi.size() || !c || *c == 0) return std::nullopt;
      found = d;
    }
    if (found == yi.size() || !owned.insert(found).second) return std::nullopt;
  }
  return f;
}

}  // namespace atl::cpu
