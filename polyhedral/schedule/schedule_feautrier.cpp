// Feautrier's scheduling algorithm through isl's option, under the quota;
// the original order when it fails (recorded as a fallback).
#include "polyhedral/schedule/isl_scheduler.h"

namespace atl::poly {

ScheduleResult schedule_feautrier(const Scop &scop, const Dependences &deps, const ScheduleOptions &options) {
  SchedulerOptions o;
  o.feautrier = true;
  unsigned long quota = options.force_fallback.empty() ? options.quota : 1;
  std::string why;
  ScheduleResult r;
  if (auto s = detail::try_isl_scheduler(scop, deps, o, quota, options.seconds, why)) {
    r.schedule = *s;
    r.algorithm = "feautrier";
    return r;
  }
  r.fallbacks.push_back("scheduler feautrier failed for cluster " + scop.name + " (" + why +
                        "); using the original order");
  r.schedule = schedule_original(scop);
  r.algorithm = "original";
  return r;
}

}  // namespace atl::poly
