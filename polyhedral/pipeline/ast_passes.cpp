// The loop-AST passes (see passes.h).
#include "polyhedral/pipeline/cluster_state.h"
#include "polyhedral/pipeline/passes.h"

#include "polyhedral/ast/build_ast.h"
#include "polyhedral/transforms/ast/contract_arrays.h"
#include "polyhedral/transforms/ast/reuse_temporaries.h"
#include "polyhedral/transforms/ast/split_launches.h"
#include "polyhedral/transforms/ast/specialize_remainders.h"
#include "polyhedral/transforms/ast/version_guards.h"
#include "polyhedral/transforms/npu/classify_npu_kernel.h"
#include "polyhedral/transforms/npu/tile_for_npu.h"

namespace atl::poly::passes {

// From the packed tree when there is one (its copy statements become loops
// filling the local buffers).
const Pass build_ast = {
    "build_ast", Level::Ast, "isl's AST as the loop AST, with parallel, vector and unroll marks",
    [](const ClusterState &) { return true; },
    [](ClusterState &s, int) {
      AstOptions a;
      a.parallel = s.options.parallel;
      a.vectorize = s.options.vectorize;
      a.unroll = s.options.unroll_loops;
      a.packs = s.packs;
      s.kernel = poly::build_ast(s.scop, s.deps, s.packed ? *s.packed : s.schedule, a);
      if (s.options.vectorize) s.kernel.vector_lanes = s.options.target.vector_lanes;
      s.has_kernel = true;
      return PassOutcome{true, {}, false, {}};
    }};

// Padding guards only where a tile reaches past an edge: a register tile
// whose guarded reads are all in bounds runs a copy without guards.
const Pass version_guards = {
    "version_guards", Level::Ast, "register tiles whose guarded reads are in bounds run without guards",
    [](const ClusterState &s) { return s.options.tile && s.options.version_guards; },
    [](ClusterState &s, int) {
      PassOutcome out;
      VersionGuardsResult v = poly::version_guards(s.kernel);
      if (v.tiles <= 0) return out;
      out.changed = true;
      out.stats["tiles_versioned"] = v.tiles;
      out.stats["reads_unguarded"] = v.loads;
      return out;
    }};

// A remainder tile of run-time size (rows of a symbolic batch) as one
// straight-line copy per size, so that its accumulators stay in registers.
const Pass specialize_remainders = {
    "specialize_remainders", Level::Ast, "remainder tiles of run-time size as one copy per size",
    [](const ClusterState &s) { return s.options.tile; },
    [](ClusterState &s, int) {
      PassOutcome out;
      SpecializeResult sp = poly::specialize_remainders(s.kernel);
      if (sp.regions <= 0) return out;
      out.changed = true;
      out.stats["remainders_specialized"] = sp.regions;
      out.stats["remainder_copies"] = sp.copies;
      return out;
    }};

// Contraction runs before in-place reuse: where both apply, a compact
// private buffer keeps the temporary in cache better than the reader's
// storage (a blocked convolution's channel blocks lie far apart), and reuse
// takes what is left. Except that a temporary which can share its reader's
// storage stays out of private buffers larger than L1 (the tile would store
// every element twice: to the buffer its epilogue reads and to the output),
// and out of private buffers at any size when a window tile runs its
// epilogue inside (the plane is then stored twice even in L1).
const Pass contract_arrays = {
    "contract_arrays", Level::Ast, "temporaries used within one iteration of an outer loop made local",
    [](const ClusterState &s) { return s.options.contract; },
    [](ClusterState &s, int) {
      ContractOptions co;
      if (s.options.reuse_temporaries) {
        LKernel trial = s.kernel;
        for (const auto &[temporary, target] : poly::reuse_temporaries(s.scop, trial).reused)
          co.in_place.insert(temporary);
        const PassRecord *w = s.record("tile_window_for_cpu");
        const bool window_epilogue =
            w && w->result == PassRecord::Result::Changed && w->stats.count("statements_in_tiles");
        co.in_place_max_bytes = window_epilogue ? 0 : s.options.target.l1_bytes;
      }
      PassOutcome out;
      ContractResult c = poly::contract_arrays(s.kernel, co);
      if (c.arrays.empty()) return out;
      out.changed = true;
      out.stats["arrays_contracted"] = static_cast<long>(c.arrays.size());
      out.stats["contracted_bytes_saved"] = static_cast<long>(c.bytes_before - c.bytes_after);
      return out;
    }};

// In-place epilogues: a temporary whose only reader is an elementwise
// statement takes the storage that statement writes.
const Pass reuse_temporaries = {
    "reuse_temporaries", Level::Ast, "temporaries stored in their elementwise reader's output",
    [](const ClusterState &s) { return s.options.reuse_temporaries; },
    [](ClusterState &s, int) {
      PassOutcome out;
      ReuseResult u = poly::reuse_temporaries(s.scop, s.kernel);
      if (u.reused.empty()) return out;
      out.changed = true;
      out.stats["temporaries_reused"] = static_cast<long>(u.reused.size());
      out.stats["reused_bytes_saved"] = static_cast<long>(u.bytes_saved);
      return out;
    }};

}  // namespace atl::poly::passes

namespace atl::poly::passes {

const Pass classify_npu_kernel = {
    "classify_npu_kernel", Level::Ast,
    "the cluster as an NPU kernel: a contraction for the cube with an elementwise epilogue, or elementwise on the "
    "vector unit; anything else is an error naming the node",
    [](const ClusterState &s) { return s.options.npu.has_value(); },
    [](ClusterState &s, int) {
      PassOutcome out;
      s.npu_plan = poly::classify_npu_kernel(s.scop);
      out.changed = true;
      out.stats[s.npu_plan->kind == NpuKernelPlan::Kind::Cube ? "npu_cube_kernels" : "npu_vector_kernels"] = 1;
      return out;
    }};

const Pass tile_for_npu = {
    "tile_for_npu", Level::Ast, "NPU tile sizes: every buffer with two slots within its capacity, the cheapest by "
    "an analytical cost of the pipes",
    [](const ClusterState &s) { return s.options.npu.has_value() && s.npu_plan.has_value(); },
    [](ClusterState &s, int) {
      PassOutcome out;
      poly::tile_for_npu(*s.npu_plan, *s.options.npu,
                         s.options.tile_hint ? s.options.tile_sizes : std::vector<long>{});
      out.changed = true;
      return out;
    }};

const Pass split_launches = {
    "split_launches", Level::Ast, "the GPU kernel as launches, each with its grid and block",
    [](const ClusterState &s) { return s.options.gpu.has_value(); },
    [](ClusterState &s, int) {
      PassOutcome out;
      s.gpu = poly::split_launches(s.kernel, s.gpu_mappings);
      s.has_gpu = true;
      out.changed = true;
      long mapped = 0;
      for (const GpuLaunch &l : s.gpu.launches) mapped += l.mapped;
      out.stats["gpu_launches"] = static_cast<long>(s.gpu.launches.size());
      out.stats["gpu_launches_one_thread"] = static_cast<long>(s.gpu.launches.size()) - mapped;
      return out;
    }};

}  // namespace atl::poly::passes
