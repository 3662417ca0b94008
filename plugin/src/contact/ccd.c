/* SPDX-License-Identifier: MIT
 * The line search's filter (Li et al. 2020, Alg. 1, compute_collision_free_stepsize): the largest
 * fraction of a Newton step y -> y + dir along which no candidate pair closes more than 90 % of
 * its gap (additive CCD, geom/ccd.c), colliders at rest at their step-end pose. The candidates
 * are rebuilt for the segment first, so every point the line search then evaluates is covered. */
#include <math.h>
#include <string.h>

#include "contact/contact.h"
#include "core/clock.h"
#include "core/vec3.h"
#include "geom/ccd.h"
#include "sim/sim.h"

/* CCD of one pair over x0 -> x0 + dx (stencil displacements of its simulated points) */
double contact_pair_toi(const tf_sim *s, const contact_pair *p, const double *y0, const double *d,
                        int colliders_move, double thickness, int *hit) {
  geom_ccd_params cp;
  geom_ccd_params_default(&cp);
  cp.thickness = thickness;
  *hit = 0;
  if (p->kind == CONTACT_G) {
    if (p->inside) return 1.0;
    double n[3], h;
    contact_ground(s, n, &h);
    double d0 = v3_dot(n, y0 + 3 * (size_t)p->a) - h - thickness,
           dd = v3_dot(n, d + 3 * (size_t)p->a);
    if (dd >= 0.0 || -dd <= (1.0 - cp.s) * d0) return 1.0;
    *hit = 1;
    return d0 > 0.0 ? (1.0 - cp.s) * d0 / -dd : 0.0;
  }
  const sim_contact *c = s->contact;
  double x0[12], dx[12];
  int v[4];
  if (contact_is_self(p->kind)) { /* both sides move with the simulation */
    contact_pair_stencil(s, p, y0, v, x0);
    for (int k = 0; k < 4; ++k) v3_copy(dx + 3 * k, d + 3 * (size_t)v[k]);
    return p->kind == CONTACT_SEE ? geom_ccd_ee(x0, dx, &cp, hit) : geom_ccd_pt(x0, dx, &cp, hit);
  }
  const contact_collider *col = c->col[p->collider];
  /* the stencil at the segment's start, colliders at their start pose when they move */
  const double *cx = colliders_move ? col->x0 : col->x1;
  memset(dx, 0, sizeof dx);
  switch (p->kind) {
    case CONTACT_PT: {
      const int *t = col->tris + 3 * (size_t)p->b;
      v[0] = (int)p->a, v[1] = v[2] = v[3] = -1;
      for (int k = 0; k < 3; ++k) v3_copy(x0 + 3 + 3 * k, cx + 3 * (size_t)t[k]);
      if (colliders_move)
        for (int k = 0; k < 3; ++k)
          v3_sub(dx + 3 + 3 * k, col->x1 + 3 * (size_t)t[k], col->x0 + 3 * (size_t)t[k]);
      break;
    }
    case CONTACT_TP: {
      const int *t = c->tris + 3 * (size_t)p->b;
      v[0] = -1, v[1] = t[0], v[2] = t[1], v[3] = t[2];
      v3_copy(x0, cx + 3 * (size_t)p->a);
      if (colliders_move) v3_sub(dx, col->x1 + 3 * (size_t)p->a, col->x0 + 3 * (size_t)p->a);
      break;
    }
    default: {
      const int *ea = c->edges + 2 * (size_t)p->a, *eb = col->edges + 2 * (size_t)p->b;
      v[0] = ea[0], v[1] = ea[1], v[2] = v[3] = -1;
      v3_copy(x0 + 6, cx + 3 * (size_t)eb[0]);
      v3_copy(x0 + 9, cx + 3 * (size_t)eb[1]);
      if (colliders_move) {
        v3_sub(dx + 6, col->x1 + 3 * (size_t)eb[0], col->x0 + 3 * (size_t)eb[0]);
        v3_sub(dx + 9, col->x1 + 3 * (size_t)eb[1], col->x0 + 3 * (size_t)eb[1]);
      }
    }
  }
  for (int k = 0; k < 4; ++k)
    if (v[k] >= 0) {
      v3_copy(x0 + 3 * k, y0 + 3 * (size_t)v[k]);
      v3_copy(dx + 3 * k, d + 3 * (size_t)v[k]);
    }
  return p->kind == CONTACT_EE ? geom_ccd_ee(x0, dx, &cp, hit) : geom_ccd_pt(x0, dx, &cp, hit);
}

/* the segment's safe fraction over the candidates (blocks.c): each pair's on any thread, their
 * minimum in order (a minimum does not depend on the order anyway) */
typedef struct step_job {
  const tf_sim *s;
  const double *y, *dir;
  double t;
} step_job;

static void step_pair(void *ctx, size_t k, void *out) {
  const step_job *j = ctx;
  int hit;
  *(double *)out = contact_pair_toi(j->s, &j->s->contact->pairs[k], j->y, j->dir, 0, 0.0, &hit);
}

static int step_take(void *ctx, size_t k, void *out) {
  (void)k;
  step_job *j = ctx;
  double tk = *(const double *)out;
  if (tk < j->t) j->t = tk;
  return j->t > 0.0; /* no safe step: nothing lower to find */
}

double contact_max_step(void *ctx, const double *y, const double *dir) {
  tf_sim *s = ctx;
  sim_contact *c = s->contact;
  double t0 = now_seconds();
  step_job j = {s, y, dir, 1.0};
  if (contact_candidates_covering(s, y, dir) != TF_OK)
    j.t = 0.0; /* out of memory: no safe step */
  else
    contact_pairs_run(s, c->pair_count, sizeof(double), step_pair, step_take, &j);
  double t = j.t;
  if (t < 1.0) c->ccd_cuts++;
  c->seconds += now_seconds() - t0;
  return t;
}
