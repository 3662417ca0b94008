/* SPDX-License-Identifier: MIT
 * tf_mem: the host allocator (or aligned libc) behind zeroed, counted allocations. */
#include "core/mem.h"

#include <stdlib.h>
#include <string.h>

#define MEM_ALIGN 64

static void *libc_alloc(size_t size, size_t align, void *ud) {
  (void)ud;
  void *p = NULL;
  size_t rounded = (size + align - 1) / align * align;
  p = aligned_alloc(align, rounded);
  return p;
}

static void libc_free(void *p, size_t size, void *ud) {
  (void)size;
  (void)ud;
  free(p);
}

void mem_init(tf_mem *m, const tf_allocator *a) {
  memset(m, 0, sizeof *m);
  if (a && a->alloc && a->free) {
    m->a = *a;
  } else {
    m->a.alloc = libc_alloc;
    m->a.free = libc_free;
    m->a.ud = NULL;
  }
}

void *mem_alloc(tf_mem *m, size_t size) {
  if (size == 0) size = 1;
  void *p = m->a.alloc(size, MEM_ALIGN, m->a.ud);
  if (!p) {
    m->failed = 1;
    return NULL;
  }
  memset(p, 0, size);
  m->live_bytes += size;
  m->alloc_count++;
  return p;
}

void *mem_array(tf_mem *m, size_t count, size_t elem_size) {
  if (elem_size && count > SIZE_MAX / elem_size) {
    m->failed = 1;
    return NULL;
  }
  return mem_alloc(m, count * elem_size);
}

void mem_free(tf_mem *m, void *p, size_t size) {
  if (!p) return;
  if (size == 0) size = 1;
  m->a.free(p, size, m->a.ud);
  m->live_bytes -= size;
}
