/* SPDX-License-Identifier: MIT
 * The shell set: isotropic bending of each cloth triangle (energy/bend_shell.c). A triangle's
 * second derivatives are the divergence theorem's (the rotation-free BST of Onate & Zarate 2000):
 *    int_T d2x/dX_a dX_b dA = sum over its edges e of l_e nu_e,a dx/dX_b (m_e)
 * with nu_e the edge's outward normal and dx/dX at the edge's midpoint m_e taken from the
 * quadratic through the edge's two triangles and one more vertex on each side, the pair that fits
 * best (six points, core/quadfit.c; eight, all four neighbours' opposite vertices, made every
 * stencil 12 vertices wide and SWING-128 2.3x the hinge's time). It reproduces every quadratic, so
 * the curvature is exact for constant curvature on any triangulation; and the gradient at an
 * interior edge is one value shared by its two triangles, so the terms of interior edges cancel in
 * the sum over triangles: a state of constant curvature is in equilibrium with no interior force
 * (the patch test), on irregular meshes too. A per-triangle quadratic through the triangle and its
 * three neighbours alone (Phaal & Calladine 1992) is exact too but fails the patch test on
 * irregular meshes (interior forces 1.5e3 x a load's under constant curvature, measured), which
 * made a Delaunay-meshed cantilever 2-6 % too soft. At a free edge the gradient comes from the
 * triangle's own six-vertex patch, its missing neighbours taken from the ring and chosen for the
 * best-conditioned fit; the moment-free edge then comes out of the minimization. A held triangle
 * (three hard-pinned corners) bends no more and gives its neighbours its own slope at their common
 * edge: two pinned rows clamp at the last one (elem_shell_pins_changed). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/quadfit.h"
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

enum { NP = SHELL_MAX_PATCH };
/* elem_shell.clamp: the triangle is held (all corners hard-pinned), or has no divergence-form
 * patch (its own quadratic, which knows no clamp) */
enum { SHELL_HELD = 8, SHELL_NO_CLAMP = 16 };

static double shell_one(const void *ctx, uint32_t k) {
  const elem_ctx *c = ctx;
  const elem_shell *e = c->data;
  if (e->bend[k] == 0.0 || e->clamp[k] == SHELL_HELD) return 0.0;
  double g[3 * NP], nu = c->s->par.bend_poisson, E = 0.0, *grad = c->grad;
  const uint32_t *v = e->patch + NP * (size_t)k;
  int np = e->rest[k].np;
  if (grad || !c->H) {       /* a Hessian-only call skips the energy (elem_ops.eval) */
    double lx[3 * NP] = {0}; /* np of them used: zeroed for the compiler, which cannot see it */
    for (int q = 0; q < np; ++q) v3_copy(lx + 3 * q, c->y + 3 * (size_t)v[q]);
    E = shell_energy_gn_at(lx, &e->rest[k], e->b0 + 3 * (size_t)k, e->bend[k], nu, grad ? g : NULL,
                           NULL);
  }
  if (grad)
    for (int q = 0; q < np; ++q)
      v3_add(grad + 3 * (size_t)v[q], grad + 3 * (size_t)v[q], g + 3 * q);
  if (!c->H) return E;
  /* Newton's matrix on the narrower stencil; the stored (upper) blocks, from the factors */
  shell_hess h;
  double lx[3 * NP] = {0};
  const shell_rest *r = &e->hrest[k];
  v = e->hpatch + NP * (size_t)k;
  np = r->np;
  for (int q = 0; q < np; ++q) v3_copy(lx + 3 * q, c->y + 3 * (size_t)v[q]);
  shell_energy_gn(lx, r, e->bend[k], nu, NULL, &h);
  const uint32_t *slot = e->slot + e->slot_at[k];
  for (int i = 0; i < np; ++i)
    for (int j = 0; j < np; ++j) {
      uint32_t sl = slot[np * i + j];
      if (sl == UINT32_MAX) continue;
      double blk[9];
      shell_hess_block(&h, r, i, j, blk);
      bsr_add_block(c->H, sl, blk);
    }
  return E;
}

static void shell_eval(const tf_sim *s, const void *data, const elem_args *a, const double *y,
                       double *E, double *grad, bsr *H) {
  const elem_shell *e = data;
  elem_ctx c = {s, data, a, y, grad, H};
  *E += elem_colours_run(s, &e->col, shell_one, &c, grad || H);
}

