// Cube and fix-pipe intrinsics: npu_mmad (f16/bf16/f32/i8 type rows, NZ operands) and npu_fix (conversion, ReLU, NZ2ND).
#include <cstring>
#include <string>
#include <vector>

#include <atoll/dtype.h>

#include "backends/npu/context.h"

using namespace atl::npu;

namespace {

/// f16 -> float for all 65536 bit patterns (the cube decodes many operands).
const std::vector<float> &half_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (uint32_t h = 0; h < 65536; ++h) t[h] = atl::half_to_float(static_cast<uint16_t>(h));
    return t;
  }();
  return table;
}

/// Offset (in elements) of (r, q) in an NZ matrix with `rows` rows.
inline uint64_t nz_index(uint64_t r, uint64_t q, uint64_t rows) {
  return ((q / 16) * (rows / 16) + r / 16) * 256 + (r % 16) * 16 + q % 16;
}

/// Decodes an NZ matrix into row-major floats.
void decode_float(const uint8_t *p, npu_dtype t, uint64_t rows, uint64_t cols, std::vector<float> &out) {
  out.resize(rows * cols);
  const std::vector<float> &ht = half_table();
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t q = 0; q < cols; ++q) {
      const uint8_t *e = p + nz_index(r, q, rows) * dtype_bytes(t);
      float v;
      if (t == NPU_F16) {
        uint16_t h;
        std::memcpy(&h, e, 2);
        v = ht[h];
      } else if (t == NPU_BF16) {
        uint16_t h;
        std::memcpy(&h, e, 2);
        v = atl::bfloat_to_float(h);
      } else {
        std::memcpy(&v, e, 4);
      }
      out[r * cols + q] = v;
    }
}

void decode_int(const uint8_t *p, npu_dtype t, uint64_t rows, uint64_t cols, std::vector<uint32_t> &out) {
  out.resize(rows * cols);
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t q = 0; q < cols; ++q) {
      const uint8_t *e = p + nz_index(r, q, rows) * dtype_bytes(t);
      int32_t v;
      if (t == NPU_I8)
        v = static_cast<int8_t>(*e);
      else
        std::memcpy(&v, e, 4);
      out[r * cols + q] = static_cast<uint32_t>(v);
    }
}

template <class T>
void gemm_rows(const std::vector<T> &A, const std::vector<T> &B, std::vector<T> &C, uint64_t m, uint64_t n, uint64_t k) {
  // Fixed order: C[i][j] accumulates k = 0, 1, ... in sequence.
  for (uint64_t i = 0; i < m; ++i) {
    T *c = C.data() + i * n;
    for (uint64_t kk = 0; kk < k; ++kk) {
      const T a = A[i * k + kk];
      const T *b = B.data() + kk * n;
      for (uint64_t j = 0; j < n; ++j) c[j] += a * b[j];
    }
  }
}

}  // namespace

