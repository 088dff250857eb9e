// The batch driver: what `atoll compile`, `atoll run` and `atoll explain`
// do, as an API on top of GraphBuilder and the module compiler. Reads a
// batch (batch-format.md), compiles, verifies and benchmarks each graph (one
// failing graph does not stop the others), writes compile's files, and
// returns what report.json says. The `atoll` command line is a thin layer
// over these calls. Reference: docs/api.md and docs/cli.md.
//
// Public: only the standard library and Atoll's public headers.
#pragma once

#include <atoll/diagnostics.h>
#include <atoll/graph.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace atl {

/// An option that does not fit the batch (a --param no graph declares, a
/// --format a stage does not have): the command line answers it as a usage
/// error (exit 2).
class OptionError : public UserError {
public:
  using UserError::UserError;
};

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
  /// compile: where the code goes (-o DIR); "" = atoll-out/BATCH (the
  /// batch's name, or "batch" when it has none).
  std::string out_dir;
  bool progress = false;                 ///< progress lines on standard error
  std::string scheduler;                 ///< --scheduler: overrides every graph's `scheduler` hint
  /// --verify-definitions: no code for any target; every graph's operators,
  /// evaluated from their Compute definitions, are compared with the
  /// reference interpreter (oracle definition-vs-reference). Implies verify.
  bool definitions_only = false;
  /// --print-after: pass names (or "all") whose IR is kept in GraphResult::printed.
  std::set<std::string> print_after;
  /// --records: a tuning records file (docs/tuning.md); each cluster with a
  /// record of this target and machine that beat the default gets that
  /// record's point, without measuring. "" = none.
  std::string records;
  /// --shard i/N: only the graphs whose index in the batch is i mod N are
  /// compiled (and run); the result lists those. Their symbols are the
  /// whole batch's, so the shards' files together are the batch's
  /// (merge_shard_reports joins their reports).
  int shard = 0, shards = 1;
};

/// `atoll merge DIR`: joins the report-I-of-N.json and manifest-I-of-N.json
/// that `atoll compile --shard I/N -o DIR` wrote for every I into
/// report.json and manifest.json, graphs in batch order. A missing shard, or
/// shards of different batches or counts, is a UserError. Returns the
/// number of graphs.
std::size_t merge_shard_reports(const std::string &dir);

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
  std::optional<MemoryResult> memory;   ///< once compiled: the arena plan
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
  /// report.json (cli.md) of this result: what the fields above say, and
  /// per graph the passes, the clusters and (with stats) what the optimizer did.
  std::string report_json;
  /// compile: manifest.json (cli.md) for the files written in out_dir; ""
  /// for run or when the batch could not be read.
  std::string manifest_json;
  /// compile: the directory the code went to (PipelineOptions::out_dir resolved).
  std::string out_dir;
};

/// Checks the target name; throws UserError for an unknown target or profile.
void check_target(const std::string &target);

/// Whether Atoll generates code for `target` (today `cpu` and `cpu-c`).
bool codegen_available(const std::string &target);

/// Reads a batch from JSON text and runs every graph. A batch that cannot
/// be read as a whole (not JSON, wrong version, no graphs) gives a result
/// with `error` set and no graphs; an error inside one graph fails that
/// graph only. An option the batch cannot take (a parameter in
/// options.params that no graph declares) throws OptionError. compile mode
/// writes each graph's code, manifest.json's text is in the result (the
/// caller writes it, as report.json).
BatchResult run_batch(std::string_view json_text, const PipelineOptions &options);
/// The same for a batch file; an unreadable file is the batch's `error`.
BatchResult run_batch_file(const std::string &path, const PipelineOptions &options);
/// The same for graphs built in code (each finalized), as a batch named
/// `batch_name`.
BatchResult run_graphs(const std::string &batch_name, const std::vector<GraphBuilder> &graphs,
                       const PipelineOptions &options);

/// What `atoll explain` prints.
struct ExplainOptions {
  std::string graph;        ///< the graph of the batch (by name); "" when the batch has one graph
  /// graph, clusters, scop, deps, schedule, ast, llvm, c, or a pass name
  /// (pass_names()); "" with print_after only.
  std::string stage;
  std::set<std::string> print_after;  ///< pass names, or "all"
  std::string target = "cpu";
  std::string scheduler;    ///< "" = the graph's hint
  std::string format = "text";  ///< "text", or "dot" for the stages graph and clusters
  std::string records;          ///< tuning records applied as by compile --records ("" = none)
};

/// The text of one stage of one graph of a batch file. An unknown graph,
/// stage or pass, or a stage the target does not have, is a UserError
/// (OptionError for a format the stage does not have).
std::string explain_batch_file(const std::string &path, const ExplainOptions &options);
/// The stages of a target in order (`atoll explain --list-stages`), one a
/// line: its name, its level and what it does.
std::string list_stages(const std::string &target);
/// The passes of the CPU pipeline, in order.
std::vector<std::string> pass_names();

}  // namespace atl
