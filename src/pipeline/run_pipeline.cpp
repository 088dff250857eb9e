// The batch driver: graphs compile in parallel, then one by one: instantiate
// symbolic dimensions, make or load inputs, verify against the reference,
// bench, dump tensors, and record results (memory plan and manifest too).
#include "src/pipeline/pipeline.h"
#include "src/runtime/files.h"

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/runtime/parallel_for.h"
#include "backends/gpu/cuda_driver.h"
#include "backends/gpu/emit_gpu.h"
#include "backends/gpu/opencl_runtime.h"
#include "backends/gpu/nvrtc.h"
#include "backends/npu/target.h"
#include "src/pipeline/npu_codegen.h"
#include "polyhedral/target/gpu_target.h"
#include "src/pipeline/compile_graph.h"
#include "graph/passes/check_constant_indices.h"
#include "src/runtime/init_data.h"
#include "src/runtime/npy.h"
#include "src/tuning/records.h"

#include "graph/memory/plan_arena.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <regex>
#include <thread>

#include "graph/core/parallel_jobs.h"

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
    std::filesystem::path p = std::filesystem::path(o.inputs_dir) / npy_file_name(g.name) / (npy_file_name(name) + ".npy");
    if (!std::filesystem::exists(p)) continue;
    std::string descr;
    Tensor t = read_npy(p.string(), &descr);
    if (descr != npy_type(tensor.dtype))
      throw UserError("--inputs: '" + p.string() + "' holds " + descr + " but '" + name + "' is " +
                      dtype_name(tensor.dtype) + " (" + npy_type(tensor.dtype) + ")");
    if (t.shape != tensor.shape)
      throw UserError("--inputs: '" + p.string() + "' has shape " + shape_to_string(t.shape) + " but '" + name +
                      "' has shape " + shape_to_string(tensor.shape));
    if (tensor.dtype == DType::BF16)  // written as <f4 (NumPy has no bfloat16): the values must be bf16's
      for (std::int64_t i = 0; i < t.numel(); ++i)
        if (double v = t.get(i); round_to(DType::BF16, v) != v && v == v)
          throw UserError("--inputs: '" + p.string() + "' holds " + std::to_string(v) + " at element " +
                          std::to_string(i) + ", which is not a bf16 value, for the bf16 tensor '" + name + "'");
    t.dtype = tensor.dtype;
    tensor = std::move(t);
  }
  return feeds;
}

void dump_tensors(const Graph &g, const PipelineOptions &o, const std::map<std::string, Tensor> &feeds,
                  const std::map<std::string, Tensor> &results) {
  std::filesystem::path dir = std::filesystem::path(o.dump_dir) / npy_file_name(g.name);
  for (const auto &[name, t] : feeds) write_npy((dir / (npy_file_name(name) + ".npy")).string(), t);
  for (const std::string &out : g.outputs) write_npy((dir / (npy_file_name(out) + ".npy")).string(), results.at(out));
}

