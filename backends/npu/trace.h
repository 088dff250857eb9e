// The instruction trace that functional execution records per core and that timing and checking replay.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npu_intrin.h"

namespace atl::npu {

/// Bytes [lo, hi) of one memory (GM: host addresses; on-chip: offsets in the core's buffer).
struct ByteRange {
  npu_mem mem;
  uint64_t lo, hi;
};

enum class SyncKind : uint8_t { None, Set, Wait, Barrier, SyncAll };

/// One intrinsic call as the pipes see it.
struct Instr {
  uint32_t index = 0;         ///< position in the core's trace (0-based; messages print it as #index)
  npu_pipe pipe = NPU_SCALAR;  ///< the queue it goes to
  const char *call = "";       ///< the intrinsic, e.g. "npu_copy"
  std::string kind;            ///< what it does, e.g. "copy GM>L1", "mmad f16", "vexp" (timeline colour)
  std::vector<ByteRange> reads, writes;
  // Cost inputs.
  uint64_t bytes = 0;          ///< DMA / MTE1 / FIX bytes moved
  uint32_t n_burst = 0;        ///< DMA bursts
  bool gm_shared = false;      ///< an MTE2/MTE3 transfer that shares GM bandwidth between cores
  npu_mem path_src = NPU_GM, path_dst = NPU_GM;  ///< DMA path when bytes > 0
  uint64_t steps = 0;          ///< cube 16x16x16 steps
  uint32_t cycles_per_step = 0;
  uint32_t repeat = 0;         ///< vector repeats
  bool slow = false;           ///< slow vector op (exp, ln, sqrt, rsqrt, recip, tanh, div)
  // Synchronisation.
  SyncKind sync = SyncKind::None;
  npu_pipe flag_src = NPU_SCALAR, flag_dst = NPU_SCALAR;
  uint32_t event = 0;
  npu_pipe barrier_pipe = NPU_SCALAR;
  uint32_t sync_index = 0;     ///< which npu_sync_all of the core (0-based)
};

/// One core's trace in program order.
struct CoreTrace {
  uint32_t core = 0;
  std::vector<Instr> instrs;
};

/// "npu_copy (core 0, call #12, MTE2)": how messages name a call.
std::string describe(const CoreTrace &t, const Instr &i);

}  // namespace atl::npu
