/* Vector-unit test kernels: row softmax, layer norm, and a two-core elementwise chain with npu_sync_all. */
#include "kernels.h"

/* A shape of `repeat` rows of 64 f32 lanes whose src1 is one 32-byte block per repeat (broadcast). */
static npu_vshape row_bcast(uint32_t repeat, uint16_t src1_rep) {
  npu_vshape s = npu_vshape_contiguous(repeat);
  s.src1_blk = 0;
  s.src1_rep = src1_rep;
  return s;
}

/* For each row r (64 f32 at src + r*256), writes 8 copies of its reduction at dst + r*32. */
static void reduce_rows(npu_ctx_t *c, npu_vredop op, uint64_t dst, uint64_t src, uint32_t R) {
  uint32_t r;
  for (r = 0; r < R; ++r) {
    npu_vshape s = npu_vshape_contiguous(8);
    s.src0_rep = 0; /* eight repeats over the same row: eight copies of its result */
    npu_vreduce(c, op, NPU_UB(dst + r * 32), NPU_UB(src + r * 256), NPU_F32, s);
  }
}

void k_softmax(npu_ctx_t *c, void **a) {
  const softmax_params *p = (const softmax_params *)a[2];
  uint32_t R = p->R;
  uint64_t X = 0, M = R * 256, S = M + R * 32;
  if (npu_core_id(c) != 0) return; /* single-core kernel */
  npu_copy(c, NPU_UB(X), npu_gm(a[0]), 1, R * 256, 0, 0, NPU_ND, 0, 0, 4);
  npu_set_flag(c, NPU_MTE2, NPU_VEC, 0);
  npu_wait_flag(c, NPU_MTE2, NPU_VEC, 0);
  reduce_rows(c, NPU_RMAX, M, X, R);
  npu_vbin(c, NPU_SUB, NPU_UB(X), NPU_UB(X), NPU_UB(M), NPU_F32, row_bcast(R, 1));
  npu_vun(c, NPU_EXP, NPU_UB(X), NPU_UB(X), NPU_F32, npu_vshape_contiguous(R));
  reduce_rows(c, NPU_RSUM, S, X, R);
  npu_vun(c, NPU_RECIP, NPU_UB(S), NPU_UB(S), NPU_F32, npu_vshape_contiguous(R / 8));
  npu_vbin(c, NPU_MUL, NPU_UB(X), NPU_UB(X), NPU_UB(S), NPU_F32, row_bcast(R, 1));
  npu_set_flag(c, NPU_VEC, NPU_MTE3, 0);
  npu_wait_flag(c, NPU_VEC, NPU_MTE3, 0);
  npu_copy(c, npu_gm(a[1]), NPU_UB(X), 1, R * 256, 0, 0, NPU_ND, 0, 0, 4);
}

void k_layernorm(npu_ctx_t *c, void **a) {
  const layernorm_params *p = (const layernorm_params *)a[4];
  uint32_t R = p->R;
  uint64_t X = 0, G = R * 256, B = G + 256, S = B + 256, V = S + R * 32, Y = V + R * 32;
  npu_vshape vec_bcast = npu_vshape_contiguous(R);
  if (npu_core_id(c) != 0) return; /* single-core kernel */
  vec_bcast.src1_rep = 0; /* gamma/beta: the same 64 lanes for every row */
  npu_copy(c, NPU_UB(X), npu_gm(a[0]), 1, R * 256, 0, 0, NPU_ND, 0, 0, 4);
  npu_copy(c, NPU_UB(G), npu_gm(a[1]), 1, 256, 0, 0, NPU_ND, 0, 0, 4);
  npu_copy(c, NPU_UB(B), npu_gm(a[2]), 1, 256, 0, 0, NPU_ND, 0, 0, 4);
  npu_set_flag(c, NPU_MTE2, NPU_VEC, 0);
  npu_wait_flag(c, NPU_MTE2, NPU_VEC, 0);
  reduce_rows(c, NPU_RSUM, S, X, R);
  npu_vscalar(c, NPU_MUL, NPU_UB(S), NPU_UB(S), 1.0 / 64, NPU_F32, npu_vshape_contiguous(R / 8));
  npu_vbin(c, NPU_SUB, NPU_UB(X), NPU_UB(X), NPU_UB(S), NPU_F32, row_bcast(R, 1)); /* centred */
  npu_vbin(c, NPU_MUL, NPU_UB(Y), NPU_UB(X), NPU_UB(X), NPU_F32, npu_vshape_contiguous(R));
  reduce_rows(c, NPU_RSUM, V, Y, R);
  npu_vscalar(c, NPU_MUL, NPU_UB(V), NPU_UB(V), 1.0 / 64, NPU_F32, npu_vshape_contiguous(R / 8));
  npu_vscalar(c, NPU_ADD, NPU_UB(V), NPU_UB(V), p->eps, NPU_F32, npu_vshape_contiguous(R / 8));
  npu_vun(c, NPU_RSQRT, NPU_UB(V), NPU_UB(V), NPU_F32, npu_vshape_contiguous(R / 8));
  npu_vbin(c, NPU_MUL, NPU_UB(Y), NPU_UB(X), NPU_UB(V), NPU_F32, row_bcast(R, 1));
  npu_vbin(c, NPU_MUL, NPU_UB(Y), NPU_UB(Y), NPU_UB(G), NPU_F32, vec_bcast);
  npu_vbin(c, NPU_ADD, NPU_UB(Y), NPU_UB(Y), NPU_UB(B), NPU_F32, vec_bcast);
  npu_set_flag(c, NPU_VEC, NPU_MTE3, 0);
  npu_wait_flag(c, NPU_VEC, NPU_MTE3, 0);
  npu_copy(c, npu_gm(a[3]), NPU_UB(Y), 1, R * 256, 0, 0, NPU_ND, 0, 0, 4);
}

