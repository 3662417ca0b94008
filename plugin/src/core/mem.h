/* SPDX-License-Identifier: MIT
 * Allocation through the host's tf_allocator (or libc), with a byte count so tests can show that
 * nothing leaks and that the per-step path allocates nothing after set-up. Every block is zeroed
 * and 64-byte aligned (cache lines; SIMD-friendly). */
#ifndef TF_CORE_MEM_H
#define TF_CORE_MEM_H

#include "core/common.h"

typedef struct tf_mem {
  tf_allocator a;
  size_t live_bytes;
  uint64_t alloc_count; /* allocations since create, for the no-allocation-per-step test */
  int failed;           /* sticky: an allocation failed since the last mem_clear_failed */
} tf_mem;

TF_LOCAL void mem_init(tf_mem *m, const tf_allocator *a);
/* zeroed; NULL (and m->failed set) on failure or size 0 overflow */
TF_LOCAL void *mem_alloc(tf_mem *m, size_t size);
/* count elements of elem_size bytes, overflow checked */
TF_LOCAL void *mem_array(tf_mem *m, size_t count, size_t elem_size);
TF_LOCAL void mem_free(tf_mem *m, void *p, size_t size);
#define MEM_FREE_ARRAY(m, p, count) mem_free((m), (p), (size_t)(count) * sizeof *(p))

#endif
