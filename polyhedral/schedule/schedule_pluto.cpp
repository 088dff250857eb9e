// schedule_pluto: the Pluto-style scheduler on a SCoP and its dependences
// (the problem is handed to the core in pluto_core.cpp).
#include "polyhedral/schedule/schedule_pluto.h"

namespace atl::poly {

ScheduleResult schedule_pluto(const Scop &scop, const Dependences &deps, const ScheduleOptions &options) {
  PlutoProblem problem;
  for (const ScopStatement &s : scop.statements) problem.statements.push_back(s.domain);
  problem.context = scop.context;
  problem.validity = deps.validity();
  problem.coincidence = deps.all().unite(problem.validity);
  PlutoOptions pluto;
  pluto.max_solves = options.force_fallback.empty() ? 40 + 20 * static_cast<int>(scop.statements.size()) : 0;
  pluto.quota = options.quota;
  pluto.seconds = options.seconds;
  ScheduleResult result = schedule_pluto_problem(problem, pluto);
  if (!options.force_fallback.empty())
    result.fallbacks.back() += " (forced: " + options.force_fallback + ")";
  return result;
}

}  // namespace atl::poly
