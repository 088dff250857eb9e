// The analytical model: per-pipe cost sums combined by max (double buffering proven) or sum, and its Spearman check.
#include "backends/npu/analytical.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "backends/npu/kernels/sample_gemm.h"
#include "backends/npu/launcher.h"
#include "backends/npu/timing.h"

namespace atl::npu {
namespace {

/// Double buffering proven for one core's trace (see analytical.h).
bool proven_double_buffered(const CoreTrace &ct) {
  std::map<std::pair<int, int>, std::set<uint32_t>> events;  // (src, dst) -> events set
  for (const Instr &i : ct.instrs) {
    if (i.sync == SyncKind::Barrier) return false;
    if (i.sync == SyncKind::Set) events[{i.flag_src, i.flag_dst}].insert(i.event);
  }
  for (auto &[pair, evs] : events)
    if (evs.size() < 2) return false;
  return true;
}

std::vector<double> ranks(const std::vector<double> &v) {
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[idx[k]] = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    i = j + 1;
  }
  return r;
}

}  // namespace

AnalyticEstimate analytical_model(const Target &t, const std::vector<CoreTrace> &traces) {
  AnalyticEstimate best;
  bool all_db = true;
  for (const CoreTrace &ct : traces) all_db = all_db && proven_double_buffered(ct);
  for (const CoreTrace &ct : traces) {
    AnalyticEstimate e;
    e.double_buffered = all_db;
    for (const Instr &i : ct.instrs) {
      e.pipe_sums[i.pipe] += instr_cost(t, i);
      if (scalar_issue(i) && i.pipe != NPU_SCALAR) e.pipe_sums[NPU_SCALAR] += t.pipes[NPU_SCALAR].issue_cycles;
    }
    uint64_t combined = 0;
    for (int p = 0; p < kNumPipes; ++p)
      combined = all_db ? std::max(combined, e.pipe_sums[p]) : combined + (p == NPU_SCALAR ? 0 : e.pipe_sums[p]);
    e.cycles = combined;
    if (e.cycles >= best.cycles) best = e;
  }
  best.double_buffered = all_db;
  return best;
}

double spearman(const std::vector<double> &a, const std::vector<double> &b) {
  if (a.size() != b.size() || a.size() < 2) return 0;
  std::vector<double> ra = ranks(a), rb = ranks(b);
  double n = static_cast<double>(a.size()), ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n,
         mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n, sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

nlohmann::json analytical_rank_report(const Target &t) {
  struct Cfg { uint32_t M, N, K, mc, n0, kc, k0; int db; };
  static const Cfg sample[] = {
      {64, 64, 64, 16, 16, 32, 16, 0},   {64, 64, 64, 16, 16, 32, 16, 1},  {64, 64, 64, 32, 32, 32, 16, 0},
      {64, 64, 64, 32, 32, 32, 16, 1},   {64, 64, 64, 32, 32, 64, 32, 1},  {128, 64, 64, 32, 32, 32, 32, 1},
      {64, 128, 128, 32, 16, 64, 16, 1}, {128, 128, 64, 32, 32, 64, 32, 0}, {32, 32, 32, 16, 16, 16, 16, 0},
      {128, 128, 128, 32, 32, 32, 16, 1}, {128, 128, 128, 32, 32, 32, 16, 0}, {64, 64, 128, 16, 32, 64, 32, 1}};
  nlohmann::json samples = nlohmann::json::array();
  std::vector<double> an, timed;
  for (const Cfg &c : sample) {
    npu_gemm_params p;
    npu_gemm_default(&p, c.M, c.N, c.K, c.mc, c.n0, c.kc, c.k0, NPU_F16, NPU_F32, NPU_F16, c.db);
    std::vector<HostBuffer> args = {HostBuffer(size_t(c.M) * c.K * 2), HostBuffer(size_t(c.K) * c.N * 2),
                                    HostBuffer(size_t(c.M) * c.N * 2), HostBuffer::of(std::vector<npu_gemm_params>{p})};
    RunResult r = run_kernel(t, npu_sample_gemm, std::move(args), Mode::Timed);
    std::string name = "gemm " + std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K) +
                       " tile " + std::to_string(c.mc) + "x" + std::to_string(c.n0) + "x" + std::to_string(c.kc) + "/" +
                       std::to_string(c.k0) + (c.db ? " db" : " sb");
    if (!r.ok || !r.timing) {
      samples.push_back({{"name", name}, {"skipped", r.error}});
      continue;
    }
    an.push_back(static_cast<double>(r.analytical.cycles));
    timed.push_back(static_cast<double>(r.timing->cycles));
    samples.push_back({{"name", name}, {"analytical", r.analytical.cycles}, {"timed", r.timing->cycles},
                       {"double_buffered", r.analytical.double_buffered}});
  }
  return {{"target", t.name}, {"spearman", spearman(an, timed)}, {"samples", samples}};
}

}  // namespace atl::npu
