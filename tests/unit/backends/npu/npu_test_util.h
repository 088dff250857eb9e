// Helpers for the NPU tests: data packing (f16, NZ), deterministic random data, and the sample GEMM runner.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <atoll/dtype.h>

#include "backends/npu/kernels/sample_gemm.h"
#include "backends/npu/launcher.h"

namespace npu_test {

using namespace atl::npu;

/// Deterministic values in [lo, hi), rounded to `t`.
inline std::vector<double> random_values(size_t n, uint64_t seed, double lo, double hi, npu_dtype t) {
  std::vector<double> v(n);
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (double &x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double u = static_cast<double>(s >> 11) / 9007199254740992.0;
    x = lo + (hi - lo) * u;
    if (t == NPU_I8 || t == NPU_I32) x = std::floor(x);
    else if (t == NPU_F16) x = atl::round_to(atl::DType::F16, x);
    else x = static_cast<float>(x);
  }
  return v;
}

/// Element values as bytes of type t.
inline std::vector<uint8_t> encode(const std::vector<double> &v, npu_dtype t) {
  uint32_t eb = dtype_bytes(t);
  std::vector<uint8_t> out(v.size() * eb);
  for (size_t i = 0; i < v.size(); ++i) {
    uint8_t *p = out.data() + i * eb;
    if (t == NPU_F16) { uint16_t h = atl::float_to_half(static_cast<float>(v[i])); std::memcpy(p, &h, 2); }
    else if (t == NPU_F32) { float f = static_cast<float>(v[i]); std::memcpy(p, &f, 4); }
    else if (t == NPU_I8) { *p = static_cast<uint8_t>(static_cast<int8_t>(v[i])); }
    else if (t == NPU_I32) { int32_t x = static_cast<int32_t>(v[i]); std::memcpy(p, &x, 4); }
  }
  return out;
}

inline std::vector<double> decode(const std::vector<uint8_t> &b, npu_dtype t) {
  uint32_t eb = dtype_bytes(t);
  std::vector<double> v(b.size() / eb);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint8_t *p = b.data() + i * eb;
    if (t == NPU_F16) { uint16_t h; std::memcpy(&h, p, 2); v[i] = atl::half_to_float(h); }
    else if (t == NPU_F32) { float f; std::memcpy(&f, p, 4); v[i] = f; }
    else if (t == NPU_I8) { v[i] = static_cast<int8_t>(*p); }
    else if (t == NPU_I32) { int32_t x; std::memcpy(&x, p, 4); v[i] = x; }
  }
  return v;
}

/// Row-major rows x cols -> NZ order (fractal (i, j) at j * rows/16 + i).
inline std::vector<double> to_nz(const std::vector<double> &m, size_t rows, size_t cols) {
  std::vector<double> out(rows * cols);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      out[((c / 16) * (rows / 16) + r / 16) * 256 + (r % 16) * 16 + c % 16] = m[r * cols + c];
  return out;
}

struct GemmData {
  std::vector<double> A, B;
};

inline GemmData gemm_data(const npu_gemm_params &p, uint64_t seed) {
  double lo = p.ab == NPU_I8 ? -128 : -1, hi = p.ab == NPU_I8 ? 128 : 1;
  return {random_values(size_t(p.M) * p.K, seed, lo, hi, p.ab), random_values(size_t(p.K) * p.N, seed + 1, lo, hi, p.ab)};
}

inline RunResult run_gemm(const Target &t, const npu_gemm_params &p, const GemmData &d, Mode mode,
                          const RunOptions &o = {}) {
  std::vector<HostBuffer> args(4);
  args[0].bytes = encode(p.nz_gm ? to_nz(d.A, p.M, p.K) : d.A, p.ab);
  args[1].bytes = encode(p.nz_gm ? to_nz(d.B, p.K, p.N) : d.B, p.ab);
  args[2] = HostBuffer(size_t(p.M) * p.N * dtype_bytes(p.out));
  args[3] = HostBuffer::of(std::vector<npu_gemm_params>{p});
  return run_kernel(t, npu_sample_gemm, std::move(args), mode, o);
}

/// The reference C = A * B in double, and sum |a| |b| per element (for error bounds).
inline void gemm_reference(const npu_gemm_params &p, const GemmData &d, std::vector<double> &C, std::vector<double> &absC) {
  C.assign(size_t(p.M) * p.N, 0);
  absC.assign(size_t(p.M) * p.N, 0);
  for (size_t i = 0; i < p.M; ++i)
    for (size_t k = 0; k < p.K; ++k)
      for (size_t j = 0; j < p.N; ++j) {
        double x = d.A[i * p.K + k] * d.B[k * p.N + j];
        C[i * p.N + j] += x;
        absC[i * p.N + j] += std::fabs(x);
      }
}

inline size_t count_kind(const RunResult &r, uint32_t core, SyncKind k) {
  size_t n = 0;
  for (const Instr &i : r.traces.at(core).instrs) n += i.sync == k;
  return n;
}

}  // namespace npu_test
