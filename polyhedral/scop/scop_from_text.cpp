// Builds a poly::Scop from isl strings (domains, accesses) and Compute bodies.
#include "polyhedral/scop/collect_reads.h"
#include "polyhedral/scop/scop_from_text.h"

#include "graph/compute/compute.h"
#include "polyhedral/isl/isl_context.h"

#include <atoll/diagnostics.h>


#include <algorithm>
#include <set>

namespace atl::poly {
namespace {

using compute::Expr;
using compute::ExprKind;
using compute::ExprPtr;

[[noreturn]] void fail(const std::string &where, const std::string &why) { throw UserError(where + ": " + why); }

/// Parses isl text, turning isl's failure into a UserError naming `what`.
template <class T>
T parse_isl(isl::ctx ctx, const std::string &what, const std::string &text) {
  try {
    return T(ctx, text);
  } catch (const isl::exception &) {
    fail(what, "not valid isl text: '" + text + "'");
  }
}


/// Every Var of `e` must be an index or a parameter; every Read an array of the right rank.
void check_names(const Expr &e, const std::set<std::string> &vars, const Scop &scop, const std::string &where) {
  if (e.kind == ExprKind::Var && !vars.count(e.name))
    fail(where, "'" + e.name + "' is neither a dimension of the domain nor a parameter");
  if (e.kind == ExprKind::Read) {
    const ScopArray *a = scop.array(e.name);
    if (!a) fail(where, "the body reads or writes '" + e.name + "', which is not an array of the SCoP");
    if (a->array.shape.size() != e.args.size())
      fail(where, "'" + compute::print(e) + "' has " + std::to_string(e.args.size()) + " subscripts, array '" +
                      e.name + "' has rank " + std::to_string(a->array.shape.size()));
  }
  for (const auto &a : e.args) check_names(*a, vars, scop, where);
}

/// "2 * i + j - 1": an affine expression of the domain dimensions and
/// parameters with integer coefficients, as Compute text.
std::string aff_text(const isl::aff &aff, const std::vector<std::string> &in, const std::vector<std::string> &params,
                     const std::string &where) {
  AffCoefficients c = aff_coefficients(aff);
  if (c.has_divs) fail(where, "the write map uses division or modulo; give the body as a full Compute statement");
  std::string text;
  bool ok = true;
  auto add = [&](const isl::val &v, const std::string &var) {
    if (!v.is_int()) ok = false;
    long k = v.get_num_si();
    if (k == 0) return;
    std::string t = var.empty() ? std::to_string(k < 0 ? -k : k)
                                : ((k == 1 || k == -1) ? var : std::to_string(k < 0 ? -k : k) + " * " + var);
    if (text.empty()) text = (k < 0 ? "-" : "") + t;
    else text += (k < 0 ? " - " : " + ") + t;
  };
  for (std::size_t d = 0; d < in.size() && d < c.in.size(); ++d) add(c.in[d], in[d]);
  for (std::size_t p = 0; p < params.size() && p < c.params.size(); ++p) add(c.params[p], params[p]);
  add(c.constant, "");
  if (!ok) fail(where, "the write map has a rational coefficient");
  return text.empty() ? "0" : text;
}

/// The left-hand side "C(i, j)" of a write map.
std::string lhs_text(const isl::map &write, const std::string &array, const std::vector<std::string> &in,
                     const std::string &where) {
  isl::pw_multi_aff pma;
  try {
    pma = write.as_pw_multi_aff();
  } catch (const isl::exception &) {
    fail(where, "the write map is not a function");
  }
  if (pma.n_piece() != 1) fail(where, "the write map is piecewise; give the body as a full Compute statement");
  isl::multi_aff ma;
  pma.foreach_piece([&](isl::set, isl::multi_aff m) { ma = m; });
  std::vector<std::string> params = param_names(ma.space());
  std::string text = array + "(";
  for (int d = 0, n = static_cast<int>(ma.size()); d < n; ++d)
    text += (d ? ", " : "") + aff_text(ma.at(d), in, params, where);
  return text + ")";
}

/// True when the body text has an assignment at its top (not ==, <=, >=, !=).
bool is_statement(const std::string &body) {
  for (std::size_t k = 0; k < body.size(); ++k) {
    if (body[k] != '=') continue;
    char prev = k ? body[k - 1] : ' ', next = k + 1 < body.size() ? body[k + 1] : ' ';
    if (next == '=') { ++k; continue; }
    if (prev == '<' || prev == '>' || prev == '!' || prev == '=') continue;
    return true;
  }
  return false;
}

class TextScopBuilder {
public:
  TextScopBuilder(isl::ctx ctx, const TextScop &text) : ctx_(ctx), text_(text) {}

