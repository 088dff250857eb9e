// Prints loop-AST kernels as portable C99: helpers, typed functions and _entry wrappers.
#include "backends/cpu/emit_c.h"

#include "backends/cpu/kernel_info.h"

#include <atoll/diagnostics.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

namespace atl::cpu {

namespace {

using compute::BinOp;
using poly::LExpr;
using poly::LExprKind;
using poly::LStmt;
using poly::LStmtKind;
using poly::LType;

// GCC 12.2 at -O3 with AVX2 or AVX-512 (-march=native) miscompiles a loop
// whose body is an if/else of two vectorisable inner loops, the shape a
// padded copy's AST takes: if-conversion merges the branches and one row
// of the result is wrong (a Pad of 7 x 12 x 2 by one row before and two
// after: row 4 of every plane; a random graph, seed 203). Without loop
// if-conversion the same code is right. Later GCCs are not tested here.
const char *kGccWorkaround = R"(#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ <= 12
#pragma GCC optimize("no-tree-loop-if-convert")
#endif
)";

const char *kHelpers = R"(#ifndef ATOLL_C_HELPERS
#define ATOLL_C_HELPERS
static inline int64_t atoll_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t atoll_floormod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline int64_t atoll_min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t atoll_max_i64(int64_t a, int64_t b) { return a > b ? a : b; }
static inline float atoll_minf(float a, float b) { return (isnan(a) || a < b) ? a : b; }
static inline float atoll_maxf(float a, float b) { return (isnan(a) || a > b) ? a : b; }
static inline double atoll_mind(double a, double b) { return (isnan(a) || a < b) ? a : b; }
static inline double atoll_maxd(double a, double b) { return (isnan(a) || a > b) ? a : b; }
static inline float atoll_modf(float a, float b) { return a - b * floorf(a / b); }
static inline double atoll_modd(double a, double b) { return a - b * floor(a / b); }
static inline float atoll_sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }
static inline double atoll_sigmoidd(double x) { return 1.0 / (1.0 + exp(-x)); }
/* float -> int64 truncating toward zero, saturating, NaN -> 0 (then narrowed by wrapping). */
static inline int64_t atoll_to_i64(double v) {
  if (v != v) return 0;
  if (v >= 9223372036854775808.0) return INT64_MAX;
  if (v < -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}
/* float -> integer truncating toward zero modulo 2^64 (NaN, inf -> 0): narrowing then wraps. */
static inline uint64_t atoll_wrap_u64(double v) {
  if (v != v || v - v != 0) return 0;
  if (fabs(v) < 9223372036854775808.0) return (uint64_t)(int64_t)v;
  v = fmod(v, 18446744073709551616.0);
  if (v < 0) v += 18446744073709551616.0;
  return (uint64_t)v;
}
static inline int8_t atoll_to_i8(double v) { return (int8_t)(uint8_t)atoll_wrap_u64(v); }
static inline uint8_t atoll_to_u8(double v) { return (uint8_t)atoll_wrap_u64(v); }
static inline int32_t atoll_to_i32(double v) { return (int32_t)(uint32_t)atoll_wrap_u64(v); }
static inline uint32_t atoll_float_bits(float f) { union { float f; uint32_t u; } x; x.f = f; return x.u; }
static inline float atoll_bits_float(uint32_t u) { union { float f; uint32_t u; } x; x.u = u; return x.f; }
static inline float atoll_bf16_to_f32(uint16_t b) { return atoll_bits_float((uint32_t)b << 16); }
static inline uint16_t atoll_f32_to_bf16(float f) {
  uint32_t u = atoll_float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static inline float atoll_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1fu) return atoll_bits_float(sign | 0x7f800000u | (m << 13));
  if (e == 0) { /* zero or subnormal: m * 2^-24 exactly */
    float v = (float)m * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return atoll_bits_float(sign | ((e + 112u) << 23) | (m << 13));
}
static inline uint16_t atoll_f32_to_f16(float f) {
  uint32_t u = atoll_float_bits(f), sign = (u >> 16) & 0x8000u, m = u & 0x7fffffu;
  int e = (int)((u >> 23) & 0xffu);
  if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0u));
  e -= 112; /* rebias 127 -> 15 */
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) { /* subnormal half or zero */
    if (e < -10) return (uint16_t)sign;
    m |= 0x800000u;
    {
      int shift = 14 - e;
      uint32_t h = m >> shift, rest = m & ((1u << shift) - 1u), half_way = 1u << (shift - 1);
      if (rest > half_way || (rest == half_way && (h & 1u))) ++h;
      return (uint16_t)(sign | h);
    }
  }
  {
    uint32_t h = ((uint32_t)e << 10) | (m >> 13), rest = m & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h; /* a carry rounds up the exponent */
    return (uint16_t)(sign | h);
  }
}
#endif
)";

