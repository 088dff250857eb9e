// API example: build a graph in code (Gemm -> Relu with a symbolic batch),
// check it, print it, and verify its definitions against the reference.
#include <atoll/graph.h>
#include <atoll/pipeline.h>

#include <iostream>

int main() {
  atl::Graph g;
  g.name = "api_gemm_relu";
  g.params["N"] = {1, 16};
  g.add_input("x", {atl::DType::F32, {atl::Dim::sym("N"), 32}});
  g.add_weight("w", {atl::DType::F32, {24, 32}}, "uniform(-0.2,0.2)");
  g.add_weight("b", {atl::DType::F32, {24}});
  atl::Node gemm;
  gemm.op = "Gemm";
  gemm.name = "fc";
  gemm.inputs = {"x", "w", "b"};
  gemm.outputs = {"h"};
  gemm.attrs = {{"transB", 1}, {"alpha", 0.5}};
  g.add_node(gemm);
  atl::Node relu;
  relu.op = "Relu";
  relu.inputs = {"h"};
  relu.outputs = {"y"};
  g.add_node(relu);
  g.add_output("y");
  try {
    g.finalize();
  } catch (const atl::UserError &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  atl::print_graph(std::cout, g);

  atl::Batch batch;
  batch.name = "api";
  batch.graphs.push_back({g.name, "", g, std::nullopt});
  atl::PipelineOptions options;
  options.verify = true;
  atl::BatchResult result = atl::run_pipeline(batch, options);
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
