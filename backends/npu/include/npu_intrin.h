/* The Atoll NPU intrinsic API (C99): what NPU kernels call; the simulator in libatoll_npu implements it.
 *
 * Contract: shared/spec/npu-model.md, user guide: docs/npu.md. Every call takes the kernel's
 * context first; sizes are bytes unless a comment says otherwise. A call that breaks a rule
 * (alignment, capacity, shape multiple, repeat limit, illegal path, event range) records an
 * error in the context naming the call, its position in the core's trace and the rule; every
 * later call of every core is then a no-op and the launcher reports the error. Kernels may
 * test npu_failed() to leave long loops early. */
#ifndef ATOLL_NPU_INTRIN_H
#define ATOLL_NPU_INTRIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque per-core kernel context. */
typedef struct npu_ctx npu_ctx_t;

/** Element types. */
typedef enum { NPU_F16, NPU_BF16, NPU_F32, NPU_I8, NPU_I32 } npu_dtype;

/** Memories: global memory and the on-chip buffers of one core. */
typedef enum { NPU_GM, NPU_L1, NPU_L0A, NPU_L0B, NPU_L0C, NPU_UB } npu_mem;

/** An address: a memory and a byte offset (GM: the offset is a host address). */
typedef struct {
  npu_mem mem;
  uint64_t off;
} npu_addr;

/** Pipes (instruction queues) of a core. */
typedef enum { NPU_MTE1, NPU_MTE2, NPU_MTE3, NPU_CUBE, NPU_VEC, NPU_FIX, NPU_SCALAR } npu_pipe;

/** A GM address from a kernel argument (or a pointer computed from one). */
npu_addr npu_gm(const void *host_ptr);
/** An address `byte_off` bytes after `a`. */
npu_addr npu_add(npu_addr a, uint64_t byte_off);

#ifdef __cplusplus
#define NPU_ADDR_(m, o) (npu_addr{(m), (uint64_t)(o)})
#else
#define NPU_ADDR_(m, o) ((npu_addr){(m), (uint64_t)(o)})
#endif
#define NPU_L1(o) NPU_ADDR_(NPU_L1, (o))
#define NPU_L0A(o) NPU_ADDR_(NPU_L0A, (o))
#define NPU_L0B(o) NPU_ADDR_(NPU_L0B, (o))
#define NPU_L0C(o) NPU_ADDR_(NPU_L0C, (o))
#define NPU_UB(o) NPU_ADDR_(NPU_UB, (o))

/* ---- DMA ----------------------------------------------------------------------------------
 * Runs on the pipe that owns the path "SRC>DST" (e.g. GM>L1 on MTE2).
 * NPU_ND: n_burst rows of burst_bytes; src_gap/dst_gap bytes skipped after each row. On an
 *   on-chip side, the address is aligned to that memory's `align` and burst_bytes and the gap
 *   are multiples of 32 bytes.
 * NPU_ND2NZ: the source is a row-major rows x cols matrix of elem_bytes elements whose rows are
 *   cols*elem_bytes + src_gap bytes apart (n_burst = rows, burst_bytes = cols*elem_bytes); the
 *   destination is its NZ form: contiguous 16x16 fractals, fractal (i, j) (row block i, column
 *   block j) at index j*ceil(rows/16) + i, elements row-major inside; the padding to multiples
 *   of 16 is filled with zeros. dst_gap must be 0.
 * NPU_NZ2ND: the inverse (source contiguous NZ, destination rows cols*elem_bytes + dst_gap
 *   apart; src_gap must be 0). */
typedef enum { NPU_ND, NPU_ND2NZ, NPU_NZ2ND } npu_layout;
void npu_copy(npu_ctx_t *, npu_addr dst, npu_addr src, uint32_t n_burst, uint32_t burst_bytes,
              uint32_t src_gap, uint32_t dst_gap, npu_layout layout, uint32_t rows, uint32_t cols,
              uint32_t elem_bytes);

/** L1 -> L0A/L0B: n_frac fractals (16x16 elements each), frac_stride fractals apart in L1,
 *  written contiguously; transpose != 0 transposes each fractal. */
void npu_load_l0(npu_ctx_t *, npu_addr dst, npu_addr src_l1, uint32_t n_frac, uint32_t frac_stride,
                 int transpose, npu_dtype);

/** L1 (one C1 slice of NC1HWC0: H x W x 16 elements) -> L0A in NZ order: the im2col matrix
 *  of output pixels [first_pixel, first_pixel + n_pixels) (row p) by kh*kw*16 columns
 *  (column (ky*kw + kx)*16 + c0); n_pixels is a multiple of 16; pixels past the output and
 *  taps in the padding read as zero. */
void npu_img2col(npu_ctx_t *, npu_addr dst_l0a, npu_addr src_l1, uint32_t H, uint32_t W, uint32_t kh,
                 uint32_t kw, uint32_t sh, uint32_t sw, uint32_t ph, uint32_t pw, uint32_t dh,
                 uint32_t dw, uint32_t first_pixel, uint32_t n_pixels, npu_dtype);

