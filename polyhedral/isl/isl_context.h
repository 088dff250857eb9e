// The one place with raw isl calls: an RAII isl_ctx per compile, the
// operation-quota guard, scoped scheduler options, AST-build hooks, and the
// queries isl/cpp.h lacks (names, coefficients, constraint matrices, mark
// ids, band loop types), each taking and giving isl C++ objects.
#pragma once

#include <isl/cpp.h>

#include "polyhedral/isl/watchdog.h"

#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

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
///
/// `seconds` > 0 also bounds the wall-clock time: a watchdog thread calls
/// isl_ctx_abort when it runs out, so isl fails at its next operation (an
/// operation count does not bound the time: the scheduler's simplex pivots
/// on numbers that can grow without limit, and one InstanceNormalization
/// over 1 x 4 x 16 x 16 took more than 300 s within the quota).
class QuotaGuard {
public:
  QuotaGuard(isl::ctx ctx, unsigned long max_operations, double seconds = 0);
  ~QuotaGuard();
  QuotaGuard(const QuotaGuard &) = delete;
  QuotaGuard &operator=(const QuotaGuard &) = delete;
  /// True when isl's last error in this context is an exhausted quota.
  bool hit() const;
  /// True when the time ran out (isl was aborted).
  bool timed_out() const { return watchdog_ && watchdog_->expired(); }

private:
  mutable isl::ctx ctx_;
  unsigned long saved_;
  std::optional<Watchdog> watchdog_;  ///< with a time limit: calls isl_ctx_abort
};

/// "time limit of `seconds` s reached": the reason a scheduler gives when
/// QuotaGuard's or PplDeadline's time runs out.
std::string time_limit_reason(double seconds);

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

// ---- Schedule-tree nodes: what isl/cpp.h cannot read or do ----

/// A band member's AST loop type (isl_ast_loop_type).
enum class AstLoopType { Default, Atomic, Unroll, Separate };

/// The AST loop type of band member `member`.
AstLoopType member_ast_loop_type(const isl::schedule_node_band &band, int member);
/// The band with member `member` given the loop type `type`.
isl::schedule_node_band member_set_ast_loop_type(const isl::schedule_node_band &band, int member, AstLoopType type);
/// The loop type of member `member` inside the band's isolated part.
AstLoopType member_isolate_ast_loop_type(const isl::schedule_node_band &band, int member);
/// The band with the isolated part's loop type of member `member` set.
isl::schedule_node_band member_set_isolate_ast_loop_type(const isl::schedule_node_band &band, int member,
                                                         AstLoopType type);
/// The id of a mark node (its name is mark_id(m).name()).
isl::id mark_id(const isl::schedule_node_mark &mark);
/// The tree with `node` removed (its single child takes its place); returns
/// the node now at that position. isl refuses (isl::exception) the domain
/// node and bands above anchored subtrees (see is_subtree_anchored).
isl::schedule_node delete_node(const isl::schedule_node &node);
/// True when the subtree at `node` depends on its position (a band with an
/// isolate option, an extension or context node): isl then refuses to
/// insert or delete bands above it.
bool is_subtree_anchored(const isl::schedule_node &node);

// ---- Names, coefficients and constraints: what isl/cpp.h cannot read ----

/// The names of the parameters of `space` ("" for an unnamed one).
std::vector<std::string> param_names(const isl::space &space);
/// The names of the set dimensions of `set` ("" for an unnamed one).
std::vector<std::string> set_dim_names(const isl::set &set);
/// True when `set` is a parameter set ([N] -> { : ... }).
bool is_params(const isl::set &set);
/// The tuple name of a map's domain or range, "" when it has none.
std::string domain_tuple_name(const isl::map &map);
std::string range_tuple_name(const isl::map &map);
/// True when `map` involves input dimension `pos` (its constraints do).
bool involves_in_dim(const isl::map &map, int pos);

/// The coefficients of an affine expression over its input dimensions
/// and parameters, and its constant; `has_divs` when it uses integer
/// divisions (floor), whose coefficients are not listed.
struct AffCoefficients {
  std::vector<isl::val> in, params;
  isl::val constant;
  bool has_divs = false;
};
AffCoefficients aff_coefficients(const isl::aff &aff);

/// The constraints of a basic map, wrapped into a set and lifted (isl's
/// existential variables become extra set dimensions after the map's
/// input and output ones). Each row has the columns [constant, params...,
/// set dims...] and reads row . (1, x) = 0 (equalities) or >= 0.
struct ConstraintRows {
  int n_param = 0, n_set = 0;
  std::vector<std::vector<isl::val>> equalities, inequalities;
};
ConstraintRows lifted_constraints(const isl::basic_map &bmap);

}  // namespace atl::poly
