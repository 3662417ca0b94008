/* SPDX-License-Identifier: MIT
 * The library's own memory, counted through the def's allocator (tf_allocator): what it holds now
 * and at most. Bytes, not a timing: the same on any machine for the same run. */
#ifndef TAUFORM_BENCH_MEMORY_H
#define TAUFORM_BENCH_MEMORY_H

#include <stdlib.h>

#include "tauform.h"

typedef struct bench_memory {
  long long live, peak;
} bench_memory;

static void *bench_count_alloc(size_t size, size_t align, void *ud) {
  bench_memory *m = ud;
  void *p = aligned_alloc(align, (size + align - 1) / align * align);
  if (p) {
    m->live += (long long)size;
    if (m->live > m->peak) m->peak = m->live;
  }
  return p;
}

static void bench_count_free(void *p, size_t size, void *ud) {
  bench_memory *m = ud;
  m->live -= (long long)size;
  free(p);
}

/* every allocation of a def's simulation through m */
static inline tf_allocator bench_counting_allocator(bench_memory *m) {
  tf_allocator a = {bench_count_alloc, bench_count_free, m};
  return a;
}

#endif
