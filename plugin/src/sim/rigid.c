/* SPDX-License-Identifier: MIT
 * The ballistic subspace of free (unpinned) components: the 6 rigid velocity fields
 * V + w x (x - c) at the step's start positions, and the M-orthogonal projection onto them
 * (design note sec. 2.2-2.3). Projecting with the exact inertia tensor conserves linear and
 * angular momentum to round-off; pinned components have no ballistic subspace (pure flow). */
#include <string.h>

#include "core/eigen3.h"
#include "core/vec3.h"
#include "sim/sim.h"

/* relative eigenvalue cut for the inertia pseudo-inverse (collinear or single-vertex pieces) */
static const double INERTIA_PINV_CUT = 1e-12;

void rigid_update_frames(tf_sim *s, const double *x) {
  uint32_t nc = s->mesh.comp_count;
  for (uint32_t c = 0; c < nc; ++c) {
    s->comp[c].mass = 0.0;
    v3_set(s->comp[c].com, 0, 0, 0);
    memset(s->comp[c].inertia, 0, sizeof s->comp[c].inertia);
  }
  for (uint32_t i = 0; i < s->n; ++i) {
    sim_comp *c = &s->comp[s->mesh.comp[i]];
    c->mass += s->mass[i];
    v3_axpy(c->com, s->mass[i], x + 3 * (size_t)i);
  }
  for (uint32_t c = 0; c < nc; ++c) v3_scale(s->comp[c].com, s->comp[c].com, 1.0 / s->comp[c].mass);
  /* I = sum m (|r|^2 Id - r r^T) */
  for (uint32_t i = 0; i < s->n; ++i) {
    sim_comp *c = &s->comp[s->mesh.comp[i]];
    if (c->pinned) continue;
    double r[3];
    v3_sub(r, x + 3 * (size_t)i, c->com);
    double m = s->mass[i], rr = v3_norm2(r);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) c->inertia[3 * a + b] += m * ((a == b ? rr : 0.0) - r[a] * r[b]);
  }
}

void rigid_project(tf_sim *s, const double *x, const double *u, double *out) {
  uint32_t nc = s->mesh.comp_count;
  for (uint32_t c = 0; c < nc; ++c) memset(s->comp[c].acc, 0, sizeof s->comp[c].acc);
  /* momenta: P = sum m u, L = sum m r x u */
  for (uint32_t i = 0; i < s->n; ++i) {
    sim_comp *c = &s->comp[s->mesh.comp[i]];
    if (c->pinned) continue;
    double r[3], l[3];
    const double *ui = u + 3 * (size_t)i;
    double m = s->mass[i];
    v3_sub(r, x + 3 * (size_t)i, c->com);
    v3_cross(l, r, ui);
    for (int k = 0; k < 3; ++k) {
      c->acc[k] += m * ui[k];
      c->acc[3 + k] += m * l[k];
    }
  }
  for (uint32_t c = 0; c < nc; ++c) {
    sim_comp *cc = &s->comp[c];
    if (cc->pinned) continue;
    double w[3];
    eigen3_pinv_solve(cc->inertia, cc->acc + 3, INERTIA_PINV_CUT, w);
    for (int k = 0; k < 3; ++k) {
      cc->acc[k] /= cc->mass;
      cc->acc[3 + k] = w[k];
    }
  }
  for (uint32_t i = 0; i < s->n; ++i) {
    const sim_comp *c = &s->comp[s->mesh.comp[i]];
    double *o = out + 3 * (size_t)i;
    if (c->pinned) {
      v3_set(o, 0, 0, 0);
      continue;
    }
    double r[3], wr[3];
    v3_sub(r, x + 3 * (size_t)i, c->com);
    v3_cross(wr, c->acc + 3, r);
    v3_add(o, c->acc, wr);
  }
}
