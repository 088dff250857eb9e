// In-process compilation of loop-AST kernels with ORC LLJIT.
#pragma once

#include "polyhedral/ast/loop_ast.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace llvm::orc {
class LLJIT;
}

namespace atl::cpu {

/// The generic entry every kernel has: NAME_entry(arrays, params).
using KernelEntry = void (*)(void **arrays, const std::int64_t *params);

struct JitOptions {
  int opt_level = 3;     ///< PassBuilder pipeline level, 0..3
  bool keep_ir = false;  ///< keep the optimized modules' text (optimized_ir())
  /// Threads that compile the kernels: 0 = the hardware's (or
  /// ATOLL_COMPILE_THREADS), 1 = one after the other.
  std::size_t threads = 0;
};

/// One LLJIT holding every kernel given, each compiled as a module of its
/// own for the host CPU (on JitOptions::threads threads). Libm and Atoll's runtime (atoll_parallel_for) resolve from the
/// process. Use one instance from one thread at a time; the entries it hands
/// out stay valid while it lives.
class KernelJit {
public:
  /// Lowers, optimizes and compiles; throws UserError for malformed kernels.
  KernelJit(const std::vector<poly::LKernel> &kernels, const JitOptions &options = {});
  ~KernelJit();
  KernelJit(const KernelJit &) = delete;
  KernelJit &operator=(const KernelJit &) = delete;

  /// NAME_entry of a kernel, or null when no kernel has that name.
  KernelEntry entry(const std::string &kernel) const;
  /// The optimized module as text (empty unless JitOptions::keep_ir).
  const std::string &optimized_ir() const { return ir_; }

private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::map<std::string, KernelEntry> entries_;
  std::string ir_;
};

}  // namespace atl::cpu
