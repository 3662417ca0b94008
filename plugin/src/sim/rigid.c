/* SPDX-License-Identifier: MIT
 * The ballistic subspace of free (unpinned) components: the 6 rigid velocity fields
 * V + w x (x - c) at the step's start positions, and the M-orthogonal projection onto them
 * (design note sec. 2.2-2.3). Projecting with the exact inertia tensor conserves linear and
 * angular momentum to round-off; pinned components have no ballistic subspace (pure flow). */
#include <math.h>
#include <string.h>

#include "core/eigen3.h"
#include "core/eigen_sym.h"
#include "core/vec3.h"
#include "sim/sim.h"

/* each free piece's rigid motion (acc: linear part, then angular) at every vertex, v + w x r from
 * its centre of mass; zero on pinned pieces */
typedef struct expand_pass {
  const tf_sim *s;
  const double *x;
  double *out;
} expand_pass;

static void expand_range(void *ctx, uint32_t b, uint32_t e) {
  const expand_pass *p = ctx;
  const tf_sim *s = p->s;
  const double *x = p->x;
  double *out = p->out;
  for (uint32_t i = b; i < e; ++i) {
    const sim_comp *c = &s->work.comp[s->model.mesh.comp[i]];
    double *o = out + 3 * (size_t)i;
    if (c->pinned)
      v3_set(o, 0, 0, 0);
    else
      sim_comp_rigid_at(c, x + 3 * (size_t)i, o);
  }
}

static void rigid_expand(const tf_sim *s, const double *x, double *out) {
  expand_pass p = {s, x, out};
  sim_vertex_for(s, expand_range, &p);
}

/* some piece has no hard pin: without one every projection is zero (a cape, a flag, flesh) */
static int any_free(const tf_sim *s) {
  for (uint32_t c = 0; c < s->model.mesh.comp_count; ++c)
    if (!s->work.comp[c].pinned) return 1;
  return 0;
}

/* relative eigenvalue cut for the inertia pseudo-inverse (collinear or single-vertex pieces) */
static const double INERTIA_PINV_CUT = 1e-12;

/* A pinned piece's frame is never read (every user of mass, com and inertia skips it), so its
 * sums are not made: a hanging cloth's step had this loop on one thread, 1.2 % of CLOTH-128's
 * samples on two, its worker idle meanwhile. A pinned piece keeps mass 0 and com 0. */
void rigid_update_frames(tf_sim *s, const double *x) {
  uint32_t nc = s->model.mesh.comp_count;
  for (uint32_t c = 0; c < nc; ++c) {
    s->work.comp[c].mass = 0.0;
    v3_set(s->work.comp[c].com, 0, 0, 0);
    memset(s->work.comp[c].inertia, 0, sizeof s->work.comp[c].inertia);
  }
  if (!any_free(s)) return;
  for (uint32_t i = 0; i < s->model.n; ++i) {
    sim_comp *c = &s->work.comp[s->model.mesh.comp[i]];
    if (c->pinned) continue;
    c->mass += s->model.mass[i];
    v3_axpy(c->com, s->model.mass[i], x + 3 * (size_t)i);
  }
  for (uint32_t c = 0; c < nc; ++c)
    if (!s->work.comp[c].pinned)
      v3_scale(s->work.comp[c].com, s->work.comp[c].com, 1.0 / s->work.comp[c].mass);
  /* I = sum m (|r|^2 Id - r r^T) */
  for (uint32_t i = 0; i < s->model.n; ++i) {
    sim_comp *c = &s->work.comp[s->model.mesh.comp[i]];
    if (c->pinned) continue;
    double r[3];
    v3_sub(r, x + 3 * (size_t)i, c->com);
    double m = s->model.mass[i], rr = v3_norm2(r);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) c->inertia[3 * a + b] += m * ((a == b ? rr : 0.0) - r[a] * r[b]);
  }
}

int rigid_momenta(tf_sim *s, const double *x, const double *u) {
  uint32_t nc = s->model.mesh.comp_count;
  if (!any_free(s)) return 0;
  for (uint32_t c = 0; c < nc; ++c) memset(s->work.comp[c].acc, 0, sizeof s->work.comp[c].acc);
  /* momenta: P = sum m u, L = sum m r x u */
  for (uint32_t i = 0; i < s->model.n; ++i) {
    sim_comp *c = &s->work.comp[s->model.mesh.comp[i]];
    if (c->pinned) continue;
    double r[3], l[3];
    const double *ui = u + 3 * (size_t)i;
    double m = s->model.mass[i];
    v3_sub(r, x + 3 * (size_t)i, c->com);
    v3_cross(l, r, ui);
    for (int k = 0; k < 3; ++k) {
      c->acc[k] += m * ui[k];
      c->acc[3 + k] += m * l[k];
    }
  }
  for (uint32_t c = 0; c < nc; ++c) {
    sim_comp *cc = &s->work.comp[c];
    if (cc->pinned) continue;
    double w[3];
    eigen3_pinv_solve(cc->inertia, cc->acc + 3, INERTIA_PINV_CUT, w);
    for (int k = 0; k < 3; ++k) {
      cc->acc[k] /= cc->mass;
      cc->acc[3 + k] = w[k];
    }
  }
  return 1;
}

