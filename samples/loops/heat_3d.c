/* A seven-point heat stencil in three dimensions, two arrays, T time steps. */
#include "harness.h"
#define N 120
#define T 40
static double A[N][N][N], B[N][N][N];

static void init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++) { A[i][j][k] = (double)((i + j + (N - k)) % 10) / 10; B[i][j][k] = A[i][j][k]; }
}

KERNEL void kernel_heat_3d(void) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        for (int k = 1; k < N - 1; k++)
          B[i][j][k] = A[i][j][k] + 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                                  + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                                  + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        for (int k = 1; k < N - 1; k++)
          A[i][j][k] = B[i][j][k] + 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                                  + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                                  + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1]);
  }
}

static double checksum(void) {
  double s = 0;
  for (int i = 0; i < N; i++) LOOPS_SUM2(s, A[i], N, N);
  return s;
}
int main(void) { return loops_main(init, kernel_heat_3d, checksum); }