bool is_comparison(BinOp op) {
  switch (op) {
  case BinOp::Lt: case BinOp::Le: case BinOp::Gt: case BinOp::Ge: case BinOp::Eq: case BinOp::Ne:
  case BinOp::And: case BinOp::Or: return true;
  case BinOp::Add: case BinOp::Sub: case BinOp::Mul: case BinOp::Div: case BinOp::Mod: return false;
  }
  return false;
}

class KernelPrinter {
public:
  explicit KernelPrinter(const poly::LKernel &k, const CBodyHooks *hooks = nullptr)
      : k_(k), fl_(uses_float_values(k)), vt_(fl_ ? "float" : "double"), hooks_(hooks) {}

  /// The strides and the statements of `body`, indented one level (emit_c_body).
  void print_body(std::ostream &os, const LStmt &body) {
    for (const poly::LArray &a : k_.arrays) strides(os, a, "  ");
    stmt(os, body, 1);
  }

  void print(std::ostream &os) {
    os << "/* kernel " << k_.name << "\n";
    for (const poly::LArray &a : k_.arrays) os << " *   " << describe_array(a) << "\n";
    for (const std::string &p : k_.params) os << " *   " << p << ": int64 parameter\n";
    os << " * values computed in " << vt_ << " */\n";
    os << c_prototype(k_, true) << " {\n";
    for (const poly::LArray &a : k_.arrays) os << "  (void)" << a.name << ";\n";
    for (const std::string &p : k_.params) os << "  (void)" << p << ";\n";
    for (const poly::LArray &a : k_.arrays) strides(os, a, "  ");
    stmt(os, *k_.body, 1);
    os << "}\n\n";
    os << "void " << k_.name << "_entry(void **arrays, const int64_t *params) {\n";
    os << "  " << k_.name << "(";
    std::size_t n = 0;
    for (std::size_t i = 0; i < k_.arrays.size(); ++i, ++n)
      os << (n ? ", " : "") << "(" << c_storage_type(k_.arrays[i].dtype) << " *)arrays[" << i << "]";
    for (std::size_t i = 0; i < k_.params.size(); ++i, ++n) os << (n ? ", " : "") << "params[" << i << "]";
    os << ");\n";
    if (k_.params.empty()) os << "  (void)params;\n";
    os << "}\n";
  }

private:
  /// Row-major strides: s_d = product of the extents after d.
  static void strides(std::ostream &os, const poly::LArray &a, const std::string &pad) {
    std::string prod = "1";
    for (std::size_t d = a.shape.size(); d-- > 0;) {
      os << pad << "const int64_t " << stride(a.name, d) << " = " << prod << ";\n";
      std::string ext = a.shape[d].is_symbolic() ? a.shape[d].symbol : std::to_string(a.shape[d].value);
      prod = prod == "1" ? ext : prod + " * " + ext;
    }
    for (std::size_t d = 0; d < a.shape.size(); ++d) os << pad << "(void)" << stride(a.name, d) << ";\n";
  }

  /// A local array (contract_arrays): a block-scope buffer, so every
  /// iteration of its loop (and every OpenMP thread) has its own.
  static void declare_local(std::ostream &os, const poly::LArray &a, const std::string &pad) {
    std::int64_t size = 1;
    for (const Dim &d : a.shape) size *= d.value;
    os << pad << c_storage_type(a.dtype) << " " << a.name << "[" << size << "];\n";
    strides(os, a, pad);
  }

  static std::string stride(const std::string &array, std::size_t d) {
    return "atoll_" + array + "_s" + std::to_string(d);
  }

