/* Hand-written NPU test kernels (C99, against npu_intrin.h) and their parameter blocks. */
#ifndef ATOLL_NPU_TEST_KERNELS_H
#define ATOLL_NPU_TEST_KERNELS_H

#include "npu_intrin.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Row softmax, f32, rows of 64: gm_args X (R x 64), Y, params {R}. R a multiple of 8, R <= 255. */
typedef struct { uint32_t R; } softmax_params;
void k_softmax(npu_ctx_t *, void **gm_args);

/** Layer norm over rows of 64 f32: gm_args X, gamma (64), beta (64), Y, params {R, eps}. */
typedef struct { uint32_t R; float eps; } layernorm_params;
void k_layernorm(npu_ctx_t *, void **gm_args);

/** y[i] = relu(a[i] * b[i] + c[i]) * 0.5 in f16, then z[i] = y[(i + n/2) % n] + 1 after a
 *  sync_all: each core handles half. gm_args a, b, c, y, z, params {n, use_sync}. */
typedef struct { uint32_t n; uint32_t use_sync; } eltwise_params;
void k_eltwise2(npu_ctx_t *, void **gm_args);

/** Convolution through img2col, f16 in, f32 out: input NC1HWC0 (C1 x H x W x 16), weights as a
 *  row-major (C1*kh*kw*16) x cout matrix (rows ordered c1, ky, kx, c0), output (OH*OW) x cout.
 *  gm_args in, w, out, params. */
typedef struct { uint32_t C1, H, W, kh, kw, sh, sw, ph, pw, cout; } conv_params;
void k_conv(npu_ctx_t *, void **gm_args);

/** Small kernels that break one rule each: gm_args[0] -> int32 case, gm_args[1] a 4 KiB buffer. */
enum {
  ERR_OVERFLOW_L0A, ERR_MISALIGNED, ERR_ILLEGAL_PATH, ERR_REPEAT, ERR_EVENT, ERR_RACE, ERR_UNINIT, ERR_DEADLOCK,
  ERR_SET_TWICE, ERR_BAD_CUBE_TYPE, ERR_BARRIER_OK, ERR_COUNT
};
void k_errors(npu_ctx_t *, void **gm_args);

#ifdef __cplusplus
}
#endif

#endif
