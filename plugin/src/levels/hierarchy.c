/* SPDX-License-Identifier: MIT
 * The levels over a body's rest shape (levels.h): how many, how large, and which patches each
 * vertex belongs to. Built once, from the rest positions and the pieces, so a level is the same
 * material patch however the body moves. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sorted.h"
#include "levels/levels.h"
#include "sim/sim.h"

/* the finest grid's spacing is at least this many mesh spacings: a patch of a few vertices,
 * not one (Palazzi's 9 x 9 mesh: vertices, 5 x 5, 3 x 3, rigid) */
static const double FINEST_EDGES = 2.0;

/* the mesh's spacing: the side of the square a host triangle's rest area makes two of (a grid's
 * cell size; flesh: its surface's), m */
static double spacing(const tf_sim *s) {
  uint32_t tc;
  const uint32_t *t = sim_host_triangles(s, &tc);
  double sum = 0.0;
  for (uint32_t f = 0; f < tc; ++f) {
    const double *a = s->model.rest + 3 * (size_t)t[3 * f],
                 *b = s->model.rest + 3 * (size_t)t[3 * f + 1],
                 *c = s->model.rest + 3 * (size_t)t[3 * f + 2];
    double e1[3], e2[3], nrm[3];
    for (int k = 0; k < 3; ++k) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k];
    nrm[0] = e1[1] * e2[2] - e1[2] * e2[1];
    nrm[1] = e1[2] * e2[0] - e1[0] * e2[2];
    nrm[2] = e1[0] * e2[1] - e1[1] * e2[0];
    sum += sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]); /* twice the area */
  }
  return tc ? sqrt(sum / tc) : 0.0;
}

static void rest_box(const tf_sim *s, double lo[3], double hi[3]) {
  for (int a = 0; a < 3; ++a) lo[a] = INFINITY, hi[a] = -INFINITY;
  for (uint32_t i = 0; i < s->model.n; ++i)
    for (int a = 0; a < 3; ++a) {
      lo[a] = fmin(lo[a], s->model.rest[3 * (size_t)i + a]);
      hi[a] = fmax(hi[a], s->model.rest[3 * (size_t)i + a]);
    }
}

/* grid level k (1 .. count - 2) halves its spacing j times from the box's side */
static int grid_j(uint32_t count, uint32_t k) { return (int)count - 1 - (int)k; }

uint32_t levels_count(const tf_sim *s, double *size) {
  double lo[3], hi[3];
  rest_box(s, lo, hi);
  double S = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])), e = spacing(s);
  /* grids j = 1 .. J with S / 2^J >= FINEST_EDGES e; the j = 0 "grid" is the rigid level */
  int J = 0;
  while (J < LEVELS_MAX - 2 && e > 0.0 && S / ldexp(1.0, J + 1) >= FINEST_EDGES * e * (1.0 - 1e-9))
    ++J;
  uint32_t count = (uint32_t)J + 2;
  if (size) {
    size[0] = 0.0;
    for (uint32_t k = 1; k + 1 < count; ++k) size[k] = S / ldexp(1.0, grid_j(count, k));
    size[count - 1] = S;
  }
  return count;
}

void levels_free(tf_mem *m, sim_levels *lv) {
  if (!lv) return;
  size_t n = lv->n, L = lv->count;
  MEM_FREE_ARRAY(m, lv->patch, lv->patch ? n * (L - 2) * 8 : 0);
  MEM_FREE_ARRAY(m, lv->acc, lv->acc ? lv->first[L] : 0);
  MEM_FREE_ARRAY(m, lv->w, lv->w ? n * 8 : 0);
  MEM_FREE_ARRAY(m, lv->share, n * L);
  MEM_FREE_ARRAY(m, lv->force, 3 * n);
  MEM_FREE_ARRAY(m, lv->dist, 3 * n);
  mem_free(m, lv, sizeof *lv);
}

tf_status levels_enable(tf_sim *s) {
  if (s->levels) return TF_OK;
  tf_mem *m = &s->mem;
  sim_levels *lv = mem_array(m, 1, sizeof *lv);
  if (!lv) return TF_E_NOMEM;
  memset(lv, 0, sizeof *lv);
  lv->n = s->model.n;
  lv->count = levels_count(s, lv->size);
  double hi[3];
  rest_box(s, lv->origin, hi);
  for (uint32_t k = 1; k + 1 < lv->count; ++k)
    for (int a = 0; a < 3; ++a) {
      /* cells along the axis at this spacing, at least one (a flat sheet's thin axis) */
      double c = ceil((hi[a] - lv->origin[a]) / lv->size[k] - 1e-9);
      lv->cells[k][a] = c < 1.0 ? 1u : (uint32_t)c;
    }
  size_t n = lv->n, L = lv->count;
  lv->share = mem_array(m, n * L, sizeof *lv->share);
  lv->force = mem_array(m, 3 * n, sizeof *lv->force);
  lv->dist = mem_array(m, 3 * n, sizeof *lv->dist);
  if (!lv->share || !lv->force || !lv->dist) {
    levels_free(m, lv);
    return TF_E_NOMEM;
  }
  memset(lv->share, 0, sizeof(double) * n * L);
  memset(lv->force, 0, sizeof(double) * 3 * n);
  for (size_t i = 0; i < n; ++i) lv->share[i * L] = 1.0;
  levels_refresh(lv);
  s->levels = lv;
  return TF_OK;
}

