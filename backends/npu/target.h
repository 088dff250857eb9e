// NPU target descriptions: the JSON of shared/spec/npu-model.md, its validator, the shipped profiles and a stable hash.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "npu_intrin.h"

namespace atl::npu {

constexpr int kNumMems = 6;   ///< GM L1 L0A L0B L0C UB (npu_mem order)
constexpr int kNumPipes = 7;  ///< MTE1 MTE2 MTE3 CUBE VEC FIX SCALAR (npu_pipe order)

const char *mem_name(npu_mem m);
const char *pipe_name(npu_pipe p);
const char *dtype_name(npu_dtype t);
/// Bytes per element of an NPU dtype.
uint32_t dtype_bytes(npu_dtype t);

/// One row of the cube's type table: a x b -> acc at `cycles` per 16x16x16 step.
struct CubeType {
  npu_dtype a, b, acc;
  uint32_t cycles;
};

struct MemDesc {
  uint64_t bytes = 0;  ///< capacity (0 for GM: unbounded, checked against the launched buffers)
  uint32_t align = 1;
};

struct PipeDesc {
  std::vector<std::pair<npu_mem, npu_mem>> paths;  ///< (src, dst) DMA paths this pipe owns
  double bytes_per_cycle = 0;
  uint32_t startup = 0;
  uint32_t per_burst = 0;
  uint32_t issue_cycles = 0;  ///< SCALAR only
};

/// A validated target description. Every size and rate is a parameter.
struct Target {
  std::string name;
  int version = 1;
  uint32_t cores = 1;
  double clock_mhz = 1000;
  struct {
    uint32_t m = 16, n = 16, k = 16;
    std::vector<CubeType> types;
    uint32_t startup = 0;
  } cube;
  struct {
    uint32_t repeat_bytes = 256, block_bytes = 32, max_repeat = 255, startup = 0;
    uint32_t slow_op_cycles_per_repeat = 0;
  } vector;
  std::array<MemDesc, kNumMems> memories;
  std::array<PipeDesc, kNumPipes> pipes;
  uint32_t events_per_pipe_pair = 8;
  double gm_bytes_per_cycle = 128;

  /// The pipe owning the DMA path src>dst, or -1.
  int path_owner(npu_mem src, npu_mem dst) const;
  /// The cube type row for (ab, ab, acc), or nullptr.
  const CubeType *cube_type(npu_dtype ab, npu_dtype acc) const;
  /// The description as JSON (the spec's format; parse_target(to_json()) round-trips).
  nlohmann::json to_json() const;
  /// A stable hash of the description: FNV-1a 64 of its canonical JSON, 16 hex digits.
  std::string hash() const;
};

/// Parses and validates a description. Errors are atl::UserError naming the field by JSON
/// pointer (e.g. "/memories/L0A/align: must be a power of two"); `source` names the file.
Target parse_target(const nlohmann::json &j, const std::string &source = "");
/// A shipped profile: "ascend-like", "lite" or "tiny"; UserError for another name.
Target builtin_target(const std::string &profile);
/// Names of the shipped profiles.
std::vector<std::string> builtin_profiles();
/// For the CLI's --target npu[:X]: X empty -> "ascend-like", a profile name, or a path to a
/// JSON file (anything containing '/' or ending in ".json").
Target load_target(const std::string &profile_or_file);

}  // namespace atl::npu
