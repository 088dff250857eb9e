// Random legal schedule changes keep outputs equal: with fixed seeds, every
// operator case of the sweep and a few Compute samples are scheduled with
// isl, then given marks, randomly tiled (sizes 1..17 and beyond the
// extent), permuted inside permutable bands, given random AST loop types
// and AST options. A second sweep varies fusion and distribution on
// multi-statement clusters (Softmax, LayerNormalization, multi-statement
// Compute, several nodes of sample graphs): isl's maximal fusion or
// serialized SCCs or the original order, then random fusion of sibling
// bands and distribution of bands over sequences (illegal ones skipped and
// counted), then the changes above. Every result must be legal, and its JIT
// code must match the reference interpreter.
//
// Campaigns (scripts/random_schedules.sh) run more variants than CI does,
// through environment variables read by the first sweep:
//   ATOLL_RANDOM_SCHEDULES_SEED      first seed (default kBaseSeed)
//   ATOLL_RANDOM_SCHEDULES_PER_CASE  variants per operator case
//   ATOLL_RANDOM_SCHEDULES_MATCH     only cases whose description contains it
// A failure prints its seed and case; the same three variables with
// PER_CASE=1 and MATCH set to the case replay it alone.
#include "src/frontend/batch.h"
#include "src/pipeline/pipeline.h"

#include "backends/cpu/cpu_backend.h"
#include "polyhedral/ast/build_ast.h"
#include "polyhedral/deps/dependences.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/isl_scheduler.h"
#include "polyhedral/schedule/schedule.h"
#include "polyhedral/scop/scop.h"
#include "polyhedral/transforms/schedule/permute_band.h"
#include "polyhedral/transforms/schedule/tile_bands.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"
#include "polyhedral/transforms/ast/contract_arrays.h"
#include "polyhedral/transforms/schedule/tree_edit.h"
#include "tests/unit/src/ops/op_cases.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <iostream>
#include <optional>
#include <random>
#include <set>
#include <sstream>

using namespace atl;
using poly::distribute;
using poly::find_candidates;
using poly::fuse;
using poly::mark_permutable;
using poly::read_tree;
using poly::to_schedule;
using poly::TreeNode;
using namespace atl::test;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr int kMinCases = 200;  // ASan: fewer cases, same code paths
constexpr int kFusionCases = 60;
#else
constexpr int kMinCases = 1000;
constexpr int kFusionCases = 260;
#endif
constexpr unsigned kBaseSeed = 20240603;
constexpr unsigned kFusionSeed = 20261129;
constexpr std::size_t kKernelsPerModule = 250;
constexpr const char *kMark = "random_mark";

/// Failures the sweep once found, replayed every run with their seeds
/// (the sweep's own seeds shift whenever operator cases are added).
struct Replay {
  const char *case_text;
  unsigned seed;
};
constexpr Replay kReplays[] = {
    // A promoted reduction loop's store forwarded past sibling loops that
    // read and rewrote the accumulator (forward_inits.cpp, StoresAtDepth::leave).
    {"ReduceSum {} inputs f32[3, 5]", 20241612},
};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
/// Processor time of the process so far (the machine may be shared).
double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

Case compute_case(std::vector<In> ins, const std::string &expr) {
  Case c;
  c.op = "Compute";
  c.inputs = std::move(ins);
  c.attrs = {{"expr", expr}};
  return c;
}

/// An unsigned environment variable, or `fallback` when unset or empty.
unsigned long env_number(const char *name, unsigned long fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::strtoul(v, nullptr, 10) : fallback;
}

/// The Compute samples: prefix sum, blur stencil, matmul, softmax-like.
std::vector<Case> compute_samples() {
  return {
      compute_case({{{23}}}, "y0(i) = x0(i)\ny0(i) += y0(i - 1) where i in 1:23"),
      compute_case({{{13, 19}}}, "t(i, j) = (x0(i, j) + x0(i, j + 1) + x0(i, j + 2)) / 3 where i in 0:13, j in 0:17\n"
                                 "y0(i, j) = (t(i, j) + t(i + 1, j) + t(i + 2, j)) / 3 where i in 0:11, j in 0:17"),
      compute_case({{{9, 21}}, {{21, 14}}}, "y0(i, j) +=! x0(i, k) * x1(k, j)"),
      compute_case({{{5, 18}}}, "m(i) max=! x0(i, j)\ne(i, j) = exp(x0(i, j) - m(i))\ns(i) +=! e(i, j)\n"
                                "y0(i, j) = e(i, j) / s(i)"),
  };
}

