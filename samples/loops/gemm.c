/* C = beta * C + alpha * A * B, written in the textbook i, j, k order. */
#include "harness.h"
#define NI 1000
#define NJ 1100
#define NK 1200
static double A[NI][NK], B[NK][NJ], C[NI][NJ];

static void init(void) {
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK; k++) A[i][k] = (double)((i * k + 1) % NK) / NK;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ; j++) B[k][j] = (double)((k * (j + 1)) % NJ) / NJ;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) C[i][j] = (double)((i + j) % 13) / 13;
}

KERNEL void kernel_gemm(void) {
  const double alpha = 1.5, beta = 1.2;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < NK; k++) C[i][j] += alpha * A[i][k] * B[k][j];
    }
}

static double checksum(void) { double s = 0; LOOPS_SUM2(s, C, NI, NJ); return s; }
int main(void) { return loops_main(init, kernel_gemm, checksum); }
