// What LLVM knows of the host: version, target triple, CPU name and features.
#pragma once

#include <string>

namespace atl::cpu {

struct HostInfo {
  std::string llvm_version;  ///< "19.1.x"
  std::string triple;        ///< "x86_64-pc-linux-gnu"
  std::string cpu;           ///< LLVM's host CPU name, e.g. "skylake-avx512"
  bool avx2 = false;
  bool avx512f = false;
  bool avx512vl = false;
};

/// Initialises LLVM's native target and describes the host, once (the
/// features are read on the first call).
const HostInfo &host_info();

}  // namespace atl::cpu
