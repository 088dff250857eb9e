// Checks a schedule against the dependences and names the first violated
// one, or every violated one (kind, source, target, relation, schedule
// dimension).
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/schedule.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

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

/// The kinds of dependences a legal schedule respects, in check order: the
/// relations of deps.validity() split by kind.
std::vector<std::pair<std::string, isl::union_map>> checked_kinds(isl::ctx ctx, const Dependences &deps) {
  isl::union_map relaxed = deps.relaxed ? deps.reduction_deps() : isl::union_map(ctx, "{ }");
  std::vector<std::pair<std::string, isl::union_map>> kinds = {
      {"flow", deps.flow.subtract(relaxed)}, {"anti", deps.anti.subtract(relaxed)},
      {"output", deps.output.subtract(relaxed)}};
  if (deps.relaxed) kinds.push_back({"reduction-order", deps.reduction_closure});
  return kinds;
}

/// Calls `found` with each violated dependence relation (one per kind and
/// pair of statements, in checked_kinds' order, then isl's order of the
/// relations) until it returns false.
void for_each_violation(const Scop &scop, const Dependences &deps, const isl::schedule &schedule,
                        const std::function<bool(Violation)> &found) {
  isl::ctx ctx = scop.context.ctx();
  unsigned dims = 0;
  auto sched = padded_schedules(schedule, dims);
  bool more = true;
  for (const auto &[kind, rel] : checked_kinds(ctx, deps)) {
    rel.foreach_map([&](isl::map dep) {
      if (!more) return;
      std::string src = dep.domain_tuple_id().name(), dst = dep.range_tuple_id().name();
      auto s = sched.find(src), t = sched.find(dst);
      if (s == sched.end() || t == sched.end()) return;
      isl::set delta = dep.apply_domain(s->second).apply_range(t->second).deltas();
      for (unsigned d = 0; d <= dims; ++d) {
        if (delta.intersect(earlier_at(ctx, dims, d)).intersect_params(scop.context).is_empty()) continue;
        more = found(Violation{kind, src, dst, isl_text(dep), static_cast<int>(d), d == dims});
        return;
      }
    });
    if (!more) break;
  }
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
  std::optional<Violation> first;
  for_each_violation(scop, deps, schedule, [&](Violation v) {
    first = std::move(v);
    return false;
  });
  return first;
}

std::vector<Violation> all_violations(const Scop &scop, const Dependences &deps, const isl::schedule &schedule) {
  std::vector<Violation> out;
  for_each_violation(scop, deps, schedule, [&](Violation v) {
    out.push_back(std::move(v));
    return true;
  });
  // isl's order of the relations in a union map is not the statements'
  // order: sort by kind (check order), then source and target position.
  std::map<std::string, std::size_t> kind_rank, position;
  for (const auto &k : {"flow", "anti", "output", "reduction-order"}) kind_rank.emplace(k, kind_rank.size());
  for (const auto &st : scop.statements) position.emplace(st.name, position.size());
  auto key = [&](const Violation &v) {
    auto rank = [](const std::map<std::string, std::size_t> &m, const std::string &name) {
      auto it = m.find(name);
      return it == m.end() ? m.size() : it->second;
    };
    return std::make_tuple(rank(kind_rank, v.kind), rank(position, v.source), rank(position, v.target), v.source,
                           v.target);
  };
  std::stable_sort(out.begin(), out.end(), [&](const Violation &a, const Violation &b) { return key(a) < key(b); });
  return out;
}

}  // namespace atl::poly
