// Direct evaluator of Compute programs: runs each pre-compiled statement's
// loop nest in order, rounding every store to the destination's dtype.
#include "graph/compute/ast.h"
#include "graph/compute/compute.h"
#include "graph/compute/kernel.h"

#include <atoll/diagnostics.h>

#include <cmath>
#include <limits>

namespace atl::compute {

namespace {

using detail::Instr;
using detail::Kernel;
using detail::Op;

inline double round_store(DType t, double v) {
  return t == DType::F32 ? static_cast<double>(static_cast<float>(v)) : round_to(t, v);
}

double identity(AssignOp op, DType t) {
  const double inf = std::numeric_limits<double>::infinity();
  auto lowest = [&]() -> double {
    switch (t) {
    case DType::I8: return -128.0;
    case DType::I32: return static_cast<double>(std::numeric_limits<std::int32_t>::min());
    case DType::I64: return static_cast<double>(std::numeric_limits<std::int64_t>::min());
    case DType::Bool:
    case DType::U8: return 0.0;
    case DType::F32:
    case DType::F16:
    case DType::BF16:
    case DType::F64: return -inf;
    }
    return -inf;
  };
  auto highest = [&]() -> double {
    switch (t) {
    case DType::I8: return 127.0;
    case DType::I32: return static_cast<double>(std::numeric_limits<std::int32_t>::max());
    case DType::I64: return 9223372036854774784.0;  // largest double below 2^63
    case DType::Bool: return 1.0;
    case DType::U8: return 255.0;
    case DType::F32:
    case DType::F16:
    case DType::BF16:
    case DType::F64: return inf;
    }
    return inf;
  };
  switch (op) {
  case AssignOp::Assign:
  case AssignOp::Add: return 0.0;
  case AssignOp::Mul: return 1.0;
  case AssignOp::Max: return lowest();
  case AssignOp::Min: return highest();
  }
  return 0.0;
}

class Runner {
public:
  explicit Runner(Kernel &k) : k_(k), idx_(k.names.size(), 0), cur_(k.fast.size(), 0), step_(k.fast.size(), 0) {}

  void run() {
    for (std::size_t d = 0; d < k_.names.size(); ++d)
      if (k_.lo[d] >= k_.hi[d]) return;
    if (k_.names.empty()) {
      for (std::size_t f = 0; f < k_.fast.size(); ++f) cur_[f] = k_.fast[f].base;
      body();
      return;
    }
    loop(0);
  }

private:
  Kernel &k_;
  std::vector<std::int64_t> idx_, cur_, step_;

  void loop(std::size_t d) {
    if (d + 1 == k_.names.size()) {
      inner(d);
      return;
    }
    for (std::int64_t v = k_.lo[d]; v < k_.hi[d]; ++v) {
      idx_[d] = v;
      loop(d + 1);
    }
  }

  void inner(std::size_t d) {
    const std::size_t nf = k_.fast.size();
    for (std::size_t f = 0; f < nf; ++f) {
      const auto &a = k_.fast[f];
      std::int64_t off = a.base + a.coef[d] * k_.lo[d];
      for (std::size_t e = 0; e < d; ++e) off += a.coef[e] * idx_[e];
      cur_[f] = off;
      step_[f] = a.coef[d];
    }
    std::int64_t *cur = cur_.data();
    const std::int64_t *step = step_.data();
    for (std::int64_t v = k_.lo[d]; v < k_.hi[d]; ++v) {
      idx_[d] = v;
      body();
      for (std::size_t f = 0; f < nf; ++f) cur[f] += step[f];
    }
  }

  std::string where_text() const {
    std::string s;
    for (std::size_t d = 0; d < k_.names.size(); ++d)
      s += (d ? ", " : "") + k_.names[d] + " = " + std::to_string(idx_[d]);
    return s.empty() ? "" : " (at " + s + ")";
  }

