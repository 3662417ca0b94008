/* SPDX-License-Identifier: MIT
 * The barrier set: IPC's log barrier (Li et al. 2020, eq. 6) on the squared distance s = d^2 of
 * every candidate pair closer than its gap dhat (shat = dhat^2),
 *     b(s) = -(s - shat)^2 ln(s / shat)   for 0 < s < shat,   0 beyond,
 * C2 at s = shat and unbounded as s -> 0, so a minimizer never reaches contact and a step filtered
 * by CCD never crosses. Edge-edge pairs are multiplied by the mollifier (eq. 22) so the energy
 * stays smooth as two edges turn parallel. The pair's Hessian is kappa (b'' gs gs^T + b' Hs) over
 * the simulated coordinates of its stencil (a collider's points are not unknowns), replaced by a
 * rank-one PSD proxy along the pair's gradient (scatter), then scattered into the elastic pattern:
 * against a collider the simulated points of a stencil are one vertex, one triangle or one edge,
 * whose blocks the mesh already has; a self pair's (self.c) couple vertices far apart on the mesh,
 * and those blocks go to the contact's pair blocks (solve/pairmat.h), which PCG applies beside
 * the pattern. Ground pairs use the signed height d over the plane;
 * a vertex that started below it gets a penalty 1/2 k (dhat - d)^2 instead until it is out. */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "contact/contact.h"
#include "core/vec3.h"
#include "geom/distance.h"
#include "sim/sim.h"

double barrier_b(double s, double shat, double *db, double *d2b) {
  if (!(s < shat)) {
    if (db) *db = 0.0;
    if (d2b) *d2b = 0.0;
    return 0.0;
  }
  double r = s - shat, l = log(s / shat);
  if (db) *db = -2.0 * r * l - r * r / s;
  if (d2b) *d2b = -2.0 * l - 4.0 * r / s + r * r / (s * s);
  return -r * r * l;
}

static void gather(double *dst, const double *src, int i) { v3_copy(dst, src + 3 * (size_t)i); }

double contact_pair_distance2(const tf_sim *s, const contact_pair *p, const double *y, double *grad,
                              double *hess, int v[4], double xs[12]) {
  const contact_collider *col = contact_has_collider(p->kind) ? s->contact->col[p->collider] : NULL;
  return contact_pair_distance2_at(s, p, y, col ? col->x1 : NULL, grad, hess, v, xs);
}

void contact_pair_stencil_at(const tf_sim *s, const contact_pair *p, const double *y,
                             const double *cx, int v[4], double xs[12]) {
  const sim_contact *c = s->contact;
  const contact_collider *col = contact_has_collider(p->kind) ? c->col[p->collider] : NULL;
  v[0] = v[1] = v[2] = v[3] = -1;
  if (p->kind == CONTACT_SPT || p->kind == CONTACT_TP) { /* a point against a sheet's triangle */
    const int *t = c->tris + 3 * (size_t)p->b;
    if (p->kind == CONTACT_SPT) v[0] = (int)p->a;
    gather(xs, p->kind == CONTACT_SPT ? y : cx, (int)p->a);
    for (int k = 0; k < 3; ++k) v[1 + k] = t[k], gather(xs + 3 + 3 * k, y, t[k]);
  } else if (p->kind == CONTACT_PT) {
    const int *t = col->tris + 3 * (size_t)p->b;
    v[0] = (int)p->a;
    gather(xs, y, (int)p->a);
    for (int k = 0; k < 3; ++k) gather(xs + 3 + 3 * k, cx, t[k]);
  } else { /* edge against edge: the sheet's, then the sheet's or a collider's */
    const int *ea = c->edges + 2 * (size_t)p->a;
    const int *eb = (p->kind == CONTACT_SEE ? c->edges : col->edges) + 2 * (size_t)p->b;
    v[0] = ea[0], v[1] = ea[1];
    if (p->kind == CONTACT_SEE) v[2] = eb[0], v[3] = eb[1];
    gather(xs, y, ea[0]), gather(xs + 3, y, ea[1]);
    gather(xs + 6, p->kind == CONTACT_SEE ? y : cx, eb[0]);
    gather(xs + 9, p->kind == CONTACT_SEE ? y : cx, eb[1]);
  }
}

