// Coalesces two adjacent dimensions that address every array's last two (an image's rows and columns) into one before scheduling.
#include "polyhedral/transforms/scop/coalesce_dims.h"

#include "polyhedral/transforms/schedule/cpu_tiling_common.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace atl::poly {

namespace {

using compute::BinOp;
using compute::Expr;
using compute::ExprKind;
using compute::ExprPtr;
using tiling::mentions;
using tiling::x;

bool is_var(const ExprPtr &e, const std::string &name) { return e && e->kind == ExprKind::Var && e->name == name; }

/// The constant extent of an array's dimension, or -1.
long array_extent(const Scop &scop, const std::string &array, std::size_t d) {
  const ScopArray *a = scop.array(array);
  if (!a || d >= a->array.shape.size()) return -1;
  const Dim &dim = a->array.shape[d];
  return dim.is_symbolic() ? -1 : static_cast<long>(dim.value);
}

/// The statement's pair: positions (d, d + 1) of its indices that are the
/// last two subscripts of the element it writes, non-reduction.
std::optional<int> pair_of(const ScopStatement &s) {
  const auto &sub = s.lhs->args;
  if (sub.size() < 2) return std::nullopt;
  for (std::size_t d = 0; d + 1 < s.indices.size(); ++d)
    if (is_var(sub[sub.size() - 2], s.indices[d]) && is_var(sub.back(), s.indices[d + 1]) && !s.reduction[d] &&
        !s.reduction[d + 1])
      return static_cast<int>(d);
  return std::nullopt;
}

/// The row offset c of a row subscript `h` (0), `h + c` or `c + h` with a
/// constant c >= 0, or nothing.
std::optional<long> row_offset(const ExprPtr &e, const std::string &h) {
  if (is_var(e, h)) return 0;
  if (!e || e->kind != ExprKind::Binary || e->binop != BinOp::Add) return std::nullopt;
  for (std::size_t k = 0; k < 2; ++k) {
    const ExprPtr &v = e->args[k], &c = e->args[1 - k];
    if (is_var(v, h) && c->kind == ExprKind::Number && c->number >= 0 && c->number == std::floor(c->number))
      return static_cast<long>(c->number);
  }
  return std::nullopt;
}

/// Every use of `h` and `w` in `e` is a read's last two subscripts, (h + c,
/// w) with a constant c >= 0, of an array whose rows are W wide and that has
/// rows c .. c + H - 1 (a band of a taller image is still one run of
/// elements), in a plain read.
bool only_plane_reads(const Scop &scop, const Expr &e, const std::string &h, const std::string &w, long H, long W,
                      bool in_guard) {
  if (e.kind == ExprKind::Read) {
    const auto &sub = e.args;
    bool uses = false;
    for (const ExprPtr &a : sub) uses = uses || mentions(*a, h) || mentions(*a, w);
    if (!uses) return true;
    if (in_guard || sub.size() < 2 || !is_var(sub.back(), w)) return false;
    std::optional<long> c = row_offset(sub[sub.size() - 2], h);
    if (!c) return false;
    for (std::size_t k = 0; k + 2 < sub.size(); ++k)
      if (mentions(*sub[k], h) || mentions(*sub[k], w) || compute::contains_read(*sub[k])) return false;
    const long rows = array_extent(scop, e.name, sub.size() - 2);
    return rows >= 0 && *c + H <= rows && array_extent(scop, e.name, sub.size() - 1) == W;
  }
  if (e.kind == ExprKind::Var) return e.name != h && e.name != w;  // an index used as a value
  for (const ExprPtr &a : e.args)
    if (a && !only_plane_reads(scop, *a, h, w, H, W, in_guard || e.kind == ExprKind::Guard)) return false;
  return true;
}

/// `e` with h -> p / W and w -> p % W (floor division and modulo in subscripts).
ExprPtr substitute(const ExprPtr &e, const std::string &h, const std::string &w, const std::string &p, long W) {
  if (!e) return e;
  auto num = [&] {
    auto n = std::make_shared<Expr>();
    n->kind = ExprKind::Number;
    n->number = static_cast<double>(W);
    return ExprPtr(n);
  };
  auto var = [&] {
    auto v = std::make_shared<Expr>(*e);
    v->name = p;
    return ExprPtr(v);
  };
  if (e->kind == ExprKind::Var && (e->name == h || e->name == w)) {
    auto b = std::make_shared<Expr>(*e);
    b->kind = ExprKind::Binary;
    b->binop = e->name == h ? BinOp::Div : BinOp::Mod;
    b->name.clear();
    b->args = {var(), num()};
    return b;
  }
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr &a : copy->args) a = substitute(a, h, w, p, W);
  return copy;
}

