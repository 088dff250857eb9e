// NPU programs: constant-folding expressions, the C printer and the
// interpreter (npu_program.h). Both readers walk the same tree in the same
// order, so they issue the same calls.
#include "backends/npu/codegen/npu_program.h"

#include "backends/npu/target.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <sstream>

namespace atl::npu {

// ---- expressions --------------------------------------------------------

namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
std::int64_t floor_mod(std::int64_t a, std::int64_t b) { return a - floor_div(a, b) * b; }

std::int64_t apply(NOp op, std::int64_t x, std::int64_t y) {
  switch (op) {
    case NOp::Add: return x + y;
    case NOp::Sub: return x - y;
    case NOp::Mul: return x * y;
    case NOp::Div: return floor_div(x, y);
    case NOp::Mod: return floor_mod(x, y);
    case NOp::Min: return std::min(x, y);
    case NOp::Max: return std::max(x, y);
    case NOp::Lt: return x < y;
    case NOp::Eq: return x == y;
    case NOp::And: return x && y;
    case NOp::Const:
    case NOp::Var:
    case NOp::CoreId:
    case NOp::CoreNum: break;
  }
  return 0;
}

NE make(NOp op, NE a, NE b) {
  std::int64_t x, y;
  const bool ca = constant(a, x), cb = constant(b, y);
  if (ca && cb) return lit(apply(op, x, y));
  switch (op) {
    case NOp::Add:
      if (ca && x == 0) return b;
      if (cb && y == 0) return a;
      break;
    case NOp::Sub:
      if (cb && y == 0) return a;
      break;
    case NOp::Mul:
      if ((ca && x == 0) || (cb && y == 0)) return lit(0);
      if (ca && x == 1) return b;
      if (cb && y == 1) return a;
      break;
    case NOp::Div:
      if (cb && y == 1) return a;
      break;
    case NOp::Mod:
      if (cb && y == 1) return lit(0);
      break;
    case NOp::And:
      if (ca) return x ? b : lit(0);
      if (cb) return y ? a : lit(0);
      break;
    default:
      break;
  }
  auto e = std::make_shared<NExpr>();
  e->op = op;
  e->a = std::move(a);
  e->b = std::move(b);
  return e;
}

}  // namespace

namespace {

NE leaf(NOp op, std::int64_t value = 0, int v = -1) {
  auto e = std::make_shared<NExpr>();
  e->op = op;
  e->value = value;
  e->var = v;
  return e;
}

}  // namespace

NE lit(std::int64_t v) { return leaf(NOp::Const, v); }
NE var(int v) { return leaf(NOp::Var, 0, v); }
NE core_id() { return leaf(NOp::CoreId); }
NE core_num() { return leaf(NOp::CoreNum); }
NE operator+(NE a, NE b) { return make(NOp::Add, std::move(a), std::move(b)); }
NE operator-(NE a, NE b) { return make(NOp::Sub, std::move(a), std::move(b)); }
NE operator*(NE a, NE b) { return make(NOp::Mul, std::move(a), std::move(b)); }
NE operator/(NE a, NE b) { return make(NOp::Div, std::move(a), std::move(b)); }
NE operator%(NE a, NE b) { return make(NOp::Mod, std::move(a), std::move(b)); }
NE min(NE a, NE b) { return make(NOp::Min, std::move(a), std::move(b)); }
NE max(NE a, NE b) { return make(NOp::Max, std::move(a), std::move(b)); }
NE lt(NE a, NE b) { return make(NOp::Lt, std::move(a), std::move(b)); }
NE eq(NE a, NE b) { return make(NOp::Eq, std::move(a), std::move(b)); }
NE both(NE a, NE b) { return make(NOp::And, std::move(a), std::move(b)); }
NE ceil_div(NE a, NE b) { return (a + b - lit(1)) / b; }
NE round_up(NE a, NE b) { return ceil_div(a, b) * b; }

bool constant(const NE &e, std::int64_t &value) {
  if (e->op != NOp::Const) return false;
  value = e->value;
  return true;
}

int NpuProgram::waits() const {
  int n = 0;
  std::function<void(const NS &)> walk = [&](const NS &s) {
    if (s->kind == NStmtKind::Call && s->call.kind == NCallKind::WaitFlag) ++n;
    for (const NS &b : s->body) walk(b);
  };
  walk(body);
  return n;
}

