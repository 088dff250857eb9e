// The GPU targets' pipeline (cuda, opencl): the passes every cluster goes through, in order.
#pragma once

#include "polyhedral/pipeline/pass.h"

namespace atl::poly {

/// The table for the GPU targets: the CPU table's SCoP, dependence and
/// scheduling passes, then the GPU mapping, the AST and the launches.
const PassTable &gpu_pipeline();
/// The NPU table (npu_pipeline.cpp).
const PassTable &npu_pipeline();

/// The table of a cluster's options: gpu_pipeline() when options.gpu is set, npu_pipeline() when
/// options.npu is, else cpu_pipeline().
struct PolyOptions;
const PassTable &pipeline_for(const PolyOptions &options);

}  // namespace atl::poly
