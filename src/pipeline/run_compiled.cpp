// Runs a compiled graph's kernels: inputs and outputs in their own buffers,
// every intermediate and temporary in one arena planned by graph/memory.
#include "src/pipeline/compile_graph.h"

#include "graph/memory/plan_arena.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <set>

namespace atl {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
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
    case DType::U8: { std::uint8_t x; std::memcpy(&x, p, 1); v = x; break; }
    case DType::F64: std::memcpy(&v, p, 8); break;
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

/// Allocates on 64-byte boundaries, so that the kernels' vector accesses to
/// inputs, weights and outputs never straddle cache lines (malloc gives 16).
template <class T>
struct LineAligned {
  using value_type = T;
  LineAligned() = default;
  template <class U>
  LineAligned(const LineAligned<U> &) {}
  T *allocate(std::size_t n) {
    std::size_t bytes = static_cast<std::size_t>(memory::aligned_size(static_cast<std::int64_t>(std::max<std::size_t>(n, 1) * sizeof(T))));
    void *p = std::aligned_alloc(static_cast<std::size_t>(memory::kArenaAlignment), bytes);
    if (!p) throw std::bad_alloc();
    return static_cast<T *>(p);
  }
  void deallocate(T *p, std::size_t) { std::free(p); }
  template <class U>
  bool operator==(const LineAligned<U> &) const { return true; }
};
using AlignedBytes = std::vector<unsigned char, LineAligned<unsigned char>>;

/// A 64-byte aligned block of bytes (the arena).
class Arena {
public:
  explicit Arena(std::int64_t bytes)
      : data_(static_cast<unsigned char *>(std::aligned_alloc(
            static_cast<std::size_t>(memory::kArenaAlignment),
            static_cast<std::size_t>(memory::aligned_size(std::max<std::int64_t>(bytes, 1)))))) {
    if (!data_) throw std::bad_alloc();
    // All ones: NaN in every float type. The runner zero-fills what a kernel
    // needs zeroed (zero_before_first_use); a kernel that read a byte it
    // neither wrote nor had cleared would show NaN in the verification.
    std::memset(data_.get(), 0xff, static_cast<std::size_t>(memory::aligned_size(std::max<std::int64_t>(bytes, 1))));
  }
  unsigned char *data() { return data_.get(); }

private:
  struct Free {
    void operator()(unsigned char *p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char, Free> data_;
};

}  // namespace

void store_raw(const Tensor &t, unsigned char *p) {
  const std::size_t size = dtype_size(t.dtype);
  for (double v : t.data) {
    switch (t.dtype) {
    case DType::F32: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); break; }
    case DType::F16: { std::uint16_t x = float_to_half(static_cast<float>(v)); std::memcpy(p, &x, 2); break; }
    case DType::BF16: { std::uint16_t x = float_to_bfloat(static_cast<float>(v)); std::memcpy(p, &x, 2); break; }
    case DType::I8: { std::int8_t x = static_cast<std::int8_t>(v); std::memcpy(p, &x, 1); break; }
    case DType::I32: { std::int32_t x = static_cast<std::int32_t>(v); std::memcpy(p, &x, 4); break; }
    case DType::I64: { std::int64_t x = static_cast<std::int64_t>(v); std::memcpy(p, &x, 8); break; }
    case DType::Bool: { std::uint8_t x = v != 0; std::memcpy(p, &x, 1); break; }
    case DType::U8: { std::uint8_t x = static_cast<std::uint8_t>(v); std::memcpy(p, &x, 1); break; }
    case DType::F64: std::memcpy(p, &v, 8); break;
    }
    p += size;
  }
}

std::vector<unsigned char> to_raw(const Tensor &t) {
  std::vector<unsigned char> raw(static_cast<std::size_t>(t.numel()) * dtype_size(t.dtype));
  store_raw(t, raw.data());
  return raw;
}


std::vector<memory::KernelUse> kernel_uses(const CompiledGraph &compiled,
                                           const std::map<std::string, std::int64_t> &params) {
  std::vector<memory::KernelUse> uses;
  for (const poly::ClusterResult &c : compiled.clusters) {
    std::map<std::string, std::string> tensor_of;
    for (const auto &[tensor, array] : c.array_of_tensor) tensor_of[array] = tensor;
    memory::KernelUse use{c.kernel.name, {}};
    for (const poly::LArray &a : c.kernel.arrays) {
      memory::KernelArg arg;
      arg.array = a.name;
      arg.bytes = shape_numel(eval_shape(a.shape, params)) * static_cast<std::int64_t>(dtype_size(a.dtype));
      auto t = tensor_of.find(a.name);
      if (t == tensor_of.end() || a.role == poly::LArray::Role::Temporary) {
        arg.access = memory::KernelArg::Access::Temporary;
      } else {
        arg.tensor = t->second;
        arg.access = a.role == poly::LArray::Role::Input ? memory::KernelArg::Access::Read : memory::KernelArg::Access::Write;
      }
      use.args.push_back(std::move(arg));
    }
    uses.push_back(std::move(use));
  }
  return uses;
}