double contact_pair_distance2_at(const tf_sim *s, const contact_pair *p, const double *y,
                                 const double *cx, double *grad, double *hess, int v[4],
                                 double xs[12]) {
  if (p->kind == CONTACT_G) { /* the ground: the height over the plane, squared */
    double n[3], h;
    contact_ground(s, n, &h);
    v[0] = (int)p->a, v[1] = v[2] = v[3] = -1;
    double dd = v3_dot(n, y + 3 * (size_t)p->a) - h;
    return dd > 0.0 ? dd * dd : 0.0;
  }
  contact_pair_stencil_at(s, p, y, cx, v, xs);
  return contact_is_ee(p->kind) ? geom_ee_distance2(xs, NULL, grad, hess)
                                : geom_pt_distance2(xs, NULL, grad, hess);
}

void contact_pair_stencil(const tf_sim *s, const contact_pair *p, const double *y, int v[4],
                          double xs[12]) {
  const contact_collider *col = contact_has_collider(p->kind) ? s->contact->col[p->collider] : NULL;
  contact_pair_stencil_at(s, p, y, col ? col->x1 : NULL, v, xs);
}

/* rest stencil of an edge-edge pair, for the mollifier's threshold */
static double ee_eps(const tf_sim *s, const contact_pair *p) {
  const sim_contact *c = s->contact;
  const int *ea = c->edges + 2 * (size_t)p->a;
  double xr[12];
  gather(xr, s->model.rest, ea[0]);
  gather(xr + 3, s->model.rest, ea[1]);
  if (p->kind == CONTACT_SEE) {
    const int *eb = c->edges + 2 * (size_t)p->b;
    gather(xr + 6, s->model.rest, eb[0]);
    gather(xr + 9, s->model.rest, eb[1]);
  } else {
    const contact_collider *col = c->col[p->collider];
    const int *eb = col->edges + 2 * (size_t)p->b;
    gather(xr + 6, col->rest, eb[0]);
    gather(xr + 9, col->rest, eb[1]);
  }
  return geom_ee_mollifier_eps(xr);
}

/* add a stencil's local gradient g and a PSD proxy of its Hessian h over its simulated points.
 * The proxy is rank one: the exact curvature of the pair's energy along its own gradient (over
 * the simulated coordinates, the contact's normal mode), clamped at 0,
 *     H ~ max(c, 0) g g^T / |g|^2,   c = g^T h g / |g|^2.
 * For a point against a collider's triangle this is the exact PSD projection: the squared
 * distance's Hessian over the point is 2 I, 2 (I - e e^T) or 2 n n^T (vertex, edge or face
 * region), its gradient an eigenvector with eigenvalue 2 and the others 0 or 2, so
 * kappa (b'' gs gs^T + b' Hs) has kappa (4 s b'' + 2 b') along the gradient and kappa b' <= 0
 * across it, which projection clamps to 0. For a collider point against a cloth triangle and for
 * edge-edge pairs it drops the curvature across the normal (the distance's rotation terms under
 * b' < 0, mostly negative and clamped by a projection anyway). A Gauss-Newton-type proxy of the
 * barrier's Hessian in the spirit of GIPC (Huang, Chitalu, Lin, Komura 2024), without an
 * eigen-decomposition per pair: on DRAPE-32 the per-pair Jacobi projection (core/eigen_sym.c) was
 * 18 % of the time (38 % on a small strip), and the proxy took fewer Newton iterations per step
 * (11.2 against 12.2), with the same results on the contact tests. */
/* the proxy's curvature c (the proxy is c gs gs^T, gs = g over the simulated points), 0 when it
 * has none; np of them, their stencil slots in idx */
static double proxy_curvature(const int v[4], const double *g, const double *h) {
  int idx[4], np = 0;
  for (int k = 0; k < 4; ++k)
    if (v[k] >= 0) idx[np++] = k;
  double gs[12], g2 = 0.0, c = 0.0;
  int m = 3 * np, rows[12];
  for (int a = 0; a < m; ++a) {
    rows[a] = 3 * idx[a / 3] + a % 3;
    gs[a] = g[rows[a]];
    g2 += gs[a] * gs[a];
  }
  if (!(g2 > 0.0)) return 0.0;
  for (int a = 0; a < m; ++a) {
    double hg = 0.0;
    for (int b = 0; b < m; ++b) hg += h[12 * rows[a] + rows[b]] * gs[b];
    c += gs[a] * hg;
  }
  c /= g2 * g2; /* the proxy is (c |g|^2 / |g|^2) g g^T / |g|^2 = c g g^T with this c */
  return c > 0.0 ? c : 0.0;
}

