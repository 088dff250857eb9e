// The batch driver: per graph, instantiate symbolic dimensions, make or load
// inputs, verify against the reference, dump tensors, and record results.
#include <atoll/pipeline.h>

#include "backends/npu/target.h"
#include "src/runtime/init_data.h"
#include "src/runtime/npy.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <regex>

namespace atl {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// Parameter values to verify at: --param values where given, otherwise each
/// parameter's min, max and midpoint (three instantiations).
std::vector<std::map<std::string, std::int64_t>> verify_points(const Graph &g, const PipelineOptions &o) {
  if (g.params.empty()) return {{}};
  std::vector<std::map<std::string, std::int64_t>> points(3);
  bool all_fixed = true;
  for (const auto &[name, range] : g.params) {
    auto fixed = o.params.find(name);
    all_fixed &= fixed != o.params.end();
    std::int64_t vals[3] = {range.min, range.max, range.min + (range.max - range.min) / 2};
    for (int k = 0; k < 3; ++k) points[k][name] = fixed != o.params.end() ? fixed->second : vals[k];
  }
  if (all_fixed) points.resize(1);
  // Drop repeated points (min == max, or every parameter fixed).
  std::vector<std::map<std::string, std::int64_t>> unique;
  for (auto &p : points)
    if (std::find(unique.begin(), unique.end(), p) == unique.end()) unique.push_back(p);
  return unique;
}

std::map<std::string, std::int64_t> bench_point(const Graph &g, const PipelineOptions &o) {
  std::map<std::string, std::int64_t> p;
  for (const auto &[name, range] : g.params) {
    auto fixed = o.params.find(name);
    p[name] = fixed != o.params.end() ? fixed->second : range.max;
  }
  return p;
}

std::map<std::string, Tensor> load_feeds(const Graph &g, const PipelineOptions &o) {
  std::map<std::string, Tensor> feeds = make_graph_inputs(g);
  if (o.inputs_dir.empty()) return feeds;
  for (auto &[name, tensor] : feeds) {
    std::filesystem::path p = std::filesystem::path(o.inputs_dir) / g.name / (name + ".npy");
    if (!std::filesystem::exists(p)) continue;
    Tensor t = read_npy(p.string());
    if (t.shape != tensor.shape)
      throw UserError("--inputs: '" + p.string() + "' has shape " + shape_to_string(t.shape) + " but '" + name +
                      "' has shape " + shape_to_string(tensor.shape));
    if (t.dtype != tensor.dtype)
      throw UserError("--inputs: '" + p.string() + "' holds " + dtype_name(t.dtype) + " but '" + name + "' is " +
                      dtype_name(tensor.dtype));
    tensor = std::move(t);
  }
  return feeds;
}

void dump_tensors(const Graph &g, const PipelineOptions &o, const std::map<std::string, Tensor> &feeds,
                  const std::map<std::string, Tensor> &results) {
  std::filesystem::path dir = std::filesystem::path(o.dump_dir) / g.name;
  for (const auto &[name, t] : feeds) write_npy((dir / (name + ".npy")).string(), t);
  for (const std::string &out : g.outputs) write_npy((dir / (out + ".npy")).string(), results.at(out));
}

bool codegen_available(const std::string &target) {
  (void)target;
  return false;  // the polyhedral pipeline and its backends are not part of this build yet
}

void run_graph(const BatchGraph &entry, const PipelineOptions &o, GraphResult &r) {
  const Graph &graph = *entry.graph;
  if (!codegen_available(o.target) &&
      (o.mode == PipelineOptions::Mode::Compile || o.bench || !o.verify))
    throw UserError("target " + o.target + ": code generation is not available yet");

  std::map<std::string, std::int64_t> bp = bench_point(graph, o);
  Graph at_bench = graph.params.empty() ? graph : graph.instantiate(bp);
  r.flops = at_bench.flops();
  if (o.stats)
    r.stats = nlohmann::json{{"nodes", graph.num_nodes()}, {"bands_tiled", 0}, {"loops_vectorized", 0},
                             {"arrays_promoted", 0}};

  if (!o.verify) return;
  VerifyResult total;
  total.passed = true;
  total.oracle = "definition-vs-reference";
  for (const auto &point : verify_points(graph, o)) {
    auto t0 = Clock::now();
    Graph concrete = graph.params.empty() ? graph : graph.instantiate(point);
    for (const auto &[name, value] : point) r.params[name].push_back(value);
    std::map<std::string, Tensor> feeds = load_feeds(concrete, o);
    r.stage_ms["inputs"] += ms_since(t0);
    t0 = Clock::now();
    std::map<std::string, Tensor> reference = run_reference(concrete, feeds);
    r.stage_ms["reference"] += ms_since(t0);
    t0 = Clock::now();
    std::map<std::string, Tensor> got = run_definitions(concrete, feeds);
    r.stage_ms["definitions"] += ms_since(t0);
    VerifyResult v = compare_outputs(got, reference, concrete.outputs);
    total.max_abs_err = std::max(total.max_abs_err, v.max_abs_err);
    total.max_rel_err = std::max(total.max_rel_err, v.max_rel_err);
    if (!v.passed && total.passed) {
      total.passed = false;
      total.detail = v.detail;
      if (!point.empty()) {
        total.detail += " (at";
        for (const auto &[name, value] : point) total.detail += " " + name + "=" + std::to_string(value);
        total.detail += ")";
      }
    }
    if (!o.dump_dir.empty()) dump_tensors(concrete, o, feeds, got);
  }
  r.verify = total;
}

}  // namespace

void check_target(const std::string &target) {
  static const std::regex cuda(R"(cuda(:sm_[0-9]+)?)");
  if (target == "cpu" || target == "cpu-c" || std::regex_match(target, cuda)) return;
  if (target == "npu" || target.rfind("npu:", 0) == 0) {
    // Parses and validates the NPU target description (profile name or FILE.json).
    (void)npu::load_target(target == "npu" ? std::string() : target.substr(4));
    return;
  }
  throw UserError("unknown target '" + target + "' (expected cpu, cpu-c, cuda[:sm_XX], npu[:PROFILE_OR_FILE.json])");
}

int BatchResult::exit_status() const {
  if (error) return 1;
  for (const GraphResult &g : graphs)
    if (!g.ok || (g.verify && !g.verify->passed)) return 1;
  return 0;
}

BatchResult run_pipeline(const Batch &batch, const PipelineOptions &o) {
  BatchResult result;
  result.batch = batch.name;
  result.target = o.target;
  std::size_t index = 0;
  for (const BatchGraph &entry : batch.graphs) {
    ++index;
    GraphResult r;
    r.name = entry.name;
    if (o.progress)
      std::cerr << "[" << index << "/" << batch.graphs.size() << "] " << entry.name << "\n" << std::flush;
    if (entry.error) {
      r.error = entry.error->what();
    } else {
      auto t0 = Clock::now();
      try {
        run_graph(entry, o, r);
        r.ok = true;
      } catch (const UserError &e) {
        r.error = e.with({entry.pointer, entry.name}).what();
      } catch (const std::bad_alloc &) {
        r.error = "graph '" + entry.name + "': out of memory";
      } catch (const std::exception &e) {
        r.error = "graph '" + entry.name + "': " + e.what();
      }
      r.stage_ms["total"] = ms_since(t0);
    }
    result.graphs.push_back(std::move(r));
  }
  return result;
}

}  // namespace atl
