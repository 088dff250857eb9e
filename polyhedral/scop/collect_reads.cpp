// Lists a statement body's tensor reads in evaluation order, counts one array's reads, and rewrites operands copy-on-write.
#include "polyhedral/scop/collect_reads.h"

#include <memory>

namespace atl::poly {

void collect_reads(const compute::Expr &e, bool guarded, std::vector<BodyRead> &out) {
  using compute::ExprKind;
  if (e.kind == ExprKind::Read) out.push_back({&e, guarded});
  if (e.kind == ExprKind::Guard) {
    collect_reads(*e.args[0], true, out);
    collect_reads(*e.args[1], false, out);
    return;
  }
  for (const auto &a : e.args) collect_reads(*a, false, out);
}

namespace {

void count_reads(const compute::Expr &e, const std::string &array, bool in_subscript, bool in_guard, ArrayReads &r) {
  using compute::ExprKind;
  if (e.kind == ExprKind::Read && e.name == array) {
    if (in_subscript || in_guard) r.bad = true;
    for (const compute::ExprPtr &s : e.args)
      if (!s || compute::contains_read(*s) || !compute::to_quasi_affine(*s)) r.bad = true;
    ++r.plain;
  }
  for (const compute::ExprPtr &a : e.args)
    if (a) count_reads(*a, array, in_subscript || e.kind == ExprKind::Read, in_guard || e.kind == ExprKind::Guard, r);
}

}  // namespace

compute::ExprPtr map_args(const compute::ExprPtr &e, const std::function<compute::ExprPtr(const compute::ExprPtr &)> &f) {
  bool changed = false;
  std::vector<compute::ExprPtr> args;
  for (const compute::ExprPtr &a : e->args) {
    args.push_back(a ? f(a) : a);
    changed |= args.back() != a;
  }
  if (!changed) return e;
  auto copy = std::make_shared<compute::Expr>(*e);
  copy->args = std::move(args);
  return copy;
}

ArrayReads array_reads(const compute::ExprPtr &rhs, const compute::ExprPtr &lhs, const std::string &array) {
  ArrayReads r;
  if (rhs) count_reads(*rhs, array, false, false, r);
  if (lhs)
    for (const compute::ExprPtr &sub : lhs->args)
      if (sub) count_reads(*sub, array, true, false, r);
  return r;
}

}  // namespace atl::poly
