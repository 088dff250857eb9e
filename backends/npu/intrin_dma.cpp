// DMA intrinsics: npu_copy (ND, ND2NZ, NZ2ND), npu_load_l0 and npu_img2col, with their validity checks.
#include <algorithm>
#include <cstring>
#include <string>

#include "backends/npu/context.h"

using namespace atl::npu;

namespace {

uint64_t ceil16(uint64_t v) { return (v + 15) / 16 * 16; }

bool valid_mem(int m) { return m >= NPU_GM && m <= NPU_UB; }

std::string legal_paths(const Target &t) {
  std::string s;
  for (int p = 0; p < kNumPipes; ++p)
    for (auto &pr : t.pipes[p].paths) s += std::string(s.empty() ? "" : " ") + mem_name(pr.first) + ">" + mem_name(pr.second);
  return s;
}

/// The pipe owning src>dst, or fails the call with the illegal-path message.
int owner_or_fail(npu_ctx *c, const char *call, npu_mem src, npu_mem dst) {
  if (!valid_mem(src) || !valid_mem(dst)) {
    fail(c, call, "invalid memory");
    return -1;
  }
  int p = target(c).path_owner(src, dst);
  if (p < 0)
    fail(c, call, std::string("illegal path ") + mem_name(src) + ">" + mem_name(dst) +
                      ": no pipe owns it (legal paths: " + legal_paths(target(c)) + ")");
  return p;
}

Instr &record_dma(npu_ctx *c, int pipe, const char *call, const char *what, npu_mem src, npu_mem dst) {
  Instr &i = record(c, static_cast<npu_pipe>(pipe), call,
                    std::string(what) + " " + mem_name(src) + ">" + mem_name(dst));
  i.path_src = src;
  i.path_dst = dst;
  i.gm_shared = (pipe == NPU_MTE2 || pipe == NPU_MTE3) && (src == NPU_GM || dst == NPU_GM);
  return i;
}

bool check_block_multiple(npu_ctx *c, const char *call, npu_mem m, const char *what, uint64_t v) {
  if (m != NPU_GM && v % 32) {
    fail(c, call, std::string(what) + " " + std::to_string(v) + " is not a multiple of 32 bytes (on-chip side " +
                      mem_name(m) + ")");
    return false;
  }
  return true;
}

}  // namespace

