/* SPDX-License-Identifier: MIT
 * See springs.h. */
#include "mesh/springs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec3.h"

/* cos of the angle at vertex c between c->a and c->b */
static double corner_cos(const double *rest, uint32_t c, uint32_t a, uint32_t b) {
  double u[3], v[3];
  v3_sub(u, rest + 3 * (size_t)a, rest + 3 * (size_t)c);
  v3_sub(v, rest + 3 * (size_t)b, rest + 3 * (size_t)c);
  const double nn = v3_norm(u) * v3_norm(v);
  return nn > 0.0 ? v3_dot(u, v) / nn : 1.0;
}

/* index of edge (a, b), a < b, in the sorted edge list, or UINT32_MAX */
static uint32_t edge_index(const trimesh *t, uint32_t a, uint32_t b) {
  uint32_t lo = 0, hi = t->edge_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const uint32_t *e = t->edges + 2 * (size_t)mid;
    if (e[0] < a || (e[0] == a && e[1] < b))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < t->edge_count && t->edges[2 * (size_t)lo] == a && t->edges[2 * (size_t)lo + 1] == b
             ? lo
             : UINT32_MAX;
}

static int cmp_pair(const void *p, const void *q) {
  const uint32_t *x = p, *y = q;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

static void put(uint32_t *pairs, uint32_t *count, uint32_t a, uint32_t b) {
  pairs[2 * (size_t)*count] = a < b ? a : b;
  pairs[2 * (size_t)*count + 1] = a < b ? b : a;
  ++*count;
}

tf_status springs_build(tf_mem *m, const trimesh *t, const double *rest, springs *out) {
  memset(out, 0, sizeof *out);
  const uint32_t n = t->vert_count, ne = t->edge_count;
  const double right = sin(SPRINGS_RIGHT_TOL_DEG * TF_PI / 180.0); /* |cos| of a near-right angle */
  const double straight = cos(SPRINGS_STRAIGHT_DEG * TF_PI / 180.0);
  uint8_t *diagonal = mem_array(m, ne ? ne : 1, sizeof *diagonal);
  uint32_t *sptr = mem_array(m, (size_t)n + 1, sizeof *sptr);
  uint32_t *sadj = mem_array(m, 2 * (size_t)(ne ? ne : 1), sizeof *sadj);
  uint32_t *fill = mem_array(m, (size_t)n + 1, sizeof *fill);
  /* bend candidates: at most deg (deg - 1) / 2 per vertex, bounded below by a first pass */
  uint32_t *bend = NULL;
  size_t bend_cap = 0;
  tf_status st = TF_E_NOMEM;
  if (!diagonal || !sptr || !sadj || !fill) goto done;
  /* shear: edges opposite a near-right angle in both their triangles */
  uint32_t shear = 0;
  for (uint32_t h = 0; h < t->hinge_count; ++h) {
    const uint32_t *v = t->hinges + 4 * (size_t)h;
    if (fabs(corner_cos(rest, v[2], v[0], v[1])) > right ||
        fabs(corner_cos(rest, v[3], v[0], v[1])) > right)
      continue;
    uint32_t e = edge_index(t, v[0] < v[1] ? v[0] : v[1], v[0] < v[1] ? v[1] : v[0]);
    /* (a closed mesh can have the cross pair as an edge of its own: then it is no quad) */
    if (edge_index(t, v[2] < v[3] ? v[2] : v[3], v[2] < v[3] ? v[3] : v[2]) != UINT32_MAX) continue;
    if (e != UINT32_MAX && !diagonal[e]) diagonal[e] = 1, shear += 2;
  }
  /* the structural edges as an adjacency, for the straight paths */
  for (uint32_t e = 0; e < ne; ++e)
    if (!diagonal[e]) ++sptr[t->edges[2 * e] + 1], ++sptr[t->edges[2 * e + 1] + 1];
  for (uint32_t i = 0; i < n; ++i) sptr[i + 1] += sptr[i];
  memcpy(fill, sptr, sizeof *fill * ((size_t)n + 1));
  for (uint32_t e = 0; e < ne; ++e)
    if (!diagonal[e]) {
      const uint32_t a = t->edges[2 * e], b = t->edges[2 * e + 1];
      sadj[fill[a]++] = b, sadj[fill[b]++] = a;
    }
  for (uint32_t i = 0; i < n; ++i) {
    size_t d = sptr[i + 1] - sptr[i];
    bend_cap += d * (d - (d > 0)) / 2;
  }
  bend = mem_array(m, 2 * (bend_cap ? bend_cap : 1), sizeof *bend);
  if (!bend) goto done;
  uint32_t nb = 0;
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t p = sptr[b]; p < sptr[b + 1]; ++p)
      for (uint32_t q = p + 1; q < sptr[b + 1]; ++q) {
        const uint32_t a = sadj[p], c = sadj[q];
        if (corner_cos(rest, b, a, c) > straight) continue;
        /* never a second spring on a mesh edge */
        if (edge_index(t, a < c ? a : c, a < c ? c : a) != UINT32_MAX) continue;
        put(bend, &nb, a, c);
      }
  qsort(bend, nb, 2 * sizeof *bend, cmp_pair);
  uint32_t nbu = 0;
  for (uint32_t k = 0; k < nb; ++k)
    if (nbu == 0 || cmp_pair(bend + 2 * (size_t)(nbu - 1), bend + 2 * (size_t)k) != 0) {
      bend[2 * (size_t)nbu] = bend[2 * (size_t)k],
               bend[2 * (size_t)nbu + 1] = bend[2 * (size_t)k + 1];
      ++nbu;
    }
  out->count = (ne - shear / 2) + shear + nbu;
  out->pairs = mem_array(m, 2 * (size_t)(out->count ? out->count : 1), sizeof *out->pairs);
  if (!out->pairs) goto done;
  uint32_t c = 0;
  out->first[SPRING_STRUCTURAL] = c;
  for (uint32_t e = 0; e < ne; ++e)
    if (!diagonal[e]) put(out->pairs, &c, t->edges[2 * e], t->edges[2 * e + 1]);
  out->first[SPRING_SHEAR] = c;
  for (uint32_t h = 0; h < t->hinge_count; ++h) {
    const uint32_t *v = t->hinges + 4 * (size_t)h;
    uint32_t e = edge_index(t, v[0] < v[1] ? v[0] : v[1], v[0] < v[1] ? v[1] : v[0]);
    if (e == UINT32_MAX || diagonal[e] != 1) continue;
    diagonal[e] = 2; /* each diagonal once */
    put(out->pairs, &c, v[0], v[1]);
    put(out->pairs, &c, v[2], v[3]);
  }
  out->first[SPRING_BEND] = c;
  for (uint32_t k = 0; k < nbu; ++k)
    put(out->pairs, &c, bend[2 * (size_t)k], bend[2 * (size_t)k + 1]);
  out->first[SPRING_FAMILIES] = c;
  st = TF_OK;
done:
  MEM_FREE_ARRAY(m, diagonal, ne ? ne : 1);
  MEM_FREE_ARRAY(m, sptr, (size_t)n + 1);
  MEM_FREE_ARRAY(m, sadj, 2 * (size_t)(ne ? ne : 1));
  MEM_FREE_ARRAY(m, fill, (size_t)n + 1);
  if (bend) MEM_FREE_ARRAY(m, bend, 2 * (bend_cap ? bend_cap : 1));
  if (st != TF_OK) springs_free(m, out);
  return st;
}

void springs_free(tf_mem *m, springs *s) {
  if (s->pairs) MEM_FREE_ARRAY(m, s->pairs, 2 * (size_t)(s->count ? s->count : 1));
  memset(s, 0, sizeof *s);
}
