// Lifetimes of the buffers a sequence of kernels needs in the arena.
#pragma once

#include "graph/memory/views.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace atl::memory {

/// One array argument of a kernel call.
struct KernelArg {
  enum class Access { Read, Write, Temporary };
  std::string tensor;      ///< the graph tensor it holds ("" for a kernel temporary)
  std::string array;       ///< the kernel's name for it (names temporaries)
  std::int64_t bytes = 0;  ///< its size at the planned parameter values
  Access access = Access::Read;
};

/// One kernel call: its name (unique in the graph) and its array arguments.
struct KernelUse {
  std::string name;
  std::vector<KernelArg> args;
};

/// A buffer of the arena: a base tensor (views and in-place Concat inputs
/// live inside their base) or a kernel temporary (named "KERNEL/ARRAY"),
/// live from kernel `first` to kernel `last` (inclusive, call order).
struct Buffer {
  std::string name;
  std::int64_t bytes = 0;
  int first = 0, last = 0;
  bool temporary = false;
};

/// The arena buffers of `kernels` (call order): every tensor a kernel reads
/// or writes lives from its first to its last use; an alias (views.h) is a
/// use of its base, which it keeps alive; a temporary lives during its kernel.
/// Tensors for which `external` is true (graph inputs, weights, outputs,
/// constants), and the bases of their aliases, are not in the arena.
/// A buffer's size is that of the largest argument naming it directly, or
/// `base_bytes` for a base tensor that only aliases use.
/// Buffers come in order of first use, then name.
std::vector<Buffer> buffer_lifetimes(const std::vector<KernelUse> &kernels, const std::vector<TensorAlias> &aliases,
                                     const std::function<bool(const std::string &)> &external,
                                     const std::function<std::int64_t(const std::string &)> &base_bytes);

/// Compulsory traffic of the kernels: every Read array read once and every
/// Write array written once (temporaries excluded), in bytes.
std::int64_t bytes_moved(const std::vector<KernelUse> &kernels);

/// The name of a kernel temporary's buffer.
std::string temporary_name(const std::string &kernel, const std::string &array);

}  // namespace atl::memory
