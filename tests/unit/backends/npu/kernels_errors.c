/* Kernels that each break one rule of the NPU model (for the error tests). */
#include "kernels.h"

void k_errors(npu_ctx_t *c, void **a) {
  int32_t which = *(const int32_t *)a[0];
  uint8_t *buf = (uint8_t *)a[1];
  npu_vshape s = npu_vshape_contiguous(1);
  switch (which) {
  case ERR_OVERFLOW_L0A: /* 64 f16 fractals = 32 KiB into an L0A of the tiny profile (4 KiB) */
    npu_copy(c, NPU_L1(0), npu_gm(buf), 1, 4096, 0, 0, NPU_ND, 0, 0, 2);
    npu_load_l0(c, NPU_L0A(0), NPU_L1(0), 64, 0 + 1, 0, NPU_F16);
    break;
  case ERR_MISALIGNED:
    npu_copy(c, NPU_L1(16), npu_gm(buf), 1, 64, 0, 0, NPU_ND, 0, 0, 2);
    break;
  case ERR_ILLEGAL_PATH:
    npu_copy(c, NPU_L0A(0), npu_gm(buf), 1, 512, 0, 0, NPU_ND, 0, 0, 2);
    break;
  case ERR_REPEAT:
    npu_copy(c, NPU_UB(0), npu_gm(buf), 1, 256, 0, 0, NPU_ND, 0, 0, 4);
    s.repeat = 256;
    s.src0_rep = s.src1_rep = s.dst_rep = 0;
    npu_vbin(c, NPU_ADD, NPU_UB(0), NPU_UB(0), NPU_UB(0), NPU_F32, s);
    break;
  case ERR_EVENT:
    npu_set_flag(c, NPU_MTE2, NPU_VEC, 8);
    break;
  case ERR_RACE: /* the vector unit reads UB that MTE2 writes, with no flag between them */
    npu_copy(c, NPU_UB(0), npu_gm(buf), 1, 256, 0, 0, NPU_ND, 0, 0, 4);
    npu_vbin(c, NPU_ADD, NPU_UB(256), NPU_UB(0), NPU_UB(0), NPU_F32, s);
    break;
  case ERR_UNINIT:
    npu_vbin(c, NPU_ADD, NPU_UB(256), NPU_UB(0), NPU_UB(0), NPU_F32, s);
    break;
  case ERR_DEADLOCK: /* each pipe waits for a set that the other pipe only makes after its own wait */
    npu_wait_flag(c, NPU_VEC, NPU_MTE2, 0);
    npu_wait_flag(c, NPU_MTE2, NPU_VEC, 0);
    npu_set_flag(c, NPU_MTE2, NPU_VEC, 0);
    npu_set_flag(c, NPU_VEC, NPU_MTE2, 0);
    break;
  case ERR_SET_TWICE:
    npu_set_flag(c, NPU_MTE2, NPU_VEC, 0);
    npu_set_flag(c, NPU_MTE2, NPU_VEC, 0);
    break;
  case ERR_BAD_CUBE_TYPE:
    npu_mmad(c, NPU_L0C(0), NPU_L0A(0), NPU_L0B(0), 16, 16, 16, NPU_BF16, NPU_F32, NPU_ZERO, NPU_L0C(0));
    break;
  case ERR_BARRIER_OK: /* the race of ERR_RACE, ordered by a barrier: no error */
    npu_copy(c, NPU_UB(0), npu_gm(buf), 1, 256, 0, 0, NPU_ND, 0, 0, 4);
    npu_barrier(c, NPU_MTE2);
    npu_vbin(c, NPU_ADD, NPU_UB(256), NPU_UB(0), NPU_UB(0), NPU_F32, s);
    npu_barrier(c, NPU_VEC);
    npu_copy(c, npu_gm(buf + 256), NPU_UB(256), 1, 256, 0, 0, NPU_ND, 0, 0, 4);
    break;
  default:
    break;
  }
}