void levels_refresh(sim_levels *lv) {
  memset(lv->used, 0, sizeof lv->used);
  for (size_t i = 0; i < lv->n; ++i)
    for (uint32_t k = 0; k < lv->count; ++k)
      if (lv->share[i * lv->count + k] != 0.0) lv->used[k] = 1;
  lv->any_force = 0;
  for (size_t k = 0; k < 3 * (size_t)lv->n; ++k)
    if (lv->force[k] != 0.0) lv->any_force = 1;
}

int levels_local(const sim_levels *lv) {
  for (uint32_t k = 1; k < lv->count; ++k)
    if (lv->used[k]) return 0;
  return 1;
}

void levels_corners(const sim_levels *lv, uint32_t k, const double *X, uint32_t *node,
                    double w[8]) {
  const uint32_t *c = lv->cells[k];
  uint32_t at[3];
  double f[3];
  for (int a = 0; a < 3; ++a) {
    double t = (X[a] - lv->origin[a]) / lv->size[k], fl = floor(t);
    fl = fl < 0.0 ? 0.0 : fl >= (double)c[a] ? (double)c[a] - 1.0 : fl;
    at[a] = (uint32_t)fl;
    f[a] = fmin(1.0, fmax(0.0, t - fl));
  }
  for (int q = 0; q < 8; ++q) {
    int bx = q & 1, by = (q >> 1) & 1, bz = (q >> 2) & 1;
    if (node) node[q] = (at[0] + bx) + (c[0] + 1) * ((at[1] + by) + (c[1] + 1) * (at[2] + bz));
    w[q] = (bx ? f[0] : 1.0 - f[0]) * (by ? f[1] : 1.0 - f[1]) * (bz ? f[2] : 1.0 - f[2]);
  }
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

tf_status levels_build(tf_sim *s) {
  sim_levels *lv = s->levels;
  if (!lv || lv->acc) return TF_OK; /* built (a body of two levels has no grid patches) */
  tf_mem *m = &s->mem;
  const size_t n = lv->n, L = lv->count, grids = L - 2;
  uint32_t *patch = grids ? mem_array(m, n * grids * 8, sizeof *patch) : NULL;
  uint64_t *keys = grids ? mem_array(m, n * 8, sizeof *keys) : NULL;
  if (grids && (!patch || !keys)) {
    MEM_FREE_ARRAY(m, patch, patch ? n * grids * 8 : 0);
    MEM_FREE_ARRAY(m, keys, keys ? n * 8 : 0);
    return TF_E_NOMEM;
  }
  /* a patch is (piece, node): sort each level's keys, number the distinct ones */
  uint32_t total = 0;
  for (uint32_t k = 1; k + 1 < L; ++k) {
    lv->first[k] = total;
    for (size_t i = 0; i < n; ++i) {
      uint32_t node[8];
      double w[8];
      levels_corners(lv, k, s->model.rest + 3 * i, node, w);
      for (int q = 0; q < 8; ++q) keys[8 * i + q] = (uint64_t)s->model.mesh.comp[i] << 32 | node[q];
    }
    uint64_t *sorted = keys; /* sorted in place after the vertices' keys are read below */
    uint64_t *mine = mem_array(m, n * 8, sizeof *mine);
    if (!mine) {
      MEM_FREE_ARRAY(m, patch, n * grids * 8);
      MEM_FREE_ARRAY(m, keys, n * 8);
      return TF_E_NOMEM;
    }
    memcpy(mine, keys, sizeof(uint64_t) * n * 8);
    qsort(sorted, n * 8, sizeof *sorted, cmp_u64);
    uint32_t u = 0;
    for (size_t q = 0; q < n * 8; ++q)
      if (q == 0 || sorted[q] != sorted[u - 1]) sorted[u++] = sorted[q];
    for (size_t q = 0; q < n * 8; ++q)
      patch[(k - 1) * n * 8 + q] = total + sorted_floor_u64(sorted, u, mine[q]);
    MEM_FREE_ARRAY(m, mine, n * 8);
    total += u;
  }
  lv->first[L - 1] = total; /* the rigid level: one patch per piece */
  total += s->model.mesh.comp_count;
  lv->first[L] = total;
  level_patch *acc = mem_array(m, total, sizeof *acc);
  double *w = grids ? mem_array(m, n * 8, sizeof *w) : NULL;
  MEM_FREE_ARRAY(m, keys, keys ? n * 8 : 0);
  if (!acc || (grids && !w)) {
    MEM_FREE_ARRAY(m, patch, patch ? n * grids * 8 : 0);
    MEM_FREE_ARRAY(m, acc, acc ? total : 0);
    MEM_FREE_ARRAY(m, w, w ? n * 8 : 0);
    return TF_E_NOMEM;
  }
  lv->patch = patch;
  lv->acc = acc;
  lv->w = w;
  return TF_OK;
}