/* Bending plasticity (issue 23, young2007 5.1.2): the rest curvature b0 of a triangle yields
 * when its curvature change S = b - b0 passes the yield curvature k_y, |S| the Frobenius norm of
 * the symmetric 2x2 tensor (uu, vv, uv): b0 moves to b - k_y S / |S|, back onto the yield
 * surface, never further than the plastic limit k_p from the rest mesh's (the difference scaled
 * back onto that ball), at once or as 1 - exp(-t / T) (plastic_time, as the springs). A fold past
 * the yield keeps a crease; below it nothing changes, bit for bit. */
static void shell_post_step(tf_sim *s, void *data, double dt) {
  elem_shell *e = data;
  if (!e->pl.on) return;
  const double rate = elem_plastic_rate(s->par.plastic_time, dt);
  for (uint32_t k = 0; k < e->count; ++k) {
    const double ky = e->pl.yield[k], kp = e->pl.limit[k];
    if (kp == 0.0) continue;
    const shell_rest *r = &e->rest[k];
    const uint32_t *v = e->patch + NP * (size_t)k;
    double lx[3 * NP] = {0}, b[3], S[3], *b0 = e->b0 + 3 * (size_t)k;
    for (int q = 0; q < r->np; ++q) v3_copy(lx + 3 * q, s->state.x + 3 * (size_t)v[q]);
    if (!shell_curvature(lx, r, b)) continue;
    for (int c = 0; c < 3; ++c) S[c] = b[c] - b0[c];
    const double norm = sqrt(S[0] * S[0] + S[1] * S[1] + 2.0 * S[2] * S[2]);
    if (!(norm > ky)) continue;
    double d[3];
    for (int c = 0; c < 3; ++c) d[c] = b[c] - ky * S[c] / norm - r->b0[c];
    const double dn = sqrt(d[0] * d[0] + d[1] * d[1] + 2.0 * d[2] * d[2]);
    const double keep = dn > kp ? kp / dn : 1.0;
    for (int c = 0; c < 3; ++c) b0[c] += rate * (r->b0[c] + keep * d[c] - b0[c]);
  }
}

/* the packed slots' length as allocated (at least one) */
static size_t slot_count(const elem_shell *e) {
  if (!e->slot_at) return 0;
  return e->slot_at[e->count] ? e->slot_at[e->count] : 1;
}

static void shell_destroy(tf_mem *m, void *data) {
  elem_shell *e = data;
  MEM_FREE_ARRAY(m, e->patch, NP * (size_t)e->cap);
  MEM_FREE_ARRAY(m, e->hpatch, NP * (size_t)e->cap);
  MEM_FREE_ARRAY(m, e->hrest, e->cap);
  MEM_FREE_ARRAY(m, e->tri, e->cap);
  MEM_FREE_ARRAY(m, e->rest, e->cap);
  MEM_FREE_ARRAY(m, e->bend, e->cap);
  MEM_FREE_ARRAY(m, e->slot, slot_count(e));
  MEM_FREE_ARRAY(m, e->slot_at, e->slot_at ? (size_t)e->count + 1 : 0);
  MEM_FREE_ARRAY(m, e->flaps, 3 * (size_t)e->cap);
  MEM_FREE_ARRAY(m, e->nbr, 3 * (size_t)e->cap);
  MEM_FREE_ARRAY(m, e->six, 6 * (size_t)e->cap);
  MEM_FREE_ARRAY(m, e->held, e->cap);
  MEM_FREE_ARRAY(m, e->clamp, e->cap);
  elem_plastic_free(m, &e->pl);
  elem_colours_free(m, &e->col);
}

static elem_plastic *shell_plastic(void *data, int bend) {
  return bend ? &((elem_shell *)data)->pl : NULL;
}

const elem_ops ELEM_SHELL = {
    "shell",      0, shell_eval, NULL, shell_destroy, sizeof(elem_shell), shell_post_step,
    shell_plastic};

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

/* the six-vertex patch of triangle f: itself and its flaps, completed from the ring where a flap
 * is missing or the six are too near a conic; 0 when none fits */
static double six_patch(const trimesh *m, const double *rest, const uint32_t *flaps, uint32_t f,
                        uint32_t p[6]) {
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
  return quality >= SHELL_MIN_QUALITY ? quality : 0.0;
}

/* dx/dX at an edge's midpoint as weights on stencil vertices, in the frame (b1, b2) of the plane
 * the stencil was fitted in */
