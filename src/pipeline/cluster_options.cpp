// Polyhedral options of one cluster from the graph's schedule hints.
#include "src/pipeline/compile_graph.h"

#include "backends/npu/codegen/lower_to_npu.h"
#include "polyhedral/target/gpu_target.h"
#include "src/pipeline/npu_codegen.h"

namespace atl {

namespace {

UserError hint_error(const Graph &g, const std::string &hint, const std::string &why) {
  Location loc{g.pointer.empty() ? "" : g.pointer + "/schedule/" + hint, g.name};
  loc.hint = hint;
  return UserError(why, loc);
}

}  // namespace

poly::PolyOptions cluster_options(const Graph &graph, const std::string &cluster, std::size_t num_clusters,
                                  const CompileOptions &options) {
  const ScheduleHints &h = graph.schedule;
  poly::PolyOptions o;
  o.print_after = options.print_after;
  o.tuning = options.tuning;
  o.describe = options.describe;
  if (poly::is_gpu_target(options.target)) o.gpu = poly::gpu_target(options.target);
  if (is_npu_target(options.target)) o.npu = npu::npu_target_info(npu_target_of(options.target));
  o.scheduler = !options.scheduler.empty() ? options.scheduler : !h.scheduler.empty() ? h.scheduler : "isl";
  if (h.vectorize) o.vectorize = *h.vectorize;
  if (h.parallel) o.parallel = *h.parallel;
  // `tile`: cache tile sizes of the cluster's main statement (its first node's
  // entry); `unroll`: rows of the register tile (unroll-and-jam factor).
  if (auto t = h.tile.find(cluster); t != h.tile.end()) {
    for (std::int64_t v : t->second)
      if (v < 0) throw hint_error(graph, "tile", "tile sizes must be >= 0 (0 = do not tile that dimension)");
    o.tile_sizes.assign(t->second.begin(), t->second.end());
    o.tile_hint = true;
  }
  // `unroll`: true (0 here) leaves it to the cost model; false (1) forbids
  // unrolling: one register-tile row and no unrolled loops.
  if (h.unroll && *h.unroll > 0) {
    if (*h.unroll > 16) throw hint_error(graph, "unroll", "the unroll factor must be between 1 and 16");
    o.unroll = static_cast<long>(*h.unroll);
    if (*h.unroll == 1) o.unroll_loops = false;
  }
  if (h.tree.whole) {
    if (num_clusters != 1)
      throw hint_error(graph, "tree",
                       "the graph compiles as " + std::to_string(num_clusters) +
                           " clusters; give `tree` as an object keyed by cluster name (explain --stage clusters)");
    o.scheduler = "given";
    o.tree = *h.tree.whole;
  } else if (auto it = h.tree.by_cluster.find(cluster); it != h.tree.by_cluster.end()) {
    o.scheduler = "given";
    o.tree = it->second;
  }
  return o;
}

}  // namespace atl
