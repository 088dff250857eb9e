// Probes the CUDA driver with dlopen and two driver calls, declared here
// with the driver API's C ABI (no CUDA header needed to build).
#include "backends/gpu/cuda_driver.h"

#include <dlfcn.h>

#include <mutex>

namespace atl::gpu {

namespace {

constexpr int kStubLibrary = 34;  // CUDA_ERROR_STUB_LIBRARY: the toolkit's stubs/libcuda.so

std::string probe() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return "no CUDA driver (libcuda.so.1 not found)";
  using Init = int (*)(unsigned);
  using Count = int (*)(int *);
  auto init = reinterpret_cast<Init>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<Count>(dlsym(lib, "cuDeviceGetCount"));
  if (!init || !count) return "no CUDA driver (libcuda.so.1 has no cuInit)";
  const int rc = init(0);
  if (rc == kStubLibrary) return "CUDA driver is a stub library (cuInit returned 34)";
  if (rc != 0) return "CUDA driver error " + std::to_string(rc) + " in cuInit";
  int n = 0;
  if (count(&n) != 0 || n == 0) return "no CUDA device";
  return "";
}

}  // namespace

std::string cuda_driver_problem() {
  static std::once_flag once;
  static std::string problem;
  std::call_once(once, [] { problem = probe(); });
  return problem;
}

}  // namespace atl::gpu