/// `e` with the indices in `zeros` (single-valued 0: a 1x1 window's kh, kw)
/// as 0, and additions and subtractions of 0 folded (h + kh -> h).
ExprPtr fold_zeros(const ExprPtr &e, const std::vector<std::string> &zeros) {
  if (!e) return e;
  auto is_zero = [](const ExprPtr &x) { return x->kind == ExprKind::Number && x->number == 0; };
  if (e->kind == ExprKind::Var && std::find(zeros.begin(), zeros.end(), e->name) != zeros.end()) {
    auto z = std::make_shared<Expr>(*e);
    z->kind = ExprKind::Number;
    z->number = 0;
    z->name.clear();
    return z;
  }
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr &a : copy->args) a = fold_zeros(a, zeros);
  if (copy->kind == ExprKind::Binary && (copy->binop == BinOp::Add || copy->binop == BinOp::Sub)) {
    if (is_zero(copy->args[1])) return copy->args[0];
    if (copy->binop == BinOp::Add && is_zero(copy->args[0])) return copy->args[1];
  }
  return copy;
}

}  // namespace

CoalesceResult coalesce_dims(Scop &scop, long lanes) {
  CoalesceResult res;
  if (scop.statements.empty() || lanes <= 1) return res.reason = "no vectors", res;
  std::vector<int> at;
  long H = -1, W = -1;
  // The bodies with single-valued 0 indices folded away (the checks and the rewrite read these).
  std::vector<ScopStatement> folded = scop.statements;
  for (ScopStatement &s : folded) {
    std::vector<std::string> zeros;
    for (std::size_t d = 0; d < s.indices.size(); ++d)
      if (s.domain.dim_min_val(static_cast<int>(d)).is_zero() && s.domain.dim_max_val(static_cast<int>(d)).is_zero())
        zeros.push_back(s.indices[d]);
    s.lhs = fold_zeros(s.lhs, zeros);
    s.rhs = fold_zeros(s.rhs, zeros);
  }
  for (const ScopStatement &s : folded) {
    std::optional<int> d = pair_of(s);
    if (!d || !s.lhs) return res.reason = "a statement does not write a plane by its indices", res;
    long h = -1, w = -1;
    if (s.domain.dim_min_val(*d).is_zero() && s.domain.dim_min_val(*d + 1).is_zero() &&
        s.domain.dim_max_val(*d).is_int() && s.domain.dim_max_val(*d + 1).is_int()) {
      h = s.domain.dim_max_val(*d).get_num_si() + 1;
      w = s.domain.dim_max_val(*d + 1).get_num_si() + 1;
    }
    if (h <= 1 || w <= 1 || (H >= 0 && (h != H || w != W))) return res.reason = "planes of different or symbolic sizes", res;
    H = h, W = w;
    const std::string &hn = s.indices[static_cast<std::size_t>(*d)], &wn = s.indices[static_cast<std::size_t>(*d) + 1];
    const std::size_t rank = s.lhs->args.size();
    if (array_extent(scop, s.write.array, rank - 2) != H || array_extent(scop, s.write.array, rank - 1) != W)
      return res.reason = "the plane is not the written array's", res;
    for (std::size_t k = 0; k + 2 < rank; ++k)
      if (mentions(*s.lhs->args[k], hn) || mentions(*s.lhs->args[k], wn)) return res.reason = "the plane's indices address more", res;
    if (s.rhs && !only_plane_reads(scop, *s.rhs, hn, wn, H, W, false))
      return res.reason = "the plane's indices are used otherwise (a window, a guard, a value)", res;
    // A box in (h, w) whatever the other dimensions: the domain is its other
    // dimensions' values times [0, H) x [0, W).
    const std::size_t n = s.indices.size();
    std::string box = "{ " + tiling::tuple(s) + " : 0 <= " + x(*d) + " < " + std::to_string(H) + " and 0 <= " +
                      x(*d + 1) + " < " + std::to_string(W) + " }";
    std::string free = "{ " + tiling::tuple(s) + " -> " + s.name + "[";
    for (std::size_t k = 0; k < n; ++k)
      free += (k ? ", " : "") + (static_cast<int>(k) == *d || static_cast<int>(k) == *d + 1 ? "y" + std::to_string(k) : x(static_cast<int>(k)));
    free += "] }";
    isl::set others = s.domain.apply(isl::map(s.domain.ctx(), free));
    if (!others.intersect(isl::set(s.domain.ctx(), box)).is_equal(s.domain)) return res.reason = "the plane is not a box", res;
    at.push_back(*d);
  }
  if (W % lanes == 0) return res.reason = "the rows are whole vectors already", res;

  for (std::size_t i = 0; i < scop.statements.size(); ++i) {
    ScopStatement &s = scop.statements[i];
    s.lhs = folded[i].lhs;
    s.rhs = folded[i].rhs;
    const int d = at[i];
    const std::size_t n = s.indices.size();
    const std::string h = s.indices[static_cast<std::size_t>(d)], w = s.indices[static_cast<std::size_t>(d) + 1];
    std::string p = h + w;
    for (bool clash = true; clash;) {
      clash = false;
      for (const std::string &ix : s.indices) clash = clash || ix == p;
      if (clash) p += "_";
    }
    const std::string Ws = std::to_string(W);
    isl::ctx ctx = s.domain.ctx();
    // The new domain's dimensions named after the indices (explain --stage scop).
    // (The source tuple's names are ones no index has: an index called x1 is possible.)
    auto src = [](std::size_t k) { return "coalesce_src_" + std::to_string(k); };
    std::string from, names, equal;
    for (std::size_t k = 0; k < n; ++k) {
      from += (k ? ", " : "") + src(k);
      if (static_cast<int>(k) == d + 1) continue;
      std::string v = isl_variable(static_cast<int>(k) == d ? p : s.indices[k]);
      names += (names.empty() ? "" : ", ") + v;
      equal += (equal.empty() ? "" : " and ") + v + " = " +
               (static_cast<int>(k) == d ? Ws + src(k) + " + " + src(k + 1) : src(k));
    }
    isl::map to(ctx, "{ " + s.name + "[" + from + "] -> " + s.name + "[" + names + "] : " + equal + " }");
    // Back to the original instances, in the same names.
    const std::string pn = isl_variable(p);
    std::string back = "{ " + s.name + "[" + names + "] -> " + s.name + "[";
    for (std::size_t k = 0; k < n; ++k) {
      std::string v = static_cast<int>(k) == d ? "floor(" + pn + "/" + Ws + ")"
                      : static_cast<int>(k) == d + 1 ? pn + " - " + Ws + "*floor(" + pn + "/" + Ws + ")"
                      : isl_variable(s.indices[k]);
      back += (k ? ", " : "") + v;
    }
    back += "] }";
    isl::map inv(ctx, back);
    s.domain = s.domain.apply(to);
    s.write.relation = inv.apply_range(s.write.relation);
    for (ScopAccess &r : s.reads) r.relation = inv.apply_range(r.relation);
    s.lhs = substitute(s.lhs, h, w, p, W);
    s.rhs = substitute(s.rhs, h, w, p, W);
    s.indices.erase(s.indices.begin() + d + 1);
    s.indices[static_cast<std::size_t>(d)] = p;
    s.reduction.erase(s.reduction.begin() + d + 1);
  }
  res.applied = true;
  res.rows = H, res.columns = W;
  return res;
}

}  // namespace atl::poly
