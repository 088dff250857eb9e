// Context helpers shared by the intrinsics, and the scalar intrinsics: addresses, core ids, flags, barriers, sync_all.
#include "backends/npu/context.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <atoll/dtype.h>

namespace atl::npu {

void LaunchState::yield_turn(uint32_t core, bool finishing) {
  std::unique_lock<std::mutex> lk(mutex);
  if (finishing) finished[core] = 1;
  uint32_t n = static_cast<uint32_t>(finished.size());
  for (uint32_t d = 1; d <= n; ++d) {
    uint32_t c = (core + d) % n;
    if (!finished[c]) {
      turn = c;
      break;
    }
  }
  cv.notify_all();
  if (!finishing) cv.wait(lk, [&] { return turn == core; });
}

void LaunchState::wait_turn(uint32_t core) {
  std::unique_lock<std::mutex> lk(mutex);
  cv.wait(lk, [&] { return turn == core; });
}

std::string describe(const CoreTrace &t, const Instr &i) {
  return std::string(i.call) + " (core " + std::to_string(t.core) + ", call #" + std::to_string(i.index) + ", " +
         pipe_name(i.pipe) + ")";
}

bool dead(npu_ctx *c) { return c == nullptr || c->launch == nullptr || c->launch->failed; }

void fail(npu_ctx *c, const char *call, const std::string &rule) {
  if (dead(c)) return;
  c->launch->failed = true;
  c->launch->error = std::string(call) + " (core " + std::to_string(c->core) + ", call #" +
                     std::to_string(c->trace.instrs.size()) + "): " + rule;
}

const Target &target(npu_ctx *c) { return *c->launch->target; }

bool valid_dtype(int t) { return t >= NPU_F16 && t <= NPU_I32; }

bool check_span(npu_ctx *c, const char *call, const char *what, npu_addr a, uint64_t hi) {
  if (a.mem < NPU_GM || a.mem > NPU_UB) {
    fail(c, call, std::string(what) + ": invalid memory " + std::to_string(static_cast<int>(a.mem)));
    return false;
  }
  const MemDesc &md = target(c).memories[a.mem];
  if (a.off % md.align) {
    fail(c, call, std::string(what) + ": address " + mem_name(a.mem) + "+" + std::to_string(a.off) +
                      " is not aligned to " + std::to_string(md.align) + " bytes (alignment of " +
                      mem_name(a.mem) + ")");
    return false;
  }
  if (a.mem == NPU_GM) {
    for (const GmRegion &r : c->launch->gm)
      if (a.off >= r.lo && a.off + hi <= r.hi && a.off + hi >= a.off) return true;
    fail(c, call, std::string(what) + ": GM bytes [" + std::to_string(a.off) + ", +" + std::to_string(hi) +
                      ") are not inside one kernel argument buffer");
    return false;
  }
  if (a.off > md.bytes || hi > md.bytes - a.off) {
    fail(c, call, std::string(what) + ": " + mem_name(a.mem) + " bytes [" + std::to_string(a.off) + ", " +
                      std::to_string(a.off + hi) + ") exceed the capacity of " + mem_name(a.mem) + " (" +
                      std::to_string(md.bytes) + " bytes)");
    return false;
  }
  return true;
}

uint8_t *host_ptr(npu_ctx *c, npu_addr a, uint64_t off) {
  if (a.mem == NPU_GM) return reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(a.off + off));
  return c->mem[a.mem].data() + a.off + off;
}

Instr &record(npu_ctx *c, npu_pipe pipe, const char *call, std::string kind) {
  Instr &i = c->trace.instrs.emplace_back();
  i.index = static_cast<uint32_t>(c->trace.instrs.size() - 1);
  i.pipe = pipe;
  i.call = call;
  i.kind = std::move(kind);
  return i;
}

void add_range(std::vector<ByteRange> &v, npu_addr a, uint64_t lo, uint64_t hi) {
  if (hi <= lo) return;
  uint64_t l = a.off + lo, h = a.off + hi;
  if (!v.empty() && v.back().mem == a.mem && v.back().hi == l) {
    v.back().hi = h;
    return;
  }
  v.push_back({a.mem, l, h});
}

void normalize(std::vector<ByteRange> &v) {
  if (v.size() < 2) return;
  std::sort(v.begin(), v.end(), [](const ByteRange &x, const ByteRange &y) {
    return x.mem != y.mem ? x.mem < y.mem : x.lo < y.lo;
  });
  size_t out = 0;
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i].mem == v[out].mem && v[i].lo <= v[out].hi)
      v[out].hi = std::max(v[out].hi, v[i].hi);
    else
      v[++out] = v[i];
  }
  v.resize(out + 1);
}

double load_value(const uint8_t *p, npu_dtype t) {
  switch (t) {
  case NPU_F16: { uint16_t h; std::memcpy(&h, p, 2); return half_to_float(h); }
  case NPU_BF16: { uint16_t h; std::memcpy(&h, p, 2); return bfloat_to_float(h); }
  case NPU_F32: { float f; std::memcpy(&f, p, 4); return f; }
  case NPU_I8: return static_cast<int8_t>(*p);
  case NPU_I32: { int32_t i; std::memcpy(&i, p, 4); return i; }
  }
  return 0;
}

namespace {
double saturate(double v, double lo, double hi) {
  if (std::isnan(v)) return 0;
  return std::nearbyint(std::min(hi, std::max(lo, v)));  // default rounding mode: nearest even
}
}  // namespace

