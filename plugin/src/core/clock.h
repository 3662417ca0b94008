/* SPDX-License-Identifier: MIT
 * The monotonic clock in seconds: the stats' timings (advance, contact) and the pool's spin. */
#ifndef TF_CORE_CLOCK_H
#define TF_CORE_CLOCK_H

#include <time.h>

static inline double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