  [[noreturn]] void indirect_error(const detail::SlowAccess &a, std::size_t d, double v, const char *why) const {
    const Expr &s = *a.subs[d].expr;
    Location loc;
    loc.line = s.line;
    loc.column = s.column;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    throw UserError("indirect subscript '" + print(s) + "' of '" + print(*a.read) + "' has value " + buf + ", " + why +
                        " [0, " + std::to_string(a.shape[d]) + ") of dimension " + std::to_string(d) + " of '" +
                        a.read->name + "'" + where_text(),
                    loc);
  }

  /// Offset of a slow access, or -1 for a guarded access out of bounds.
  std::int64_t slow_offset(const detail::SlowAccess &a) const {
    const double *regs = k_.regs.data();
    std::int64_t off = 0;
    for (std::size_t d = 0; d < a.subs.size(); ++d) {
      const auto &sub = a.subs[d];
      std::int64_t s;
      if (sub.indirect) {
        double v = regs[sub.reg];
        if (!std::isfinite(v) || v != std::floor(v)) indirect_error(a, d, v, "which is not an integer index into");
        if (v < 0 || v >= static_cast<double>(a.shape[d])) {
          if (a.guarded) return -1;
          indirect_error(a, d, v, "outside");
        }
        s = static_cast<std::int64_t>(v);
      } else {
        s = sub.form.eval(idx_.data());
        if (a.checked && (s < 0 || s >= a.shape[d])) {
          ATOLL_ASSERT(a.guarded, "unchecked out-of-bounds access after analysis");
          return -1;
        }
      }
      off += s * a.strides[d];
    }
    return off;
  }

  void body() {
    double *R = k_.regs.data();
    const Instr *code = k_.code.data();
    const std::size_t n = k_.code.size();
    const std::int64_t *cur = cur_.data();
    for (std::size_t pc = 0; pc < n; ++pc) {
      const Instr &in = code[pc];
      // Operands are registers for arithmetic; other ops read in.a / in.b as ids.
      auto A = [&] { return R[in.a]; };
      auto B = [&] { return R[in.b]; };
      double &r = R[in.dst];
      switch (in.op) {
      case Op::Index: r = static_cast<double>(idx_[static_cast<std::size_t>(in.a)]); break;
      case Op::Move: r = A(); break;
      case Op::Jump: pc = static_cast<std::size_t>(in.a) - 1; break;
      case Op::JumpIfZero:
        if (A() == 0.0) pc = static_cast<std::size_t>(in.b) - 1;
        break;
      case Op::ReadFast: r = k_.fast[static_cast<std::size_t>(in.a)].data[cur[in.a]]; break;
      case Op::ReadSlow: {
        const auto &acc = k_.slow[static_cast<std::size_t>(in.a)];
        std::int64_t off = slow_offset(acc);
        r = off < 0 ? R[acc.fallback] : acc.data[off];
        break;
      }
      case Op::Neg: r = -A(); break;
      case Op::Not: r = A() == 0.0 ? 1.0 : 0.0; break;
      case Op::Add: r = A() + B(); break;
      case Op::Sub: r = A() - B(); break;
      case Op::Mul: r = A() * B(); break;
      case Op::Div: r = A() / B(); break;
      case Op::FloorDiv: r = std::floor(A() / B()); break;
      case Op::Mod: r = A() - B() * std::floor(A() / B()); break;
      case Op::Lt: r = A() < B(); break;
      case Op::Le: r = A() <= B(); break;
      case Op::Gt: r = A() > B(); break;
      case Op::Ge: r = A() >= B(); break;
      case Op::Eq: r = A() == B(); break;
      case Op::Ne: r = A() != B(); break;
      case Op::And: r = (A() != 0.0 && B() != 0.0); break;
      case Op::Or: r = (A() != 0.0 || B() != 0.0); break;
      case Op::Exp: r = std::exp(A()); break;
      case Op::Log: r = std::log(A()); break;
      case Op::Sqrt: r = std::sqrt(A()); break;
      case Op::Tanh: r = std::tanh(A()); break;
      case Op::Sigmoid: r = 1.0 / (1.0 + std::exp(-A())); break;
      case Op::Erf: r = std::erf(A()); break;
      case Op::Abs: r = std::fabs(A()); break;
      case Op::Floor: r = std::floor(A()); break;
      case Op::Min: r = (std::isnan(A()) || A() < B()) ? A() : B(); break;
      case Op::Max: r = (std::isnan(A()) || A() > B()) ? A() : B(); break;
      case Op::Pow: r = std::pow(A(), B()); break;
      case Op::Sin: r = std::sin(A()); break;
      case Op::Cos: r = std::cos(A()); break;
      case Op::Tan: r = std::tan(A()); break;
      case Op::Asin: r = std::asin(A()); break;
      case Op::Acos: r = std::acos(A()); break;
      case Op::Atan: r = std::atan(A()); break;
      case Op::Sinh: r = std::sinh(A()); break;
      case Op::Cosh: r = std::cosh(A()); break;
      case Op::Asinh: r = std::asinh(A()); break;
      case Op::Acosh: r = std::acosh(A()); break;
      case Op::Atanh: r = std::atanh(A()); break;
      }
    }
    store(R[k_.result]);
  }