/// One random variant: where it comes from, what was done, and the kernel.
struct Variant {
  std::size_t source = 0;  ///< index into the graph pool
  unsigned seed = 0;
  std::string changes, yaml;
  poly::ClusterResult cluster;
};

long pick_size(std::mt19937 &rng, long extent) {
  std::uniform_int_distribution<int> kind(0, 9);
  int k = kind(rng);
  if (k == 0) return 0;                                   // untiled
  if (k == 1 && extent > 0) return extent + (rng() % 4);  // >= extent: untiled
  return std::uniform_int_distribution<long>(1, 17)(rng);
}

/// How many mark nodes named kMark the schedule has.
int count_marks(const isl::schedule &s) {
  int n = 0;
  s.root().foreach_descendant_top_down([&](isl::schedule_node node) {
    if (node.isa<isl::schedule_node_mark>() && poly::mark_id(node.as<isl::schedule_node_mark>()).name() == kMark) ++n;
    return true;
  });
  return n;
}

/// A random AST loop type for a member of `band` (unroll only for short loops).
isl::schedule set_random_loop_type(const isl::schedule_node_band &band, std::mt19937 &rng, std::ostringstream &log,
                                   std::size_t pos) {
  int m = static_cast<int>(rng() % band.n_member());
  long extent = poly::member_extent(band, m);
  int type = static_cast<int>(rng() % 3);
  if (type == 2 && (extent < 0 || extent > 8)) type = 1;
  log << " loop_type(" << pos << "," << m << "," << (type == 0 ? "atomic" : type == 1 ? "separate" : "unroll") << ")";
  auto t = type == 0 ? poly::AstLoopType::Atomic : type == 1 ? poly::AstLoopType::Separate : poly::AstLoopType::Unroll;
  return poly::member_set_ast_loop_type(band, m, t).schedule();
}