/// Adds a point's values to the graph's `params` (each value once, in the order used).
void note_params(GraphRun &r, const std::map<std::string, std::int64_t> &point) {
  for (const auto &[name, value] : point) {
    std::vector<std::int64_t> &used = r.params[name];
    if (std::find(used.begin(), used.end(), value) == used.end()) used.push_back(value);
  }
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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/// Verifies against the reference at every verification point: `compute`
/// gives the outputs under test (compiled code, or the definitions) and
/// `stage` names its time in stage_ms.
void verify_graph(const Graph &graph, const PipelineOptions &o, GraphRun &r, const std::string &oracle,
                  const std::string &stage,
                  const std::function<std::map<std::string, Tensor>(const Graph &, const std::map<std::string, Tensor> &,
                                                                    const std::map<std::string, std::int64_t> &)> &compute) {
  VerifyResult total;
  total.passed = true;
  total.oracle = oracle;
  for (const auto &point : verify_points(graph, o)) {
    auto t0 = Clock::now();
    Graph concrete = graph.params.empty() ? graph : graph.instantiate(point);
    note_params(r, point);
    std::map<std::string, Tensor> feeds = load_feeds(concrete, o);
    r.stage_ms["inputs"] += ms_since(t0);
    t0 = Clock::now();
    std::map<std::string, Tensor> reference;
    try {
      reference = run_reference(concrete, feeds);
    } catch (const UserError &e) {
      // The inputs make the graph itself invalid (a run-time index outside
      // its axis): the graph compiled, so it fails verification (cli.md).
      VerifyResult bad;
      bad.passed = false;
      bad.detail = std::string("the reference interpreter refused these inputs: ") + e.what();
      merge_verify(total, bad, point);
      r.stage_ms["reference"] += ms_since(t0);
      continue;
    }
    r.stage_ms["reference"] += ms_since(t0);
    t0 = Clock::now();
    std::map<std::string, Tensor> got = compute(concrete, feeds, point);
    r.stage_ms[stage] += ms_since(t0);
    merge_verify(total, compare_outputs(got, reference, concrete.outputs, verify_precisions(concrete)), point);
    if (!o.dump_dir.empty()) dump_tensors(concrete, o, feeds, got);
  }
  r.verify = total;
}

/// NPU targets: one timed run on the simulator; the time is the simulated
/// one (cycles at the target's clock), per kernel with its cube
/// utilisation and roofline bound; --dump also writes each kernel's
/// stats.json, Chrome trace and SVG timeline.
void bench_npu(const Graph &graph, const CompiledGraph &compiled, const PipelineOptions &o, GraphRun &r,
               const Graph &concrete, const std::map<std::string, Tensor> &feeds,
               const std::map<std::string, std::int64_t> &point) {
  auto stats = std::static_pointer_cast<NpuRunStats>(compiled.keep_alive);
  const npu::Target target = npu_target_of(o.target);
  {
    std::lock_guard<std::mutex> lock(stats->mutex);
    stats->timed = true;
    stats->dump_dir = o.dump_dir.empty() ? std::string() : (std::filesystem::path(o.dump_dir) / npy_file_name(graph.name) / "npu").string();
  }
  std::map<std::string, Tensor> got = run_compiled(compiled, concrete, feeds, point);
  if (!o.dump_dir.empty() && !o.verify) dump_tensors(concrete, o, feeds, got);
  std::lock_guard<std::mutex> lock(stats->mutex);
  stats->timed = false;
  const double per_ms = target.clock_mhz * 1e3;
  nlohmann::json kernels = nlohmann::json::array();
  double total = 0;
  BenchResult b;
  for (const NpuRunStats::Kernel &k : stats->kernels) {
    total += k.cycles;
    nlohmann::json j = {{"name", k.name}, {"cycles", k.cycles}, {"us", k.cycles / target.clock_mhz},
                        {"cube_utilisation", k.cube_utilisation}, {"analytical_cycles", k.analytical},
                        {"roofline_cycles", k.bound}, {"of_roofline", k.cycles > 0 ? k.bound / k.cycles : 0.0}};
    if (k.stats.contains("busy_cycles")) j["busy_cycles"] = k.stats["busy_cycles"];
    if (k.stats.contains("bytes_per_path")) j["bytes_per_path"] = k.stats["bytes_per_path"];
    kernels.push_back(j);
    b.kernels.push_back({k.name, k.cycles / per_ms, k.cycles / per_ms, "call"});
  }
  r.npu = nlohmann::json{{"target", target.name}, {"clock_mhz", target.clock_mhz}, {"cores", target.cores},
                         {"cycles", total}, {"kernels", kernels}, {"time", "simulated"}};
  b.median_ms = total / per_ms;
  b.runs = 1;
  b.threads = 1;
  b.gflops = r.flops && b.median_ms > 0 ? static_cast<double>(*r.flops) / (b.median_ms * 1e6) : 0.0;
  r.bench = b;
}

/// Times the compiled code at the bench point: warm-up, then repeated runs.
void bench_compiled(const Graph &graph, const CompiledGraph &compiled, const PipelineOptions &o, GraphRun &r) {
  std::map<std::string, std::int64_t> point = bench_point(graph, o);
  note_params(r, point);
  Graph concrete = graph.params.empty() ? graph : graph.instantiate(point);
  std::map<std::string, Tensor> feeds = load_feeds(concrete, o);
  if (is_npu_target(o.target)) return bench_npu(graph, compiled, o, r, concrete, feeds, point);
  std::vector<double> times;
  (void)run_compiled(compiled, concrete, feeds, point, 2, &times);  // warm-up
  double estimate = std::max(median(times), 1e-3);
  int runs = static_cast<int>(std::clamp(1000.0 / estimate, 10.0, 200.0));
  times.clear();
  std::vector<std::vector<double>> per_kernel;
  double weight_ms = 0;
  std::map<std::string, Tensor> got =
      run_compiled(compiled, concrete, feeds, point, runs, &times, &per_kernel, &weight_ms);
  WeightPhase once = weight_phase(compiled, concrete, point);
  // Without --verify, --dump still writes what was used and produced (cli.md).
  if (!o.dump_dir.empty() && !o.verify) dump_tensors(concrete, o, feeds, got);
  BenchResult b;
  b.median_ms = median(times);
  b.runs = runs;
  b.threads = atoll_get_num_threads();
  b.gflops = r.flops && b.median_ms > 0 ? static_cast<double>(*r.flops) / (b.median_ms * 1e6) : 0.0;
  for (std::size_t k = 0; k < per_kernel.size(); ++k) {
    double max_ms = per_kernel[k].empty() ? 0 : *std::max_element(per_kernel[k].begin(), per_kernel[k].end());
    b.kernels.push_back({compiled.clusters[k].kernel.name, median(per_kernel[k]), max_ms, once.kernel[k] ? "weights" : "call"});
  }
  b.weight_ms = weight_ms;
  r.bench = b;
}

/// `run` without --verify or --bench: runs the compiled code once at the
/// bench point on the (generated or --inputs) inputs; --dump writes them.
void run_once(const Graph &graph, const CompiledGraph &compiled, const PipelineOptions &o, GraphRun &r) {
  std::map<std::string, std::int64_t> point = bench_point(graph, o);
  note_params(r, point);
  Graph concrete = graph.params.empty() ? graph : graph.instantiate(point);
  auto t0 = Clock::now();
  std::map<std::string, Tensor> feeds = load_feeds(concrete, o);
  r.stage_ms["inputs"] += ms_since(t0);
  t0 = Clock::now();
  std::map<std::string, Tensor> got = run_compiled(compiled, concrete, feeds, point);
  r.stage_ms["run"] += ms_since(t0);
  if (!o.dump_dir.empty()) dump_tensors(concrete, o, feeds, got);
}

/// Where a kernel argument lives, for manifest.json: {"storage": "arena",
/// "offset"} (offsets at the parameters' max values, valid for every value
/// in range, since no buffer grows at smaller values), or in a tensor the
/// caller owns: {"storage": "input" | "weight" | "output" | "constant"
/// (a weight the compiler folded), "base": its name, "offset": bytes into it}.
nlohmann::json arg_storage(const memory::MemoryPlan &plan, const Graph &graph,
                           const std::map<std::string, std::int64_t> &derived,
                           const std::string &kernel, const poly::LArray &a, const std::string *tensor) {
  if (!tensor) {
    std::optional<std::int64_t> off = plan.temporary_offset(kernel, a.name);
    return {{"storage", "arena"}, {"offset", off ? nlohmann::json(*off) : nlohmann::json(nullptr)}};
  }
  if (std::optional<std::int64_t> off = plan.offset_of(*tensor)) return {{"storage", "arena"}, {"offset", *off}};
  std::string base = *tensor;
  std::int64_t offset = 0;
  if (auto it = plan.alias_of.find(*tensor); it != plan.alias_of.end()) {
    base = it->second.base;
    offset = it->second.byte_offset;
  }
  auto in = [&](const std::vector<std::string> &v, const std::string &t) {
    return std::find(v.begin(), v.end(), t) != v.end();
  };
  auto declared = [&](const std::string &t) { return in(graph.inputs, t) || in(graph.weights, t) || in(graph.outputs, t); };
  if (!declared(base) && graph.has_tensor(base)) {
    // An intermediate that a graph output views (e.g. y = Reshape(t)): it
    // lives in that output's storage.
    for (const auto &[name, a] : plan.alias_of)
      if (a.base == base && declared(name)) {
        offset -= a.byte_offset;
        base = name;
        break;
      }
  }
  const char *kind = in(graph.inputs, base) ? "input" : in(graph.weights, base) ? "weight"
                     : in(graph.outputs, base) ? "output" : derived.count(base) ? "derived" : "constant";
  return {{"storage", kind}, {"base", base}, {"offset", offset}};
}

/// The graph at its parameters' max values (the manifest's arena sizes).
std::map<std::string, std::int64_t> max_point(const Graph &g) {
  std::map<std::string, std::int64_t> p;
  for (const auto &[name, range] : g.params) p[name] = range.max;
  return p;
}

/// How the polyhedral layer laid out a kernel's cluster (ClusterLayout), for
/// manifest.json's kernels and report.json's `clusters`.
nlohmann::json layout_json(const ClusterLayout &l) {
  nlohmann::json j = {{"nodes", l.nodes}, {"loop_nests", l.loop_nests}, {"parts", l.parts}, {"split", l.split()}};
  if (!l.split_from.name.empty())
    j["split_from"] = {{"cluster", l.split_from.name}, {"loop_nests", l.split_from.loop_nests}, {"parts", l.split_from.parts}};
  return j;
}

/// Every kernel's cluster and layout. `compile` lists the kernels in full
/// (write_artifacts); `run` has no manifest, and report.json reads the
/// clusters from these entries (report.cpp).
nlohmann::json kernel_layouts(const CompiledGraph &compiled) {
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < compiled.clusters.size(); ++i) {
    nlohmann::json k = {{"symbol", compiled.clusters[i].kernel.name}, {"cluster", compiled.clusters[i].name}};
    k.update(layout_json(compiled.layouts.at(i)));
    if (!compiled.clusters[i].same_as.empty()) k["same_as"] = compiled.clusters[i].same_as;
    list.push_back(k);
  }
  return list;
}

