// Lists a statement body's tensor reads in evaluation order, guarded or not.
#include "polyhedral/scop/collect_reads.h"

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

}  // namespace atl::poly