  Scop run() {
    scop_.name = sanitize_identifier(text_.name);
    collect_params();
    for (const auto &a : text_.arrays) add_array(a);
    for (std::size_t k = 0; k < text_.statements.size(); ++k) add_statement(k, text_.statements[k]);
    if (scop_.statements.empty()) throw UserError("the SCoP has no statements");
    std::stable_sort(scop_.arrays.begin(), scop_.arrays.end(),
                     [](const ScopArray &a, const ScopArray &b) { return a.kind < b.kind; });
    return std::move(scop_);
  }

private:
  void collect_params() {
    std::set<std::string> ps;
    auto take = [&](const isl::set &set) {
      for (auto &p : param_names(set.space())) ps.insert(p);
    };
    if (!text_.context.empty()) {
      isl::set c = parse_isl<isl::set>(ctx_, "context", text_.context);
      if (!is_params(c)) fail("context", "must be a parameter set '[N] -> { : ... }'");
      take(c);
    }
    for (std::size_t k = 0; k < text_.statements.size(); ++k)
      take(parse_isl<isl::set>(ctx_, "statement " + std::to_string(k) + " domain", text_.statements[k].domain));
    for (const auto &a : text_.arrays)
      for (const auto &d : a.shape)
        if (d.is_symbolic()) ps.insert(d.symbol);
    scop_.params.assign(ps.begin(), ps.end());
    for (const auto &p : scop_.params) prefix_ += (prefix_.empty() ? "" : ", ") + p;
    if (!prefix_.empty()) prefix_ = "[" + prefix_ + "] -> ";
    scop_.context = parse_isl<isl::set>(ctx_, "context", prefix_ + "{ : }");
    if (!text_.context.empty()) scop_.context = scop_.context.intersect(isl::set(ctx_, text_.context));
  }

  void add_array(const TextArray &t) {
    std::string where = "array '" + t.name + "'";
    if (t.name.empty() || sanitize_identifier(t.name) != t.name) fail(where, "the name must be a C identifier");
    if (scop_.array(t.name)) fail(where, "declared twice");
    ScopArray a;
    a.array = KernelArray{t.name, t.dtype, t.shape, t.role};
    a.kind = t.role == KernelArray::Role::Input    ? ScopArray::Kind::Input
             : t.role == KernelArray::Role::Output ? ScopArray::Kind::Output
                                              : ScopArray::Kind::ClusterLocal;
    a.tensor = t.name;
    std::string outs, cons = "true";
    for (std::size_t d = 0; d < t.shape.size(); ++d) {
      std::string o = "o" + std::to_string(d);
      outs += (d ? ", " : "") + o;
      const Dim &dim = t.shape[d];
      if (!dim.is_symbolic() && dim.value < 1) fail(where, "extent " + std::to_string(d) + " must be positive");
      cons += " and 0 <= " + o + " < " + (dim.is_symbolic() ? dim.symbol : std::to_string(dim.value));
    }
    a.extent = parse_isl<isl::set>(ctx_, where, prefix_ + "{ " + t.name + "[" + outs + "] : " + cons + " }")
                   .intersect_params(scop_.context);
    scop_.array_of_tensor[t.name] = t.name;
    scop_.arrays.push_back(std::move(a));
  }

  /// An access map of statement `st`: checked against the domain and the array.
  ScopAccess access(const ScopStatement &st, const std::string &text, const std::string &what, bool in_bounds) {
    std::string where = "statement '" + st.name + "' " + what;
    isl::map m = parse_isl<isl::map>(ctx_, where, text);
    if (domain_tuple_name(m) != st.name) fail(where, "the map's domain must be the statement '" + st.name + "'");
    if (m.domain_tuple_dim() != st.indices.size()) fail(where, "the map's domain has the wrong number of dimensions");
    ScopAccess a;
    a.array = range_tuple_name(m);
    const ScopArray *arr = scop_.array(a.array);
    if (!arr) fail(where, "'" + a.array + "' is not an array of the SCoP");
    if (m.range_tuple_dim() != arr->array.shape.size())
      fail(where, "array '" + a.array + "' has rank " + std::to_string(arr->array.shape.size()));
    a.relation = m.intersect_domain(st.domain);
    if (in_bounds && !a.relation.range().is_subset(arr->extent))
      fail(where, "accesses '" + a.array + "' out of bounds (use guard(...) in the body for padding)");
    return a;
  }

