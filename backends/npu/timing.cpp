// Timed replay of NPU traces: list scheduling over the happens-before graph with a shared-GM bandwidth profile.
#include "backends/npu/timing.h"

#include <algorithm>
#include <cmath>
#include <queue>

namespace atl::npu {
namespace {

uint64_t ceil_div(uint64_t bytes, double rate) { return static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) / rate - 1e-9)); }

/// Fixed (latency) part of a transfer's cost: startup + per_burst * n_burst.
uint64_t transfer_latency(const Target &t, const Instr &i) {
  const PipeDesc &p = t.pipes[i.pipe];
  return p.startup + uint64_t(p.per_burst) * i.n_burst;
}

/// Piecewise-constant GM bandwidth in use over time.
class GmProfile {
public:
  explicit GmProfile(double cap) : cap_(cap) { used_[0.0] = 0.0; }
  /// Reserves `bytes` at up to `rate` from time t0; returns the finish time.
  double reserve(double t0, double bytes, double rate) {
    split(t0);
    double t = t0, left = bytes, finish = t0;
    auto it = used_.find(t0);
    struct Piece { double a, b, r; };
    std::vector<Piece> plan;
    while (left > 1e-9) {
      auto next = std::next(it);
      double seg_end = next == used_.end() ? INFINITY : next->first;
      double r = std::min(rate, cap_ - it->second);
      if (r > 1e-12) {
        double can = r * (seg_end - t);
        if (can >= left) {
          finish = t + left / r;
          plan.push_back({t, finish, r});
          break;
        }
        plan.push_back({t, seg_end, r});
        left -= can;
      }
      t = seg_end;
      it = next;
    }
    for (const Piece &p : plan) {
      split(p.a);
      split(p.b);
      for (auto j = used_.find(p.a); j != used_.end() && j->first < p.b; ++j) j->second += p.r;
    }
    return finish;
  }
  /// Forgets the profile before t (the replay never looks back).
  void forget_before(double t) {
    auto it = used_.upper_bound(t);
    if (it == used_.begin()) return;
    --it;
    if (it != used_.begin()) {
      double v = it->second, k = it->first;
      used_.erase(used_.begin(), it);
      used_[k] = v;
    }
  }

private:
  void split(double t) {
    auto it = used_.upper_bound(t);
    --it;
    if (it->first != t) used_[t] = it->second;
  }
  double cap_;
  std::map<double, double> used_;
};

}  // namespace

uint64_t instr_cost(const Target &t, const Instr &i) {
  if (i.sync == SyncKind::Set || i.sync == SyncKind::Wait) return 0;  // queue markers; issue is scalar time
  if (i.pipe == NPU_SCALAR) return t.pipes[NPU_SCALAR].issue_cycles;
  if (i.pipe == NPU_CUBE) return t.cube.startup + i.steps * i.cycles_per_step;
  if (i.pipe == NPU_VEC) return t.vector.startup + uint64_t(i.repeat) * (1 + (i.slow ? t.vector.slow_op_cycles_per_repeat : 0));
  return transfer_latency(t, i) + ceil_div(i.bytes, t.pipes[i.pipe].bytes_per_cycle);
}

Timing simulate_timing(const Target &t, const std::vector<CoreTrace> &traces, const SyncGraph &g) {
  Timing r;
  size_t n = g.size();
  r.start.assign(n, 0);
  r.finish.assign(n, 0);
  r.busy.assign(traces.size(), {});
  std::vector<std::vector<std::pair<uint32_t, uint64_t>>> succ(n);
  std::vector<uint32_t> pending(n, 0);
  std::vector<uint64_t> ready_at(g.min_start);
  for (uint32_t v = 0; v < n; ++v)
    for (const Edge &e : g.preds[v]) {
      succ[e.pred].push_back({v, e.delay});
      ++pending[v];
    }
  using Item = std::pair<uint64_t, uint32_t>;  // (ready time, node): earliest first, then program order
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> q;
  for (uint32_t v = 0; v < n; ++v)
    if (!pending[v]) q.push({ready_at[v], v});
  GmProfile gm(t.gm_bytes_per_cycle);
  while (!q.empty()) {
    auto [at, v] = q.top();
    q.pop();
    const Instr &i = *g.instr[v];
    uint64_t end;
    if (i.gm_shared && i.bytes > 0) {
      gm.forget_before(static_cast<double>(at));
      double data_start = static_cast<double>(at + transfer_latency(t, i));
      double f = gm.reserve(data_start, static_cast<double>(i.bytes), t.pipes[i.pipe].bytes_per_cycle);
      end = static_cast<uint64_t>(std::ceil(f - 1e-9));
    } else {
      end = at + instr_cost(t, i);
    }
    r.start[v] = at;
    r.finish[v] = end;
    uint32_t core = g.core_of[v];
    r.busy[core][i.pipe] += end - at;
    if (scalar_issue(i) && i.pipe != NPU_SCALAR) r.busy[core][NPU_SCALAR] += t.pipes[NPU_SCALAR].issue_cycles;
    r.cycles = std::max(r.cycles, end);
    for (auto [s, delay] : succ[v]) {
      ready_at[s] = std::max(ready_at[s], end + delay);
      if (--pending[s] == 0) q.push({ready_at[s], s});
    }
  }
  for (const CoreTrace &ct : traces)
    for (const Instr &i : ct.instrs) {
      if (i.bytes) r.bytes_per_path[std::string(mem_name(i.path_src)) + ">" + mem_name(i.path_dst)] += i.bytes;
      if (i.steps) {
        r.cube_steps += i.steps;
        if (!r.fastest_cycles_per_step || i.cycles_per_step < r.fastest_cycles_per_step)
          r.fastest_cycles_per_step = i.cycles_per_step;
      }
    }
  r.macs = r.cube_steps * t.cube.m * t.cube.n * t.cube.k;
  if (r.cycles)
    r.cube_utilisation = static_cast<double>(r.cube_steps) * r.fastest_cycles_per_step /
                         (static_cast<double>(t.cores) * static_cast<double>(r.cycles));
  return r;
}

}  // namespace atl::npu
