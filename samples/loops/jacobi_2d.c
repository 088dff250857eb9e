/* A five-point Jacobi stencil on a grid, two arrays, T time steps. */
#include "harness.h"
#define N 1300
#define T 100
static double A[N][N], B[N][N];

static void init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) { A[i][j] = (double)((i * (j + 2) + 2) % N) / N; B[i][j] = 0; }
}

KERNEL void kernel_jacobi_2d(void) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
  }
}

static double checksum(void) { double s = 0; LOOPS_SUM2(s, A, N, N); return s; }
int main(void) { return loops_main(init, kernel_jacobi_2d, checksum); }