typedef struct edge_grad {
  int k;
  uint32_t v[QUADFIT_MAX];
  double w[2][QUADFIT_MAX];
  double b1[3], b2[3];
} edge_grad;

static void add_unique(uint32_t *v, int *k, uint32_t x) {
  if (x == UINT32_MAX || *k >= QUADFIT_MAX) return;
  for (int i = 0; i < *k; ++i)
    if (v[i] == x) return;
  v[(*k)++] = x;
}

/* the least-squares gradient of the stencil v[0..k) at the midpoint of (a, b), in the plane
 * through the midpoint with normal nrm; 0 when the stencil does not fit a quadratic */
static double fit_edge(const double *rest, uint32_t a, uint32_t b, const double nrm[3],
                       edge_grad *g) {
  double mid[3], uv[2 * QUADFIT_MAX], n[3];
  v3_add(mid, rest + 3 * (size_t)a, rest + 3 * (size_t)b);
  v3_scale(mid, mid, 0.5);
  v3_sub(g->b1, rest + 3 * (size_t)b, rest + 3 * (size_t)a);
  v3_scale(g->b1, g->b1, 1.0 / sqrt(v3_norm2(g->b1)));
  v3_scale(n, nrm, 1.0 / sqrt(v3_norm2(nrm)));
  v3_cross(g->b2, n, g->b1);
  for (int i = 0; i < g->k; ++i) {
    double d[3];
    v3_sub(d, rest + 3 * (size_t)g->v[i], mid);
    uv[2 * i] = v3_dot(d, g->b1);
    uv[2 * i + 1] = v3_dot(d, g->b2);
  }
  return quadfit_gradient(uv, g->k, g->w);
}

/* a clamp: the neighbour h across the edge (a, b) is held (its three corners hard-pinned), so
 * the surface's slope at the edge is h's own, the gradient of the plane through its corners
 * (h carries no bending: pins fix positions, and this is how a row of held triangles also fixes
 * the slope, so a clamp acts at its last pinned row) */
static double clamp_gradient(const trimesh *m, const double *rest, uint32_t h, uint32_t a,
                             uint32_t b, edge_grad *g) {
  uint32_t o = m->tris[3 * (size_t)h];
  for (int q = 1; q < 3; ++q)
    if (o == a || o == b) o = m->tris[3 * (size_t)h + q];
  const double *xa = rest + 3 * (size_t)a, *xb = rest + 3 * (size_t)b, *xo = rest + 3 * (size_t)o;
  double ed[3], d[3], mid[3];
  v3_sub(ed, xb, xa);
  double l = sqrt(v3_norm2(ed));
  v3_scale(g->b1, ed, 1.0 / l);
  v3_add(mid, xa, xb);
  v3_scale(mid, mid, 0.5);
  v3_sub(d, xo, mid);
  double ou = v3_dot(d, g->b1);
  v3_axpy(d, -ou, g->b1);
  double ov = sqrt(v3_norm2(d));
  if (!(ov > 0.0)) return 0.0;
  v3_scale(g->b2, d, 1.0 / ov);
  /* x linear on h: dx/db1 = (x_b - x_a) / l, dx/db2 = (x_o - x_mid - ou dx/db1) / ov */
  g->k = 3;
  g->v[0] = a, g->v[1] = b, g->v[2] = o;
  g->w[0][0] = -1.0 / l, g->w[0][1] = 1.0 / l, g->w[0][2] = 0.0;
  g->w[1][0] = (-0.5 + ou / l) / ov, g->w[1][1] = (-0.5 - ou / l) / ov, g->w[1][2] = 1.0 / ov;
  return 1.0;
}

/* the gradient at the edge opposite corner c of triangle f. An interior edge's is computed from
 * the pair (lower, higher triangle) in that order, so both of its triangles get the same one */
