// Test helper of the random transformation sweeps: compiled variants of case
// graphs, built together through the JIT and the C path, each compared with
// the reference interpreter.
#pragma once

#include "src/pipeline/pipeline.h"

#include "backends/cpu/cpu_backend.h"
#include "polyhedral/compile_cluster.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"
#include "tests/unit/src/ops/op_cases.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace polytest {

/// A fixed AVX-512 target (32 KiB L1, 1 MiB L2, 32 MiB L3), so that tests
/// do not depend on the host.
inline atl::poly::CpuTarget avx512_target(int cores = 1) {
  atl::poly::CpuTarget t;
  t.l1_bytes = 32 * 1024, t.l2_bytes = 1024 * 1024, t.l3_bytes = 32 * 1024 * 1024;
  t.vector_lanes = 16, t.vector_registers = 32, t.cores = cores, t.isa = "avx512";
  return t;
}

/// A fixed AVX2 target with a small L2 (AMD Zen 3: 32 KiB L1, 512 KiB L2,
/// 32 MiB L3, 8 lanes, 16 registers).
inline atl::poly::CpuTarget avx2_target(int cores = 1) {
  atl::poly::CpuTarget t = avx512_target(cores);
  t.l2_bytes = 512 * 1024;
  t.vector_lanes = 8, t.vector_registers = 16, t.isa = "avx2";
  return t;
}

/// Random options of the CPU tiling sweeps: vector lanes 1/4/8/16, 16 or 32
/// registers, L1 1-32 KiB, 1 or 2 cores, sometimes `tile` sizes (0-12 per
/// dimension) and an `unroll` hint; `what` gets a description.
inline atl::poly::PolyOptions random_cpu_options(std::mt19937 &rng, std::ostream &what) {
  atl::poly::PolyOptions po;
  po.target = avx512_target();
  int lanes[] = {1, 4, 8, 16};
  po.target.vector_lanes = lanes[rng() % 4];
  po.target.vector_registers = rng() % 2 ? 32 : 16;
  po.target.l1_bytes = 1024L << (rng() % 6);
  po.target.cores = 1 + static_cast<int>(rng() % 2);
  what << "lanes " << po.target.vector_lanes << " regs " << po.target.vector_registers << " l1 " << po.target.l1_bytes
       << " cores " << po.target.cores;
  if (rng() % 2) {
    std::size_t dims = 3 + rng() % 6;
    what << " tile {";
    for (std::size_t d = 0; d < dims; ++d) {
      long t = rng() % 3 == 0 ? 0 : 1 + static_cast<long>(rng() % 13);
      po.tile_sizes.push_back(t);
      what << t << ",";
    }
    what << "}";
  }
  if (rng() % 2) po.unroll = 1 + static_cast<long>(rng() % 7), what << " unroll " << po.unroll;
  return po;
}

/// One compiled variant of graph `source` of a sweep, with how it was chosen.
struct Variant {
  std::size_t source;
  unsigned seed;
  std::string what;
  atl::poly::ClusterResult cluster;
};

/// Adds variant `source` of a sweep compiled by `compile`, its kernel named
/// `prefix` + its index; a compile error fails the check (naming the seed,
/// `name` and `what`) and adds nothing. Returns the variant, or nullptr.
inline const Variant *add_variant(std::vector<Variant> &variants, std::size_t source, unsigned seed, std::string what,
                                  const std::string &name, const std::string &prefix,
                                  const std::function<atl::poly::ClusterResult()> &compile) {
  Variant v{source, seed, std::move(what), {}};
  try {
    v.cluster = compile();
  } catch (const std::exception &e) {
    FAIL_CHECK("seed " << seed << " " << name << " " << v.what << ": " << e.what());
    return nullptr;
  }
  v.cluster.kernel.name = prefix + std::to_string(variants.size());
  v.cluster.name = v.cluster.kernel.name;
  variants.push_back(std::move(v));
  return &variants.back();
}

/// Builds every variant's kernel once through the JIT and once through C, runs
/// each on its graph's inputs and checks it against the reference; `names`
/// (one per graph) say which graph failed.
inline void check_variants(const std::vector<Variant> &variants, const std::vector<atl::Graph> &graphs,
                           const std::vector<std::string> &names) {
  using namespace atl;
  std::vector<poly::LKernel> kernels;
  for (const Variant &v : variants) kernels.push_back(v.cluster.kernel);
  std::vector<std::pair<std::string, std::shared_ptr<cpu::CpuExecutable>>> exes;
  exes.emplace_back("jit", cpu::jit_kernels(kernels));
  exes.emplace_back("c", cpu::build_c_kernels(kernels));
  for (auto &[path, exe] : exes) {
    for (const Variant &v : variants) {
      const Graph &g = graphs[v.source];
      std::map<std::string, Tensor> feeds = make_graph_inputs(g);
      CompiledGraph cg;
      cg.clusters = {v.cluster};
      cg.functions.push_back(exe->entry(v.cluster.kernel.name));
      cg.keep_alive = exe;
      VerifyResult r = compare_outputs(run_compiled(cg, g, feeds, {}), run_reference(g, feeds), g.outputs);
      CHECK_MESSAGE(r.passed, path << " seed " << v.seed << " " << names[v.source] << " " << v.what << ": " << r.detail
                                   << "\n" << v.cluster.schedule_yaml);
    }
  }
}

