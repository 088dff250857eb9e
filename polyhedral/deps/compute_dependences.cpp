// Dependence analysis with isl's dataflow (compute_flow): flow, anti and
// output dependences, reductions and, when they are relaxed, the
// memory-based dependences that keep other accesses ordered around them.
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/deps/dependences.h"

namespace atl::poly {

namespace {

isl::union_map empty_map(isl::ctx ctx) { return isl::union_map(ctx, "{ }"); }

/// True when `e` reads array `name`.
bool reads_array(const compute::Expr &e, const std::string &name) {
  if (e.kind == compute::ExprKind::Read && e.name == name) return true;
  for (const auto &a : e.args)
    if (reads_array(*a, name)) return true;
  return false;
}

/// Every access of statement `s` to `array` (the write and the reads).
isl::union_map accesses_to(const ScopStatement &s, const std::string &array, isl::ctx ctx) {
  isl::union_map u = empty_map(ctx);
  if (s.write.array == array) u = u.unite(isl::union_map(s.write.relation));
  for (const auto &r : s.reads)
    if (r.array == array) u = u.unite(isl::union_map(r.relation));
  return u;
}

}  // namespace

isl::union_map Dependences::all() const { return flow.unite(anti).unite(output); }

isl::union_map Dependences::reduction_deps() const {
  isl::union_map u = isl::union_map(flow.ctx(), "{ }");
  for (const auto &r : reductions) u = u.unite(r.self);
  return u;
}

isl::union_map Dependences::validity() const {
  if (!relaxed) return all();
  return all().subtract(reduction_deps()).unite(reduction_closure);
}

Dependences compute_dependences(const Scop &scop, const DepOptions &options) {
  isl::ctx ctx = scop.context.ctx();
  isl::schedule order = scop.original_schedule();
  isl::union_map writes = scop.writes(), reads = scop.reads();

  Dependences d;
  d.flow = isl::union_access_info(reads).set_must_source(writes).set_schedule(order).compute_flow().may_dependence();
  d.anti = isl::union_access_info(writes).set_may_source(reads).set_schedule(order).compute_flow().may_dependence();
  d.output = isl::union_access_info(writes).set_must_source(writes).set_schedule(order).compute_flow().may_dependence();
  d.flow = d.flow.coalesce();
  d.anti = d.anti.coalesce();
  d.output = d.output.coalesce();
  d.reduction_closure = empty_map(ctx);

  isl::union_map all = d.all();
  for (const auto &s : scop.statements) {
    if (s.init || s.op == compute::AssignOp::Assign || reads_array(*s.rhs, s.write.array)) continue;
    Reduction r;
    r.statement = s.name;
    r.array = s.write.array;
    r.op = s.op;
    isl::union_set dom(s.domain);
    r.self = all.intersect_domain(dom).intersect_range(dom);
    d.reductions.push_back(std::move(r));
  }
  d.relaxed = options.allow_reassociation && !d.reductions.empty();
  if (!d.relaxed) return d;

  // Other statements touching a reduced array are ordered against every
  // instance of the reduction: the original order is a sequence of whole
  // statements, so "before" is the statement position.
  for (std::size_t i = 0; i < scop.statements.size(); ++i) {
    const ScopStatement &rs = scop.statements[i];
    auto it = std::find_if(d.reductions.begin(), d.reductions.end(),
                           [&](const Reduction &r) { return r.statement == rs.name; });
    if (it == d.reductions.end()) continue;
    isl::union_map racc = accesses_to(rs, it->array, ctx);
    for (std::size_t j = 0; j < scop.statements.size(); ++j) {
      if (j == i) continue;
      isl::union_map other = accesses_to(scop.statements[j], it->array, ctx);
      if (other.is_empty()) continue;
      // Pairs touching the same element, at least one a write (the reduction writes).
      isl::union_map same = racc.apply_range(other.reverse());  // R -> T
      d.reduction_closure = d.reduction_closure.unite(j > i ? same : same.reverse());
    }
  }
  d.reduction_closure = d.reduction_closure.coalesce();
  return d;
}

void print_dependences(std::ostream &os, const Dependences &d) {
  os << "flow: " << isl_text(d.flow) << "\n";
  os << "anti: " << isl_text(d.anti) << "\n";
  os << "output: " << isl_text(d.output) << "\n";
  for (const auto &r : d.reductions)
    os << "reduction " << r.statement << " into " << r.array << " (" << compute::assign_op_name(r.op)
       << "): " << isl_text(r.self) << "\n";
  os << "reassociation: " << (d.relaxed ? "allowed (reduction order relaxed)" : "not used") << "\n";
  if (d.relaxed) os << "reduction-closure: " << isl_text(d.reduction_closure) << "\n";
}

}  // namespace atl::poly
