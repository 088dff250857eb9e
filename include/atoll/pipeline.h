// The batch pipeline: what `atoll compile` and `atoll run` do, as an API.
#pragma once

#include <atoll/batch.h>
#include <atoll/graph.h>
#include <atoll/tensor.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace atl {

/// What to do with each graph of a batch.
struct PipelineOptions {
  enum class Mode { Compile, Run } mode = Mode::Run;
  std::string target = "cpu";            ///< cpu, cpu-c, cuda[:sm_XX], npu[:PROFILE_OR_FILE.json]
  bool verify = false;
  bool bench = false;
  bool stats = false;
  int threads = 0;                       ///< 0 = all cores
  std::map<std::string, std::int64_t> params;  ///< --param NAME=VALUE
  std::string inputs_dir;                ///< --inputs DIR ("" = generate)
  std::string dump_dir;                  ///< --dump DIR ("" = none)
  std::string out_dir = "atoll-out";     ///< compile: where the code goes (-o DIR)
  bool progress = false;                 ///< progress lines on standard error
  std::string scheduler;                 ///< --scheduler: overrides every graph's `scheduler` hint
  /// --verify-definitions: no code for any target; every graph's operators,
  /// evaluated from their Compute definitions, are compared with the
  /// reference interpreter (oracle definition-vs-reference). Implies verify.
  bool definitions_only = false;
  /// --print-after: pass names (or "all") whose IR is kept in GraphResult::printed.
  std::set<std::string> print_after;
};

/// Results of verification (cli.md, `verify`).
struct VerifyResult {
  bool passed = false;
  std::string oracle;  ///< "compiled-vs-reference" or "definition-vs-reference"
  double max_abs_err = 0, max_rel_err = 0;
  std::string detail;  ///< why it failed (first offending output), empty when passed
};

/// Results of --bench (cli.md, `bench`).
struct BenchResult {
  double median_ms = 0;
  int runs = 0;
  int threads = 1;
  double gflops = 0;
  /// One kernel's times over the same runs (report.json bench.kernels).
  struct Kernel {
    std::string name;
    double median_ms = 0, max_ms = 0;
    /// "weights": the kernel reads only weights and runs once per weight
    /// binding, before the timed runs (its time is weight_ms's share);
    /// "call": it runs in every call and median_ms counts it.
    std::string phase = "call";
  };
  /// Every kernel, in run order: where the time goes.
  std::vector<Kernel> kernels;
  /// The weight phase's time (its kernels once), not part of median_ms.
  double weight_ms = 0;
};

/// The memory plan of a graph's intermediates (report.json `memory`), at
/// the bench point's parameter values.
struct MemoryResult {
  std::int64_t peak_bytes = 0;           ///< arena size: every intermediate and temporary, shared
  std::int64_t intermediates_bytes = 0;  ///< the same buffers without sharing
  std::int64_t bytes_moved = 0;          ///< compulsory traffic of a call: each kernel's inputs read once, outputs written once (the weight phase not counted)
  int buffers = 0;                       ///< buffers in the arena
  std::string heuristic;                 ///< the packing that won
};

/// Everything report.json says of one graph.
struct GraphResult {
  std::string name;
  bool ok = false;
  std::string error;
  std::map<std::string, std::vector<std::int64_t>> params;  ///< values used per symbol
  std::optional<int> kernels;
  std::optional<std::int64_t> flops;
  std::optional<double> compile_ms;
  std::map<std::string, double> stage_ms;
  std::vector<std::string> fallbacks;
  std::optional<VerifyResult> verify;
  std::optional<BenchResult> bench;
  nlohmann::json manifest_kernels = nlohmann::json::array();  ///< compile: kernels for manifest.json
  std::optional<nlohmann::json> stats;  ///< with --stats: what the optimizer did
  std::optional<MemoryResult> memory;   ///< once compiled: the arena plan
  /// Once compiled: every pass of the target's pipeline in order, summed over
  /// the kernels (report.json `passes`: name, level, ms, how many kernels it
  /// changed, left unchanged, skipped or was rejected for, its statistics).
  nlohmann::json passes = nlohmann::json::array();
  /// "CLUSTER: PASS rejected: VIOLATION", one per rejected attempt.
  std::vector<std::string> rejected_passes;
  /// --print-after: the IR after the named passes, per kernel.
  std::string printed;
};

struct BatchResult {
  std::string batch;
  std::string target;
  std::optional<std::string> error;  ///< the batch as a whole could not be read
  std::vector<GraphResult> graphs;
  /// What was asked for (--verify, --bench, --stats): a graph that failed
  /// before getting there reports the field as null.
  bool verify = false, bench = false, stats = false;
  /// 0 when every graph compiled (and verified), else 1.
  int exit_status() const;
};

/// Checks the target name; throws UserError for an unknown target or profile.
void check_target(const std::string &target);

/// Whether Atoll generates code for `target` (today `cpu` and `cpu-c`).
bool codegen_available(const std::string &target);

/// Runs every graph of a batch; one failing graph does not stop the others.
BatchResult run_pipeline(const Batch &batch, const PipelineOptions &options);

/// report.json (cli.md) for a result.
nlohmann::json report_json(const BatchResult &result);

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
