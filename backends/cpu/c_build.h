// Builds generated C with the system C compiler into a shared object and loads it.
#pragma once

#include "backends/cpu/jit.h"

#include <string>
#include <vector>

namespace atl::cpu {

struct CBuildOptions {
  std::string compiler = "cc";  ///< the C compiler; $CC overrides "cc"
  std::vector<std::string> flags = {"-std=c99", "-O3", "-march=native"};
};

/// A shared object built from C source in a private temporary directory and
/// dlopen'ed; unloaded and removed when destroyed.
class CLibrary {
public:
  /// Writes `source` to kernels.c, runs `CC flags -shared -fPIC -o kernels.so
  /// kernels.c -lm`, loads it. Throws UserError with the compiler's output
  /// when compilation or loading fails.
  explicit CLibrary(const std::string &source, const CBuildOptions &options = {});
  ~CLibrary();
  CLibrary(const CLibrary &) = delete;
  CLibrary &operator=(const CLibrary &) = delete;

  /// NAME_entry of a kernel in the library, or null.
  KernelEntry entry(const std::string &kernel) const;
  /// Any symbol of the library, or null.
  void *symbol(const std::string &name) const;

private:
  std::string dir_;
  void *handle_ = nullptr;
};

}  // namespace atl::cpu
