/* SPDX-License-Identifier: MIT
 * The friction set: IPC's lagged dissipative potential (Li et al. 2020, sec. 5). For each pair in
 * contact at the step's start, the normal force lambda (the barrier's, N), the contact's tangent
 * plane T (3 x 2) and where the pair touches are frozen for the step; the potential
 *     D = mu lambda f0(|u|),   u = T^T (sum_k w_k (y_k - x_k) - slip),
 * with u the tangential slip over the step relative to the collider's own motion at the contact
 * point, and f0 the C1 smoothing of |u| below eps_u = EPS_V dt (f0' = f1 rises from 0 to 1), is
 * minimized with everything else: below eps_u it is a stiff spring that holds (static friction),
 * beyond it a force mu lambda against the slip (kinetic). Its Hessian is IPC's while sticking and
 * the majorizer's while sliding (friction_eval). Dissipative, so part of the step's objective only (step_only), not of PE. */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "contact/contact.h"
#include "core/vec3.h"
#include "sim/sim.h"

/* m/s: slip speeds below this count as sticking; static friction creeps at most about
 * EPS_V (tan theta / mu) on a slope, 0.1 mm/s */
static const double EPS_V = 3e-4;

static void tangent_basis(const double n[3], double T[6]) {
  double a[3] = {1, 0, 0}, t1[3], t2[3];
  if (fabs(n[0]) > 0.8) v3_set(a, 0, 1, 0);
  v3_cross(t1, n, a);
  v3_scale(t1, t1, 1.0 / v3_norm(t1));
  v3_cross(t2, n, t1);
  for (int k = 0; k < 3; ++k) T[2 * k] = t1[k], T[2 * k + 1] = t2[k];
}

/* one pair's normal force and contact frame at x_n (blocks.c: on any thread) */
typedef struct lag_term {
  double lambda, w[4], slip[3], nrm[3];
  int touching; /* within its gap with a positive normal force: the rest is set */
} lag_term;
static_assert(sizeof(lag_term) <= CONTACT_BLOCK_BYTES, "a friction term fits a block slot");

typedef struct lag_job {
  tf_sim *s;
  const double *xn;
} lag_job;

static void lag_pair(void *ctx, size_t k, void *out) {
  const lag_job *j = ctx;
  const tf_sim *s = j->s;
  const sim_contact *c = s->contact;
  const contact_pair *p = &c->pairs[k];
  const double *xn = j->xn;
  lag_term *t = out;
  double lambda;
  int v[4];
  double xs[12];
  t->touching = 0;
  if (p->kind == CONTACT_G) {
    double n[3], h;
    contact_ground(s, n, &h);
    double d = v3_dot(n, xn + 3 * (size_t)p->a) - h;
    if (d >= p->dhat) return;
    if (p->inside)
      lambda = p->kappa * CONTACT_F_HALF * p->dhat * p->dhat * (p->dhat - d);
    else {
      double db;
      barrier_b(d * d, p->dhat * p->dhat, &db, NULL);
      lambda = -p->kappa * db * 2.0 * d;
    }
  } else {
    const double *cx = contact_has_collider(p->kind) ? c->col[p->collider]->x0 : NULL;
    double sq = contact_pair_distance2_at(s, p, xn, cx, NULL, NULL, v, xs);
    if (!(sq < p->dhat * p->dhat)) return;
    double db;
    barrier_b(sq, p->dhat * p->dhat, &db, NULL);
    lambda = -p->kappa * db * 2.0 * sqrt(sq);
  }
  if (!(lambda > 0.0)) return;
  t->touching = 1;
  t->lambda = lambda;
  contact_pair_frame(s, p, xn, t->w, t->slip, t->nrm);
}

static int lag_take(void *ctx, size_t k, void *out) {
  const lag_job *j = ctx;
  tf_sim *s = j->s;
  sim_contact *c = s->contact;
  const contact_pair *p = &c->pairs[k];
  const lag_term *t = out;
  if (!t->touching) return 1;
  /* the contact force is part of the load a vertex must balance: the solver's convergence
   * test measures each vertex's net force against this scale (step_tau.c, force_ref) */
  uint32_t vv[4];
  int nv = contact_pair_vertices(s, p, vv), w0 = p->kind == CONTACT_TP;
  for (int q = 0; q < nv; ++q) {
    s->work.force_ref[vv[q]] += t->lambda * fabs(t->w[w0 + q]);
    s->work.comp[s->model.mesh.comp[vv[q]]].touching = 1;
  }
  if (!(p->mu > 0.0)) return 1;
  contact_friction *f = contact_push_friction(s);
  if (!f) return 0;
  f->p = *p;
  f->lambda = t->lambda;
  memcpy(f->w, t->w, sizeof t->w);
  v3_copy(f->slip0, t->slip);
  tangent_basis(t->nrm, f->T);
  return 1;
}

tf_status contact_lag_friction(tf_sim *s, const double *xn, double dt) {
  sim_contact *c = s->contact;
  c->fric_count = 0;
  (void)dt;
  for (uint32_t q = 0; q < s->model.mesh.comp_count; ++q) s->work.comp[q].touching = 0;
  lag_job j = {s, xn};
  return contact_pairs_run(s, c->pair_count, sizeof(lag_term), lag_pair, lag_take, &j) ? TF_OK
                                                                                       : TF_E_NOMEM;
}