/// `compile`: writes the graph's code into o.out_dir and lists its kernels
/// for manifest.json: an object file and a C header (cpu), or C source (cpu-c).
/// Returns the milliseconds spent generating and writing the code.
/// A C identifier from `name` (other characters as '_'; a leading digit gets '_').
std::string c_identifier(const std::string &name) {
  std::string id;
  for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "_" + id;
  return id;
}

/// Writes the graph's code into the output directory. Kernels are named
/// `compile --target cuda|opencl`: GRAPH.cu or GRAPH.cl, and the manifest
/// GRAPH_gpu.json (per kernel its arrays, parameters and launches with
/// grid expressions and block sizes; for cuda, where NVRTC is present,
/// ptxas's report per launch and GRAPH.cubin for the target's architecture).
/// Times go to r.stage_ms: "emit_gpu" (printing) and "nvrtc".
std::vector<std::string> write_gpu_files(const std::string &graph_name, const CompiledGraph &compiled,
                                         const PipelineOptions &o, const std::string &symbol_prefix, GraphRun &r) {
  auto t0 = Clock::now();
  const poly::GpuTarget target = poly::gpu_target(o.target);
  const bool cuda = target.dialect == poly::GpuDialect::Cuda;
  std::vector<poly::LKernel> kernels;
  std::vector<poly::GpuProgram> programs;
  for (const auto &c : compiled.clusters) {
    kernels.push_back(c.kernel);
    kernels.back().name = symbol_prefix + c.kernel.name;
    programs.push_back(c.gpu);
    for (poly::GpuLaunch &l : programs.back().launches) l.name = symbol_prefix + l.name;
  }
  std::vector<gpu::GpuKernelSource> sources;
  for (std::size_t i = 0; i < kernels.size(); ++i) sources.push_back({&kernels[i], &programs[i]});
  const std::string source = gpu::emit_gpu(sources, target.dialect);
  r.stage_ms["emit_gpu"] += ms_since(t0);
  const std::filesystem::path dir(o.out_dir);
  const std::string src_name = graph_name + (cuda ? ".cu" : ".cl");
  std::vector<std::string> files = {src_name};
  write_file_atomically((dir / src_name).string(), source);
  std::optional<gpu::NvrtcResult> nvrtc;
  if (cuda && gpu::nvrtc_available()) {
    auto tn = Clock::now();
    nvrtc = gpu::compile_cuda(source, src_name, target.sm);
    r.stage_ms["nvrtc"] += ms_since(tn);
    write_file_atomically((dir / (graph_name + ".cubin")).string(), nvrtc->cubin);
    files.push_back(graph_name + ".cubin");
  }
  nlohmann::ordered_json m;
  m["graph"] = graph_name;
  m["target"] = o.target;
  m["dialect"] = cuda ? "cuda" : "opencl";
  m["source"] = src_name;
  if (cuda) m["sm"] = target.sm;
  if (nvrtc) {
    m["cubin"] = graph_name + ".cubin";
    m["nvrtc"] = std::to_string(nvrtc->version_major) + "." + std::to_string(nvrtc->version_minor);
  } else if (cuda) {
    m["cubin"] = nullptr;
    m["nvrtc"] = "not found: no cubin written";
  }
  m["kernels"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const poly::LKernel &k = kernels[i];
    nlohmann::ordered_json jk;
    jk["name"] = k.name;
    jk["arrays"] = nlohmann::ordered_json::array();
    for (const poly::LArray &a : k.arrays) {
      const char *role = a.role == poly::LArray::Role::Input ? "input"
                         : a.role == poly::LArray::Role::Output ? "output"
                                                                : "temporary";
      nlohmann::ordered_json shape = nlohmann::ordered_json::array();
      for (const Dim &d : a.shape) shape.push_back(d.is_symbolic() ? nlohmann::ordered_json(d.symbol) : nlohmann::ordered_json(d.value));
      jk["arrays"].push_back({{"name", a.name}, {"dtype", dtype_name(a.dtype)}, {"shape", shape}, {"role", role}});
    }
    jk["params"] = k.params;
    jk["launches"] = nlohmann::ordered_json::array();
    for (const poly::GpuLaunch &l : programs[i].launches) {
      nlohmann::ordered_json jl;
      jl["name"] = l.name;
      nlohmann::ordered_json grid = nlohmann::ordered_json::array();
      for (const poly::LExprPtr &g : l.grid) {
        if (g && g->kind == poly::LExprKind::Int) grid.push_back(g->ival);
        else grid.push_back(g ? poly::print_loop_expr(*g) : std::string("1"));
      }
      jl["grid"] = grid;
      jl["block"] = {l.block[0], l.block[1], l.block[2]};
      jl["one_thread"] = !l.mapped;
      if (nvrtc) {
        auto it = nvrtc->kernels.find(l.name);
        if (it != nvrtc->kernels.end())
          jl["ptxas"] = {{"registers", it->second.registers},
                         {"shared_bytes", it->second.shared_bytes},
                         {"stack_bytes", it->second.stack_bytes},
                         {"spill_store_bytes", it->second.spill_store_bytes},
                         {"spill_load_bytes", it->second.spill_load_bytes}};
      }
      jk["launches"].push_back(jl);
    }
    m["kernels"].push_back(jk);
  }
  write_file_atomically((dir / (graph_name + "_gpu.json")).string(), m.dump(2) + "\n");
  files.push_back(graph_name + "_gpu.json");
  return files;
}

