// Runs a compiled graph's kernels on host buffers converted from tensors.
#include "src/pipeline/compile_graph.h"

#include <chrono>
#include <cstring>

namespace atl {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
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

std::map<std::string, Tensor> run_compiled(const CompiledGraph &compiled, const Graph &concrete,
                                           const std::map<std::string, Tensor> &feeds,
                                           const std::map<std::string, std::int64_t> &params, int repeat,
                                           std::vector<double> *times_ms) {
  std::map<std::string, std::vector<unsigned char>> buffers;
  for (const auto &[name, t] : feeds) buffers[name] = to_raw(t);
  for (const auto &[name, t] : compiled.constants)
    if (!buffers.count(name)) buffers[name] = to_raw(t);
  std::map<std::string, const memory::TensorAlias *> alias_of;
  for (const memory::TensorAlias &a : compiled.aliases) alias_of[a.tensor] = &a;
  std::vector<std::vector<unsigned char> *> zeroed;  // outputs and temporaries: zero before each run

  // The storage of a graph tensor: its own buffer, or a place in its alias base.
  auto tensor_bytes = [&](const std::string &tensor) {
    const TensorDecl &d = concrete.tensor(tensor);
    return static_cast<std::size_t>(shape_numel(concrete_shape(d.type.shape))) * dtype_size(d.type.dtype);
  };
  auto storage = [&](const std::string &tensor, std::size_t bytes) -> unsigned char * {
    std::string base = tensor;
    std::size_t offset = 0;
    if (auto a = alias_of.find(tensor); a != alias_of.end()) {
      base = a->second->base;
      offset = static_cast<std::size_t>(a->second->byte_offset);
    }
    auto [it, fresh] = buffers.try_emplace(base);
    if (fresh) {
      it->second.assign(base == tensor ? bytes : tensor_bytes(base), 0);
      zeroed.push_back(&it->second);
    }
    ATOLL_ASSERT(offset + bytes <= it->second.size(), "buffer size mismatch for tensor " + tensor);
    return it->second.data() + offset;
  };

  struct Call {
    std::vector<void *> arrays;
    std::vector<std::int64_t> params;
  };
  std::vector<Call> calls;
  std::vector<std::vector<unsigned char>> temporaries;
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
      if (t != tensor_of.end()) {
        call.arrays.push_back(storage(t->second, bytes));
      } else {
        temporaries.emplace_back(bytes, 0);
        zeroed.push_back(&temporaries.back());
        call.arrays.push_back(temporaries.back().data());
      }
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
    std::size_t bytes = tensor_bytes(o);
    const unsigned char *p = storage(o, bytes);
    out[o] = from_raw(std::vector<unsigned char>(p, p + bytes), d.type.dtype, concrete_shape(d.type.shape));
  }
  return out;
}

}  // namespace atl
