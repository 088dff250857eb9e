// Atoll's version and the versions of the libraries it is bound to (public).
#pragma once

#include <string>

namespace atl {

/// "atoll 0.1.0 (isl-0.25-GMP, PPL 1.2, LLVM 19.1.x, host skylake-avx512)".
std::string version_text();

}  // namespace atl
