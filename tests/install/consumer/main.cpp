// Uses an installed Atoll: reads a batch from text, compiles it with the
// LLVM JIT and verifies it against the reference interpreter.
#include <atoll/batch.h>
#include <atoll/pipeline.h>

#include <iostream>

int main() {
  atl::Batch batch = atl::read_batch(R"J({"atoll": 1, "graphs": [{"name": "axpy",
    "inputs": [{"name": "x", "shape": [1000]}, {"name": "y", "shape": [1000]}], "outputs": ["z"],
    "nodes": [{"op": "Compute", "inputs": ["x", "y"], "outputs": ["z"], "attrs": {"expr": "z(i) = 2 * x(i) + y(i)"}}]}]})J");
  atl::PipelineOptions options;
  options.verify = true;
  atl::BatchResult result = atl::run_pipeline(batch, options);
  const atl::GraphResult &g = result.graphs.at(0);
  std::cout << g.name << ": " << (g.ok ? "ok" : g.error) << ", kernels " << g.kernels.value_or(0) << ", verify "
            << (g.verify && g.verify->passed ? "passed" : "FAILED") << " (" << (g.verify ? g.verify->oracle : "") << ")\n";
  return result.exit_status();
}
