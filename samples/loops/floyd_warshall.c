/* All-pairs shortest paths (Floyd-Warshall) on an integer distance matrix. */
#include "harness.h"
#define N 1000
static int D[N][N];

static void init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)  /* some edges missing (999), as arithmetic, not control flow */
      D[i][j] = i * j % 7 + 1 + 998 * ((i + j) % 13 == 0) + 998 * ((i + j) % 11 == 0);
}

KERNEL void kernel_floyd_warshall(void) {
  for (int k = 0; k < N; k++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        D[i][j] = D[i][j] < D[i][k] + D[k][j] ? D[i][j] : D[i][k] + D[k][j];
}

static double checksum(void) { double s = 0; LOOPS_SUM2(s, D, N, N); return s; }
int main(void) { return loops_main(init, kernel_floyd_warshall, checksum); }
