// The NPU pipeline: one row per pass (passes.h), in the order they run.
// The CPU's tiling and AST rewrites are left out: the loop AST gives the
// kernel its arrays and parameters, the plan (classify_npu_kernel,
// tile_for_npu) says how backends/npu/codegen builds its program.
#include "polyhedral/pipeline/gpu_pipeline.h"

#include "polyhedral/pipeline/passes.h"

namespace atl::poly {

const PassTable &npu_pipeline() {
  static const PassTable table = {
      // SCoP
      passes::build_scop,
      passes::inline_producers,
      passes::coalesce_dims,
      // Dependences
      passes::dependences,
      // Schedule tree
      passes::scheduler,
      // Loop AST and the NPU plan
      passes::build_ast,
      passes::classify_npu_kernel,
      passes::tile_for_npu,
  };
  return table;
}

}  // namespace atl::poly