  void store(double v) {
    double *p;
    if (k_.lhs_fast) {
      p = k_.fast[static_cast<std::size_t>(k_.lhs)].data + cur_[static_cast<std::size_t>(k_.lhs)];
    } else {
      const auto &a = k_.slow[static_cast<std::size_t>(k_.lhs)];
      p = a.data + slow_offset(a);
    }
    double old = *p;
    switch (k_.op) {
    case AssignOp::Assign: *p = round_store(k_.dtype, v); break;
    case AssignOp::Add: *p = round_store(k_.dtype, old + v); break;
    case AssignOp::Mul: *p = round_store(k_.dtype, old * v); break;
    case AssignOp::Max: *p = round_store(k_.dtype, (std::isnan(v) || v > old) ? v : old); break;
    case AssignOp::Min: *p = round_store(k_.dtype, (std::isnan(v) || v < old) ? v : old); break;
    }
  }
};

}  // namespace

std::map<std::string, Tensor> evaluate(const Program &program, const Analysis &analysis,
                                       const std::map<std::string, const Tensor *> &inputs,
                                       const std::map<std::string, std::int64_t> &params) {
  std::map<std::string, std::int64_t> values = analysis.params;
  for (const auto &[name, v] : params) {
    auto it = values.find(name);
    if (it != values.end() && it->second != v)
      throw UserError("parameter '" + name + "' = " + std::to_string(v) + " differs from the value " +
                      std::to_string(it->second) + " the program was analysed with");
    values[name] = v;
  }

  std::map<std::string, Tensor> results;
  detail::Storage storage;
  for (const auto &[name, use] : analysis.tensors) {
    storage.shapes[name] = use.shape;
    if (use.role == TensorRole::Input) {
      auto it = inputs.find(name);
      if (it == inputs.end() || it->second == nullptr) throw UserError("missing input tensor '" + name + "'");
      if (it->second->shape != use.shape)
        throw UserError("input tensor '" + name + "' has shape " + shape_to_string(it->second->shape) +
                        " but the program was analysed for " + shape_to_string(use.shape));
      // Inputs are only read: analysis rejects every write to an input.
      storage.data[name] = const_cast<double *>(it->second->data.data());
    } else {
      Tensor &t = results[name] = Tensor(use.dtype, use.shape);
      storage.data[name] = t.data.data();
    }
  }

  for (const auto &s : analysis.statements) {
    ATOLL_ASSERT(s.source >= 0 && static_cast<std::size_t>(s.source) < program.statements.size(),
                 "analysis does not match the program");
    const Statement &st = program.statements[static_cast<std::size_t>(s.source)];
    std::vector<std::string> names;
    std::vector<std::int64_t> lo, hi;
    for (const auto &i : s.indices) {
      names.push_back(i.name);
      lo.push_back(i.lo);
      hi.push_back(i.hi);
    }
    DType dtype = analysis.tensors.at(st.lhs->name).dtype;
    Kernel k = detail::compile_kernel(st, names, lo, hi, s.init, identity(st.op, dtype), dtype, storage, values);
    Runner(k).run();
  }
  return results;
}

}  // namespace atl::compute