  // ---- statements ------------------------------------------------------------------------------

  void stmt(std::ostream &os, const LStmt &s, int depth) {
    std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
    switch (s.kind) {
    case LStmtKind::Block:
      for (const poly::LStmtPtr &c : s.body)
        if (c) stmt(os, *c, depth);
      return;
    case LStmtKind::For: {
      for (const std::string &m : s.marks) os << pad << "/* " << m << " */\n";
      if (hooks_ && hooks_->loop &&
          hooks_->loop(os, s, pad, index(*s.init), loop_cond(*s.cond))) {
        for (const poly::LStmtPtr &c : s.body)
          if (c) stmt(os, *c, depth + 1);
        os << pad << "}\n";
        return;
      }
      if (s.marks.count(poly::mark::kParallel) && loop_upper_bound(s))
        os << "#ifdef _OPENMP\n#pragma omp parallel for\n#endif\n";
      else if (s.marks.count(poly::mark::kVector) && loop_upper_bound(s))
        os << "#ifdef _OPENMP\n#pragma omp simd\n#endif\n";
      os << pad << "for (int64_t " << s.iterator << " = " << index(*s.init) << "; " << loop_cond(*s.cond) << "; "
         << s.iterator << " += " << s.step << ") {\n";
      for (const std::string &l : s.locals) declare_local(os, *find_array(k_, l), pad + "  ");
      for (const poly::LStmtPtr &c : s.body)
        if (c) stmt(os, *c, depth + 1);
      os << pad << "}\n";
      return;
    }
    case LStmtKind::If:
      os << pad << "if (" << cond(*s.cond) << ") {\n";
      if (s.then_body) stmt(os, *s.then_body, depth + 1);
      if (s.else_body) {
        os << pad << "} else {\n";
        stmt(os, *s.else_body, depth + 1);
      }
      os << pad << "}\n";
      return;
    case LStmtKind::Store: {
      const poly::LArray &a = *find_array(k_, s.array);
      std::string off = offset(a, s.indices);
      if (!s.statement.empty()) os << pad << "/* " << s.statement << " */\n";
      if (s.op == compute::AssignOp::Assign) {
        os << pad << a.name << "[" << off << "] = " << to_storage(a.dtype, value(*s.value)) << ";\n";
        return;
      }
      std::string old = from_storage(a.dtype, a.name + "[atoll_o]");
      std::string combined;
      switch (s.op) {
      case compute::AssignOp::Assign: break;
      case compute::AssignOp::Add: combined = old + " + atoll_v"; break;
      case compute::AssignOp::Mul: combined = old + " * atoll_v"; break;
      // Max and min carry NaN (atoll_maxf); a NaN-insensitive one (Softmax's
      // row maximum) is a plain compare and select, which compilers turn into maxps.
      case compute::AssignOp::Max: case compute::AssignOp::Min: {
        const bool max = s.op == compute::AssignOp::Max;
        if (s.nan_insensitive) combined = std::string("(atoll_v ") + (max ? ">" : "<") + " " + old + " ? atoll_v : " + old + ")";
        else combined = std::string(max ? "atoll_max" : "atoll_min") + sfx() + "(atoll_v, " + old + ")";
        break;
      }
      }
      os << pad << "{\n";
      os << pad << "  const int64_t atoll_o = " << off << ";\n";
      os << pad << "  const " << vt_ << " atoll_v = " << value(*s.value) << ";\n";
      os << pad << "  " << a.name << "[atoll_o] = " << to_storage(a.dtype, combined) << ";\n";
      os << pad << "}\n";
      return;
    }
    }
  }

  const char *sfx() const { return fl_ ? "f" : "d"; }

  std::string offset(const poly::LArray &a, const std::vector<poly::LExprPtr> &idx) {
    if (idx.empty()) return "0";
    std::string s;
    for (std::size_t d = 0; d < idx.size(); ++d)
      s += (d ? " + " : "") + ("(" + index(*idx[d]) + ") * " + stride(a.name, d));
    return s;
  }

