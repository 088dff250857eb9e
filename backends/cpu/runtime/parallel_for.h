/* Atoll's CPU runtime C ABI: the parallel_for that generated parallel loops call. */
#ifndef ATOLL_CPU_RUNTIME_PARALLEL_FOR_H
#define ATOLL_CPU_RUNTIME_PARALLEL_FOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Body of a parallel loop: runs iterations [begin, end) with the captured context. */
typedef void (*atoll_loop_body)(void *ctx, int64_t begin, int64_t end);

/** Runs body over [begin, end) split into static chunks on Atoll's thread pool and
 *  returns when every chunk is done. Calls made while the pool is busy (nested
 *  parallel loops, other threads) run the whole range on the calling thread. */
void atoll_parallel_for(atoll_loop_body body, void *ctx, int64_t begin, int64_t end);

/** Sets the number of threads (including the caller); n <= 0 restores the default
 *  (std::thread::hardware_concurrency()). */
void atoll_set_num_threads(int n);

/** The number of threads parallel loops use. */
int atoll_get_num_threads(void);

#ifdef __cplusplus
}
#endif

#endif
