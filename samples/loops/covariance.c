/* The covariance matrix of M variables over N observations. */
#include "harness.h"
#define N 1100
#define M 1000
static double Data[N][M], Mean[M], Cov[M][M];

static void init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) Data[i][j] = (double)(i * j % 97) / 97;
}

KERNEL void kernel_covariance(void) {
  for (int j = 0; j < M; j++) {
    Mean[j] = 0.0;
    for (int i = 0; i < N; i++) Mean[j] += Data[i][j];
    Mean[j] /= N;
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) Data[i][j] -= Mean[j];
  for (int a = 0; a < M; a++)
    for (int b = a; b < M; b++) {
      Cov[a][b] = 0.0;
      for (int k = 0; k < N; k++) Cov[a][b] += Data[k][a] * Data[k][b];
      Cov[a][b] /= (N - 1.0);
      Cov[b][a] = Cov[a][b];
    }
}

static double checksum(void) { double s = 0; LOOPS_SUM2(s, Cov, M, M); return s; }
int main(void) { return loops_main(init, kernel_covariance, checksum); }
