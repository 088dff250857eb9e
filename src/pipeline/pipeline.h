// The batch pipeline inside the library: run_pipeline over a read batch,
// with the JSON parts of its results (the manifest's kernels, the passes,
// --stats), report.json, and the oracles that verification uses. The public
// face of the driver is <atoll/driver.h>.
#pragma once

#include <atoll/driver.h>
#include <atoll/tensor.h>

#include "graph/ir/graph.h"
#include "src/frontend/batch.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace atl {

/// One graph's result with the parts that report.json and manifest.json
/// carry as JSON.
struct GraphRun : GraphResult {
  nlohmann::json manifest_kernels = nlohmann::json::array();  ///< compile: kernels for manifest.json
  std::optional<nlohmann::json> stats;  ///< with --stats: what the optimizer did
  /// Once compiled: every pass of the target's pipeline in order, summed over
  /// the kernels (report.json `passes`: name, level, ms, how many kernels it
  /// changed, left unchanged, skipped or was rejected for, its statistics).
  nlohmann::json passes = nlohmann::json::array();
  /// GPU targets, once run: where the launches ran and why not on CUDA
  /// (report.json `gpu`).
  std::optional<nlohmann::json> gpu;
  /// NPU targets, with --bench: simulated cycles per kernel, cube
  /// utilisation and the roofline bound (report.json `npu`).
  std::optional<nlohmann::json> npu;
};

struct BatchRun {
  std::string batch;
  std::string target;
  std::string out_dir;  ///< compile: where the code went (PipelineOptions::out_dir resolved)
  std::optional<std::string> error;  ///< the batch as a whole could not be read
  std::vector<GraphRun> graphs;
  /// What was asked for (--verify, --bench, --stats): a graph that failed
  /// before getting there reports the field as null.
  bool verify = false, bench = false, stats = false;
  /// 0 when every graph compiled (and verified), else 1.
  int exit_status() const;
};

/// A result with no graph yet: the batch's name and what `options` ask for,
/// compile's directory resolved (atoll-out/BATCH unless options name one).
BatchRun start_run(const std::string &batch_name, const PipelineOptions &options);

/// 0 when there is no batch error and every graph compiled (and verified), else 1.
template <class GraphResults>
int exit_status_of(const std::optional<std::string> &error, const GraphResults &graphs) {
  if (error) return 1;
  for (const auto &g : graphs)
    if (!g.ok || (g.verify && !g.verify->passed)) return 1;
  return 0;
}

/// Runs every graph of a batch; one failing graph does not stop the others.
BatchRun run_pipeline(const Batch &batch, const PipelineOptions &options);

/// report.json (cli.md) for a result.
nlohmann::json report_json(const BatchRun &result);

/// manifest.json of `atoll compile` for a result (cli.md).
nlohmann::json manifest_json(const BatchRun &result);

/// Compares outputs with the reference (NaN/inf positions, normwise relative
/// error with the tolerance of each output's dtype, or of the dtype that
/// `precision` gives for it).
VerifyResult compare_outputs(const std::map<std::string, Tensor> &got, const std::map<std::string, Tensor> &reference,
                             const std::vector<std::string> &outputs,
                             const std::map<std::string, DType> &precision = {});

/// For each f32 output of `graph` computed through a tensor that a node
/// rounds to f16 or bf16 (a Cast there and back, say), that dtype: its
/// values carry that precision, and a last-bit difference before the
/// rounding (a sum in another order) can move them by one f16 ulp, so they
/// are verified with f16's tolerance. Other outputs are absent.
std::map<std::string, DType> verify_precisions(const Graph &graph);

/// Evaluates a concrete graph with the reference interpreter (Compute nodes:
/// the direct Compute evaluator). Returns every tensor, feeds included.
std::map<std::string, Tensor> run_reference(const Graph &graph, std::map<std::string, Tensor> feeds);

/// Evaluates a concrete graph node by node from the registry's Compute
/// definitions (the oracle `definition-vs-reference` compares this with
/// run_reference). Returns every tensor, feeds included.
std::map<std::string, Tensor> run_definitions(const Graph &graph, std::map<std::string, Tensor> feeds);

}  // namespace atl
