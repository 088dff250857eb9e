// Every operator of the batch format through the whole compiler, on the
// sweep's shapes: schedule_graph (the path compile and explain share:
// simplification, views, polyhedral scheduling), then LLVM JIT and C (system cc),
// each against the reference interpreter. All kernels go into one JIT
// module and one C library to keep the test fast.
#include "src/pipeline/pipeline.h"

#include "backends/cpu/cpu_backend.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"
#include "tests/unit/src/ops/op_cases.h"

#include <doctest/doctest.h>

using namespace atl;
using namespace atl::test;

TEST_SUITE("src") {
TEST_CASE("every operator: compiled code (JIT and C) vs reference") {
  std::vector<Case> cases = all_op_cases();
  std::vector<Graph> graphs;
  std::vector<ScheduledGraph> scheduled;
  std::vector<poly::LKernel> kernels;
  std::vector<std::size_t> usable;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO(describe_case(cases[i]));
    try {
      graphs.push_back(make_case_graph(cases[i], "case" + std::to_string(i), "op" + std::to_string(i)));
      scheduled.push_back(schedule_graph(graphs.back(), CompileOptions{}));
      for (const auto &c : scheduled.back().clusters) kernels.push_back(c.kernel);
      usable.push_back(i);
    } catch (const std::exception &e) {
      FAIL_CHECK("scheduling failed: " << std::string(e.what()));
      graphs.emplace_back();
      scheduled.emplace_back();
    }
  }
  std::shared_ptr<cpu::CpuExecutable> jit = cpu::jit_kernels(kernels);
  std::shared_ptr<cpu::CpuExecutable> lib = cpu::build_c_kernels(kernels);
  int checked = 0;
  for (std::size_t i : usable) {
    INFO(describe_case(cases[i]));
    const Graph &g = graphs[i];
    std::map<std::string, Tensor> feeds = make_graph_inputs(g);
    std::map<std::string, Tensor> ref = run_reference(g, feeds);
    for (const auto &exe : {jit, lib}) {
      CompiledGraph cg;
      cg.clusters = scheduled[i].clusters;
      cg.aliases = scheduled[i].plan.aliases;
      cg.constants = scheduled[i].prepared.constants;
      for (const auto &c : cg.clusters) cg.functions.push_back(exe->entry(c.kernel.name));
      cg.keep_alive = exe;
      std::map<std::string, Tensor> got = run_compiled(cg, g, feeds, {});
      VerifyResult v = compare_outputs(got, ref, g.outputs);
      CHECK_MESSAGE(v.passed, (exe == jit ? "JIT: " : "C: ") << v.detail);
      ++checked;
    }
  }
  CHECK(checked == 2 * static_cast<int>(cases.size()));
}
}
