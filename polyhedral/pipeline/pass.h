// The shape every pass of a polyhedral pipeline has: a name, the IR level
// it works on, when it runs, and a run function that returns its
// statistics. A target's pipeline is a table of these (cpu_pipeline.h); the
// runner (run_passes.h) times each pass, checks schedule-level passes
// against the dependences and rolls back the ones that break them.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace atl::poly {

struct ClusterState;

/// The IR a pass reads and writes; it decides how the state is printed
/// after the pass (explain --stage, --print-after) and how it is checked.
enum class Level {
  Scop,          ///< the SCoP: statements, domains, accesses
  Dependences,   ///< the dependences of the SCoP
  Schedule,      ///< the schedule tree
  Ast,           ///< the loop AST (LKernel)
};

const char *level_name(Level level);

/// What a pass counted (bands tiled, arrays packed, ...), by name.
using PassStats = std::map<std::string, long>;

/// What one run of a pass did.
struct PassOutcome {
  bool changed = false;  ///< the pass changed its IR (false: nothing to do here)
  PassStats stats;       ///< kept only when the change is kept
  /// Schedule level, when the change breaks a dependence: the pass can try
  /// again, more conservatively (the runner calls it with attempt + 1).
  bool can_retry = false;
  std::string note;      ///< why nothing changed, when the pass says
};

struct Pass {
  const char *name;         ///< explain --stage NAME, --print-after NAME, report.json
  Level level;
  const char *description;  ///< one line (explain --list-stages)
  /// Whether the pass runs on this state (options, scheduler, earlier passes).
  bool (*enabled)(const ClusterState &state);
  /// Runs the pass on the state; `attempt` counts retries (see can_retry).
  PassOutcome (*run)(ClusterState &state, int attempt);
  /// Schedule level: the runner checks the changed tree against the
  /// dependences and rolls the pass back when it breaks one (the reason is
  /// logged). False for passes that keep legality by construction or check
  /// it themselves (the scheduler, band fusion, packing's copy statements).
  bool check_legality = false;
  /// Compatibility names of the flat --stats counters: counted when an
  /// attempt is rejected and retried, and when the pass is rejected.
  const char *retried_stat = nullptr;
  const char *rejected_stat = nullptr;
};

/// A pipeline: passes in the order they run.
using PassTable = std::vector<Pass>;

/// What happened to one pass on one cluster.
struct PassRecord {
  std::string name;
  Level level = Level::Scop;
  enum class Result { Skipped, Unchanged, Changed, Rejected } result = Result::Skipped;
  double ms = 0;
  PassStats stats;
  std::vector<std::string> rejections;  ///< one per rejected attempt: the violated dependence
  std::string note;
};

const char *result_name(PassRecord::Result result);

}  // namespace atl::poly