void store_value(uint8_t *p, npu_dtype t, double v) {
  switch (t) {
  case NPU_F16: { uint16_t h = float_to_half(static_cast<float>(round_to(DType::F16, v))); std::memcpy(p, &h, 2); return; }
  case NPU_BF16: { uint16_t h = float_to_bfloat(static_cast<float>(round_to(DType::BF16, v))); std::memcpy(p, &h, 2); return; }
  case NPU_F32: { float f = static_cast<float>(v); std::memcpy(p, &f, 4); return; }
  case NPU_I8: *p = static_cast<uint8_t>(static_cast<int8_t>(saturate(v, -128, 127))); return;
  case NPU_I32: { int32_t i = static_cast<int32_t>(saturate(v, -2147483648.0, 2147483647.0)); std::memcpy(p, &i, 4); return; }
  }
}

}  // namespace atl::npu

using namespace atl::npu;

namespace {

bool valid_pipe(int p) { return p >= NPU_MTE1 && p <= NPU_SCALAR; }

std::string flag_name(npu_pipe s, npu_pipe d, uint32_t e) {
  return std::string("flag (") + pipe_name(s) + "->" + pipe_name(d) + ", event " + std::to_string(e) + ")";
}

bool check_flag(npu_ctx *c, const char *call, int s, int d, uint32_t e) {
  if (!valid_pipe(s) || !valid_pipe(d)) {
    fail(c, call, "invalid pipe");
    return false;
  }
  if (s == d) {
    fail(c, call, std::string("source and destination pipe are both ") + pipe_name(static_cast<npu_pipe>(s)));
    return false;
  }
  if (e >= target(c).events_per_pipe_pair) {
    fail(c, call, "event " + std::to_string(e) + " out of range: events_per_pipe_pair is " +
                      std::to_string(target(c).events_per_pipe_pair));
    return false;
  }
  return true;
}

uint32_t flag_key(int s, int d, uint32_t e) { return (static_cast<uint32_t>(s) * 8 + d) * 64 + e; }

}  // namespace

extern "C" {

npu_addr npu_gm(const void *host_ptr) { return npu_addr{NPU_GM, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(host_ptr))}; }
npu_addr npu_add(npu_addr a, uint64_t byte_off) { return npu_addr{a.mem, a.off + byte_off}; }
int npu_failed(npu_ctx_t *c) { return dead(c) ? 1 : 0; }

npu_vshape npu_vshape_contiguous(uint32_t repeat) {
  npu_vshape s{};
  s.repeat = repeat;
  s.dst_blk = s.src0_blk = s.src1_blk = 1;
  s.dst_rep = s.src0_rep = s.src1_rep = 8;
  s.mask[0] = s.mask[1] = ~uint64_t(0);
  return s;
}

void npu_vshape_set_lanes(npu_vshape *s, uint32_t n) {
  s->mask[0] = n >= 64 ? ~uint64_t(0) : ((uint64_t(1) << n) - 1);
  s->mask[1] = n >= 128 ? ~uint64_t(0) : n <= 64 ? 0 : ((uint64_t(1) << (n - 64)) - 1);
}

void npu_set_flag(npu_ctx_t *c, npu_pipe src, npu_pipe dst, uint32_t event) {
  const char *call = "npu_set_flag";
  if (dead(c) || !check_flag(c, call, src, dst, event)) return;
  int &bal = c->flag_sets[flag_key(src, dst, event)];
  if (c->launch->flag_protocol && bal >= 1) {
    fail(c, call, "flag-protocol error: set on " + flag_name(src, dst, event) +
                      ", which is already set (its previous set has no wait_flag yet)");
    return;
  }
  ++bal;
  Instr &i = record(c, src, call, "set_flag");
  i.sync = SyncKind::Set;
  i.flag_src = src;
  i.flag_dst = dst;
  i.event = event;
}

void npu_wait_flag(npu_ctx_t *c, npu_pipe src, npu_pipe dst, uint32_t event) {
  const char *call = "npu_wait_flag";
  if (dead(c) || !check_flag(c, call, src, dst, event)) return;
  --c->flag_sets[flag_key(src, dst, event)];
  Instr &i = record(c, dst, call, "wait_flag");
  i.sync = SyncKind::Wait;
  i.flag_src = src;
  i.flag_dst = dst;
  i.event = event;
}

void npu_barrier(npu_ctx_t *c, npu_pipe p) {
  const char *call = "npu_barrier";
  if (dead(c)) return;
  if (!valid_pipe(p)) return fail(c, call, "invalid pipe");
  Instr &i = record(c, NPU_SCALAR, call, "barrier");
  i.sync = SyncKind::Barrier;
  i.barrier_pipe = p;
}

uint32_t npu_core_id(npu_ctx_t *c) {
  if (dead(c)) return c ? c->core : 0;
  record(c, NPU_SCALAR, "npu_core_id", "scalar");
  return c->core;
}

uint32_t npu_core_num(npu_ctx_t *c) {
  if (dead(c)) return c && c->launch ? c->launch->target->cores : 1;
  record(c, NPU_SCALAR, "npu_core_num", "scalar");
  return c->launch->target->cores;
}

void npu_sync_all(npu_ctx_t *c) {
  if (c == nullptr || c->launch == nullptr) return;
  if (!dead(c)) {
    Instr &i = record(c, NPU_SCALAR, "npu_sync_all", "sync_all");
    i.sync = SyncKind::SyncAll;
    i.sync_index = c->sync_count;
  }
  ++c->sync_count;
  // Even after a failure the turn passes on, so that every core's thread ends.
  c->launch->yield_turn(c->core, false);
}

}  // extern "C"