  void add_statement(std::size_t k, const TextStatement &t) {
    ScopStatement st;
    isl::set domain = parse_isl<isl::set>(ctx_, "statement " + std::to_string(k) + " domain", t.domain);
    st.name = tuple_name(domain);
    std::string where = "statement '" + st.name + "'";
    if (st.name.empty() || sanitize_identifier(st.name) != st.name)
      fail("statement " + std::to_string(k), "the domain needs a tuple name that is a C identifier");
    if (scop_.statement(st.name)) fail(where, "two statements have this name");
    st.node = scop_.name;
    std::set<std::string> vars(scop_.params.begin(), scop_.params.end());
    std::vector<std::string> dim_names = set_dim_names(domain);
    for (std::size_t d = 0; d < dim_names.size(); ++d) {
      const std::string &ix = dim_names[d];
      if (ix.empty()) fail(where, "domain dimension " + std::to_string(d) + " has no name");
      if (vars.count(ix)) fail(where, "index '" + ix + "' is used twice or clashes with a parameter");
      vars.insert(ix);
      st.indices.push_back(ix);
    }
    st.domain = domain.intersect_params(scop_.context);
    st.write = access(st, t.write, "write", true);
    isl::map raw_write = isl::map(ctx_, t.write);
    for (std::size_t d = 0; d < dim_names.size(); ++d)
      st.reduction.push_back(!involves_in_dim(raw_write, static_cast<int>(d)));
    if (!st.write.relation.is_single_valued()) fail(where, "the write map must give one element per instance");

    std::string body = t.body;
    if (!is_statement(body)) {
      std::string op = compute::assign_op_name(t.op);
      body = lhs_text(raw_write, st.write.array, st.indices, where) + " " + op + " " + body;
    }
    std::shared_ptr<const compute::Program> prog;
    try {
      prog = compute::parse(body);
    } catch (const UserError &e) {
      fail(where, "body '" + body + "': " + e.what());
    }
    if (prog->statements.size() != 1) fail(where, "the body must be one statement");
    const compute::Statement &s = prog->statements.front();
    if (s.init) fail(where, "'op=!' is not allowed: give the initialisation as its own statement");
    if (!s.where.empty()) fail(where, "no 'where' clause: the domain gives the ranges");
    if (s.lhs->name != st.write.array)
      fail(where, "the body writes '" + s.lhs->name + "' but the write map writes '" + st.write.array + "'");
    check_names(*s.lhs, vars, scop_, where);
    check_names(*s.rhs, vars, scop_, where);
    st.op = s.op;
    st.init_of = s.op;
    st.lhs = s.lhs;
    st.rhs = s.rhs;

    std::vector<BodyRead> raw;
    collect_reads(*s.rhs, false, raw);
    if (raw.size() != t.reads.size())
      fail(where, "the body reads " + std::to_string(raw.size()) + " times but " + std::to_string(t.reads.size()) +
                      " read maps are given");
    for (std::size_t r = 0; r < raw.size(); ++r) {
      bool indirect = false;
      for (const auto &sub : raw[r].read->args) indirect = indirect || compute::contains_read(*sub);
      ScopAccess a = access(st, t.reads[r], "read " + std::to_string(r), !raw[r].guarded);
      if (a.array != raw[r].read->name)
        fail(where, "read " + std::to_string(r) + " of the body is '" + compute::print(*raw[r].read) +
                        "' but its map reads '" + a.array + "'");
      a.guarded = raw[r].guarded;
      a.indirect = indirect;
      if (a.guarded) a.relation = a.relation.intersect_range(scop_.array(a.array)->extent);
      st.reads.push_back(std::move(a));
    }
    scop_.statements.push_back(std::move(st));
  }

  isl::ctx ctx_;
  const TextScop &text_;
  Scop scop_;
  std::string prefix_;
};

}  // namespace

Scop scop_from_text(isl::ctx ctx, const TextScop &text) { return TextScopBuilder(ctx, text).run(); }

}  // namespace atl::poly
