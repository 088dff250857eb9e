/* The sample tiled GEMM: GM -> L1 -> L0A/L0B -> cube -> L0C -> fix -> GM with rings of buffers and flags. */
#include "backends/npu/kernels/sample_gemm.h"

#include <stddef.h>

typedef struct {
  npu_ctx_t *c;
  const npu_gemm_params *p;
  int32_t waits;
} gemm_state;

static void wait_f(gemm_state *g, npu_pipe s, npu_pipe d, uint32_t e) {
  if (g->p->no_sync) return;
  if (g->waits++ == g->p->skip_wait) return;
  npu_wait_flag(g->c, s, d, e);
}

static void set_f(gemm_state *g, npu_pipe s, npu_pipe d, uint32_t e) {
  if (!g->p->no_sync) npu_set_flag(g->c, s, d, e);
}

static uint32_t dt_bytes(npu_dtype t) { return t == NPU_I8 ? 1 : (t == NPU_F32 || t == NPU_I32) ? 4 : 2; }
static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

void npu_gemm_default(npu_gemm_params *p, uint32_t M, uint32_t N, uint32_t K, uint32_t mc, uint32_t n0,
                      uint32_t kc, uint32_t k0, npu_dtype ab, npu_dtype acc, npu_dtype out, int db) {
  p->M = M; p->N = N; p->K = K;
  p->mc = mc; p->n0 = n0; p->kc = kc; p->k0 = k0;
  p->ab = ab; p->acc = acc; p->out = out;
  p->a_slots = K / kc + (db ? 1 : 0);
  p->b_slots = db ? 2 : 1;
  p->l0_slots = db ? 2 : 1;
  p->c_slots = db ? 2 : 1;
  p->skip_wait = -1;
  p->nz_gm = 0;
  p->no_sync = 0;
  p->prefetch = db ? 1 : 0;
}

/* Loads A chunk number `seq` of this core (panel seq / nk of the core, K chunk seq % nk) into its ring slot. */
static void load_a_chunk(gemm_state *g, const uint8_t *A, uint32_t seq, uint32_t core, uint32_t ncores) {
  const npu_gemm_params *p = g->p;
  uint32_t eb = dt_bytes(p->ab), nk = p->K / p->kc;
  uint32_t panel = core + (seq / nk) * ncores, j = seq % nk, slot = seq % p->a_slots;
  uint64_t a_bytes = (uint64_t)p->mc * p->kc * eb, row0 = (uint64_t)panel * p->mc;
  wait_f(g, NPU_MTE1, NPU_MTE2, p->b_slots + slot);
  if (p->nz_gm) {
    const uint8_t *src = A + (((uint64_t)j * p->kc / 16) * (p->M / 16) + row0 / 16) * 256 * eb;
    npu_copy(g->c, NPU_L1(slot * a_bytes), npu_gm(src), p->kc / 16, p->mc * 16 * eb, (p->M - p->mc) * 16 * eb, 0,
             NPU_ND, 0, 0, eb);
  } else {
    const uint8_t *src = A + (row0 * p->K + (uint64_t)j * p->kc) * eb;
    npu_copy(g->c, NPU_L1(slot * a_bytes), npu_gm(src), p->mc, p->kc * eb, (p->K - p->kc) * eb, 0, NPU_ND2NZ, p->mc,
             p->kc, eb);
  }
  set_f(g, NPU_MTE2, NPU_MTE1, p->b_slots + slot);
}