/// `symbol_prefix` + their cluster's kernel name, so that the objects of a
/// batch's graphs link together.
double write_artifacts(const Graph &graph, const CompiledGraph &compiled, const PipelineOptions &o, GraphRun &r,
                       const std::string &symbol_prefix) {
  auto t0 = Clock::now();
  std::vector<poly::LKernel> kernels;
  std::map<std::string, std::string> same_code;  // kernels reusing another's code (ClusterResult::same_as)
  for (const auto &c : compiled.clusters) {
    kernels.push_back(c.kernel);
    kernels.back().name = symbol_prefix + c.kernel.name;
    if (!c.same_as.empty()) same_code[kernels.back().name] = symbol_prefix + c.same_as;
  }
  std::filesystem::create_directories(o.out_dir);
  std::vector<std::string> files;
  if (poly::is_gpu_target(o.target)) {
    files = write_gpu_files(graph.name, compiled, o, symbol_prefix, r);
  } else if (is_npu_target(o.target)) {
    std::vector<npu::NpuProgram> programs = npu_programs(compiled.clusters, npu_target_of(o.target));
    for (npu::NpuProgram &p : programs) p.name = symbol_prefix + p.name;
    write_file_atomically((std::filesystem::path(o.out_dir) / (graph.name + "_npu.c")).string(),
                          npu_c_source(programs));
    files = {graph.name + "_npu.c"};
  } else if (o.target == "cpu") {
    std::string base = (std::filesystem::path(o.out_dir) / graph.name).string();
    cpu::write_object(kernels, base + ".o.tmp", base + ".h.tmp", {}, same_code);
    std::filesystem::rename(base + ".o.tmp", base + ".o");
    std::filesystem::rename(base + ".h.tmp", base + ".h");
    files = {graph.name + ".o", graph.name + ".h"};
  } else {
    write_file_atomically((std::filesystem::path(o.out_dir) / (graph.name + ".c")).string(),
                          cpu::emit_c_source(kernels));
    files = {graph.name + ".c"};
  }
  // Folded constants as DIR/GRAPH.constants/NAME.npy, named in the manifest.
  std::map<std::string, std::string> constant_files;
  for (const auto &[name, t] : compiled.constants) {
    std::string rel = npy_file_name(graph.name) + ".constants/" + npy_file_name(name) + ".npy";
    write_npy((std::filesystem::path(o.out_dir) / rel).string(), t);
    constant_files[name] = rel;
    files.push_back(rel);
  }
  double emit_ms = ms_since(t0);
  std::map<std::string, std::int64_t> at = max_point(graph);
  Graph concrete = graph.params.empty() ? graph : graph.instantiate(at);
  memory::MemoryPlan plan = plan_memory(compiled, concrete, at);
  WeightPhase once = weight_phase(compiled, concrete, at);
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t ci = 0; ci < compiled.clusters.size(); ++ci) {
    const poly::ClusterResult &c = compiled.clusters[ci];
    std::map<std::string, std::string> tensor_of;
    for (const auto &[tensor, array] : c.array_of_tensor) tensor_of[array] = tensor;
    nlohmann::json args = nlohmann::json::array();
    for (const poly::LArray &a : c.kernel.arrays) {
      const char *role = a.role == poly::LArray::Role::Input ? "input" : a.role == poly::LArray::Role::Output ? "output" : "temporary";
      nlohmann::json shape = nlohmann::json::array();
      for (const Dim &d : a.shape) shape.push_back(d.is_symbolic() ? nlohmann::json(d.symbol) : nlohmann::json(d.value));
      auto t = tensor_of.find(a.name);
      nlohmann::json arg = {{"name", a.name}, {"tensor", t != tensor_of.end() ? nlohmann::json(t->second) : nlohmann::json(nullptr)},
                            {"shape", shape}, {"dtype", dtype_name(a.dtype)}, {"role", role}};
      bool temporary = t == tensor_of.end() || a.role == poly::LArray::Role::Temporary;
      arg.update(arg_storage(plan, graph, once.tensors, c.kernel.name, a, temporary ? nullptr : &t->second));
      // A weight-phase tensor: the caller keeps a buffer of this size from its weight phase to every call.
      if (arg.value("storage", "") == "derived") arg["bytes"] = once.tensors.at(arg.at("base").get<std::string>());
      // A constant the compiler made (a folded BatchNormalization's weights): its values travel in a file.
      if (arg.value("storage", "") == "constant") {
        const std::string base = arg.at("base").get<std::string>();
        if (compiled.constants.count(base)) arg["file"] = constant_files.at(base);
      }
      args.push_back(arg);
    }
    for (const std::string &p : c.kernel.params) args.push_back({{"name", p}, {"dtype", "i64"}, {"role", "param"}});
    const std::string symbol = symbol_prefix + c.kernel.name;
    nlohmann::json k = {{"symbol", symbol}, {"entry", symbol + "_entry"}, {"cluster", c.name},
                        {"args", args}, {"files", files}, {"arena_bytes", plan.peak_bytes()},
                        {"arena_alignment", memory::kArenaAlignment}, {"phase", once.kernel[ci] ? "weights" : "call"}};
    k.update(layout_json(compiled.layouts.at(ci)));
    list.push_back(k);
  }
  r.manifest_kernels = list;
  return emit_ms;
}