// ---- C printer ----------------------------------------------------------

namespace {

const char *c_pipe(npu_pipe p) {
  static const char *n[] = {"NPU_MTE1", "NPU_MTE2", "NPU_MTE3", "NPU_CUBE", "NPU_VEC", "NPU_FIX", "NPU_SCALAR"};
  return n[p];
}
const char *c_dtype(npu_dtype t) {
  static const char *n[] = {"NPU_F16", "NPU_BF16", "NPU_F32", "NPU_I8", "NPU_I32"};
  return n[t];
}
const char *c_mem(npu_mem m) {
  static const char *n[] = {"NPU_GM", "NPU_L1", "NPU_L0A", "NPU_L0B", "NPU_L0C", "NPU_UB"};
  return n[m];
}
const char *c_layout(int l) {
  static const char *n[] = {"NPU_ND", "NPU_ND2NZ", "NPU_NZ2ND"};
  return n[l];
}
const char *c_binop(int o) {
  static const char *n[] = {"NPU_ADD", "NPU_SUB", "NPU_MUL", "NPU_DIV", "NPU_MAX", "NPU_MIN"};
  return n[o];
}
const char *c_unop(int o) {
  static const char *n[] = {"NPU_EXP", "NPU_LN", "NPU_SQRT", "NPU_RSQRT", "NPU_RECIP",
                            "NPU_ABS", "NPU_RELU", "NPU_TANH", "NPU_NEG"};
  return n[o];
}

struct Printer {
  std::ostream &os;
  const NpuProgram &p;

