// Test helper of the random transformation sweeps: compiled variants of case
// graphs, built together through the JIT and the C path, each compared with
// the reference interpreter.
#pragma once

#include <atoll/pipeline.h>

#include "backends/cpu/cpu_backend.h"
#include "polyhedral/compile_cluster.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"
#include "tests/unit/src/ops/op_cases.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace polytest {

/// One compiled variant of graph `source` of a sweep, with how it was chosen.
struct Variant {
  std::size_t source;
  unsigned seed;
  std::string what;
  atl::poly::ClusterResult cluster;
};

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

/// check_variants for graphs made from the cases of `pool`.
inline void check_variants(const std::vector<Variant> &variants, const std::vector<atl::Graph> &graphs,
                           const std::vector<atl::test::Case> &pool) {
  std::vector<std::string> names;
  for (const atl::test::Case &c : pool) names.push_back(atl::test::describe_case(c));
  check_variants(variants, graphs, names);
}

}  // namespace polytest
