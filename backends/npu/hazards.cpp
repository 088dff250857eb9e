// Hazard checking: vector clocks over the sync graph, interval shadow memory for races, program-order init tracking.
#include "backends/npu/hazards.h"

#include <algorithm>
#include <map>

namespace atl::npu {
namespace {

struct Seg {
  uint64_t hi;
  int64_t write = -1;                             ///< last writing node
  std::vector<std::pair<uint32_t, uint32_t>> reads;  ///< (chain, node): latest read per chain since the write
};

using Shadow = std::map<uint64_t, Seg>;  // lo -> segment, disjoint

/// Splits so that a segment boundary lies at x (if x falls inside a segment).
void split_at(Shadow &s, uint64_t x) {
  auto it = s.upper_bound(x);
  if (it == s.begin()) return;
  --it;
  if (it->first < x && x < it->second.hi) {
    Seg tail = it->second;
    it->second.hi = x;
    s.emplace(x, std::move(tail));
  }
}

/// Visits the segments covering [lo, hi), creating empty ones for the gaps.
template <class F>
void for_segments(Shadow &s, uint64_t lo, uint64_t hi, F &&f) {
  split_at(s, lo);
  split_at(s, hi);
  uint64_t x = lo;
  auto it = s.lower_bound(lo);
  while (x < hi) {
    if (it == s.end() || it->first > x) {
      uint64_t gap_end = it == s.end() ? hi : std::min(hi, it->first);
      it = s.emplace_hint(it, x, Seg{gap_end});
    }
    f(it->first, it->second);
    x = it->second.hi;
    ++it;
  }
}

std::string bytes_text(npu_mem m, uint64_t lo, uint64_t hi) {
  return std::string(mem_name(m)) + " bytes [" + std::to_string(lo) + ", " + std::to_string(hi) + ")";
}

class Checker {
public:
  Checker(const std::vector<CoreTrace> &traces, const SyncGraph &g, size_t max) : traces_(traces), g_(g), max_(max) {
    nchains_ = static_cast<uint32_t>(traces.size()) * kNumPipes;
    size_t n = g.size();
    chain_.resize(n);
    pos_.resize(n);
    vc_.assign(n * nchains_, 0);
    std::vector<uint32_t> count(nchains_, 0);
    // Chain positions follow program order within a (core, pipe).
    for (uint32_t v = 0; v < n; ++v) {
      chain_[v] = g.core_of[v] * kNumPipes + g.instr[v]->pipe;
      pos_[v] = ++count[chain_[v]];
    }
  }

  void run(HazardReport &rep) {
    for (uint32_t v : g_.topo) {
      uint32_t *mine = &vc_[size_t(v) * nchains_];
      for (const Edge &e : g_.preds[v]) {
        const uint32_t *p = &vc_[size_t(e.pred) * nchains_];
        for (uint32_t c = 0; c < nchains_; ++c) mine[c] = std::max(mine[c], p[c]);
      }
      mine[chain_[v]] = pos_[v];
      const Instr &i = *g_.instr[v];
      for (const ByteRange &r : i.reads) access(v, r, false, rep);
      for (const ByteRange &r : i.writes) access(v, r, true, rep);
    }
  }

private:
  bool hb(uint32_t a, uint32_t b) const { return a == b || vc_[size_t(b) * nchains_ + chain_[a]] >= pos_[a]; }

  void report(HazardReport &rep, uint32_t a, uint32_t b, bool a_writes, bool b_writes, const ByteRange &r, uint64_t lo,
              uint64_t hi) {
    if (rep.races.size() >= max_) return;
    if (a > b) {
      std::swap(a, b);
      std::swap(a_writes, b_writes);
    }
    std::string where = bytes_text(r.mem, lo, hi);
    if (r.mem != NPU_GM) where += " of core " + std::to_string(g_.core_of[b]);
    rep.races.push_back("race on " + where + ": " + g_.name(a, traces_) + (a_writes ? " writes" : " reads") + " and " +
                        g_.name(b, traces_) + (b_writes ? " writes" : " reads") +
                        " them with no flag, barrier or sync_all ordering the two");
  }

  void access(uint32_t v, const ByteRange &r, bool write, HazardReport &rep) {
    uint64_t key = r.mem == NPU_GM ? 0 : (uint64_t(g_.core_of[v]) + 1) * 8 + r.mem;
    Shadow &s = shadow_[key];
    uint32_t ch = chain_[v];
    for_segments(s, r.lo, r.hi, [&](uint64_t lo, Seg &seg) {
      if (seg.write >= 0 && !hb(static_cast<uint32_t>(seg.write), v) && !hb(v, static_cast<uint32_t>(seg.write)))
        report(rep, static_cast<uint32_t>(seg.write), v, true, write, r, lo, seg.hi);
      if (!write) {
        for (auto &rd : seg.reads)
          if (rd.first == ch) {
            rd.second = v;
            return;
          }
        seg.reads.push_back({ch, v});
        return;
      }
      for (auto &rd : seg.reads)
        if (!hb(rd.second, v) && !hb(v, rd.second)) report(rep, rd.second, v, false, true, r, lo, seg.hi);
      seg.write = v;
      seg.reads.clear();
    });
  }

  const std::vector<CoreTrace> &traces_;
  const SyncGraph &g_;
  size_t max_;
  uint32_t nchains_ = 0;
  std::vector<uint32_t> chain_, pos_, vc_;
  std::map<uint64_t, Shadow> shadow_;
};

/// Reads of on-chip bytes never written before, in each core's program order.
void check_uninit(const std::vector<CoreTrace> &traces, size_t max, HazardReport &rep) {
  for (const CoreTrace &ct : traces) {
    std::map<int, std::map<uint64_t, uint64_t>> written;  // mem -> lo -> hi (merged)
    for (const Instr &i : ct.instrs) {
      for (const ByteRange &r : i.reads) {
        if (r.mem == NPU_GM) continue;
        auto &w = written[r.mem];
        uint64_t x = r.lo;
        auto it = w.upper_bound(x);
        if (it != w.begin()) {
          auto p = std::prev(it);
          if (p->second > x) x = p->second;
        }
        while (x < r.hi && it != w.end() && it->first <= x) {
          x = std::max(x, it->second);
          ++it;
        }
        if (x < r.hi && rep.uninit.size() < max) {
          uint64_t end = it != w.end() ? std::min(r.hi, it->first) : r.hi;
          rep.uninit.push_back(describe(ct, i) + " reads " + bytes_text(r.mem, x, end) +
                               " that no earlier call wrote");
        }
      }
      for (const ByteRange &r : i.writes) {
        if (r.mem == NPU_GM) continue;
        auto &w = written[r.mem];
        uint64_t lo = r.lo, hi = r.hi;
        auto it = w.upper_bound(lo);
        if (it != w.begin() && std::prev(it)->second >= lo) --it;
        while (it != w.end() && it->first <= hi) {
          lo = std::min(lo, it->first);
          hi = std::max(hi, it->second);
          it = w.erase(it);
        }
        w[lo] = hi;
      }
    }
  }
}

}  // namespace

HazardReport check_hazards(const std::vector<CoreTrace> &traces, const SyncGraph &g, size_t max_reports) {
  HazardReport rep;
  check_uninit(traces, max_reports, rep);
  Checker(traces, g, max_reports).run(rep);
  return rep;
}

}  // namespace atl::npu