  std::string expr(const NE &e) const {
    switch (e->op) {
      case NOp::Const: return std::to_string(e->value);
      case NOp::Var: return p.vars[e->var];
      case NOp::Add: return "(" + expr(e->a) + " + " + expr(e->b) + ")";
      case NOp::Sub: return "(" + expr(e->a) + " - " + expr(e->b) + ")";
      case NOp::Mul: return "(" + expr(e->a) + " * " + expr(e->b) + ")";
      case NOp::Div: return "npu_fdiv(" + expr(e->a) + ", " + expr(e->b) + ")";
      case NOp::Mod: return "npu_fmod(" + expr(e->a) + ", " + expr(e->b) + ")";
      case NOp::Min: return "npu_min(" + expr(e->a) + ", " + expr(e->b) + ")";
      case NOp::Max: return "npu_max(" + expr(e->a) + ", " + expr(e->b) + ")";
      case NOp::Lt: return "(" + expr(e->a) + " < " + expr(e->b) + ")";
      case NOp::Eq: return "(" + expr(e->a) + " == " + expr(e->b) + ")";
      case NOp::And: return "(" + expr(e->a) + " && " + expr(e->b) + ")";
      case NOp::CoreId: return "(int64_t)npu_core_id(ctx)";
      case NOp::CoreNum: return "(int64_t)npu_core_num(ctx)";
    }
    return "0";
  }
  std::string addr(const NAddr &a) const {
    if (a.mem == NPU_GM) return "npu_gm((const uint8_t *)gm[" + std::to_string(a.arg) + "] + " + expr(a.off) + ")";
    return std::string("NPU_ADDR_(") + c_mem(a.mem) + ", " + expr(a.off) + ")";
  }
  std::string shape(const NShape &s) const {
    std::ostringstream o;
    if (s.lane_bit) {
      o << "npu_shape_lane(" << expr(s.repeat) << ", " << s.dst_blk << ", " << s.src0_blk << ", " << s.src1_blk << ", "
        << s.dst_rep << ", " << s.src0_rep << ", " << s.src1_rep << ", " << expr(s.lane_bit) << ")";
      return o.str();
    }
    o << "npu_shape(" << expr(s.repeat) << ", " << s.dst_blk << ", " << s.src0_blk << ", " << s.src1_blk << ", "
      << s.dst_rep << ", " << s.src0_rep << ", " << s.src1_rep << ", " << s.lanes << ")";
    return o.str();
  }
  static std::string num(double v) {
    std::ostringstream o;
    o.precision(17);
    o << v;
    std::string s = o.str();
    if (s.find_first_of(".eE") == std::string::npos && s.find("inf") == std::string::npos) s += ".0";
    return s;
  }
  void call(const NCall &c, const std::string &in) const {
    auto ints = [&](std::size_t from, std::size_t n) {
      std::string s;
      for (std::size_t i = from; i < from + n; ++i) s += ", " + expr(c.ints[i]);
      return s;
    };
    os << in;
    switch (c.kind) {
      case NCallKind::Copy:
        os << "npu_copy(ctx, " << addr(c.dst) << ", " << addr(c.src0) << ints(0, 4) << ", " << c_layout(c.op)
           << ints(4, 3) << ");\n";
        break;
      case NCallKind::LoadL0:
        os << "npu_load_l0(ctx, " << addr(c.dst) << ", " << addr(c.src0) << ints(0, 3) << ", " << c_dtype(c.dt)
           << ");\n";
        break;
      case NCallKind::Mmad:
        os << "npu_mmad(ctx, " << addr(c.dst) << ", " << addr(c.src0) << ", " << addr(c.src1) << ints(0, 3) << ", "
           << c_dtype(c.dt) << ", " << c_dtype(c.dt2) << ", " << expr(c.ints[3]) << " ? NPU_ACCUM : NPU_ZERO, NPU_L0C(0));\n";
        break;
      case NCallKind::Fix:
        os << "npu_fix(ctx, " << addr(c.dst) << ", " << addr(c.src0) << ints(0, 2) << ", " << c_dtype(c.dt) << ", "
           << c_dtype(c.dt2) << ", " << expr(c.ints[2]) << ", " << c_layout(c.op) << ", " << expr(c.ints[3]) << ");\n";
        break;
      case NCallKind::VBin:
        os << "npu_vbin(ctx, " << c_binop(c.op) << ", " << addr(c.dst) << ", " << addr(c.src0) << ", " << addr(c.src1)
           << ", " << c_dtype(c.dt) << ", " << shape(c.shape) << ");\n";
        break;
      case NCallKind::VUn:
        os << "npu_vun(ctx, " << c_unop(c.op) << ", " << addr(c.dst) << ", " << addr(c.src0) << ", " << c_dtype(c.dt)
           << ", " << shape(c.shape) << ");\n";
        break;
      case NCallKind::VScalar:
        os << "npu_vscalar(ctx, " << c_binop(c.op) << ", " << addr(c.dst) << ", " << addr(c.src0) << ", "
           << num(c.scalar) << ", " << c_dtype(c.dt) << ", " << shape(c.shape) << ");\n";
        break;
      case NCallKind::VReduce: {
        static const char *r[] = {"NPU_RSUM", "NPU_RMAX", "NPU_RMIN"};
        os << "npu_vreduce(ctx, " << r[c.op] << ", " << addr(c.dst) << ", " << addr(c.src0) << ", " << c_dtype(c.dt)
           << ", " << shape(c.shape) << ");\n";
        break;
      }
      case NCallKind::VDup:
        os << "npu_vdup(ctx, " << addr(c.dst) << ", " << num(c.scalar) << ", " << c_dtype(c.dt) << ", "
           << shape(c.shape) << ");\n";
        break;
      case NCallKind::SetFlag:
      case NCallKind::WaitFlag:
        os << (c.kind == NCallKind::SetFlag ? "npu_set_flag(ctx, " : "npu_wait_flag(ctx, ") << c_pipe(c.from) << ", "
           << c_pipe(c.to) << ", " << expr(c.ints[0]) << ");\n";
        break;
    }
  }
  void stmt(const NS &s, int depth) const {
    const std::string in(2 * depth, ' ');
    if (!s->comment.empty()) os << in << "/* " << s->comment << " */\n";
    switch (s->kind) {
      case NStmtKind::Block:
        for (const NS &b : s->body) stmt(b, depth);
        break;
      case NStmtKind::For:
        os << in << "for (" << p.vars[s->var] << " = " << expr(s->lo) << "; " << p.vars[s->var] << " < "
           << expr(s->hi) << " && !npu_failed(ctx); " << p.vars[s->var] << " += " << expr(s->step) << ") {\n";
        for (const NS &b : s->body) stmt(b, depth + 1);
        os << in << "}\n";
        break;
      case NStmtKind::If:
        os << in << "if (" << expr(s->cond) << ") {\n";
        for (const NS &b : s->body) stmt(b, depth + 1);
        os << in << "}\n";
        break;
      case NStmtKind::Set:
        os << in << p.vars[s->var] << " = " << expr(s->value) << ";\n";
        break;
      case NStmtKind::Call:
        call(s->call, in);
        break;
    }
  }
};

}  // namespace

