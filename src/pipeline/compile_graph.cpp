// Compiles a graph cluster by cluster (polyhedral layer -> loop AST -> CPU
// backend) and runs the kernels on host buffers converted from tensors.
#include "src/pipeline/compile_graph.h"

#include "backends/cpu/cpu_backend.h"

#include <chrono>
#include <cstring>
#include <set>

namespace atl {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

UserError hint_error(const Graph &g, const std::string &hint, const std::string &why) {
  Location loc{g.pointer.empty() ? "" : g.pointer + "/schedule/" + hint, g.name};
  loc.hint = hint;
  return UserError(why, loc);
}

/// Raw storage of a tensor as the generated code reads it.
std::vector<unsigned char> to_raw(const Tensor &t) {
  std::size_t size = dtype_size(t.dtype);
  std::vector<unsigned char> raw(static_cast<std::size_t>(t.numel()) * size);
  unsigned char *p = raw.data();
  for (double v : t.data) {
    switch (t.dtype) {
    case DType::F32: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); break; }
    case DType::F16: { std::uint16_t x = float_to_half(static_cast<float>(v)); std::memcpy(p, &x, 2); break; }
    case DType::BF16: { std::uint16_t x = float_to_bfloat(static_cast<float>(v)); std::memcpy(p, &x, 2); break; }
    case DType::I8: { std::int8_t x = static_cast<std::int8_t>(v); std::memcpy(p, &x, 1); break; }
    case DType::I32: { std::int32_t x = static_cast<std::int32_t>(v); std::memcpy(p, &x, 4); break; }
    case DType::I64: { std::int64_t x = static_cast<std::int64_t>(v); std::memcpy(p, &x, 8); break; }
    case DType::Bool: { std::uint8_t x = v != 0; std::memcpy(p, &x, 1); break; }
    }
    p += size;
  }
  return raw;
}

Tensor from_raw(const std::vector<unsigned char> &raw, DType dtype, const Shape &shape) {
  Tensor t(dtype, shape);
  const unsigned char *p = raw.data();
  std::size_t size = dtype_size(dtype);
  for (std::int64_t i = 0; i < t.numel(); ++i, p += size) {
    double v = 0;
    switch (dtype) {
    case DType::F32: { float x; std::memcpy(&x, p, 4); v = x; break; }
    case DType::F16: { std::uint16_t x; std::memcpy(&x, p, 2); v = half_to_float(x); break; }
    case DType::BF16: { std::uint16_t x; std::memcpy(&x, p, 2); v = bfloat_to_float(x); break; }
    case DType::I8: { std::int8_t x; std::memcpy(&x, p, 1); v = x; break; }
    case DType::I32: { std::int32_t x; std::memcpy(&x, p, 4); v = x; break; }
    case DType::I64: { std::int64_t x; std::memcpy(&x, p, 8); v = static_cast<double>(x); break; }
    case DType::Bool: { std::uint8_t x; std::memcpy(&x, p, 1); v = x != 0; break; }
    }
    t.data[static_cast<std::size_t>(i)] = v;
  }
  return t;
}

Shape eval_shape(const SymShape &shape, const std::map<std::string, std::int64_t> &params) {
  Shape out;
  for (const Dim &d : shape) {
    if (!d.is_symbolic()) {
      out.push_back(d.value);
      continue;
    }
    auto it = params.find(d.symbol);
    ATOLL_ASSERT(it != params.end(), "no value for symbolic dimension " + d.symbol);
    out.push_back(it->second);
  }
  return out;
}

}  // namespace

std::vector<std::vector<NodeId>> graph_clusters(const Graph &graph) {
  const nlohmann::json &fuse = graph.schedule.fuse;
  if (fuse.is_array())
    for (const auto &group : fuse)
      if (group.size() > 1)
        throw hint_error(graph, "fuse", "fusing several nodes into one kernel is not available yet; use \"auto\" or \"none\"");
  std::vector<std::vector<NodeId>> clusters;
  for (NodeId v : graph.order()) clusters.push_back({v});
  return clusters;
}

poly::PolyOptions cluster_options(const Graph &graph, const std::string &cluster, std::size_t num_clusters,
                                  const CompileOptions &options) {
  const ScheduleHints &h = graph.schedule;
  poly::PolyOptions o;
  o.scheduler = !options.scheduler.empty() ? options.scheduler : !h.scheduler.empty() ? h.scheduler : "isl";
  if (h.vectorize) o.vectorize = *h.vectorize;
  if (h.parallel) o.parallel = *h.parallel;
  if (!h.tile.empty())
    throw hint_error(graph, "tile", "tiling (the `tile` hint) is not available yet; remove the hint");
  if (h.unroll && *h.unroll > 1)
    throw hint_error(graph, "unroll", "unrolling by a factor is not available yet; remove the hint or set it to 1");
  if (h.tree.is_string()) {
    if (num_clusters != 1)
      throw hint_error(graph, "tree",
                       "the graph compiles as " + std::to_string(num_clusters) +
                           " clusters; give `tree` as an object keyed by cluster name (explain --stage clusters)");
    o.scheduler = "given";
    o.tree = h.tree.get<std::string>();
  } else if (h.tree.is_object() && h.tree.contains(cluster)) {
    o.scheduler = "given";
    o.tree = h.tree.at(cluster).get<std::string>();
  }
  return o;
}

