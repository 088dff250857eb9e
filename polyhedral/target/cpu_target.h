// Target description of a CPU for the cost model: cache sizes, vector width, registers, cores.
#pragma once

#include <string>

namespace atl::poly {

/// What the cost model knows about a CPU. Detected on the host by
/// detect_host_target(); every field may be overridden (tests, cross builds).
struct CpuTarget {
  long l1_bytes = 32 * 1024;         ///< L1 data cache per core
  long l2_bytes = 1024 * 1024;       ///< L2 per core
  long l3_bytes = 32 * 1024 * 1024;  ///< last-level cache (shared)
  int vector_lanes = 16;             ///< f32 lanes of one vector register (AVX-512: 16, AVX2: 8, none: 1)
  int vector_registers = 32;         ///< architectural vector registers (AVX-512: 32, AVX2/SSE: 16)
  int cores = 1;                     ///< online cores (threads the runtime may use)
  std::string isa = "scalar";        ///< "avx512", "avx2" or "scalar"
};

/// Columns of the GEMM register tile (tile_for_cpu): two vectors with 16
/// registers, four with 32; 0 without vectors. pack_gemm_weights lays
/// weights out in panels of this width.
inline int gemm_tile_columns(const CpuTarget &t) {
  return t.vector_lanes > 1 ? t.vector_lanes * (t.vector_registers >= 32 ? 4 : 2) : 0;
}

/// Whether a panel of `columns` elements of `element_bytes` spans two cache
/// lines or more a k row (AVX-512's 64 f32 columns, not AVX2's 16): the
/// row tiles of a cache tile then share the prefetch of the next tile's
/// panels (lower_to_llvm), and tile_for_cpu takes one panel a column tile.
inline bool panel_row_spans_lines(long columns, long element_bytes) { return columns * element_bytes >= 128; }

/// The host's description: caches from sysconf or /sys/devices/system/cpu,
/// vector width from the CPU's features (cpuid, as LLVM's host detection
/// reads them), cores from sysconf. Computed once and cached.
const CpuTarget &host_target();

/// A one-line summary ("avx512 16 lanes, 32 regs, L1 32K L2 1024K L3 32768K, 2 cores").
std::string describe(const CpuTarget &target);

}  // namespace atl::poly
