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