  std::string from_storage(DType t, const std::string &elem) {
    std::string f;
    switch (t) {
    case DType::F32: f = elem; break;
    case DType::F16: f = "atoll_f16_to_f32(" + elem + ")"; break;
    case DType::BF16: f = "atoll_bf16_to_f32(" + elem + ")"; break;
    case DType::I8:
    case DType::U8:
    case DType::I32:
    case DType::I64:
    case DType::F64: return "((" + std::string(vt_) + ")" + elem + ")";
    case DType::Bool: return "((" + std::string(vt_) + ")(" + elem + " != 0))";
    }
    return fl_ ? f : "((double)" + f + ")";
  }

  std::string to_storage(DType t, const std::string &v) {
    switch (t) {
    case DType::F32: return "(float)(" + v + ")";
    case DType::F16: return "atoll_f32_to_f16((float)(" + v + "))";
    case DType::BF16: return "atoll_f32_to_bf16((float)(" + v + "))";
    case DType::I8: return "atoll_to_i8(" + v + ")";
    case DType::U8: return "atoll_to_u8(" + v + ")";
    case DType::F64: return "(double)(" + v + ")";
    case DType::I32: return "atoll_to_i32(" + v + ")";
    case DType::I64: return "atoll_to_i64(" + v + ")";
    case DType::Bool: return "(uint8_t)((" + v + ") != 0)";
    }
    return v;
  }

  // ---- expressions -----------------------------------------------------------------------------

  std::string literal(double v) {
    if (std::isnan(v)) return fl_ ? "NAN" : "((double)NAN)";
    if (std::isinf(v)) return v > 0 ? (fl_ ? "INFINITY" : "((double)INFINITY)") : (fl_ ? "(-INFINITY)" : "(-(double)INFINITY)");
    char buf[64];
    std::snprintf(buf, sizeof buf, fl_ ? "%.9g" : "%.17g", v);
    std::string s = buf;
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    if (fl_) s += "f";
    return v < 0 ? "(" + s + ")" : s;
  }

  /// A loop condition: `i < e` without outer parentheses, as OpenMP's canonical loop form wants.
  std::string loop_cond(const LExpr &e) {
    std::string c = cond(e);
    bool plain = e.kind == LExprKind::Binary && is_comparison(e.binop) && e.binop != BinOp::And && e.binop != BinOp::Or;
    return plain ? c.substr(1, c.size() - 2) : c;
  }

  /// An expression in a truth context: comparisons print bare (OpenMP needs `i < e`).
  std::string cond(const LExpr &e) {
    if (e.kind == LExprKind::Binary && is_comparison(e.binop)) return comparison(e);
    if (e.kind == LExprKind::Unary && e.unop == compute::UnOp::Not) return "(!" + cond(*e.args[0]) + ")";
    // OpenCL C takes no floating-point condition (other dialects: hooks set).
    if (hooks_ && e.type == LType::Value) return "(" + value(e) + " != 0)";
    return e.type == LType::Index ? index(e) : value(e);
  }

  std::string comparison(const LExpr &e) {
    if (e.binop == BinOp::And) return "(" + cond(*e.args[0]) + " && " + cond(*e.args[1]) + ")";
    if (e.binop == BinOp::Or) return "(" + cond(*e.args[0]) + " || " + cond(*e.args[1]) + ")";
    std::string a = operand(*e.args[0]), b = operand(*e.args[1]);
    return "(" + a + " " + compute::binop_name(e.binop) + " " + b + ")";
  }

  /// An operand of a comparison: a comparison bare, else the expression.
  std::string operand(const LExpr &e) {
    if (e.kind == LExprKind::Binary && is_comparison(e.binop)) return comparison(e);
    if (e.kind == LExprKind::Unary && e.unop == compute::UnOp::Not) return "(!" + cond(*e.args[0]) + ")";
    return e.type == LType::Index ? index(e) : value(e);
  }

