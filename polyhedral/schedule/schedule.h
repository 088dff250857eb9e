// Schedulers for a SCoP: isl's (under a quota, with a fallback ladder),
// Feautrier's through isl, a user's schedule tree checked against the
// dependences, and the original statement order; plus the legality check
// (the first violated dependence, or all of them).
#pragma once

#include "polyhedral/deps/dependences.h"
#include "polyhedral/scop/scop.h"

#include <atoll/diagnostics.h>

#include <isl/cpp.h>

#include <optional>
#include <string>
#include <vector>

namespace atl::poly {

/// Options of every scheduler.
struct ScheduleOptions {
  /// Bound on isl operations per scheduler attempt (0 = none).
  unsigned long quota = 2'000'000;
  /// Bound on the wall-clock seconds of an isl scheduler attempt and of the
  /// Pluto-style search (0 = none);
  /// the operation quota alone does not bound the time (QuotaGuard).
  double seconds = 10;
  /// Tests: force the ladder down. "quota" runs the first attempt with a
  /// quota of 1 operation; "all" makes every isl attempt fail so the
  /// original order is used.
  std::string force_fallback;
};

/// A schedule and how it was obtained.
struct ScheduleResult {
  isl::schedule schedule;
  std::string algorithm;               ///< "isl", "isl-serialize-sccs", "original", "feautrier", "given", ...
  std::vector<std::string> fallbacks;  ///< one line per fallback taken (report.json `fallbacks`)
};

/// The original statement order (Scop::original_schedule).
isl::schedule schedule_original(const Scop &scop);

/// isl's scheduler: validity = deps.validity(), proximity = flow,
/// coincidence = all dependences (including reductions). Ladder: isl with
/// default options -> isl with serialized SCCs (less fusion) -> original
/// order. Each attempt runs under options.quota; isl errors never escape.
ScheduleResult schedule_isl(const Scop &scop, const Dependences &deps, const ScheduleOptions &options = {});

/// Feautrier's algorithm via isl's option; falls back to the original order
/// (recorded) if isl fails or runs out of quota.
ScheduleResult schedule_feautrier(const Scop &scop, const Dependences &deps, const ScheduleOptions &options = {});

/// A dependence a schedule violates.
struct Violation {
  std::string kind;      ///< "flow", "anti", "output" or "reduction-order"
  std::string source;    ///< statement name
  std::string target;    ///< statement name
  std::string relation;  ///< the dependence relation (isl text) from source to target
  int dimension = 0;     ///< first schedule dimension (0-based, of the flattened
                         ///< schedule) where target runs before source; equal to the
                         ///< number of dimensions when both run at the same time
  bool simultaneous = false;  ///< source and target instances get the same time
  std::string message() const;
};

/// The first dependence of deps.validity() that `schedule` violates, or
/// nothing when it is legal.
std::optional<Violation> check_legality(const Scop &scop, const Dependences &deps, const isl::schedule &schedule);

/// Every dependence `schedule` violates, empty when it is legal: one
/// Violation per violated relation of a kind between two statements (per
/// (kind, source, target)), each at the first schedule dimension where it is
/// violated. Order: by kind (flow, anti, output, reduction-order), then by
/// the source's and the target's position in scop.statements. The kinds and
/// relations are those check_legality checks, so the result is empty exactly
/// when check_legality finds nothing.
std::vector<Violation> all_violations(const Scop &scop, const Dependences &deps, const isl::schedule &schedule);

/// A user schedule rejected because it violates a dependence.
class IllegalSchedule : public UserError {
public:
  IllegalSchedule(Violation v, Location where = {});
  const Violation &violation() const { return violation_; }

private:
  Violation violation_;
};

/// Parses `tree` (isl YAML), checks that it schedules exactly the SCoP's
/// instances (UserError otherwise, hint "tree") and respects every
/// dependence (IllegalSchedule otherwise).
ScheduleResult schedule_given(const Scop &scop, const Dependences &deps, const std::string &tree);

}  // namespace atl::poly
