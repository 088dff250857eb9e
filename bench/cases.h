// The benchmark groups: GEMM, convolutions, memory-bound operators.
#pragma once

#include "bench/case_runner.h"

#include <vector>

namespace atl::bench {

/// GEMM f32 square and odd shapes: Atoll, naive, OpenBLAS cblas_sgemm, oneDNN matmul.
std::vector<CaseResult> run_gemm(const Config &config, int threads);
/// ResNet-50 and MobileNetV2 convolutions: Atoll, naive, oneDNN in NCHW and blocked.
std::vector<CaseResult> run_conv(const Config &config, int threads);
/// Elementwise chain, Softmax, LayerNormalization against the STREAM triad.
std::vector<CaseResult> run_memory(const Config &config, int threads);

/// OpenBLAS's version and configuration as openblas_get_config() gives it
/// ("unavailable" without OpenBLAS).
std::string openblas_version();

}  // namespace atl::bench