/// Applies 1..4 random legal changes (tile, permute, a mark above a band, a
/// loop type); describes them in `log`. Marks and loop types set before a
/// tiling or permutation must survive it: `marks` counts the marks added.
isl::schedule mutate(isl::schedule s, std::mt19937 &rng, std::ostringstream &log, int &marks) {
  int n = std::uniform_int_distribution<int>(1, 4)(rng);
  for (int step = 0; step < n; ++step) {
    std::vector<isl::schedule_node_band> bands = poly::collect_bands(s);
    std::vector<int> tileable, permutable;
    for (std::size_t b = 0; b < bands.size(); ++b) {
      if (bands[b].n_member() == 1 || bands[b].permutable()) tileable.push_back(static_cast<int>(b));
      if (bands[b].n_member() > 1 && bands[b].permutable()) permutable.push_back(static_cast<int>(b));
    }
    int what = std::uniform_int_distribution<int>(0, 5)(rng);
    if (what <= 1 && !tileable.empty()) {
      int pos = tileable[rng() % tileable.size()];
      std::vector<long> sizes;
      for (unsigned m = 0; m < bands[static_cast<std::size_t>(pos)].n_member(); ++m)
        sizes.push_back(pick_size(rng, poly::member_extent(bands[static_cast<std::size_t>(pos)], static_cast<int>(m))));
      log << " tile(" << pos << ",{";
      for (long x : sizes) log << x << ",";
      log << "})";
      s = poly::tile_band_at(s, pos, sizes);
    } else if (what <= 3 && !permutable.empty()) {
      int pos = permutable[rng() % permutable.size()];
      std::vector<int> perm(bands[static_cast<std::size_t>(pos)].n_member());
      for (std::size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<int>(k);
      std::shuffle(perm.begin(), perm.end(), rng);
      log << " permute(" << pos << ",{";
      for (int x : perm) log << x << ",";
      log << "})";
      s = poly::permute_band(s, pos, perm);
    } else if (what == 4 && !bands.empty()) {
      std::size_t pos = rng() % bands.size();
      log << " mark(" << pos << ")";
      s = bands[pos].insert_mark(isl::id(s.ctx(), kMark)).schedule();
      ++marks;
    } else if (!bands.empty()) {
      std::size_t pos = rng() % bands.size();
      s = set_random_loop_type(bands[pos], rng, log, pos);
    }
  }
  return s;
}

/// Kernels whose temporaries make_kernel contracted (contract_arrays), and how many arrays.
int g_contracted_kernels = 0, g_contracted_arrays = 0;

/// The kernel of a legal schedule with random AST options; every other
/// kernel has its temporaries contracted.
poly::ClusterResult make_kernel(const poly::Scop &scop, const poly::Dependences &deps, const isl::schedule &s,
                                std::mt19937 &rng, const std::string &name, std::string &changes) {
  poly::AstOptions ao;
  ao.parallel = rng() % 4 != 0;
  ao.vectorize = rng() % 4 != 0;
  changes += std::string(" ast(parallel=") + (ao.parallel ? "1" : "0") + ",vectorize=" + (ao.vectorize ? "1" : "0") + ")";
  poly::ClusterResult c;
  c.kernel = poly::build_ast(scop, deps, s, ao);
  if (rng() % 2) {
    changes += " contract_arrays";
    std::size_t n = poly::contract_arrays(c.kernel).arrays.size();
    g_contracted_kernels += n > 0;
    g_contracted_arrays += static_cast<int>(n);
  }
  c.kernel.name = name;
  c.name = name;
  c.array_of_tensor = scop.array_of_tensor;
  c.schedule_yaml = poly::schedule_to_yaml(s);
  return c;
}

/// JIT-compiles the variants in batches of kKernelsPerModule and compares each
/// with the reference. Returns how many matched; `describe(source)` names a
/// graph in messages. The first module goes through O3 when `o3_first`.
int run_variants(const std::vector<Variant> &variants, const std::vector<Graph> &graphs,
                 const std::function<std::string(std::size_t)> &describe, bool o3_first, double &jit_seconds) {
  std::vector<std::map<std::string, Tensor>> feeds(graphs.size()), refs(graphs.size());
  for (std::size_t p = 0; p < graphs.size(); ++p) {
    feeds[p] = make_graph_inputs(graphs[p]);
    refs[p] = run_reference(graphs[p], feeds[p]);
  }
  int passed = 0;
  jit_seconds = 0;
  for (std::size_t first = 0; first < variants.size(); first += kKernelsPerModule) {
    std::size_t last = std::min(variants.size(), first + kKernelsPerModule);
    std::vector<poly::LKernel> kernels;
    for (std::size_t k = first; k < last; ++k) kernels.push_back(variants[k].cluster.kernel);
    auto j0 = Clock::now();
    // The first module through O3 (vectorized code), the rest through O1 to
    // keep the test's time down; the schedules are what varies.
    cpu::CpuOptions co;
    co.opt_level = first == 0 && o3_first ? 3 : 1;
    std::shared_ptr<cpu::CpuExecutable> jit = cpu::jit_kernels(kernels, co);
    jit_seconds += seconds_since(j0);
    for (std::size_t k = first; k < last; ++k) {
      const Variant &var = variants[k];
      const Graph &g = graphs[var.source];
      CompiledGraph cg;
      cg.clusters = {var.cluster};
      cg.functions.push_back(jit->entry(var.cluster.kernel.name));
      cg.keep_alive = jit;
      VerifyResult r = compare_outputs(run_compiled(cg, g, feeds[var.source], {}), refs[var.source], g.outputs);
      if (r.passed) ++passed;
      else {
        std::ostringstream ast;
        poly::print_loop_ast(ast, var.cluster.kernel);
        FAIL_CHECK("seed " << var.seed << " case " << describe(var.source) << " changes:" << var.changes << ": "
                           << r.detail << "\n" << var.yaml << ast.str());
      }
    }
  }
  return passed;
}

/// Counts of the fusion/distribution sweep.
struct FusionStats {
  int from_isl = 0, from_serialized = 0, from_original = 0;
  int fused = 0, distributed = 0, illegal_skipped = 0;
};

/// Applies 1..3 random fusions or distributions, each kept only when the
/// schedule stays legal.
isl::schedule fuse_or_distribute(const poly::Scop &scop, const poly::Dependences &deps, isl::schedule s,
                                 std::mt19937 &rng, std::ostringstream &log, FusionStats &stats) {
  int n = std::uniform_int_distribution<int>(1, 3)(rng);
  for (int step = 0; step < n; ++step) {
    TreeNode tree = read_tree(s.root().child(0));
    std::vector<std::pair<TreeNode *, std::size_t>> fusions;
    std::vector<TreeNode *> distributions;
    find_candidates(tree, fusions, distributions);
    bool want_fusion = rng() % 2 == 0;
    if (fusions.empty() && distributions.empty()) break;
    if (want_fusion ? fusions.empty() : distributions.empty()) want_fusion = !want_fusion;
    std::string what;
    if (want_fusion) {
      auto [seq, i] = fusions[rng() % fusions.size()];
      int most = static_cast<int>(std::min(seq->children[i].children[0].band->schedule.size(),
                                           seq->children[i + 1].children[0].band->schedule.size()));
      int k = std::uniform_int_distribution<int>(1, most)(rng);
      what = " fuse(" + std::to_string(i) + "," + std::to_string(k) + ")";
      fuse(*seq, i, k);
    } else {
      TreeNode *band = distributions[rng() % distributions.size()];
      std::size_t k = 1 + rng() % (band->children[0].children.size() - 1);
      what = " distribute(" + std::to_string(k) + ")";
      distribute(*band, k);
    }
    isl::schedule t = to_schedule(s.domain(), tree);
    if (poly::check_legality(scop, deps, t)) {
      ++stats.illegal_skipped;
      log << what << "[illegal, skipped]";
      continue;
    }
    ++(want_fusion ? stats.fused : stats.distributed);
    log << what;
    s = t;
  }
  return mark_permutable(deps, s);
}

/// Several nodes of a sample graph as a graph of their own: outside tensors
/// they read become inputs (weights stay weights), tensors read outside or
/// graph outputs become outputs.
Graph window(const Graph &src, const std::set<std::string> &nodes, const std::string &name) {
  Graph g;
  g.name = name;
  std::set<std::string> produced, declared, used_outside(src.outputs.begin(), src.outputs.end());
  for (NodeId v : src.order()) {
    const Node &n = src.node(v);
    if (nodes.count(n.name)) produced.insert(n.outputs.begin(), n.outputs.end());
    else used_outside.insert(n.inputs.begin(), n.inputs.end());
  }
  for (NodeId v : src.order()) {
    const Node &n = src.node(v);
    if (!nodes.count(n.name)) continue;
    for (const std::string &in : n.inputs) {
      if (in.empty() || produced.count(in) || !declared.insert(in).second) continue;
      const TensorDecl &d = src.tensor(in);
      if (d.role == TensorRole::Weight) g.add_weight(in, d.type, d.init, d.data);
      else g.add_input(in, d.type, d.init);
    }
    g.add_node(n);
    for (const std::string &out : n.outputs)
      if (used_outside.count(out)) g.add_output(out);
  }
  g.finalize();
  return g;
}

/// Small graphs shaped like the samples' fusion chances (attention, residual
/// conv block, depthwise block, layer norm), at sizes the test can afford.
const char *kMiniSamples = R"json({"atoll": 1, "graphs": [
 {"name": "attention", "inputs": [{"name": "q", "shape": [2, 5, 4]}, {"name": "k", "shape": [2, 4, 6]},
    {"name": "v", "shape": [2, 6, 3]}], "weights": [{"name": "scale", "shape": [1]}], "outputs": ["ctx"],
  "nodes": [{"op": "MatMul", "name": "scores", "inputs": ["q", "k"], "outputs": ["sc"]},
    {"op": "Mul", "name": "scale_scores", "inputs": ["sc", "scale"], "outputs": ["scs"]},
    {"op": "Softmax", "name": "softmax", "inputs": ["scs"], "outputs": ["prob"], "attrs": {"axis": -1}},
    {"op": "MatMul", "name": "context", "inputs": ["prob", "v"], "outputs": ["ctx"]}]},
 {"name": "conv_block", "inputs": [{"name": "x", "shape": [1, 3, 7, 6]}, {"name": "r", "shape": [1, 4, 7, 6]}],
  "weights": [{"name": "w", "shape": [4, 3, 3, 3]}, {"name": "g", "shape": [4], "init": "uniform(0.5,1.5)"},
    {"name": "b", "shape": [4]}, {"name": "m", "shape": [4]}, {"name": "var", "shape": [4], "init": "uniform(0.5,1.5)"}],
  "outputs": ["y"],
  "nodes": [{"op": "Conv", "name": "conv", "inputs": ["x", "w"], "outputs": ["c"],
      "attrs": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"op": "BatchNormalization", "name": "bn", "inputs": ["c", "g", "b", "m", "var"], "outputs": ["n"]},
    {"op": "Relu", "name": "relu", "inputs": ["n"], "outputs": ["a"]},
    {"op": "Add", "name": "residual", "inputs": ["a", "r"], "outputs": ["y"]}]},
 {"name": "depthwise", "inputs": [{"name": "x", "shape": [1, 4, 6, 5]}], "weights": [{"name": "w", "shape": [4, 1, 3, 3]}],
  "outputs": ["y"],
  "nodes": [{"op": "Conv", "name": "dw", "inputs": ["x", "w"], "outputs": ["c"],
      "attrs": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "group": 4}},
    {"op": "Clip", "name": "relu6", "inputs": ["c"], "outputs": ["y"], "attrs": {"min": 0.0, "max": 6.0}}]},
 {"name": "add_norm", "inputs": [{"name": "x", "shape": [3, 10]}, {"name": "h", "shape": [3, 10]}],
  "weights": [{"name": "gamma", "shape": [10]}, {"name": "beta", "shape": [10]}], "outputs": ["y"],
  "nodes": [{"op": "Add", "name": "residual", "inputs": ["x", "h"], "outputs": ["s"]},
    {"op": "LayerNormalization", "name": "ln", "inputs": ["s", "gamma", "beta"], "outputs": ["y"], "attrs": {"axis": -1}}]}
]})json";

