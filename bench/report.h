// Benchmark results: one record per case and implementation, printed as tables
// (medians, rates, ratios, kernels, checks) and written as JSON.
#pragma once

#include "bench/measure.h"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace atl::bench {

/// One implementation (library) of one case.
struct LibResult {
  std::string lib;           ///< "atoll", "naive", "openblas", "onednn", "onednn-blocked", ...
  std::string unavailable;   ///< non-empty: not run ("n/a"), with the reason
  std::string error;         ///< non-empty: it failed (e.g. a compile error)
  Timing timing;
  double rate = 0;           ///< work / median time, in the case's unit
  std::string kernel;        ///< what the library ran
  double max_rel_err = -1;   ///< against the reference; -1 = this is the reference
  bool ok = true;            ///< max_rel_err within kTolerance
  std::vector<double> compile_ms;  ///< Atoll only
  int kernels = 0;                 ///< Atoll only: generated kernels
  bool ran() const { return unavailable.empty() && error.empty(); }
};

/// One benchmark case at one thread count.
struct CaseResult {
  std::string group;    ///< "gemm", "conv", "memory"
  std::string name;     ///< e.g. "gemm/1024"
  std::string shape;    ///< human-readable sizes
  int threads = 1;
  double work = 0;      ///< FLOPs, or compulsory bytes
  std::string unit;     ///< "GFLOP/s" or "GB/s"
  std::string reference = "naive";
  std::vector<LibResult> libs;
  const LibResult *lib(const std::string &name) const;
};

/// A column pair of a group's ratio table: rate of `num` / rate of `den`.
struct Ratio {
  std::string num, den, label;
};

/// Prints one group's table: per case the median ms and rate of every library
/// in `libs`, the ratios, Atoll's compile time and the check; then the kernels.
void print_group(std::ostream &os, const std::string &title, const std::vector<CaseResult> &cases,
                 const std::vector<std::string> &libs, const std::vector<Ratio> &ratios);

/// JSON form of one case (every timing, kernel, error).
nlohmann::json to_json(const CaseResult &c);

}  // namespace atl::bench
