// The timed model: replays the traces on in-order pipe queues with flags, barriers, sync_all and shared GM bandwidth.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backends/npu/sync_graph.h"
#include "backends/npu/target.h"
#include "backends/npu/trace.h"

namespace atl::npu {

/// Cycles of one instruction alone (the spec's cost table; no GM contention).
uint64_t instr_cost(const Target &t, const Instr &i);

/// Result of the timed replay.
struct Timing {
  uint64_t cycles = 0;                                  ///< latest finish over all pipes and cores
  std::vector<uint64_t> start, finish;                  ///< per node of the SyncGraph
  std::vector<std::array<uint64_t, kNumPipes>> busy;    ///< per core, per pipe busy cycles
  std::map<std::string, uint64_t> bytes_per_path;       ///< "GM>L1" -> bytes
  uint64_t cube_steps = 0, macs = 0;
  uint32_t fastest_cycles_per_step = 0;                 ///< of the type rows used (0: no mmad)
  double cube_utilisation = 0;                          ///< steps x fastest cps / (cores x cycles)
};

/// Replays the traces (the graph must have no error). An instruction starts when its pipe is
/// free, its dispatch time has come and its waits are satisfied; MTE2/MTE3 transfers touching
/// GM share gm_bytes_per_cycle (earlier transfers keep their reservation: greedy, deterministic).
Timing simulate_timing(const Target &t, const std::vector<CoreTrace> &traces, const SyncGraph &g);

}  // namespace atl::npu