void emit_npu_c_preamble(std::ostream &os) {
  os << "/* NPU kernels generated by Atoll (--target npu), C99 against npu_intrin.h. */\n"
        "#include <stdint.h>\n#include \"npu_intrin.h\"\n\n"
        "static int64_t npu_fdiv(int64_t a, int64_t b) { int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }\n"
        "static int64_t npu_fmod(int64_t a, int64_t b) { return a - npu_fdiv(a, b) * b; }\n"
        "static int64_t npu_min(int64_t a, int64_t b) { return a < b ? a : b; }\n"
        "static int64_t npu_max(int64_t a, int64_t b) { return a > b ? a : b; }\n"
        "static npu_vshape npu_shape(int64_t repeat, uint16_t db, uint16_t s0b, uint16_t s1b, uint16_t dr, uint16_t s0r,\n"
        "                            uint16_t s1r, int lanes) {\n"
        "  npu_vshape v = npu_vshape_contiguous((uint32_t)repeat);\n"
        "  v.dst_blk = db; v.src0_blk = s0b; v.src1_blk = s1b; v.dst_rep = dr; v.src0_rep = s0r; v.src1_rep = s1r;\n"
        "  if (lanes) npu_vshape_set_lanes(&v, (uint32_t)lanes);\n"
        "  return v;\n}\n"
        "static npu_vshape npu_shape_lane(int64_t repeat, uint16_t db, uint16_t s0b, uint16_t s1b, uint16_t dr,\n"
        "                                 uint16_t s0r, uint16_t s1r, int64_t lane) {\n"
        "  npu_vshape v = npu_shape(repeat, db, s0b, s1b, dr, s0r, s1r, 0);\n"
        "  v.mask[0] = lane < 64 ? (uint64_t)1 << lane : 0;\n"
        "  v.mask[1] = lane < 64 ? 0 : (uint64_t)1 << (lane - 64);\n"
        "  return v;\n}\n\n";
}

void emit_npu_c(std::ostream &os, const NpuProgram &p) {
  os << "/* NPU kernel " << p.name << " */\n";
  os << "void " << p.name << "(npu_ctx_t *ctx, void **gm) {\n";
  os << "  const int64_t *params = (const int64_t *)gm[" << p.num_arrays << "];\n";
  for (std::size_t v = 0; v < p.vars.size(); ++v)
    os << "  int64_t " << p.vars[v] << " = "
       << (static_cast<int>(v) < p.num_params ? "params[" + std::to_string(v) + "]" : std::string("0")) << ";\n";
  for (const std::string &v : p.vars) os << "  (void)" << v << ";\n";
  Printer{os, p}.stmt(p.body, 1);
  os << "  (void)params;\n}\n";
}

// ---- interpreter --------------------------------------------------------

namespace {

struct Interp {
  npu_ctx_t *ctx;
  void **gm;
  std::vector<std::int64_t> env;