/* add g over the stencil's simulated points, and c gs gs^T (proxy_curvature) to H */
static void scatter(bsr *H, sim_contact *con, double *grad, const int v[4], const double *g,
                    double c) {
  int idx[4], np = 0;
  for (int k = 0; k < 4; ++k)
    if (v[k] >= 0) idx[np++] = k;
  if (grad)
    for (int a = 0; a < np; ++a)
      v3_add(grad + 3 * (size_t)v[idx[a]], grad + 3 * (size_t)v[idx[a]], g + 3 * idx[a]);
  if (!H || !(c > 0.0)) return;
  for (int a = 0; a < np; ++a)
    for (int b = 0; b < np; ++b) {
      uint32_t i = (uint32_t)v[idx[a]], j = (uint32_t)v[idx[b]];
      if (i > j) continue; /* (j, i) is its transpose */
      const double *ga = g + 3 * idx[a], *gb = g + 3 * idx[b];
      double blk[9];
      for (int r = 0; r < 3; ++r)
        for (int q = 0; q < 3; ++q) blk[3 * r + q] = c * ga[r] * gb[q];
      contact_add_block(con, H, i, j, blk);
    }
}

/* A push that has not worked (a vertex still inside a body or below the ground, still poking
 * through the surface) stiffens 4x for every further advance, so the cloth's own stretch cannot
 * hold it in (a 1000 N/m membrane stretched by a 4 mm gap holds 4 N, about 4000 weights of a
 * 0.1 g vertex; the push starts at 4: five steps). It stops there: a push that still has not worked is blocked by a layer
 * (its own fold, another sheet) whose barrier it would crush. Escalating on for 12 advances
 * (4^11) drove a vertex of a crumpled sheet to 1e-15 m of its own triangle, where rounding let
 * it through (three crossed sheets at 16 quads, Newton budget 100: 166 crossings of a sheet
 * through itself in 2 s; none with the stop at 6, nor at 4 or 7;
 * self_three_sheets_never_cross_themselves_with_a_larger_budget) */
static const int PUSH_ESCALATIONS = 6;

static double push_factor(uint8_t advances) {
  return ldexp(1.0, 2 * ((advances < PUSH_ESCALATIONS ? advances : PUSH_ESCALATIONS) - 1));
}

static void ground_term(const tf_sim *s, const contact_pair *p, const double *y, double *E,
                        double *grad, bsr *H) {
  double n[3], h;
  contact_ground(s, n, &h);
  uint32_t i = p->a;
  double d = v3_dot(n, y + 3 * (size_t)i) - h, dhat = p->dhat;
  double g1, k2; /* dE/dd, d2E/dd2 */
  if (p->inside) {
    if (d >= dhat) return;
    /* N/m: the barrier's load at dhat depth, 4x stiffer for every further frame below */
    double k = p->kappa * CONTACT_F_HALF * dhat * dhat * push_factor(s->contact->inside_frames[i]);
    *E += 0.5 * k * (dhat - d) * (dhat - d);
    g1 = -k * (dhat - d);
    k2 = k;
  } else {
    double sq = d * d, shat = dhat * dhat, db, d2b;
    if (!(d > 0.0) || sq >= shat) return;
    *E += p->kappa * barrier_b(sq, shat, &db, &d2b);
    g1 = p->kappa * db * 2.0 * d;
    k2 = p->kappa * (d2b * 4.0 * sq + 2.0 * db);
    if (k2 < 0.0) k2 = 0.0; /* PSD projection of a rank-one term */
  }
  if (grad) v3_axpy(grad + 3 * (size_t)i, g1, n);
  if (H) {
    double *blk = H->val + 9 * (size_t)H->diag[i];
    for (int r = 0; r < 3; ++r)
      for (int q = 0; q < 3; ++q) blk[3 * r + q] += k2 * n[r] * n[q];
  }
}

