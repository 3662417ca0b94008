/* SPDX-License-Identifier: MIT
 * Pins: per-substep targets interpolated between the host's frame targets, and the carrier
 * velocity: the rigid velocity field fitted (least squares) to the pins' target velocities.
 * Measuring kinetic energy relative to the carrier and adding its fictitious force keeps a cloth
 * dragged by its pins from lagging through an "aether" (design note sec. 2.6). */
#include <string.h>

#include "core/eigen3.h"
#include "core/vec3.h"
#include "sim/sim.h"

static const double CARRIER_PINV_CUT = 1e-9;

void pins_refresh_components(tf_sim *s) {
  for (uint32_t c = 0; c < s->mesh.comp_count; ++c) s->comp[c].pinned = 0;
  memset(s->fixed, 0, s->n);
  for (uint32_t q = 0; q < s->pin_count; ++q) {
    uint32_t i = s->pin_idx[q];
    s->comp[s->mesh.comp[i]].pinned = 1;
    if (s->pin_w[q] >= 1.0) s->fixed[i] = 1;
  }
}

void pins_substep_targets(tf_sim *s, double s0, double s1) {
  for (uint32_t q = 0; q < s->pin_count; ++q)
    for (int k = 0; k < 3; ++k) {
      double a = s->pin_prev[3 * q + k], b = s->pin_next[3 * q + k];
      s->pin_sub0[3 * q + k] = a + s0 * (b - a);
      s->pin_sub[3 * q + k] = a + s1 * (b - a);
    }
}

void pins_carrier(tf_sim *s, double dt, double *vref) {
  uint32_t nc = s->mesh.comp_count;
  for (uint32_t c = 0; c < nc; ++c) {
    sim_comp *cc = &s->comp[c];
    cc->pin_w = 0.0;
    v3_set(cc->pin_c, 0, 0, 0);
    memset(cc->pin_J, 0, sizeof cc->pin_J);
    memset(cc->acc, 0, sizeof cc->acc);
  }
  /* weighted centroid of the pins at the substep start, and their mean velocity */
  for (uint32_t q = 0; q < s->pin_count; ++q) {
    sim_comp *cc = &s->comp[s->mesh.comp[s->pin_idx[q]]];
    double w = s->pin_w[q], u[3];
    v3_sub(u, s->pin_sub + 3 * q, s->pin_sub0 + 3 * q);
    v3_scale(u, u, 1.0 / dt);
    cc->pin_w += w;
    v3_axpy(cc->pin_c, w, s->pin_sub0 + 3 * q);
    v3_axpy(cc->acc, w, u);
  }
  for (uint32_t c = 0; c < nc; ++c) {
    sim_comp *cc = &s->comp[c];
    if (cc->pin_w > 0.0) {
      v3_scale(cc->pin_c, cc->pin_c, 1.0 / cc->pin_w);
      v3_scale(cc->acc, cc->acc, 1.0 / cc->pin_w);
    }
  }
  /* angular part: (sum w (|r|^2 I - r r^T)) omega = sum w r x (u - V) */
  for (uint32_t q = 0; q < s->pin_count; ++q) {
    sim_comp *cc = &s->comp[s->mesh.comp[s->pin_idx[q]]];
    double w = s->pin_w[q], r[3], u[3], l[3];
    v3_sub(r, s->pin_sub0 + 3 * q, cc->pin_c);
    v3_sub(u, s->pin_sub + 3 * q, s->pin_sub0 + 3 * q);
    v3_scale(u, u, 1.0 / dt);
    v3_sub(u, u, cc->acc);
    v3_cross(l, r, u);
    v3_axpy(cc->acc + 3, w, l);
    double rr = v3_norm2(r);
    for (int a = 0; a < 3; ++a)
      for (int bb = 0; bb < 3; ++bb) cc->pin_J[3 * a + bb] += w * ((a == bb ? rr : 0.0) - r[a] * r[bb]);
  }
  for (uint32_t c = 0; c < nc; ++c) {
    sim_comp *cc = &s->comp[c];
    if (cc->pin_w > 0.0) {
      double om[3];
      eigen3_pinv_solve(cc->pin_J, cc->acc + 3, CARRIER_PINV_CUT, om);
      v3_copy(cc->acc + 3, om);
    }
  }
  for (uint32_t i = 0; i < s->n; ++i) {
    const sim_comp *cc = &s->comp[s->mesh.comp[i]];
    double *o = vref + 3 * (size_t)i;
    if (!(cc->pin_w > 0.0)) {
      v3_set(o, 0, 0, 0);
      continue;
    }
    double r[3], wr[3];
    v3_sub(r, s->x + 3 * (size_t)i, cc->pin_c);
    v3_cross(wr, cc->acc + 3, r);
    v3_add(o, cc->acc, wr);
  }
}
