// Internal: one attempt of isl's scheduler under a quota (shared by
// schedule_isl and schedule_feautrier).
#pragma once

#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/schedule.h"

#include <optional>
#include <string>

namespace atl::poly::detail {

/// Runs isl_schedule_constraints_compute_schedule with validity =
/// deps.validity(), proximity = flow, coincidence = all dependences, under
/// `quota` operations and `seconds` of wall-clock time (0: no bound). On
/// failure returns nothing and sets `why`.
std::optional<isl::schedule> try_isl_scheduler(const Scop &scop, const Dependences &deps,
                                               const SchedulerOptions &options, unsigned long quota,
                                               double seconds, std::string &why);

}  // namespace atl::poly::detail
