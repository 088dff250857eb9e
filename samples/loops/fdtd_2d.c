/* Two-dimensional finite-difference time-domain: fields ex, ey, hz, T steps. */
#include "harness.h"
#define NX 1000
#define NY 1200
#define T 100
static double ex[NX][NY], ey[NX][NY], hz[NX][NY], src[T];

static void init(void) {
  for (int t = 0; t < T; t++) src[t] = (double)t;
  for (int i = 0; i < NX; i++)
    for (int j = 0; j < NY; j++) {
      ex[i][j] = ((double)i * (j + 1)) / NX;
      ey[i][j] = ((double)i * (j + 2)) / NY;
      hz[i][j] = ((double)i * (j + 3)) / NX;
    }
}

KERNEL void kernel_fdtd_2d(void) {
  for (int t = 0; t < T; t++) {
    for (int j = 0; j < NY; j++) ey[0][j] = src[t];
    for (int i = 1; i < NX; i++)
      for (int j = 0; j < NY; j++) ey[i][j] -= 0.5 * (hz[i][j] - hz[i - 1][j]);
    for (int i = 0; i < NX; i++)
      for (int j = 1; j < NY; j++) ex[i][j] -= 0.5 * (hz[i][j] - hz[i][j - 1]);
    for (int i = 0; i < NX - 1; i++)
      for (int j = 0; j < NY - 1; j++)
        hz[i][j] -= 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
  }
}

static double checksum(void) { double s = 0; LOOPS_SUM2(s, hz, NX, NY); return s; }
int main(void) { return loops_main(init, kernel_fdtd_2d, checksum); }
