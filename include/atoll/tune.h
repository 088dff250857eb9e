// Auto-scheduling: the tuning space of a graph's clusters, the tuner behind
// `atoll tune`, and the tuning records (`--records`, `atoll db`).
// Reference: docs/tuning.md.
//
// A cluster's space is a set of named knobs (`band0/cache_tile[1]`,
// `band0/unroll`, `pack`, `scheduler`, ...), each with its values and the
// cost model's default. A point gives every knob a value. The tuner measures
// points in a child process (`atoll tune-worker`), A/B against the default
// schedule, and appends one JSON line per measurement to the records file,
// failures included. Records are keyed by the cluster's canonical SCoP
// (statements and arrays renamed by position), the target and the machine.
//
// Public: only the standard library and Atoll's public headers.
#pragma once

#include <atoll/diagnostics.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace atl {

/// One knob of a cluster's space.
struct TuneKnob {
  std::string name;                 ///< stable: "band0/cache_tile[2]", "pack"
  std::string type;                 ///< "int", "bool" or "enum"
  std::vector<std::string> values;  ///< the values a search tries, in order
  std::string default_value;        ///< the cost model's choice
  std::string description;
};

/// The space of one cluster of a graph.
struct ClusterSpace {
  std::string graph, cluster;
  std::string key;  ///< the canonical SCoP's hash (the records' key)
  std::vector<TuneKnob> knobs;
  /// Points in the space (the product of the knobs' value counts).
  double size() const;
};

/// The spaces of every cluster of every graph of a batch file (or ONNX
/// model) that compiles; clusters that are the same computation (one key)
/// are listed once. A graph that does not compile throws its UserError.
std::vector<ClusterSpace> search_spaces(const std::string &batch_path, const std::string &graph = "",
                                        const std::map<std::string, std::int64_t> &params = {});

/// `atoll tune`.
struct TuneOptions {
  double budget_s = 60;               ///< wall seconds per cluster, compilation and measurement included
  std::string strategy = "greedy";    ///< greedy | random | exhaustive
  std::string records;                ///< the records file (JSON lines, appended); "" = none
  unsigned seed = 1;                  ///< random strategy's seed
  int shard = 0, shards = 1;          ///< --shard i/N: the clusters whose key (hex) % N == i
  int max_trials = 0;                 ///< 0 = as many as the budget allows
  double timeout_s = 30;              ///< one measurement's wall limit (the child is killed)
  std::int64_t memory_mb = 0;         ///< the child's address-space limit (0 = none)
  std::map<std::string, std::int64_t> params;  ///< symbolic dimensions (default: each range's max)
  std::string graph;                  ///< only this graph ("" = all)
  bool progress = false;              ///< a progress line on standard error
  std::string worker;                 ///< the atoll executable for the child ("" = this process's)
};

/// One measurement (a line of the records file).
struct TuneRecord {
  std::string key, graph, cluster, target = "cpu", machine;
  std::map<std::string, std::string> knobs;
  /// ok | wrong (differs from the reference) | crash | timeout | error (does
  /// not compile: an illegal point, a compile error)
  std::string status;
  double ms = 0, default_ms = 0, ratio = 0;  ///< ratio = default_ms / ms, interleaved A/B
  std::string verified;                      ///< "reference" or "default": the oracle of the check
  std::string error;
  std::string strategy;
  std::string time;  ///< UTC, ISO 8601
  /// Wall seconds the measurement took (compilation included). A search that
  /// finds a point in the records charges its budget these seconds, so the
  /// same search with the same records stops where the first one stopped.
  double seconds = 0;
};

/// What `atoll tune` did for one cluster.
struct TunedCluster {
  std::string graph, cluster, key;
  int trials = 0;      ///< points tried (measured or found in the records)
  int measured = 0;    ///< of them, measured now
  int failures = 0;    ///< crash, timeout, wrong, error
  double best_ratio = 1;
  std::map<std::string, std::string> best;  ///< empty: the default stayed best
  double seconds = 0;  ///< budget spent: measurements now, and those found in the records
  /// (budget seconds spent, best ratio so far) at each improvement.
  std::vector<std::pair<double, double>> curve;
};

struct TuneResult {
  std::vector<TunedCluster> clusters;
  std::vector<std::string> errors;  ///< graphs that did not compile (the batch goes on)
  std::string report_json;          ///< the result as JSON (--report)
};

/// Tunes every cluster of the batch's graphs in this shard.
TuneResult tune_batch_file(const std::string &batch_path, const TuneOptions &options);

/// The child process of the tuner: reads requests (JSON lines) on standard
/// input and answers each with one line. Returns the exit status.
int tune_worker_main();

/// The records of a file; a line that is not a record is a UserError naming
/// the file and the line.
std::vector<TuneRecord> read_tune_records(const std::string &path);
/// `atoll db stats`: counts by status, keys, best ratio per key, as text.
std::string tune_db_stats(const std::string &path);
/// `atoll db compact`: one line per (key, target, machine, point), the
/// latest; written atomically to `out` (default: in place). Returns lines kept.
std::size_t tune_db_compact(const std::string &path, const std::string &out = "");

/// This machine as the records name it (CPU model, vector ISA, caches), or
/// the environment's ATOLL_TUNE_MACHINE when set.
std::string tune_machine_id();

}  // namespace atl
