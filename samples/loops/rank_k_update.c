/* Symmetric rank-k update of the lower triangle: C = beta C + alpha A A^T. */
#include "harness.h"
#define N 1000
#define M 900
static double A[N][M], C[N][N];

static void init(void) {
  for (int i = 0; i < N; i++)
    for (int k = 0; k < M; k++) A[i][k] = (double)((i * k + 1) % N) / N;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) C[i][j] = (double)((i * j + 2) % M) / M;
}

KERNEL void kernel_rank_k_update(void) {
  const double alpha = 1.5, beta = 1.2;
  for (int i = 0; i < N; i++) {
    for (int j = 0; j <= i; j++) C[i][j] *= beta;
    for (int j = 0; j <= i; j++)
      for (int k = 0; k < M; k++) C[i][j] += alpha * A[i][k] * A[j][k];
  }
}

static double checksum(void) { double s = 0; LOOPS_SUM2(s, C, N, N); return s; }
int main(void) { return loops_main(init, kernel_rank_k_update, checksum); }