double contact_stencil_gap(const double xs[12], int kind) {
  int split = contact_is_ee(kind) ? 2 : 1; /* [0, split) against the rest */
  double gap = -INFINITY;
  for (int a = 0; a < 3; ++a) {
    double lo0 = INFINITY, hi0 = -INFINITY, lo1 = INFINITY, hi1 = -INFINITY;
    for (int k = 0; k < 4; ++k) {
      double v = xs[3 * k + a];
      if (k < split)
        lo0 = tf_min(v, lo0), hi0 = tf_max(v, hi0);
      else
        lo1 = tf_min(v, lo1), hi1 = tf_max(v, hi1);
    }
    gap = tf_max(lo0 - hi1, tf_max(lo1 - hi0, gap));
  }
  return gap;
}

/* the stencil's two sides' boxes are at least dhat apart: the pair is beyond its gap (most
 * candidates are; the exact distance's classification is what a barrier evaluation costs) */
static int apart(const double xs[12], int kind, double dhat) {
  return contact_stencil_gap(xs, kind) >= dhat;
}

/* one pair's share of an evaluation (blocks.c: computed on any thread) */
typedef struct barrier_term {
  double e;     /* its energy, J */
  double c;     /* the Hessian proxy's curvature (with a Hessian) */
  double g[12]; /* its gradient over the stencil (with a gradient or a Hessian) */
  int v[4];     /* the stencil's simulated vertices, -1 for a collider's points */
  int active;   /* closer than its gap: the rest is set */
} barrier_term;
static_assert(sizeof(barrier_term) <= CONTACT_BLOCK_BYTES, "a barrier term fits a block slot");

typedef struct barrier_job {
  const tf_sim *s;
  const double *y;
  double *E, *grad;
  bsr *H;
  sim_contact *c; /* its pair blocks are this evaluation's output */
} barrier_job;

static void barrier_pair(void *ctx, size_t k, void *out) {
  const barrier_job *j = ctx;
  const tf_sim *s = j->s;
  const contact_pair *p = &s->contact->pairs[k];
  barrier_term *t = out;
  t->active = 0;
  if (p->kind == CONTACT_G) return; /* ground_term, in order */
  double shat = p->dhat * p->dhat, xs[12], g[12], h[144];
  contact_pair_stencil(s, p, j->y, t->v, xs);
  if (apart(xs, p->kind, p->dhat)) return;
  double sq = contact_pair_distance2(s, p, j->y, NULL, NULL, t->v, xs);
  if (!(sq < shat)) return;
  t->active = 1;
  int derivs = j->grad || j->H, ee = contact_is_ee(p->kind);
  if (derivs) contact_pair_distance2(s, p, j->y, g, j->H ? h : NULL, t->v, xs);
  double db, d2b, b = barrier_b(sq, shat, &db, &d2b), lh[144];
  double *lg = t->g;
  if (ee) {
    /* E = kappa m(x) b(s(x)): product rule (Li et al. 2020 supplemental) */
    double mg[12], mh[144], eps = ee_eps(s, p);
    double mo = geom_ee_mollifier(xs, eps, derivs ? mg : NULL, j->H ? mh : NULL);
    t->e = p->kappa * mo * b;
    if (!derivs) return;
    for (int r = 0; r < 12; ++r) lg[r] = p->kappa * (mo * db * g[r] + b * mg[r]);
    if (!j->H) return;
    for (int r = 0; r < 12; ++r)
      for (int q = 0; q < 12; ++q)
        lh[12 * r + q] = p->kappa * (mo * (d2b * g[r] * g[q] + db * h[12 * r + q]) +
                                     b * mh[12 * r + q] + db * (mg[r] * g[q] + g[r] * mg[q]));
  } else {
    t->e = p->kappa * b;
    if (!derivs) return;
    for (int r = 0; r < 12; ++r) lg[r] = p->kappa * db * g[r];
    if (!j->H) return;
    for (int r = 0; r < 12; ++r)
      for (int q = 0; q < 12; ++q)
        lh[12 * r + q] = p->kappa * (d2b * g[r] * g[q] + db * h[12 * r + q]);
  }
  t->c = proxy_curvature(t->v, lg, lh);
}

