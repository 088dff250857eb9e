// The one place with raw isl calls: an RAII isl_ctx per compile, the
// operation-quota guard, scoped scheduler options and AST-build hooks.
#pragma once

#include <isl/cpp.h>

#include <functional>
#include <sstream>
#include <string>

namespace atl::poly {

/// Owns one isl_ctx (one per compile, so graphs can compile in parallel
/// threads). Errors are reported as isl::exception (on_error = continue, as
/// isl/cpp.h requires). Every isl object made in the context must be
/// destroyed before the context.
class IslContext {
public:
  IslContext();
  ~IslContext();
  IslContext(const IslContext &) = delete;
  IslContext &operator=(const IslContext &) = delete;
  isl::ctx get() const { return ctx_; }
  operator isl::ctx() const { return ctx_; }  // NOLINT: used where isl wants a ctx

private:
  isl::ctx ctx_;
};

/// Bounds the isl operations done while it lives (Polly's
/// IslMaxOperationsGuard): isl_ctx_set_max_operations + reset on entry,
/// the previous bound restored on exit. 0 = no bound. When the quota runs out
/// isl fails the current call: isl/cpp.h throws isl::exception_quota (and
/// resets the error state); for raw C calls, hit() says whether the last
/// error was the quota.
class QuotaGuard {
public:
  QuotaGuard(isl::ctx ctx, unsigned long max_operations);
  ~QuotaGuard();
  QuotaGuard(const QuotaGuard &) = delete;
  QuotaGuard &operator=(const QuotaGuard &) = delete;
  /// True when isl's last error in this context is an exhausted quota.
  bool hit() const;

private:
  mutable isl::ctx ctx_;
  unsigned long saved_;
};

/// Scheduler options set for the lifetime of the object and restored after.
struct SchedulerOptions {
  bool feautrier = false;        ///< ISL_SCHEDULE_ALGORITHM_FEAUTRIER instead of isl's
  bool serialize_sccs = false;   ///< no fusion of strongly connected components
  bool whole_component = false;  ///< schedule each component at once
  bool outer_coincidence = false;///< require coincident outer band members
  int max_coefficient = -1;      ///< bound on schedule coefficients (-1 = none)
};
class ScopedSchedulerOptions {
public:
  ScopedSchedulerOptions(isl::ctx ctx, const SchedulerOptions &options);
  ~ScopedSchedulerOptions();
  ScopedSchedulerOptions(const ScopedSchedulerOptions &) = delete;
  ScopedSchedulerOptions &operator=(const ScopedSchedulerOptions &) = delete;

private:
  isl::ctx ctx_;
  int algorithm_, serialize_, whole_, outer_, max_coef_;
};

/// The schedule tree in isl's block YAML notation (reads back with
/// isl::schedule(ctx, text)).
std::string schedule_to_yaml(const isl::schedule &schedule);

/// isl's text of an object (sets, maps, union maps, ...).
template <class T>
std::string isl_text(const T &object) {
  std::ostringstream os;
  os << object;
  return os.str();
}

/// The tuple name of a set ("S" for { S[i] }), "" when it has none.
std::string tuple_name(const isl::set &set);
/// The schedule restricted to `domain`.
isl::schedule intersect_schedule_domain(const isl::schedule &schedule, const isl::union_set &domain);

/// Builds an isl AST for `schedule`. `before_for` is called before each
/// `for` with the partial schedule (outer loops up to and including this
/// one); the number it returns is attached to the loop (for_tag() reads it
/// back). At each statement instance the user node's expression becomes the
/// call `S(e_0, ..., e_n)` whose arguments are the statement's indices as
/// expressions of the loop iterators.
isl::ast_node build_ast_with_hooks(isl::ast_build build, const isl::schedule &schedule,
                                   const std::function<int(const isl::union_map &)> &before_for);
/// The tag before_for gave a `for` node, or -1.
int for_tag(const isl::ast_node &node);

}  // namespace atl::poly
