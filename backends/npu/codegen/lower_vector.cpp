// lower_vector: a vector kernel's program. Per tile (round robin over the
// cores): GM -> UB (ND2NZ, MTE2), the statements (VEC), UB -> GM (NZ2ND,
// MTE3), each UB tile with two slots and ready/free rings between the
// pipes. Rows are the leading dims flattened, or dim R-2 per index of the
// dims before it (batched rows).
#include "backends/npu/codegen/npu_builder.h"

namespace atl::npu::codegen {

void Gen::vector_kernel() {
  tile_rows = plan.tr;
  tile_cols = plan.tc;
  slots = plan.ub_slots;
  allocate_ub();
  const int rank = static_cast<int>(plan.space.size());
  // Rows: the leading dims flattened, or (batched rows) dim R-2 per index
  // of the dims before it.
  const bool batched = plan.batched_rows;
  NE R = lit(1), C = rank ? extent(plan.space.back()) : lit(1), batches = lit(1);
  for (int d = 0; d + 1 < rank; ++d)
    if (batched && d + 2 != rank) batches = batches * extent(plan.space[d]);
    else R = R * extent(plan.space[d]);
  std::vector<int> bvars;
  if (batched)
    for (int d = 0; d + 2 < rank; ++d) bvars.push_back(new_var("b" + std::to_string(d)));
  const int core = new_var("core"), ncores = new_var("ncores"), t = new_var("t"), it = new_var("it");
  const int r0 = new_var("r0"), c0 = new_var("c0"), rr = new_var("rr"), cc = new_var("cc"), slot = new_var("slot");
  set(core, core_id());
  set(ncores, core_num());
  const poly::NpuUbTiles ub = poly::npu_ub_tiles(plan);
  const bool loads = ub.loads > 0;
  const Ring in_free = loads ? ring(NPU_VEC, NPU_MTE2) : Ring{}, in_ready = loads ? ring(NPU_MTE2, NPU_VEC) : Ring{};
  const Ring out_ready = ring(NPU_VEC, NPU_MTE3), out_free = ring(NPU_MTE3, NPU_VEC);
  if (loads) preset(in_free, slots);
  preset(out_free, slots);
  const NE tiles_c = ceil_div(C, lit(plan.tc)), tiles_r = ceil_div(R, lit(plan.tr));
  const NE ntiles = batches * tiles_r * tiles_c;
  set(it, lit(0));
  loop(t, var(core), ntiles, var(ncores), [&] {
    set(r0, var(t) / tiles_c % tiles_r * lit(plan.tr));
    set(c0, var(t) % tiles_c * lit(plan.tc));
    NE rest = var(t) / (tiles_c * tiles_r);
    for (std::size_t i = bvars.size(); i-- > 0;) {
      const NE e = extent(plan.space[i]);
      set(bvars[i], rest % e);
      rest = rest / e;
    }
    set(rr, min(lit(plan.tr), R - var(r0)));
    set(cc, min(lit(plan.tc), C - var(c0)));
    set(slot, var(it) % lit(slots));
    const NE s = var(slot), rows16 = round_up(var(rr), lit(16)), cols16 = round_up(var(cc), lit(16));
    // Where an operand's tile starts, and its row pitch. Flattened rows:
    // full operands are contiguous over the rows, broadcast rows depend on
    // the column only, per-row inputs on the row only. Batched rows: the
    // operand's own strides.
    std::vector<NE> index(rank);
    for (std::size_t i = 0; i < bvars.size(); ++i) index[i] = var(bvars[i]);
    if (rank >= 2) index[rank - 2] = var(r0);
    if (rank >= 1) index[rank - 1] = var(c0);
    auto start = [&](const NpuOperand &o) -> NE {
      if (batched) return origin(o, index);
      return o.form == NpuOperand::Form::Row ? var(c0) : o.form == NpuOperand::Form::Col ? var(r0)
                                                                                           : var(r0) * C + var(c0);
    };
    auto pitch = [&](const NpuOperand &o) -> NE {
      if (!batched) return C;
      std::vector<NE> st = strides(o.shape);
      for (std::size_t p = 0; p < o.dims.size(); ++p)
        if (rank >= 2 && o.dims[p] == rank - 2) return st[p];
      return C;  // one row
    };
    if (loads) {
      wait_ring(in_free, s);
      for (const auto &[name, o] : plan.operands) {
        if (o.form == NpuOperand::Form::Full && !written(name))
          load_nz(at(NPU_UB, tile_at(name, s)), gm(name, start(o)), var(rr), var(cc), pitch(o));
        else if (o.form == NpuOperand::Form::Row)
          load_row(row_at(name, s), gm(name, start(o)), var(cc));
        else if (o.loaded_col)
          load_row(stage_at(name, s), gm(name, start(o)), var(rr));
      }
      set_ring(in_ready, s);
      wait_ring(in_ready, s);
    }
    wait_ring(out_free, s);
    statements(s, rows16, cols16);
    if (loads) set_ring(in_free, s);
    set_ring(out_ready, s);
    wait_ring(out_ready, s);
    for (const auto &[name, o] : plan.operands)
      if (o.output) store_nd(gm(name, start(o)), at(NPU_UB, tile_at(name, s)), var(rr), var(cc), pitch(o));
    set_ring(out_free, s);
    set(it, var(it) + lit(1));
  }, "tiles of " + std::to_string(plan.tr) + " x " + std::to_string(plan.tc) + ", round robin over the cores");
  drain_presets();
}

}  // namespace atl::npu::codegen
