// Vector-unit intrinsics on UB: binary, unary, scalar, reduce, dup, convert and compare-select with masks and strides.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backends/npu/context.h"

using namespace atl::npu;

namespace {

struct Operand {
  npu_addr a;
  npu_dtype t;
  uint16_t blk, rep;
};

/// Shared checks of a vector call; returns the lanes per repeat or 0 after failing the call.
uint32_t vec_check(npu_ctx *c, const char *call, const npu_vshape &s, const std::vector<Operand> &ops, bool reduce_dst) {
  const Target &t = target(c);
  if (s.repeat == 0) {
    fail(c, call, "repeat must be at least 1");
    return 0;
  }
  if (s.repeat > t.vector.max_repeat) {
    fail(c, call, "repeat " + std::to_string(s.repeat) + " exceeds max_repeat " + std::to_string(t.vector.max_repeat));
    return 0;
  }
  uint32_t widest = 0;
  for (const Operand &o : ops) {
    if (!valid_dtype(o.t)) {
      fail(c, call, "invalid dtype");
      return 0;
    }
    if (o.a.mem != NPU_UB) {
      fail(c, call, std::string("vector operands must be in UB, not ") + mem_name(o.a.mem));
      return 0;
    }
    widest = std::max(widest, dtype_bytes(o.t));
  }
  uint32_t lanes = t.vector.repeat_bytes / widest;
  if (lanes > 128) {
    fail(c, call, "i8 vector arithmetic is not supported (256 lanes exceed the 128-bit mask); convert with npu_vconv");
    return 0;
  }
  uint32_t bb = t.vector.block_bytes;
  for (size_t k = 0; k < ops.size(); ++k) {
    const Operand &o = ops[k];
    uint64_t e = dtype_bytes(o.t), hull;
    if (k == 0 && reduce_dst) {
      hull = uint64_t(s.repeat) * e;
    } else {
      uint64_t blocks = (uint64_t(lanes) * e + bb - 1) / bb;
      hull = ((uint64_t(s.repeat) - 1) * o.rep + (blocks - 1) * o.blk) * bb + bb;
    }
    if (!check_span(c, call, k == 0 ? "destination" : "source", o.a, hull)) return 0;
  }
  if (s.mask[0] == 0 && (lanes <= 64 || s.mask[1] == 0)) {
    fail(c, call, "mask selects no lane");
    return 0;
  }
  return lanes;
}

inline bool active(const npu_vshape &s, uint32_t l) { return (s.mask[l / 64] >> (l % 64)) & 1; }

inline uint64_t lane_off(const npu_ctx *c, const Operand &o, uint64_t r, uint64_t l) {
  uint64_t bb = c->launch->target->vector.block_bytes, e = dtype_bytes(o.t);
  return (r * o.rep + (l * e / bb) * o.blk) * bb + (l * e) % bb;
}

/// Runs an elementwise vector op: ops[0] is the destination, f maps the source values to the result.
void vec_elementwise(npu_ctx *c, const char *call, const std::string &kind, bool slow, const npu_vshape &s,
                     const std::vector<Operand> &ops, const std::function<double(const double *)> &f) {
  if (dead(c)) return;
  uint32_t lanes = vec_check(c, call, s, ops, false);
  if (!lanes) return;
  Instr &in = record(c, NPU_VEC, call, kind);
  std::vector<double> vals(lanes * ops.size());
  for (uint64_t r = 0; r < s.repeat; ++r) {
    for (uint32_t l = 0; l < lanes; ++l) {
      if (!active(s, l)) continue;
      for (size_t k = 1; k < ops.size(); ++k) {
        uint64_t o = lane_off(c, ops[k], r, l);
        vals[l * ops.size() + k] = load_value(host_ptr(c, ops[k].a, o), ops[k].t);
        add_range(in.reads, ops[k].a, o, o + dtype_bytes(ops[k].t));
      }
    }
    for (uint32_t l = 0; l < lanes; ++l) {
      if (!active(s, l)) continue;
      uint64_t o = lane_off(c, ops[0], r, l);
      store_value(host_ptr(c, ops[0].a, o), ops[0].t, f(&vals[l * ops.size()]));
      add_range(in.writes, ops[0].a, o, o + dtype_bytes(ops[0].t));
    }
  }
  normalize(in.reads);
  normalize(in.writes);
  in.repeat = s.repeat;
  in.slow = slow;
}

double binop(npu_vbinop op, double a, double b) {
  switch (op) {
  case NPU_ADD: return a + b;
  case NPU_SUB: return a - b;
  case NPU_MUL: return a * b;
  case NPU_DIV: return a / b;
  case NPU_MAX: return std::max(a, b);
  case NPU_MIN: return std::min(a, b);
  }
  return 0;
}

const char *binop_name(npu_vbinop op) {
  static const char *const n[] = {"add", "sub", "mul", "div", "max", "min"};
  return op >= NPU_ADD && op <= NPU_MIN ? n[op] : "?";
}

bool valid_binop(int op) { return op >= NPU_ADD && op <= NPU_MIN; }

}  // namespace

