// isl's scheduler under an operation quota and a time limit, with a fallback ladder:
// default options -> serialized SCCs (less fusion) -> the original order.
#include "polyhedral/schedule/isl_scheduler.h"


namespace atl::poly {

namespace detail {

std::optional<isl::schedule> try_isl_scheduler(const Scop &scop, const Dependences &deps,
                                               const SchedulerOptions &options, unsigned long quota,
                                               double seconds, std::string &why) {
  isl::ctx ctx = scop.context.ctx();
  ScopedSchedulerOptions scoped(ctx, options);
  QuotaGuard guard(ctx, quota, seconds);
  try {
    isl::union_map all = deps.all();
    isl::schedule s = isl::schedule_constraints::on_domain(scop.domain())
                          .set_context(scop.context)
                          .set_validity(deps.validity())
                          .set_proximity(deps.flow)
                          .set_coincidence(all)
                          .compute_schedule();
    if (s.is_null()) {
      why = guard.timed_out() ? time_limit_reason(seconds) : "isl returned no schedule";
      return std::nullopt;
    }
    return s;
  } catch (const isl::exception_quota &) {
    why = "operation quota of " + std::to_string(quota) + " exhausted";
    return std::nullopt;
  } catch (const isl::exception &e) {
    why = guard.timed_out() ? time_limit_reason(seconds)
          : guard.hit()     ? "operation quota of " + std::to_string(quota) + " exhausted"
                            : std::string("isl error: ") + (e.what() ? e.what() : "");
    return std::nullopt;
  }
}

}  // namespace detail

isl::schedule schedule_original(const Scop &scop) { return scop.original_schedule(); }

ScheduleResult schedule_isl(const Scop &scop, const Dependences &deps, const ScheduleOptions &options) {
  struct Rung {
    const char *name;
    SchedulerOptions opts;
  };
  SchedulerOptions fused, serialized;
  serialized.serialize_sccs = true;
  const Rung ladder[] = {{"isl", fused}, {"isl-serialize-sccs", serialized}};

  ScheduleResult r;
  for (std::size_t i = 0; i < std::size(ladder); ++i) {
    unsigned long quota = options.quota;
    if (options.force_fallback == "quota" && i == 0) quota = 1;
    if (options.force_fallback == "all") quota = 1;
    std::string why;
    auto s = detail::try_isl_scheduler(scop, deps, ladder[i].opts, quota, options.seconds, why);
    if (s) {
      r.schedule = *s;
      r.algorithm = ladder[i].name;
      return r;
    }
    r.fallbacks.push_back(std::string("scheduler ") + ladder[i].name + " failed for cluster " + scop.name + " (" +
                          why + "); trying " + (i + 1 < std::size(ladder) ? ladder[i + 1].name : "the original order"));
  }
  r.schedule = schedule_original(scop);
  r.algorithm = "original";
  return r;
}

}  // namespace atl::poly
