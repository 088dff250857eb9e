// A JSCoP's strings parsed into isl objects, checked against each other,
// and its memory-based dependences.
#include "polyhedral/jscop/jscop_scop.h"

#include "polyhedral/isl/isl_context.h"

#include <algorithm>

namespace atl::poly::jscop {

namespace {

std::string pointer(std::size_t statement, const std::string &key) {
  return "/statements/" + std::to_string(statement) + "/" + key;
}

UserError at(const std::string &where, const std::string &reason) {
  Location loc;
  loc.pointer = where;
  return UserError(reason, loc);
}

/// isl's object for `text`, or a UserError naming the string's place.
template <class T>
T read(isl::ctx ctx, const std::string &text, const std::string &where, const char *what) {
  try {
    T object(ctx, text);
    if (object.is_null()) throw at(where, std::string("isl cannot read the ") + what + " \"" + text + "\"");
    return object;
  } catch (const isl::exception &) {
    throw at(where, std::string("isl cannot read the ") + what + " \"" + text + "\"");
  }
}

long bytes_of_type(const std::string &type) {
  if (type == "double" || type == "i64" || type == "ptr" || type == "x86_fp80") return type == "x86_fp80" ? 16 : 8;
  if (type == "float" || type == "i32") return 4;
  if (type == "half" || type == "bfloat" || type == "i16") return 2;
  if (type == "i8" || type == "i1") return 1;
  return 8;
}

/// "{ Name[x0, ..., xn-1] -> [0, ..., 0] }" with `zeros` outputs.
isl::map zero_map(isl::ctx ctx, const std::string &name, int inputs, int zeros) {
  std::string text = "{ " + name + "[";
  for (int i = 0; i < inputs; ++i) text += (i ? ", x" : "x") + std::to_string(i);
  text += "] -> [";
  for (int i = 0; i < zeros; ++i) text += i ? ", 0" : "0";
  return isl::map(ctx, text + "] }");
}

}  // namespace

isl::map pad(const isl::map &m, int dimensions) {
  int have = static_cast<int>(m.range_tuple_dim());
  if (have >= dimensions) return m;
  isl::map zeros = zero_map(m.ctx(), domain_tuple_name(m), static_cast<int>(m.domain_tuple_dim()),
                            dimensions - have);
  return m.range_product(zeros).flatten_range();
}

isl::union_map Parsed::reads() const {
  isl::union_map u(context.ctx(), "{ }");
  for (const auto &list : accesses)
    for (const Access &a : list)
      if (!a.write) u = u.unite(isl::union_map(a.relation));
  return u;
}

isl::union_map Parsed::writes() const {
  isl::union_map u(context.ctx(), "{ }");
  for (const auto &list : accesses)
    for (const Access &a : list)
      if (a.write) u = u.unite(isl::union_map(a.relation));
  return u;
}

isl::union_map Parsed::schedule() const {
  isl::union_map u(context.ctx(), "{ }");
  for (const isl::map &m : original) u = u.unite(isl::union_map(m));
  return u;
}

isl::union_set Parsed::domain() const {
  isl::union_set u(context.ctx(), "{ }");
  for (const isl::set &d : domains) u = u.unite(isl::union_set(d));
  return u;
}

long Parsed::bytes_of(const std::string &array) const {
  auto it = element_bytes.find(array);
  return it == element_bytes.end() ? 8 : it->second;
}

Parsed parse(isl::ctx ctx, const Jscop &scop) {
  Parsed p;
  p.context = scop.context.empty() ? isl::set(ctx, "{ : }") : read<isl::set>(ctx, scop.context, "/context", "context");
  if (!is_params(p.context)) throw at("/context", "the context \"" + scop.context + "\" is not a parameter set");
  for (const JscopArray &a : scop.arrays) p.element_bytes[a.name] = bytes_of_type(a.type);
  if (scop.statements.empty()) throw at("/statements", "the SCoP has no statements");

  std::vector<std::string> seen;
  for (std::size_t s = 0; s < scop.statements.size(); ++s) {
    const JscopStatement &st = scop.statements[s];
    if (std::find(seen.begin(), seen.end(), st.name) != seen.end())
      throw at(pointer(s, "name"), "statement name '" + st.name + "' appears twice");
    seen.push_back(st.name);
    isl::set domain = read<isl::set>(ctx, st.domain, pointer(s, "domain"), "domain");
    if (is_params(domain) || tuple_name(domain) != st.name)
      throw at(pointer(s, "domain"), "the domain \"" + st.domain + "\" is not a set of statement '" + st.name + "'");
    const auto dims = domain.tuple_dim();
    isl::map sched = read<isl::map>(ctx, st.schedule, pointer(s, "schedule"), "schedule");
    if (domain_tuple_name(sched) != st.name || sched.domain_tuple_dim() != dims)
      throw at(pointer(s, "schedule"), "the schedule \"" + st.schedule + "\" does not map statement '" + st.name +
                                            "' with its " + std::to_string(dims) + " dimensions");
    if (!range_tuple_name(sched).empty())
      throw at(pointer(s, "schedule"), "the schedule \"" + st.schedule + "\" has a named range; Polly's have none");
    p.domains.push_back(domain);
    p.original.push_back(sched.intersect_domain(domain));
    p.dimensions = std::max(p.dimensions, static_cast<int>(sched.range_tuple_dim()));

    std::vector<Access> list;
    for (std::size_t a = 0; a < st.accesses.size(); ++a) {
      const std::string where = pointer(s, "accesses/" + std::to_string(a) + "/relation");
      isl::map rel = read<isl::map>(ctx, st.accesses[a].relation, where, "access relation");
      if (domain_tuple_name(rel) != st.name || rel.domain_tuple_dim() != dims)
        throw at(where, "the access \"" + st.accesses[a].relation + "\" is not an access of statement '" + st.name +
                            "' with its " + std::to_string(dims) + " dimensions");
      if (range_tuple_name(rel).empty()) throw at(where, "the access \"" + st.accesses[a].relation + "\" names no array");
      list.push_back(Access{rel.intersect_domain(domain), st.accesses[a].write, range_tuple_name(rel)});
    }
    p.accesses.push_back(std::move(list));
  }
  for (isl::map &m : p.original) m = pad(m, p.dimensions);
  return p;
}

Dependences memory_dependences(const Parsed &parsed) {
  isl::union_map schedule = parsed.schedule(), reads = parsed.reads(), writes = parsed.writes();
  auto may = [&](const isl::union_map &sink, const isl::union_map &source) {
    return isl::union_access_info(sink).set_may_source(source).set_schedule_map(schedule).compute_flow().may_dependence();
  };
  Dependences d;
  d.flow = may(reads, writes);
  d.anti = may(writes, reads);
  d.output = may(writes, writes);
  d.reduction_closure = isl::union_map(parsed.context.ctx(), "{ }");
  return d;
}

Scop scheduling_scop(const Jscop &scop, const Parsed &parsed) {
  Scop s;
  s.name = scop.name;
  s.params = param_names(parsed.context.space());
  std::sort(s.params.begin(), s.params.end());
  s.context = parsed.context;
  for (std::size_t k = 0; k < scop.statements.size(); ++k) {
    ScopStatement st;
    st.name = scop.statements[k].name;
    st.domain = parsed.domains[k];
    const auto dims = st.domain.tuple_dim();
    for (unsigned d = 0; d < dims; ++d) st.indices.push_back("i" + std::to_string(d));
    st.reduction.assign(dims, false);
    // No single written element: an empty relation (isl objects may not be null when copied).
    st.write.relation = isl::map::empty(st.domain.space().map_from_set());
    s.statements.push_back(std::move(st));
  }
  return s;
}

isl::union_set schedule_deltas(const std::vector<isl::map> &schedules, const isl::union_map &deps) {
  isl::union_map s(deps.ctx(), "{ }");
  for (const isl::map &m : schedules) s = s.unite(isl::union_map(m));
  return deps.apply_domain(s).apply_range(s).deltas();
}

std::string lex_greater(const std::string &u, const std::string &t, int n) {
  if (n == 0) return "1 = 0";
  auto at = [](const std::string &p, int i) { return p.empty() ? std::string("0") : p + std::to_string(i); };
  std::string c;
  for (int i = 0; i < n; ++i) {
    c += i ? " or (" : "(";
    for (int j = 0; j < i; ++j) c += at(u, j) + " = " + at(t, j) + " and ";
    c += at(u, i) + " > " + at(t, i) + ")";
  }
  return c;
}

bool lex_positive(const isl::union_set &deltas, int n) {
  std::string d = "[";
  for (int i = 0; i < n; ++i) d += (i ? ", d" : "d") + std::to_string(i);
  return deltas.is_subset(isl::union_set(deltas.ctx(), "{ " + d + "] : " + lex_greater("d", "", n) + " }"));
}

}  // namespace atl::poly::jscop
