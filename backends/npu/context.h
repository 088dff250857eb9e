// The simulator's per-core kernel context (struct npu_ctx) and the helpers every intrinsic uses.
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "backends/npu/target.h"
#include "backends/npu/trace.h"
#include "npu_intrin.h"

namespace atl::npu {

/// A GM buffer handed to the kernel: host bytes [lo, hi).
struct GmRegion {
  uint64_t lo, hi;
};

/// State shared by the cores of one launch: the target, GM buffers, the first error and the
/// deterministic round-robin scheduler of cores between npu_sync_all calls.
struct LaunchState {
  const Target *target = nullptr;
  std::vector<GmRegion> gm;
  bool flag_protocol = true;   ///< report flag-protocol errors (off only to test the race checker)
  bool cube_arithmetic = true; ///< compute mmad results (off: timing-only cube, documented)
  std::mutex mutex;
  std::condition_variable cv;
  uint32_t turn = 0;           ///< the core allowed to run now
  std::vector<char> finished;
  bool failed = false;         ///< guarded by mutex for writes; read by the running core only
  std::string error;

  /// Passes the turn from `core` to the next unfinished core (round robin) and waits until it
  /// comes back to `core` (unless `core` finished).
  void yield_turn(uint32_t core, bool finishing);
  void wait_turn(uint32_t core);
};

}  // namespace atl::npu

/// One core's context: its on-chip memories, its trace and its flag bookkeeping.
struct npu_ctx {
  atl::npu::LaunchState *launch = nullptr;
  uint32_t core = 0;
  std::array<std::vector<uint8_t>, atl::npu::kNumMems> mem;  ///< on-chip buffers (GM unused)
  atl::npu::CoreTrace trace;
  std::map<uint32_t, int> flag_sets;  ///< (src, dst, event) -> sets minus waits so far
  uint32_t sync_count = 0;
};

namespace atl::npu {

/// True when the run has failed: the intrinsic must do nothing.
bool dead(npu_ctx *c);
/// Records the first error: "CALL (core C, call #N): RULE"; later calls become no-ops.
void fail(npu_ctx *c, const char *call, const std::string &rule);
const Target &target(npu_ctx *c);
/// Checks that [a.off + lo, a.off + hi) lies in the memory (on-chip: capacity; GM: one launched
/// buffer) and that a.off is aligned to the memory's align; fails the call otherwise.
bool check_span(npu_ctx *c, const char *call, const char *what, npu_addr a, uint64_t hi);
/// Host pointer to byte `off` of address a (after check_span).
uint8_t *host_ptr(npu_ctx *c, npu_addr a, uint64_t off = 0);
/// Appends an instruction to the core's trace and returns it.
Instr &record(npu_ctx *c, npu_pipe pipe, const char *call, std::string kind);
/// Adds [a.off + lo, a.off + hi) to a read or write list, merging with the last range when adjacent.
void add_range(std::vector<ByteRange> &v, npu_addr a, uint64_t lo, uint64_t hi);
/// Sorts and merges ranges.
void normalize(std::vector<ByteRange> &v);

/// Element values in bytes: load as double, store with rounding to nearest even (f16, bf16, f32)
/// or rounding and saturation (i8, i32).
double load_value(const uint8_t *p, npu_dtype t);
void store_value(uint8_t *p, npu_dtype t, double v);
bool valid_dtype(int t);

}  // namespace atl::npu
