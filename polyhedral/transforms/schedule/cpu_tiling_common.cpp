// Helpers shared by the CPU tiling transformations (see cpu_tiling_common.h).
#include "polyhedral/transforms/schedule/cpu_tiling_common.h"

namespace atl::poly::tiling {

using compute::Expr;
using compute::ExprKind;

std::vector<bool> coincidence(const isl::schedule_node_band &b) {
  std::vector<bool> c;
  for (unsigned m = 0; m < b.n_member(); ++m) c.push_back(b.member_get_coincident(static_cast<int>(m)));
  return c;
}

/// The statement groups of the two shapes schedulers produce for one node:
/// band -> (leaf | sequence of filter -> leaf), or sequence of filter -> (band -> leaf | leaf).
std::optional<std::vector<Group>> groups_of(const isl::schedule &schedule) {
  isl::schedule_node top = schedule.root().child(0);
  std::vector<Group> out;
  if (top.isa<isl::schedule_node_band>()) {
    auto b = top.as<isl::schedule_node_band>();
    isl::schedule_node sub = b.child(0);
    auto add = [&](const isl::union_set &f) {
      out.push_back({f, b.partial_schedule().intersect_domain(f), b.permutable(), coincidence(b)});
    };
    if (sub.isa<isl::schedule_node_leaf>()) add(schedule.domain());
    else if (sub.isa<isl::schedule_node_sequence>()) {
      for (unsigned c = 0; c < sub.n_children(); ++c) {
        isl::schedule_node f = sub.child(static_cast<int>(c));
        if (!f.child(0).isa<isl::schedule_node_leaf>()) return std::nullopt;
        add(f.as<isl::schedule_node_filter>().filter());
      }
    } else return std::nullopt;
    return out;
  }
  if (!top.isa<isl::schedule_node_sequence>()) return std::nullopt;
  for (unsigned c = 0; c < top.n_children(); ++c) {
    isl::schedule_node f = top.child(static_cast<int>(c));
    Group g{f.as<isl::schedule_node_filter>().filter(), std::nullopt, false, {}};
    isl::schedule_node sub = f.child(0);
    if (sub.isa<isl::schedule_node_band>()) {
      auto b = sub.as<isl::schedule_node_band>();
      if (!b.child(0).isa<isl::schedule_node_leaf>()) return std::nullopt;
      g.band = b.partial_schedule();
      g.permutable = b.permutable();
      g.coincident = coincidence(b);
    } else if (!sub.isa<isl::schedule_node_leaf>()) return std::nullopt;
    out.push_back(g);
  }
  return out;
}

std::vector<Group> statement_groups(const Scop &scop) {
  std::vector<Group> out;
  for (const ScopStatement &st : scop.statements) out.push_back({isl::union_set(st.domain), std::nullopt, false, {}});
  return out;
}

bool mentions(const compute::Expr &e, const std::string &var) {
  if (e.kind == ExprKind::Var && e.name == var) return true;
  for (const auto &a : e.args)
    if (a && mentions(*a, var)) return true;
  return false;
}

/// Every Read in `e` (a Guard's read included).
void reads_in(const compute::Expr &e, std::vector<const compute::Expr *> &out) {
  if (e.kind == ExprKind::Read) out.push_back(&e);
  for (const auto &a : e.args)
    if (a) reads_in(*a, out);
}

/// Number of values of dimension `d` of `domain`, or -1 when not a constant.
long extent(const isl::set &domain, int d) {
  isl::val lo = domain.dim_min_val(d), hi = domain.dim_max_val(d);
  if (!lo.is_int() || !hi.is_int()) return -1;
  return hi.get_num_si() - lo.get_num_si() + 1;
}

isl::multi_union_pw_aff product(const std::vector<isl::union_pw_aff> &members) {
  isl::multi_union_pw_aff m(members.front());
  for (std::size_t k = 1; k < members.size(); ++k) m = m.flat_range_product(isl::multi_union_pw_aff(members[k]));
  return m;
}

isl::schedule_node insert_band(isl::schedule_node at, const std::vector<isl::union_pw_aff> &members,
                               const std::vector<bool> &coincident, bool permutable) {
  auto b = at.insert_partial_schedule(product(members)).as<isl::schedule_node_band>();
  b = b.set_permutable(permutable ? 1 : 0);
  for (std::size_t m = 0; m < coincident.size(); ++m) b = b.member_set_coincident(static_cast<int>(m), coincident[m] ? 1 : 0);
  return b;
}

bool reads_in_panels(const ScopStatement &s, const ScopAccess &r, int v, long nr) {
  if (nr <= 1) return false;
  isl::map access = r.relation.gist_domain(s.domain);
  const unsigned rank = access.range_tuple_dim();
  if (rank < 3) return false;
  std::string in, out;
  for (std::size_t d = 0; d < s.indices.size(); ++d) in += (d ? ", x" : "x") + std::to_string(d);
  for (unsigned d = 0; d < rank; ++d) out += (d ? ", a" : "a") + std::to_string(d);
  isl::map panels(access.ctx(), "{ " + s.name + "[" + in + "] -> " + r.array + "[" + out + "] : a" +
                                    std::to_string(rank - 1) + " = x" + std::to_string(v) + " mod " + std::to_string(nr) + " }");
  return access.is_subset(panels);
}

std::string x(int d) { return "x" + std::to_string(d); }

std::string tuple(const ScopStatement &s, int shifted) {
  std::string out = s.name + "[";
  for (std::size_t d = 0; d < s.indices.size(); ++d)
    out += (d ? ", " : "") + x(static_cast<int>(d)) + (static_cast<int>(d) == shifted ? " + 1" : "");
  return out + "]";
}

isl::set dimension_values(const ScopStatement &s, int d) {
  return isl::map(s.domain.ctx(), "{ " + tuple(s) + " -> [" + x(d) + "] }").intersect_domain(s.domain).range();
}

isl::schedule_node insert_group_band(isl::schedule_node leaf, const Group &g) {
  if (!g.band) return leaf;
  auto b = leaf.insert_partial_schedule(*g.band).as<isl::schedule_node_band>();
  b = b.set_permutable(g.permutable ? 1 : 0);
  for (std::size_t m = 0; m < g.coincident.size(); ++m) b = b.member_set_coincident(static_cast<int>(m), g.coincident[m] ? 1 : 0);
  return isl::schedule_node(b);
}

isl::schedule_node insert_distributed_band(isl::schedule_node leaf, const Group &g, const Scop &scop) {
  const ScopStatement *only = nullptr;
  for (const ScopStatement &st : scop.statements)
    if (!g.filter.intersect(isl::union_set(st.domain)).is_empty()) {
      if (only) return insert_group_band(leaf, g);
      only = &st;
    }
  if (!only || only->indices.empty()) return insert_group_band(leaf, g);
  bool reduction = only->op != compute::AssignOp::Assign;
  for (bool r : only->reduction) reduction = reduction || r;
  std::string vars;
  for (std::size_t d = 0; d < only->indices.size(); ++d) vars += (d ? ", " : "") + x(static_cast<int>(d));
  std::vector<isl::union_pw_aff> members;
  for (std::size_t d = 0; d < only->indices.size(); ++d)
    members.emplace_back(leaf.ctx(), "{ " + only->name + "[" + vars + "] -> [(" + x(static_cast<int>(d)) + ")] }");
  bool independent = !reduction && only->write.relation.intersect_domain(only->domain).is_injective();
  return insert_band(leaf, members, std::vector<bool>(members.size(), independent), true);
}

isl::schedule rebuild_groups(const isl::union_set &domain, const std::vector<Group> &groups,
                             const std::function<isl::schedule_node(isl::schedule_node, std::size_t)> &build) {
  isl::schedule_node node = isl::schedule_node::from_domain(domain).child(0);
  if (groups.size() == 1) return build(node, 0).schedule();
  isl::union_set_list filters(domain.ctx(), static_cast<int>(groups.size()));
  for (const Group &g : groups) filters = filters.add(g.filter);
  node = node.insert_sequence(filters);
  for (std::size_t gi = 0; gi < groups.size(); ++gi)
    node = build(node.child(static_cast<int>(gi)).child(0), gi).parent().parent();
  return node.schedule();
}

}  // namespace atl::poly::tiling
