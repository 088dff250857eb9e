// Semantic analysis of Compute programs: index ranges, tensor roles, shapes
// and dtypes, quasi-affine subscripts and bounds of every access.
#include "graph/compute/ast.h"
#include "graph/compute/compute.h"

#include <atoll/diagnostics.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

namespace atl::compute {

namespace {

struct Interval {
  std::int64_t lo = 0, hi = 0;  // inclusive
};

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

Interval scaled(Interval v, std::int64_t c) {
  return c >= 0 ? Interval{v.lo * c, v.hi * c} : Interval{v.hi * c, v.lo * c};
}

/// Range of a quasi-affine form over a box: exact for linear forms,
/// conservative for floor and mod terms.
Interval range_of(const QuasiAffine &q, const std::map<std::string, Interval> &box) {
  Interval r{q.constant, q.constant};
  for (const auto &[name, coeff] : q.vars) {
    Interval v = scaled(box.at(name), coeff);
    r.lo += v.lo;
    r.hi += v.hi;
  }
  for (const auto &t : q.terms) {
    Interval n = range_of(*t.num, box), v;
    std::int64_t qlo = floor_div(n.lo, t.den), qhi = floor_div(n.hi, t.den);
    if (t.kind == QuasiAffine::Term::Kind::FloorDiv) v = {qlo, qhi};
    else if (qlo == qhi) v = {n.lo - qlo * t.den, n.hi - qlo * t.den};
    else v = {0, t.den - 1};
    v = scaled(v, t.coeff);
    r.lo += v.lo;
    r.hi += v.hi;
  }
  return r;
}

Location at(int line, int column) {
  Location loc;
  loc.line = line;
  loc.column = column;
  return loc;
}
Location at(const Expr &e) { return at(e.line, e.column); }

[[noreturn]] void fail(const Expr &e, const std::string &reason) { throw UserError(reason, at(e)); }

/// One tensor access of a statement.
struct Access {
  const Expr *read;  // a Read node
  bool guarded;      // inside guard(): no bounds requirement
  bool lhs;
  std::vector<std::optional<QuasiAffine>> subs;  // empty for an indirect subscript
};

void collect_accesses(const Expr &e, bool guarded, std::vector<Access> &out) {
  switch (e.kind) {
  case ExprKind::Read: out.push_back({&e, guarded, false, {}}); break;
  case ExprKind::Guard:
    collect_accesses(*e.args[0], true, out);
    collect_accesses(*e.args[1], false, out);
    return;
  case ExprKind::Number:
  case ExprKind::Var:
  case ExprKind::Unary:
  case ExprKind::Binary:
  case ExprKind::Select:
  case ExprKind::Call: break;
  }
  for (const auto &a : e.args) collect_accesses(*a, false, out);
}

class Analyzer {
public:
  Analyzer(const Program &p, const Signature &s) : prog_(p), sig_(s) {}

  Analysis run() {
    out_.params = sig_.params;
    DType dtype = result_dtype();
    for (const auto &st : prog_.statements) {
      const std::string &name = st.lhs->name;
      if (sig_.inputs.count(name)) fail(*st.lhs, "cannot write input tensor '" + name + "'");
      written_.insert(name);
    }
    for (const auto &o : sig_.outputs)
      if (!written_.count(o)) throw UserError("output '" + o + "' is never written", at(1, 1));
    for (const auto &[name, use] : sig_.inputs) fixed_[name] = use.shape;
    for (const auto &[name, shape] : sig_.output_shapes) fixed_[name] = shape;

    std::vector<Pending> pending;
    for (std::size_t k = 0; k < prog_.statements.size(); ++k) pending.push_back(statement(k));
    for (const auto &p : pending) check_bounds(p);

    for (const auto &[name, use] : sig_.inputs)
      if (named_.count(name)) out_.tensors[name] = {TensorRole::Input, use.dtype, use.shape};
    for (const auto &name : written_) {
      if (!shape_of(name)) {
        const Statement &first = *std::find_if(prog_.statements.begin(), prog_.statements.end(),
                                               [&](const Statement &st) { return st.lhs->name == name; });
        fail(*first.lhs, "cannot infer the shape of '" + name + "': its statements write no element (empty ranges)");
      }
      bool is_output = std::find(sig_.outputs.begin(), sig_.outputs.end(), name) != sig_.outputs.end();
      // Temporaries of f16/bf16 programs are kept in f32 (sums and statistics
      // would otherwise round to 8 or 11 bits at every step).
      DType t = !is_output && (dtype == DType::F16 || dtype == DType::BF16) ? DType::F32 : dtype;
      out_.tensors[name] = {is_output ? TensorRole::Output : TensorRole::Temporary, t, *shape_of(name)};
    }
    return std::move(out_);
  }

private:
  struct Pending {
    const Statement *st;
    std::vector<Access> accesses;
    std::map<std::string, Interval> box;  // indices (inclusive) and parameters
    bool empty;
  };