/* f1(x)/x and its derivative's part: D's gradient is mu lambda (f1/x) u, its Hessian
 * mu lambda T [ (f1'(x) x - f1) / x^3 u u^T + f1 / x I ] T^T (IPC supplemental) */
static void smooth(double x, double eps, double *f0, double *f1_over_x, double *f2) {
  if (x >= eps) {
    *f0 = x;
    *f1_over_x = 1.0 / x;
    *f2 = -1.0 / (x * x * x); /* (0 x - 1) / x^3 */
    return;
  }
  *f0 = -x * x * x / (3.0 * eps * eps) + x * x / eps + eps / 3.0;
  *f1_over_x = 2.0 / eps - x / (eps * eps);
  /* (f1' x - f1) / x^3 with f1 = 2x/eps - x^2/eps^2: = -1 / (eps^2 x) */
  *f2 = x > 0.0 ? -1.0 / (eps * eps * x) : 0.0;
}

static void friction_eval(const tf_sim *s, const void *data, const elem_args *a, const double *y,
                          double *E, double *grad, bsr *H) {
  (void)data, (void)a;
  const sim_contact *c = s->contact;
  /* its pair blocks are this evaluation's output (cleared by the barrier set, evaluated first) */
  sim_contact *out = (sim_contact *)c;
  const double *xn = s->state.x;
  double eps = EPS_V * s->work.dt;
  for (size_t k = 0; k < c->fric_count; ++k) {
    const contact_friction *f = &c->fric[k];
    const contact_pair *p = &f->p;
    uint32_t v[4];
    int nv = contact_pair_vertices(s, p, v);
    /* stencil weights of the simulated points: PT, G: w[0]; TP: w[1..3]; EE: w[0..1]; self
     * pairs: w[0..3], the second side's negative (contact_pair_frame) */
    double wv[4];
    for (int q = 0; q < nv; ++q) wv[q] = p->kind == CONTACT_TP ? f->w[1 + q] : f->w[q];
    double slip[3];
    v3_scale(slip, f->slip0, -1.0);
    for (int q = 0; q < nv; ++q) {
      double dy[3];
      v3_sub(dy, y + 3 * (size_t)v[q], xn + 3 * (size_t)v[q]);
      v3_axpy(slip, wv[q], dy);
    }
    double u[2] = {0, 0};
    for (int r = 0; r < 3; ++r) u[0] += f->T[2 * r] * slip[r], u[1] += f->T[2 * r + 1] * slip[r];
    double x = sqrt(u[0] * u[0] + u[1] * u[1]), f0, f1x, f2;
    smooth(x, eps, &f0, &f1x, &f2);
    double ml = p->mu * f->lambda;
    *E += ml * f0;
    double gt[3]; /* the force direction in 3D: T (f1/x) u */
    for (int r = 0; r < 3; ++r) gt[r] = ml * f1x * (f->T[2 * r] * u[0] + f->T[2 * r + 1] * u[1]);
    if (grad)
      for (int q = 0; q < nv; ++q) v3_axpy(grad + 3 * (size_t)v[q], wv[q], gt);
    if (!H) continue;
    /* the 2 x 2 core. Sticking (x < eps): IPC's exact Hessian f1/x I + f2 u u^T, PSD there (its
     * eigenvalues are f1/x > 0 across the slip and f0'' = 2 (1/eps - x/eps^2) >= 0 along it).
     * Sliding (x >= eps): the exact Hessian (I - u u^T / x^2) / x has no curvature along the slip,
     * so Newton's model is linear there and a step that reverses the slip across u = 0 (the kink
     * the smoothing leaves at the scale eps, far below a step) rises in energy where the model
     * falls: on DRAPE-32 at rest that was most of the rejected line-search trials. The isotropic
     * f1/x I instead is the curvature of the half-quadratic majorizer of f0 (f0(sqrt t) is concave:
     * Geman & Reynolds 1992; iteratively reweighted least squares), a model that is an upper bound
     * of the friction term: its steps never overshoot the kink, and the gradient is exact, so the
     * minimizer is the same. */
    double A[4] = {f1x, 0.0, 0.0, f1x};
    if (x < eps) {
      A[0] += f2 * u[0] * u[0];
      A[1] = A[2] = f2 * u[0] * u[1];
      A[3] += f2 * u[1] * u[1];
    }
    double K[9]; /* T A T^T, 3 x 3 */
    for (int r = 0; r < 3; ++r)
      for (int q = 0; q < 3; ++q) {
        double tr0 = f->T[2 * r], tr1 = f->T[2 * r + 1], tq0 = f->T[2 * q], tq1 = f->T[2 * q + 1];
        K[3 * r + q] = ml * (tr0 * (A[0] * tq0 + A[1] * tq1) + tr1 * (A[2] * tq0 + A[3] * tq1));
      }
    for (int q1 = 0; q1 < nv; ++q1)
      for (int q2 = 0; q2 < nv; ++q2) {
        uint32_t i = v[q1], j = v[q2];
        if (i > j) continue;
        double blk[9];
        for (int r = 0; r < 9; ++r) blk[r] = wv[q1] * wv[q2] * K[r];
        contact_add_block(out, H, i, j, blk);
      }
  }
}

const elem_ops ELEM_FRICTION = {"friction", 1, friction_eval, NULL, NULL, 0, NULL, NULL};