namespace {

/// Bytes of a tensor of the graph, or of a constant simplification made
/// (a folded BatchNormalization's weights exist only in the compiled graph).
std::int64_t graph_tensor_bytes(const CompiledGraph &compiled, const Graph &concrete, const std::string &tensor) {
  if (auto c = compiled.constants.find(tensor); c != compiled.constants.end() && !concrete.has_tensor(tensor))
    return c->second.numel() * static_cast<std::int64_t>(dtype_size(c->second.dtype));
  const TensorDecl &d = concrete.tensor(tensor);
  return shape_numel(concrete_shape(d.type.shape)) * static_cast<std::int64_t>(dtype_size(d.type.dtype));
}

}  // namespace

std::function<std::int64_t(const std::string &)> tensor_bytes_of(const CompiledGraph &compiled, const Graph &concrete,
                                                                 const std::vector<memory::KernelUse> &uses) {
  std::map<std::string, std::int64_t> used_bytes;
  for (const memory::KernelUse &u : uses)
    for (const memory::KernelArg &a : u.args)
      if (!a.tensor.empty()) used_bytes[a.tensor] = a.bytes;
  return [used_bytes = std::move(used_bytes), &compiled, &concrete](const std::string &tensor) {
    auto it = used_bytes.find(tensor);
    return it != used_bytes.end() ? it->second : graph_tensor_bytes(compiled, concrete, tensor);
  };
}

bool zero_before_first_use(const CompiledGraph &compiled, const memory::MemoryPlan &plan,
                           const std::vector<memory::KernelUse> &uses, std::size_t b) {
  const memory::Buffer &buf = plan.buffers[b];
  if (buf.temporary) return true;
  for (const auto &[tensor, alias] : plan.alias_of)
    if (alias.base == buf.name) return true;
  const std::size_t k = static_cast<std::size_t>(buf.first);
  if (k >= uses.size() || k >= compiled.clusters.size()) return true;
  for (const memory::KernelArg &a : uses[k].args)
    if (a.tensor == buf.name && a.access == memory::KernelArg::Access::Write && a.bytes == buf.bytes)
      return !compiled.clusters[k].written_first.count(a.array);
  return true;
}

memory::MemoryPlan plan_memory(const CompiledGraph &compiled, const Graph &concrete,
                               const std::map<std::string, std::int64_t> &params) {
  std::set<std::string> external(concrete.inputs.begin(), concrete.inputs.end());
  external.insert(concrete.weights.begin(), concrete.weights.end());
  external.insert(concrete.outputs.begin(), concrete.outputs.end());
  for (const auto &[name, t] : compiled.constants) external.insert(name);
  std::vector<memory::KernelUse> uses = kernel_uses(compiled, params);
  WeightPhase once = weight_phase_of(compiled, concrete, uses);
  for (const auto &[t, bytes] : once.tensors) external.insert(t);
  auto is_external = [&](const std::string &t) {
    return external.count(t) || (concrete.has_tensor(t) && concrete.tensor(t).role != TensorRole::Intermediate);
  };
  auto tensor_bytes = [&](const std::string &tensor) { return graph_tensor_bytes(compiled, concrete, tensor); };
  memory::MemoryPlan plan = memory::plan_arena(uses, compiled.aliases, is_external, tensor_bytes);
  // The traffic of a call: the weight phase runs once per weight binding.
  std::vector<memory::KernelUse> per_call;
  for (std::size_t k = 0; k < uses.size(); ++k)
    if (!once.kernel[k]) per_call.push_back(uses[k]);
  plan.bytes_moved = memory::bytes_moved(per_call);
  return plan;
}

