/* Harness of the loop kernels in samples/loops: each program fills its
 * arrays (init), times one call of its kernel and prints
 *   <seconds> <checksum>
 * on one line. The kernels are plain C loop nests over global arrays of
 * compile-time sizes, so that Polly finds each one as a SCoP; bench/loops_polly.sh
 * builds every program three ways (clang -O3, with Polly, with Polly
 * importing Atoll's schedules) and compares times and checksums. */
#ifndef ATOLL_LOOPS_HARNESS_H
#define ATOLL_LOOPS_HARNESS_H

#include <stdio.h>
#include <time.h>

#define KERNEL __attribute__((noinline))

static double loops_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A checksum that weighs each element by its position, so that a value
 * written to the wrong place changes it. */
#define LOOPS_SUM1(acc, A, n)                                   \
  for (int s_i = 0; s_i < (n); ++s_i) acc += (A)[s_i] * (1.0 + (s_i % 7));
#define LOOPS_SUM2(acc, A, n, m)                                \
  for (int s_i = 0; s_i < (n); ++s_i)                           \
    for (int s_j = 0; s_j < (m); ++s_j) acc += (A)[s_i][s_j] * (1.0 + ((s_i * 3 + s_j) % 11));

static int loops_main(void (*init)(void), void (*kernel)(void), double (*checksum)(void)) {
  init();
  double t0 = loops_now();
  kernel();
  double t1 = loops_now();
  printf("%.6f %.17g\n", t1 - t0, checksum());
  return 0;
}

#endif
