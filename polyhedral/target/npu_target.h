// What the NPU passes (transforms/npu) know about an Atoll NPU target: the
// buffer capacities and the rates their tile choice weighs. The full
// description (backends/npu/target.h) is below this layer's reach; the
// pipeline copies these fields from it (npu_target_info).
#pragma once

#include <cstdint>
#include <string>

namespace atl::poly {

struct NpuTargetInfo {
  std::string name = "ascend-like";
  std::uint32_t cores = 2;
  // Capacities in bytes.
  std::uint64_t l1 = 1 << 20, l0a = 64 << 10, l0b = 64 << 10, l0c = 256 << 10, ub = 256 << 10;
  std::uint32_t events_per_pipe_pair = 8;
  std::uint32_t max_repeat = 255;    ///< vector repeats a call
  std::uint32_t repeat_bytes = 256;  ///< bytes a vector repeat covers
  // Rates for the analytical tile cost (cycles).
  std::uint32_t cube_startup = 32;
  std::uint32_t cube_f32_cycles = 4;   ///< cycles per 16x16x16 step of the f32 type row
  std::uint32_t cube_f16_cycles = 1;   ///< of the f16 type row
  double mte2_bytes_per_cycle = 64;
  std::uint32_t mte2_startup = 100, mte2_per_burst = 2;
  double mte1_bytes_per_cycle = 256;
  std::uint32_t mte1_startup = 10;
  double fix_bytes_per_cycle = 128;
  double mte3_bytes_per_cycle = 64;
  std::uint32_t mte3_startup = 100;
  std::uint32_t vec_startup = 8;
};

}  // namespace atl::poly