extern "C" {

void npu_mmad(npu_ctx_t *c, npu_addr cc, npu_addr a, npu_addr b, uint32_t m, uint32_t n, uint32_t k, npu_dtype ab,
              npu_dtype acc, npu_init init, npu_addr bias) {
  const char *call = "npu_mmad";
  if (dead(c)) return;
  const Target &t = target(c);
  if (cc.mem != NPU_L0C || a.mem != NPU_L0A || b.mem != NPU_L0B)
    return fail(c, call, "operands must be C in L0C, A in L0A, B in L0B");
  if (!valid_dtype(ab) || !valid_dtype(acc)) return fail(c, call, "invalid dtype");
  const CubeType *row = t.cube_type(ab, acc);
  if (!row)
    return fail(c, call, std::string("no cube type row (") + dtype_name(ab) + ", " + dtype_name(ab) + ", " +
                             dtype_name(acc) + ") in target '" + t.name + "'");
  if (!m || !n || !k || m % t.cube.m || n % t.cube.n || k % t.cube.k)
    return fail(c, call, "m, n, k = " + std::to_string(m) + ", " + std::to_string(n) + ", " + std::to_string(k) +
                             " must be positive multiples of the cube shape " + std::to_string(t.cube.m) + "x" +
                             std::to_string(t.cube.n) + "x" + std::to_string(t.cube.k));
  if (init != NPU_ZERO && init != NPU_ACCUM && init != NPU_BIAS) return fail(c, call, "invalid init");
  uint64_t eb = dtype_bytes(ab), ceb = dtype_bytes(acc);
  if (!check_span(c, call, "A", a, uint64_t(m) * k * eb) || !check_span(c, call, "B", b, uint64_t(k) * n * eb) ||
      !check_span(c, call, "C", cc, uint64_t(m) * n * ceb))
    return;
  if (init == NPU_BIAS) {
    if (bias.mem != NPU_L0C) return fail(c, call, "bias must be in L0C");
    if (!check_span(c, call, "bias", bias, uint64_t(n) * ceb)) return;
  }
  Instr &i = record(c, NPU_CUBE, call, std::string("mmad ") + dtype_name(ab));
  add_range(i.reads, a, 0, uint64_t(m) * k * eb);
  add_range(i.reads, b, 0, uint64_t(k) * n * eb);
  if (init == NPU_ACCUM) add_range(i.reads, cc, 0, uint64_t(m) * n * ceb);
  if (init == NPU_BIAS) add_range(i.reads, bias, 0, uint64_t(n) * ceb);
  add_range(i.writes, cc, 0, uint64_t(m) * n * ceb);
  normalize(i.reads);
  i.steps = uint64_t(m / t.cube.m) * (n / t.cube.n) * (k / t.cube.k);
  i.cycles_per_step = row->cycles;
  if (!c->launch->cube_arithmetic) return;

  uint8_t *cp = host_ptr(c, cc);
  bool is_int = ab == NPU_I8 || ab == NPU_I32;
  if (is_int) {
    std::vector<uint32_t> A, B, C(uint64_t(m) * n, 0), bias_row;
    decode_int(host_ptr(c, a), ab, m, k, A);
    decode_int(host_ptr(c, b), ab, k, n, B);
    if (init == NPU_ACCUM) decode_int(cp, acc, m, n, C);
    if (init == NPU_BIAS)
      for (uint64_t r = 0; r < m; ++r)
        for (uint64_t q = 0; q < n; ++q) C[r * n + q] = static_cast<uint32_t>(static_cast<int64_t>(load_value(host_ptr(c, bias, q * ceb), acc)));
    gemm_rows(A, B, C, m, n, k);  // uint32 arithmetic: the int32 wrap-around, bit-exact
    for (uint64_t r = 0; r < m; ++r)
      for (uint64_t q = 0; q < n; ++q) {
        uint8_t *e = cp + nz_index(r, q, m) * ceb;
        if (acc == NPU_I32) std::memcpy(e, &C[r * n + q], 4);
        else store_value(e, acc, static_cast<int32_t>(C[r * n + q]));
      }
    return;
  }
  std::vector<float> A, B, C(uint64_t(m) * n, 0.0f);
  decode_float(host_ptr(c, a), ab, m, k, A);
  decode_float(host_ptr(c, b), ab, k, n, B);
  if (init == NPU_ACCUM) decode_float(cp, acc, m, n, C);
  if (init == NPU_BIAS)
    for (uint64_t r = 0; r < m; ++r)
      for (uint64_t q = 0; q < n; ++q) C[r * n + q] = static_cast<float>(load_value(host_ptr(c, bias, q * ceb), acc));
  gemm_rows(A, B, C, m, n, k);  // products and sums in f32 (f16 x f16 products are exact in f32)
  for (uint64_t r = 0; r < m; ++r)
    for (uint64_t q = 0; q < n; ++q) {
      uint8_t *e = cp + nz_index(r, q, m) * ceb;
      if (acc == NPU_F32) std::memcpy(e, &C[r * n + q], 4);
      else store_value(e, acc, C[r * n + q]);
    }
}

void npu_fix(npu_ctx_t *c, npu_addr dst, npu_addr src, uint32_t m, uint32_t n, npu_dtype acc, npu_dtype to, int relu,
             npu_layout layout, uint32_t dst_row_bytes) {
  const char *call = "npu_fix";
  if (dead(c)) return;
  if (src.mem != NPU_L0C) return fail(c, call, std::string("source must be L0C, not ") + mem_name(src.mem));
  if (dst.mem < NPU_GM || dst.mem > NPU_UB) return fail(c, call, "invalid memory");
  int pipe = target(c).path_owner(src.mem, dst.mem);
  if (pipe < 0) return fail(c, call, std::string("illegal path L0C>") + mem_name(dst.mem) + ": no pipe owns it");
  if (!valid_dtype(acc) || !valid_dtype(to)) return fail(c, call, "invalid dtype");
  if (acc != NPU_F32 && acc != NPU_I32) return fail(c, call, "the accumulator type must be f32 or i32");
  if (!m || !n || m % 16 || n % 16) return fail(c, call, "m and n must be positive multiples of 16");
  uint64_t ceb = dtype_bytes(acc), teb = dtype_bytes(to);
  uint64_t d_hull;
  if (layout == NPU_NZ2ND) {
    if (dst_row_bytes < n * teb) return fail(c, call, "dst_row_bytes " + std::to_string(dst_row_bytes) + " is less than a row (" + std::to_string(n * teb) + " bytes)");
    if (dst.mem != NPU_GM && dst_row_bytes % 32) return fail(c, call, "dst_row_bytes is not a multiple of 32 bytes (on-chip destination)");
    d_hull = uint64_t(m - 1) * dst_row_bytes + n * teb;
  } else if (layout == NPU_ND) {
    d_hull = uint64_t(m) * n * teb;
  } else {
    return fail(c, call, "layout must be NPU_ND (keep NZ) or NPU_NZ2ND");
  }
  if (!check_span(c, call, "source", src, uint64_t(m) * n * ceb) || !check_span(c, call, "destination", dst, d_hull)) return;
  Instr &i = record(c, static_cast<npu_pipe>(pipe), call, std::string("fix ") + dtype_name(acc) + ">" + dtype_name(to) + (relu ? " relu" : ""));
  i.path_src = src.mem;
  i.path_dst = dst.mem;
  i.gm_shared = (pipe == NPU_MTE2 || pipe == NPU_MTE3) && dst.mem == NPU_GM;
  add_range(i.reads, src, 0, uint64_t(m) * n * ceb);
  const uint8_t *sp = host_ptr(c, src);
  for (uint64_t r = 0; r < m; ++r) {
    for (uint64_t q = 0; q < n; ++q) {
      double v = load_value(sp + nz_index(r, q, m) * ceb, acc);
      if (relu && v < 0) v = 0;
      uint64_t off = layout == NPU_NZ2ND ? r * dst_row_bytes + q * teb : nz_index(r, q, m) * teb;
      store_value(host_ptr(c, dst, off), to, v);
    }
    if (layout == NPU_NZ2ND) add_range(i.writes, dst, r * dst_row_bytes, r * dst_row_bytes + n * teb);
  }
  if (layout == NPU_ND) add_range(i.writes, dst, 0, d_hull);
  i.bytes = uint64_t(m) * n * teb;
  i.n_burst = layout == NPU_NZ2ND ? m : 1;
}

}  // extern "C"
