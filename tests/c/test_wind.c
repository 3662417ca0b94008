/* SPDX-License-Identifier: MIT
 * Aerodynamic wind: the per-triangle force against its formula (direction and magnitude, edge-on,
 * moving with the air, both sides), the terminal velocity of a falling sheet, a flag streaming
 * downwind, deterministic turbulence, and bad input. */
#include <stdlib.h>
#include <string.h>

#include "core/eigen_sym.h"
#include "core/vec3.h"
#include "energy/aero_tri.h"
#include "scenes.h"
#include "tf_test.h"

static const aero_coeffs AIR = {1.225, 1.2, 0.6, 0};

TF_TEST(wind_triangle_force_matches_formula) {
  /* triangle in the x-y plane, area 1/2, normal +z; air at angle phi from the normal */
  const double x[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, still[9] = {0};
  const double U = 10.0, A = 0.5;
  const double phis[5] = {0, 30, 60, 89, 90};
  for (int k = 0; k < 5; ++k) {
    double ph = phis[k] * TF_PI / 180.0;
    double w[3] = {U * sin(ph), 0, U * cos(ph)}, f[3], c, n[3];
    ENSURE(aero_triangle(x, still, w, &AIR, f, &c, n));
    double cosp = cos(ph), q = 0.5 * AIR.rho * A * U * U;
    /* drag along n, lift along n - cos(phi) u_hat */
    double expect[3] = {q * AIR.cl * cosp * (0 - cosp * sin(ph)), 0,
                        q * AIR.cd * cosp + q * AIR.cl * cosp * (1 - cosp * cosp)};
    for (int i = 0; i < 3; ++i) ENSURE_NEAR(f[i], expect[i], 1e-12 * q + 1e-12);
    /* the lift is across the flow */
    double l[3] = {f[0], f[1], f[2] - q * AIR.cd * cosp};
    ENSURE_NEAR(v3_dot(l, w), 0.0, 1e-9 * q * U);
  }
  /* edge-on: nothing; moving with the air: nothing */
  double w[3] = {U, 0, 0}, f[3], c;
  aero_triangle(x, still, w, &AIR, f, &c, NULL);
  ENSURE(v3_maxabs(f) < 1e-12);
  double with[9] = {3, 1, 2, 3, 1, 2, 3, 1, 2}, w2[3] = {3, 1, 2};
  aero_triangle(x, with, w2, &AIR, f, &c, NULL);
  ENSURE(v3_maxabs(f) == 0.0);
  /* both sides act alike: the flipped triangle feels the same force */
  const double flipped[9] = {0, 0, 0, 0, 1, 0, 1, 0, 0};
  double w3[3] = {2, 1, -7}, fa[3], fb[3];
  aero_triangle(x, still, w3, &AIR, fa, &c, NULL);
  aero_triangle(flipped, still, w3, &AIR, fb, &c, NULL);
  for (int i = 0; i < 3; ++i) ENSURE_NEAR(fa[i], fb[i], 1e-12);
  /* the drag damping is its derivative along n: finite differences of the normal force */
  double v0[9] = {0}, vp[9], fp[3], f0[3], c0;
  double wz[3] = {1.0, 0.5, 4.0};
  const aero_coeffs drag_only = {1.225, 1.2, 0.0, 0};
  aero_triangle(x, v0, wz, &drag_only, f0, &c0, NULL);
  for (int i = 0; i < 9; ++i) vp[i] = (i % 3 == 2) ? 1e-6 : 0.0; /* all corners +z */
  aero_triangle(x, vp, wz, &drag_only, fp, &c, NULL);
  ENSURE_NEAR((fp[2] - f0[2]) / 1e-6, -c0, 1e-5 * c0);
}

TF_TEST(wind_falling_sheet_terminal_velocity) {
  static const double O[3] = {0, 0, 0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0};
  scene sc;
  scene_grid(&sc, 8, 8, 1.0, 1.0, O, EX, EY, 0);
  tf_cloth_def def;
  scene_def(&sc, &def);
  def.density = 0.1;
  def.tau = 1.0;
  tf_sim *sim = NULL;
  ENSURE(tf_cloth_create(&def, &sim, NULL, 0) == TF_OK);
  double rho = 1.225, lift = 0.0, cd = 1.2;
  ENSURE(tf_sim_set_param(sim, TF_PARAM_AIR_DENSITY, &rho, 1) == TF_OK);
  ENSURE(tf_sim_set_param(sim, TF_PARAM_LIFT, &lift, 1) == TF_OK);
  for (int f = 0; f < 48; ++f) ENSURE(tf_sim_advance(sim, 1.0 / 24.0, 1) == TF_OK);
  double v[81 * 3], vz = 0.0;
  tf_sim_get_velocities(sim, v, 81);
  for (int i = 0; i < 81; ++i) vz += v[3 * i + 2] / 81.0;
  /* drag balances weight: 1/2 rho cd A v^2 = m g */
  double vt = sqrt(2.0 * 0.1 * 9.81 / (rho * cd * 1.0));
  TF_NOTE("terminal velocity %.4f m/s, drag balance %.4f m/s (%.2f %%)", -vz, vt,
          100.0 * (-vz - vt) / vt);
  ENSURE(fabs(-vz - vt) < 0.05 * vt);
  tf_sim_destroy(sim);
  scene_free(&sc);
}

/* a 1 m x 0.6 m flag on a vertical pole (its first column pinned), starting across the wind
 * (in the y-z plane) with the wind along +x; max_newton 0 leaves the library's budget */
static tf_sim *flag_solved(double speed, double kappa, double turbulence, double seed,
                           uint32_t max_newton, scene *sc) {
  static const double O[3] = {0, 0, 2}, EY[3] = {0, 1, 0}, EZ[3] = {0, 0, -1};
  scene_grid(sc, 16, 10, 1.0, 0.6, O, EY, EZ, 0);
  tf_cloth_def def;
  scene_def(sc, &def);
  def.density = 0.15;
  def.stretch_stiffness = 2000;
  def.bend_stiffness = 1e-4;
  def.tau = 1.0;
  def.kappa = kappa;
  if (max_newton) def.solver.max_newton = max_newton;
  tf_sim *sim = NULL;
  if (tf_cloth_create(&def, &sim, NULL, 0) != TF_OK) return NULL;
  uint32_t pole[11];
  for (uint32_t j = 0; j <= 10; ++j) pole[j] = j * 17;
  tf_sim_set_pins(sim, pole, NULL, 11);
  double wind[3] = {speed, 0, 0}, rho = 1.225;
  tf_sim_set_param(sim, TF_PARAM_WIND, wind, 3);
  tf_sim_set_param(sim, TF_PARAM_AIR_DENSITY, &rho, 1);
  tf_sim_set_param(sim, TF_PARAM_TURBULENCE, &turbulence, 1);
  tf_sim_set_param(sim, TF_PARAM_TURBULENCE_SEED, &seed, 1);
  return sim;
}

static tf_sim *flag_at(double speed, double kappa, double turbulence, double seed, scene *sc) {
  return flag_solved(speed, kappa, turbulence, seed, 0, sc);
}

static tf_sim *flag(double kappa, double turbulence, double seed, scene *sc) {
  return flag_at(10.0, kappa, turbulence, seed, sc);
}

/* advance the given frames, each in the given steps: the largest vertex speed (m/s) over the
 * last 24 frames; the steps that ended unconverged are added to *unconverged */
static double flag_run(tf_sim *sim, int frames, int steps, uint32_t *unconverged) {
  double v[187 * 3], vmax = 0.0;
  for (int f = 0; f < frames; ++f) {
    if (tf_sim_advance(sim, 1.0 / 24.0, steps) != TF_OK) return INFINITY;
    tf_stats st = {.struct_size = sizeof st};
    tf_sim_get_stats(sim, &st);
    *unconverged += st.unconverged_steps;
    if (f < frames - 24) continue;
    tf_sim_get_velocities(sim, v, 187);
    for (int i = 0; i < 3 * 187; ++i) vmax = fmax(vmax, fabs(v[i]));
  }
  return vmax;
}

TF_TEST(wind_flag_comes_to_rest_in_moderate_wind) {
  /* At 3 m/s the inertia-free (kappa = 0) flow of this flag has rest states, and they attract:
   * the flutter of the 10 m/s flag below sets in with the wind speed. Every step here is solved
   * to the tolerance (a budget of 100 Newton iterations; none reaches it): with the default 20,
   * 42 of the 240 one-step frames from the flag's start across the wind stop at the cap, and that
   * run comes to rest (1.3e-4 m/s over its last second) while the same run solved to the
   * tolerance lands on a flutter of 0.30 m/s instead: which of the two a transient reaches depends
   * on the transient, and a capped step is damping the solver adds. So the flag settles in small
   * steps (4 a frame) from its start, is then displaced by 5 mm and must come back to rest at
   * one step a frame, where the stability of rest is what is measured */
  scene sc;
  tf_sim *sim = flag_solved(3.0, 0.0, 0.0, 0, 100, &sc);
  ENSURE(sim);
  uint32_t unconverged = 0;
  double vmax = flag_run(sim, 120, 4, &unconverged);
  double x[187 * 3], v[187 * 3] = {0}, sag = 0.0;
  tf_sim_get_positions(sim, x, 187);
  for (uint32_t j = 0; j <= 10; ++j) sag += (2.0 - 0.06 * j - x[3 * (j * 17 + 16) + 2]) / 11.0;
  TF_NOTE(
      "flag at 3 m/s, kappa 0, 4 steps a frame: largest speed over frames 97-120 %.1e m/s; "
      "free edge at x = %.3f m, %.3f m below its start; %u steps unconverged",
      vmax, x[3 * 16], sag, unconverged);
  ENSURE(vmax < 2e-3);
  ENSURE(x[3 * 16] > 0.5); /* it streams downwind, drooping under its weight */
  /* every free vertex 5 mm off in the flag's plane and across it */
  for (int i = 0; i < 187; ++i)
    if (i % 17 != 0) x[3 * i] += 0.005 * sin(0.7 * i), x[3 * i + 1] += 0.005 * cos(1.3 * i);
  ENSURE(tf_sim_set_state(sim, x, v, 187) == TF_OK);
  double vmax2 = flag_run(sim, 120, 1, &unconverged);
  TF_NOTE(
      "displaced 5 mm, one step a frame: largest speed over frames 97-120 %.1e m/s; %u steps "
      "unconverged in all",
      vmax2, unconverged);
  ENSURE(vmax2 < 2e-3);
  ENSURE(unconverged == 0);
  tf_sim_destroy(sim);
  scene_free(&sc);
}

TF_TEST(wind_flag_streams_downwind) {
  scene sc;
  tf_sim *sim = flag(0.0, 0.0, 0, &sc);
  ENSURE(sim);
  double v[187 * 3], x[187 * 3], vmax = 0.0, tip[3] = {0, 0, 0};
  for (int f = 0; f < 120; ++f) {
    ENSURE(tf_sim_advance(sim, 1.0 / 24.0, 1) == TF_OK);
    if (f < 100) continue;
    tf_sim_get_velocities(sim, v, 187);
    tf_sim_get_positions(sim, x, 187);
    for (int i = 0; i < 3 * 187; ++i) vmax = fmax(vmax, fabs(v[i]));
    /* the free edge (grid column 16) started across the wind at y = 1 */
    for (uint32_t j = 0; j <= 10; ++j)
      for (int k = 0; k < 3; ++k) tip[k] += x[3 * (j * 17 + 16) + k] / (11.0 * 20.0);
  }
  /* Known limit: the pressure load follows the cloth's orientation (a non-conservative force), so
   * even the inertia-free kappa = 0 motion is not a gradient flow: this flag keeps a small flutter
   * or comes to rest depending on the transient, at every step size tried (1 to 64 per frame). The
   * test asks that it streams and stays calm. */
  TF_NOTE(
      "flag at 10 m/s, kappa 0: free edge on average at (%.3f, %.3f, %.3f) m over frames 100-120 "
      "(started at (0, 1, 1.7)); largest speed %.2f m/s (it flutters)",
      tip[0], tip[1], tip[2], vmax);
  ENSURE(tip[0] > 0.8); /* streams downwind (length 1 m) */
  ENSURE(fabs(tip[1]) < 0.3);
  ENSURE(vmax < 2.0); /* calm: it fluttered at ~12 m/s with the whole load explicit */
  tf_sim_destroy(sim);
  scene_free(&sc);
}

static uint64_t flag_hash(double seed, double kappa) {
  scene sc;
  tf_sim *sim = flag(kappa, 3.0, seed, &sc);
  if (!sim) return 0;
  uint64_t h = 1469598103934665603ull;
  double x[187 * 3];
  for (int f = 0; f < 24; ++f) {
    tf_sim_advance(sim, 1.0 / 24.0, 1);
    tf_sim_get_positions(sim, x, 187);
    const unsigned char *b = (const unsigned char *)x;
    for (size_t i = 0; i < sizeof x; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  tf_sim_destroy(sim);
  scene_free(&sc);
  return h;
}

TF_TEST(wind_turbulence_is_deterministic_per_seed) {
  uint64_t a = flag_hash(7, 0.0), b = flag_hash(7, 0.0), c = flag_hash(8, 0.0);
  ENSURE(a != 0 && a == b);
  ENSURE(a != c);
}

TF_TEST(wind_bad_input) {
  scene sc;
  tf_sim *sim = flag(0.0, 0.0, 0, &sc);
  ENSURE(sim);
  double nanw[3] = {1, NAN, 0}, neg = -1.0, frac = 1.5, zero = 0.0;
  ENSURE(tf_sim_set_param(sim, TF_PARAM_WIND, nanw, 3) == TF_E_INVALID_ARG);
  ENSURE(strstr(tf_sim_last_error(sim), "wind must be finite"));
  ENSURE(tf_sim_set_param(sim, TF_PARAM_AIR_DENSITY, &neg, 1) == TF_E_INVALID_ARG);
  ENSURE(strstr(tf_sim_last_error(sim), "air_density must be >= 0 kg/m^3, got -1"));
  ENSURE(tf_sim_set_param(sim, TF_PARAM_TURBULENCE_SEED, &frac, 1) == TF_E_INVALID_ARG);
  ENSURE(strstr(tf_sim_last_error(sim), "turbulence_seed must be a whole number"));
  ENSURE(tf_sim_set_param(sim, TF_PARAM_TURBULENCE_SCALE, &zero, 1) == TF_E_INVALID_ARG);
  double w[3];
  tf_sim_get_param(sim, TF_PARAM_WIND, w, 3);
  ENSURE(w[0] == 10 && w[1] == 0 && w[2] == 0); /* unchanged */
  tf_sim_destroy(sim);
  scene_free(&sc);
}

TF_TEST(wind_follower_jacobian_fd) {
  /* the load's position derivative (drag and lift, air velocity held) against central differences
   */
  const double x[9] = {0.1, -0.2, 0.05, 1.0, 0.1, 0.3, 0.2, 0.9, -0.4},
               v[9] = {0.3, 0, 0.1, 0.2, 0.1, 0, 0, 0.4, 0.1};
  const double w[3] = {6, 2, -3};
  double J[81];
  ENSURE(aero_drag_jacobian(x, v, w, &AIR, J));
  double worst = 0.0, jmax = 0.0;
  for (int i = 0; i < 81; ++i) jmax = fmax(jmax, fabs(J[i]));
  for (int col = 0; col < 9; ++col) {
    double xp[9], xm[9], fp[3], fm[3], c;
    memcpy(xp, x, sizeof xp);
    memcpy(xm, x, sizeof xm);
    xp[col] += 1e-6;
    xm[col] -= 1e-6;
    aero_triangle(xp, v, w, &AIR, fp, &c, NULL);
    aero_triangle(xm, v, w, &AIR, fm, &c, NULL);
    for (int corner = 0; corner < 3; ++corner)
      for (int r = 0; r < 3; ++r) {
        double fd = (fp[r] - fm[r]) / (3.0 * 2e-6); /* each corner carries a third */
        worst = fmax(worst, fabs(fd - J[(3 * corner + r) * 9 + col]) / jmax);
      }
  }
  TF_NOTE("follower Jacobian vs central FD: max rel err %.2e", worst);
  ENSURE(worst < 1e-6);
  /* the implicit stiffness built from it is symmetric positive semi-definite */
  double P[81];
  ENSURE(aero_restoring_stiffness(x, v, w, &AIR, P));
  for (int r = 0; r < 9; ++r)
    for (int c2 = 0; c2 < 9; ++c2) ENSURE_NEAR(P[9 * r + c2], P[9 * c2 + r], 1e-9 * jmax);
}

/* P by its definition: minus the negative part of sym(J) plus (N^T N)^(1/2), N = (J - J^T)/2, from
 * two 9 x 9 eigen-decompositions */
static void restoring_by_definition(const double J[81], double P[81]) {
  double S[81], N2[81], w[9], V[81];
  for (int a = 0; a < 9; ++a)
    for (int c = 0; c < 9; ++c) {
      S[9 * a + c] = 0.5 * (J[9 * a + c] + J[9 * c + a]);
      double acc = 0.0;
      for (int m = 0; m < 9; ++m)
        acc += 0.25 * (J[9 * m + a] - J[9 * a + m]) * (J[9 * m + c] - J[9 * c + m]);
      N2[9 * a + c] = acc;
      P[9 * a + c] = 0.0;
    }
  eigen_sym(S, 9, w, V);
  for (int e = 0; e < 9; ++e)
    if (w[e] < 0.0)
      for (int a = 0; a < 9; ++a)
        for (int c = 0; c < 9; ++c) P[9 * a + c] -= w[e] * V[9 * a + e] * V[9 * c + e];
  eigen_sym(N2, 9, w, V);
  double top = 0.0;
  for (int e = 0; e < 9; ++e) top = fmax(top, w[e]);
  for (int e = 0; e < 9; ++e) /* N^T N has three zero eigenvalues: their round-off has no root */
    if (w[e] > 1e-14 * top)
      for (int a = 0; a < 9; ++a)
        for (int c = 0; c < 9; ++c) P[9 * a + c] += sqrt(w[e]) * V[9 * a + e] * V[9 * c + e];
}

TF_TEST(wind_restoring_stiffness_matches_its_definition) {
  /* the closed form (J^2 = 0) against the eigen-decompositions it replaces, over random
   * triangles and winds, with and without lift, near edge-on, and a sliver */
  srand(11);
  double worst[3] = {0}; /* generic, near edge-on, sliver */
  int cases = 0;
  for (int t = 0; t < 400; ++t) {
    double x[9], v[9], w[3];
    for (int i = 0; i < 9; ++i) x[i] = (double)rand() / RAND_MAX - 0.5;
    for (int i = 0; i < 9; ++i) v[i] = 0.4 * ((double)rand() / RAND_MAX - 0.5);
    for (int i = 0; i < 3; ++i) w[i] = 12.0 * ((double)rand() / RAND_MAX - 0.5);
    if (t % 5 == 1) { /* the wind in the triangle's plane, within 1e-6 rad */
      double e1[3], e2[3], n[3];
      v3_sub(e1, x + 3, x);
      v3_sub(e2, x + 6, x);
      v3_cross(n, e1, e2);
      v3_scale(n, n, 1.0 / v3_norm(n));
      double u[3] = {w[0] - (v[0] + v[3] + v[6]) / 3, w[1] - (v[1] + v[4] + v[7]) / 3,
                     w[2] - (v[2] + v[5] + v[8]) / 3};
      v3_axpy(w, -v3_dot(u, n) + 1e-6 * v3_norm(u), n);
    }
    if (t % 5 == 2) /* a sliver: the third corner nearly on the first edge */
      for (int i = 0; i < 3; ++i) x[6 + i] = 0.5 * (x[i] + x[3 + i]) + 1e-7 * (i == 2);
    aero_coeffs k = AIR;
    if (t % 2) k.cl = 0.0;
    double J[81], P[81], R[81];
    if (!aero_drag_jacobian(x, v, w, &k, J)) continue;
    ENSURE(aero_restoring_stiffness(x, v, w, &k, P));
    restoring_by_definition(J, R);
    double rmax = 0.0, err = 0.0;
    for (int i = 0; i < 81; ++i) rmax = fmax(rmax, fabs(R[i]));
    for (int i = 0; i < 81; ++i) err = fmax(err, fabs(P[i] - R[i]));
    /* the reference's root of N^T N: its small eigenvalues carry round-off of the largest, and
     * their roots ~1e-8 of it, which the closed form (an SVD of B) does not have; near edge-on
     * and for a sliver B has such small singular values, elsewhere the two agree to round-off */
    int kind = t % 5 == 1 ? 1 : t % 5 == 2 ? 2 : 0;
    worst[kind] = fmax(worst[kind], err / rmax);
    ++cases;
    /* symmetric positive semi-definite */
    double ev[9];
    eigen_sym(P, 9, ev, NULL);
    for (int e = 0; e < 9; ++e) ENSURE(ev[e] >= -1e-12 * rmax);
  }
  TF_NOTE(
      "restoring stiffness, closed form vs eigen-decomposition: %d cases, max rel err %.2e "
      "(near edge-on %.2e, slivers %.2e)",
      cases, worst[0], worst[1], worst[2]);
  ENSURE(cases > 300);
  ENSURE(worst[0] < 1e-10);
  ENSURE(worst[1] < 1e-7 && worst[2] < 1e-7);
}

TF_TEST(wind_restored_state_continues_with_its_clock) {
  /* a render-farm restart: create, restore a cached frame (positions, velocities) and the clock
   * (TF_PARAM_TIME), continue: the turbulent, gusting wind goes on as in the uninterrupted run */
  scene sa, sb, sc;
  tf_sim *a = flag_at(8.0, 0.3, 2.0, 5, &sa), *b = flag_at(8.0, 0.3, 2.0, 5, &sb),
         *c = flag_at(8.0, 0.3, 2.0, 5, &sc);
  ENSURE(a && b && c);
  double gust = 0.5, xa[187 * 3], va[187 * 3], xb[187 * 3], xc[187 * 3], t = -1.0, t0 = -1.0;
  ENSURE(tf_sim_set_param(a, TF_PARAM_GUST, &gust, 1) == TF_OK &&
         tf_sim_set_param(b, TF_PARAM_GUST, &gust, 1) == TF_OK &&
         tf_sim_set_param(c, TF_PARAM_GUST, &gust, 1) == TF_OK);
  ENSURE(tf_sim_get_param(b, TF_PARAM_TIME, &t0, 1) == TF_OK && t0 == 0.0);
  for (int f = 0; f < 12; ++f) ENSURE(tf_sim_advance(a, 1.0 / 24.0, 1) == TF_OK);
  tf_sim_get_positions(a, xa, 187);
  tf_sim_get_velocities(a, va, 187);
  ENSURE(tf_sim_get_param(a, TF_PARAM_TIME, &t, 1) == TF_OK);
  ENSURE(fabs(t - 0.5) < 1e-12);
  ENSURE(tf_sim_set_state(b, xa, va, 187) == TF_OK &&
         tf_sim_set_param(b, TF_PARAM_TIME, &t, 1) == TF_OK);
  ENSURE(tf_sim_set_state(c, xa, va, 187) == TF_OK); /* its clock left at 0 */
  for (int f = 0; f < 12; ++f) {
    ENSURE(tf_sim_advance(a, 1.0 / 24.0, 1) == TF_OK);
    ENSURE(tf_sim_advance(b, 1.0 / 24.0, 1) == TF_OK);
    ENSURE(tf_sim_advance(c, 1.0 / 24.0, 1) == TF_OK);
  }
  tf_sim_get_positions(a, xa, 187);
  tf_sim_get_positions(b, xb, 187);
  tf_sim_get_positions(c, xc, 187);
  double db = 0.0, dc = 0.0;
  for (int i = 0; i < 187 * 3; ++i)
    db = fmax(db, fabs(xa[i] - xb[i])), dc = fmax(dc, fabs(xa[i] - xc[i]));
  TF_NOTE(
      "restored at 0.5 s with its clock: %.1e m from the uninterrupted run after 12 frames; "
      "without it: %.1e m",
      db, dc);
  ENSURE(db == 0.0);
  ENSURE(dc > 1e-3);
  double nan = NAN;
  ENSURE(tf_sim_set_param(b, TF_PARAM_TIME, &nan, 1) == TF_E_INVALID_ARG);
  ENSURE(strstr(tf_sim_last_error(b), "time must be finite"));
  tf_sim_destroy(a);
  tf_sim_destroy(b);
  tf_sim_destroy(c);
  scene_free(&sa);
  scene_free(&sb);
  scene_free(&sc);
}
