// The tuner's child process (`atoll tune-worker`): one request a line on
// standard input, one answer a line on standard output.
//
// A request names a batch file, a graph, the cluster's key and a point. The
// worker compiles the graph with the point applied to that cluster (and,
// once per graph, with the default options), checks the candidate's outputs
// against the default's or the reference interpreter's, then times the two
// alternately (A/B), so that the ratio of their medians does not move with
// the machine's load. Whatever goes wrong in here (a crash of the compiler
// or of the generated code, a hang) takes only this process down: the
// tuner records it and starts another.
#include <atoll/tune.h>

#include "backends/cpu/cpu_backend.h"
#include "graph/core/text_keys.h"
#include "polyhedral/pipeline/knobs.h"
#include "src/frontend/onnx_reader.h"
#include "src/pipeline/compile_graph.h"
#include "src/pipeline/pipeline.h"
#include "src/runtime/init_data.h"
#include "src/tuning/records.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace atl {

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// One graph at its bench point: inputs, the default compile and its outputs,
/// and the reference outputs once asked for.
struct GraphCase {
  Graph graph, concrete;
  std::map<std::string, std::int64_t> point;
  std::map<std::string, Tensor> feeds;
  std::shared_ptr<CompiledGraph> def;
  std::map<std::string, Tensor> def_out;
  std::optional<std::map<std::string, Tensor>> ref_out;
  std::map<std::string, DType> precisions;
};

/// The test-only fault injection (ATOLL_TUNE_INJECT="crash=P,hang=P,wrong=P"):
/// what to do with a point, decided by a hash of the point, so a point
/// always fails the same way.
std::string injected_fault(const poly::KnobValues &knobs) {
  const char *spec = std::getenv("ATOLL_TUNE_INJECT");
  if (!spec || !*spec || knobs.empty()) return {};
  double u = static_cast<double>(std::stoull(fnv1a_hex(poly::point_text(knobs)).substr(0, 8), nullptr, 16)) /
             4294967296.0;
  std::string s = spec;
  double acc = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t comma = s.find(',', i);
    std::string item = s.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
    i = comma == std::string::npos ? s.size() : comma + 1;
    std::size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    acc += std::atof(item.c_str() + eq + 1);
    if (u < acc) return item.substr(0, eq);
  }
  return {};
}

/// The kernels of `compiled` that are the cluster `key` (itself, and the
/// clusters that reuse its code).
std::vector<std::size_t> kernels_of(const CompiledGraph &compiled, const std::string &key) {
  std::vector<std::size_t> k;
  for (std::size_t i = 0; i < compiled.clusters.size(); ++i)
    if (compiled.clusters[i].space.key == key) k.push_back(i);
  return k;
}

/// Runs `compiled` `reps` more times after one warm-up and appends each
/// run's time to `times`: the time of the kernels `kernels` (summed) when
/// given, else of the whole call.
void time_runs(const CompiledGraph &compiled, const GraphCase &gc, int reps, const std::vector<std::size_t> &kernels,
               std::vector<double> &times) {
  std::vector<double> total;
  std::vector<std::vector<double>> per_kernel;
  (void)run_compiled(compiled, gc.concrete, gc.feeds, gc.point, reps, &total, &per_kernel);
  if (kernels.empty()) {
    times.insert(times.end(), total.begin(), total.end());
    return;
  }
  for (std::size_t r = 0; r < total.size(); ++r) {
    double t = 0;
    for (std::size_t k : kernels)
      if (k < per_kernel.size() && r < per_kernel[k].size()) t += per_kernel[k][r];
    times.push_back(t);
  }
}

/// How the worker compiles: one thread, no stage texts, the clusters
/// described (their keys find the tuned cluster's kernels), and `point`
/// applied to the cluster `key` only (none: the default).
CompileOptions worker_options(const std::string &key, const poly::KnobValues &point, bool executable) {
  CompileOptions co;
  co.target = "cpu";
  co.compile_threads = 1;
  co.keep_text = false;
  co.executable = executable;
  co.describe = true;
  if (!point.empty()) co.tuning = tuning::point_table(key, point);
  return co;
}

