/* SPDX-License-Identifier: MIT
 * Settle time as a knob: the tau that makes the slowest deformation mode of the pinned cloth decay
 * by SETTLE_FACTOR (100x) in a requested time. The mode is found about the static equilibrium under
 * the current loads (gravity, pins), where a membrane has out-of-plane stiffness, not about the
 * flat rest state: a Newton solve of the equilibrium, then inverse iteration on K v = lambda M v
 * with the pinned degrees of freedom removed (K the projected Hessian there, each solve by the
 * multigrid-preconditioned CG of the step). Assumes kappa = 0: with kappa > 0 the mode's decay
 * is that of a damped oscillator, and settling takes longer than asked. The conversion uses the
 * step's own decay factor: one tau step multiplies the mode by 1/(1 + tau dt lambda), so (1 + tau
 * dt lambda)^(T/dt) = 100   =>   tau = (100^(dt/T) - 1) / (dt lambda), exact for the linearized
 * flow at that dt (and tau -> ln(100)/(lambda T) as dt -> 0). The simulation's state is not
 * changed. */
#include <math.h>
#include <string.h>

#include "core/vec3.h"
#include "sim/sim.h"

static const double SETTLE_FACTOR = 100.0;
static const double STATIC_H2 = 1e8; /* s^2: the inertia term vanishes: a static solve */
static const int INVERSE_ITERATIONS = 40;
static const double EIGEN_RTOL = 1e-6;   /* relative change of lambda to stop */
static const double LAMBDA_FLOOR = 1e-9; /* relative to the stiffest vertex's k/m */
static const uint32_t STATIC_NEWTON = 60;
/* s^2: proximal steps of growing length, the last one static */
static const double CONTINUATION_H2[] = {1e-3, 1e-2, 1e-1, 1.0, 1e1, 1e3, 1e5, 1e8};

tf_status sim_settle_tau(tf_sim *s, double settle_time, double dt, double *out_tau,
                         double *out_lambda) {
  uint32_t n = s->model.n;
  size_t n3 = 3 * (size_t)n;
  int pinned = 0;
  for (uint32_t c = 0; c < s->model.mesh.comp_count; ++c) pinned |= s->work.comp[c].pinned;
  if (!pinned)
    return sim_fail(s, TF_E_UNSUPPORTED,
                    "settle: no hard pins: a free piece has no slowest deformation mode to settle "
                    "(its rigid motion is never damped)");
  if (s->solver.amg)
    amg_forget(s->solver.amg); /* the answer depends on this shape only, not on past solves */
  /* 1. static equilibrium under gravity with the pins at their targets, from the current shape */
  double *y = s->work.y, *v = s->work.eig_v, *z = s->work.eig_z, *mv = s->work.eig_mv;
  memcpy(y, s->state.x, n3 * sizeof *y);
  for (uint32_t q = 0; q < s->pins.count; ++q) {
    v3_copy(s->pins.sub + 3 * (size_t)q, s->pins.next + 3 * (size_t)q);
    if (s->pins.fixed[s->pins.idx[q]])
      v3_copy(y + 3 * (size_t)s->pins.idx[q], s->pins.next + 3 * (size_t)q);
  }
  for (uint32_t i = 0; i < n; ++i) {
    v3_scale(s->work.f + 3 * (size_t)i, s->par.gravity, s->model.mass[i]);
    s->work.force_ref[i] = s->model.mass[i] * 9.80665 + v3_norm(s->work.f + 3 * (size_t)i);
  }
  /* proximal-point continuation: minimize PE - f.y + |y - y_prev|^2_M / (2 h2) with growing h2,
   * each from the last; from a flat sheet (no out-of-plane stiffness) a direct static solve stalls,
   * small h2 first follows the shape down to where the membrane carries the load */
  newton_result res;
  memset(&res, 0, sizeof res);
  for (int k = 0; k < (int)(sizeof CONTINUATION_H2 / sizeof CONTINUATION_H2[0]); ++k) {
    memcpy(s->work.yhat, y, n3 * sizeof *y);
    memcpy(s->work.xhat, y, n3 * sizeof *y);
    s->work.h2 = CONTINUATION_H2[k];
    s->drag->on = 0;
    newton_problem p = sim_problem(s, sim_step_eval);
    newton_settings ns = {STATIC_NEWTON, s->par.solver.max_cg, 1e-8, 0.0};
    newton_solve(&p, &ns, y, &s->solver.nw, &res);
  }
  if (!res.converged)
    return sim_fail(s, TF_E_NOT_CONVERGED,
                    "settle: the loaded equilibrium was not found from this shape; "
                    "advance the simulation towards rest and ask again");
  /* 2. K at the equilibrium (M / h2 is a negligible shift) and inverse iteration */
  s->work.h2 = STATIC_H2;
  memcpy(s->work.yhat, y, n3 * sizeof *y);
  sim_step_eval(s, y, NULL, &s->solver.H);
  if (s->solver.amg) amg_setup(s->solver.amg, &s->solver.H, s->pins.fixed, y);
  pcg_precond pre = {s->solver.amg ? amg_apply : NULL, s->solver.amg};
  /* start: a smooth field (the hanging sheet's swing is smooth); fixed entries zero */
  for (size_t k = 0; k < n3; ++k)
    v[k] = s->pins.fixed[k / 3] ? 0.0 : 1.0 + 0.1 * sin(0.37 * (double)k);
  double lambda = 0.0, prev = 0.0;
  for (int it = 0; it < INVERSE_ITERATIONS; ++it) {
    /* z = K^-1 M v */
    for (size_t k = 0; k < n3; ++k) mv[k] = s->model.mass[k / 3] * v[k];
    pcg_result pr;
    pcg_solve(&s->solver.H, mv, z, s->pins.fixed, 1e-10, 5000, &pre, &s->solver.nw.pcg, &pr);
    /* M-normalize and take the Rayleigh quotient lambda = z^T K z / z^T M z */
    double zmz = 0.0;
    for (size_t k = 0; k < n3; ++k) zmz += s->model.mass[k / 3] * z[k] * z[k];
    if (!(zmz > 0.0)) break;
    double sc = 1.0 / sqrt(zmz);
    for (size_t k = 0; k < n3; ++k) v[k] = z[k] * sc;
    bsr_mul(&s->solver.H, v, mv, s->pins.fixed);
    double vkv = 0.0;
    for (size_t k = 0; k < n3; ++k) vkv += v[k] * mv[k];
    lambda = vkv - 1.0 / STATIC_H2; /* remove the mass shift */
    if (it > 3 && fabs(lambda - prev) <= EIGEN_RTOL * fabs(lambda)) break;
    prev = lambda;
  }
  /* a mode with no stiffness (lambda ~ 0 against the stiffest vertex) cannot settle at any tau */
  double kmax = 0.0;
  for (uint32_t i = 0; i < n; ++i) {
    if (s->pins.fixed[i]) continue;
    const double *d = s->solver.H.val + 9 * (size_t)s->solver.H.diag[i];
    kmax = fmax(kmax, (d[0] + d[4] + d[8]) / (3.0 * s->model.mass[i]));
  }
  if (!(lambda > LAMBDA_FLOOR * kmax) || !isfinite(lambda))
    return sim_fail(s, TF_E_NOT_CONVERGED,
                    "settle: the slowest mode has no stiffness (lambda %g 1/s^2): the cloth "
                    "has a free motion its pins do not hold",
                    lambda);
  *out_lambda = lambda;
  *out_tau = (pow(SETTLE_FACTOR, dt / settle_time) - 1.0) / (dt * lambda);
  return TF_OK;
}
