// Timing, buffers and result checks shared by every benchmark case.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace atl::bench {

/// How long to time one implementation of one case.
struct MeasureOptions {
  double min_time_s = 0.3;  ///< keep repeating until the timed runs add up to this...
  int min_reps = 3;         ///< ...and at least this many runs were timed (fewer if one run is slow)
  int max_reps = 200;       ///< stop here whatever the time
  double slow_run_s = 1.0;  ///< a warm-up run slower than this lowers min_reps to 1
  double warmup_s = 0.05;   ///< untimed runs until this much time passed (at least one, at most 20)
};

/// Times of the timed runs (milliseconds) and their summary.
struct Timing {
  std::vector<double> ms;
  double median = 0, min = 0, p25 = 0, p75 = 0;
  void summarize();  ///< fills median/min/p25/p75 from ms
};

/// Runs `fn` untimed (warm-up), then timed until the options are met; adds
/// the timed runs to `into` (several calls interleave implementations).
void measure(const std::function<void()> &fn, const MeasureOptions &options, Timing &into);

/// Sleeps so that worker threads another library left spinning go to sleep.
void settle(double seconds);

/// A 64-byte aligned float buffer, zero-filled and touched by the caller thread.
class Buffer {
public:
  Buffer() = default;
  explicit Buffer(std::size_t count);
  float *data() const { return data_.get(); }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(float); }
  float &operator[](std::size_t i) const { return data_.get()[i]; }

private:
  struct Free {
    void operator()(float *p) const;
  };
  std::unique_ptr<float, Free> data_;
  std::size_t count_ = 0;
};

/// Fills with uniform values in [lo, hi) from a fixed seed (reproducible).
void fill_uniform(Buffer &b, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);

/// Largest |x - ref| divided by the largest |ref| (0 when both are zero;
/// infinity when x has a NaN or an infinity the reference does not).
double max_rel_err(const float *x, const float *ref, std::size_t n);

/// Tolerance that every checked result must meet (f32 with reassociated reductions).
inline constexpr double kTolerance = 1e-4;

}  // namespace atl::bench
