/* Gauss-Seidel sweeps of a nine-point stencil, in place, T time steps. */
#include "harness.h"
#define N 1000
#define T 40
static double A[N][N];

static void init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) A[i][j] = ((double)i * (j + 2) + 2) / N;
}

KERNEL void kernel_gauss_seidel_2d(void) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] + A[i][j - 1] + A[i][j] + A[i][j + 1] +
                   A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
}

static double checksum(void) { double s = 0; LOOPS_SUM2(s, A, N, N); return s; }
int main(void) { return loops_main(init, kernel_gauss_seidel_2d, checksum); }