void rigid_project(tf_sim *s, const double *x, const double *u, double *out) {
  if (!rigid_momenta(s, x, u)) {
    memset(out, 0, sizeof(double) * 3 * s->model.n);
    return;
  }
  rigid_expand(s, x, out);
}

/* Backward Euler of a piece's rigid modes xi = (V, omega) under its soft pins, linearized at x_n:
 *   M_R xi = J^T M u_pred + dt J^T fsoft(x_n + dt J xi),  fsoft_i(x) = -k_i (x_i - p_i)
 *   => (M_R + dt^2 K_R) xi = J^T M (u_pred + dt M^-1 fsoft(x_n)),  K_R = sum k_i J_i^T J_i,
 * J_i = [Id, -[r_i]x]. This is the minimizer of the step's quadratic model over rigid fields, so
 * it is stable at any k and dt; the explicit pull (K_R dropped) is symplectic Euler, unstable
 * once dt sqrt(lambda_max(M_R^-1 K_R)) > 2 (tau-step.md sec. 4). M_R = diag(m Id, I) about the
 * centre of mass. The rotations are scaled by the radius of gyration so the 6x6 pseudo-inverse
 * compares kg with kg (a collinear piece's rotation about its line stays undetermined, zero) */
void rigid_project_sprung(tf_sim *s, const double *x, const double *u, double dt, double *out) {
  uint32_t nc = s->model.mesh.comp_count;
  int any = 0;
  for (uint32_t c = 0; c < nc; ++c) memset(s->work.comp[c].K, 0, sizeof s->work.comp[c].K);
  for (uint32_t q = 0; q < s->pins.count; ++q) {
    uint32_t i = s->pins.idx[q];
    double w = s->pins.w[q];
    sim_comp *c = &s->work.comp[s->model.mesh.comp[i]];
    if (w >= 1.0 || c->pinned) continue;
    double k = dt * dt * s->model.mass[i] * s->par.pin_stiffness * w / (1.0 - w), r[3];
    v3_sub(r, x + 3 * (size_t)i, c->com);
    /* J^T J = [[Id, -[r]x], [[r]x, |r|^2 Id - r r^T]] */
    double rx[9] = {0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0}, rr = v3_norm2(r);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        c->K[6 * a + b] += a == b ? k : 0.0;
        c->K[6 * a + 3 + b] -= k * rx[3 * a + b];
        c->K[6 * (3 + a) + b] += k * rx[3 * a + b];
        c->K[6 * (3 + a) + 3 + b] += k * ((a == b ? rr : 0.0) - r[a] * r[b]);
      }
    any = 1;
  }
  if (!any) {
    rigid_project(s, x, u, out);
    return;
  }
  /* J^T M u per piece into acc (as rigid_project) */
  for (uint32_t c = 0; c < nc; ++c) memset(s->work.comp[c].acc, 0, sizeof s->work.comp[c].acc);
  for (uint32_t i = 0; i < s->model.n; ++i) {
    sim_comp *c = &s->work.comp[s->model.mesh.comp[i]];
    if (c->pinned) continue;
    double r[3], l[3];
    const double *ui = u + 3 * (size_t)i;
    v3_sub(r, x + 3 * (size_t)i, c->com);
    v3_cross(l, r, ui);
    for (int k = 0; k < 3; ++k) {
      c->acc[k] += s->model.mass[i] * ui[k];
      c->acc[3 + k] += s->model.mass[i] * l[k];
    }
  }
  for (uint32_t c = 0; c < nc; ++c) {
    sim_comp *cc = &s->work.comp[c];
    if (cc->pinned) continue;
    double trI = cc->inertia[0] + cc->inertia[4] + cc->inertia[8];
    double L = trI > 0.0 ? sqrt(trI / cc->mass) : 1.0; /* m: radius of gyration (x sqrt 2) */
    double A[36], S[6] = {1, 1, 1, L, L, L}, ev[6], V[36], b[6], xi[6] = {0};
    for (int a = 0; a < 6; ++a)
      for (int bb = 0; bb < 6; ++bb) {
        double m = 0.0;
        if (a < 3 && bb < 3) m = a == bb ? cc->mass : 0.0;
        if (a >= 3 && bb >= 3) m = cc->inertia[3 * (a - 3) + bb - 3];
        A[6 * a + bb] = (m + cc->K[6 * a + bb]) / (S[a] * S[bb]);
      }
    for (int a = 0; a < 6; ++a) b[a] = cc->acc[a] / S[a];
    eigen_sym(A, 6, ev, V);
    double emax = 0.0;
    for (int a = 0; a < 6; ++a) emax = fmax(emax, fabs(ev[a]));
    for (int e = 0; e < 6; ++e) {
      if (!(ev[e] > INERTIA_PINV_CUT * emax)) continue;
      double cb = 0.0;
      for (int a = 0; a < 6; ++a) cb += V[6 * a + e] * b[a];
      for (int a = 0; a < 6; ++a) xi[a] += V[6 * a + e] * cb / ev[e];
    }
    for (int a = 0; a < 6; ++a) cc->acc[a] = xi[a] / S[a];
  }
  rigid_expand(s, x, out);
}