/* ---- Cube -------------------------------------------------------------------------------- */
/** C[m x n] (L0C, NZ, acc) = init + A[m x k] (L0A, NZ) * B[k x n] (L0B, NZ); m, n, k multiples
 *  of the cube shape; (ab, ab, acc) must be a row of the target's cube types. NPU_BIAS adds a
 *  row of n acc elements stored in L0C at `bias`, broadcast over the m rows. */
typedef enum { NPU_ZERO, NPU_ACCUM, NPU_BIAS } npu_init;
void npu_mmad(npu_ctx_t *, npu_addr c_l0c, npu_addr a_l0a, npu_addr b_l0b, uint32_t m, uint32_t n,
              uint32_t k, npu_dtype ab, npu_dtype acc, npu_init, npu_addr bias);

/** L0C -> UB/GM/L1 on the pipe owning the path (FIX): m x n accumulators (NZ) converted to `to`
 *  (round to nearest even; integers saturate), ReLU first when relu != 0; NPU_NZ2ND writes
 *  row-major rows dst_row_bytes apart, NPU_ND keeps the NZ order (contiguous). */
void npu_fix(npu_ctx_t *, npu_addr dst, npu_addr src_l0c, uint32_t m, uint32_t n, npu_dtype acc,
             npu_dtype to, int relu, npu_layout, uint32_t dst_row_bytes);

/* ---- Vector unit (UB only) ----------------------------------------------------------------
 * One repeat covers repeat_bytes (8 blocks of 32 bytes) of the widest operand type; lane l of
 * repeat r of an operand with element size e sits at
 *   base + (r*rep + (l*e/32)*blk)*32 + (l*e)%32.
 * mask bit l (mask[l/64] >> l%64) enables lane l; 1 <= repeat <= max_repeat. */
typedef struct {
  uint32_t repeat;
  uint16_t dst_blk, src0_blk, src1_blk;
  uint16_t dst_rep, src0_rep, src1_rep;
  uint64_t mask[2];
} npu_vshape;
typedef enum { NPU_ADD, NPU_SUB, NPU_MUL, NPU_DIV, NPU_MAX, NPU_MIN } npu_vbinop;
typedef enum { NPU_EXP, NPU_LN, NPU_SQRT, NPU_RSQRT, NPU_RECIP, NPU_ABS, NPU_RELU, NPU_TANH,
               NPU_NEG } npu_vunop;
typedef enum { NPU_RSUM, NPU_RMAX, NPU_RMIN } npu_vredop;
void npu_vbin(npu_ctx_t *, npu_vbinop, npu_addr dst, npu_addr a, npu_addr b, npu_dtype, npu_vshape);
void npu_vun(npu_ctx_t *, npu_vunop, npu_addr dst, npu_addr src, npu_dtype, npu_vshape);
void npu_vscalar(npu_ctx_t *, npu_vbinop, npu_addr dst, npu_addr src, double s, npu_dtype,
                 npu_vshape);
/** One result per repeat (active lanes, lane order), written contiguously at dst. */
void npu_vreduce(npu_ctx_t *, npu_vredop, npu_addr dst, npu_addr src, npu_dtype, npu_vshape);
void npu_vdup(npu_ctx_t *, npu_addr dst, double s, npu_dtype, npu_vshape);
void npu_vconv(npu_ctx_t *, npu_addr dst, npu_dtype to, npu_addr src, npu_dtype from, npu_vshape);
/** dst = cmp(a, b) ? if_true : if_false with cmp NPU_MAX: a > b, NPU_MIN: a < b. */
void npu_vcmp_select(npu_ctx_t *, npu_vbinop cmp, npu_addr dst, npu_addr a, npu_addr b,
                     npu_addr if_true, npu_addr if_false, npu_dtype, npu_vshape);
/** A shape of `repeat` contiguous repeats with every lane enabled. */
npu_vshape npu_vshape_contiguous(uint32_t repeat);
/** Sets mask to the first n_lanes lanes. */
void npu_vshape_set_lanes(npu_vshape *, uint32_t n_lanes);

/* ---- Synchronisation and SPMD ------------------------------------------------------------ */
void npu_set_flag(npu_ctx_t *, npu_pipe src, npu_pipe dst, uint32_t event);
void npu_wait_flag(npu_ctx_t *, npu_pipe src, npu_pipe dst, uint32_t event);
void npu_barrier(npu_ctx_t *, npu_pipe);
uint32_t npu_core_id(npu_ctx_t *);
uint32_t npu_core_num(npu_ctx_t *);
/** All cores, all pipes: every instruction before it on any core precedes every one after. */
void npu_sync_all(npu_ctx_t *);
/** Non-zero once the run has failed (every call is then a no-op). */
int npu_failed(npu_ctx_t *);

/** Kernel ABI: launched SPMD on `cores` instances; gm_args are the GM buffers. */
typedef void (*npu_kernel_fn)(npu_ctx_t *, void **gm_args);

#ifdef __cplusplus
}
#endif

#endif /* ATOLL_NPU_INTRIN_H */
