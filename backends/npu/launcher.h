// Runs an NPU kernel on the simulator: host buffers in and out, SPMD launch, checking, timing and output files.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/npu/analytical.h"
#include "backends/npu/hazards.h"
#include "backends/npu/target.h"
#include "backends/npu/timing.h"
#include "backends/npu/trace.h"
#include "npu_intrin.h"

namespace atl::npu {

/// Functional: execute and check. Timed: also replay the traces on the timing model and
/// compute statistics (the results in the buffers are the same in both modes).
enum class Mode { Functional, Timed };

/// A GM buffer as host bytes (kernel argument i is gm_args[i]).
struct HostBuffer {
  std::vector<uint8_t> bytes;
  HostBuffer() = default;
  explicit HostBuffer(size_t n) : bytes(n, 0) {}
  template <class T>
  static HostBuffer of(const std::vector<T> &v) {
    HostBuffer b(v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(b.bytes.data(), v.data(), b.bytes.size());
    return b;
  }
  template <class T>
  std::vector<T> as() const {
    std::vector<T> v(bytes.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
    return v;
  }
};

struct RunOptions {
  std::string out_dir;          ///< timed mode: write stats.json, trace.json, timeline.svg here
  bool check_hazards = true;    ///< run the hazard checker
  bool flag_protocol = true;    ///< report sets on set flags and sets never waited
  bool cube_arithmetic = true;  ///< false: mmad records and times but skips the arithmetic
  size_t max_reports = 8;
};

struct RunResult {
  bool ok = false;
  std::string error;                 ///< the first problem: a rule, a flag-protocol error, a race...
  std::vector<std::string> races;    ///< every race found (up to max_reports)
  std::vector<std::string> uninit;   ///< reads of never-written bytes
  std::vector<HostBuffer> args;      ///< the GM buffers after the run
  std::vector<CoreTrace> traces;
  std::optional<Timing> timing;      ///< timed mode, when the traces are sound
  AnalyticEstimate analytical;       ///< the analytical model on the same traces
  nlohmann::json stats;              ///< the contents of stats.json (timed mode)
  std::vector<std::string> files;    ///< output files written
};

/// Launches `kernel` SPMD on t.cores cores with GM buffers `args`. Cores run as threads that
/// take turns deterministically: core 0 to its first npu_sync_all, core 1 to its first, ...,
/// then the next segment. Never throws for kernel errors: they come back in RunResult.
RunResult run_kernel(const Target &t, npu_kernel_fn kernel, std::vector<HostBuffer> args, Mode mode,
                     const RunOptions &opts = {});

}  // namespace atl::npu