static double edge_gradient(const trimesh *m, const double *rest, const uint32_t *flaps,
                            const uint32_t *nbr, const uint32_t *six, const uint8_t *held,
                            uint32_t f, int c, edge_grad *g) {
  uint32_t h = nbr[3 * f + c];
  uint32_t a = m->tris[3 * (size_t)f + (c + 1) % 3], b = m->tris[3 * (size_t)f + (c + 2) % 3];
  if (a > b) a ^= b, b ^= a, a ^= b;
  if (h != UINT32_MAX && held && held[h]) return clamp_gradient(m, rest, h, a, b, g);
  double nrm[3], e1[3], e2[3], nh[3];
  const double *x0 = rest + 3 * (size_t)m->tris[3 * (size_t)f];
  v3_sub(e1, rest + 3 * (size_t)m->tris[3 * (size_t)f + 1], x0);
  v3_sub(e2, rest + 3 * (size_t)m->tris[3 * (size_t)f + 2], x0);
  v3_cross(nrm, e1, e2);
  v3_scale(nrm, nrm, 1.0 / sqrt(v3_norm2(nrm)));
  g->k = 0;
  if (h == UINT32_MAX) { /* a free edge: the triangle's own six-vertex patch */
    if (six[6 * (size_t)f] == UINT32_MAX) return 0.0;
    for (int q = 0; q < 6; ++q) add_unique(g->v, &g->k, six[6 * (size_t)f + q]);
    return fit_edge(rest, a, b, nrm, g);
  }
  uint32_t lo = f < h ? f : h, hi = f < h ? h : f;
  const double *y0 = rest + 3 * (size_t)m->tris[3 * (size_t)h];
  v3_sub(e1, rest + 3 * (size_t)m->tris[3 * (size_t)h + 1], y0);
  v3_sub(e2, rest + 3 * (size_t)m->tris[3 * (size_t)h + 2], y0);
  v3_cross(nh, e1, e2);
  v3_axpy(nrm, 1.0 / sqrt(v3_norm2(nh)), nh); /* the two triangles' mean normal */
  add_unique(g->v, &g->k, a);
  add_unique(g->v, &g->k, b);
  for (int q = 0; q < 3; ++q) add_unique(g->v, &g->k, m->tris[3 * (size_t)lo + q]);
  for (int q = 0; q < 3; ++q) add_unique(g->v, &g->k, m->tris[3 * (size_t)hi + q]);
  /* and one more vertex from each side, the pair that fits best: six points, the smallest
   * stencil exact for quadratics (each more widens every patch that uses the edge) */
  {
    uint32_t side[2][2];
    int ns[2] = {0, 0};
    for (int t = 0; t < 2; ++t)
      for (int q = 0; q < 3; ++q) {
        uint32_t v = flaps[3 * (size_t)(t ? hi : lo) + q];
        int dup = v == UINT32_MAX;
        for (int i = 0; i < g->k && !dup; ++i) dup = g->v[i] == v;
        if (!dup) side[t][ns[t]++] = v;
      }
    double best = 0.0;
    uint32_t pick[2] = {UINT32_MAX, UINT32_MAX};
    int k4 = g->k;
    for (int i = 0; i < (ns[0] ? ns[0] : 1); ++i)
      for (int j = 0; j < (ns[1] ? ns[1] : 1); ++j) {
        g->k = k4;
        if (ns[0]) g->v[g->k++] = side[0][i];
        if (ns[1]) g->v[g->k++] = side[1][j];
        double q = g->k >= 6 ? fit_edge(rest, a, b, nrm, g) : 0.0;
        if (q > best)
          best = q, pick[0] = ns[0] ? side[0][i] : UINT32_MAX,
          pick[1] = ns[1] ? side[1][j] : UINT32_MAX;
      }
    g->k = k4;
    add_unique(g->v, &g->k, pick[0]);
    add_unique(g->v, &g->k, pick[1]);
  }
  double quality = g->k >= 6 ? fit_edge(rest, a, b, nrm, g) : 0.0;
  if (quality >= SHELL_MIN_QUALITY * 1e-3) return quality;
  /* too few or too flat: both triangles' six-vertex patches */
  for (int t = 0; t < 2; ++t) {
    uint32_t tt = t ? hi : lo;
    if (six[6 * (size_t)tt] == UINT32_MAX) continue;
    for (int q = 0; q < 6; ++q) add_unique(g->v, &g->k, six[6 * (size_t)tt + q]);
  }
  return g->k >= 6 ? fit_edge(rest, a, b, nrm, g) : 0.0;
}

/* triangle f's curvature weights by the divergence theorem over its three edges; 0 if any edge
 * has no gradient (the patch is then left to the caller) */
