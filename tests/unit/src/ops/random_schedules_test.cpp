// Random legal schedule changes keep outputs equal: with fixed seeds, every
// operator case of the sweep and a few Compute samples are scheduled with
// isl, then randomly tiled (sizes 1..17 and beyond the extent), permuted
// inside permutable bands, given random AST loop types and AST options;
// every result must be legal, and its JIT code must match the reference.
#include <atoll/pipeline.h>

#include "backends/cpu/cpu_backend.h"
#include "polyhedral/ast/build_ast.h"
#include "polyhedral/deps/dependences.h"
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/schedule.h"
#include "polyhedral/scop/scop.h"
#include "polyhedral/transforms/permute_band.h"
#include "polyhedral/transforms/tile_bands.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"
#include "tests/unit/src/ops/op_cases.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <random>
#include <sstream>

using namespace atl;
using namespace atl::test;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr int kMinCases = 200;  // ASan: fewer cases, same code paths
#else
constexpr int kMinCases = 1000;
#endif
constexpr unsigned kBaseSeed = 20240603;
constexpr std::size_t kKernelsPerModule = 250;

/// The Compute samples: prefix sum, blur stencil, matmul, softmax-like.
std::vector<Case> compute_samples() {
  auto compute = [](std::vector<In> ins, const std::string &expr) {
    Case c;
    c.op = "Compute";
    c.inputs = std::move(ins);
    c.attrs = {{"expr", expr}};
    return c;
  };
  return {
      compute({{{23}}}, "y0(i) = x0(i)\ny0(i) += y0(i - 1) where i in 1:23"),
      compute({{{13, 19}}}, "t(i, j) = (x0(i, j) + x0(i, j + 1) + x0(i, j + 2)) / 3 where i in 0:13, j in 0:17\n"
                            "y0(i, j) = (t(i, j) + t(i + 1, j) + t(i + 2, j)) / 3 where i in 0:11, j in 0:17"),
      compute({{{9, 21}}, {{21, 14}}}, "y0(i, j) +=! x0(i, k) * x1(k, j)"),
      compute({{{5, 18}}}, "m(i) max=! x0(i, j)\ne(i, j) = exp(x0(i, j) - m(i))\ns(i) +=! e(i, j)\n"
                           "y0(i, j) = e(i, j) / s(i)"),
  };
}