/// The injected crash or hang of a point (injected_fault), if any.
void crash_or_hang(const std::string &fault) {
  if (fault == "crash") std::abort();
  if (fault == "hang")
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(60));
}

/// The analytical model's time of the clusters `key` of a graph compiled
/// with `point` (no code: schedules and loop ASTs only), and the features of
/// the first.
std::pair<double, nlohmann::json> model_of(const Graph &g, const std::string &key, const poly::KnobValues &point) {
  ScheduledGraph s = schedule_graph(g, worker_options(key, point, false));
  double ms = 0;
  nlohmann::json features;
  bool found = false;
  for (const poly::ClusterResult &c : s.clusters) {
    if (c.space.key != key) continue;
    if (!found) features = c.features;
    found = true;
    ms += poly::model_ms(c.features);
  }
  if (!found) throw UserError("no cluster of graph '" + g.name + "' has the key " + key);
  return {ms, features};
}

class Worker {
public:
  nlohmann::json handle(const nlohmann::json &req) {
    if (req.value("mode", std::string("run")) == "model") return model(req);
    const std::string batch_path = req.at("batch").get<std::string>();
    const std::string graph_name = req.at("graph").get<std::string>();
    std::map<std::string, std::int64_t> params;
    if (req.contains("params")) params = req["params"].get<std::map<std::string, std::int64_t>>();
    const std::string key = req.value("key", std::string());
    poly::KnobValues knobs;
    if (req.contains("knobs")) knobs = req["knobs"].get<poly::KnobValues>();
    const std::string verify = req.value("verify", std::string("default"));
    const double seconds = req.value("seconds", 0.3);

    GraphCase &gc = graph_case(batch_path, graph_name, params);
    nlohmann::json out;
    const std::string fault = injected_fault(knobs);
    crash_or_hang(fault);
    auto t0 = Clock::now();
    CompiledGraph cand = compile_graph(gc.graph, worker_options(key, knobs, true));
    out["compile_ms"] = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    // The point must have reached its cluster: a key no cluster has is the
    // tuner's mistake, not a result.
    bool applied = false;
    for (const poly::ClusterResult &c : cand.clusters) applied = applied || !c.tuned.empty();
    if (!applied && !knobs.empty()) throw UserError("no cluster of graph '" + graph_name + "' has the key " + key);

    std::vector<double> td, tc;
    std::map<std::string, Tensor> got = run_compiled(cand, gc.concrete, gc.feeds, gc.point, 1, &tc);
    if (fault == "wrong")
      for (auto &[name, t] : got)
        for (double &v : t.data) v = v * 1.5 + 1;
    const std::map<std::string, Tensor> *oracle = &gc.def_out;
    if (verify == "reference") {
      if (!gc.ref_out) gc.ref_out = run_reference(gc.concrete, gc.feeds);
      oracle = &*gc.ref_out;
    }
    VerifyResult v = compare_outputs(got, *oracle, gc.concrete.outputs, gc.precisions);
    out["verified"] = verify;
    out["max_rel_err"] = v.max_rel_err;
    if (!v.passed) {
      out["status"] = "wrong";
      out["error"] = "outputs differ from the " + verify + ": " + v.detail;
      return out;
    }
    // A/B: rounds of `reps` runs each, the default and the candidate in
    // turn. The times are the tuned cluster's kernels' (the rest of the
    // graph is the same code in both), or the whole call's where the
    // cluster's kernels cannot be told apart in one of them.
    std::vector<std::size_t> kd = kernels_of(*gc.def, key), kc = kernels_of(cand, key);
    if (kd.empty() || kc.empty()) kd.clear(), kc.clear();
    std::vector<double> warm;
    (void)run_compiled(*gc.def, gc.concrete, gc.feeds, gc.point, 1, &warm);
    const double one = std::max({median(warm), median(tc), 1e-3});
    const int rounds = 6;
    const int reps = static_cast<int>(std::clamp(seconds * 1000.0 / (2.0 * rounds * one), 1.0, 50.0));
    td.clear();
    tc.clear();
    for (int r = 0; r < rounds; ++r) {
      time_runs(*gc.def, gc, reps, kd, td);
      time_runs(cand, gc, reps, kc, tc);
    }
    out["timed"] = kd.empty() ? "graph" : "kernel";
    const double md = median(td), mc = median(tc);
    out["status"] = "ok";
    out["default_ms"] = md;
    out["ms"] = mc;
    out["ratio"] = mc > 0 ? md / mc : 0.0;
    out["runs"] = rounds * reps;
    return out;
  }

private:
  /// `--measure model`: the analytical model's times of the default and of
  /// the point, and both feature vectors (for an external model).
  nlohmann::json model(const nlohmann::json &req) {
    const std::string path = req.at("batch").get<std::string>(), name = req.at("graph").get<std::string>();
    const std::string key = req.value("key", std::string());
    poly::KnobValues knobs;
    if (req.contains("knobs")) knobs = req["knobs"].get<poly::KnobValues>();
    const Graph &g = graph_of(path, name);
    crash_or_hang(injected_fault(knobs));
    const std::string id = path + "\n" + name + "\n" + key;
    auto d = default_model_.find(id);
    if (d == default_model_.end()) d = default_model_.emplace(id, model_of(g, key, {})).first;
    auto [ms, features] = model_of(g, key, knobs);
    nlohmann::json out;
    out["status"] = "ok";
    out["verified"] = "model";
    out["ms"] = ms;
    out["default_ms"] = d->second.first;
    out["ratio"] = ms > 0 ? d->second.first / ms : 0.0;
    out["features"] = features;
    out["default_features"] = d->second.second;
    return out;
  }

