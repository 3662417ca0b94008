/* SPDX-License-Identifier: MIT
 * Pins: per-substep targets interpolated between the host's frame targets, and the carrier
 * velocity: the rigid velocity field fitted (least squares) to the hard pins' velocities.
 * Measuring kinetic energy relative to the carrier and adding its fictitious force keeps a cloth
 * dragged by its pins from lagging through an "aether" (design note sec. 2.6). Only hard pins
 * make a piece "pinned" and carry it: a soft pin is a spring of the potential, however stiff. */
#include <math.h>
#include <string.h>

#include "core/eigen3.h"
#include "core/vec3.h"
#include "sim/sim.h"

static const double CARRIER_PINV_CUT = 1e-9;

static int pin_is_hard(const tf_sim *s, uint32_t q) { return s->pins.w[q] >= 1.0; }

void pins_refresh_components(tf_sim *s) {
  for (uint32_t c = 0; c < s->model.mesh.comp_count; ++c) s->work.comp[c].pinned = 0;
  memset(s->pins.fixed, 0, s->model.n);
  for (uint32_t q = 0; q < s->pins.count; ++q) {
    if (!pin_is_hard(s, q)) continue;
    uint32_t i = s->pins.idx[q];
    s->work.comp[s->model.mesh.comp[i]].pinned = 1;
    s->pins.fixed[i] = 1;
  }
  if (s->shell) elem_shell_pins_changed(s, s->shell);
}

void pins_substep_targets(tf_sim *s, double s0, double s1) {
  for (uint32_t q = 0; q < s->pins.count; ++q)
    for (int k = 0; k < 3; ++k) {
      double a = s->pins.prev[3 * q + k], b = s->pins.next[3 * q + k];
      s->pins.sub0[3 * q + k] = a + s0 * (b - a);
      s->pins.sub[3 * q + k] = a + s1 * (b - a);
    }
}

/* the rigid field of a piece's carrier (V, omega, c: 9 numbers) at x */
static void carrier_at(const double *p, const double *x, double out[3]) {
  double r[3], wr[3];
  v3_sub(r, x, p + 6);
  v3_cross(wr, p + 3, r);
  v3_add(out, p, wr);
}

typedef struct carrier_pass {
  const tf_sim *s;
  const double *params; /* 9 per piece */
  double *vref;
} carrier_pass;

/* each vertex's carrier velocity at x_n from its piece's parameters */
static void carrier_field(void *ctx, uint32_t b, uint32_t e) {
  const carrier_pass *c = ctx;
  for (uint32_t i = b; i < e; ++i)
    carrier_at(c->params + 9 * (size_t)c->s->model.mesh.comp[i], c->s->state.x + 3 * (size_t)i,
               c->vref + 3 * (size_t)i);
}

/* vref = per piece, the rigid field V + w x (x - c) closest (least squares) to the hard pins'
 * velocities pin_vel at positions pin_pos (both per pin slot); zero on pieces without hard pins.
 * Its parameters (V, w, c) into params (9 per piece; zero without hard pins) */
static void carrier_fit(tf_sim *s, const double *pin_pos, const double *pin_vel, double *vref,
                        double *params) {
  uint32_t nc = s->model.mesh.comp_count;
  for (uint32_t c = 0; c < nc; ++c) {
    sim_comp *cc = &s->work.comp[c];
    cc->pin_w = 0.0;
    v3_set(cc->pin_c, 0, 0, 0);
    memset(cc->pin_J, 0, sizeof cc->pin_J);
    memset(cc->acc, 0, sizeof cc->acc);
  }
  /* centroid of the hard pins and their mean velocity */
  for (uint32_t q = 0; q < s->pins.count; ++q) {
    if (!pin_is_hard(s, q)) continue;
    sim_comp *cc = &s->work.comp[s->model.mesh.comp[s->pins.idx[q]]];
    cc->pin_w += 1.0;
    v3_add(cc->pin_c, cc->pin_c, pin_pos + 3 * (size_t)q);
    v3_add(cc->acc, cc->acc, pin_vel + 3 * (size_t)q);
  }
  for (uint32_t c = 0; c < nc; ++c) {
    sim_comp *cc = &s->work.comp[c];
    if (cc->pin_w > 0.0) {
      v3_scale(cc->pin_c, cc->pin_c, 1.0 / cc->pin_w);
      v3_scale(cc->acc, cc->acc, 1.0 / cc->pin_w);
    }
  }
  /* angular part: (sum (|r|^2 I - r r^T)) w = sum r x (u - V); collinear pins leave the rotation
   * about their line undetermined: the pseudo-inverse gives the minimum-norm w */
  for (uint32_t q = 0; q < s->pins.count; ++q) {
    if (!pin_is_hard(s, q)) continue;
    sim_comp *cc = &s->work.comp[s->model.mesh.comp[s->pins.idx[q]]];
    double r[3], u[3], l[3];
    v3_sub(r, pin_pos + 3 * (size_t)q, cc->pin_c);
    v3_sub(u, pin_vel + 3 * (size_t)q, cc->acc);
    v3_cross(l, r, u);
    v3_add(cc->acc + 3, cc->acc + 3, l);
    double rr = v3_norm2(r);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) cc->pin_J[3 * a + b] += (a == b ? rr : 0.0) - r[a] * r[b];
  }
  for (uint32_t c = 0; c < nc; ++c) {
    sim_comp *cc = &s->work.comp[c];
    if (cc->pin_w > 0.0) {
      double om[3];
      eigen3_pinv_solve(cc->pin_J, cc->acc + 3, CARRIER_PINV_CUT, om);
      v3_copy(cc->acc + 3, om);
    }
  }
  for (uint32_t c = 0; c < nc; ++c) {
    const sim_comp *cc = &s->work.comp[c];
    double *p = params + 9 * (size_t)c;
    memset(p, 0, 9 * sizeof *p);
    if (!(cc->pin_w > 0.0)) continue;
    memcpy(p, cc->acc, 6 * sizeof *p);
    v3_copy(p + 6, cc->pin_c);
  }
  carrier_pass c = {s, params, vref};
  sim_vertex_for(s, carrier_field, &c);
}