/// report.json's `memory` at the bench point.
void record_memory(const Graph &graph, const CompiledGraph &compiled, const PipelineOptions &o, GraphRun &r) {
  std::map<std::string, std::int64_t> point = bench_point(graph, o);
  Graph concrete = graph.params.empty() ? graph : graph.instantiate(point);
  memory::MemoryPlan plan = plan_memory(compiled, concrete, point);
  MemoryResult m;
  m.peak_bytes = plan.peak_bytes();
  m.intermediates_bytes = plan.intermediates_bytes;
  m.bytes_moved = plan.bytes_moved;
  m.buffers = static_cast<int>(plan.buffers.size());
  m.heuristic = plan.layout.heuristic;
  r.memory = m;
  if (r.stats) {  // the arena bytes a call zero-fills, and those it need not (written_first)
    std::vector<memory::KernelUse> uses = kernel_uses(compiled, point);
    std::int64_t zeroed = 0, skipped = 0;
    for (std::size_t b = 0; b < plan.buffers.size(); ++b)
      (zero_before_first_use(compiled, plan, uses, b) ? zeroed : skipped) += plan.buffers[b].bytes;
    (*r.stats)["arena_bytes_zeroed"] = zeroed;
    (*r.stats)["arena_bytes_not_zeroed"] = skipped;
  }
}

