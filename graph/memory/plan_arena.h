// The memory plan of a kernel sequence: buffers, their arena offsets, sizes.
#pragma once

#include "graph/memory/buffer_lifetimes.h"
#include "graph/memory/pack_buffers.h"
#include "graph/memory/views.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace atl::memory {

/// Where every intermediate buffer of a graph run lives in one arena.
struct MemoryPlan {
  std::vector<Buffer> buffers;  ///< buffer_lifetimes' order
  ArenaLayout layout;           ///< offsets of `buffers`, arena size
  std::int64_t intermediates_bytes = 0;  ///< all buffers' bytes, without sharing
  std::int64_t bytes_moved = 0;          ///< compulsory traffic of the kernels
  std::map<std::string, std::size_t> index;            ///< buffer name -> position
  std::map<std::string, TensorAlias> alias_of;         ///< tensor -> its base

  std::int64_t peak_bytes() const { return layout.peak_bytes; }
  /// Arena offset of a graph tensor (inside its base for an alias), or
  /// nullopt when the tensor is not in the arena (input, weight, output...).
  std::optional<std::int64_t> offset_of(const std::string &tensor) const;
  /// Arena offset of a kernel temporary.
  std::optional<std::int64_t> temporary_offset(const std::string &kernel, const std::string &array) const;
};

/// Plans the arena of `kernels` (call order): lifetimes (buffer_lifetimes),
/// the best packing (pack_best), checked by check_arena.
MemoryPlan plan_arena(const std::vector<KernelUse> &kernels, const std::vector<TensorAlias> &aliases,
                      const std::function<bool(const std::string &)> &external,
                      const std::function<std::int64_t(const std::string &)> &base_bytes);

}  // namespace atl::memory