  const Program &prog_;
  const Signature &sig_;
  Analysis out_;
  std::set<std::string> written_, named_;
  std::map<std::string, Shape> fixed_, inferred_;

  /// The type of temporaries: the inputs' one type; f64 if any input is f64
  /// (f32 would round its values); f32 for other mixes.
  DType result_dtype() const {
    std::optional<DType> d;
    bool mixed = false, f64 = false;
    for (const auto &[name, use] : sig_.inputs) {
      if (d && *d != use.dtype) mixed = true;
      if (use.dtype == DType::F64) f64 = true;
      d = use.dtype;
    }
    if (f64) return DType::F64;
    if (mixed) return DType::F32;
    return d.value_or(DType::F32);
  }

  const Shape *shape_of(const std::string &name) const {
    if (auto it = fixed_.find(name); it != fixed_.end()) return &it->second;
    if (auto it = inferred_.find(name); it != inferred_.end()) return &it->second;
    return nullptr;
  }

  bool is_param(const std::string &name) const { return sig_.params.count(name) != 0; }

  void collect_indices(const Expr &e, std::vector<const Expr *> &order) const {
    if (e.kind == ExprKind::Var && !is_param(e.name)) {
      bool seen = std::any_of(order.begin(), order.end(), [&](const Expr *v) { return v->name == e.name; });
      if (!seen) order.push_back(&e);
    }
    for (const auto &a : e.args) collect_indices(*a, order);
  }

  std::int64_t bound(const Expr &e) const {
    auto q = to_quasi_affine(e);
    if (q)
      for (const auto &[name, coeff] : q->vars)
        if (!is_param(name)) fail(e, "range bound '" + print(e) + "' uses '" + name + "', which is not a parameter");
    if (!q) fail(e, "range bound '" + print(e) + "' is not an integer expression of parameters");
    return q->evaluate(sig_.params);
  }

  void check_rank(const Access &a, const Shape &shape) const {
    if (a.read->args.size() != shape.size())
      fail(*a.read, "tensor '" + a.read->name + "' has rank " + std::to_string(shape.size()) + " (shape " +
                        shape_to_string(shape) + ") but '" + print(*a.read) + "' gives " +
                        std::to_string(a.read->args.size()) + " subscript" + (a.read->args.size() == 1 ? "" : "s"));
  }