/// The passes of the kernels' pipelines, summed by pass in table order
/// (report.json `passes`), the rejected ones with the dependence they broke,
/// and the IR that --print-after asked for.
void record_passes(const CompiledGraph &compiled, GraphRun &r) {
  std::vector<std::string> order;
  std::map<std::string, nlohmann::json> by_name;
  for (const poly::ClusterResult &c : compiled.clusters) {
    for (const poly::PassRecord &p : c.passes) {
      auto [it, fresh] = by_name.try_emplace(p.name);
      nlohmann::json &j = it->second;
      if (fresh) {
        order.push_back(p.name);
        j = {{"name", p.name}, {"level", poly::level_name(p.level)}, {"ms", 0.0}, {"changed", 0}, {"unchanged", 0},
             {"skipped", 0}, {"rejected", 0}, {"stats", nlohmann::json::object()}};
      }
      j["ms"] = j["ms"].get<double>() + p.ms;
      j[poly::result_name(p.result)] = j[poly::result_name(p.result)].get<long>() + 1;
      for (const auto &[what, n] : p.stats) j["stats"][what] = j["stats"].value(what, 0L) + n;
      for (const std::string &why : p.rejections)
        r.rejected_passes.push_back(c.name + ": " + p.name + " rejected: " + why);
    }
    if (!c.printed.empty()) r.printed += cluster_printed_text(c);
  }
  r.passes = nlohmann::json::array();
  for (const std::string &name : order) r.passes.push_back(by_name[name]);
}

/// The parallel phase: everything up to code generation (and, for compile,
/// the files), the graph's clusters on `cluster_threads` threads. Returns
/// the compiled code when there is more to do.
std::optional<CompiledGraph> compile_phase(const BatchGraph &entry, const PipelineOptions &o, GraphRun &r,
                                          const std::string &symbol_prefix, std::size_t cluster_threads,
                                          const std::shared_ptr<const poly::TuningTable> &tuning) {
  const Graph &graph = *entry.graph;
  check_constant_indices(graph);
  std::map<std::string, std::int64_t> bp = bench_point(graph, o);
  Graph at_bench = graph.params.empty() ? graph : graph.instantiate(bp);
  r.flops = at_bench.flops();
  if (o.stats)
    r.stats = nlohmann::json{{"nodes", graph.num_nodes()}, {"bands_tiled", 0}, {"loops_vectorized", 0},
                             {"arrays_promoted", 0}};
  // --verify-definitions asks for no target code: the definitions are
  // verified in the sequential phase. Otherwise a target without code
  // generation fails the graph, with or without --verify.
  if (o.definitions_only) return std::nullopt;
  if (!codegen_available(o.target)) throw UserError("target " + o.target + ": code generation is not available yet");
  CompileOptions co;
  co.target = o.target;
  co.scheduler = o.scheduler;
  co.print_after = o.print_after;
  // `compile` without --verify or --bench runs nothing: it writes the code
  // from the loop ASTs and needs no in-memory build (JIT).
  const bool compile_only = o.mode == PipelineOptions::Mode::Compile && !o.verify && !o.bench;
  co.executable = !compile_only;
  co.simt_check = o.verify;
  co.compile_threads = cluster_threads;
  co.tuning = tuning;
  CompiledGraph compiled = compile_graph(graph, co);
  r.kernels = static_cast<int>(compiled.clusters.size());
  if (co.executable && poly::is_gpu_target(o.target)) {
    // The launches run as OpenCL C: for cuda that is its OpenCL twin (the
    // CUDA launch path is not built), and the report says why.
    nlohmann::json g = {{"runs_on", "opencl"}, {"opencl_device", gpu::opencl_device()}};
    if (o.target != "opencl") {
      const std::string problem = gpu::cuda_driver_problem();
      g["cuda"] = problem.empty() ? "a CUDA device is present; Atoll's CUDA launch path is not built yet" : problem;
      g["verified_through"] = "opencl twin";
    }
    r.gpu = g;
  }
  r.compile_ms = compiled.compile_ms;
  r.fallbacks = compiled.fallbacks;
  for (const auto &[stage, ms] : compiled.stage_ms) r.stage_ms[stage] += ms;
  record_passes(compiled, r);
  if (r.stats) {  // what the optimizer did, summed over the kernels, and per pass
    for (const auto &c : compiled.clusters)
      for (const auto &[what, count] : c.stats) (*r.stats)[what] = (*r.stats).value(what, 0L) + count;
    (*r.stats)["clusters_split"] = clusters_split(compiled.layouts);
    (*r.stats)["clusters_reused"] = std::count_if(compiled.clusters.begin(), compiled.clusters.end(),
                                                  [](const poly::ClusterResult &c) { return !c.same_as.empty(); });
    nlohmann::json per_pass = nlohmann::json::object();
    for (const nlohmann::json &p : r.passes)
      if (!p["stats"].empty()) per_pass[p["name"].get<std::string>()] = p["stats"];
    (*r.stats)["passes"] = per_pass;
  }
  record_memory(graph, compiled, o, r);
  r.manifest_kernels = kernel_layouts(compiled);
  if (o.mode == PipelineOptions::Mode::Compile) {
    // compile_ms covers all code generation: the files too.
    double emit_ms = write_artifacts(graph, compiled, o, r, symbol_prefix);
    *r.compile_ms += emit_ms;
    r.stage_ms["emit"] += emit_ms;
    r.stage_ms["codegen"] += emit_ms;
  }
  if (compile_only) return std::nullopt;
  return compiled;
}

