// API example: build a graph in code (Gemm -> Relu with a symbolic batch),
// check it, print it, and verify it against the reference interpreter with
// the batch driver (<atoll/driver.h>): public headers only.
#include <atoll/driver.h>
#include <atoll/graph.h>

#include <iostream>

int main() {
  atl::GraphBuilder g("api_gemm_relu");
  try {
    g.add_param("N", 1, 16);
    g.add_input("x", {atl::DType::F32, {atl::Dim::sym("N"), 32}});
    g.add_weight("w", {atl::DType::F32, {24, 32}}, "uniform(-0.2,0.2)");
    g.add_weight("b", {atl::DType::F32, {24}});
    g.add_node("Gemm", {"x", "w", "b"}, {"h"}, {{"transB", 1}, {"alpha", 0.5}}, "fc");
    g.add_node("Relu", {"h"}, {"y"});
    g.add_output("y");
    g.finalize();
  } catch (const atl::UserError &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  std::cout << g.text();
  std::cout << "y is " << g.tensor_type("y").str() << "\n";

  atl::PipelineOptions options;
  options.verify = true;
  atl::BatchResult result = atl::run_graphs("api", {g}, options);
  const atl::GraphResult &r = result.graphs.at(0);
  if (!r.ok || !r.verify || !r.verify->passed) {
    std::cerr << "verification failed: " << (r.ok ? r.verify->detail : r.error) << "\n";
    return 1;
  }
  std::cout << "verified at N = ";
  for (std::int64_t n : r.params.at("N")) std::cout << n << " ";
  std::cout << "(" << r.verify->oracle << ", max_rel_err " << r.verify->max_rel_err << ")\n";
  return result.exit_status();
}
