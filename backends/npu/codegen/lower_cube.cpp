// lower_cube: a cube kernel's program. Per output tile (or per A panel
// kept in L1, its row of tiles in order), k in L1 chunks (ND2NZ, MTE2) and
// L0 steps (load_l0, MTE1) into mmads accumulating in L0C (CUBE); then fix
// straight to GM, or to UB for the epilogue (VEC) and NZ2ND to GM (MTE3).
// Every buffer level has two slots and ready/free rings.
#include "backends/npu/codegen/npu_builder.h"

namespace atl::npu::codegen {

void Gen::cube_kernel() {
  tile_rows = plan.mc;
  tile_cols = plan.nc;
  const std::int64_t mc = plan.mc, nc = plan.nc, kc = plan.kc, k0 = plan.k0;
  const NE M = plan.m >= 0 ? extent(plan.space[plan.m]) : lit(1), N = extent(plan.space[plan.n]);
  const NE K = extent(plan.k_extent);
  const poly::NpuUbTiles ub = poly::npu_ub_tiles(plan);
  // Vector work: statements other than copies that share C's tile.
  bool has_vec = false;
  for (const poly::NpuStatement &st : plan.statements) has_vec = has_vec || !st.alias;
  // Without it, the one output (C, or its copy: an f16 MatMul's y) on whole
  // 16 x 16 tiles comes straight from fix.
  std::string direct_out;
  for (const auto &[name, o] : plan.operands)
    if (o.output) direct_out = direct_out.empty() && (name == plan.c || (plan.tile_alias.count(name) &&
                                                                         plan.tile_alias.at(name) == plan.c))
                                   ? name
                                   : "-";
  std::int64_t Mc = 0, Nc = 0;
  const bool exact = !has_vec && !direct_out.empty() && direct_out != "-" && constant(M, Mc) && constant(N, Nc) &&
                     Mc % 16 == 0 && Nc % 16 == 0;
  if (!exact) allocate_ub();
  // L1, L0A, L0B, L0C: two slots each.
  const std::uint64_t a_l1 = align_up(mc * kc * kEb, 32), b_l1 = align_up(kc * nc * kEb, 32);
  const std::uint64_t a_l0 = align_up(mc * k0 * kEb, 512), b_l0 = align_up(k0 * nc * kEb, 512);
  const std::uint64_t c_l0 = align_up(mc * nc * 4, 64);
  auto fits = [&](npu_mem m, std::uint64_t need, const char *what) {
    if (need > target.memories[m].bytes)
      throw UserError("--target npu: kernel " + kernel.name + ": " + mem_name(m) + " needs " + std::to_string(need) +
                      " B (" + what + ") but target '" + target.name + "' has " +
                      std::to_string(target.memories[m].bytes) + " B");
  };
  if (plan.a_panel) {
    std::int64_t chunks = 0;
    (void)constant(ceil_div(K, lit(kc)), chunks);
    fits(NPU_L1, chunks * a_l1 + 2 * b_l1, "an A panel and two B chunks");
  } else {
    fits(NPU_L1, 2 * (a_l1 + b_l1), "A and B chunks, two slots each");
  }
  fits(NPU_L0A, 2 * a_l0, "two A steps");
  fits(NPU_L0B, 2 * b_l0, "two B steps");
  fits(NPU_L0C, 2 * c_l0, "two C tiles");

  const int core = new_var("core"), ncores = new_var("ncores"), t = new_var("t");
  const int mt = new_var("mt"), nt = new_var("nt"), bt = new_var("bt"), mr = new_var("mr"), nr = new_var("nr");
  const int m16 = new_var("m16"), n16 = new_var("n16"), kt = new_var("kt"), kf = new_var("kf"), kk = new_var("kk");
  const int kq = new_var("kq"), j = new_var("jj"), ctile = new_var("ctile"), cs = new_var("cs");
  const int l1step = new_var("l1step"), l1s = new_var("l1s"), l0step = new_var("l0step"), l0s = new_var("l0s");
  std::vector<int> bvars;
  for (int d : plan.batch) bvars.push_back(new_var("b" + std::to_string(d)));
  set(core, core_id());
  set(ncores, core_num());

  // The A panel (mc rows over all of k) stays in L1 across the row's
  // output tiles when the plan says so: one slot and one event pair a
  // k chunk; a core then runs whole panels.
  const bool panel = plan.a_panel;
  std::int64_t nk_const = 1;
  if (panel && (!constant(ceil_div(K, lit(kc)), nk_const) || nk_const + 2 > target.events_per_pipe_pair))
    throw UserError("--target npu: kernel " + kernel.name + ": an A panel needs a constant k of few chunks");
  const Ring l1free = ring(NPU_MTE1, NPU_MTE2), l1ready = ring(NPU_MTE2, NPU_MTE1);
  Ring afree{}, aready{};
  if (panel) {
    afree = ring(NPU_MTE1, NPU_MTE2, static_cast<int>(nk_const));
    aready = ring(NPU_MTE2, NPU_MTE1, static_cast<int>(nk_const));
  }
  const Ring l0free = ring(NPU_CUBE, NPU_MTE1), l0ready = ring(NPU_MTE1, NPU_CUBE);
  const Ring cfree = ring(NPU_FIX, NPU_CUBE), cready = ring(NPU_CUBE, NPU_FIX);
  const bool loads = !exact && ub.loads > 0;
  const npu_pipe after_fix = has_vec ? NPU_VEC : NPU_MTE3;
  Ring ubfree{}, fixed{}, ep_free{}, ep_ready{}, out_ready{};
  if (!exact) {
    ubfree = ring(NPU_MTE3, NPU_FIX);
    fixed = ring(NPU_FIX, after_fix);
    if (has_vec) out_ready = ring(NPU_VEC, NPU_MTE3);
    if (loads) ep_free = ring(NPU_VEC, NPU_MTE2), ep_ready = ring(NPU_MTE2, NPU_VEC);
  }
  preset(l1free);
  if (panel) preset(afree, static_cast<int>(nk_const));
  preset(l0free);
  preset(cfree);
  if (!exact) preset(ubfree);
  if (loads) preset(ep_free);

  const NE tm = ceil_div(M, lit(mc)), tn = ceil_div(N, lit(nc));
  NE batches = lit(1);
  for (int d : plan.batch) batches = batches * extent(plan.space[d]);
  const NE ntiles = batches * tm * tn, nk = ceil_div(K, lit(kc));
  set(ctile, lit(0));
  set(l1step, lit(0));
  set(l0step, lit(0));
  auto tile = [&] {
    // Batch indices, the last batch dim fastest.
    NE rest = var(bt);
    for (std::size_t i = plan.batch.size(); i-- > 0;) {
      const NE e = extent(plan.space[plan.batch[i]]);
      set(bvars[i], rest % e);
      rest = rest / e;
    }
    set(mr, min(lit(mc), M - var(mt) * lit(mc)));
    set(nr, min(lit(nc), N - var(nt) * lit(nc)));
    set(m16, ceil_div(var(mr), lit(16)));
    set(n16, ceil_div(var(nr), lit(16)));
    set(cs, var(ctile) % lit(2));
    const NE C_slot = var(cs);
    // The space index of the tile's origin (rows and columns at their starts).
    std::vector<NE> index(plan.space.size());
    for (std::size_t i = 0; i < plan.batch.size(); ++i) index[plan.batch[i]] = var(bvars[i]);
    if (plan.m >= 0) index[plan.m] = var(mt) * lit(mc);
    index[plan.n] = var(nt) * lit(nc);
    // Epilogue operands, loaded while the cube works.
    if (loads) {
      wait_ring(ep_free, C_slot);
      for (const auto &[name, o] : plan.operands) {
        if (o.form == NpuOperand::Form::Full && !written(name))
          load_nz(at(NPU_UB, tile_at(name, C_slot)), gm(name, origin(o, index)), var(mr), var(nr),
                  extent(o.shape.back()));
        else if (o.form == NpuOperand::Form::Row)
          load_row(row_at(name, C_slot), gm(name, origin(o, index)), var(nr));
        else if (o.loaded_col)
          load_row(stage_at(name, C_slot), gm(name, origin(o, index)), var(mr));
      }
      set_ring(ep_ready, C_slot);
    }
    loop(kt, lit(0), nk, lit(1), [&] {
      const int kr = new_var("kr");
      set(kr, min(lit(kc), K - var(kt) * lit(kc)));
      set(kf, ceil_div(var(kr), lit(16)));
      set(l1s, var(l1step) % lit(2));
      const NE s1 = var(l1s);
      // L1: A chunks (two slots, or the panel's nk), then two B chunks.
      const std::int64_t a_slots = panel ? nk_const : 2;
      const NE A1 = (panel ? var(kt) : s1) * lit(a_l1), B1 = lit(a_slots * a_l1) + s1 * lit(b_l1);
      const NE first_of_panel = eq(var(nt), lit(0)), last_of_panel = eq(var(nt), tn - lit(1));
      // GM -> L1: A as stored ([m, k] or [k, m]), B as stored ([k, n] or [n, k]).
      if (panel) {
        when(first_of_panel, [&] { wait_ring(afree, var(kt)); });
        wait_ring(l1free, s1);
      } else {
        wait_ring(l1free, s1);
      }
      {
        const NpuOperand &A = plan.a, &B = plan.b;
        auto base = [&](const NpuOperand &o) {
          std::vector<NE> st = strides(o.shape);
          NE off = lit(0);
          for (std::size_t q = 0; q < o.dims.size(); ++q) {
            if (o.dims[q] == poly::kNpuK) off = off + var(kt) * lit(kc) * st[q];
            else if (o.dims[q] >= 0 && index[o.dims[q]]) off = off + index[o.dims[q]] * st[q];
          }
          return off;
        };
        const NE a_pitch = extent(A.shape.back()), b_pitch = extent(B.shape.back());
        auto load_a = [&] {
          if (plan.a_transposed) load_nz(at(NPU_L1, A1), gm(A.array, base(A)), var(kr), var(mr), a_pitch);
          else load_nz(at(NPU_L1, A1), gm(A.array, base(A)), var(mr), var(kr), a_pitch);
        };
        if (panel) {
          when(first_of_panel, [&] {
            load_a();
            set_ring(aready, var(kt));
          });
        } else {
          load_a();
        }
        if (plan.b_transposed) load_nz(at(NPU_L1, B1), gm(B.array, base(B)), var(nr), var(kr), b_pitch);
        else load_nz(at(NPU_L1, B1), gm(B.array, base(B)), var(kr), var(nr), b_pitch);
      }
      set_ring(l1ready, s1);
      wait_ring(l1ready, s1);
      if (panel) when(first_of_panel, [&] { wait_ring(aready, var(kt)); });
      loop(kk, lit(0), var(kf), lit(k0 / 16), [&] {
        set(kq, min(lit(k0 / 16), var(kf) - var(kk)));
        set(l0s, var(l0step) % lit(2));
        const NE s0 = var(l0s), A0 = s0 * lit(a_l0), B0 = s0 * lit(b_l0);
        wait_ring(l0free, s0);
        auto load = [&](npu_mem mem, NE dst, NE src, NE n, NE stride, bool transpose) {
          NCall c;
          c.kind = NCallKind::LoadL0;
          c.dst = at(mem, dst);
          c.src0 = at(NPU_L1, src);
          c.ints = {n, stride, lit(transpose ? 1 : 0)};
          c.dt = nd;
          call(c);
        };
        // L1 A fractals: (m, k) at k * m16 + m (stored [m, k]) or (k, m) at m * kf + k (stored [k, m]).
        if (!plan.a_transposed) {
          load(NPU_L0A, A0, A1 + var(kk) * var(m16) * lit(kFrac), var(m16) * var(kq), lit(1), false);
        } else {
          loop(j, lit(0), var(kq), lit(1), [&] {
            load(NPU_L0A, A0 + var(j) * var(m16) * lit(kFrac), A1 + (var(kk) + var(j)) * lit(kFrac), var(m16),
                 var(kf), true);
          });
        }
        // L1 B fractals: (k, n) at n * kf + k (stored [k, n]) or (n, k) at k * n16 + n (stored [n, k]).
        loop(j, lit(0), var(n16), lit(1), [&] {
          if (!plan.b_transposed)
            load(NPU_L0B, B0 + var(j) * var(kq) * lit(kFrac), B1 + (var(j) * var(kf) + var(kk)) * lit(kFrac),
                 var(kq), lit(1), false);
          else
            load(NPU_L0B, B0 + var(j) * var(kq) * lit(kFrac), B1 + (var(kk) * var(n16) + var(j)) * lit(kFrac),
                 var(kq), var(n16), true);
        });
        set_ring(l0ready, s0);
        wait_ring(l0ready, s0);
        const NE first = both(eq(var(kt), lit(0)), eq(var(kk), lit(0)));
        when(first, [&] { wait_ring(cfree, C_slot); });
        NCall mm;
        mm.kind = NCallKind::Mmad;
        mm.dst = at(NPU_L0C, C_slot * lit(c_l0));
        mm.src0 = at(NPU_L0A, A0);
        mm.src1 = at(NPU_L0B, B0);
        mm.ints = {var(m16) * lit(16), var(n16) * lit(16), var(kq) * lit(16), lit(1) - first};
        mm.dt = nd;  // f16 operands accumulate in f32
        mm.dt2 = NPU_F32;
        call(mm);
        set_ring(l0free, s0);
        set(l0step, var(l0step) + lit(1));
      });
      set_ring(l1free, s1);
      if (panel) when(last_of_panel, [&] { set_ring(afree, var(kt)); });
      set(l1step, var(l1step) + lit(1));
    }, "k in chunks of " + std::to_string(kc) + " (L1), steps of " + std::to_string(k0) + " (L0)");
    set_ring(cready, C_slot);
    wait_ring(cready, C_slot);
    NCall fx;
    fx.kind = NCallKind::Fix;
    fx.src0 = at(NPU_L0C, C_slot * lit(c_l0));
    fx.dt = NPU_F32;
    fx.dt2 = nd;
    if (exact) {
      const NpuOperand &c = plan.operands.at(direct_out);
      fx.dst = gm(direct_out, origin(c, index));
      fx.op = NPU_NZ2ND;
      fx.ints = {var(m16) * lit(16), var(n16) * lit(16), lit(0), N * lit(kEb)};
      call(fx, "L0C -> GM, row-major");
      set_ring(cfree, C_slot);
    } else {
      wait_ring(ubfree, C_slot);
      fx.dst = at(NPU_UB, tile_at(plan.c, C_slot));
      fx.op = NPU_ND;
      fx.ints = {var(m16) * lit(16), var(n16) * lit(16), lit(0), var(n16) * lit(16 * kEb)};
      call(fx, "L0C -> UB (NZ)");
      set_ring(cfree, C_slot);
      set_ring(fixed, C_slot);
      if (has_vec) {
        wait_ring(fixed, C_slot);
        if (loads) wait_ring(ep_ready, C_slot);
        statements(C_slot, var(m16) * lit(16), var(n16) * lit(16));
        if (loads) set_ring(ep_free, C_slot);
        set_ring(out_ready, C_slot);
        wait_ring(out_ready, C_slot);
      } else {
        wait_ring(fixed, C_slot);
      }
      for (const auto &[name, o] : plan.operands)
        if (o.output)
          store_nd(gm(name, origin(o, index)), at(NPU_UB, tile_at(name, C_slot)), var(mr), var(nr),
                   extent(o.shape.back()));
      set_ring(ubfree, C_slot);
    }
    set(ctile, var(ctile) + lit(1));
  };
  if (panel) {
    // Panels (a batch and a row of tiles) round robin; the row's tiles in order.
    loop(t, var(core), batches * tm, var(ncores), [&] {
      set(mt, var(t) % tm);
      set(bt, var(t) / tm);
      loop(nt, lit(0), tn, lit(1), tile, "the panel's output tiles: A stays in L1");
    }, "A panels of " + std::to_string(mc) + " rows, round robin over the cores");
  } else {
    loop(t, var(core), ntiles, var(ncores), [&] {
      set(nt, var(t) % tn);
      set(mt, var(t) / tn % tm);
      set(bt, var(t) / (tn * tm));
      tile();
    }, "output tiles of " + std::to_string(mc) + " x " + std::to_string(nc) + ", round robin over the cores");
  }
  drain_presets();
}

}  // namespace atl::npu::codegen