/// Refuses to run a graph whose tensors cannot fit in this machine's memory
/// (the reference and the generated inputs hold every element as a double),
/// instead of being killed for it.
void check_memory(const Graph &graph, const std::map<std::string, std::int64_t> &point) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return;
  double have = static_cast<double>(pages) * static_cast<double>(page), need = 0;
  for (const auto &[name, d] : graph.tensors()) {
    double n = 1;
    for (const Dim &dim : d.type.shape) n *= static_cast<double>(dim.is_symbolic() ? point.at(dim.symbol) : dim.value);
    need += n * (sizeof(double) + dtype_size(d.type.dtype));
  }
  if (need > 0.8 * have)
    throw UserError("its tensors need about " + std::to_string(static_cast<long>(need / (1 << 30))) +
                    " GiB to run here (inputs and the reference hold every element as a double), more than this "
                    "machine's " + std::to_string(static_cast<long>(have / (1 << 30))) + " GiB allow");
}

/// The sequential phase: verification and timing (they use every core).
void run_phase(const BatchGraph &entry, const std::optional<CompiledGraph> &compiled, const PipelineOptions &o,
               GraphRun &r) {
  const Graph &graph = *entry.graph;
  std::map<std::string, std::int64_t> largest = bench_point(graph, o);
  for (const auto &point : verify_points(graph, o))
    for (const auto &[name, v] : point) largest[name] = std::max(largest[name], v);
  check_memory(graph, largest);
  if (o.definitions_only) {
    verify_graph(graph, o, r, "definition-vs-reference", "definitions",
                 [](const Graph &g, const auto &feeds, const auto &) { return run_definitions(g, feeds); });
    return;
  }
  ATOLL_ASSERT(compiled.has_value(), "graph '" + entry.name + "' has no compiled code");
  if (o.verify)
    verify_graph(graph, o, r, "compiled-vs-reference", "run",
                 [&](const Graph &g, const auto &feeds, const auto &point) { return run_compiled(*compiled, g, feeds, point); });
  if (o.bench) bench_compiled(graph, *compiled, o, r);
  if (!o.verify && !o.bench) run_once(graph, *compiled, o, r);
}

/// Runs `step` for one graph, turning its exceptions into the graph's error.
/// Returns false when the graph failed.
template <typename Step>
bool guarded(const BatchGraph &entry, GraphRun &r, Step &&step) {
  auto t0 = Clock::now();
  bool ok = false;
  try {
    step();
    ok = true;
  } catch (const UserError &e) {
    r.error = e.with({entry.pointer, entry.name}).what();
  } catch (const std::bad_alloc &) {
    r.error = "graph '" + entry.name + "': out of memory";
  } catch (const std::exception &e) {
    r.error = "graph '" + entry.name + "': " + e.what();
  }
  r.stage_ms["total"] += ms_since(t0);
  return ok;
}


}  // namespace

bool codegen_available(const std::string &target) {
  return target == "cpu" || target == "cpu-c" || poly::is_gpu_target(target) || is_npu_target(target);
}

