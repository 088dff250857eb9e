// Marks each exp whose argument is a value minus the maximum of that value (never +inf).
#include "polyhedral/transforms/scop/bound_shifted_exps.h"

#include "polyhedral/scop/collect_reads.h"

#include <atoll/diagnostics.h>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace atl::poly {

namespace {

using compute::AssignOp;
using compute::BinOp;
using compute::Expr;
using compute::ExprKind;
using compute::ExprPtr;
using ReadPairs = std::vector<std::pair<const Expr *, const Expr *>>;

/// `a` and `b` the same value, their reads' subscripts aside: the same
/// operators, functions, constants and arrays. Each pair of corresponding
/// reads goes to `reads`. An index used as a value, a guard or a subscript
/// that reads a tensor makes them differ.
bool same_value(const Expr &a, const Expr &b, ReadPairs &reads) {
  if (a.kind != b.kind || a.args.size() != b.args.size()) return false;
  switch (a.kind) {
  case ExprKind::Number: return a.number == b.number;
  case ExprKind::Var: case ExprKind::Guard: return false;
  case ExprKind::Read:
    if (a.name != b.name) return false;
    for (const Expr *r : {&a, &b})
      for (const ExprPtr &sub : r->args)
        if (!sub || compute::contains_read(*sub)) return false;
    reads.emplace_back(&a, &b);
    return true;
  case ExprKind::Unary: if (a.unop != b.unop) return false; break;
  case ExprKind::Binary: if (a.binop != b.binop) return false; break;
  case ExprKind::Call: if (a.func != b.func) return false; break;
  case ExprKind::Select: break;
  }
  for (std::size_t i = 0; i < a.args.size(); ++i)
    if (!a.args[i] || !b.args[i] || !same_value(*a.args[i], *b.args[i], reads)) return false;
  return true;
}

/// The argument as v - m: the value v and the read m.
struct Shift {
  const Expr *value = nullptr, *max_read = nullptr;
};

std::optional<Shift> split_shift(const Scop &scop, const Expr &arg) {
  if (arg.kind != ExprKind::Binary || arg.binop != BinOp::Sub || arg.args.size() != 2 || !arg.args[0] || !arg.args[1])
    return std::nullopt;
  const Expr &l = *arg.args[0], &r = *arg.args[1];
  if (r.kind == ExprKind::Read) return Shift{&l, &r};
  if (l.kind != ExprKind::Binary || r.kind != ExprKind::Binary || l.binop != r.binop || l.args.size() != 2 ||
      r.args.size() != 2 || !l.args[0] || !l.args[1] || !r.args[0] || !r.args[1])
    return std::nullopt;
  // v * c - m * c (either order in each product) or v / c - m / c.
  const int sides = l.binop == BinOp::Mul ? 2 : l.binop == BinOp::Div ? 1 : 0;
  for (int ms = 0; ms < sides; ++ms) {
    const Expr &m = *r.args[ms], &c = *r.args[1 - ms];
    if (m.kind != ExprKind::Read || !positive_constant(scop, c)) continue;
    for (int vs = 0; vs < sides; ++vs)
      if (compute::equal(*l.args[1 - vs], c)) return Shift{l.args[vs].get(), &m};
  }
  return std::nullopt;
}

/// Whether `arg`, in statement `k`, is a value minus its own maximum (see the header).
bool shifted_by_own_max(const Scop &scop, std::size_t k, const Expr &arg) {
  const std::optional<Shift> sh = split_shift(scop, arg);
  if (!sh) return false;
  const std::string &t = sh->max_read->name;
  const ScopArray *a = scop.array(t);
  if (!a || (a->kind != ScopArray::Kind::ClusterLocal && a->kind != ScopArray::Kind::NodeInternal)) return false;
  std::size_t red = scop.statements.size();
  for (std::size_t w = 0; w < scop.statements.size(); ++w) {
    const ScopStatement &st = scop.statements[w];
    if (st.write.array != t || (st.init && st.init_of == AssignOp::Max)) continue;
    if (st.init || st.op != AssignOp::Max || !st.rhs || red != scop.statements.size()) return false;
    red = w;
  }
  if (red >= k) return false;
  const ScopStatement &s = scop.statements[k], &r = scop.statements[red];
  ReadPairs reads;
  if (!same_value(*sh->value, *r.rhs, reads)) return false;
  try {
    // Instances of R that write the element of m an instance of S reads...
    isl::map pairs = element_access(scop, s, *sh->max_read, false).relation.apply_range(r.write.relation.reverse());
    // ...and read, read by read, what S's v reads.
    for (const auto &[sv, rv] : reads)
      pairs = pairs.intersect(
          element_access(scop, s, *sv, false).relation.apply_range(element_access(scop, r, *rv, false).relation.reverse()));
    return s.domain.is_subset(pairs.domain());
  } catch (const UserError &) {
    return false;
  } catch (const isl::exception &) {
    return false;
  }
}

}  // namespace

int bound_shifted_exps(Scop &scop) {
  int marked = 0;
  for (std::size_t k = 0; k < scop.statements.size(); ++k) {
    ScopStatement &s = scop.statements[k];
    if (s.init || !s.rhs) continue;
    std::vector<const Expr *> exps = exp_calls(*s.rhs);
    for (std::size_t i = 0; i < exps.size(); ++i) {
      const Expr &e = *exps[i];
      if (s.bounded_exps.count(static_cast<int>(i)) || e.args.size() != 1 || !e.args[0] ||
          !shifted_by_own_max(scop, k, *e.args[0]))
        continue;
      s.bounded_exps.insert(static_cast<int>(i));
      ++marked;
    }
  }
  return marked;
}

}  // namespace atl::poly