extern "C" {

void npu_copy(npu_ctx_t *c, npu_addr dst, npu_addr src, uint32_t n_burst, uint32_t burst_bytes, uint32_t src_gap,
              uint32_t dst_gap, npu_layout layout, uint32_t rows, uint32_t cols, uint32_t elem_bytes) {
  const char *call = "npu_copy";
  if (dead(c)) return;
  int pipe = owner_or_fail(c, call, src.mem, dst.mem);
  if (pipe < 0) return;
  if (layout == NPU_ND) {
    if (n_burst == 0 || burst_bytes == 0) return fail(c, call, "n_burst and burst_bytes must be positive");
    if (!check_block_multiple(c, call, src.mem, "burst_bytes", burst_bytes) ||
        !check_block_multiple(c, call, dst.mem, "burst_bytes", burst_bytes) ||
        !check_block_multiple(c, call, src.mem, "src_gap", src_gap) ||
        !check_block_multiple(c, call, dst.mem, "dst_gap", dst_gap))
      return;
    uint64_t s_pitch = uint64_t(burst_bytes) + src_gap, d_pitch = uint64_t(burst_bytes) + dst_gap;
    uint64_t s_hull = (n_burst - 1) * s_pitch + burst_bytes, d_hull = (n_burst - 1) * d_pitch + burst_bytes;
    if (!check_span(c, call, "source", src, s_hull) || !check_span(c, call, "destination", dst, d_hull)) return;
    Instr &i = record_dma(c, pipe, call, "copy", src.mem, dst.mem);
    for (uint64_t r = 0; r < n_burst; ++r) {
      std::memcpy(host_ptr(c, dst, r * d_pitch), host_ptr(c, src, r * s_pitch), burst_bytes);
      add_range(i.reads, src, r * s_pitch, r * s_pitch + burst_bytes);
      add_range(i.writes, dst, r * d_pitch, r * d_pitch + burst_bytes);
    }
    i.bytes = uint64_t(n_burst) * burst_bytes;
    i.n_burst = n_burst;
    return;
  }
  if (layout != NPU_ND2NZ && layout != NPU_NZ2ND) return fail(c, call, "invalid layout");
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4) return fail(c, call, "elem_bytes must be 1, 2 or 4");
  if (rows == 0 || cols == 0) return fail(c, call, "rows and cols must be positive");
  if (n_burst != rows || burst_bytes != uint64_t(cols) * elem_bytes)
    return fail(c, call, "ND2NZ/NZ2ND need n_burst == rows and burst_bytes == cols * elem_bytes");
  uint64_t R = ceil16(rows), C = ceil16(cols), eb = elem_bytes, fb = 256 * eb, rb = R / 16;
  uint64_t nz_bytes = R * C * eb;
  auto nz_off = [&](uint64_t r, uint64_t col) { return ((col / 16) * rb + r / 16) * fb + ((r % 16) * 16 + col % 16) * eb; };
  if (layout == NPU_ND2NZ) {
    if (dst_gap != 0) return fail(c, call, "ND2NZ needs dst_gap == 0 (the NZ destination is contiguous)");
    uint64_t pitch = uint64_t(cols) * eb + src_gap, s_hull = (rows - 1) * pitch + cols * eb;
    if (!check_span(c, call, "source", src, s_hull) || !check_span(c, call, "destination", dst, nz_bytes)) return;
    Instr &i = record_dma(c, pipe, call, "copy nd2nz", src.mem, dst.mem);
    std::memset(host_ptr(c, dst), 0, nz_bytes);
    for (uint64_t r = 0; r < rows; ++r) {
      for (uint64_t j = 0; j < cols; j += 16) {
        uint64_t n = std::min<uint64_t>(16, cols - j) * eb;
        std::memcpy(host_ptr(c, dst, nz_off(r, j)), host_ptr(c, src, r * pitch + j * eb), n);
      }
      add_range(i.reads, src, r * pitch, r * pitch + cols * eb);
    }
    add_range(i.writes, dst, 0, nz_bytes);
    i.bytes = uint64_t(rows) * cols * eb;
    i.n_burst = rows;
  } else {
    if (src_gap != 0) return fail(c, call, "NZ2ND needs src_gap == 0 (the NZ source is contiguous)");
    uint64_t pitch = uint64_t(cols) * eb + dst_gap, d_hull = (rows - 1) * pitch + cols * eb;
    if (!check_span(c, call, "source", src, nz_bytes) || !check_span(c, call, "destination", dst, d_hull)) return;
    Instr &i = record_dma(c, pipe, call, "copy nz2nd", src.mem, dst.mem);
    for (uint64_t r = 0; r < rows; ++r) {
      for (uint64_t j = 0; j < cols; j += 16) {
        uint64_t n = std::min<uint64_t>(16, cols - j) * eb;
        std::memcpy(host_ptr(c, dst, r * pitch + j * eb), host_ptr(c, src, nz_off(r, j)), n);
        i.reads.push_back({src.mem, src.off + nz_off(r, j), src.off + nz_off(r, j) + n});
      }
      add_range(i.writes, dst, r * pitch, r * pitch + cols * eb);
    }
    normalize(i.reads);
    i.bytes = uint64_t(rows) * cols * eb;
    i.n_burst = rows;
  }
}

void npu_load_l0(npu_ctx_t *c, npu_addr dst, npu_addr src, uint32_t n_frac, uint32_t frac_stride, int transpose,
                 npu_dtype dt) {
  const char *call = "npu_load_l0";
  if (dead(c)) return;
  if (src.mem != NPU_L1) return fail(c, call, std::string("source must be L1, not ") + mem_name(src.mem));
  if (dst.mem != NPU_L0A && dst.mem != NPU_L0B)
    return fail(c, call, std::string("destination must be L0A or L0B, not ") + mem_name(dst.mem));
  int pipe = owner_or_fail(c, call, src.mem, dst.mem);
  if (pipe < 0) return;
  if (!valid_dtype(dt)) return fail(c, call, "invalid dtype");
  if (n_frac == 0 || frac_stride == 0) return fail(c, call, "n_frac and frac_stride must be positive");
  uint64_t eb = dtype_bytes(dt), fb = 256 * eb;
  if (!check_span(c, call, "source", src, (uint64_t(n_frac - 1) * frac_stride + 1) * fb) ||
      !check_span(c, call, "destination", dst, n_frac * fb))
    return;
  Instr &i = record_dma(c, pipe, call, transpose ? "load_l0 T" : "load_l0", src.mem, dst.mem);
  for (uint64_t f = 0; f < n_frac; ++f) {
    uint8_t *d = host_ptr(c, dst, f * fb);
    const uint8_t *s = host_ptr(c, src, f * frac_stride * fb);
    if (!transpose) {
      std::memcpy(d, s, fb);
    } else {
      for (int r = 0; r < 16; ++r)
        for (int q = 0; q < 16; ++q) std::memcpy(d + (q * 16 + r) * eb, s + (r * 16 + q) * eb, eb);
    }
    add_range(i.reads, src, f * frac_stride * fb, f * frac_stride * fb + fb);
  }
  add_range(i.writes, dst, 0, n_frac * fb);
  i.bytes = n_frac * fb;
}

