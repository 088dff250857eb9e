/* A 3x3 convolution, 64 input to 64 output channels on a 56x56 image (CHW). */
#include "harness.h"
#define C 64
#define K 64
#define H 56
#define W 56
static double In[C][H + 2][W + 2], Wt[K][C][3][3], Out[K][H][W];

static void init(void) {
  for (int c = 0; c < C; c++)
    for (int y = 0; y < H + 2; y++)
      for (int x = 0; x < W + 2; x++) In[c][y][x] = (double)((c + 3 * y + 5 * x) % 23) / 23;
  for (int k = 0; k < K; k++)
    for (int c = 0; c < C; c++)
      for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++) Wt[k][c][r][s] = (double)((k * 5 + c + r * 3 + s) % 17) / 170;
}

KERNEL void kernel_conv2d(void) {
  for (int k = 0; k < K; k++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        Out[k][y][x] = 0;
        for (int c = 0; c < C; c++)
          for (int r = 0; r < 3; r++)
            for (int s = 0; s < 3; s++) Out[k][y][x] += Wt[k][c][r][s] * In[c][y + r][x + s];
      }
}

static double checksum(void) {
  double s = 0;
  for (int k = 0; k < K; k++) LOOPS_SUM2(s, Out[k], H, W);
  return s;
}
int main(void) { return loops_main(init, kernel_conv2d, checksum); }
