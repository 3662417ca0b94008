/* SPDX-License-Identifier: MIT
 * Pair block list: reserve (the only allocation), add, and the symmetric product. */
#include "solve/pairmat.h"

#include <string.h>

/* first allocation, in blocks (80 bytes each): a few contacts without a regrowth */
static const uint32_t PAIRMAT_MIN_CAPACITY = 64;

int pairmat_reserve(tf_mem *m, pairmat *pm, uint32_t capacity) {
  if (capacity <= pm->capacity) return 1;
  /* double until it fits, saturating at UINT32_MAX */
  uint32_t cap = pm->capacity ? pm->capacity : PAIRMAT_MIN_CAPACITY;
  while (cap < capacity) cap = cap > UINT32_MAX / 2 ? UINT32_MAX : 2 * cap;
  pairmat_block *blk = mem_array(m, cap, sizeof *blk);
  if (!blk) return 0;
  if (pm->count) memcpy(blk, pm->blk, (size_t)pm->count * sizeof *blk);
  MEM_FREE_ARRAY(m, pm->blk, pm->capacity);
  pm->blk = blk;
  pm->capacity = cap;
  pm->grow_count++;
  return 1;
}

void pairmat_clear(pairmat *pm) {
  pm->count = 0;
  pm->overflow = 0;
}

int pairmat_add(pairmat *pm, uint32_t i, uint32_t j, const double blk[9]) {
  if (i == j) return 0;
  if (pm->count >= pm->capacity) {
    pm->overflow++;
    return 0;
  }
  pairmat_block *e = pm->blk + pm->count++;
  if (i < j) {
    e->i = i;
    e->j = j;
    memcpy(e->b, blk, sizeof e->b);
  } else {
    /* block (i, j) with i > j is the transpose of the upper block (j, i) */
    e->i = j;
    e->j = i;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) e->b[3 * r + c] = blk[3 * c + r];
  }
  return 1;
}

int pairmat_push(tf_mem *m, pairmat *pm, uint32_t i, uint32_t j, const double blk[9]) {
  if (i != j && pm->count == pm->capacity &&
      (pm->capacity == UINT32_MAX || !pairmat_reserve(m, pm, pm->capacity + 1))) {
    pm->overflow++;
    return 0;
  }
  return pairmat_add(pm, i, j, blk);
}

void pairmat_mul_add(const pairmat *pm, const double *x, double *y, const uint8_t *fixed) {
  for (uint32_t k = 0; k < pm->count; ++k) {
    const pairmat_block *e = pm->blk + k;
    if (fixed && (fixed[e->i] || fixed[e->j])) continue;
    const double *b = e->b, *xi = x + 3 * (size_t)e->i, *xj = x + 3 * (size_t)e->j;
    double *yi = y + 3 * (size_t)e->i, *yj = y + 3 * (size_t)e->j;
    /* y_i += B x_j, y_j += B^T x_i */
    yi[0] += b[0] * xj[0] + b[1] * xj[1] + b[2] * xj[2];
    yi[1] += b[3] * xj[0] + b[4] * xj[1] + b[5] * xj[2];
    yi[2] += b[6] * xj[0] + b[7] * xj[1] + b[8] * xj[2];
    yj[0] += b[0] * xi[0] + b[3] * xi[1] + b[6] * xi[2];
    yj[1] += b[1] * xi[0] + b[4] * xi[1] + b[7] * xi[2];
    yj[2] += b[2] * xi[0] + b[5] * xi[1] + b[8] * xi[2];
  }
}

void pairmat_free(tf_mem *m, pairmat *pm) {
  MEM_FREE_ARRAY(m, pm->blk, pm->capacity);
  memset(pm, 0, sizeof *pm);
}