void pins_carrier(tf_sim *s, double dt, double *vref) {
  /* the pins' target velocities over this substep */
  for (uint32_t q = 0; q < s->pins.count; ++q)
    for (int k = 0; k < 3; ++k)
      s->pins.vel[3 * q + k] = (s->pins.sub[3 * q + k] - s->pins.sub0[3 * q + k]) / dt;
  carrier_fit(s, s->pins.sub0, s->pins.vel, vref, s->work.carrier_new);
}

/* The fictitious acceleration a = (v_ref+ - v_ref)/dt at a vertex is two things (design note
 * sec. 4): its motion through the carrier's field, (v_ref(x_n) - v_ref(x_{n-1}))/dt with the last
 * step's field (a steady rotation's centripetal part: kept exactly, so rigid carry stays exact),
 * and the change of the field itself, dv = v_ref+(x_n) - v_ref(x_n): the pins speeding up. At
 * kappa = 0 the step has no inertia, so dv applied within its step moved the cloth by tau dv at
 * once: pins starting at 1 m/s threw the far edge of a sheet 5.8 cm backwards in the world (tau
 * 0.1, 24 fps). It is low-passed instead, a' = -a/T with T = (1 - kappa) tau, and dv enters as an
 * impulse at the step's start (a += dv/T; pins move linearly within a frame, so their velocity
 * jumps at its start): over the step, integrated exactly, the force takes the mean
 * (a_0 T/dt + dv/dt)(1 - e), e = exp(-dt/T), and a ends at (a_0 + dv/T) e. The impulse is kept
 * (the filter's integral is dv), so the trail still builds to tau dv, now over T; and for a free
 * particle at kappa = 0 with T = tau the world velocity is dv (1 - exp(-t/tau)), never reversed
 * (its mean over the first step, dv (1 - (tau/dt)(1 - e)), is >= 0 at any dt). At kappa = 1
 * (T = 0) nothing changes */
typedef struct fictitious_pass {
  tf_sim *s;
  const double *vref_new;
  double *acc;
  double dt, T, e, rise;
  int filter;
} fictitious_pass;

static void fictitious_range(void *ctx, uint32_t b, uint32_t end) {
  const fictitious_pass *f = ctx;
  tf_sim *s = f->s;
  const double *vref_new = f->vref_new, dt = f->dt, T = f->T, e = f->e, rise = f->rise;
  const int filter = f->filter;
  double *acc = f->acc;
  for (uint32_t i = b; i < end; ++i) {
    size_t j = 3 * (size_t)i;
    double old[3];
    carrier_at(s->state.carrier + 9 * (size_t)s->model.mesh.comp[i], s->state.x + j, old);
    for (int k = 0; k < 3; ++k) {
      double conv = (old[k] - s->state.vref[j + k]) / dt, in = (vref_new[j + k] - old[k]) / dt;
      double a0 = s->state.afict[j + k];
      if (!filter) {
        acc[j + k] = conv + in;
        s->work.afict_new[j + k] = 0.0;
        continue;
      }
      acc[j + k] = conv + (a0 * T / dt + in) * rise;
      s->work.afict_new[j + k] = (a0 + in * dt / T) * e;
    }
  }
}