void npu_sample_gemm(npu_ctx_t *ctx, void **args) {
  const uint8_t *A = (const uint8_t *)args[0], *B = (const uint8_t *)args[1];
  uint8_t *C = (uint8_t *)args[2];
  const npu_gemm_params *p = (const npu_gemm_params *)args[3];
  gemm_state g = {ctx, p, 0};
  uint32_t core = npu_core_id(ctx), ncores = npu_core_num(ctx);
  uint32_t eb = dt_bytes(p->ab), ceb = dt_bytes(p->acc), oeb = dt_bytes(p->out);
  uint32_t npanels = p->M / p->mc, nk = p->K / p->kc, nsub = p->kc / p->k0, nnb = p->N / p->n0;
  uint64_t fb = 256 * eb;
  uint64_t a_bytes = (uint64_t)p->mc * p->kc * eb, b_bytes = (uint64_t)p->kc * p->n0 * eb;
  uint64_t b_base = p->a_slots * a_bytes;
  uint64_t l0a_bytes = round_up((uint64_t)p->mc * p->k0 * eb, 512), l0b_bytes = round_up((uint64_t)p->k0 * p->n0 * eb, 512);
  uint64_t c_bytes = round_up((uint64_t)p->mc * p->n0 * ceb, 64);
  uint32_t s, seq_loaded = 0, freed = 0, bstep = 0, l0step = 0, ctile = 0, lp = 0, panel;

  for (s = 0; s < p->b_slots; ++s) set_f(&g, NPU_MTE1, NPU_MTE2, s);
  for (s = 0; s < p->a_slots; ++s) set_f(&g, NPU_MTE1, NPU_MTE2, p->b_slots + s);
  for (s = 0; s < p->l0_slots; ++s) set_f(&g, NPU_CUBE, NPU_MTE1, s);
  for (s = 0; s < p->c_slots; ++s) set_f(&g, NPU_FIX, NPU_CUBE, s);

  for (panel = core; panel < npanels && !npu_failed(ctx); panel += ncores, ++lp) {
    uint32_t base = lp * nk, nb, j, kk, jj;
    int has_next = panel + ncores < npanels;
    for (nb = 0; nb < nnb; ++nb) {
      uint32_t cs = ctile % p->c_slots;
      for (j = 0; j < nk; ++j) {
        uint32_t bs = bstep % p->b_slots, aseq = base + j, as = aseq % p->a_slots;
        uint64_t b_l1 = b_base + bs * b_bytes, a_l1 = (uint64_t)as * a_bytes;
        /* MTE2: A chunk j of this panel unless prefetched (loaded just in time, so the cube starts early). */
        while (seq_loaded <= aseq) load_a_chunk(&g, A, seq_loaded++, core, ncores);
        /* MTE2: the B chunk (rows j*kc.., columns nb*n0..). */
        wait_f(&g, NPU_MTE1, NPU_MTE2, bs);
        if (p->nz_gm) {
          const uint8_t *src = B + (((uint64_t)nb * p->n0 / 16) * (p->K / 16) + (uint64_t)j * p->kc / 16) * fb;
          npu_copy(ctx, NPU_L1(b_l1), npu_gm(src), p->n0 / 16, p->kc * 16 * eb, (p->K - p->kc) * 16 * eb, 0, NPU_ND, 0,
                   0, eb);
        } else {
          const uint8_t *src = B + ((uint64_t)j * p->kc * p->N + (uint64_t)nb * p->n0) * eb;
          npu_copy(ctx, NPU_L1(b_l1), npu_gm(src), p->kc, p->n0 * eb, (p->N - p->n0) * eb, 0, NPU_ND2NZ, p->kc, p->n0, eb);
        }
        set_f(&g, NPU_MTE2, NPU_MTE1, bs);
        /* MTE2: prefetch one chunk of the next panel when its ring slot is free. */
        if (p->prefetch && has_next && !(lp == 0 && nb == 0) && seq_loaded < base + 2 * nk &&
            seq_loaded < freed + p->a_slots)
          load_a_chunk(&g, A, seq_loaded++, core, ncores);
        /* MTE1 + CUBE: k0 steps over the chunk. */
        wait_f(&g, NPU_MTE2, NPU_MTE1, bs);
        if (nb == 0) wait_f(&g, NPU_MTE2, NPU_MTE1, p->b_slots + as);
        for (kk = 0; kk < nsub; ++kk) {
          uint32_t ls = l0step % p->l0_slots;
          int first = j == 0 && kk == 0;
          wait_f(&g, NPU_CUBE, NPU_MTE1, ls);
          npu_load_l0(ctx, NPU_L0A(ls * l0a_bytes), NPU_L1(a_l1 + (uint64_t)kk * (p->k0 / 16) * (p->mc / 16) * fb),
                      (p->mc / 16) * (p->k0 / 16), 1, 0, p->ab);
          for (jj = 0; jj < p->n0 / 16; ++jj)
            npu_load_l0(ctx, NPU_L0B(ls * l0b_bytes + (uint64_t)jj * (p->k0 / 16) * fb),
                        NPU_L1(b_l1 + ((uint64_t)jj * (p->kc / 16) + (uint64_t)kk * p->k0 / 16) * fb), p->k0 / 16, 1, 0,
                        p->ab);
          set_f(&g, NPU_MTE1, NPU_CUBE, ls);
          wait_f(&g, NPU_MTE1, NPU_CUBE, ls);
          if (first) wait_f(&g, NPU_FIX, NPU_CUBE, cs);
          npu_mmad(ctx, NPU_L0C(cs * c_bytes), NPU_L0A(ls * l0a_bytes), NPU_L0B(ls * l0b_bytes), p->mc, p->n0, p->k0,
                   p->ab, p->acc, first ? NPU_ZERO : NPU_ACCUM, NPU_L0C(0));
          set_f(&g, NPU_CUBE, NPU_MTE1, ls);
          ++l0step;
        }
        set_f(&g, NPU_MTE1, NPU_MTE2, bs);
        ++bstep;
        if (nb == nnb - 1) {
          set_f(&g, NPU_MTE1, NPU_MTE2, p->b_slots + as);
          freed = aseq + 1;
        }
      }
      /* FIX: the finished C tile to GM, row-major. */
      set_f(&g, NPU_CUBE, NPU_FIX, cs);
      wait_f(&g, NPU_CUBE, NPU_FIX, cs);
      npu_fix(ctx, npu_gm(C + ((uint64_t)panel * p->mc * p->N + (uint64_t)nb * p->n0) * oeb), NPU_L0C(cs * c_bytes),
              p->mc, p->n0, p->acc, p->out, 0, NPU_NZ2ND, p->N * oeb);
      set_f(&g, NPU_FIX, NPU_CUBE, cs);
      ++ctile;
    }
  }
  for (s = 0; s < p->b_slots; ++s) wait_f(&g, NPU_MTE1, NPU_MTE2, s);
  for (s = 0; s < p->a_slots; ++s) wait_f(&g, NPU_MTE1, NPU_MTE2, p->b_slots + s);
  for (s = 0; s < p->l0_slots; ++s) wait_f(&g, NPU_CUBE, NPU_MTE1, s);
  for (s = 0; s < p->c_slots; ++s) wait_f(&g, NPU_FIX, NPU_CUBE, s);
}
