// A user's schedule tree (isl YAML): parsed, checked to schedule exactly
// the SCoP's instances and to respect every dependence, then used.
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/schedule.h"

namespace atl::poly {

namespace {

Location tree_hint() {
  Location l;
  l.hint = "tree";
  return l;
}

std::string statement_names(const isl::union_set &s) {
  std::string out;
  s.foreach_set([&](isl::set x) { out += (out.empty() ? "" : ", ") + tuple_name(x); });
  return out;
}

}  // namespace

ScheduleResult schedule_given(const Scop &scop, const Dependences &deps, const std::string &tree) {
  isl::ctx ctx = scop.context.ctx();
  isl::schedule s;
  try {
    s = isl::schedule(ctx, tree);
  } catch (const isl::exception &e) {
    throw UserError(std::string("cannot read the schedule tree as isl YAML: ") + (e.what() ? e.what() : ""),
                    tree_hint());
  }
  isl::union_set want = scop.domain();
  isl::union_set got;
  try {
    got = s.get_map().intersect_domain(s.get_domain()).domain().intersect_params(scop.context);
  } catch (const isl::exception &e) {
    throw UserError(std::string("the schedule tree cannot be used: ") + (e.what() ? e.what() : ""), tree_hint());
  }
  isl::union_set missing = want.subtract(got), extra = got.subtract(want);
  if (!missing.is_empty())
    throw UserError("the schedule tree does not schedule every instance of statement(s) " + statement_names(missing) +
                        " of cluster " + scop.name + ": missing " + isl_text(missing),
                    tree_hint());
  if (!extra.is_empty())
    throw UserError("the schedule tree schedules instances that cluster " + scop.name + " does not have: " +
                        isl_text(extra) + " (statements: " + statement_names(extra) + ")",
                    tree_hint());
  s = intersect_schedule_domain(s, want);
  if (auto v = check_legality(scop, deps, s)) throw IllegalSchedule(*v, tree_hint());
  ScheduleResult r;
  r.schedule = s;
  r.algorithm = "given";
  return r;
}

}  // namespace atl::poly