void pins_fictitious(tf_sim *s, double dt, const double *vref_new, double *acc) {
  double T = (1.0 - s->par.kappa) * s->par.tau, e = 0.0, rise = 0.0;
  int filter = !s->pins.unfiltered && T > 0.0;
  if (filter) {
    e = exp(-dt / T);
    rise = -expm1(-dt / T); /* 1 - e without cancellation */
  }
  fictitious_pass f = {s, vref_new, acc, dt, T, e, rise, filter};
  sim_vertex_for(s, fictitious_range, &f);
}

void pins_commit_step(tf_sim *s) {
  size_t n3 = 3 * (size_t)s->model.n;
  sim_copy(s, s->state.vref, s->work.vref_new, sizeof(double) * n3);
  sim_copy(s, s->state.afict, s->work.afict_new, sizeof(double) * n3);
  memcpy(s->state.carrier, s->work.carrier_new, sizeof(double) * 9 * s->model.mesh.comp_count);
}

/* a derived pin's (q >= host) value of a per-slot field of 3: its two parents' mean */
static void derived_targets(tf_sim *s, double *a) {
  for (uint32_t q = s->pins.host; q < s->pins.count; ++q) {
    const uint32_t *p = s->pins.parent + 2 * (size_t)q;
    for (int k = 0; k < 3; ++k)
      a[3 * (size_t)q + k] = 0.5 * (a[3 * (size_t)p[0] + k] + a[3 * (size_t)p[1] + k]);
  }
}

void pins_restart(tf_sim *s, int keep_soft_targets) {
  /* targets start where the pinned vertices now are (a hard pin sits on its target); the carrier
   * is the pins' current motion. A soft pin's target is the host's goal, not where its vertex
   * hangs: a restored state keeps the targets the host gave, so a restart continues the run */
  for (uint32_t q = 0; q < s->pins.count; ++q) {
    const double *xi = s->state.x + 3 * (size_t)s->pins.idx[q];
    if (keep_soft_targets && !pin_is_hard(s, q)) xi = s->pins.next + 3 * (size_t)q;
    v3_copy(s->pins.prev + 3 * (size_t)q, xi);
    v3_copy(s->pins.next + 3 * (size_t)q, xi);
    v3_copy(s->pins.sub + 3 * (size_t)q, xi);
    v3_copy(s->pins.sub0 + 3 * (size_t)q, xi);
    v3_copy(s->pins.vel + 3 * (size_t)q, s->state.v + 3 * (size_t)s->pins.idx[q]);
  }
  /* an edge node's pin always follows its corners' (pins_derive): at their middle */
  derived_targets(s, s->pins.prev);
  derived_targets(s, s->pins.next);
  derived_targets(s, s->pins.sub);
  derived_targets(s, s->pins.sub0);
  carrier_fit(s, s->pins.sub0, s->pins.vel, s->state.vref, s->state.carrier);
  /* a restart has no history: no change of the carrier's velocity still to act */
  memset(s->state.afict, 0, sizeof(double) * 3 * s->model.n);
}

void pins_derive(tf_sim *s) {
  sim_pins *P = &s->pins;
  P->count = P->host;
  const tet10mesh *q10 = s->flesh && s->flesh->npt == 10 ? &s->flesh->q10 : NULL;
  if (!q10) return;
  for (uint32_t i = 0; i < s->model.n; ++i) P->slot_of[i] = UINT32_MAX;
  for (uint32_t q = 0; q < P->host; ++q) P->slot_of[P->idx[q]] = q;
  for (uint32_t e = 0; e < q10->edge_count; ++e) {
    uint32_t a = P->slot_of[q10->edges[2 * (size_t)e]],
             b = P->slot_of[q10->edges[2 * (size_t)e + 1]];
    if (a == UINT32_MAX || b == UINT32_MAX) continue;
    uint32_t q = P->count++;
    P->idx[q] = q10->corner_count + e;
    P->w[q] = 0.5 * (P->w[a] + P->w[b]);
    P->parent[2 * (size_t)q] = a, P->parent[2 * (size_t)q + 1] = b;
  }
  derived_targets(s, P->prev);
  derived_targets(s, P->next);
}

void pins_set(tf_sim *s, const uint32_t *indices, const double *weights, uint32_t count) {
  s->pins.host = count;
  for (uint32_t q = 0; q < count; ++q) {
    s->pins.idx[q] = sim_vertex(s, indices[q]);
    s->pins.w[q] = weights ? weights[q] : 1.0;
  }
  pins_derive(s);
  pins_refresh_components(s);
  pins_restart(s, 0);
  s->pins.targets_fresh = 0;
}

void pins_set_targets(tf_sim *s, const double *targets) {
  memcpy(s->pins.next, targets, sizeof(double) * 3 * s->pins.host);
  derived_targets(s, s->pins.next);
  s->pins.targets_fresh = 1;
}
