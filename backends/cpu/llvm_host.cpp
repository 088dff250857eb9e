// Initialises LLVM's native target and reads the host CPU's name and features.
#include "backends/cpu/llvm_host.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>

#include <mutex>

namespace atl::cpu {

HostInfo host_info() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  HostInfo h;
  h.llvm_version = LLVM_VERSION_STRING;
  h.triple = llvm::sys::getProcessTriple();
  h.cpu = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  h.avx2 = features.lookup("avx2");
  h.avx512f = features.lookup("avx512f");
  h.avx512vl = features.lookup("avx512vl");
  return h;
}

}  // namespace atl::cpu
