// The shape every pass table of Atoll has: the graph simplification passes
// (graph/passes/simplify_graph), the driver's stages (src/pipeline) and the
// polyhedral pipeline of a target (polyhedral/pipeline, whose rows add the
// legality check and retries of the schedule level). A row names its pass,
// the IR level it works on, says in one line what it does, when it runs on
// a state, and how; a table is a list of rows run in order.
#pragma once

#include <string>
#include <vector>

namespace atl {

template <class State>
struct PassRow {
  const char *name;         ///< explain --list-stages, report.json, statistics
  const char *level;        ///< the IR it works on: "graph", "clusters", "code", ...
  const char *description;  ///< one line
  /// Whether the pass runs on this state (its options, earlier passes).
  bool (*enabled)(const State &state);
  /// Runs the pass on the state; returns whether it changed the state's IR.
  bool (*run)(State &state);
};

template <class State>
using PassTable = std::vector<PassRow<State>>;

/// What a table is, for printing: one line per row, in order.
struct PassLine {
  std::string name, level, description;
};

template <class State>
std::vector<PassLine> pass_lines(const PassTable<State> &table) {
  std::vector<PassLine> out;
  for (const PassRow<State> &row : table) out.push_back({row.name, row.level, row.description});
  return out;
}

}  // namespace atl
