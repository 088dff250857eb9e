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
  std::string family;       ///< the hash with integer constants masked: other sizes of the same computation
  std::vector<long> shape;  ///< those constants
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
  std::string strategy = "greedy";    ///< greedy | random | exhaustive | evolutionary
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
  /// "run": points are compiled, checked and timed (A/B); "model": points
  /// are compiled without code and ranked by the analytical cost model (or
  /// by model_cmd), deterministic, each charged 0.1 s of the budget.
  std::string measure = "run";
  /// --model-cmd: an external cost model, a command that reads one JSON
  /// line a point ({"key", "knobs", "features"}) and answers {"ms": TIME}.
  /// Used with measure "model" instead of the analytical model.
  std::string model_cmd;
};

/// One measurement (a line of the records file).
struct TuneRecord {
  std::string key, graph, cluster, target = "cpu", machine;
  std::string family;       ///< ClusterSpace::family: records of other shapes apply by it
  std::vector<long> shape;  ///< ClusterSpace::shape
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

/// Measures points one by one, for searches written elsewhere (the Python
/// module's, a research driver's): each point in the same kind of child
/// process as `atoll tune`'s, with its timeout and memory limit, A/B against
/// the default. A crash or a hang is the record's status; the next point
/// gets a new child. Not thread-safe: one measurement at a time.
class PointMeasurer {
public:
  /// The options' worker, timeout_s, memory_mb and params apply.
  explicit PointMeasurer(const TuneOptions &options = {});
  ~PointMeasurer();
  PointMeasurer(const PointMeasurer &) = delete;
  PointMeasurer &operator=(const PointMeasurer &) = delete;
  /// One point of `space` (a cluster of a graph of the batch file):
  /// verify is "default" (outputs compared with the default schedule's) or
  /// "reference" (with the reference interpreter's). The record is complete
  /// (key, machine, status, times); it is not written anywhere.
  TuneRecord measure(const std::string &batch_path, const ClusterSpace &space,
                     const std::map<std::string, std::string> &point, const std::string &verify = "default");

private:
  struct Impl;
  Impl *impl_;
};

/// A point applied without measuring: the graph's `stage` ("scop", "deps",
/// "schedule", "ast", "llvm", "c" or a pass: "tile_for_cpu", ...) with the point
/// applied to the cluster `key`. A point the passes refuse is the UserError
/// of compile; the legality check's rejections show in the printed passes.
std::string explain_point(const std::string &batch_path, const std::string &graph, const std::string &key,
                          const std::map<std::string, std::string> &point, const std::string &stage);

/// The child process of the tuner: reads requests (JSON lines) on standard
/// input and answers each with one line. Returns the exit status.
int tune_worker_main();

/// The records of a file; a line that is not a record is a UserError naming
/// the file and the line.
std::vector<TuneRecord> read_tune_records(const std::string &path);
/// A record as its JSON line (no newline), and back (a UserError for a line
/// that is not a record).
std::string tune_record_json(const TuneRecord &record);
TuneRecord parse_tune_record(const std::string &json_line);
/// Appends a record to a records file as one write (tuners may share it).
void append_tune_record(const std::string &path, const TuneRecord &record);
/// `atoll db stats`: counts by status, keys, best ratio per key, as text.
std::string tune_db_stats(const std::string &path);
/// `atoll db compact`: one line per (key, target, machine, point), the
/// latest; written atomically to `out` (default: in place). Returns lines kept.
std::size_t tune_db_compact(const std::string &path, const std::string &out = "");

/// This machine as the records name it (CPU model, vector ISA, caches), or
/// the environment's ATOLL_TUNE_MACHINE when set.
std::string tune_machine_id();

}  // namespace atl
