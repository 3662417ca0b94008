/* SPDX-License-Identifier: MIT
 * The multilevel distribution of one step's external forces (levels.h; Palazzi 1993 sec. 4.2).
 * For level k and a patch P with weights w_i (trilinear, summing to 1 over a vertex's patches):
 *   restriction   F_P = sum_i w_i s_ik f_i,   T_P = sum_i w_i r_i x s_ik f_i,   r_i = x_i - c_P
 *   prolongation  f'_i += w_i m_i (a_P + alpha_P x r_i),   a_P = F_P / m_P,   I_P alpha_P = T_P
 * with m_P = sum w_i m_i, c_P its weighted centre of mass and I_P = sum w_i m_i (|r|^2 Id - r r^T)
 * its inertia. Since sum_i w_i m_i r_i = 0 the pushes sum to F_P, and their torque about c_P is
 * I_P alpha_P = T_P: each patch hands on exactly the force and torque it received, so the body's
 * total force and torque (about any point) are those of the forces given, for any shares s_ik.
 * A collinear patch (a strip one vertex wide) has a singular I_P, but its torque has no part along
 * the line (r_i x f_i is normal to it), so the pseudo-inverse still returns it exactly. Palazzi
 * restricts positions and solves each level's own constraints; here a level is a force field on
 * the one body, so the tau step's minimization (and its damping) stays the only solve. */
#include <string.h>

#include "core/eigen3.h"
#include "core/vec3.h"
#include "levels/levels.h"
#include "sim/sim.h"

/* relative eigenvalue cut of a patch's inertia pseudo-inverse (as rigid.c's) */
static const double PATCH_PINV_CUT = 1e-12;

/* vertex i's patches at level k and their weights: 8 grid nodes, or its piece at the rigid level */
static int patches_of(const tf_sim *s, const sim_levels *lv, uint32_t k, uint32_t i, uint32_t id[8],
                      double w[8]) {
  if (k == lv->count - 1) {
    id[0] = lv->first[k] + s->model.mesh.comp[i];
    w[0] = 1.0;
    return 1;
  }
  memcpy(w, lv->w + 8 * (size_t)i, 8 * sizeof *w);
  memcpy(id, lv->patch + ((size_t)(k - 1) * lv->n + i) * 8, 8 * sizeof *id);
  return 8;
}

/* one vertex's part in one patch: its weight w in the patch, mass m, level share sk, position,
 * force in and (prolongation) force out */
typedef void (*patch_visit)(level_patch *p, double w, double m, double sk, const double *xi,
                            const double *fi, double *oi);

/* visit every (free vertex, patch of level k) pair with a weight */
static void each_patch(const tf_sim *s, sim_levels *lv, uint32_t k, const double *x,
                       const double *in, double *out, patch_visit visit) {
  uint32_t id[8];
  double w[8];
  for (uint32_t i = 0; i < lv->n; ++i) {
    if (s->pins.fixed[i]) continue;
    const double sk = lv->share[(size_t)i * lv->count + k], m = s->model.mass[i];
    const size_t j = 3 * (size_t)i;
    for (int q = 0, c = patches_of(s, lv, k, i, id, w); q < c; ++q)
      if (w[q] != 0.0) visit(lv->acc + id[q], w[q], m, sk, x + j, in + j, out + j);
  }
}

/* restriction: mass, first moment and force */
static void add_mass(level_patch *p, double w, double m, double sk, const double *xi,
                     const double *fi, double *oi) {
  (void)oi;
  p->m += w * m;
  v3_axpy(p->mx, w * m, xi);
  v3_axpy(p->F, w * sk, fi);
}

/* then the inertia and torque about the centre (p->mx by now) */
static void add_inertia(level_patch *p, double w, double m, double sk, const double *xi,
                        const double *fi, double *oi) {
  (void)oi;
  double r[3], t[3];
  v3_sub(r, xi, p->mx);
  v3_cross(t, r, fi);
  v3_axpy(p->T, w * sk, t);
  const double rr = v3_norm2(r), wm = w * m;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) p->I[3 * a + b] += wm * ((a == b ? rr : 0.0) - r[a] * r[b]);
}

/* prolongation: the patch's rigid push, by mass */
static void add_push(level_patch *p, double w, double m, double sk, const double *xi,
                     const double *fi, double *oi) {
  (void)sk, (void)fi;
  double r[3], push[3];
  v3_sub(r, xi, p->mx);
  v3_cross(push, p->alpha, r);
  v3_add(push, push, p->a);
  v3_axpy(oi, w * m, push);
}

static void distribute_level(tf_sim *s, sim_levels *lv, uint32_t k, const double *x,
                             const double *in, double *out) {
  level_patch *first = lv->acc + lv->first[k], *end = lv->acc + lv->first[k + 1];
  memset(first, 0, (size_t)(end - first) * sizeof *first);
  if (k + 1 < lv->count) /* a grid level: its weights once, for the three passes */
    for (uint32_t i = 0; i < lv->n; ++i)
      levels_corners(lv, k, s->model.rest + 3 * (size_t)i, NULL, lv->w + 8 * (size_t)i);
  each_patch(s, lv, k, x, in, out, add_mass);
  for (level_patch *p = first; p < end; ++p)
    if (p->m > 0.0) v3_scale(p->mx, p->mx, 1.0 / p->m); /* now the centre c_P */
  each_patch(s, lv, k, x, in, out, add_inertia);
  for (level_patch *p = first; p < end; ++p) {
    if (!(p->m > 0.0)) continue;
    v3_scale(p->a, p->F, 1.0 / p->m);
    eigen3_pinv_solve(p->I, p->T, PATCH_PINV_CUT, p->alpha);
  }
  each_patch(s, lv, k, x, in, out, add_push);
}

void levels_distribute(tf_sim *s, const double *x, const double *in, double *out) {
  sim_levels *lv = s->levels;
  const uint32_t n = lv->n, L = lv->count;
  if (lv->used[0])
    for (uint32_t i = 0; i < n; ++i)
      v3_axpy(out + 3 * (size_t)i, lv->share[(size_t)i * L], in + 3 * (size_t)i);
  for (uint32_t k = 1; k < L; ++k)
    if (lv->used[k]) distribute_level(s, lv, k, x, in, out);
}
