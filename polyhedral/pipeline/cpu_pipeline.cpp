// The CPU pipeline: one row per pass (passes.h), in the order they run.
// `atoll explain --list-stages` prints it; `--stage NAME` and
// `--print-after NAME` accept every name.
#include "polyhedral/pipeline/cpu_pipeline.h"

#include "polyhedral/pipeline/passes.h"

namespace atl::poly {

const PassTable &cpu_pipeline() {
  static const PassTable table = {
      // SCoP
      passes::build_scop,
      passes::inline_producers,
      passes::factor_reduction_scale,
      passes::bound_shifted_exps,
      passes::coalesce_dims,
      passes::apply_tuning,  // the knobs of the passes below (knobs.h)
      // Dependences
      passes::dependences,
      // Schedule tree
      passes::scheduler,
      passes::fuse_sibling_bands,
      passes::tile_for_cpu,         // the tiling passes are alternatives:
      passes::tile_window_for_cpu,  // each runs where none before it applied
      passes::interleave_rows,
      passes::tile_transpose,
      passes::pack_tiles,
      // Loop AST
      passes::build_ast,
      passes::version_guards,
      passes::specialize_remainders,
      passes::contract_arrays,
      passes::reuse_temporaries,
  };
  return table;
}

}  // namespace atl::poly
