// Compiles a Compute statement into a Kernel: register code for the
// right-hand side and linear offsets for its affine accesses.
#include "graph/compute/kernel.h"

#include <atoll/diagnostics.h>

namespace atl::compute::detail {

std::int64_t LinForm::eval(const std::int64_t *idx) const {
  std::int64_t v = c;
  for (const auto &[d, k] : coef) v += k * idx[d];
  for (const auto &t : terms) {
    std::int64_t n = t.num->eval(idx);
    std::int64_t q = n / t.den;
    if (n % t.den != 0 && n < 0) --q;
    v += t.coeff * (t.mod ? n - q * t.den : q);
  }
  return v;
}

namespace {

class Compiler {
public:
  Compiler(const Storage &storage, const std::map<std::string, std::int64_t> &params)
      : storage_(storage), params_(params) {}

  Kernel k;

  void set_loops(const std::vector<std::string> &names) {
    k.names = names;
    for (std::size_t d = 0; d < names.size(); ++d) pos_[names[d]] = static_cast<int>(d);
  }

  int constant(double v) {
    k.regs.push_back(v);
    return static_cast<int>(k.regs.size()) - 1;
  }

  int emit(Op op, int a = 0, int b = 0) {
    int dst = constant(0);
    k.code.push_back({op, dst, a, b});
    return dst;
  }

  int expr(const Expr &e, bool sub) {
    switch (e.kind) {
    case ExprKind::Number: return constant(e.number);
    case ExprKind::Var: {
      if (auto p = params_.find(e.name); p != params_.end()) return constant(static_cast<double>(p->second));
      auto it = pos_.find(e.name);
      ATOLL_ASSERT(it != pos_.end(), "unbound index '" + e.name + "' after analysis");
      return emit(Op::Index, it->second);
    }
    case ExprKind::Unary: return emit(e.unop == UnOp::Neg ? Op::Neg : Op::Not, expr(*e.args[0], sub));
    case ExprKind::Binary: {
      int a = expr(*e.args[0], sub), b = expr(*e.args[1], sub);
      return emit(binop(e.binop, sub), a, b);
    }
    case ExprKind::Select: {
      int dst = constant(0);
      int c = expr(*e.args[0], sub);
      std::size_t jz = k.code.size();
      k.code.push_back({Op::JumpIfZero, 0, c, 0});
      int a = expr(*e.args[1], sub);
      k.code.push_back({Op::Move, dst, a, 0});
      std::size_t jmp = k.code.size();
      k.code.push_back({Op::Jump, 0, 0, 0});
      k.code[jz].b = static_cast<int>(k.code.size());
      int b = expr(*e.args[2], sub);
      k.code.push_back({Op::Move, dst, b, 0});
      k.code[jmp].a = static_cast<int>(k.code.size());
      return dst;
    }
    case ExprKind::Call: {
      int a = expr(*e.args[0], sub);
      int b = e.args.size() > 1 ? expr(*e.args[1], sub) : 0;
      return emit(func(e.func), a, b);
    }
    case ExprKind::Read: return read(e, false, 0);
    case ExprKind::Guard: {
      int fallback = expr(*e.args[1], sub);
      return read(*e.args[0], true, fallback);
    }
    }
    return 0;
  }

  /// Adds the access; returns (fast, id).
  std::pair<bool, int> access(const Expr &r, bool guarded, int fallback) {
    auto d = storage_.data.find(r.name);
    ATOLL_ASSERT(d != storage_.data.end(), "no storage for tensor '" + r.name + "'");
    const Shape &shape = storage_.shapes.at(r.name);
    ATOLL_ASSERT(shape.size() == r.args.size(), "rank of '" + r.name + "' after analysis");
    std::vector<std::int64_t> strides = shape_strides(shape);
    std::vector<std::optional<QuasiAffine>> forms;
    bool linear = !guarded;
    for (const auto &s : r.args) {
      forms.push_back(contains_read(*s) ? std::nullopt : to_quasi_affine(*s));
      if (!forms.back() || !forms.back()->is_linear()) linear = false;
    }
    if (linear) {
      FastAccess f{d->second, 0, std::vector<std::int64_t>(k.names.size(), 0)};
      for (std::size_t i = 0; i < forms.size(); ++i) {
        LinForm l = lin(*forms[i]);
        f.base += l.c * strides[i];
        for (const auto &[p, c] : l.coef) f.coef[static_cast<std::size_t>(p)] += c * strides[i];
      }
      k.fast.push_back(std::move(f));
      return {true, static_cast<int>(k.fast.size()) - 1};
    }
    SlowAccess s;
    s.data = d->second;
    s.shape = shape;
    s.strides = strides;
    s.guarded = guarded;
    s.checked = guarded;
    s.fallback = fallback;
    s.read = &r;
    for (std::size_t i = 0; i < forms.size(); ++i) {
      SlowAccess::Sub sub;
      sub.expr = r.args[i].get();
      if (forms[i]) {
        sub.form = lin(*forms[i]);
      } else {
        ATOLL_ASSERT(contains_read(*r.args[i]), "non-affine subscript after analysis");
        sub.indirect = true;
        sub.reg = expr(*r.args[i], true);
        s.checked = true;
      }
      s.subs.push_back(std::move(sub));
    }
    k.slow.push_back(std::move(s));
    return {false, static_cast<int>(k.slow.size()) - 1};
  }

private:
  const Storage &storage_;
  const std::map<std::string, std::int64_t> &params_;
  std::map<std::string, int> pos_;

