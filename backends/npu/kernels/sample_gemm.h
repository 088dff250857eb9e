/* A hand-written tiled GEMM for the NPU model (C99): the reference kernel for tests, the
 * analytical model's rank check and the future backend. C[M x N] = A[M x K] * B[K x N]. */
#ifndef ATOLL_NPU_SAMPLE_GEMM_H
#define ATOLL_NPU_SAMPLE_GEMM_H

#include "npu_intrin.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Parameters (gm_args[3] points at one). Tiles: an A panel of mc rows x K lives in L1 as
 *  K/kc chunks in a ring of a_slots; B streams through L1 in kc x n0 chunks (b_slots);
 *  L0A holds mc x k0, L0B k0 x n0 (l0_slots each); L0C holds the mc x n0 C tile (c_slots).
 *  Panels of mc rows are dealt to cores round robin. All sizes multiples of 16;
 *  M % mc == N % n0 == K % kc == kc % k0 == 0; a_slots >= K/kc; b_slots + a_slots <= events. */
typedef struct {
  uint32_t M, N, K;
  uint32_t mc, n0, kc, k0;
  npu_dtype ab, acc, out;
  uint32_t a_slots, b_slots, l0_slots, c_slots;
  int32_t skip_wait;  /**< -1, or drop this core's i-th npu_wait_flag call (mutation tests) */
  uint32_t nz_gm;     /**< A and B are stored in GM in NZ order (pre-packed) rather than row-major */
  uint32_t no_sync;   /**< drop every flag (hazard checker tests) */
  uint32_t prefetch;  /**< load the next panel's A chunks while the current one computes */
} npu_gemm_params;

/** gm_args: A, B, C (row-major M x N of `out`), params. */
void npu_sample_gemm(npu_ctx_t *ctx, void **gm_args);

/** Fills p with a single-buffered (db == 0) or double-buffered configuration. */
void npu_gemm_default(npu_gemm_params *p, uint32_t M, uint32_t N, uint32_t K, uint32_t mc, uint32_t n0,
                      uint32_t kc, uint32_t k0, npu_dtype ab, npu_dtype acc, npu_dtype out, int db);

#ifdef __cplusplus
}
#endif

#endif
