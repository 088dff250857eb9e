// The CPU target's pipeline: the passes every cluster goes through, in order.
#pragma once

#include "polyhedral/pipeline/pass.h"

namespace atl::poly {

/// The table for the CPU targets (cpu and cpu-c share it).
const PassTable &cpu_pipeline();

}  // namespace atl::poly