  std::int64_t eval(const NE &e) const {
    switch (e->op) {
      case NOp::Const: return e->value;
      case NOp::Var: return env[e->var];
      case NOp::CoreId: return npu_core_id(ctx);
      case NOp::CoreNum: return npu_core_num(ctx);
      default: return apply(e->op, eval(e->a), eval(e->b));
    }
  }
  npu_addr addr(const NAddr &a) const {
    if (a.mem == NPU_GM) return npu_gm(static_cast<const uint8_t *>(gm[a.arg]) + eval(a.off));
    return npu_addr{a.mem, static_cast<uint64_t>(eval(a.off))};
  }
  npu_vshape shape(const NShape &s) const {
    npu_vshape v = npu_vshape_contiguous(static_cast<uint32_t>(eval(s.repeat)));
    v.dst_blk = s.dst_blk, v.src0_blk = s.src0_blk, v.src1_blk = s.src1_blk;
    v.dst_rep = s.dst_rep, v.src0_rep = s.src0_rep, v.src1_rep = s.src1_rep;
    if (s.lanes) npu_vshape_set_lanes(&v, static_cast<uint32_t>(s.lanes));
    if (s.lane_bit) {
      const std::int64_t lane = eval(s.lane_bit);
      v.mask[0] = lane < 64 ? std::uint64_t(1) << lane : 0;
      v.mask[1] = lane < 64 ? 0 : std::uint64_t(1) << (lane - 64);
    }
    return v;
  }
  uint32_t u(const NCall &c, std::size_t i) const { return static_cast<uint32_t>(eval(c.ints[i])); }
  void call(const NCall &c) {
    switch (c.kind) {
      case NCallKind::Copy:
        npu_copy(ctx, addr(c.dst), addr(c.src0), u(c, 0), u(c, 1), u(c, 2), u(c, 3), static_cast<npu_layout>(c.op),
                 u(c, 4), u(c, 5), u(c, 6));
        break;
      case NCallKind::LoadL0:
        npu_load_l0(ctx, addr(c.dst), addr(c.src0), u(c, 0), u(c, 1), static_cast<int>(u(c, 2)), c.dt);
        break;
      case NCallKind::Mmad:
        npu_mmad(ctx, addr(c.dst), addr(c.src0), addr(c.src1), u(c, 0), u(c, 1), u(c, 2), c.dt, c.dt2,
                 u(c, 3) ? NPU_ACCUM : NPU_ZERO, npu_addr{NPU_L0C, 0});
        break;
      case NCallKind::Fix:
        npu_fix(ctx, addr(c.dst), addr(c.src0), u(c, 0), u(c, 1), c.dt, c.dt2, static_cast<int>(u(c, 2)),
                static_cast<npu_layout>(c.op), u(c, 3));
        break;
      case NCallKind::VBin:
        npu_vbin(ctx, static_cast<npu_vbinop>(c.op), addr(c.dst), addr(c.src0), addr(c.src1), c.dt, shape(c.shape));
        break;
      case NCallKind::VUn:
        npu_vun(ctx, static_cast<npu_vunop>(c.op), addr(c.dst), addr(c.src0), c.dt, shape(c.shape));
        break;
      case NCallKind::VScalar:
        npu_vscalar(ctx, static_cast<npu_vbinop>(c.op), addr(c.dst), addr(c.src0), c.scalar, c.dt, shape(c.shape));
        break;
      case NCallKind::VDup:
        npu_vdup(ctx, addr(c.dst), c.scalar, c.dt, shape(c.shape));
        break;
      case NCallKind::VReduce:
        npu_vreduce(ctx, static_cast<npu_vredop>(c.op), addr(c.dst), addr(c.src0), c.dt, shape(c.shape));
        break;
      case NCallKind::SetFlag:
        npu_set_flag(ctx, c.from, c.to, u(c, 0));
        break;
      case NCallKind::WaitFlag:
        npu_wait_flag(ctx, c.from, c.to, u(c, 0));
        break;
    }
  }
  void run(const NS &s) {
    if (npu_failed(ctx)) return;
    switch (s->kind) {
      case NStmtKind::Block:
        for (const NS &b : s->body) run(b);
        break;
      case NStmtKind::For: {
        const std::int64_t hi = eval(s->hi), step = eval(s->step);
        for (env[s->var] = eval(s->lo); env[s->var] < hi && !npu_failed(ctx); env[s->var] += step)
          for (const NS &b : s->body) run(b);
        break;
      }
      case NStmtKind::If:
        if (eval(s->cond))
          for (const NS &b : s->body) run(b);
        break;
      case NStmtKind::Set:
        env[s->var] = eval(s->value);
        break;
      case NStmtKind::Call:
        call(s->call);
        break;
    }
  }
};

NS copy_without(const NS &s, int &index) {
  auto c = std::make_shared<NStmt>(*s);
  c->body.clear();
  for (const NS &b : s->body) {
    if (b->kind == NStmtKind::Call && b->call.kind == NCallKind::WaitFlag && index-- == 0) continue;
    c->body.push_back(copy_without(b, index));
  }
  return c;
}

}  // namespace

extern "C" void npu_interpret(npu_ctx_t *ctx, void **gm) {
  const NpuProgram *p;
  std::memcpy(&p, gm[0], sizeof p);
  Interp in{ctx, gm + 1, std::vector<std::int64_t>(p->vars.size(), 0)};
  const auto *params = static_cast<const std::int64_t *>(gm[1 + p->num_arrays]);
  for (int v = 0; v < p->num_params; ++v) in.env[v] = params[v];
  in.run(p->body);
}

NpuProgram without_wait(const NpuProgram &program, int index) {
  NpuProgram p = program;
  p.body = copy_without(program.body, index);
  return p;
}

}  // namespace atl::npu
