// The analytical cost model (per-pipe sums; max over pipes when double buffering is proven) and its rank check.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/npu/target.h"
#include "backends/npu/trace.h"

namespace atl::npu {

struct AnalyticEstimate {
  uint64_t cycles = 0;                        ///< the estimate: max over cores
  std::array<uint64_t, kNumPipes> pipe_sums{};  ///< per-pipe cost sums of the slowest core
  bool double_buffered = false;               ///< proven from the traces' synchronisation
};

/// Double buffering counts as proven when no npu_barrier serialises the pipes and every
/// pipe pair that synchronises with flags rotates over at least two events in each direction
/// it uses; then a core's estimate is max over pipes of the per-pipe sums, else their sum
/// (SCALAR issue time excluded from the sum).
AnalyticEstimate analytical_model(const Target &t, const std::vector<CoreTrace> &traces);

/// Spearman rank correlation of two equally long samples (average ranks for ties).
double spearman(const std::vector<double> &a, const std::vector<double> &b);

/// The analytical model against timed simulation on a fixed sample of GEMM kernels and tile
/// sizes (the library's sample GEMM on `t`): {"spearman": r, "samples": [{name, analytical, timed}]}.
nlohmann::json analytical_rank_report(const Target &t);

}  // namespace atl::npu