void k_eltwise2(npu_ctx_t *c, void **a) {
  const eltwise_params *p = (const eltwise_params *)a[5];
  uint32_t core = npu_core_id(c), ncores = npu_core_num(c);
  uint32_t half = p->n / ncores, rep = half / 128; /* f16: 128 lanes per repeat */
  uint64_t off = (uint64_t)core * half * 2, bytes = (uint64_t)half * 2;
  uint64_t A = 0, B = bytes, C = 2 * bytes, T = 3 * bytes, D = 4 * bytes;
  const uint8_t *other = (const uint8_t *)a[3] + (uint64_t)((core + 1) % ncores) * half * 2;
  npu_copy(c, NPU_UB(A), npu_gm((const uint8_t *)a[0] + off), 1, (uint32_t)bytes, 0, 0, NPU_ND, 0, 0, 2);
  npu_copy(c, NPU_UB(B), npu_gm((const uint8_t *)a[1] + off), 1, (uint32_t)bytes, 0, 0, NPU_ND, 0, 0, 2);
  npu_copy(c, NPU_UB(C), npu_gm((const uint8_t *)a[2] + off), 1, (uint32_t)bytes, 0, 0, NPU_ND, 0, 0, 2);
  npu_set_flag(c, NPU_MTE2, NPU_VEC, 0);
  npu_wait_flag(c, NPU_MTE2, NPU_VEC, 0);
  npu_vbin(c, NPU_MUL, NPU_UB(T), NPU_UB(A), NPU_UB(B), NPU_F16, npu_vshape_contiguous(rep));
  npu_vbin(c, NPU_ADD, NPU_UB(T), NPU_UB(T), NPU_UB(C), NPU_F16, npu_vshape_contiguous(rep));
  npu_vun(c, NPU_RELU, NPU_UB(T), NPU_UB(T), NPU_F16, npu_vshape_contiguous(rep));
  npu_vscalar(c, NPU_MUL, NPU_UB(T), NPU_UB(T), 0.5, NPU_F16, npu_vshape_contiguous(rep));
  npu_set_flag(c, NPU_VEC, NPU_MTE3, 0);
  npu_wait_flag(c, NPU_VEC, NPU_MTE3, 0);
  npu_copy(c, npu_gm((uint8_t *)a[3] + off), NPU_UB(T), 1, (uint32_t)bytes, 0, 0, NPU_ND, 0, 0, 2);
  if (p->use_sync) npu_sync_all(c);
  /* Phase 2 reads the half the other core wrote (into fresh UB, so that only the cores need ordering). */
  npu_copy(c, NPU_UB(D), npu_gm(other), 1, (uint32_t)bytes, 0, 0, NPU_ND, 0, 0, 2);
  npu_set_flag(c, NPU_MTE2, NPU_VEC, 1);
  npu_wait_flag(c, NPU_MTE2, NPU_VEC, 1);
  npu_vscalar(c, NPU_ADD, NPU_UB(D), NPU_UB(D), 1.0, NPU_F16, npu_vshape_contiguous(rep));
  npu_set_flag(c, NPU_VEC, NPU_MTE3, 1);
  npu_wait_flag(c, NPU_VEC, NPU_MTE3, 1);
  npu_copy(c, npu_gm((uint8_t *)a[4] + off), NPU_UB(D), 1, (uint32_t)bytes, 0, 0, NPU_ND, 0, 0, 2);
}