/// The sweep of a transformation's tests: three variants of each graph, the
/// first on `first` (described as `first_name`), the others on
/// random_cpu_options, each passed through `adjust` when given (a test that
/// needs its transformation applied clears the tile hint), compiled with
/// seeds from `base_seed` and kernels named `prefix` + index, then checked
/// by check_variants. Returns how many variants count `stat` in their stats.
inline int sweep_variants(const std::vector<atl::Graph> &graphs, const std::vector<std::string> &names,
                          unsigned base_seed, const std::string &prefix, const atl::poly::CpuTarget &first,
                          const std::string &first_name, const std::string &stat,
                          const std::function<void(atl::poly::PolyOptions &)> &adjust = {}) {
  std::vector<Variant> variants;
  int counted = 0;
  for (std::size_t p = 0; p < graphs.size(); ++p) {
    for (int v = 0; v < 3; ++v) {
      unsigned seed = base_seed + static_cast<unsigned>(variants.size());
      std::mt19937 rng(seed);
      std::ostringstream what;
      atl::poly::PolyOptions po = v == 0 ? atl::poly::PolyOptions{} : random_cpu_options(rng, what);
      if (v == 0) po.target = first, what << first_name;
      if (adjust) adjust(po);
      const Variant *added = add_variant(variants, p, seed, what.str(), names[p], prefix,
                                         [&] { return atl::poly::compile_cluster(graphs[p], graphs[p].order(), po); });
      if (added) counted += added->cluster.stats.count(stat) ? 1 : 0;
    }
  }
  check_variants(variants, graphs, names);
  return counted;
}

/// check_variants for graphs made from the cases of `pool`.
inline void check_variants(const std::vector<Variant> &variants, const std::vector<atl::Graph> &graphs,
                           const std::vector<atl::test::Case> &pool) {
  std::vector<std::string> names;
  for (const atl::test::Case &c : pool) names.push_back(atl::test::describe_case(c));
  check_variants(variants, graphs, names);
}

/// Rows of 7 values for the bit-for-bit tests of row-wise kernels: +inf,
/// -inf, NaN, a row of -inf, signed zeros, values near both ends of the
/// float range; `x` holds 10 rows or more (the rest is left as it is).
inline void set_special_rows(atl::Tensor &x) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double big = 3.0e38;
  const double rows[][7] = {{1, inf, 2, 3, -1, 0, 4},          {-inf, -inf, -inf, -inf, -inf, -inf, -inf},
                            {1, 2, nan, 3, 4, 5, 6},           {big, -big, big * 0.9, 1, 2, 3, 4},
                            {-inf, 1, 2, -inf, 3, -inf, 0.5},  {0, -0.0, 0, -0.0, 0, 0, -0.0},
                            {inf, -inf, 1, 2, 3, 4, 5},        {-big, -big, -big, -big, -big, -big, -big},
                            {inf, inf, nan, -inf, 1, 2, 3},    {-big, -1e30, -1e37, -3e37, -big, -1e38, -2e38}};
  REQUIRE(x.numel() >= 70);
  for (int row = 0; row < 10; ++row)
    for (int j = 0; j < 7; ++j) x.set(row * 7 + j, rows[row][j]);
}

/// Output `out` of graph `g` (one cluster: `c`) run with `c`'s kernel from `exe` on `feeds`.
inline atl::Tensor run_cluster(const std::shared_ptr<atl::cpu::CpuExecutable> &exe, const atl::poly::ClusterResult &c,
                               const atl::Graph &g, const std::map<std::string, atl::Tensor> &feeds,
                               const std::string &out) {
  atl::CompiledGraph cg;
  cg.clusters = {c};
  cg.functions.push_back(exe->entry(c.kernel.name));
  cg.keep_alive = exe;
  return atl::run_compiled(cg, g, feeds, {}).at(out);
}

/// `a` and `b` the same f32 bits element for element; with `any_nan`, a NaN
/// of `b` needs only a NaN in `a`.
inline void check_same_bits(const atl::Tensor &a, const atl::Tensor &b, bool any_nan) {
  REQUIRE(a.numel() == b.numel());
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    float fa = static_cast<float>(a.get(i)), fb = static_cast<float>(b.get(i));
    if (any_nan && std::isnan(fb)) {
      CHECK_MESSAGE(std::isnan(fa), "element " << i << ": " << fa << " against NaN");
      continue;
    }
    CHECK_MESSAGE(std::memcmp(&fa, &fb, sizeof fa) == 0, "element " << i << ": " << fa << " against " << fb);
  }
}

}  // namespace polytest
