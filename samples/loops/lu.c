/* LU decomposition in place, without pivoting, of a diagonally dominant matrix. */
#include "harness.h"
#define N 1000
static double A[N][N];

static void init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) A[i][j] = (i == j) ? N : (double)((i * 7 + j * 3) % 10) / 10.0;
}

KERNEL void kernel_lu(void) {
  for (int k = 0; k < N; k++) {
    for (int i = k + 1; i < N; i++) A[i][k] /= A[k][k];
    for (int i = k + 1; i < N; i++)
      for (int j = k + 1; j < N; j++) A[i][j] -= A[i][k] * A[k][j];
  }
}

static double checksum(void) { double s = 0; LOOPS_SUM2(s, A, N, N); return s; }
int main(void) { return loops_main(init, kernel_lu, checksum); }