  std::string index(const LExpr &e) {
    if (e.type == LType::Value) return "atoll_to_i64(" + value(e) + ")";
    switch (e.kind) {
    case LExprKind::Int:
      if (e.ival == INT64_MIN) return "INT64_MIN";
      return e.ival < 0 ? "(" + std::to_string(e.ival) + ")" : std::to_string(e.ival);
    case LExprKind::Var: return e.name;
    case LExprKind::Unary:
      return std::string(e.unop == compute::UnOp::Neg ? "(-" : "(int64_t)(!") + index(*e.args[0]) + ")";
    case LExprKind::Binary: {
      if (is_comparison(e.binop)) return "(int64_t)" + comparison(e);
      std::string a = index(*e.args[0]), b = index(*e.args[1]);
      switch (e.binop) {
      case BinOp::Div: return "atoll_floordiv(" + a + ", " + b + ")";
      case BinOp::Mod: return "atoll_floormod(" + a + ", " + b + ")";
      default: return "(" + a + " " + compute::binop_name(e.binop) + " " + b + ")";
      }
    }
    case LExprKind::Min: return "atoll_min_i64(" + index(*e.args[0]) + ", " + index(*e.args[1]) + ")";
    case LExprKind::Max: return "atoll_max_i64(" + index(*e.args[0]) + ", " + index(*e.args[1]) + ")";
    case LExprKind::Select:
      return "(" + cond(*e.args[0]) + " ? " + index(*e.args[1]) + " : " + index(*e.args[2]) + ")";
    case LExprKind::ToIndex: return "atoll_to_i64(" + value(*e.args[0]) + ")";
    case LExprKind::Float:
    case LExprKind::Call:
    case LExprKind::Load:
    case LExprKind::GuardedLoad:
    case LExprKind::ToValue: break;
    }
    internal_error(__FILE__, __LINE__, "value-kind expression typed as an index");
  }

  std::string load(const LExpr &ld) {
    const poly::LArray &a = *find_array(k_, ld.name);
    return from_storage(a.dtype, a.name + "[" + offset(a, ld.args) + "]");
  }

  std::string call(const LExpr &e) {
    std::vector<std::string> a;
    for (const poly::LExprPtr &x : e.args) a.push_back(value(*x));
    std::string f = fl_ ? "f" : "";
    switch (e.func) {
    case compute::Func::Exp: return "exp" + f + "(" + a[0] + ")";
    case compute::Func::Log: return "log" + f + "(" + a[0] + ")";
    case compute::Func::Sqrt: return "sqrt" + f + "(" + a[0] + ")";
    case compute::Func::Tanh: return "tanh" + f + "(" + a[0] + ")";
    case compute::Func::Erf: return "erf" + f + "(" + a[0] + ")";
    case compute::Func::Abs: return "fabs" + f + "(" + a[0] + ")";
    case compute::Func::Floor: return "floor" + f + "(" + a[0] + ")";
    case compute::Func::Pow: return "pow" + f + "(" + a[0] + ", " + a[1] + ")";
    case compute::Func::Sigmoid: return std::string("atoll_sigmoid") + sfx() + "(" + a[0] + ")";
    case compute::Func::Min: return std::string("atoll_min") + sfx() + "(" + a[0] + ", " + a[1] + ")";
    case compute::Func::Max: return std::string("atoll_max") + sfx() + "(" + a[0] + ", " + a[1] + ")";
    case compute::Func::Sin: return "sin" + f + "(" + a[0] + ")";
    case compute::Func::Cos: return "cos" + f + "(" + a[0] + ")";
    case compute::Func::Tan: return "tan" + f + "(" + a[0] + ")";
    case compute::Func::Asin: return "asin" + f + "(" + a[0] + ")";
    case compute::Func::Acos: return "acos" + f + "(" + a[0] + ")";
    case compute::Func::Atan: return "atan" + f + "(" + a[0] + ")";
    case compute::Func::Sinh: return "sinh" + f + "(" + a[0] + ")";
    case compute::Func::Cosh: return "cosh" + f + "(" + a[0] + ")";
    case compute::Func::Asinh: return "asinh" + f + "(" + a[0] + ")";
    case compute::Func::Acosh: return "acosh" + f + "(" + a[0] + ")";
    case compute::Func::Atanh: return "atanh" + f + "(" + a[0] + ")";
    }
    internal_error(__FILE__, __LINE__, "unknown function");
  }

