/* A chain of two matrix products, E = (A * B) * D, through a temporary. */
#include "harness.h"
#define N 640
static double A[N][N], B[N][N], D[N][N], T[N][N], E[N][N];

static void init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (double)((i * j + 3) % N) / N;
      B[i][j] = (double)((i + 2 * j) % N) / N;
      D[i][j] = (double)((3 * i + j + 1) % N) / N;
    }
}

KERNEL void kernel_matmul_chain(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      T[i][j] = 0;
      for (int k = 0; k < N; k++) T[i][j] += A[i][k] * B[k][j];
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      E[i][j] = 0;
      for (int k = 0; k < N; k++) E[i][j] += T[i][k] * D[k][j];
    }
}

static double checksum(void) { double s = 0; LOOPS_SUM2(s, E, N, N); return s; }
int main(void) { return loops_main(init, kernel_matmul_chain, checksum); }
