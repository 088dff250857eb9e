// Builds the --version text from the linked libraries.
#include <atoll/version.h>

#include "backends/cpu/llvm_host.h"
#include "polyhedral/isl/isl_info.h"

namespace atl {

std::string version_text() {
  cpu::HostInfo host = cpu::host_info();
  return "atoll 0.1.0\n  isl  " + poly::isl_version_string() + "\n  PPL  " + poly::ppl_version_string() +
         "\n  LLVM " + host.llvm_version + " (" + host.triple + ", host cpu " + host.cpu + ")\n";
}

}  // namespace atl
