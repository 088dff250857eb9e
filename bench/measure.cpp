// Timing loop (warm-up, repeat to a time budget, medians), aligned buffers and error checks.
#include "bench/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <thread>

namespace atl::bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Linear-interpolated quantile of sorted values.
double quantile(const std::vector<double> &sorted, double q) {
  if (sorted.empty()) return 0;
  double pos = q * static_cast<double>(sorted.size() - 1);
  std::size_t lo = static_cast<std::size_t>(pos);
  std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] * (1 - frac) + sorted[hi] * frac;
}

}  // namespace

void Timing::summarize() {
  std::vector<double> s = ms;
  std::sort(s.begin(), s.end());
  median = quantile(s, 0.5);
  p25 = quantile(s, 0.25);
  p75 = quantile(s, 0.75);
  min = s.empty() ? 0 : s.front();
}

void measure(const std::function<void()> &fn, const MeasureOptions &options, Timing &into) {
  auto w0 = Clock::now();
  double first = 0;
  for (int i = 0; i < 20; ++i) {
    auto t0 = Clock::now();
    fn();
    if (i == 0) first = seconds_since(t0);
    if (seconds_since(w0) >= options.warmup_s) break;
  }
  int min_reps = first > options.slow_run_s ? 1 : options.min_reps;
  double total = 0;
  for (int rep = 0; rep < options.max_reps; ++rep) {
    auto t0 = Clock::now();
    fn();
    double s = seconds_since(t0);
    into.ms.push_back(s * 1e3);
    total += s;
    if (total >= options.min_time_s && rep + 1 >= min_reps) break;
  }
  into.summarize();
}

void settle(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

void Buffer::Free::operator()(float *p) const { std::free(p); }

Buffer::Buffer(std::size_t count) : count_(count) {
  std::size_t bytes = (std::max<std::size_t>(count, 1) * sizeof(float) + 63) / 64 * 64;
  float *p = static_cast<float *>(std::aligned_alloc(64, bytes));
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  data_.reset(p);
}

void fill_uniform(Buffer &b, std::uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = dist(rng);
}

double max_rel_err(const float *x, const float *ref, std::size_t n) {
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double r = ref[i], v = x[i];
    if (std::isfinite(r) && !std::isfinite(v)) return INFINITY;
    err = std::max(err, std::fabs(v - r));
    scale = std::max(scale, std::fabs(r));
  }
  if (scale == 0) return err == 0 ? 0 : INFINITY;
  return err / scale;
}

}  // namespace atl::bench
