/* SPDX-License-Identifier: MIT
 * See tet_embed.h. A uniform grid over the tets' bounding boxes (about one tet per cell) finds the
 * candidates of each point; points in empty or unmatched cells fall back to a scan of all tets. */
#include "mesh/tet_embed.h"

#include <math.h>
#include <string.h>

#include "core/vec3.h"

/* barycentric weights of p in tet t; returns min weight */
static double barycentric(const double *pos, const uint32_t *t, const double p[3], double w[4]) {
  const double *x0 = pos + 3 * (size_t)t[0];
  double D[9], d[3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) D[3 * i + j] = pos[3 * (size_t)t[j + 1] + i] - x0[i];
  v3_sub(d, p, x0);
  double Dinv[9];
  if (!m3_inverse(Dinv, D, 0.0)) {
    w[0] = 1.0, w[1] = w[2] = w[3] = 0.0;
    return -INFINITY; /* flat: never chosen */
  }
  m3_mulv(w + 1, Dinv, d);
  w[0] = 1.0 - w[1] - w[2] - w[3];
  return fmin(fmin(w[0], w[1]), fmin(w[2], w[3]));
}

typedef struct grid {
  double lo[3], cell;
  int dim[3];
  uint32_t *start, *items; /* CSR: tets overlapping each cell */
  size_t cells, item_count;
} grid;

static void cell_range(const grid *g, const double lo[3], const double hi[3], int a[3], int b[3]) {
  for (int k = 0; k < 3; ++k) {
    a[k] = (int)floor((lo[k] - g->lo[k]) / g->cell);
    b[k] = (int)floor((hi[k] - g->lo[k]) / g->cell);
    a[k] = a[k] < 0 ? 0 : a[k] >= g->dim[k] ? g->dim[k] - 1 : a[k];
    b[k] = b[k] < 0 ? 0 : b[k] >= g->dim[k] ? g->dim[k] - 1 : b[k];
  }
}

static void tet_box(const double *pos, const uint32_t *t, double lo[3], double hi[3]) {
  v3_copy(lo, pos + 3 * (size_t)t[0]);
  v3_copy(hi, lo);
  for (int a = 1; a < 4; ++a)
    for (int k = 0; k < 3; ++k) {
      lo[k] = fmin(lo[k], pos[3 * (size_t)t[a] + k]);
      hi[k] = fmax(hi[k], pos[3 * (size_t)t[a] + k]);
    }
}

/* fill (pass 1: count into start, pass 2: items) */
static void grid_fill(grid *g, const double *pos, const uint32_t *tets, uint32_t tet_count,
                      int pass) {
  for (uint32_t e = 0; e < tet_count; ++e) {
    double lo[3], hi[3];
    int a[3], b[3];
    tet_box(pos, tets + 4 * (size_t)e, lo, hi);
    cell_range(g, lo, hi, a, b);
    for (int z = a[2]; z <= b[2]; ++z)
      for (int y = a[1]; y <= b[1]; ++y)
        for (int x = a[0]; x <= b[0]; ++x) {
          size_t c = ((size_t)z * (size_t)g->dim[1] + (size_t)y) * (size_t)g->dim[0] + (size_t)x;
          if (pass == 1)
            ++g->start[c + 1];
          else
            g->items[g->start[c]++] = e;
        }
  }
}

tf_status tet_embed(tf_mem *m, const double *pos, const uint32_t *tets, uint32_t tet_count,
                    const double *points, uint32_t point_count, uint32_t *tet_of, double *weight,
                    tet_embed_stats *stats) {
  grid g = {0};
  stats->outside = 0;
  stats->worst_outside = 0.0;
  /* bounds and a cell size giving about one tet per cell */
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint32_t e = 0; e < tet_count; ++e) {
    double a[3], b[3];
    tet_box(pos, tets + 4 * (size_t)e, a, b);
    for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], a[k]), hi[k] = fmax(hi[k], b[k]);
  }
  double ext[3], vol = 1.0;
  for (int k = 0; k < 3; ++k) {
    ext[k] = fmax(hi[k] - lo[k], 1e-12);
    vol *= ext[k];
  }
  g.cell = cbrt(vol / (double)(tet_count ? tet_count : 1));
  for (int k = 0; k < 3; ++k) {
    g.cell = fmax(g.cell, ext[k] / 256.0); /* at most 256 cells per axis */
  }
  for (int k = 0; k < 3; ++k) {
    g.lo[k] = lo[k];
    g.dim[k] = (int)fmin(256.0, floor(ext[k] / g.cell) + 1.0);
  }
  g.cells = (size_t)g.dim[0] * (size_t)g.dim[1] * (size_t)g.dim[2];
  g.start = mem_array(m, g.cells + 1, sizeof(uint32_t));
  if (!g.start) return TF_E_NOMEM;
  grid_fill(&g, pos, tets, tet_count, 1);
  for (size_t c = 0; c < g.cells; ++c) g.start[c + 1] += g.start[c];
  g.item_count = g.start[g.cells];
  g.items = mem_array(m, g.item_count ? g.item_count : 1, sizeof(uint32_t));
  if (!g.items) {
    MEM_FREE_ARRAY(m, g.start, g.cells + 1);
    return TF_E_NOMEM;
  }
  grid_fill(&g, pos, tets, tet_count, 2); /* advances start[c] to the end of cell c */
  for (size_t c = g.cells; c > 0; --c) g.start[c] = g.start[c - 1];
  g.start[0] = 0;

  const double inside_tol = -1e-9;
  for (uint32_t p = 0; p < point_count; ++p) {
    const double *q = points + 3 * (size_t)p;
    double *w = weight + 4 * (size_t)p, wt[4], best = -INFINITY;
    uint32_t best_tet = 0;
    int a[3], b[3];
    cell_range(&g, q, q, a, b);
    size_t c = ((size_t)a[2] * (size_t)g.dim[1] + (size_t)a[1]) * (size_t)g.dim[0] + (size_t)a[0];
    for (uint32_t k = g.start[c]; k < g.start[c + 1] && best < inside_tol; ++k) {
      double mw = barycentric(pos, tets + 4 * (size_t)g.items[k], q, wt);
      if (mw > best) best = mw, best_tet = g.items[k], memcpy(w, wt, sizeof wt);
    }
    if (best < inside_tol) { /* outside the lattice (or in a cell's gap): the best of all tets */
      for (uint32_t e = 0; e < tet_count; ++e) {
        double mw = barycentric(pos, tets + 4 * (size_t)e, q, wt);
        if (mw > best) best = mw, best_tet = e, memcpy(w, wt, sizeof wt);
      }
      if (best < inside_tol) {
        ++stats->outside;
        stats->worst_outside = fmin(stats->worst_outside, best);
      }
    }
    tet_of[p] = best_tet;
  }
  MEM_FREE_ARRAY(m, g.items, g.item_count ? g.item_count : 1);
  MEM_FREE_ARRAY(m, g.start, g.cells + 1);
  return TF_OK;
}

void tet_embed_apply(const double *x, const uint32_t *elems, int k, const uint32_t *tet_of,
                     const double *weight, uint32_t point_count, double *out) {
  for (uint32_t p = 0; p < point_count; ++p) {
    const uint32_t *t = elems + (size_t)k * tet_of[p];
    const double *w = weight + (size_t)k * p;
    double *o = out + 3 * (size_t)p;
    v3_set(o, 0.0, 0.0, 0.0);
    for (int a = 0; a < k; ++a) v3_axpy(o, w[a], x + 3 * (size_t)t[a]);
  }
}
