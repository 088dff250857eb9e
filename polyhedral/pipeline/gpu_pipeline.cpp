// The GPU pipeline: one row per pass (passes.h), in the order they run.
// The CPU's tiling, packing and AST rewrites are left out: the mapping
// tiles for blocks and threads, and the printers (backends/gpu) read the
// launches.
#include "polyhedral/pipeline/gpu_pipeline.h"

#include "polyhedral/pipeline/cpu_pipeline.h"
#include "polyhedral/pipeline/passes.h"
#include "polyhedral/pipeline/poly_options.h"

namespace atl::poly {

const PassTable &gpu_pipeline() {
  static const PassTable table = {
      // SCoP
      passes::build_scop,
      passes::inline_producers,
      passes::factor_reduction_scale,
      passes::bound_shifted_exps,
      // Dependences
      passes::dependences,
      // Schedule tree
      passes::scheduler,
      passes::fuse_sibling_bands,
      passes::map_to_gpu,
      // Loop AST
      passes::build_ast,
      passes::split_launches,
  };
  return table;
}

const PassTable &pipeline_for(const PolyOptions &options) {
  return options.gpu ? gpu_pipeline() : options.npu ? npu_pipeline() : cpu_pipeline();
}

}  // namespace atl::poly
