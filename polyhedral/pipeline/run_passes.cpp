// The pass runner (see run_passes.h).
#include "polyhedral/pipeline/run_passes.h"

#include "polyhedral/schedule/schedule.h"

#include <chrono>
#include <optional>
#include <utility>

namespace atl::poly {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void add_stats(PassStats &into, const PassStats &from) {
  for (const auto &[what, n] : from) into[what] += n;
}

/// Runs one enabled pass: attempts until one is kept, changes nothing or is
/// rejected without a retry left.
void run_pass(const Pass &pass, ClusterState &state, PassRecord &rec) {
  for (int attempt = 0;; ++attempt) {
    std::optional<ClusterState::ScheduleLevel> saved;
    if (pass.check_legality) saved = state.save_schedule_level();
    PassOutcome out = pass.run(state, attempt);
    if (!out.changed) {
      // A retry that changes nothing leaves the earlier rejection standing.
      rec.result = attempt == 0 ? PassRecord::Result::Unchanged : PassRecord::Result::Rejected;
      rec.note = out.note;
      if (attempt > 0 && pass.rejected_stat) ++rec.stats[pass.rejected_stat];
      return;
    }
    if (pass.check_legality) {
      if (std::optional<Violation> v = check_legality(state.scop, state.deps, state.schedule)) {
        rec.rejections.push_back(v->message());
        state.restore(std::move(*saved));
        if (out.can_retry) {
          if (pass.retried_stat) ++rec.stats[pass.retried_stat];
          continue;
        }
        rec.result = PassRecord::Result::Rejected;
        if (pass.rejected_stat) ++rec.stats[pass.rejected_stat];
        return;
      }
    }
    rec.result = PassRecord::Result::Changed;
    add_stats(rec.stats, out.stats);
    return;
  }
}

}  // namespace

void run_passes(const PassTable &table, ClusterState &state, std::vector<PrintedPass> &printed,
                const LevelDone &level_done) {
  const std::set<std::string> &print = state.options.print_after;
  const bool print_all = print.count("all") > 0;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const Pass &pass = table[i];
    const bool keep_text = print_all || print.count(pass.name);
    std::string before = keep_text ? print_level(state, pass.level) : std::string();
    PassRecord rec;
    rec.name = pass.name;
    rec.level = pass.level;
    auto t0 = std::chrono::steady_clock::now();
    if (pass.enabled(state)) run_pass(pass, state, rec);
    rec.ms = ms_since(t0);
    add_stats(state.stats, rec.stats);
    state.log.push_back(rec);
    if (keep_text) {
      std::string after = print_level(state, pass.level);
      printed.push_back({pass.name, pass.level, rec.result, after == before, std::move(after)});
    }
    if (level_done && (i + 1 == table.size() || table[i + 1].level != pass.level)) level_done(state, pass.level);
  }
}

bool has_pass(const PassTable &table, const std::string &name) {
  for (const Pass &p : table)
    if (name == p.name) return true;
  return false;
}

}  // namespace atl::poly