void npu_img2col(npu_ctx_t *c, npu_addr dst, npu_addr src, uint32_t H, uint32_t W, uint32_t kh, uint32_t kw,
                 uint32_t sh, uint32_t sw, uint32_t ph, uint32_t pw, uint32_t dh, uint32_t dw, uint32_t first_pixel,
                 uint32_t n_pixels, npu_dtype dt) {
  const char *call = "npu_img2col";
  if (dead(c)) return;
  if (src.mem != NPU_L1) return fail(c, call, std::string("source must be L1, not ") + mem_name(src.mem));
  if (dst.mem != NPU_L0A) return fail(c, call, std::string("destination must be L0A, not ") + mem_name(dst.mem));
  int pipe = owner_or_fail(c, call, src.mem, dst.mem);
  if (pipe < 0) return;
  if (!valid_dtype(dt)) return fail(c, call, "invalid dtype");
  if (!H || !W || !kh || !kw || !sh || !sw || !dh || !dw) return fail(c, call, "H, W, kernel, stride and dilation must be positive");
  if (n_pixels == 0 || n_pixels % 16) return fail(c, call, "n_pixels " + std::to_string(n_pixels) + " must be a positive multiple of 16");
  int64_t OH = (int64_t(H) + 2 * ph - int64_t(dh) * (kh - 1) - 1) / sh + 1;
  int64_t OW = (int64_t(W) + 2 * pw - int64_t(dw) * (kw - 1) - 1) / sw + 1;
  if (int64_t(H) + 2 * ph < int64_t(dh) * (kh - 1) + 1 || int64_t(W) + 2 * pw < int64_t(dw) * (kw - 1) + 1)
    return fail(c, call, "the kernel does not fit the padded input");
  uint64_t eb = dtype_bytes(dt), px = 16 * eb, cols = uint64_t(kh) * kw;
  uint64_t dst_bytes = uint64_t(n_pixels) * cols * px;
  if (!check_span(c, call, "source", src, uint64_t(H) * W * px) || !check_span(c, call, "destination", dst, dst_bytes)) return;
  Instr &i = record_dma(c, pipe, call, "img2col", src.mem, dst.mem);
  std::memset(host_ptr(c, dst), 0, dst_bytes);
  uint64_t rb = n_pixels / 16;
  for (uint64_t ky = 0; ky < kh; ++ky)
    for (uint64_t kx = 0; kx < kw; ++kx) {
      uint64_t j = ky * kw + kx;
      for (uint64_t p = 0; p < n_pixels; ++p) {
        int64_t pix = int64_t(first_pixel) + int64_t(p);
        if (pix >= OH * OW) break;
        int64_t ih = (pix / OW) * sh - ph + int64_t(ky) * dh, iw = (pix % OW) * sw - pw + int64_t(kx) * dw;
        if (ih < 0 || iw < 0 || ih >= H || iw >= W) continue;
        uint64_t so = (uint64_t(ih) * W + uint64_t(iw)) * px;
        std::memcpy(host_ptr(c, dst, ((j * rb + p / 16) * 256 + (p % 16) * 16) * eb), host_ptr(c, src, so), px);
        i.reads.push_back({src.mem, src.off + so, src.off + so + px});
      }
    }
  normalize(i.reads);
  add_range(i.writes, dst, 0, dst_bytes);
  i.bytes = dst_bytes;
}

}  // extern "C"
