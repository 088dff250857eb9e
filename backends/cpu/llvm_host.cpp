// Initialises LLVM's native target and reads the host CPU's name and features.
#include "backends/cpu/llvm_host.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>

namespace atl::cpu {

const HostInfo &host_info() {
  static const HostInfo h = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    HostInfo d;
    d.llvm_version = LLVM_VERSION_STRING;
    d.triple = llvm::sys::getProcessTriple();
    d.cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    d.avx2 = features.lookup("avx2");
    d.avx512f = features.lookup("avx512f");
    d.avx512vl = features.lookup("avx512vl");
    return d;
  }();
  return h;
}

}  // namespace atl::cpu
