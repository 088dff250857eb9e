/* Forward substitution L X = B for many right-hand sides (one per column). */
#include "harness.h"
#define N 1200
#define M 1000
static double L[N][N], X[N][M];

static void init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) L[i][j] = (j > i) ? 0 : (i == j) ? 2.0 : (double)((i + j) % 5) / (5.0 * N);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) X[i][j] = (double)((i * 3 + j) % 19) / 19;
}

KERNEL void kernel_triangular_solve(void) {
  for (int j = 0; j < M; j++)
    for (int i = 0; i < N; i++) {
      for (int k = 0; k < i; k++) X[i][j] -= L[i][k] * X[k][j];
      X[i][j] /= L[i][i];
    }
}

static double checksum(void) { double s = 0; LOOPS_SUM2(s, X, N, M); return s; }
int main(void) { return loops_main(init, kernel_triangular_solve, checksum); }