static int divergence_patch(const trimesh *m, const double *rest, const uint32_t *flaps,
                            const uint32_t *nbr, const uint32_t *six, const uint8_t *held,
                            uint32_t f, uint32_t *p, shell_rest *r) {
  double X[3 * NP], u[3], v[3], n[3];
  memset(r, 0, sizeof *r);
  for (int q = 0; q < 3; ++q) {
    p[q] = m->tris[3 * (size_t)f + q];
    v3_copy(X + 3 * q, rest + 3 * (size_t)p[q]);
  }
  if (!shell_rest_frame(X, u, v, n)) return 0;
  double e1[3], e2[3], N[3];
  v3_sub(e1, X + 3, X);
  v3_sub(e2, X + 6, X);
  v3_cross(N, e1, e2);
  double area = 0.5 * sqrt(v3_norm2(N));
  int np = 3;
  double Q[2][2][NP];
  memset(Q, 0, sizeof Q);
  for (int c = 0; c < 3; ++c) {
    edge_grad g;
    if (!(edge_gradient(m, rest, flaps, nbr, six, held, f, c, &g) > 0.0)) return 0;
    const double *xa = X + 3 * ((c + 1) % 3), *xb = X + 3 * ((c + 2) % 3), *xc = X + 3 * c;
    double ed[3], nu3[3], mid[3], out[3];
    v3_sub(ed, xb, xa);
    double len = sqrt(v3_norm2(ed));
    v3_cross(nu3, ed, n);
    v3_scale(nu3, nu3, 1.0 / len);
    v3_add(mid, xa, xb);
    v3_scale(mid, mid, 0.5);
    v3_sub(out, mid, xc);
    if (v3_dot(nu3, out) < 0.0) v3_scale(nu3, nu3, -1.0); /* outward */
    double nu2[2] = {v3_dot(nu3, u), v3_dot(nu3, v)};
    /* dx/dX_beta in the triangle's frame: the fitted plane's (b1, b2) projected on (u, v) */
    double ab[2][2] = {{v3_dot(u, g.b1), v3_dot(u, g.b2)}, {v3_dot(v, g.b1), v3_dot(v, g.b2)}};
    for (int i = 0; i < g.k; ++i) {
      int slot = -1;
      for (int q = 0; q < np && slot < 0; ++q)
        if (p[q] == g.v[i]) slot = q;
      if (slot < 0) {
        if (np == NP) return 0;
        p[np] = g.v[i];
        slot = np++;
      }
      for (int al = 0; al < 2; ++al)
        for (int be = 0; be < 2; ++be)
          Q[al][be][slot] += len / area * nu2[al] * (ab[be][0] * g.w[0][i] + ab[be][1] * g.w[1][i]);
    }
  }
  r->np = np;
  for (int i = 0; i < np; ++i) {
    r->c[0][i] = Q[0][0][i];
    r->c[1][i] = Q[1][1][i];
    r->c[2][i] = 0.5 * (Q[0][1][i] + Q[1][0][i]);
    v3_copy(X + 3 * i, rest + 3 * (size_t)p[i]);
  }
  return shell_rest_finish(r, X);
}

/* patch k's (triangle f's) stencil for Newton's matrix: its six-vertex quadratic where it has one,
 * else the energy's own. The divergence form's edge gradients reach one vertex beyond each
 * neighbour, up to nine vertices a triangle and about 2.5x the hinge's blocks: its Hessian made
 * the CG's products and the assembly SWING-128 1.6x the hinge's time. On smooth fields the six
 * points' quadratic has the same curvature (both are exact for quadratics), so its Gauss-Newton
 * Hessian models the same energy to O(h) on six vertices; only the matrix changes, never the
 * energy or the gradient, so the minimizer is the same (the line search sees the true energy) */
static void newton_patch(const double *rest, elem_shell *e, uint32_t k, uint32_t f) {
  const uint32_t *six = e->six + 6 * (size_t)f;
  uint32_t *hp = e->hpatch + NP * (size_t)k;
  if (e->clamp[k] == SHELL_NO_CLAMP || six[0] == UINT32_MAX) {
    memcpy(hp, e->patch + NP * (size_t)k, NP * sizeof *hp);
    e->hrest[k] = e->rest[k];
    return;
  }
  double X[18];
  memcpy(hp, six, 6 * sizeof *hp);
  for (int q = 0; q < 6; ++q) v3_copy(X + 3 * q, rest + 3 * (size_t)six[q]);
  shell_rest_init(&e->hrest[k], X);
}

