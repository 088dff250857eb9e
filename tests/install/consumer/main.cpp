// Uses an installed Atoll through the batch driver (<atoll/driver.h>): reads
// a batch from text, compiles it with the LLVM JIT and verifies it against
// the reference interpreter.
#include <atoll/driver.h>

#if defined(BOOST_VERSION) || defined(NLOHMANN_JSON_VERSION_MAJOR) || defined(ISL_CTX_H) || \
    defined(LLVM_VERSION_MAJOR)
#error "<atoll/driver.h> includes a third-party header"
#endif

#include <iostream>

int main() {
  atl::PipelineOptions options;
  options.verify = true;
  atl::BatchResult result = atl::run_batch(R"J({"atoll": 1, "graphs": [{"name": "axpy",
    "inputs": [{"name": "x", "shape": [1000]}, {"name": "y", "shape": [1000]}], "outputs": ["z"],
    "nodes": [{"op": "Compute", "inputs": ["x", "y"], "outputs": ["z"], "attrs": {"expr": "z(i) = 2 * x(i) + y(i)"}}]}]})J",
                                           options);
  if (result.error) {
    std::cerr << "error: " << *result.error << "\n";
    return 1;
  }
  const atl::GraphResult &g = result.graphs.at(0);
  std::cout << g.name << ": " << (g.ok ? "ok" : g.error) << ", kernels " << g.kernels.value_or(0) << ", verify "
            << (g.verify && g.verify->passed ? "passed" : "FAILED") << " (" << (g.verify ? g.verify->oracle : "") << ")\n";
  if (result.report_json.find("\"passes\"") == std::string::npos) {
    std::cerr << "report.json has no passes\n";
    return 1;
  }
  return result.exit_status();
}