/// One random variant: what was done, and the kernel.
struct Variant {
  std::size_t source = 0;  ///< index into the case pool
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

/// Applies 1..4 random legal changes; describes them in `log`.
isl::schedule mutate(isl::schedule s, std::mt19937 &rng, std::ostringstream &log) {
  int n = std::uniform_int_distribution<int>(1, 4)(rng);
  for (int step = 0; step < n; ++step) {
    std::vector<isl::schedule_node_band> bands = poly::collect_bands(s);
    std::vector<int> tileable, permutable;
    for (std::size_t b = 0; b < bands.size(); ++b) {
      if (bands[b].n_member() == 1 || bands[b].permutable()) tileable.push_back(static_cast<int>(b));
      if (bands[b].n_member() > 1 && bands[b].permutable()) permutable.push_back(static_cast<int>(b));
    }
    int what = std::uniform_int_distribution<int>(0, 2)(rng);
    if (what == 0 && !tileable.empty()) {
      int pos = tileable[rng() % tileable.size()];
      std::vector<long> sizes;
      for (unsigned m = 0; m < bands[static_cast<std::size_t>(pos)].n_member(); ++m)
        sizes.push_back(pick_size(rng, poly::member_extent(bands[static_cast<std::size_t>(pos)], static_cast<int>(m))));
      log << " tile(" << pos << ",{";
      for (long x : sizes) log << x << ",";
      log << "})";
      s = poly::tile_band_at(s, pos, sizes);
    } else if (what == 1 && !permutable.empty()) {
      int pos = permutable[rng() % permutable.size()];
      std::vector<int> perm(bands[static_cast<std::size_t>(pos)].n_member());
      for (std::size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<int>(k);
      std::shuffle(perm.begin(), perm.end(), rng);
      log << " permute(" << pos << ",{";
      for (int x : perm) log << x << ",";
      log << "})";
      s = poly::permute_band(s, pos, perm);
    }
  }
  // AST loop types last (rebuilding a band forgets them).
  std::vector<isl::schedule_node_band> bands = poly::collect_bands(s);
  if (!bands.empty() && rng() % 2) {
    std::size_t pos = rng() % bands.size();
    isl::schedule_node_band b = bands[pos];
    int m = static_cast<int>(rng() % b.n_member());
    long extent = poly::member_extent(b, m);
    int type = static_cast<int>(rng() % 3);
    if (type == 2 && (extent < 0 || extent > 8)) type = 1;
    log << " loop_type(" << pos << "," << m << "," << (type == 0 ? "atomic" : type == 1 ? "separate" : "unroll") << ")";
    b = type == 0 ? b.member_set_ast_loop_atomic(m) : type == 1 ? b.member_set_ast_loop_separate(m)
                                                                : b.member_set_ast_loop_unroll(m);
    s = b.schedule();
  }
  return s;
}

}  // namespace

TEST_SUITE("polyhedral") {
TEST_CASE("random legal schedule changes: compiled code (JIT) equals the reference") {
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  std::vector<Case> pool = all_op_cases();
  for (Case &c : compute_samples()) pool.push_back(c);
  const int per_case = static_cast<int>((kMinCases + pool.size() - 1) / pool.size());

  std::vector<Graph> graphs;
  std::vector<Variant> variants;
  int illegal = 0, refused = 0;
  for (std::size_t p = 0; p < pool.size(); ++p) {
    graphs.push_back(make_case_graph(pool[p], "rand" + std::to_string(p), "rs" + std::to_string(p)));
    const Graph &g = graphs.back();
    try {
      poly::IslContext ctx;
      poly::Scop scop = poly::build_scop(ctx, g, g.order());
      poly::Dependences deps = poly::compute_dependences(scop);
      isl::schedule base = poly::schedule_isl(scop, deps).schedule;
      for (int v = 0; v < per_case; ++v) {
        Variant var;
        var.source = p;
        var.seed = kBaseSeed + static_cast<unsigned>(variants.size());
        std::mt19937 rng(var.seed);
        std::ostringstream log;
        isl::schedule s;
        try {
          s = mutate(base, rng, log);
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
        if (auto bad = poly::check_legality(scop, deps, s)) {
          ++illegal;
          FAIL_CHECK("seed " << var.seed << " case " << describe_case(pool[p]) << ": illegal after" << var.changes
                             << ": " << bad->message() << "\n" << var.yaml);
          continue;
        }
        poly::AstOptions ao;
        ao.parallel = rng() % 4 != 0;
        ao.vectorize = rng() % 4 != 0;
        var.cluster.kernel = poly::build_ast(scop, deps, s, ao);
        var.cluster.kernel.name = "rk" + std::to_string(variants.size());
        var.cluster.name = var.cluster.kernel.name;
        var.cluster.array_of_tensor = scop.array_of_tensor;
        var.cluster.schedule_yaml = var.yaml;
        variants.push_back(std::move(var));
      }
    } catch (const std::exception &e) {
      FAIL_CHECK("case " << describe_case(pool[p]) << ": scheduling failed: " << e.what());
    }
  }
  auto t1 = Clock::now();

  // References once per pool case.
  std::vector<std::map<std::string, Tensor>> feeds(pool.size()), refs(pool.size());
  for (std::size_t p = 0; p < pool.size(); ++p) {
    feeds[p] = make_graph_inputs(graphs[p]);
    refs[p] = run_reference(graphs[p], feeds[p]);
  }

  int passed = 0;
  double jit_ms = 0;
  for (std::size_t first = 0; first < variants.size(); first += kKernelsPerModule) {
    std::size_t last = std::min(variants.size(), first + kKernelsPerModule);
    std::vector<poly::LKernel> kernels;
    for (std::size_t k = first; k < last; ++k) kernels.push_back(variants[k].cluster.kernel);
    auto j0 = Clock::now();
    // The first module through O3 (vectorized code), the rest through O1 to
    // keep the test's time down; the schedules are what varies.
    cpu::CpuOptions co;
    co.opt_level = first == 0 ? 3 : 1;
    std::shared_ptr<cpu::CpuExecutable> jit = cpu::jit_kernels(kernels, co);
    jit_ms += std::chrono::duration<double, std::milli>(Clock::now() - j0).count();
    for (std::size_t k = first; k < last; ++k) {
      const Variant &var = variants[k];
      const Graph &g = graphs[var.source];
      CompiledGraph cg;
      cg.clusters = {var.cluster};
      cg.functions.push_back(jit->entry(var.cluster.kernel.name));
      cg.keep_alive = jit;
      VerifyResult r = compare_outputs(run_compiled(cg, g, feeds[var.source], {}), refs[var.source], g.outputs);
      if (r.passed) ++passed;
      else
        FAIL_CHECK("seed " << var.seed << " case " << describe_case(pool[var.source]) << " changes:" << var.changes
                           << ": " << r.detail << "\n" << var.yaml);
    }
  }
  auto t2 = Clock::now();
  MESSAGE("random schedules: " << variants.size() << " kernels from " << pool.size() << " cases, " << passed
                               << " equal to the reference, " << illegal << " illegal, " << refused
                               << " refused; schedule+AST "
                               << std::chrono::duration<double>(t1 - t0).count() << " s, JIT " << jit_ms / 1000
                               << " s, total " << std::chrono::duration<double>(t2 - t0).count() << " s");
  CHECK(illegal == 0);
  CHECK(refused == 0);
  CHECK(static_cast<int>(variants.size()) >= kMinCases);
  CHECK(passed == static_cast<int>(variants.size()));
}
}