tf_status elem_shell_patches(tf_sim *s, elem_shell *e, const double *rest) {
  trimesh *m = &s->model.mesh;
  uint32_t nt = m->tri_count;
  e->cap = nt ? nt : 1;
  e->patch = mem_array(&s->mem, NP * (size_t)e->cap, sizeof *e->patch);
  e->hpatch = mem_array(&s->mem, NP * (size_t)e->cap, sizeof *e->hpatch);
  e->hrest = mem_array(&s->mem, e->cap, sizeof *e->hrest);
  e->tri = mem_array(&s->mem, e->cap, sizeof *e->tri);
  e->rest = mem_array(&s->mem, e->cap, sizeof *e->rest);
  e->flaps = mem_array(&s->mem, 3 * (size_t)e->cap, sizeof *e->flaps);
  e->nbr = mem_array(&s->mem, 3 * (size_t)e->cap, sizeof *e->nbr);
  e->six = mem_array(&s->mem, 6 * (size_t)e->cap, sizeof *e->six);
  e->held = mem_array(&s->mem, e->cap, sizeof *e->held);
  e->clamp = mem_array(&s->mem, e->cap, sizeof *e->clamp);
  int *size = mem_array(&s->mem, e->cap, sizeof *size);
  tf_status st = TF_E_NOMEM;
  if (!e->patch || !e->hpatch || !e->hrest || !e->tri || !e->rest || !e->flaps || !e->nbr ||
      !e->six || !e->held || !e->clamp || !size || !trimesh_tri_flaps(&s->mem, m, e->flaps, e->nbr))
    goto done;
  for (uint32_t f = 0; f < nt; ++f)
    if (!six_patch(m, rest, e->flaps, f, e->six + 6 * (size_t)f))
      e->six[6 * (size_t)f] = UINT32_MAX;
  e->count = e->skipped = 0;
  for (uint32_t f = 0; f < nt; ++f) {
    uint32_t *p = e->patch + NP * (size_t)e->count;
    shell_rest *r = &e->rest[e->count];
    e->clamp[e->count] = 0;
    if (!divergence_patch(m, rest, e->flaps, e->nbr, e->six, NULL, f, p, r)) {
      /* no gradient at some edge: the triangle's own quadratic, if it has one (and no clamp) */
      if (e->six[6 * (size_t)f] == UINT32_MAX) {
        e->skipped++;
        continue;
      }
      double X[18];
      memcpy(p, e->six + 6 * (size_t)f, 6 * sizeof *p);
      for (int q = 0; q < 6; ++q) v3_copy(X + 3 * q, rest + 3 * (size_t)p[q]);
      shell_rest_init(r, X);
      e->clamp[e->count] = SHELL_NO_CLAMP;
    }
    newton_patch(rest, e, e->count, f);
    size[e->count] = e->hrest[e->count].np;
    e->tri[e->count++] = f;
  }
  if (e->skipped)
    sim_log(s, TF_LOG_WARN,
            "bending: %u of %u triangles have no patch that fits a quadratic (a mesh too small or "
            "too thin around them) and carry no bending",
            e->skipped, nt);
  st = trimesh_add_couplings(&s->mem, m, e->hpatch, e->count, NP, size) ? TF_OK : TF_E_NOMEM;
  /* each patch's rest curvature is state: bend plasticity moves it (shell_post_step) */
  e->plastic_at = sim_reserve_plastic(s, 3 * e->count);
done:
  MEM_FREE_ARRAY(&s->mem, size, e->cap);
  return st;
}

void elem_shell_pins_changed(tf_sim *s, elem_shell *e) {
  const trimesh *m = &s->model.mesh;
  const uint8_t *fixed = s->pins.fixed;
  for (uint32_t f = 0; f < m->tri_count; ++f) {
    const uint32_t *t = m->tris + 3 * (size_t)f;
    e->held[f] = fixed[t[0]] && fixed[t[1]] && fixed[t[2]];
  }
  for (uint32_t k = 0; k < e->count; ++k) {
    if (e->clamp[k] == SHELL_NO_CLAMP) continue;
    uint32_t f = e->tri[k];
    uint8_t mask = e->held[f] ? SHELL_HELD : 0;
    for (int c = 0; c < 3 && !mask; ++c) {
      uint32_t h = e->nbr[3 * (size_t)f + c];
      if (h != UINT32_MAX && e->held[h]) mask |= (uint8_t)(1u << c);
    }
    if (mask == e->clamp[k]) continue;
    e->clamp[k] = mask;
    if (mask & SHELL_HELD) continue; /* held: no bending of its own (shell_eval skips it) */
    /* new weights on the same patch (a clamped edge uses a subset of its vertices) */
    uint32_t p2[NP], *p = e->patch + NP * (size_t)k;
    shell_rest r2;
    if (!divergence_patch(m, s->model.rest, e->flaps, e->nbr, e->six, mask ? e->held : NULL, f, p2,
                          &r2))
      continue;
    shell_rest r = r2;
    r.np = e->rest[k].np;
    for (int i = 0; i < 3; ++i) memset(r.c[i], 0, sizeof r.c[i]);
    int ok = 1;
    for (int i = 0; i < r2.np && ok; ++i) {
      int slot = -1;
      for (int q = 0; q < r.np && slot < 0; ++q)
        if (p[q] == p2[i]) slot = q;
      ok = slot >= 0;
      for (int j = 0; j < 3 && ok; ++j) r.c[j][slot] = r2.c[j][i];
    }
    if (ok) e->rest[k] = r;
  }
}

