/* SPDX-License-Identifier: MIT
 * The thesis's Example 1 (Young 2007 Figure 4.1, Table 4.1) and the tau laws on it: rest at
 * about 3 s for tau = 1 and a quarter of that at tau = 4, with d1 and d2 never increasing. */
#include <stdlib.h>
#include <string.h>

#include "scenes.h"
#include "tf_test.h"

/* Table 4.1a: lambda 3, mu 1 (plane stress: Y = 2 mu (1 + nu), nu = lambda / (lambda + 2 mu)) */
static const double EX1_LAMBDA = 3.0, EX1_MU = 1.0;
static const double EX1_PUSH = 0.5; /* top-middle vertex pushed down into the body */

typedef struct run_result {
  double rest_time; /* first time d1 < 1 % of its initial value, < 0 if never */
  int monotone;     /* d1 and d2 never increased */
  double overshoot; /* largest d1 increase seen, relative to d1(0) */
} run_result;

static tf_sim *young1_sim(double tau, double kappa, tf_integrator integ, double phi, double psi,
                          scene *sc) {
  scene_young1(sc);
  tf_cloth_def def;
  scene_def(sc, &def);
  double masses[12];
  for (int i = 0; i < 12; ++i) masses[i] = 1.0;
  double nu = EX1_LAMBDA / (EX1_LAMBDA + 2.0 * EX1_MU);
  def.vertex_masses = masses;
  def.stretch_stiffness = 2.0 * EX1_MU * (1.0 + nu);
  def.poisson = nu;
  def.bend_stiffness = 0.0;
  def.gravity[0] = def.gravity[1] = def.gravity[2] = 0.0;
  def.tau = tau;
  def.kappa = kappa;
  def.integrator = integ;
  def.phi = phi;
  def.psi = psi;
  def.solver.tolerance = 1e-9;
  def.solver.abs_tolerance = 1e-12;
  tf_sim *sim = NULL;
  char err[256];
  if (tf_cloth_create(&def, &sim, err, sizeof err) != TF_OK) {
    fprintf(stderr, "create: %s\n", err);
    return NULL;
  }
  tf_sim_set_pins(sim, sc->pins, NULL, sc->pin_count);
  double x[36];
  memcpy(x, sc->pos, sizeof x);
  x[3 * 10 + 1] -= EX1_PUSH;
  tf_sim_set_state(sim, x, NULL, 12);
  return sim;
}

static run_result young1_run(double tau, double kappa, double dt, double t_end) {
  scene sc;
  run_result r = {-1.0, 1, 0.0};
  tf_sim *sim = young1_sim(tau, kappa, TF_INTEGRATOR_TAU, 0, 0, &sc);
  if (!sim) return r;
  double x[36];
  tf_sim_get_positions(sim, x, 12);
  double d10 = dist_d1(x, sc.pos, 12), d1p = d10, d2p = dist_d2(x, sc.pos, 12);
  int steps = (int)(t_end / dt + 0.5);
  for (int k = 1; k <= steps; ++k) {
    if (tf_sim_advance(sim, dt, 1) != TF_OK) break;
    tf_sim_get_positions(sim, x, 12);
    double d1 = dist_d1(x, sc.pos, 12), d2 = dist_d2(x, sc.pos, 12);
    /* allow round-off of the solver tolerance */
    if (d1 > d1p + 1e-9 || d2 > d2p + 1e-9) r.monotone = 0;
    if ((d1 - d1p) / d10 > r.overshoot) r.overshoot = (d1 - d1p) / d10;
    if (r.rest_time < 0 && d1 < 0.01 * d10) r.rest_time = k * dt;
    d1p = d1;
    d2p = d2;
  }
  tf_sim_destroy(sim);
  scene_free(&sc);
  return r;
}

TF_TEST(young_example1_rest_times) {
  run_result r1 = young1_run(1.0, 0.0, 0.01, 5.0);
  run_result r4 = young1_run(4.0, 0.0, 0.01, 5.0);
  TF_NOTE(
      "Example 1 rest time: tau=1 %.3f s (thesis ~3 s), tau=4 %.3f s (thesis ~0.75 s), ratio %.3f",
      r1.rest_time, r4.rest_time, r1.rest_time / r4.rest_time);
  ENSURE(r1.rest_time >= 2.5 && r1.rest_time <= 3.3);
  ENSURE_NEAR(r4.rest_time, r1.rest_time / 4.0, 0.1 * r1.rest_time / 4.0);
  ENSURE_MSG(r1.monotone && r4.monotone, "d1 or d2 increased (tau=1 %d, tau=4 %d)", r1.monotone,
             r4.monotone);
}

TF_TEST(young_example1_dt_independence) {
  /* the flow depends on tau*dt only: rest time -> c/tau as dt -> 0 (design note sec. 2.3) */
  run_result a = young1_run(1.0, 0.0, 0.01, 5.0);
  run_result b = young1_run(1.0, 0.0, 0.005, 5.0);
  TF_NOTE("tau=1 rest time dt=0.01: %.4f s, dt=0.005: %.4f s (%.2f %%)", a.rest_time, b.rest_time,
          100.0 * (a.rest_time - b.rest_time) / b.rest_time);
  ENSURE(fabs(a.rest_time - b.rest_time) < 0.05 * b.rest_time);
}

TF_TEST(young_example1_kappa_dt_independent) {
  /* kappa brings oscillation back with an effect that converges as dt -> 0 (design note 2.7) */
  double os[3];
  double dts[3] = {0.0025, 0.005, 0.01};
  for (int k = 0; k < 3; ++k) {
    scene sc;
    tf_sim *sim = young1_sim(1.0, 0.5, TF_INTEGRATOR_TAU, 0, 0, &sc);
    ENSURE(sim);
    double x[36];
    /* overshoot of the pushed vertex past its rest height, relative to the push */
    double most = 0.0;
    int steps = (int)(3.0 / dts[k] + 0.5);
    for (int s = 0; s < steps; ++s) {
      ENSURE(tf_sim_advance(sim, dts[k], 1) == TF_OK);
      tf_sim_get_positions(sim, x, 12);
      double over = (x[31] - sc.pos[31]) / EX1_PUSH;
      if (over > most) most = over;
    }
    os[k] = most;
    tf_sim_destroy(sim);
    scene_free(&sc);
  }
  TF_NOTE("kappa=0.5 overshoot at dt=0.0025/0.005/0.01: %.4f %.4f %.4f", os[0], os[1], os[2]);
  ENSURE(os[0] > 0.05);                       /* oscillation is back */
  ENSURE(fabs(os[0] - os[1]) < 0.05 * os[0]); /* and does not vanish or grow with dt */
  ENSURE(fabs(os[0] - os[2]) < 0.08 * os[0]);
}
