// The batch driver: per graph, instantiate symbolic dimensions, make or load
// inputs, verify against the reference, dump tensors, and record results.
#include <atoll/pipeline.h>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/runtime/parallel_for.h"
#include "backends/npu/target.h"
#include "src/pipeline/compile_graph.h"
#include "src/runtime/init_data.h"
#include "src/runtime/npy.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <fstream>
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

void merge_verify(VerifyResult &total, const VerifyResult &v, const std::map<std::string, std::int64_t> &point) {
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
}

bool codegen_available(const std::string &target) { return target == "cpu" || target == "cpu-c"; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/// Verifies against the reference at every verification point: `compute`
/// gives the outputs under test (compiled code, or the definitions) and
/// `stage` names its time in stage_ms.
void verify_graph(const Graph &graph, const PipelineOptions &o, GraphResult &r, const std::string &oracle,
                  const std::string &stage,
                  const std::function<std::map<std::string, Tensor>(const Graph &, const std::map<std::string, Tensor> &,
                                                                    const std::map<std::string, std::int64_t> &)> &compute) {
  VerifyResult total;
  total.passed = true;
  total.oracle = oracle;
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
    std::map<std::string, Tensor> got = compute(concrete, feeds, point);
    r.stage_ms[stage] += ms_since(t0);
    merge_verify(total, compare_outputs(got, reference, concrete.outputs), point);
    if (!o.dump_dir.empty()) dump_tensors(concrete, o, feeds, got);
  }
  r.verify = total;
}

/// Times the compiled code at the bench point: warm-up, then repeated runs.
void bench_compiled(const Graph &graph, const CompiledGraph &compiled, const PipelineOptions &o, GraphResult &r) {
  std::map<std::string, std::int64_t> point = bench_point(graph, o);
  Graph concrete = graph.params.empty() ? graph : graph.instantiate(point);
  std::map<std::string, Tensor> feeds = load_feeds(concrete, o);
  std::vector<double> times;
  (void)run_compiled(compiled, concrete, feeds, point, 2, &times);  // warm-up
  double estimate = std::max(median(times), 1e-3);
  int runs = static_cast<int>(std::clamp(1000.0 / estimate, 10.0, 200.0));
  times.clear();
  (void)run_compiled(compiled, concrete, feeds, point, runs, &times);
  BenchResult b;
  b.median_ms = median(times);
  b.runs = runs;
  b.threads = atoll_get_num_threads();
  b.gflops = r.flops && b.median_ms > 0 ? static_cast<double>(*r.flops) / (b.median_ms * 1e6) : 0.0;
  r.bench = b;
}

/// `compile`: writes the graph's code into o.out_dir and lists its kernels
/// for manifest.json: an object file and a C header (cpu), or C source (cpu-c).
void write_artifacts(const Graph &graph, const CompiledGraph &compiled, const PipelineOptions &o, GraphResult &r) {
  std::vector<poly::LKernel> kernels;
  for (const auto &c : compiled.clusters) kernels.push_back(c.kernel);
  std::filesystem::create_directories(o.out_dir);
  std::vector<std::string> files;
  if (o.target == "cpu") {
    std::string base = (std::filesystem::path(o.out_dir) / graph.name).string();
    cpu::write_object(kernels, base + ".o.tmp", base + ".h.tmp");
    std::filesystem::rename(base + ".o.tmp", base + ".o");
    std::filesystem::rename(base + ".h.tmp", base + ".h");
    files = {graph.name + ".o", graph.name + ".h"};
  } else {
    std::string path = (std::filesystem::path(o.out_dir) / (graph.name + ".c")).string();
    {
      std::ofstream f(path + ".tmp");
      f << cpu::emit_c_source(kernels);
      if (!f) throw UserError("cannot write '" + path + "'");
    }
    std::filesystem::rename(path + ".tmp", path);
    files = {graph.name + ".c"};
  }
  nlohmann::json list = nlohmann::json::array();
  for (const auto &c : compiled.clusters) {
    std::map<std::string, std::string> tensor_of;
    for (const auto &[tensor, array] : c.array_of_tensor) tensor_of[array] = tensor;
    nlohmann::json args = nlohmann::json::array();
    for (const poly::LArray &a : c.kernel.arrays) {
      const char *role = a.role == poly::LArray::Role::Input ? "input" : a.role == poly::LArray::Role::Output ? "output" : "temporary";
      nlohmann::json shape = nlohmann::json::array();
      for (const Dim &d : a.shape) shape.push_back(d.is_symbolic() ? nlohmann::json(d.symbol) : nlohmann::json(d.value));
      auto t = tensor_of.find(a.name);
      args.push_back({{"name", a.name}, {"tensor", t != tensor_of.end() ? nlohmann::json(t->second) : nlohmann::json(nullptr)},
                      {"shape", shape}, {"dtype", dtype_name(a.dtype)}, {"role", role}});
    }
    for (const std::string &p : c.kernel.params) args.push_back({{"name", p}, {"dtype", "i64"}, {"role", "param"}});
    list.push_back({{"symbol", c.kernel.name}, {"entry", c.kernel.name + "_entry"}, {"cluster", c.name},
                    {"args", args}, {"files", files}});
  }
  r.manifest_kernels = list;
}

void run_graph(const BatchGraph &entry, const PipelineOptions &o, GraphResult &r) {
  const Graph &graph = *entry.graph;
  std::map<std::string, std::int64_t> bp = bench_point(graph, o);
  Graph at_bench = graph.params.empty() ? graph : graph.instantiate(bp);
  r.flops = at_bench.flops();
  if (o.stats)
    r.stats = nlohmann::json{{"nodes", graph.num_nodes()}, {"bands_tiled", 0}, {"loops_vectorized", 0},
                             {"arrays_promoted", 0}};

  if (!codegen_available(o.target)) {
    if (o.mode == PipelineOptions::Mode::Compile || o.bench || !o.verify)
      throw UserError("target " + o.target + ": code generation is not available yet");
    verify_graph(graph, o, r, "definition-vs-reference", "definitions",
                 [](const Graph &g, const auto &feeds, const auto &) { return run_definitions(g, feeds); });
    return;
  }
  CompileOptions co;
  co.target = o.target;
  co.scheduler = o.scheduler;
  CompiledGraph compiled = compile_graph(graph, co);
  r.kernels = static_cast<int>(compiled.clusters.size());
  r.compile_ms = compiled.compile_ms;
  r.fallbacks = compiled.fallbacks;
  for (const auto &[stage, ms] : compiled.stage_ms) r.stage_ms[stage] += ms;
  if (o.mode == PipelineOptions::Mode::Compile) write_artifacts(graph, compiled, o, r);
  if (o.verify)
    verify_graph(graph, o, r, "compiled-vs-reference", "run",
                 [&](const Graph &g, const auto &feeds, const auto &point) { return run_compiled(compiled, g, feeds, point); });
  if (o.bench) bench_compiled(graph, compiled, o, r);
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
  cpu::set_cpu_threads(o.threads);
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