  std::string value(const LExpr &e) {
    std::string vt = vt_;
    if (e.type == LType::Index) return "((" + vt + ")" + index(e) + ")";
    switch (e.kind) {
    case LExprKind::Float: return literal(e.fval);
    case LExprKind::Unary:
      if (e.unop == compute::UnOp::Neg) return "(-" + value(*e.args[0]) + ")";
      return "((" + vt + ")(" + value(*e.args[0]) + " == 0))";
    case LExprKind::Binary: {
      if (is_comparison(e.binop)) return "((" + vt + ")" + comparison(e) + ")";
      std::string a = value(*e.args[0]), b = value(*e.args[1]);
      if (e.binop == BinOp::Mod) return std::string("atoll_mod") + sfx() + "(" + a + ", " + b + ")";
      return "(" + a + " " + compute::binop_name(e.binop) + " " + b + ")";
    }
    case LExprKind::Min: return std::string("atoll_min") + sfx() + "(" + value(*e.args[0]) + ", " + value(*e.args[1]) + ")";
    case LExprKind::Max: return std::string("atoll_max") + sfx() + "(" + value(*e.args[0]) + ", " + value(*e.args[1]) + ")";
    case LExprKind::Select:
      return "(" + cond(*e.args[0]) + " ? " + value(*e.args[1]) + " : " + value(*e.args[2]) + ")";
    case LExprKind::Call: return call(e);
    case LExprKind::Load: return load(e);
    case LExprKind::GuardedLoad: {
      const LExpr &ld = *e.args[0];
      const poly::LArray &a = *find_array(k_, ld.name);
      std::string inside;
      for (std::size_t d = 0; d < ld.args.size(); ++d) {
        std::string ext = a.shape[d].is_symbolic() ? a.shape[d].symbol : std::to_string(a.shape[d].value);
        inside += (d ? " && " : "") + ("(uint64_t)(" + index(*ld.args[d]) + ") < (uint64_t)(" + ext + ")");
      }
      if (inside.empty()) inside = "1";
      return "((" + inside + ") ? " + load(ld) + " : " + value(*e.args[1]) + ")";
    }
    case LExprKind::ToValue: return "((" + vt + ")" + index(*e.args[0]) + ")";
    case LExprKind::Int:
    case LExprKind::Var:
    case LExprKind::ToIndex: break;
    }
    internal_error(__FILE__, __LINE__, "index-kind expression typed as a value");
  }

  const poly::LKernel &k_;
  bool fl_;
  const char *vt_;
  const CBodyHooks *hooks_ = nullptr;
};

}  // namespace

std::string c_prototype(const poly::LKernel &kernel, bool with_restrict) {
  const std::set<std::string> stored = stored_arrays(kernel);
  std::string s = "void " + kernel.name + "(";
  std::size_t n = 0;
  for (const poly::LArray &a : kernel.arrays) {
    s += n++ ? ", " : "";
    if (!stored.count(a.name)) s += "const ";
    s += std::string(c_storage_type(a.dtype)) + " *" + (with_restrict ? "restrict " : "") + a.name;
  }
  for (const std::string &p : kernel.params) s += (n++ ? ", int64_t " : "int64_t ") + p;
  if (n == 0) s += "void";
  return s + ")";
}

std::string c_helpers() { return kHelpers; }

void emit_c_body(std::ostream &os, const poly::LKernel &kernel, const poly::LStmt &body, const CBodyHooks &hooks) {
  KernelPrinter(kernel, &hooks).print_body(os, body);
}

std::string emit_c(const std::vector<poly::LKernel> &kernels) {
  std::set<std::string> names;
  for (const poly::LKernel &k : kernels) {
    check_kernel(k);
    if (!names.insert(k.name).second) throw UserError("two kernels are named '" + k.name + "'");
  }
  std::ostringstream os;
  os << "/* Generated by Atoll (backends/cpu/emit_c) from the loop AST. Self-contained C99:\n"
        " * cc -std=c99 -O3 -c file.c. Per kernel NAME: the typed function NAME and\n"
        " * NAME_entry(void **arrays, const int64_t *params). */\n"
        "#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n\n"
     << kGccWorkaround << kHelpers;
  for (const poly::LKernel &k : kernels) {
    os << "\n";
    KernelPrinter(k).print(os);
  }
  return os.str();
}

}  // namespace atl::cpu