void check_target(const std::string &target) {
  if (target == "cpu" || target == "cpu-c") return;
  if (poly::is_gpu_target(target)) {
    (void)poly::gpu_target(target);  // the architecture is one CUDA 13 compiles for
    return;
  }
  if (is_npu_target(target)) {
    // Parses and validates the NPU target description (profile name or FILE.json).
    (void)npu_target_of(target);
    return;
  }
  throw UserError("unknown target '" + target + "' (expected cpu, cpu-c, cuda[:sm_XX], opencl, npu[:PROFILE_OR_FILE.json])");
}

int BatchRun::exit_status() const { return exit_status_of(error, graphs); }

BatchRun start_run(const std::string &batch_name, const PipelineOptions &options) {
  BatchRun run;
  run.batch = batch_name;
  run.target = options.target;
  run.out_dir = !options.out_dir.empty() ? options.out_dir
                                         : "atoll-out/" + (batch_name.empty() ? std::string("batch") : batch_name);
  run.verify = options.verify;
  run.bench = options.bench;
  run.stats = options.stats;
  return run;
}

BatchRun run_pipeline(const Batch &batch, const PipelineOptions &options) {
  BatchRun result = start_run(batch.name, options);
  // compile writes into the resolved directory.
  PipelineOptions o = options;
  o.out_dir = result.out_dir;
  cpu::set_cpu_threads(o.threads);
  // --records: the best tuned point of each cluster key, read once.
  std::shared_ptr<const poly::TuningTable> tuning = tuning::tuning_for_target(o.records, o.target);
  const std::size_t n = batch.graphs.size();
  result.graphs.resize(n);
  std::vector<std::optional<CompiledGraph>> compiled(n);
  std::vector<char> failed(n, 0);
  std::mutex progress_mutex;
  std::size_t started = 0;
  auto progress = [&](const std::string &line) {
    if (!o.progress) return;
    std::lock_guard<std::mutex> lock(progress_mutex);
    std::cerr << line << "\n" << std::flush;
  };

  // Parallel phase: graphs compile concurrently (each has its own isl
  // context and LLVM context; Pluto, which uses PPL, takes a lock), on the
  // compile threads (ATOLL_COMPILE_THREADS or the hardware's), at most one
  // per graph; the threads left over compile each graph's clusters.
  const std::size_t total_threads = compile_thread_budget();
  const std::size_t threads = compile_worker_threads(n, total_threads);
  const std::size_t cluster_threads = std::max<std::size_t>(1, total_threads / threads);
  std::atomic<std::size_t> next{0};
  // --shard i/N: the graphs whose index is i mod N; the others are left out
  // of the result. Symbols are those of the whole batch (n graphs).
  auto in_shard = [&](std::size_t i) { return static_cast<int>(i % static_cast<std::size_t>(o.shards)) == o.shard; };
  auto worker = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      if (!in_shard(i)) continue;
      const BatchGraph &entry = batch.graphs[i];
      GraphRun &r = result.graphs[i];
      r.name = entry.name;
      {
        std::lock_guard<std::mutex> lock(progress_mutex);
        ++started;
        if (o.progress) std::cerr << "[" << started << "/" << n << "] " << entry.name << "\n" << std::flush;
      }
      if (entry.error) {
        r.error = entry.error->what();
        failed[i] = 1;
        continue;
      }
      failed[i] = !guarded(entry, r, [&] {
        // In a batch of several graphs, symbols carry the graph's name.
        std::optional<CompiledGraph> code = compile_phase(entry, o, r, n > 1 ? c_identifier(entry.name) + "_" : "", cluster_threads, tuning);
        if (o.verify || o.bench || o.mode == PipelineOptions::Mode::Run) compiled[i] = std::move(code);
      });
    }
  };
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (std::thread &t : pool) t.join();
  }

  // Sequential phase: verification and benchmarks, in batch order.
  bool more = o.verify || o.bench || o.mode == PipelineOptions::Mode::Run;
  for (std::size_t i = 0; i < n && more; ++i) {
    if (failed[i] || !in_shard(i)) continue;
    const BatchGraph &entry = batch.graphs[i];
    if (!compiled[i] && !o.definitions_only) continue;
    progress("[" + std::to_string(i + 1) + "/" + std::to_string(n) + "] " + entry.name + ": " +
             (o.verify ? (o.bench ? "verify, bench" : "verify") : o.bench ? "bench" : "run"));
    failed[i] = !guarded(entry, result.graphs[i], [&] { run_phase(entry, compiled[i], o, result.graphs[i]); });
    compiled[i].reset();
  }
  for (std::size_t i = 0; i < n; ++i) result.graphs[i].ok = !failed[i];
  if (o.shards > 1) {
    std::vector<GraphRun> kept;
    for (std::size_t i = 0; i < n; ++i)
      if (in_shard(i)) kept.push_back(std::move(result.graphs[i]));
    result.graphs = std::move(kept);
  }
  return result;
}

}  // namespace atl
