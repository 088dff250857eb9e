// The hazard checker: races between pipes (vector clocks over the happens-before graph) and reads of unwritten bytes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backends/npu/sync_graph.h"
#include "backends/npu/trace.h"

namespace atl::npu {

struct HazardReport {
  std::vector<std::string> races;   ///< each names both calls, the memory and the bytes
  std::vector<std::string> uninit;  ///< reads of on-chip bytes that no earlier call wrote
  bool ok() const { return races.empty() && uninit.empty(); }
};

/// Checks the traces. Two accesses to overlapping bytes from different pipes (or cores), at
/// least one a write, not ordered by happens-before, are a race. GM is taken as written by the
/// host before the launch. At most max_reports of each kind are kept.
HazardReport check_hazards(const std::vector<CoreTrace> &traces, const SyncGraph &g, size_t max_reports = 8);

}  // namespace atl::npu
