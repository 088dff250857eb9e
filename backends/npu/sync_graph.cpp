// Builds the happens-before graph of a launch's traces and a topological order of it (or names the deadlock).
#include "backends/npu/sync_graph.h"

#include <array>
#include <map>
#include <queue>

namespace atl::npu {

bool scalar_issue(const Instr &i) { return i.pipe == NPU_SCALAR || i.sync == SyncKind::Set || i.sync == SyncKind::Wait; }

std::string SyncGraph::name(uint32_t node, const std::vector<CoreTrace> &traces) const {
  return describe(traces[core_of[node]], *instr[node]);
}

namespace {

std::string flag_text(const Instr &i) {
  return std::string("flag (") + pipe_name(i.flag_src) + "->" + pipe_name(i.flag_dst) + ", event " +
         std::to_string(i.event) + ")";
}

}  // namespace

SyncGraph build_sync_graph(const Target &t, const std::vector<CoreTrace> &traces, bool flag_protocol) {
  SyncGraph g;
  uint32_t n = 0;
  for (const CoreTrace &ct : traces) {
    g.first.push_back(n);
    n += static_cast<uint32_t>(ct.instrs.size());
  }
  g.core_of.resize(n);
  g.instr.resize(n);
  g.preds.resize(n);
  g.min_start.assign(n, 0);
  auto set_error = [&](const std::string &e) {
    if (g.error.empty()) g.error = e;
  };

  // sync_all count must agree between cores.
  std::vector<std::vector<uint32_t>> syncs(traces.size());  // per core: node ids of its sync_alls
  for (size_t c = 0; c < traces.size(); ++c)
    for (const Instr &i : traces[c].instrs)
      if (i.sync == SyncKind::SyncAll) syncs[c].push_back(g.first[c] + i.index);
  for (size_t c = 1; c < traces.size(); ++c)
    if (syncs[c].size() != syncs[0].size())
      set_error("npu_sync_all count mismatch: core 0 calls it " + std::to_string(syncs[0].size()) + " times, core " +
                std::to_string(c) + " " + std::to_string(syncs[c].size()) + " times");

  // Last instruction of each pipe of each core before each sync_all (for the sync nodes' edges).
  std::vector<std::vector<std::array<int64_t, kNumPipes>>> before_sync(traces.size());
  std::vector<std::vector<int64_t>> base_before_sync(traces.size());

  for (size_t c = 0; c < traces.size(); ++c) {
    const CoreTrace &ct = traces[c];
    std::array<int64_t, kNumPipes> last;
    last.fill(-1);
    int64_t base = -1;         // last barrier or sync_all node
    uint64_t offset = 0;       // scalar dispatch cycles since it
    std::map<uint32_t, std::vector<uint32_t>> sets, waits;
    for (const Instr &i : ct.instrs) {
      uint32_t id = g.first[c] + i.index;
      g.core_of[id] = static_cast<uint32_t>(c);
      g.instr[id] = &i;
      if (last[i.pipe] >= 0) g.preds[id].push_back({static_cast<uint32_t>(last[i.pipe]), 0});
      if (base >= 0) g.preds[id].push_back({static_cast<uint32_t>(base), offset});
      else g.min_start[id] = offset;
      uint32_t key = (static_cast<uint32_t>(i.flag_src) * 8 + i.flag_dst) * 64 + i.event;
      if (i.sync == SyncKind::Set) sets[key].push_back(id);
      if (i.sync == SyncKind::Wait) waits[key].push_back(id);
      if (i.sync == SyncKind::Barrier) {
        if (last[i.barrier_pipe] >= 0) g.preds[id].push_back({static_cast<uint32_t>(last[i.barrier_pipe]), 0});
        last[NPU_SCALAR] = id;  // later instructions of every pipe follow the barrier node
        base = id;
        offset = 0;
        continue;
      }
      if (i.sync == SyncKind::SyncAll) {
        before_sync[c].push_back(last);
        base_before_sync[c].push_back(base);
        for (int p = 0; p < kNumPipes; ++p) last[p] = -1;
        last[NPU_SCALAR] = id;
        base = id;
        offset = 0;
        continue;
      }
      last[i.pipe] = id;
      if (scalar_issue(i)) offset += t.pipes[NPU_SCALAR].issue_cycles;
    }
    // Pair the k-th wait of a flag with its k-th set.
    for (auto &[key, ws] : waits) {
      const std::vector<uint32_t> &ss = sets[key];
      for (size_t k = 0; k < ws.size(); ++k) {
        if (k < ss.size()) {
          g.preds[ws[k]].push_back({ss[k], 0});
        } else {
          set_error("flag-protocol error: " + describe(ct, *g.instr[ws[k]]) + " waits on " +
                    flag_text(*g.instr[ws[k]]) + ", which no set_flag satisfies by the end of the kernel");
        }
      }
    }
    if (flag_protocol)
      for (auto &[key, ss] : sets)
        if (ss.size() > waits[key].size())
          set_error("flag-protocol error: " + describe(ct, *g.instr[ss[waits[key].size()]]) + " sets " +
                    flag_text(*g.instr[ss[0]]) + ", which is never waited for by the end of the kernel");
  }
  // sync_all k: after every earlier instruction of every core.
  if (g.error.empty())
    for (size_t k = 0; k < syncs[0].size(); ++k)
      for (size_t c = 0; c < traces.size(); ++c) {
        uint32_t id = syncs[c][k];
        g.preds[id].clear();
        for (size_t c2 = 0; c2 < traces.size(); ++c2) {
          for (int p = 0; p < kNumPipes; ++p)
            if (before_sync[c2][k][p] >= 0) g.preds[id].push_back({static_cast<uint32_t>(before_sync[c2][k][p]), 0});
          if (base_before_sync[c2][k] >= 0) g.preds[id].push_back({static_cast<uint32_t>(base_before_sync[c2][k]), 0});
        }
      }

  // Topological order, preferring program order (smallest node id first).
  std::vector<std::vector<uint32_t>> succ(n);
  std::vector<uint32_t> pending(n, 0);
  for (uint32_t v = 0; v < n; ++v)
    for (const Edge &e : g.preds[v]) {
      succ[e.pred].push_back(v);
      ++pending[v];
    }
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> ready;
  for (uint32_t v = 0; v < n; ++v)
    if (!pending[v]) ready.push(v);
  g.topo.reserve(n);
  while (!ready.empty()) {
    uint32_t v = ready.top();
    ready.pop();
    g.topo.push_back(v);
    for (uint32_t s : succ[v])
      if (--pending[s] == 0) ready.push(s);
  }
  if (g.topo.size() != n) {
    for (uint32_t v = 0; v < n; ++v)
      if (pending[v] && g.instr[v]->sync == SyncKind::Wait) {
        set_error("deadlock: " + g.name(v, traces) + " waits on " + flag_text(*g.instr[v]) +
                  " whose set_flag can only fire after this wait");
        break;
      }
    set_error("deadlock: the flags, barriers and sync_alls of the kernel form a cycle");
  }
  return g;
}

}  // namespace atl::npu
