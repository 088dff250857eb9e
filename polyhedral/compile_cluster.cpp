// The polyhedral facade: one cluster through the CPU pass table, then its
// stage texts, per-level timings and counters for the driver.
#include "polyhedral/compile_cluster.h"

#include "polyhedral/deps/dependences.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/pipeline/cluster_state.h"
#include "polyhedral/pipeline/gpu_pipeline.h"
#include "polyhedral/schedule/schedule.h"
#include "polyhedral/scop/scop.h"

#include <atoll/diagnostics.h>

#include <algorithm>
#include <set>
#include <sstream>

namespace atl::poly {

namespace {

/// Counts the AST's marked loops into stats.
void count_marks(const LStmt &s, std::map<std::string, long> &stats) {
  if (s.kind == LStmtKind::For) {
    if (s.marks.count(mark::kVector)) ++stats["loops_vectorized"];
    if (s.marks.count(mark::kParallel)) ++stats["loops_parallel"];
    if (s.marks.count(mark::kUnroll)) ++stats["loops_unrolled"];
  }
  for (const auto &b : s.body)
    if (b) count_marks(*b, stats);
  if (s.then_body) count_marks(*s.then_body, stats);
  if (s.else_body) count_marks(*s.else_body, stats);
}

/// The driver's stage timings: the passes' times summed by level.
std::vector<std::pair<std::string, double>> level_timings(const std::vector<PassRecord> &log) {
  std::vector<std::pair<std::string, double>> out;
  for (const PassRecord &r : log) {
    const std::string level = level_name(r.level);
    if (out.empty() || out.back().first != level) out.emplace_back(level, 0.0);
    out.back().second += r.ms;
  }
  return out;
}

/// The output arrays whose every element the kernel assigns before it reads
/// it: the first statement (in the original order, which the schedule keeps
/// per element through the dependences) that touches the array is a plain
/// assignment to it, reads none of it, and writes its whole extent. The
/// runner need not zero-fill such an array before the kernel.
std::set<std::string> written_first(const Scop &scop, const LKernel &kernel) {
  std::set<std::string> out;
  for (const LArray &a : kernel.arrays) {
    if (a.role != LArray::Role::Output) continue;
    const ScopArray *sa = scop.array(a.name);
    if (!sa || sa->array.role != KernelArray::Role::Output) continue;
    for (const ScopStatement &st : scop.statements) {
      bool reads = std::any_of(st.reads.begin(), st.reads.end(), [&](const ScopAccess &r) { return r.array == a.name; });
      if (st.write.array != a.name && !reads) continue;
      if (st.write.array == a.name && !reads && st.op == compute::AssignOp::Assign && !st.write.guarded &&
          !st.write.indirect) {
        try {
          isl::set written = st.write.relation.intersect_domain(st.domain).range().intersect_params(scop.context);
          if (written.is_equal(sa->extent.intersect_params(scop.context))) out.insert(a.name);
        } catch (const isl::exception &) {
          // Unknown: the runner zero-fills it.
        }
      }
      break;  // only the first statement that touches the array decides
    }
  }
  return out;
}

}  // namespace

ClusterResult compile_cluster(const Graph &graph, const std::vector<NodeId> &cluster, const PolyOptions &options) {
  IslContext ctx;
  ClusterResult r;
  Location where;
  where.graph = graph.name;
  try {
    ClusterState s;
    s.ctx = ctx.get();
    s.graph = &graph;
    s.cluster = cluster;
    s.options = options;
    // Each level's text as it ends (see LevelDone).
    ScopIdentity identity;
    run_passes(pipeline_for(options), s, r.printed, [&](const ClusterState &st, Level level) {
      std::ostringstream os;
      switch (level) {
        case Level::Scop:
          print_scop(os, st.scop);
          r.scop_text = os.str();
          // The SCoP the schedule passes see (apply_tuning's, when it ran).
          if (options.describe) identity = st.identity.key.empty() ? scop_identity(st.scop) : st.identity;
          break;
        case Level::Dependences: print_dependences(os, st.deps); r.deps_text = os.str(); break;
        case Level::Schedule: r.schedule_yaml = schedule_to_yaml(st.schedule); break;
        case Level::Ast:
          print_loop_ast(os, st.kernel);
          if (st.has_gpu) print_gpu_program(os, st.kernel, st.gpu);
          if (st.npu_plan) print_npu_plan(os, *st.npu_plan);
          r.ast_text = os.str();
          break;
      }
    });
    r.name = s.scop.name;
    r.array_of_tensor = s.scop.array_of_tensor;
    r.inlined = s.inlined;
    r.original_yaml = s.original_yaml;
    r.algorithm = s.algorithm;
    r.fallbacks = s.fallbacks;
    r.kernel = s.kernel;
    r.gpu = s.gpu;
    r.has_gpu = s.has_gpu;
    r.npu_plan = s.npu_plan;
    r.stats = s.stats;
    if (!s.has_gpu) r.written_first = written_first(s.scop, r.kernel);
    count_marks(*r.kernel.body, r.stats);
    if (options.describe) {
      r.space = knob_space(s, identity);
      if (!s.options.gpu && !s.options.npu) r.features = cluster_features(s, r.stats);
    }
    r.timings_ms = level_timings(s.log);
    r.tuned = s.tuned;
    r.passes = std::move(s.log);
  } catch (const IllegalSchedule &e) {
    Location l = e.where();
    l.graph = graph.name;
    throw IllegalSchedule(e.violation(), l);
  } catch (const UserError &e) {
    throw e.with(where);
  } catch (const isl::exception &e) {
    throw UserError(std::string("the polyhedral layer failed on cluster: isl error: ") + (e.what() ? e.what() : ""),
                    where);
  }
  return r;
}

}  // namespace atl::poly