  Pending statement(std::size_t k) {
    const Statement &st = prog_.statements[k];
    Pending p{&st, {}, {}, false};

    // Indices in loop-nest order: the left-hand side's, then reduction indices.
    std::vector<const Expr *> lhs_idx, all_idx;
    for (const auto &s : st.lhs->args) {
      if (contains_read(*s)) fail(*s, "indirect subscript '" + print(*s) + "' on the left-hand side is not supported");
      collect_indices(*s, lhs_idx);
    }
    all_idx = lhs_idx;
    collect_indices(*st.rhs, all_idx);
    if (st.op == AssignOp::Assign && all_idx.size() > lhs_idx.size()) {
      const Expr &r = *all_idx[lhs_idx.size()];
      fail(r, "index '" + r.name + "' appears only on the right-hand side of '='; use a reduction operator such as "
              "'+=!' to reduce over it");
    }

    // Ranges: the where clause first, else subscripts where the index appears alone.
    std::map<std::string, std::optional<Interval>> ranges;
    std::set<std::string> from_where;
    for (const Expr *v : all_idx) ranges[v->name];
    for (const auto &r : st.where) {
      if (is_param(r.name)) throw UserError("'" + r.name + "' is a parameter, not an index", at(r.line, r.column));
      if (!ranges.count(r.name))
        throw UserError("index '" + r.name + "' of the 'where' clause does not appear in the statement",
                        at(r.line, r.column));
      if (!from_where.insert(r.name).second)
        throw UserError("index '" + r.name + "' has two ranges in the 'where' clause", at(r.line, r.column));
      ranges[r.name] = Interval{bound(*r.lo), bound(*r.hi) - 1};
    }

    p.accesses.push_back({st.lhs.get(), false, true, {}});
    collect_accesses(*st.rhs, false, p.accesses);
    for (auto &a : p.accesses) {
      const std::string &name = a.read->name;
      named_.insert(name);
      if (!sig_.inputs.count(name) && !written_.count(name))
        fail(*a.read, "unknown tensor '" + name + "': not an input and never written");
      const Shape *shape = shape_of(name);
      if (shape) check_rank(a, *shape);
      for (std::size_t d = 0; d < a.read->args.size(); ++d) {
        const Expr &s = *a.read->args[d];
        if (contains_read(s)) {
          a.subs.emplace_back();
          continue;
        }
        auto q = to_quasi_affine(s);
        if (!q)
          fail(s, "non-affine subscript '" + print(s) + "' in '" + print(*a.read) +
                      "': subscripts must be quasi-affine (+, -, * by a constant, floor division and modulo by a "
                      "positive constant) or read a tensor");
        a.subs.push_back(std::move(q));
        if (shape && s.kind == ExprKind::Var && !is_param(s.name) && !from_where.count(s.name)) {
          Interval dim{0, (*shape)[d] - 1};
          auto &r = ranges[s.name];
          r = r ? Interval{std::max(r->lo, dim.lo), std::min(r->hi, dim.hi)} : dim;
        }
      }
    }

    // The statement list: NODE_k_init, then NODE_k.
    Analysis::Statement init, main;
    main.name = sig_.node + "_" + std::to_string(k);
    main.source = static_cast<int>(k);
    for (const Expr *v : all_idx) {
      const auto &r = ranges[v->name];
      if (!r)
        fail(*v, "cannot infer the range of index '" + v->name + "': give it in a 'where' clause (where " + v->name +
                     " in LO:HI) or use it alone as a subscript of a tensor of known shape");
      bool reduction = std::none_of(lhs_idx.begin(), lhs_idx.end(), [&](const Expr *l) { return l->name == v->name; });
      main.indices.push_back({v->name, r->lo, r->hi + 1, reduction});
      if (!reduction) init.indices.push_back(main.indices.back());
      p.box[v->name] = *r;
      if (r->lo > r->hi) p.empty = true;
    }
    for (const auto &[name, value] : sig_.params) p.box[name] = {value, value};
    if (st.init) {
      init.name = main.name + "_init";
      init.source = main.source;
      init.init = true;
      out_.statements.push_back(std::move(init));
    }
    out_.statements.push_back(std::move(main));

    // The written tensor's shape grows to cover this statement's writes.
    const Access &lhs = p.accesses.front();
    if (!fixed_.count(st.lhs->name) && !p.empty) {
      Shape extent;
      for (std::size_t d = 0; d < lhs.subs.size(); ++d) {
        Interval r = range_of(*lhs.subs[d], p.box);
        if (r.lo < 0) out_of_bounds(lhs, d, r, -1);
        extent.push_back(r.hi + 1);
      }
      auto it = inferred_.find(st.lhs->name);
      if (it == inferred_.end()) {
        inferred_[st.lhs->name] = extent;
      } else {
        check_rank(lhs, it->second);
        for (std::size_t d = 0; d < extent.size(); ++d) it->second[d] = std::max(it->second[d], extent[d]);
      }
    }
    return p;
  }

  [[noreturn]] void out_of_bounds(const Access &a, std::size_t d, Interval r, std::int64_t extent) const {
    const Expr &s = *a.read->args[d];
    std::string what = extent < 0 ? "a negative subscript" : "extent " + std::to_string(extent);
    fail(s, std::string(a.lhs ? "write" : "read") + " '" + print(*a.read) + "' is out of bounds in dimension " +
                std::to_string(d) + ": subscript '" + print(s) + "' ranges over [" + std::to_string(r.lo) + ", " +
                std::to_string(r.hi) + "] but '" + a.read->name + "' has " + what);
  }

  void check_bounds(const Pending &p) const {
    for (const auto &a : p.accesses) {
      const Shape *shape = shape_of(a.read->name);
      if (!shape) fail(*a.read, "cannot infer the shape of '" + a.read->name + "': no statement writes any element");
      check_rank(a, *shape);
      if (a.guarded || p.empty) continue;
      for (std::size_t d = 0; d < a.subs.size(); ++d) {
        if (!a.subs[d]) continue;  // indirect: checked when evaluated
        Interval r = range_of(*a.subs[d], p.box);
        if (r.lo < 0 || r.hi >= (*shape)[d]) out_of_bounds(a, d, r, (*shape)[d]);
      }
    }
  }
};

}  // namespace

Analysis analyze(const Program &program, const Signature &signature) {
  return Analyzer(program, signature).run();
}

}  // namespace atl::compute
