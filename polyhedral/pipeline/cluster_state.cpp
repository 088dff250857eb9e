// The cluster state's queries and printer (see cluster_state.h).
#include "polyhedral/pipeline/cluster_state.h"

#include "polyhedral/isl/isl_context.h"
#include "polyhedral/pipeline/knobs.h"

#include <sstream>

namespace atl::poly {

const char *level_name(Level level) {
  switch (level) {
    case Level::Scop: return "scop";
    case Level::Dependences: return "deps";
    case Level::Schedule: return "schedule";
    case Level::Ast: return "ast";
  }
  return "?";
}

const char *result_name(PassRecord::Result result) {
  switch (result) {
    case PassRecord::Result::Skipped: return "skipped";
    case PassRecord::Result::Unchanged: return "unchanged";
    case PassRecord::Result::Changed: return "changed";
    case PassRecord::Result::Rejected: return "rejected";
  }
  return "?";
}

const PassRecord *ClusterState::record(const std::string &name) const {
  for (const PassRecord &r : log)
    if (r.name == name) return &r;
  return nullptr;
}

bool ClusterState::applied(const std::string &name) const {
  const PassRecord *r = record(name);
  return r && (r->result == PassRecord::Result::Changed || r->result == PassRecord::Result::Rejected);
}

void ClusterState::restore(ScheduleLevel saved) {
  schedule = std::move(saved.schedule);
  gemm_tiles = std::move(saved.gemm_tiles);
  packed = std::move(saved.packed);
  packs = std::move(saved.packs);
}

std::string print_level(const ClusterState &state, Level level) {
  std::ostringstream os;
  switch (level) {
    case Level::Scop:
      if (state.scop.statements.empty()) return "(no SCoP yet)\n";
      print_scop(os, state.scop);
      if (!state.tuned.empty())
        os << "  tuned (key " << state.identity.key
           << (state.tuned_from != state.identity.key ? ", the point of key " + state.tuned_from : std::string())
           << "): " << point_text(state.tuned) << "\n";
      break;
    case Level::Dependences:
      if (state.deps.flow.is_null()) return "(no dependences yet)\n";
      print_dependences(os, state.deps);
      break;
    case Level::Schedule:
      if (state.schedule.is_null()) return "(no schedule yet)\n";
      // With packing's copy statements when there are some (what the AST is built from).
      os << "// scheduler: " << state.algorithm << "\n"
         << schedule_to_yaml(state.packed ? *state.packed : state.schedule) << "\n";
      break;
    case Level::Ast:
      if (!state.has_kernel) return "(no loop AST yet)\n";
      print_loop_ast(os, state.kernel);
      if (state.has_gpu) print_gpu_program(os, state.kernel, state.gpu);
      if (state.npu_plan) print_npu_plan(os, *state.npu_plan);
      break;
  }
  return os.str();
}

}  // namespace atl::poly