  int read(const Expr &r, bool guarded, int fallback) {
    auto [fast, id] = access(r, guarded, fallback);
    return emit(fast ? Op::ReadFast : Op::ReadSlow, id);
  }

  LinForm lin(const QuasiAffine &q) const {
    LinForm l;
    l.c = q.constant;
    for (const auto &[name, coeff] : q.vars) {
      if (auto p = params_.find(name); p != params_.end()) {
        l.c += coeff * p->second;
        continue;
      }
      auto it = pos_.find(name);
      ATOLL_ASSERT(it != pos_.end(), "unbound index '" + name + "' after analysis");
      l.coef.emplace_back(it->second, coeff);
    }
    for (const auto &t : q.terms)
      l.terms.push_back({t.kind == QuasiAffine::Term::Kind::Mod, t.coeff, std::make_shared<LinForm>(lin(*t.num)), t.den});
    return l;
  }

  static Op binop(BinOp op, bool sub) {
    switch (op) {
    case BinOp::Add: return Op::Add;
    case BinOp::Sub: return Op::Sub;
    case BinOp::Mul: return Op::Mul;
    case BinOp::Div: return sub ? Op::FloorDiv : Op::Div;
    case BinOp::Mod: return Op::Mod;
    case BinOp::Lt: return Op::Lt;
    case BinOp::Le: return Op::Le;
    case BinOp::Gt: return Op::Gt;
    case BinOp::Ge: return Op::Ge;
    case BinOp::Eq: return Op::Eq;
    case BinOp::Ne: return Op::Ne;
    case BinOp::And: return Op::And;
    case BinOp::Or: return Op::Or;
    }
    return Op::Add;
  }

  static Op func(Func f) {
    switch (f) {
    case Func::Exp: return Op::Exp;
    case Func::Log: return Op::Log;
    case Func::Sqrt: return Op::Sqrt;
    case Func::Tanh: return Op::Tanh;
    case Func::Sigmoid: return Op::Sigmoid;
    case Func::Erf: return Op::Erf;
    case Func::Abs: return Op::Abs;
    case Func::Floor: return Op::Floor;
    case Func::Min: return Op::Min;
    case Func::Max: return Op::Max;
    case Func::Pow: return Op::Pow;
    case Func::Sin: return Op::Sin;
    case Func::Cos: return Op::Cos;
    case Func::Tan: return Op::Tan;
    case Func::Asin: return Op::Asin;
    case Func::Acos: return Op::Acos;
    case Func::Atan: return Op::Atan;
    case Func::Sinh: return Op::Sinh;
    case Func::Cosh: return Op::Cosh;
    case Func::Asinh: return Op::Asinh;
    case Func::Acosh: return Op::Acosh;
    case Func::Atanh: return Op::Atanh;
    }
    return Op::Exp;
  }
};

}  // namespace

Kernel compile_kernel(const Statement &st, const std::vector<std::string> &names, const std::vector<std::int64_t> &lo,
                      const std::vector<std::int64_t> &hi, bool init, double identity, DType dtype,
                      const Storage &storage, const std::map<std::string, std::int64_t> &params) {
  Compiler c(storage, params);
  c.set_loops(names);
  c.k.lo = lo;
  c.k.hi = hi;
  c.k.dtype = dtype;
  c.k.op = init ? AssignOp::Assign : st.op;
  c.k.result = init ? c.constant(identity) : c.expr(*st.rhs, false);
  auto [fast, id] = c.access(*st.lhs, false, 0);
  c.k.lhs_fast = fast;
  c.k.lhs = id;
  return std::move(c.k);
}

}  // namespace atl::compute::detail
