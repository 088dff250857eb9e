/* Convolution test kernel: input to L1, img2col into L0A, weights ND2NZ into L1 and L0B, cube, fix to GM. */
#include "kernels.h"

void k_conv(npu_ctx_t *c, void **a) {
  const conv_params *p = (const conv_params *)a[3];
  uint32_t OH = (p->H + 2 * p->ph - p->kh) / p->sh + 1, OW = (p->W + 2 * p->pw - p->kw) / p->sw + 1;
  uint32_t pixels = (OH * OW + 15) / 16 * 16, taps = p->kh * p->kw, K = p->C1 * taps * 16, c1;
  uint64_t slice = (uint64_t)p->H * p->W * 16 * 2, in_bytes = slice * p->C1;
  uint64_t w_l1 = (in_bytes + 511) / 512 * 512;
  if (npu_core_id(c) != 0) return; /* one convolution: core 0 does it */
  npu_copy(c, NPU_L1(0), npu_gm(a[0]), 1, (uint32_t)in_bytes, 0, 0, NPU_ND, 0, 0, 2);
  npu_copy(c, NPU_L1(w_l1), npu_gm(a[1]), K, p->cout * 2, 0, 0, NPU_ND2NZ, K, p->cout, 2);
  npu_set_flag(c, NPU_MTE2, NPU_MTE1, 0);
  npu_wait_flag(c, NPU_MTE2, NPU_MTE1, 0);
  for (c1 = 0; c1 < p->C1; ++c1)
    npu_img2col(c, NPU_L0A((uint64_t)c1 * taps * pixels * 16 * 2), NPU_L1(c1 * slice), p->H, p->W, p->kh, p->kw,
                p->sh, p->sw, p->ph, p->pw, 1, 1, 0, pixels, NPU_F16);
  npu_load_l0(c, NPU_L0B(0), NPU_L1(w_l1), (K / 16) * (p->cout / 16), 1, 0, NPU_F16);
  npu_set_flag(c, NPU_MTE1, NPU_CUBE, 0);
  npu_wait_flag(c, NPU_MTE1, NPU_CUBE, 0);
  npu_mmad(c, NPU_L0C(0), NPU_L0A(0), NPU_L0B(0), pixels, p->cout, K, NPU_F16, NPU_F32, NPU_ZERO, NPU_L0C(0));
  npu_set_flag(c, NPU_CUBE, NPU_FIX, 0);
  npu_wait_flag(c, NPU_CUBE, NPU_FIX, 0);
  npu_fix(c, npu_gm(a[2]), NPU_L0C(0), pixels, p->cout, NPU_F32, NPU_F32, 0, NPU_NZ2ND, p->cout * 4);
}
