/* SPDX-License-Identifier: MIT
 * Settle time as a knob: tf_sim_settle_tau turns a requested settle time into tau from the
 * slowest mode about the hanging equilibrium; a sheet swung 30 degrees about its pinned edge and
 * released then settles (distance to equilibrium below 1 % of its start, for good) in the
 * requested time, at three resolutions and three step sizes. Free pieces are refused. */
#include <stdlib.h>
#include <string.h>

#include "scenes.h"
#include "tf_test.h"

static const double SETTLE_T = 1.5; /* s, requested */

static double settle_run(uint32_t cells, double dt, double *tau_out) {
  static const double O[3] = {0, 0, 1}, EX[3] = {1, 0, 0}, EZ[3] = {0, 0, -1};
  scene sc;
  scene_grid(&sc, cells, cells, 1.0, 1.0, O, EX, EZ, 1);
  tf_cloth_def def;
  scene_def(&sc, &def);
  def.stretch_stiffness = 1000.0;
  def.bend_stiffness = 1e-4;
  def.tau = 50.0; /* first find the hanging equilibrium quasi-statically */
  tf_sim *sim = NULL;
  if (tf_cloth_create(&def, &sim, NULL, 0) != TF_OK) return -1;
  tf_sim_set_pins(sim, sc.pins, NULL, sc.pin_count);
  uint32_t n = sc.vert_count;
  double *eq = malloc(sizeof(double) * 3 * n), *x = malloc(sizeof(double) * 3 * n);
  for (int f = 0; f < 40; ++f) tf_sim_advance(sim, 1.0 / 24.0, 1);
  tf_sim_get_positions(sim, eq, n);
  double tau = 0.0, lambda = 0.0;
  if (tf_sim_settle_tau(sim, SETTLE_T, dt, &tau, &lambda) != TF_OK) return -2;
  *tau_out = tau;
  tf_sim_set_param(sim, TF_PARAM_TAU, &tau, 1);
  /* swing it 30 degrees about the pinned edge (the line z = 1, y = 0) */
  double c = cos(3.14159265358979323846 / 6), s = sin(3.14159265358979323846 / 6);
  for (uint32_t i = 0; i < n; ++i) {
    double y = eq[3 * i + 1], z = eq[3 * i + 2] - 1.0;
    x[3 * i] = eq[3 * i];
    x[3 * i + 1] = c * y - s * z;
    x[3 * i + 2] = 1.0 + s * y + c * z;
  }
  tf_sim_set_state(sim, x, NULL, n);
  int steps = (int)(3.0 * SETTLE_T / dt + 0.5);
  double *ts = malloc(sizeof(double) * (steps + 1)), *ds = malloc(sizeof(double) * (steps + 1));
  ts[0] = 0.0;
  ds[0] = dist_d1(x, eq, n);
  int count = 1;
  for (int k = 1; k <= steps; ++k, ++count) {
    if (tf_sim_advance(sim, dt, 1) != TF_OK) break;
    tf_sim_get_positions(sim, x, n);
    ts[k] = k * dt;
    ds[k] = dist_d1(x, eq, n);
  }
  /* the diagnostic: achieved settle time and the tau the tail's decay means */
  tf_settle_report rep;
  tf_measure_settle(ts, ds, (uint32_t)count, lambda, dt, &rep);
  TF_NOTE(
      "%2u x %-2u cells, dt %.4f s: lambda %.3f 1/s^2, tau %.4f s; settled in %.3f s (asked %.2f "
      "s), "
      "effective tau %.4f s",
      cells, cells, dt, lambda, tau, rep.settle_time, SETTLE_T, rep.tau);
  double last_above = rep.settle_time - dt;
  free(ts);
  free(ds);
  free(eq);
  free(x);
  tf_sim_destroy(sim);
  scene_free(&sc);
  return last_above + dt;
}

TF_TEST(settle_time_is_achieved_across_resolution_and_dt) {
  const uint32_t res[3] = {8, 16, 32};
  const double dts[3] = {1.0 / 24, 1.0 / 48, 1.0 / 96};
  double worst = 0.0;
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) {
      double tau = 0;
      double t = settle_run(res[r], dts[k], &tau);
      ENSURE_MSG(t > 0, "run failed (%g)", t);
      worst = fmax(worst, fabs(t - SETTLE_T) / SETTLE_T);
    }
  TF_NOTE("largest deviation from the requested settle time: %.1f %%", 100 * worst);
  ENSURE(worst < 0.15);
}

TF_TEST(settle_measure_reads_exact_decays) {
  /* a sampled exponential decays by 100x at ln(100)/r; the backward-Euler step factor gives tau */
  double t[400], d[400], r = 2.0, dt = 0.01, lambda = 5.0;
  for (int k = 0; k < 400; ++k) {
    t[k] = k * dt;
    d[k] = 3.0 * exp(-r * t[k]);
  }
  tf_settle_report rep;
  ENSURE(tf_measure_settle(t, d, 400, lambda, dt, &rep) == TF_OK);
  ENSURE_NEAR(rep.settle_time, log(100.0) / r, dt);
  ENSURE_NEAR(rep.rate, r, 1e-9);
  ENSURE_NEAR(rep.tau, (exp(r * dt) - 1.0) / (dt * lambda), 1e-9);
  d[300] = 1.0; /* a late bump above 1 % delays the settle */
  ENSURE(tf_measure_settle(t, d, 400, lambda, dt, &rep) == TF_OK);
  ENSURE_NEAR(rep.settle_time, 3.01, 1e-9);
  ENSURE(tf_measure_settle(t, d, 1, lambda, dt, &rep) == TF_E_INVALID_ARG);
  t[3] = t[2];
  ENSURE(tf_measure_settle(t, d, 400, lambda, dt, &rep) == TF_E_INVALID_ARG);
}

TF_TEST(settle_refuses_free_pieces_and_bad_input) {
  static const double O[3] = {0, 0, 0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0};
  scene sc;
  scene_grid(&sc, 4, 4, 1.0, 1.0, O, EX, EY, 0);
  tf_cloth_def def;
  scene_def(&sc, &def);
  tf_sim *sim = NULL;
  ENSURE(tf_cloth_create(&def, &sim, NULL, 0) == TF_OK);
  double tau;
  ENSURE(tf_sim_settle_tau(sim, 1.0, 0.04, &tau, NULL) == TF_E_UNSUPPORTED);
  ENSURE(strstr(tf_sim_last_error(sim), "no hard pins"));
  ENSURE(tf_sim_settle_tau(sim, -1.0, 0.04, &tau, NULL) == TF_E_INVALID_ARG);
  ENSURE(strstr(tf_sim_last_error(sim), "settle_time must be > 0"));
  tf_sim_destroy(sim);
  scene_free(&sc);
}
