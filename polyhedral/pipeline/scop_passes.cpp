// The SCoP-level passes and the dependence analysis (see passes.h).
#include "polyhedral/pipeline/cluster_state.h"
#include "polyhedral/pipeline/knobs.h"
#include "polyhedral/pipeline/passes.h"

#include "polyhedral/transforms/scop/bound_shifted_exps.h"
#include "polyhedral/transforms/scop/coalesce_dims.h"
#include "polyhedral/transforms/scop/factor_reduction_scale.h"
#include "polyhedral/transforms/scop/inline_producers.h"

#include <isl/cpp.h>

#include <utility>

namespace atl::poly::passes {

namespace {

/// True when the isl YAML `tree` reads and schedules every instance of `domain`.
bool schedules_all(const std::string &tree, const isl::union_set &domain) {
  try {
    isl::schedule s(domain.ctx(), tree);
    return domain.is_subset(s.get_domain());
  } catch (const isl::exception &) {
    return false;  // schedule_given says what is wrong with it
  }
}

bool always(const ClusterState &) { return true; }

}  // namespace

const Pass build_scop = {
    "build_scop", Level::Scop, "the cluster's statements, domains and accesses (isl)", always,
    [](ClusterState &s, int) {
      s.scop = poly::build_scop(s.ctx, *s.graph, s.cluster);
      return PassOutcome{true, {}, false, {}};
    }};

// Not with tile sizes, which name the statements as written; under a given
// tree only when the tree schedules the statements left, not the producers,
// as a tree printed by `explain --stage schedule` does.
const Pass inline_producers = {
    "inline_producers", Level::Scop, "cheap elementwise producers recomputed where they are read",
    [](const ClusterState &s) { return s.options.inline_producers && s.options.tile_sizes.empty(); },
    [](ClusterState &s, int) {
      Scop inlined = s.scop;
      InlineResult in = poly::inline_producers(inlined);
      const bool given = s.options.scheduler == "given";
      PassOutcome out;
      if (in.statements.empty()) return out;
      if (given && (schedules_all(s.options.tree, s.scop.domain()) ||
                    !schedules_all(s.options.tree, inlined.domain()))) {
        out.note = "the given tree schedules the producers";
        return out;
      }
      s.scop = std::move(inlined);
      s.inlined = in.into;
      out.changed = true;
      out.stats["producers_inlined"] = static_cast<long>(in.statements.size());
      return out;
    }};

// Exact; the statements keep their names and domains, so under any schedule.
const Pass factor_reduction_scale = {
    "factor_reduction_scale", Level::Scop, "a positive constant factor out of max and min reductions",
    [](const ClusterState &s) { return s.options.factor_scales; },
    [](ClusterState &s, int) {
      PassOutcome out;
      std::vector<std::string> f = factor_reduction_scales(s.scop);
      if (f.empty()) return out;
      out.changed = true;
      out.stats["reduction_scales_factored"] = static_cast<long>(f.size());
      return out;
    }};

// A mark on the exp; the statements are unchanged. The backend's exp then
// needs no upper clamp.
const Pass bound_shifted_exps = {
    "bound_shifted_exps", Level::Scop, "exps of a value minus its own maximum marked as never +inf",
    [](const ClusterState &s) { return s.options.bound_exps; },
    [](ClusterState &s, int) {
      PassOutcome out;
      int n = poly::bound_shifted_exps(s.scop);
      if (n <= 0) return out;
      out.changed = true;
      out.stats["exps_bounded_above"] = n;
      return out;
    }};

// Where an image's rows are not whole register tiles (a register tile is one
// vector wide with 32 vector registers and two with 16, so rows of other
// lengths would leave a remainder tile in every row). Not under tile sizes,
// which name dimensions; under a given tree only when the tree schedules
// the coalesced statements, as the trees this compiler prints do.
const Pass coalesce_dims = {
    "coalesce_dims", Level::Scop, "an image's rows and columns as one dimension",
    [](const ClusterState &s) { return s.options.tile && s.options.vectorize && s.options.tile_sizes.empty(); },
    [](ClusterState &s, int) {
      PassOutcome out;
      Scop coalesced = s.scop;
      const CpuTarget &t = s.options.target;
      long row_unit = static_cast<long>(t.vector_lanes) * (t.vector_registers >= 32 ? 1 : 2);
      CoalesceResult c = poly::coalesce_dims(coalesced, row_unit);
      if (!c.applied) {
        out.note = c.reason;
        return out;
      }
      if (s.options.scheduler == "given" && !schedules_all(s.options.tree, coalesced.domain())) {
        out.note = "the given tree schedules the dimensions as written";
        return out;
      }
      s.scop = std::move(coalesced);
      out.changed = true;
      out.stats["dimensions_coalesced"] = 1;
      return out;
    }};

// Options only: the SCoP is unchanged. Runs after the SCoP passes, so the
// key is that of the SCoP the schedule passes see, and a point's tile sizes
// name its dimensions. Not under a given tree, which is used as is.
const Pass apply_tuning = {
    "apply_tuning", Level::Scop, "a tuned point (records, atoll tune) sets the options of the passes below",
    [](const ClusterState &s) { return s.options.tuning && s.options.scheduler != "given" && !s.options.gpu && !s.options.npu; },
    [](ClusterState &s, int) {
      PassOutcome out;
      s.identity = scop_identity(s.scop);
      std::string from;
      const KnobValues *point = s.options.tuning->find(s.identity.key, s.identity.family, s.identity.shape, &from);
      if (!point) {
        out.note = "no tuned point for key " + s.identity.key;
        return out;
      }
      // A point of another shape of the family: its knobs as they are (a
      // cache tile longer than this shape's dimension leaves it untiled);
      // the passes below check what they build, as for any point.
      apply_knobs(*point, s.options);
      s.tuned = *point;
      s.tuned_from = from;
      out.changed = true;
      out.stats["knobs_applied"] = static_cast<long>(point->size());
      if (from != s.identity.key) out.stats["points_from_other_shapes"] = 1;
      return out;
    }};

const Pass dependences = {
    "dependences", Level::Dependences, "flow, anti and output dependences; reductions", always,
    [](ClusterState &s, int) {
      DepOptions d;
      d.allow_reassociation = s.options.allow_reassociation;
      s.deps = compute_dependences(s.scop, d);
      return PassOutcome{true, {}, false, {}};
    }};

}  // namespace atl::poly::passes
