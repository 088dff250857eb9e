// Writes a timed run's outputs: stats.json, a Chrome trace-event file and an SVG timeline.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/npu/analytical.h"
#include "backends/npu/sync_graph.h"
#include "backends/npu/target.h"
#include "backends/npu/timing.h"
#include "backends/npu/trace.h"

namespace atl::npu {

/// stats.json: cycles, busy cycles per pipe (total and per core), bytes per path, MACs, cube
/// steps and utilisation, instruction counts, the analytical estimate.
nlohmann::json make_stats(const Target &t, const std::vector<CoreTrace> &traces, const Timing &tm,
                          const AnalyticEstimate &an);
/// Chrome trace-event JSON (chrome://tracing, Perfetto): one process per core, one thread per pipe.
nlohmann::json make_chrome_trace(const Target &t, const std::vector<CoreTrace> &traces, const SyncGraph &g,
                                 const Timing &tm);
/// An SVG timeline: one row per pipe per core, busy spans coloured by instruction kind, a
/// legend and a time axis in cycles.
std::string make_svg_timeline(const Target &t, const std::vector<CoreTrace> &traces, const SyncGraph &g,
                              const Timing &tm);

}  // namespace atl::npu