/// The multi-statement sources of the fusion sweep: op cases with several
/// statements, multi-statement Compute samples, windows of the MLP sample
/// and the mini samples.
std::vector<std::pair<std::string, Graph>> fusion_sources() {
  std::vector<std::pair<std::string, Graph>> out;
  std::vector<Case> cases;
  for (const Case &c : all_op_cases())
    if (c.op == "Softmax" || c.op == "LogSoftmax" || c.op == "LayerNormalization") cases.push_back(c);
  for (const Case &c : compute_samples())
    if (c.attrs["expr"].get<std::string>().find('\n') != std::string::npos) cases.push_back(c);
  cases.push_back(compute_case({{{6, 7}}, {{7, 5}}, {{5}}},
                               "t(i, j) +=! x0(i, k) * x1(k, j)\nu(i, j) = max(t(i, j) + x2(j), 0)\n"
                               "y0(i) +=! u(i, j)"));
  for (std::size_t k = 0; k < cases.size(); ++k)
    out.emplace_back(describe_case(cases[k]), make_case_graph(cases[k], "fz" + std::to_string(k), "fn" + std::to_string(k)));
  Batch mlp = read_batch_file(std::string(ATOLL_SAMPLES_DIR) + "/mlp.json");
  REQUIRE(mlp.graphs.at(0).graph.has_value());
  Graph concrete = mlp.graphs[0].graph->instantiate({{"N", 2}});
  out.emplace_back("mlp.json fc1+bias1+relu1", window(concrete, {"fc1", "bias1", "relu1"}, "mlp_w1"));
  out.emplace_back("mlp.json bias2+relu2", window(concrete, {"bias2", "relu2"}, "mlp_w2"));
  std::set<std::string> last;
  for (std::size_t k = concrete.order().size() - 2; k < concrete.order().size(); ++k)
    last.insert(concrete.node(concrete.order()[k]).name);
  out.emplace_back("mlp.json last two nodes", window(concrete, last, "mlp_w3"));
  for (BatchGraph &bg : read_batch(kMiniSamples).graphs) {
    REQUIRE_MESSAGE(bg.graph.has_value(), bg.name << ": " << (bg.error ? bg.error->what() : ""));
    out.emplace_back("mini sample " + bg.name, *bg.graph);
  }
  return out;
}

}  // namespace

