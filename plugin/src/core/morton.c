/* SPDX-License-Identifier: MIT
 * Morton order of points (morton.h). */
#include "core/morton.h"

#include <math.h>
#include <stdlib.h>

/* 10 bits of each of x, y, z interleaved */
static uint64_t interleave(uint32_t x, uint32_t y, uint32_t z) {
  uint64_t r = 0;
  for (int b = 0; b < 10; ++b)
    r |= ((uint64_t)((x >> b) & 1) << (3 * b)) | ((uint64_t)((y >> b) & 1) << (3 * b + 1)) |
         ((uint64_t)((z >> b) & 1) << (3 * b + 2));
  return r;
}

static int cmp_u64(const void *pa, const void *pb) {
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return a < b ? -1 : a > b;
}

enum { MORTON_CELL_SORT = 64 };

/* insertion sort of a cell's few points: x, then y, then z, then index */
static int before(const double *pos, uint32_t a, uint32_t b) {
  for (int k = 0; k < 3; ++k)
    if (pos[3 * (size_t)a + k] != pos[3 * (size_t)b + k])
      return pos[3 * (size_t)a + k] < pos[3 * (size_t)b + k];
  return a < b;
}

static void sort_by_coordinates(uint32_t *p, uint32_t n, const double *pos) {
  for (uint32_t i = 1; i < n; ++i) {
    uint32_t v = p[i], j = i;
    for (; j > 0 && before(pos, v, p[j - 1]); --j) p[j] = p[j - 1];
    p[j] = v;
  }
}

int morton_order(tf_mem *m, uint32_t n, const double *pos, uint32_t *perm) {
  uint64_t *key = mem_array(m, n ? n : 1, sizeof *key);
  if (!key) return 0;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint32_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      lo[a] = fmin(lo[a], pos[3 * (size_t)i + a]);
      hi[a] = fmax(hi[a], pos[3 * (size_t)i + a]);
    }
  double span = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  double scale = span > 0.0 && isfinite(span) ? 1023.0 / span : 0.0;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t q[3];
    for (int a = 0; a < 3; ++a) {
      double t = (pos[3 * (size_t)i + a] - lo[a]) * scale;
      q[a] = t > 0.0 ? (uint32_t)fmin(1023.0, t) : 0u; /* NaN -> 0 */
    }
    key[i] = interleave(q[0], q[1], q[2]) << 32 | i;
  }
  qsort(key, n, sizeof *key, cmp_u64);
  for (uint32_t i = 0; i < n; ++i) perm[i] = (uint32_t)(key[i] & 0xffffffffu);
  /* points in one cell by their coordinates: the order is then the points' own, whatever their
   * numbering (a mesh renumbered by its modeller simulates bit for bit the same,
   * mesh/vertex_order.c); a crowded cell (a degenerate box) stays by index rather than sort
   * quadratically */
  for (uint32_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && key[j] >> 32 == key[i] >> 32;) ++j;
    if (j - i > 1 && j - i <= MORTON_CELL_SORT) sort_by_coordinates(perm + i, j - i, pos);
  }
  MEM_FREE_ARRAY(m, key, n ? n : 1);
  return 1;
}
