/* SPDX-License-Identifier: MIT
 * The shell set: isotropic bending of each cloth triangle through the quadratic on its six-vertex
 * patch (energy/bend_shell.c; Phaal & Calladine 1992, Onate & Zarate 2000). The patch is the
 * triangle and the vertices across its three edges. At a free edge there is no vertex across, and
 * Onate & Zarate's boundary rule (the missing side contributes no curvature) makes a strip's edge
 * rows too soft; instead the missing vertices are taken from the nearest ring of the triangle's
 * vertices, chosen so the six points fit a quadratic best (largest scale-free determinant), which
 * keeps the fit exact for every quadratic and so the energy consistent up to the boundary (the
 * moment-free edge then comes out of the minimization, as in the continuum). */
#include <stdlib.h>
#include <string.h>

#include "core/vec3.h"
#include "energy/bend_shell.h"
#include "sim/sim.h"

/* a patch below this quality (the 6 x 6 determinant on the unit disc; measured on the cantilever
 * strips of test_bend_shell.c: 0.15 to 0.39 on grids, from 0.036 on an irregular mesh, the
 * boundary patches included) is too close to a conic:
 * its weights would amplify rounding. Such a triangle looks further, or keeps no bending */
static const double SHELL_MIN_QUALITY = 1e-6;
/* candidates examined for the missing vertices of one patch (nearest first) */
enum { SHELL_CANDIDATES = 12 };

static void shell_eval(const tf_sim *s, const void *data, const elem_args *a, const double *y,
                       double *E, double *grad, bsr *H) {
  (void)a;
  const elem_shell *e = data;
  double lx[18], g[18], h[324], nu = s->par.bend_poisson;
  for (uint32_t k = 0; k < e->count; ++k) {
    if (e->bend[k] == 0.0) continue;
    const uint32_t *v = e->patch + 6 * (size_t)k;
    for (int q = 0; q < 6; ++q) v3_copy(lx + 3 * q, y + 3 * (size_t)v[q]);
    *E += shell_energy_psd(lx, &e->rest[k], e->bend[k], nu, grad ? g : NULL, H ? h : NULL);
    if (grad)
      for (int q = 0; q < 6; ++q)
        v3_add(grad + 3 * (size_t)v[q], grad + 3 * (size_t)v[q], g + 3 * q);
    if (H) elem_scatter(H, e->slot + 36 * (size_t)k, h, 6);
  }
}

static void shell_destroy(tf_mem *m, void *data) {
  elem_shell *e = data;
  MEM_FREE_ARRAY(m, e->patch, 6 * (size_t)e->cap);
  MEM_FREE_ARRAY(m, e->tri, e->cap);
  MEM_FREE_ARRAY(m, e->rest, e->cap);
  MEM_FREE_ARRAY(m, e->bend, e->cap);
  MEM_FREE_ARRAY(m, e->slot, 36 * (size_t)e->cap);
}

const elem_ops ELEM_SHELL = {"shell", 0, shell_eval, NULL, shell_destroy, sizeof(elem_shell)};

static double patch_quality(const double *rest, const uint32_t p[6]) {
  double X[18];
  shell_rest r;
  for (int q = 0; q < 6; ++q) v3_copy(X + 3 * q, rest + 3 * (size_t)p[q]);
  return shell_rest_init(&r, X);
}

typedef struct cand {
  uint32_t v;
  double d2;
} cand;

static int cmp_cand(const void *pa, const void *pb) {
  const cand *x = pa, *y = pb;
  if (x->d2 != y->d2) return x->d2 < y->d2 ? -1 : 1;
  return x->v < y->v ? -1 : (x->v > y->v);
}

/* the vertices adjacent to the triangle's corners that are not yet in p[0..fixed), nearest to the
 * centroid first; returns how many (<= SHELL_CANDIDATES) */
static int ring_candidates(const trimesh *m, const double *rest, const uint32_t *p, int fixed,
                           cand out[SHELL_CANDIDATES]) {
  double c[3] = {0, 0, 0};
  for (int q = 0; q < 3; ++q) v3_axpy(c, 1.0 / 3.0, rest + 3 * (size_t)p[q]);
  cand all[256];
  int n = 0;
  for (int q = 0; q < 3; ++q)
    for (uint32_t k = m->adj_ptr[p[q]]; k < m->adj_ptr[p[q] + 1] && n < 256; ++k) {
      uint32_t v = m->adj[k];
      int dup = 0;
      for (int j = 0; j < fixed && !dup; ++j) dup = p[j] == v;
      for (int j = 0; j < n && !dup; ++j) dup = all[j].v == v;
      if (dup) continue;
      double d[3];
      v3_sub(d, rest + 3 * (size_t)v, c);
      all[n++] = (cand){v, v3_norm2(d)};
    }
  qsort(all, (size_t)n, sizeof *all, cmp_cand);
  if (n > SHELL_CANDIDATES) n = SHELL_CANDIDATES;
  memcpy(out, all, sizeof *all * (size_t)n);
  return n;
}