std::map<std::string, Tensor> run_compiled(const CompiledGraph &compiled, const Graph &concrete,
                                           const std::map<std::string, Tensor> &feeds,
                                           const std::map<std::string, std::int64_t> &params, int repeat,
                                           std::vector<double> *times_ms,
                                           std::vector<std::vector<double>> *kernel_ms, double *weight_ms) {
  // Inputs, weights and constants: their own buffers, never written.
  std::map<std::string, AlignedBytes> buffers;
  auto aligned = [](const std::vector<unsigned char> &raw) { return AlignedBytes(raw.begin(), raw.end()); };
  for (const auto &[name, t] : feeds) buffers[name] = aligned(to_raw(t));
  for (const auto &[name, t] : compiled.constants)
    if (!buffers.count(name)) buffers[name] = aligned(to_raw(t));
  // Every intermediate buffer and temporary: one arena, planned at these parameters.
  std::vector<memory::KernelUse> uses = kernel_uses(compiled, params);
  // Sizes as the kernels see them (a tensor a pass made is not in `concrete`).
  const auto tensor_bytes = tensor_bytes_of(compiled, concrete, uses);
  memory::MemoryPlan plan = plan_memory(compiled, concrete, params);
  Arena arena(plan.peak_bytes());
  WeightPhase once = weight_phase_of(compiled, concrete, uses);
  // Graph outputs (and bases that outputs view): own buffers, zeroed before
  // each run. The weight phase's tensors: own buffers, written once.
  std::vector<AlignedBytes *> zeroed;
  auto storage = [&](const std::string &tensor) -> unsigned char * {
    if (std::optional<std::int64_t> off = plan.offset_of(tensor)) return arena.data() + *off;
    std::string base = tensor;
    std::size_t offset = 0;
    if (auto a = plan.alias_of.find(tensor); a != plan.alias_of.end()) {
      base = a->second.base;
      offset = static_cast<std::size_t>(a->second.byte_offset);
    }
    auto [it, fresh] = buffers.try_emplace(base);
    if (fresh) {
      it->second.assign(static_cast<std::size_t>(tensor_bytes(base)), 0);
      if (!once.tensors.count(base)) zeroed.push_back(&it->second);
    }
    ATOLL_ASSERT(offset + static_cast<std::size_t>(tensor_bytes(tensor)) <= it->second.size(),
                 "buffer size mismatch for tensor " + tensor);
    return it->second.data() + offset;
  };

  // Kernels start from zero-filled outputs and temporaries (`op=` reduces
  // into the current value): every arena buffer is cleared just before the
  // kernel that first uses it, since its bytes may hold an earlier buffer's.
  struct Call {
    std::vector<void *> arrays;
    std::vector<std::int64_t> params;
    std::vector<std::pair<unsigned char *, std::size_t>> clear;
  };
  std::vector<Call> calls(compiled.clusters.size());
  for (std::size_t b = 0; b < plan.buffers.size(); ++b)
    if (zero_before_first_use(compiled, plan, uses, b))
      calls[static_cast<std::size_t>(plan.buffers[b].first)].clear.emplace_back(
          arena.data() + plan.layout.offsets[b], static_cast<std::size_t>(plan.buffers[b].bytes));
  for (std::size_t k = 0; k < compiled.clusters.size(); ++k) {
    const poly::ClusterResult &c = compiled.clusters[k];
    Call &call = calls[k];
    for (const memory::KernelArg &arg : uses[k].args) {
      if (arg.access == memory::KernelArg::Access::Temporary) {
        std::optional<std::int64_t> off = plan.temporary_offset(uses[k].name, arg.array);
        ATOLL_ASSERT(off.has_value(), "no arena place for temporary " + arg.array);
        call.arrays.push_back(arena.data() + *off);
      } else {
        call.arrays.push_back(storage(arg.tensor));
      }
    }
    for (const std::string &p : c.kernel.params) {
      auto it = params.find(p);
      ATOLL_ASSERT(it != params.end(), "no value for kernel parameter " + p);
      call.params.push_back(it->second);
    }
  }
  std::vector<const unsigned char *> outputs;
  for (const std::string &o : concrete.outputs) outputs.push_back(storage(o));
  if (kernel_ms) kernel_ms->assign(calls.size(), {});
  auto call = [&](std::size_t i) {
    for (const auto &[p, bytes] : calls[i].clear) std::memset(p, 0, bytes);
    auto t0 = Clock::now();
    compiled.functions[i](calls[i].arrays.data(), calls[i].params.data());
    return ms_since(t0);
  };
  // The weight phase, once for these weights.
  double once_ms = 0;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (!once.kernel[i]) continue;
    double ms = call(i);
    once_ms += ms;
    if (kernel_ms) (*kernel_ms)[i].push_back(ms);
  }
  if (weight_ms) *weight_ms = once_ms;
  for (int run = 0; run <= repeat; ++run) {
    if (run > 0)
      for (auto *b : zeroed) std::memset(b->data(), 0, b->size());
    double total_ms = 0;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (once.kernel[i]) continue;
      double ms = call(i);
      total_ms += ms;
      if (run > 0 && kernel_ms) (*kernel_ms)[i].push_back(ms);
    }
    if (run > 0 && times_ms) times_ms->push_back(total_ms);
  }
  std::map<std::string, Tensor> out;
  for (std::size_t i = 0; i < concrete.outputs.size(); ++i) {
    const std::string &o = concrete.outputs[i];
    const TensorDecl &d = concrete.tensor(o);
    const unsigned char *p = outputs[i];
    out[o] = from_raw(std::vector<unsigned char>(p, p + tensor_bytes(o)), d.type.dtype, concrete_shape(d.type.shape));
  }
  return out;
}

}  // namespace atl
