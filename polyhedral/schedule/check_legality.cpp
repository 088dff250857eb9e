// Checks a schedule against the dependences and names the first violated
// one (kind, source, target, relation, schedule dimension).
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/schedule.h"

#include <algorithm>
#include <map>

namespace atl::poly {

namespace {

std::string vars(const char *p, unsigned n) {
  std::string s;
  for (unsigned i = 0; i < n; ++i) s += (i ? ", " : "") + std::string(p) + std::to_string(i);
  return s;
}

/// Per statement, its flattened schedule padded with zeros to a common
/// number of dimensions (anonymous range).
std::map<std::string, isl::map> padded_schedules(const isl::schedule &schedule, unsigned &dims) {
  std::map<std::string, isl::map> out;
  isl::union_map m = schedule.get_map();
  dims = 0;
  m.foreach_map([&](isl::map s) { dims = std::max(dims, s.range().tuple_dim()); });
  m.foreach_map([&](isl::map s) {
    unsigned k = s.range().tuple_dim();
    std::string pad = "{ [" + vars("t", k) + "] -> T[" + vars("t", k);
    for (unsigned i = k; i < dims; ++i) pad += std::string(i ? ", " : "") + "0";
    pad += "] }";
    out.emplace(s.domain_tuple_id().name(), s.apply_range(isl::map(s.ctx(), pad)));
  });
  return out;
}

/// The violations of a time-difference set: x_0 = .. = x_{d-1} = 0, x_d < 0.
isl::set earlier_at(isl::ctx ctx, unsigned dims, unsigned d) {
  std::string c = "true";
  for (unsigned i = 0; i < d; ++i) c += " and x" + std::to_string(i) + " = 0";
  if (d < dims) c += " and x" + std::to_string(d) + " < 0";
  return isl::set(ctx, "{ T[" + vars("x", dims) + "] : " + c + " }");
}

}  // namespace

std::string Violation::message() const {
  return "the schedule violates the " + kind + " dependence from statement " + source + " to statement " + target +
         " " + relation + ": at schedule dimension " + std::to_string(dimension) +
         (simultaneous ? " both instances run at the same time" : " the target runs before the source");
}

IllegalSchedule::IllegalSchedule(Violation v, Location where)
    : UserError(v.message(), std::move(where)), violation_(std::move(v)) {}

std::optional<Violation> check_legality(const Scop &scop, const Dependences &deps, const isl::schedule &schedule) {
  isl::ctx ctx = scop.context.ctx();
  unsigned dims = 0;
  auto sched = padded_schedules(schedule, dims);
  isl::union_map relaxed = deps.relaxed ? deps.reduction_deps() : isl::union_map(ctx, "{ }");
  std::vector<std::pair<std::string, isl::union_map>> kinds = {
      {"flow", deps.flow.subtract(relaxed)}, {"anti", deps.anti.subtract(relaxed)},
      {"output", deps.output.subtract(relaxed)}};
  if (deps.relaxed) kinds.push_back({"reduction-order", deps.reduction_closure});

  std::optional<Violation> first;
  for (const auto &[kind, rel] : kinds) {
    rel.foreach_map([&](isl::map dep) {
      if (first) return;
      std::string src = dep.domain_tuple_id().name(), dst = dep.range_tuple_id().name();
      auto s = sched.find(src), t = sched.find(dst);
      if (s == sched.end() || t == sched.end()) return;
      isl::set delta = dep.apply_domain(s->second).apply_range(t->second).deltas();
      for (unsigned d = 0; d <= dims; ++d) {
        if (delta.intersect(earlier_at(ctx, dims, d)).intersect_params(scop.context).is_empty()) continue;
        first = Violation{kind, src, dst, isl_text(dep), static_cast<int>(d), d == dims};
        return;
      }
    });
    if (first) break;
  }
  return first;
}

}  // namespace atl::poly