extern "C" {

void npu_vbin(npu_ctx_t *c, npu_vbinop op, npu_addr dst, npu_addr a, npu_addr b, npu_dtype t, npu_vshape s) {
  if (dead(c)) return;
  if (!valid_binop(op)) return fail(c, "npu_vbin", "invalid operation");
  vec_elementwise(c, "npu_vbin", std::string("v") + binop_name(op), op == NPU_DIV, s,
                  {{dst, t, s.dst_blk, s.dst_rep}, {a, t, s.src0_blk, s.src0_rep}, {b, t, s.src1_blk, s.src1_rep}},
                  [op](const double *v) { return binop(op, v[1], v[2]); });
}

void npu_vun(npu_ctx_t *c, npu_vunop op, npu_addr dst, npu_addr src, npu_dtype t, npu_vshape s) {
  if (dead(c)) return;
  static const char *const names[] = {"vexp", "vln", "vsqrt", "vrsqrt", "vrecip", "vabs", "vrelu", "vtanh", "vneg"};
  if (op < NPU_EXP || op > NPU_NEG) return fail(c, "npu_vun", "invalid operation");
  bool slow = op == NPU_EXP || op == NPU_LN || op == NPU_SQRT || op == NPU_RSQRT || op == NPU_RECIP || op == NPU_TANH;
  vec_elementwise(c, "npu_vun", names[op], slow, s, {{dst, t, s.dst_blk, s.dst_rep}, {src, t, s.src0_blk, s.src0_rep}},
                  [op](const double *v) {
                    double x = v[1];
                    switch (op) {
                    case NPU_EXP: return std::exp(x);
                    case NPU_LN: return std::log(x);
                    case NPU_SQRT: return std::sqrt(x);
                    case NPU_RSQRT: return 1.0 / std::sqrt(x);
                    case NPU_RECIP: return 1.0 / x;
                    case NPU_ABS: return std::fabs(x);
                    case NPU_RELU: return x > 0 ? x : 0.0;
                    case NPU_TANH: return std::tanh(x);
                    case NPU_NEG: return -x;
                    }
                    return 0.0;
                  });
}

void npu_vscalar(npu_ctx_t *c, npu_vbinop op, npu_addr dst, npu_addr src, double sc, npu_dtype t, npu_vshape s) {
  if (dead(c)) return;
  if (!valid_binop(op)) return fail(c, "npu_vscalar", "invalid operation");
  vec_elementwise(c, "npu_vscalar", std::string("v") + binop_name(op) + "s", op == NPU_DIV, s,
                  {{dst, t, s.dst_blk, s.dst_rep}, {src, t, s.src0_blk, s.src0_rep}},
                  [op, sc](const double *v) { return binop(op, v[1], sc); });
}

void npu_vdup(npu_ctx_t *c, npu_addr dst, double sc, npu_dtype t, npu_vshape s) {
  vec_elementwise(c, "npu_vdup", "vdup", false, s, {{dst, t, s.dst_blk, s.dst_rep}}, [sc](const double *) { return sc; });
}

void npu_vconv(npu_ctx_t *c, npu_addr dst, npu_dtype to, npu_addr src, npu_dtype from, npu_vshape s) {
  vec_elementwise(c, "npu_vconv", std::string("vconv ") + dtype_name(from) + ">" + dtype_name(to), false, s,
                  {{dst, to, s.dst_blk, s.dst_rep}, {src, from, s.src0_blk, s.src0_rep}},
                  [](const double *v) { return v[1]; });
}

void npu_vcmp_select(npu_ctx_t *c, npu_vbinop cmp, npu_addr dst, npu_addr a, npu_addr b, npu_addr if_true,
                     npu_addr if_false, npu_dtype t, npu_vshape s) {
  if (dead(c)) return;
  if (cmp != NPU_MAX && cmp != NPU_MIN) return fail(c, "npu_vcmp_select", "cmp must be NPU_MAX (a > b) or NPU_MIN (a < b)");
  vec_elementwise(c, "npu_vcmp_select", cmp == NPU_MAX ? "vsel gt" : "vsel lt", false, s,
                  {{dst, t, s.dst_blk, s.dst_rep}, {a, t, s.src0_blk, s.src0_rep}, {b, t, s.src1_blk, s.src1_rep},
                   {if_true, t, s.src0_blk, s.src0_rep}, {if_false, t, s.src1_blk, s.src1_rep}},
                  [cmp](const double *v) { return (cmp == NPU_MAX ? v[1] > v[2] : v[1] < v[2]) ? v[3] : v[4]; });
}

void npu_vreduce(npu_ctx_t *c, npu_vredop op, npu_addr dst, npu_addr src, npu_dtype t, npu_vshape s) {
  const char *call = "npu_vreduce";
  if (dead(c)) return;
  if (op < NPU_RSUM || op > NPU_RMIN) return fail(c, call, "invalid operation");
  std::vector<Operand> ops = {{dst, t, 0, 0}, {src, t, s.src0_blk, s.src0_rep}};
  uint32_t lanes = vec_check(c, call, s, ops, true);
  if (!lanes) return;
  static const char *const names[] = {"vrsum", "vrmax", "vrmin"};
  Instr &in = record(c, NPU_VEC, call, names[op]);
  uint64_t e = dtype_bytes(t);
  for (uint64_t r = 0; r < s.repeat; ++r) {
    double acc = op == NPU_RSUM ? 0.0 : op == NPU_RMAX ? -std::numeric_limits<double>::infinity()
                                                       : std::numeric_limits<double>::infinity();
    for (uint32_t l = 0; l < lanes; ++l) {
      if (!active(s, l)) continue;
      uint64_t o = lane_off(c, ops[1], r, l);
      double v = load_value(host_ptr(c, src, o), t);
      add_range(in.reads, src, o, o + e);
      acc = op == NPU_RSUM ? acc + v : op == NPU_RMAX ? std::max(acc, v) : std::min(acc, v);
    }
    store_value(host_ptr(c, dst, r * e), t, acc);
  }
  add_range(in.writes, dst, 0, s.repeat * e);
  normalize(in.reads);
  in.repeat = s.repeat;
}

}  // extern "C"
