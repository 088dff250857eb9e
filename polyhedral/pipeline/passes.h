// The passes the pipeline tables are made of, one row each, by IR level:
// scop_passes.cpp, schedule_passes.cpp, ast_passes.cpp. Each row adapts a
// transformation (polyhedral/transforms/, schedule/, ast/) to the pass
// shape of pass.h: when it runs, and what it changes in the cluster state.
#pragma once

#include "polyhedral/pipeline/pass.h"

namespace atl::poly::passes {

// SCoP level.
extern const Pass build_scop;              ///< the cluster's statements, domains and accesses
extern const Pass inline_producers;        ///< cheap elementwise producers recomputed in their readers
extern const Pass factor_reduction_scale;  ///< a positive constant factor out of max/min reductions
extern const Pass bound_shifted_exps;      ///< exps of a value minus its maximum marked as never +inf
extern const Pass coalesce_dims;           ///< an image's rows and columns as one dimension
extern const Pass apply_tuning;            ///< a tuned point's knobs set in the options

// Dependences.
extern const Pass dependences;             ///< flow, anti and output dependences, reductions

// Schedule level.
extern const Pass scheduler;               ///< isl, pluto, feautrier or a given tree, checked
extern const Pass fuse_sibling_bands;      ///< sibling loop nests that pass data fused
extern const Pass tile_for_cpu;            ///< GEMM-shaped bands: cache and register tiles
extern const Pass tile_window_for_cpu;     ///< window reductions (depthwise conv, pooling)
extern const Pass interleave_rows;         ///< short row-wise kernels: rows side by side
extern const Pass tile_transpose;          ///< transposes in square blocks
extern const Pass pack_tiles;              ///< GEMM operand panels copied into local buffers
extern const Pass map_to_gpu;              ///< outermost parallel bands to GPU blocks and threads

// AST level.
extern const Pass build_ast;               ///< isl's AST as Atoll's loop AST, with marks
extern const Pass version_guards;          ///< register tiles without padding guards where in bounds
extern const Pass specialize_remainders;   ///< remainder tiles of run-time size as straight-line copies
extern const Pass contract_arrays;         ///< temporaries used within one iteration made local
extern const Pass reuse_temporaries;       ///< temporaries stored in their elementwise reader's output
extern const Pass classify_npu_kernel;     ///< the cluster as a cube or vector NPU kernel
extern const Pass tile_for_npu;            ///< NPU tile sizes from buffer capacities and a cost
extern const Pass split_launches;          ///< the GPU kernel as launches with grid and block sizes

}  // namespace atl::poly::passes