TEST_SUITE("polyhedral") {
TEST_CASE("random legal schedule changes: compiled code (JIT) equals the reference") {
  auto t0 = Clock::now();
  double c0 = cpu_seconds();
  std::vector<Case> pool = all_op_cases();
  for (Case &c : compute_samples()) pool.push_back(c);
  const char *match = std::getenv("ATOLL_RANDOM_SCHEDULES_MATCH");
  if (match && *match)
    std::erase_if(pool, [&](const Case &c) { return describe_case(c).find(match) == std::string::npos; });
  REQUIRE_MESSAGE(!pool.empty(), "no operator case matches ATOLL_RANDOM_SCHEDULES_MATCH=" << match);
  const unsigned base_seed = static_cast<unsigned>(env_number("ATOLL_RANDOM_SCHEDULES_SEED", kBaseSeed));
  const int per_case = static_cast<int>(
      env_number("ATOLL_RANDOM_SCHEDULES_PER_CASE", (kMinCases + pool.size() - 1) / pool.size()));
  const int min_cases = std::min<int>(kMinCases, per_case * static_cast<int>(pool.size()));

  std::vector<Graph> graphs;
  std::vector<Variant> variants;
  int illegal = 0, refused = 0, lost_marks = 0;
  for (std::size_t p = 0; p < pool.size(); ++p) {
    graphs.push_back(make_case_graph(pool[p], "rand" + std::to_string(p), "rs" + std::to_string(p)));
    const Graph &g = graphs.back();
    try {
      poly::IslContext ctx;
      poly::Scop scop = poly::build_scop(ctx, g, g.order());
      poly::Dependences deps = poly::compute_dependences(scop);
      isl::schedule base = poly::schedule_isl(scop, deps).schedule;
      // The case's seeds: its share of the sweep, then the replays of
      // earlier failures that name it.
      std::vector<unsigned> seeds;
      for (int v = 0; v < per_case; ++v) seeds.push_back(base_seed + static_cast<unsigned>(variants.size() + seeds.size()));
      for (const Replay &r : kReplays)
        if (describe_case(pool[p]) == r.case_text) seeds.push_back(r.seed);
      for (unsigned seed : seeds) {
        Variant var;
        var.source = p;
        var.seed = seed;
        std::mt19937 rng(var.seed);
        std::ostringstream log;
        isl::schedule s;
        int marks = 0;
        try {
          s = mutate(base, rng, log, marks);
        } catch (const UserError &e) {
          // The generator only picks permutable (or single-member) bands:
          // a refusal is a bug.
          ++refused;
          FAIL_CHECK("seed " << var.seed << " case " << describe_case(pool[p]) << ": refused:" << log.str() << ": "
                             << e.what());
          continue;
        }
        var.changes = log.str();
        var.yaml = poly::schedule_to_yaml(s);
        if (count_marks(s) != marks) {
          ++lost_marks;
          FAIL_CHECK("seed " << var.seed << ": marks lost after" << var.changes << "\n" << var.yaml);
        }
        if (auto bad = poly::check_legality(scop, deps, s)) {
          ++illegal;
          FAIL_CHECK("seed " << var.seed << " case " << describe_case(pool[p]) << ": illegal after" << var.changes
                             << ": " << bad->message() << "\n" << var.yaml);
          continue;
        }
        var.cluster = make_kernel(scop, deps, s, rng, "rk" + std::to_string(variants.size()), var.changes);
        variants.push_back(std::move(var));
      }
    } catch (const std::exception &e) {
      FAIL_CHECK("case " << describe_case(pool[p]) << ": scheduling failed: " << e.what());
    }
  }
  double schedule_s = seconds_since(t0), jit_s = 0;
  int passed = run_variants(variants, graphs, [&](std::size_t p) { return describe_case(pool[p]); }, true, jit_s);
  MESSAGE("random schedules: " << variants.size() << " kernels from " << pool.size() << " cases, " << passed
                               << " equal to the reference, " << illegal << " illegal, " << refused
                               << " refused; schedule+AST " << schedule_s << " s, JIT " << jit_s << " s, total "
                               << seconds_since(t0) << " s (" << cpu_seconds() - c0 << " s CPU); "
                               << g_contracted_kernels << " kernels with " << g_contracted_arrays
                               << " contracted arrays so far");
  CHECK(illegal == 0);
  CHECK(refused == 0);
  CHECK(lost_marks == 0);
  CHECK(static_cast<int>(variants.size()) >= min_cases);
  CHECK(passed == static_cast<int>(variants.size()));
}

TEST_CASE("random fusion and distribution choices: compiled code (JIT) equals the reference") {
  auto t0 = Clock::now();
  double c0 = cpu_seconds();
  std::vector<std::pair<std::string, Graph>> sources = fusion_sources();
  const int per_source = static_cast<int>((kFusionCases + sources.size() - 1) / sources.size());
  std::vector<Graph> graphs;
  std::vector<Variant> variants;
  FusionStats stats;
  int illegal = 0, refused = 0, lost_marks = 0, multi_statement = 0;
  for (std::size_t p = 0; p < sources.size(); ++p) {
    const auto &[label, g] = sources[p];
    graphs.push_back(g);
    try {
      poly::IslContext ctx;
      poly::Scop scop = poly::build_scop(ctx, g, g.order());
      multi_statement += scop.statements.size() >= 2;
      poly::Dependences deps = poly::compute_dependences(scop);
      // The three starting points: isl's maximal fusion, serialized SCCs
      // (maximal distribution), the original order.
      std::string why;
      poly::SchedulerOptions serialize;
      serialize.serialize_sccs = true;
      std::optional<isl::schedule> serialized = poly::detail::try_isl_scheduler(scop, deps, serialize, 2'000'000, 10, why);
      REQUIRE_MESSAGE(serialized.has_value(), label << ": " << why);
      const isl::schedule bases[] = {poly::schedule_isl(scop, deps).schedule, *serialized,
                                     mark_permutable(deps, poly::schedule_original(scop))};
      const char *base_names[] = {"isl", "isl-serialize-sccs", "original"};
      for (int v = 0; v < per_source; ++v) {
        Variant var;
        var.source = p;
        var.seed = kFusionSeed + static_cast<unsigned>(variants.size());
        std::mt19937 rng(var.seed);
        std::ostringstream log;
        int base = static_cast<int>(rng() % 3);
        ++(base == 0 ? stats.from_isl : base == 1 ? stats.from_serialized : stats.from_original);
        log << " " << base_names[base] << ":";
        isl::schedule s;
        int marks = 0;
        try {
          s = fuse_or_distribute(scop, deps, bases[base], rng, log, stats);
          s = mutate(s, rng, log, marks);
        } catch (const UserError &e) {
          ++refused;
          FAIL_CHECK("seed " << var.seed << " " << label << ": refused:" << log.str() << ": " << e.what());
          continue;
        }
        var.changes = log.str();
        var.yaml = poly::schedule_to_yaml(s);
        if (count_marks(s) != marks) {
          ++lost_marks;
          FAIL_CHECK("seed " << var.seed << ": marks lost after" << var.changes << "\n" << var.yaml);
        }
        if (auto bad = poly::check_legality(scop, deps, s)) {
          ++illegal;
          FAIL_CHECK("seed " << var.seed << " " << label << ": illegal after" << var.changes << ": "
                             << bad->message() << "\n" << var.yaml);
          continue;
        }
        var.cluster = make_kernel(scop, deps, s, rng, "fk" + std::to_string(variants.size()), var.changes);
        variants.push_back(std::move(var));
      }
    } catch (const std::exception &e) {
      FAIL_CHECK(label << ": scheduling failed: " << e.what());
    }
  }
  double schedule_s = seconds_since(t0), jit_s = 0;
  int passed = run_variants(variants, graphs, [&](std::size_t p) { return sources[p].first; }, false, jit_s);
  MESSAGE("fusion/distribution: " << variants.size() << " kernels from " << sources.size() << " clusters ("
                                  << multi_statement << " multi-statement); bases isl " << stats.from_isl
                                  << ", serialized " << stats.from_serialized << ", original " << stats.from_original
                                  << "; " << stats.fused << " fusions, " << stats.distributed << " distributions, "
                                  << stats.illegal_skipped << " illegal choices skipped; " << passed
                                  << " equal to the reference; schedule+AST " << schedule_s << " s, JIT " << jit_s
                                  << " s, total " << seconds_since(t0) << " s (" << cpu_seconds() - c0 << " s CPU); "
                                  << g_contracted_kernels << " kernels with " << g_contracted_arrays
                                  << " contracted arrays so far");
  CHECK(g_contracted_kernels > 0);
  CHECK(illegal == 0);
  CHECK(refused == 0);
  CHECK(lost_marks == 0);
  CHECK(multi_statement == static_cast<int>(sources.size()));
  CHECK(stats.fused > 0);
  CHECK(stats.distributed > 0);
  CHECK(static_cast<int>(variants.size()) >= kFusionCases);
  CHECK(passed == static_cast<int>(variants.size()));
}
}
