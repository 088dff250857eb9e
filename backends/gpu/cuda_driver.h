// The CUDA driver, probed at run time (dlopen of libcuda.so.1): whether a
// CUDA device can run Atoll's launches here, and if not, why, in the words
// the CLI reports. Atoll has no link-time CUDA dependency.
#pragma once

#include <string>

namespace atl::gpu {

/// Empty when the driver loads, initialises and has a device; else one of
///   "no CUDA driver (libcuda.so.1 not found)"
///   "CUDA driver is a stub library (cuInit returned 34)"
///   "no CUDA device"
///   "CUDA driver error N in cuInit" (another failure).
/// Probed once per process.
std::string cuda_driver_problem();

}  // namespace atl::gpu