tf_status elem_shell_init(tf_sim *s, elem_shell *e, double bend) {
  e->bend = mem_array(&s->mem, e->cap, sizeof *e->bend);
  /* the slots packed in element order, np^2 each (a fixed stride of SHELL_MAX_PATCH^2 made the
   * assembly read 4x the bytes it used) */
  e->slot_at = mem_array(&s->mem, (size_t)e->count + 1, sizeof *e->slot_at);
  if (e->slot_at) {
    for (uint32_t k = 0; k < e->count; ++k)
      e->slot_at[k + 1] = e->slot_at[k] + (uint32_t)(e->hrest[k].np * e->hrest[k].np);
    e->slot = mem_array(&s->mem, slot_count(e), sizeof *e->slot);
  }
  if (!e->bend || !e->slot_at || !e->slot ||
      elem_plastic_init(&s->mem, &e->pl, e->count, e->patch, NP, 3, s->par.bend_yield,
                        s->par.bend_plastic_limit) != TF_OK)
    return TF_E_NOMEM;
  e->b0 = s->state.plastic + e->plastic_at;
  for (uint32_t k = 0; k < e->count; ++k)
    for (int c = 0; c < 3; ++c) e->b0[3 * (size_t)k + c] = e->rest[k].b0[c];
  elem_shell_set_bend(e, bend);
  for (uint32_t k = 0; k < e->count; ++k) {
    const uint32_t *p = e->hpatch + NP * (size_t)k;
    int np = e->hrest[k].np;
    for (int a = 0; a < np; ++a)
      for (int b = 0; b < np; ++b) {
        uint32_t sl = bsr_slot(&s->solver.H, p[a], p[b]);
        e->slot[e->slot_at[k] + (size_t)np * a + b] = sl;
      }
  }
  /* colours over each triangle's two stencils together: its gradient's and its Hessian's */
  uint32_t *both = mem_array(&s->mem, 2 * NP * (size_t)e->count, sizeof *both);
  uint32_t *width = mem_array(&s->mem, e->count, sizeof *width);
  tf_status st = both && width ? TF_OK : TF_E_NOMEM;
  for (uint32_t k = 0; st == TF_OK && k < e->count; ++k) {
    uint32_t *b = both + 2 * NP * (size_t)k, w = 0;
    for (int q = 0; q < e->rest[k].np; ++q) b[w++] = e->patch[NP * (size_t)k + q];
    for (int q = 0; q < e->hrest[k].np; ++q) b[w++] = e->hpatch[NP * (size_t)k + q];
    width[k] = w;
  }
  if (st == TF_OK)
    st = elem_colours_build(&s->mem, &e->col, s->model.n, e->count, both, 2 * NP, width,
                            s->model.rest);
  MEM_FREE_ARRAY(&s->mem, both, 2 * NP * (size_t)e->count);
  MEM_FREE_ARRAY(&s->mem, width, e->count);
  return st;
}

void elem_shell_set_bend(elem_shell *e, double bend) {
  for (uint32_t k = 0; k < e->count; ++k) e->bend[k] = bend;
}

void elem_shell_set_bend_map(elem_shell *e, const double *per_vertex) {
  /* a triangle's rigidity is the mean of its three corners' */
  for (uint32_t k = 0; k < e->count; ++k) {
    const uint32_t *p = e->patch + NP * (size_t)k;
    e->bend[k] = (per_vertex[p[0]] + per_vertex[p[1]] + per_vertex[p[2]]) / 3.0;
  }
}