static int barrier_take(void *ctx, size_t k, void *out) {
  const barrier_job *j = ctx;
  const contact_pair *p = &j->s->contact->pairs[k];
  const barrier_term *t = out;
  if (p->kind == CONTACT_G)
    ground_term(j->s, p, j->y, j->E, j->grad, j->H);
  else if (t->active) {
    *j->E += t->e;
    if (j->grad || j->H) scatter(j->H, j->c, j->grad, t->v, t->g, j->H ? t->c : 0.0);
  }
  return 1;
}

/* 1/2 k |y_i - target_i|^2 into E, its gradient and Hessian */
static void spring(const double *y, uint32_t i, const double *target, double k, double *E,
                   double *grad, bsr *H) {
  double d[3];
  v3_sub(d, y + 3 * (size_t)i, target + 3 * (size_t)i);
  *E += 0.5 * k * v3_norm2(d);
  if (grad) v3_axpy(grad + 3 * (size_t)i, k, d);
  if (H) {
    double *blk = H->val + 9 * (size_t)H->diag[i];
    blk[0] += k, blk[4] += k, blk[8] += k;
  }
}

/* 1/2 k (e . (y_i - ref_i) - |u|)^2, e = u / |u|: the move u asked of vertex i beyond ref_i,
 * along u only */
static void along(const double *y, uint32_t i, const double *ref, const double *u, double k,
                  double *E, double *grad, bsr *H) {
  double d[3], e[3], len = v3_norm(u);
  v3_sub(d, y + 3 * (size_t)i, ref + 3 * (size_t)i);
  v3_scale(e, u, 1.0 / len);
  const double r = v3_dot(e, d) - len;
  *E += 0.5 * k * r * r;
  if (grad) v3_axpy(grad + 3 * (size_t)i, k * r, e);
  if (H) {
    double *blk = H->val + 9 * (size_t)H->diag[i];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) blk[3 * a + b] += k * e[a] * e[b];
  }
}

static void barrier_eval(const tf_sim *s, const void *data, const elem_args *a, const double *y,
                         double *E, double *grad, bsr *H) {
  (void)data, (void)a;
  const sim_contact *c = s->contact;
  sim_contact *out = (sim_contact *)c; /* the pair blocks are this evaluation's output */
  if (H) pairmat_clear(&out->pm);
  barrier_job j = {s, y, E, grad, H, out};
  contact_pairs_run(s, c->pair_count, sizeof(barrier_term), barrier_pair, barrier_take, &j);
  /* a vertex that started inside a one-sided collider: a spring to just outside its surface; one
   * poking through the cloth's own surface at the advance's start: a spring to one gap beyond it
   * on the side the surface around it is on (self.c, contact_self_tangles), so a garment modelled
   * a little through itself comes apart. Both with the barrier's load at one gap's depth (as the
   * ground's penalty): four weights, 4x stiffer for every further advance it stays in (N/m) */
  const double load = c->kappa_scale * 4.0 * fmax(v3_norm(s->par.gravity), 1.0);
  for (uint32_t i = 0; i < c->n; ++i) {
    if (c->inside[i] >= 0) {
      double dhat = s->par.thickness + c->col[c->inside[i]]->thickness;
      double k = load * s->model.mass[i] / dhat * push_factor(c->inside_frames[i]);
      spring(y, i, c->outside, k, E, grad, H);
    }
    if (c->poking[i]) {
      double k = load * s->model.mass[i] / s->par.thickness * push_factor(c->poking[i]);
      spring(y, i, c->untangle, k, E, grad, H);
    }
    /* the move the crossings' contour asks of it beyond its prediction (untangle.c, self.c), by
     * the poke's spring at its first advance's stiffness, along the move only */
    const double *u = c->contour + 3 * (size_t)i;
    if (c->contour_on && (u[0] != 0.0 || u[1] != 0.0 || u[2] != 0.0))
      along(y, i, s->work.xhat, u, load * s->model.mass[i] / s->par.thickness, E, grad, H);
  }
}

static void barrier_destroy(tf_mem *m, void *data) { contact_free(m, data); }

/* its data is the simulation's sim_contact */
const elem_ops ELEM_BARRIER = {"barrier",           0,    barrier_eval, NULL, barrier_destroy,
                               sizeof(sim_contact), NULL, NULL};
