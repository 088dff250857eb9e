// lower_to_npu: see the header; the program builder is npu_builder.h,
// the two kernel shapes lower_vector.cpp and lower_cube.cpp.
#include "backends/npu/codegen/lower_to_npu.h"

#include "backends/npu/codegen/npu_builder.h"

namespace atl::npu {

poly::NpuTargetInfo npu_target_info(const Target &t) {
  poly::NpuTargetInfo i;
  i.name = t.name;
  i.cores = t.cores;
  i.l1 = t.memories[NPU_L1].bytes;
  i.l0a = t.memories[NPU_L0A].bytes;
  i.l0b = t.memories[NPU_L0B].bytes;
  i.l0c = t.memories[NPU_L0C].bytes;
  i.ub = t.memories[NPU_UB].bytes;
  i.events_per_pipe_pair = t.events_per_pipe_pair;
  i.max_repeat = t.vector.max_repeat;
  i.repeat_bytes = t.vector.repeat_bytes;
  i.cube_startup = t.cube.startup;
  if (const CubeType *r = t.cube_type(NPU_F32, NPU_F32)) i.cube_f32_cycles = r->cycles;
  if (const CubeType *r = t.cube_type(NPU_F16, NPU_F32)) i.cube_f16_cycles = r->cycles;
  const PipeDesc &m2 = t.pipes[NPU_MTE2], &m1 = t.pipes[NPU_MTE1], &fx = t.pipes[NPU_FIX], &m3 = t.pipes[NPU_MTE3];
  i.mte2_bytes_per_cycle = m2.bytes_per_cycle;
  i.mte2_startup = m2.startup;
  i.mte2_per_burst = m2.per_burst;
  i.mte1_bytes_per_cycle = m1.bytes_per_cycle;
  i.mte1_startup = m1.startup;
  i.fix_bytes_per_cycle = fx.bytes_per_cycle;
  i.mte3_bytes_per_cycle = m3.bytes_per_cycle;
  i.mte3_startup = m3.startup;
  i.vec_startup = t.vector.startup;
  return i;
}

NpuProgram lower_to_npu(const poly::NpuKernelPlan &plan, const poly::LKernel &kernel, const Target &target) {
  codegen::Gen g(plan, kernel, target);
  if (plan.kind == poly::NpuKernelPlan::Kind::Cube) g.cube_kernel();
  else g.vector_kernel();
  return std::move(g.p);
}

}  // namespace atl::npu