  const Graph &graph_of(const std::string &path, const std::string &name) {
    auto b = batches_.find(path);
    if (b == batches_.end()) b = batches_.emplace(path, read_input_file(path)).first;
    for (const BatchGraph &bg : b->second.graphs)
      if (bg.name == name) {
        if (bg.error) throw *bg.error;
        if (bg.graph) return *bg.graph;
      }
    throw UserError("no graph '" + name + "' in '" + path + "'");
  }

  GraphCase &graph_case(const std::string &path, const std::string &name,
                        const std::map<std::string, std::int64_t> &params) {
    std::string id = path + "\n" + name;
    for (const auto &[p, v] : params) id += "\n" + p + "=" + std::to_string(v);
    auto it = cases_.find(id);
    if (it != cases_.end()) return *it->second;
    const Graph *g = &graph_of(path, name);
    auto gc = std::make_unique<GraphCase>();
    gc->graph = *g;
    for (const auto &[p, range] : g->params) {
      auto f = params.find(p);
      gc->point[p] = f != params.end() ? f->second : range.max;
    }
    gc->concrete = g->params.empty() ? *g : g->instantiate(gc->point);
    gc->feeds = make_graph_inputs(gc->concrete);
    gc->precisions = verify_precisions(gc->concrete);
    gc->def = std::make_shared<CompiledGraph>(compile_graph(gc->graph, worker_options({}, {}, true)));
    gc->def_out = run_compiled(*gc->def, gc->concrete, gc->feeds, gc->point);
    return *cases_.emplace(id, std::move(gc)).first->second;
  }

  std::map<std::string, Batch> batches_;
  std::map<std::string, std::unique_ptr<GraphCase>> cases_;
  std::map<std::string, std::pair<double, nlohmann::json>> default_model_;
};

}  // namespace

int tune_worker_main() {
  // Measurements are one-thread ratios: the tuner runs one worker at a time.
  cpu::set_cpu_threads(1);
  Worker w;
  std::string line;
  while (std::getline(std::cin, line)) {
    nlohmann::json out;
    try {
      out = w.handle(nlohmann::json::parse(line));
    } catch (const UserError &e) {
      out = {{"status", "error"}, {"error", e.what()}};
    } catch (const std::exception &e) {
      out = {{"status", "error"}, {"error", std::string("internal error: ") + e.what()}};
    }
    std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  }
  return 0;
}

}  // namespace atl
