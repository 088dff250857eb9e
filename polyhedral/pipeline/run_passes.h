// Runs a table of passes over one cluster's state: times every pass,
// checks schedule-level passes against the dependences and rolls back the
// ones that break them (the violated dependence is logged), sums their
// statistics and keeps the IR after the passes the options name.
#pragma once

#include "polyhedral/pipeline/cluster_state.h"
#include "polyhedral/pipeline/pass.h"

#include <functional>
#include <string>
#include <vector>

namespace atl::poly {

/// The IR after one pass, kept for explain --stage and --print-after.
struct PrintedPass {
  std::string pass;
  Level level = Level::Scop;
  PassRecord::Result result = PassRecord::Result::Skipped;
  bool unchanged = false;  ///< the same text as before the pass
  std::string text;
};

/// Called when the last pass of a level has run (before the first pass of
/// the next level, and after the table): where a level's final IR is read.
/// isl may rewrite a shared object's representation in place as later
/// passes compute with it (the same set, printed differently), so a level's
/// text is taken when the level ends, not after the table.
using LevelDone = std::function<void(const ClusterState &state, Level level)>;

/// Runs `table` in order on `state` (appending to state.log and
/// state.stats); the IR after every pass named in state.options.print_after
/// (or all with "all") goes to `printed`.
void run_passes(const PassTable &table, ClusterState &state, std::vector<PrintedPass> &printed,
                const LevelDone &level_done = {});

/// True when `name` is a pass of `table`.
bool has_pass(const PassTable &table, const std::string &name);

}  // namespace atl::poly