std::vector<poly::ClusterResult> schedule_graph(const Graph &graph, const CompileOptions &options) {
  std::vector<std::vector<NodeId>> clusters = graph_clusters(graph);
  if (graph.schedule.tree.is_object()) {
    std::set<std::string> names;
    for (const auto &c : clusters) names.insert(graph.node(c.front()).name);
    for (const auto &[key, value] : graph.schedule.tree.items())
      if (!names.count(key)) {
        std::string list;
        for (const std::string &n : names) list += (list.empty() ? "" : ", ") + n;
        throw hint_error(graph, "tree", "no cluster named '" + key + "' (clusters: " + list + ")");
      }
  }
  std::vector<poly::ClusterResult> out;
  for (const auto &cluster : clusters) {
    const Node &first = graph.node(cluster.front());
    poly::PolyOptions po = cluster_options(graph, first.name, clusters.size(), options);
    try {
      out.push_back(poly::compile_cluster(graph, cluster, po));
    } catch (const UserError &e) {
      throw e.with({first.pointer, graph.name, first.name});
    }
  }
  return out;
}

CompiledGraph compile_graph(const Graph &graph, const CompileOptions &options) {
  auto t0 = Clock::now();
  CompiledGraph out;
  out.clusters = schedule_graph(graph, options);
  for (const auto &r : out.clusters) {
    for (const std::string &f : r.fallbacks) out.fallbacks.push_back(r.name + ": " + f);
    for (const auto &[stage, ms] : r.timings_ms) out.stage_ms[stage] += ms;
  }
  auto tc = Clock::now();
  std::vector<poly::LKernel> kernels;
  for (const auto &c : out.clusters) kernels.push_back(c.kernel);
  std::shared_ptr<cpu::CpuExecutable> exe;
  if (options.target == "cpu")
    exe = cpu::jit_kernels(kernels);
  else if (options.target == "cpu-c")
    exe = cpu::build_c_kernels(kernels);
  else
    throw UserError("target " + options.target + ": code generation is not available yet");
  for (const auto &k : kernels) {
    cpu::KernelEntry e = exe->entry(k.name);
    ATOLL_ASSERT(e, "the backend lost kernel " + k.name);
    out.functions.push_back(e);
  }
  out.keep_alive = exe;
  out.stage_ms["codegen"] += ms_since(tc);
  out.compile_ms = ms_since(t0);
  return out;
}

std::map<std::string, Tensor> run_compiled(const CompiledGraph &compiled, const Graph &concrete,
                                           const std::map<std::string, Tensor> &feeds,
                                           const std::map<std::string, std::int64_t> &params, int repeat,
                                           std::vector<double> *times_ms) {
  std::map<std::string, std::vector<unsigned char>> buffers;
  for (const auto &[name, t] : feeds) buffers[name] = to_raw(t);

  struct Call {
    std::vector<void *> arrays;
    std::vector<std::int64_t> params;
  };
  std::vector<Call> calls;
  std::vector<std::vector<unsigned char> *> zeroed;  // outputs and temporaries: zero before each run
  std::vector<std::vector<unsigned char>> temporaries;
  temporaries.reserve(64);
  std::size_t total_temps = 0;
  for (const auto &c : compiled.clusters)
    for (const auto &a : c.kernel.arrays) total_temps += a.role == poly::LArray::Role::Temporary;
  temporaries.reserve(total_temps);
  for (const auto &c : compiled.clusters) {
    std::map<std::string, std::string> tensor_of;
    for (const auto &[tensor, array] : c.array_of_tensor) tensor_of[array] = tensor;
    Call call;
    for (const poly::LArray &a : c.kernel.arrays) {
      auto t = tensor_of.find(a.name);
      Shape shape = eval_shape(a.shape, params);
      std::size_t bytes = static_cast<std::size_t>(shape_numel(shape)) * dtype_size(a.dtype);
      std::vector<unsigned char> *buf;
      if (t != tensor_of.end()) {
        auto [it, fresh] = buffers.try_emplace(t->second);
        buf = &it->second;
        if (fresh) {
          buf->assign(bytes, 0);
          zeroed.push_back(buf);
        }
      } else {
        temporaries.emplace_back(bytes, 0);
        buf = &temporaries.back();
        zeroed.push_back(buf);
      }
      ATOLL_ASSERT(buf->size() == bytes, "buffer size mismatch for array " + a.name);
      call.arrays.push_back(buf->data());
    }
    for (const std::string &p : c.kernel.params) {
      auto it = params.find(p);
      ATOLL_ASSERT(it != params.end(), "no value for kernel parameter " + p);
      call.params.push_back(it->second);
    }
    calls.push_back(std::move(call));
  }
  for (int run = 0; run <= repeat; ++run) {
    if (run > 0)
      for (auto *b : zeroed) std::memset(b->data(), 0, b->size());
    auto t0 = Clock::now();
    for (std::size_t i = 0; i < calls.size(); ++i)
      compiled.functions[i](calls[i].arrays.data(), calls[i].params.data());
    if (run > 0 && times_ms) times_ms->push_back(ms_since(t0));
  }
  std::map<std::string, Tensor> out;
  for (const std::string &o : concrete.outputs) {
    const TensorDecl &d = concrete.tensor(o);
    auto it = buffers.find(o);
    ATOLL_ASSERT(it != buffers.end(), "no buffer for graph output " + o);
    out[o] = from_raw(it->second, d.type.dtype, concrete_shape(d.type.shape));
  }
  return out;
}

}  // namespace atl