/* fill slots p[fixed..6) from the candidates, the combination with the best quality */
static double best_completion(const double *rest, uint32_t p[6], int fixed, const cand *cs,
                              int nc) {
  int need = 6 - fixed;
  if (nc < need) return 0.0;
  int idx[3] = {0, 1, 2};
  uint32_t best[6], trial[6];
  double bq = 0.0;
  memcpy(trial, p, sizeof trial);
  for (;;) {
    for (int j = 0; j < need; ++j) trial[fixed + j] = cs[idx[j]].v;
    double q = patch_quality(rest, trial);
    if (q > bq) bq = q, memcpy(best, trial, sizeof best);
    /* next combination of need indices out of nc */
    int j = need - 1;
    while (j >= 0 && idx[j] == nc - need + j) --j;
    if (j < 0) break;
    idx[j]++;
    for (int l = j + 1; l < need; ++l) idx[l] = idx[l - 1] + 1;
  }
  if (bq > 0.0) memcpy(p, best, sizeof best);
  return bq;
}

tf_status elem_shell_patches(tf_sim *s, elem_shell *e, const double *rest) {
  trimesh *m = &s->model.mesh;
  uint32_t nt = m->tri_count;
  e->cap = nt ? nt : 1;
  e->patch = mem_array(&s->mem, 6 * (size_t)e->cap, sizeof *e->patch);
  e->tri = mem_array(&s->mem, e->cap, sizeof *e->tri);
  uint32_t *flaps = mem_array(&s->mem, 3 * (size_t)e->cap, sizeof *flaps);
  if (!e->patch || !e->tri || !flaps || !trimesh_tri_flaps(&s->mem, m, flaps)) {
    MEM_FREE_ARRAY(&s->mem, flaps, 3 * (size_t)e->cap);
    return TF_E_NOMEM;
  }
  e->count = e->skipped = 0;

  for (uint32_t f = 0; f < nt; ++f) {
    uint32_t p[6];
    int fixed = 3;
    for (int q = 0; q < 3; ++q) p[q] = m->tris[3 * (size_t)f + q];
    for (int q = 0; q < 3; ++q)
      if (flaps[3 * f + q] != UINT32_MAX) p[fixed++] = flaps[3 * f + q];
    double quality = fixed == 6 ? patch_quality(rest, p) : 0.0;
    if (!(quality >= SHELL_MIN_QUALITY)) {
      cand cs[SHELL_CANDIDATES];
      int nc = ring_candidates(m, rest, p, fixed, cs);
      quality = best_completion(rest, p, fixed, cs, nc);
      if (!(quality >= SHELL_MIN_QUALITY)) { /* the flaps themselves may be the trouble */
        nc = ring_candidates(m, rest, p, 3, cs);
        quality = best_completion(rest, p, 3, cs, nc);
      }
    }
    if (!(quality >= SHELL_MIN_QUALITY)) {
      e->skipped++;
      continue;
    }
    memcpy(e->patch + 6 * (size_t)e->count, p, sizeof p);
    e->tri[e->count++] = f;
  }
  MEM_FREE_ARRAY(&s->mem, flaps, 3 * (size_t)e->cap);
  if (e->skipped)
    sim_log(s, TF_LOG_WARN,
            "bending: %u of %u triangles have no six-vertex patch that fits a quadratic (a mesh "
            "too small or too thin around them) and carry no bending",
            e->skipped, nt);
  return trimesh_add_couplings(&s->mem, m, e->patch, e->count, 6) ? TF_OK : TF_E_NOMEM;
}

tf_status elem_shell_init(tf_sim *s, elem_shell *e, double bend) {
  e->rest = mem_array(&s->mem, e->cap, sizeof *e->rest);
  e->bend = mem_array(&s->mem, e->cap, sizeof *e->bend);
  e->slot = mem_array(&s->mem, 36 * (size_t)e->cap, sizeof *e->slot);
  if (!e->rest || !e->bend || !e->slot) return TF_E_NOMEM;
  for (uint32_t k = 0; k < e->count; ++k) {
    double X[18];
    for (int q = 0; q < 6; ++q)
      v3_copy(X + 3 * q, s->model.rest + 3 * (size_t)e->patch[6 * (size_t)k + q]);
    shell_rest_init(&e->rest[k], X);
  }
  elem_shell_set_bend(e, bend);
  elem_slots(&s->solver.H, e->patch, e->count, 6, e->slot);
  return TF_OK;
}

void elem_shell_set_bend(elem_shell *e, double bend) {
  for (uint32_t k = 0; k < e->count; ++k) e->bend[k] = bend;
}

void elem_shell_set_bend_map(elem_shell *e, const double *per_vertex) {
  /* a triangle's rigidity is the mean of its three corners' */
  for (uint32_t k = 0; k < e->count; ++k) {
    const uint32_t *p = e->patch + 6 * (size_t)k;
    e->bend[k] = (per_vertex[p[0]] + per_vertex[p[1]] + per_vertex[p[2]]) / 3.0;
  }
}
