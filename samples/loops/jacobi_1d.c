/* A three-point Jacobi stencil on a line, two arrays, T time steps. */
#include "harness.h"
#define N 40000
#define T 4000
static double A[N], B[N];

static void init(void) {
  for (int i = 0; i < N; i++) { A[i] = (double)(i % 17) / 17; B[i] = 0; }
}

KERNEL void kernel_jacobi_1d(void) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < N - 1; i++) A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
}

static double checksum(void) { double s = 0; LOOPS_SUM1(s, A, N); return s; }
int main(void) { return loops_main(init, kernel_jacobi_1d, checksum); }
