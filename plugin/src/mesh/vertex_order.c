/* SPDX-License-Identifier: MIT
 * A locality-preserving vertex order (vertex_order.h). */
#include "mesh/vertex_order.h"

#include <math.h>

#include "core/morton.h"

/* the mean |label(a) - label(b)| over every pair of vertices within an element (label NULL: the
 * index itself): how far apart in memory the rows are that one element reads and writes */
static double mean_distance(const uint32_t *elems, uint32_t k, uint32_t count,
                            const uint32_t *label) {
  double sum = 0.0, pairs = 0.0;
  for (uint32_t e = 0; e < count; ++e) {
    const uint32_t *v = elems + (size_t)k * e;
    for (uint32_t a = 0; a < k; ++a)
      for (uint32_t b = a + 1; b < k; ++b) {
        uint32_t la = label ? label[v[a]] : v[a], lb = label ? label[v[b]] : v[b];
        sum += la > lb ? la - lb : lb - la;
        pairs += 1.0;
      }
  }
  return pairs > 0.0 ? sum / pairs : 0.0;
}

int vertex_order(tf_mem *m, const double *pos, uint32_t nv, const uint32_t *elems, uint32_t k,
                 uint32_t count, uint32_t *order, int *reordered) {
  *reordered = 0;
  /* a bad mesh keeps the host's order, so its checks name the host's vertices as they are */
  for (size_t q = 0; q < (size_t)k * count; ++q)
    if (elems[q] >= nv) return 1;
  for (size_t q = 0; q < 3 * (size_t)nv; ++q)
    if (!isfinite(pos[q])) return 1;
  uint32_t *rank = mem_array(m, nv ? nv : 1, sizeof *rank);
  if (!rank || !morton_order(m, nv, pos, order)) {
    MEM_FREE_ARRAY(m, rank, rank ? (nv ? nv : 1) : 0);
    return 0;
  }
  for (uint32_t i = 0; i < nv; ++i) rank[order[i]] = i;
  *reordered = mean_distance(elems, k, count, NULL) >
               VERTEX_ORDER_KEEP * mean_distance(elems, k, count, rank);
  MEM_FREE_ARRAY(m, rank, nv ? nv : 1);
  return 1;
}
