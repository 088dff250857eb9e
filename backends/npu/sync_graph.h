// The ordering graph of a launch's traces: program order per pipe, set/wait pairs, barriers and sync_all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/npu/target.h"
#include "backends/npu/trace.h"

namespace atl::npu {

/// An ordering edge: the successor may start `delay` cycles after the predecessor finishes
/// (delay is the scalar dispatch time after a barrier or sync_all; 0 otherwise).
struct Edge {
  uint32_t pred;
  uint64_t delay;
};

/// Nodes are all instructions of all cores (node id = first[core] + index). The edges are
/// exactly the happens-before relation of the spec; the timing model also uses them as the
/// in-order pipe and dispatch constraints.
struct SyncGraph {
  std::vector<uint32_t> first;        ///< first node id of each core
  std::vector<uint32_t> core_of;      ///< node -> core
  std::vector<const Instr *> instr;   ///< node -> instruction
  std::vector<std::vector<Edge>> preds;
  std::vector<uint64_t> min_start;    ///< dispatch time for nodes before the first barrier/sync_all
  std::vector<uint32_t> topo;         ///< a topological order (program order preferred)
  /// First protocol problem found (unmatched wait, unwaited set, sync_all count mismatch,
  /// deadlock); empty when the graph is sound.
  std::string error;

  size_t size() const { return instr.size(); }
  std::string name(uint32_t node, const std::vector<CoreTrace> &traces) const;
};

/// True when the call costs one scalar issue (SCALAR-pipe calls, flags, barriers).
bool scalar_issue(const Instr &i);

/// Builds the graph. flag_protocol: also report sets never waited by the end of the kernel.
SyncGraph build_sync_graph(const Target &t, const std::vector<CoreTrace> &traces, bool flag_protocol);

}  // namespace atl::npu
