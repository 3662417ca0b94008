/* SPDX-License-Identifier: MIT
 * The tau laws on 3D cloth: rest time ~ 1/tau and independent of dt (membrane and spring cloth), no oscillation at kappa = 0,
 * free pieces keep their ballistic motion and momenta (tau damps deformation, never rigid
 * motion), and a hanging sheet sags to the static equilibrium whatever tau is. */
#include <stdlib.h>
#include <string.h>

#include "scenes.h"
#include "tf_test.h"

static const double ORIGIN[3] = {0, 0, 0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0},
                    EZ_DOWN[3] = {0, 0, -1};

/* a 1 m square sheet in the x-y plane clamped along y = 0 (its first two rows pinned: one pinned
 * line would leave the rotation about it as a zero-energy mode), bent out of plane by
 * z = a (y - h)^2 and released without gravity: it relaxes to flat through its bending modes */
static double pinned_sheet_rest_time(double tau, double dt, int *monotone) {
  scene sc;
  scene_grid(&sc, 12, 12, 1.0, 1.0, ORIGIN, EX, EY, 1);
  tf_cloth_def def;
  scene_def(&sc, &def);
  def.density = 0.1;
  def.stretch_stiffness = 200.0;
  def.bend_stiffness = 0.01;
  def.gravity[2] = 0.0;
  def.tau = tau;
  def.solver.tolerance = 1e-8;
  def.solver.abs_tolerance = 1e-12;
  tf_sim *sim = NULL;
  if (tf_cloth_create(&def, &sim, NULL, 0) != TF_OK) return -1.0;
  uint32_t clamp[26];
  for (uint32_t i = 0; i < 26; ++i) clamp[i] = i;
  tf_sim_set_pins(sim, clamp, NULL, 26);
  double *x = malloc(sizeof(double) * 3 * sc.vert_count);
  memcpy(x, sc.pos, sizeof(double) * 3 * sc.vert_count);
  for (uint32_t i = 26; i < sc.vert_count; ++i) {
    double y = x[3 * i + 1] - 1.0 / 12.0;
    x[3 * i + 2] = 0.02 * y * y;
  }
  tf_sim_set_state(sim, x, NULL, sc.vert_count);
  free(x);
  double rest = scene_rest_time(sim, sc.pos, sc.vert_count, dt, 20.0 / tau, monotone);
  tf_sim_destroy(sim);
  scene_free(&sc);
  return rest;
}

/* the law on a scene: rest time halves from tau = 1 to 2, moves under 5 % when dt halves, and
 * the distance from rest never grows */
static void check_rest_time_law(int *tf_failed_, const char *what,
                                double (*rest_time)(double tau, double dt, int *monotone)) {
  int m1, m2, m3;
  double t1 = rest_time(1.0, 0.01, &m1);
  double t2 = rest_time(2.0, 0.01, &m2);
  double t1h = rest_time(1.0, 0.005, &m3);
  TF_NOTE("%s rest time: tau=1 %.3f s, tau=2 %.3f s (ratio %.3f); tau=1 at dt/2 %.3f s (%.2f %%)",
          what, t1, t2, t1 / t2, t1h, 100.0 * (t1 - t1h) / t1h);
  ENSURE(t1 > 0 && t2 > 0 && t1h > 0);
  ENSURE(fabs(t1 / t2 - 2.0) < 0.2);
  ENSURE(fabs(t1 - t1h) < 0.05 * t1h);
  ENSURE_MSG(m1 && m2 && m3, "distance from rest increased at kappa = 0");
}

TF_TEST(tau_law_rest_time_scales_as_one_over_tau) {
  check_rest_time_law(tf_failed_, "pinned sheet", pinned_sheet_rest_time);
}

/* a sheet pinned along one edge, stretched 5 % in its plane and released without gravity: the
 * springs relax it in a time ~ 1 / tau, the same at dt and dt / 2, without overshoot */
static double stretched_sheet_rest_time(double tau, double dt, int *monotone) {
  scene sc;
  scene_grid(&sc, 10, 10, 1.0, 1.0, ORIGIN, EX, EY, 1);
  tf_cloth_def def;
  scene_def(&sc, &def);
  def.cloth_model = TF_CLOTH_SPRINGS;
  def.density = 0.1;
  def.stretch_stiffness = 0.05, def.shear_stiffness = 0.02, def.bend_spring_stiffness = 0.002;
  def.tau = tau;
  def.solver.tolerance = 1e-8;
  def.solver.abs_tolerance = 1e-12;
  tf_sim *sim = NULL;
  if (tf_cloth_create(&def, &sim, NULL, 0) != TF_OK) return -1.0;
  double zero[3] = {0, 0, 0};
  tf_sim_set_param(sim, TF_PARAM_GRAVITY, zero, 3);
  tf_sim_set_pins(sim, sc.pins, NULL, sc.pin_count);
  double *x = malloc(sizeof(double) * 3 * sc.vert_count);
  memcpy(x, sc.pos, sizeof(double) * 3 * sc.vert_count);
  for (uint32_t i = 0; i < sc.vert_count; ++i) x[3 * i + 1] *= 1.05;
  tf_sim_set_state(sim, x, NULL, sc.vert_count);
  free(x);
  double rest = scene_rest_time(sim, sc.pos, sc.vert_count, dt, 20.0 / tau, monotone);
  tf_sim_destroy(sim);
  scene_free(&sc);
  return rest;
}

TF_TEST(springs_tau_law_rest_time) {
  check_rest_time_law(tf_failed_, "stretched spring sheet", stretched_sheet_rest_time);
}

/* lumped masses (area/3 per triangle corner) of an n x n grid are proportional to the number of
 * triangles at each vertex (the (i,j)-(i+1,j+1) diagonal split); returns their sum */
static double grid_mass_weights(int n, double *w) {
  double sum = 0.0;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      int tri = 0;
      if (i < n && j < n) tri += 2;
      if (i > 0 && j > 0) tri += 2;
      if (i > 0 && j < n) tri += 1;
      if (i < n && j > 0) tri += 1;
      w[j * (n + 1) + i] = tri;
      sum += tri;
    }
  return sum;
}

/* stretched free sheet (no pins) */
static tf_sim *free_sheet(double tau, const double g[3], scene *sc, double *x) {
  scene_grid(sc, 8, 8, 1.0, 1.0, ORIGIN, EX, EY, 0);
  tf_cloth_def def;
  scene_def(sc, &def);
  def.stretch_stiffness = 500.0;
  def.bend_stiffness = 1e-3;
  def.tau = tau;
  memcpy(def.gravity, g, sizeof def.gravity);
  def.solver.tolerance = 1e-8;
  def.solver.abs_tolerance = 1e-12;
  tf_sim *sim = NULL;
  if (tf_cloth_create(&def, &sim, NULL, 0) != TF_OK) return NULL;
  /* deform: stretch x by 20 %, bulge z */
  for (uint32_t i = 0; i < sc->vert_count; ++i) {
    x[3 * i] = 1.2 * sc->pos[3 * i];
    x[3 * i + 1] = sc->pos[3 * i + 1];
    double u = sc->pos[3 * i] - 0.5, v = sc->pos[3 * i + 1] - 0.5;
    x[3 * i + 2] = 0.1 * (u * u + v * v);
  }
  return sim;
}

TF_TEST(tau_free_fall_is_ballistic) {
  scene sc;
  double x[81 * 3], v[81 * 3], g[3] = {0, 0, -9.81};
  tf_sim *sim = free_sheet(3.0, g, &sc, x);
  ENSURE(sim);
  double v0[81 * 3];
  for (int i = 0; i < 81; ++i) {
    v0[3 * i] = 0.3;
    v0[3 * i + 1] = 0.0;
    v0[3 * i + 2] = 2.0;
  }
  tf_sim_set_state(sim, x, v0, 81);
  double w[81], wsum = grid_mass_weights(8, w);
  double c[3] = {0, 0, 0}, V[3] = {0.3, 0.0, 2.0};
  for (int i = 0; i < 81; ++i)
    for (int k = 0; k < 3; ++k) c[k] += w[i] * x[3 * i + k] / wsum;
  const double dt = 1.0 / 24.0;
  double max_err = 0.0;
  for (int step = 0; step < 48; ++step) {
    ENSURE(tf_sim_advance(sim, dt, 1) == TF_OK);
    /* symplectic Euler of the centre of mass: V += dt g, c += dt V */
    for (int k = 0; k < 3; ++k) {
      V[k] += dt * g[k];
      c[k] += dt * V[k];
    }
    tf_sim_get_positions(sim, x, 81);
    double cc[3] = {0, 0, 0};
    for (int i = 0; i < 81; ++i)
      for (int k = 0; k < 3; ++k) cc[k] += w[i] * x[3 * i + k] / wsum;
    for (int k = 0; k < 3; ++k) max_err = fmax(max_err, fabs(cc[k] - c[k]));
  }
  tf_sim_get_velocities(sim, v, 81);
  /* the deformation settled: every vertex moves with the centre of mass */
  double vdev = 0.0;
  for (int i = 0; i < 81; ++i)
    for (int k = 0; k < 3; ++k) vdev = fmax(vdev, fabs(v[3 * i + k] - V[k]));
  TF_NOTE("free fall 2 s: COM error vs discrete parabola %.2e m, velocity spread %.2e m/s", max_err,
          vdev);
  ENSURE(max_err < 1e-9);
  ENSURE(vdev < 1e-4);
  tf_sim_destroy(sim);
  scene_free(&sc);
}

/* linear and angular momentum (about the origin) with mass weights w */
static void momenta(const double *x, const double *v, const double *w, int n, double P[3],
                    double L[3]) {
  for (int k = 0; k < 3; ++k) P[k] = L[k] = 0.0;
  for (int i = 0; i < n; ++i) {
    const double *p = x + 3 * i, *u = v + 3 * i;
    for (int k = 0; k < 3; ++k) P[k] += w[i] * u[k];
    L[0] += w[i] * (p[1] * u[2] - p[2] * u[1]);
    L[1] += w[i] * (p[2] * u[0] - p[0] * u[2]);
    L[2] += w[i] * (p[0] * u[1] - p[1] * u[0]);
  }
}

TF_TEST(tau_free_spin_keeps_momenta) {
  scene sc;
  double x[81 * 3], v[81 * 3], g[3] = {0, 0, 0};
  tf_sim *sim = free_sheet(0.5, g, &sc, x);
  ENSURE(sim);
  /* spin about z through the middle plus a deformation velocity */
  const double om[3] = {0.3, 0.0, 2.0};
  for (int i = 0; i < 81; ++i) {
    double r[3] = {x[3 * i] - 0.6, x[3 * i + 1] - 0.5, x[3 * i + 2]};
    v[3 * i] = om[1] * r[2] - om[2] * r[1] + 0.1;
    v[3 * i + 1] = om[2] * r[0] - om[0] * r[2] + 0.2 * r[1];
    v[3 * i + 2] = om[0] * r[1] - om[1] * r[0] + 0.5 * r[0] * r[0];
  }
  tf_sim_set_state(sim, x, v, 81);
  double w[81];
  grid_mass_weights(8, w);
  double P0[3], L0[3];
  momenta(x, v, w, 81, P0, L0);
  double e_start;
  tf_sim_get_energy(sim, &e_start);
  double driftP = 0.0, driftL = 0.0;
  double nP = sqrt(P0[0] * P0[0] + P0[1] * P0[1] + P0[2] * P0[2]);
  double nL = sqrt(L0[0] * L0[0] + L0[1] * L0[1] + L0[2] * L0[2]);
  for (int step = 0; step < 100; ++step) {
    ENSURE(tf_sim_advance(sim, 0.01, 1) == TF_OK);
    tf_sim_get_positions(sim, x, 81);
    tf_sim_get_velocities(sim, v, 81);
    double P[3], L[3];
    momenta(x, v, w, 81, P, L);
    for (int k = 0; k < 3; ++k) {
      driftP = fmax(driftP, fabs(P[k] - P0[k]) / nP);
      driftL = fmax(driftL, fabs(L[k] - L0[k]) / nL);
    }
  }
  double e_end;
  tf_sim_get_energy(sim, &e_end);
  TF_NOTE("spin 100 steps: relative drift P %.2e, L %.2e; elastic energy %.3e -> %.3e J", driftP,
          driftL, e_start, e_end);
  ENSURE(driftP < 1e-6);
  ENSURE(driftL < 1e-6);
  ENSURE(e_end < 0.05 * e_start); /* deformation came to rest */
  tf_sim_destroy(sim);
  scene_free(&sc);
}

TF_TEST(tau_hanging_sheet_static_equilibrium) {
  const double taus[3] = {0.1, 1.0, 10.0};
  for (int t = 0; t < 3; ++t) {
    scene sc;
    const double top[3] = {0, 0, 1};
    scene_grid(&sc, 10, 10, 1.0, 1.0, top, EX, EZ_DOWN, 1);
    tf_cloth_def def;
    scene_def(&sc, &def);
    def.stretch_stiffness = 300.0;
    def.bend_stiffness = 1e-4;
    def.tau = taus[t];
    def.solver.tolerance = 1e-9;
    def.solver.abs_tolerance = 1e-12;
    tf_sim *sim = NULL;
    ENSURE(tf_cloth_create(&def, &sim, NULL, 0) == TF_OK);
    ENSURE(tf_sim_set_pins(sim, sc.pins, NULL, sc.pin_count) == TF_OK);
    for (int f = 0; f < 200; ++f) ENSURE(tf_sim_advance(sim, 1.0 / 24.0, 1) == TF_OK);
    double f[121 * 3], x[121 * 3];
    tf_sim_get_forces(sim, f, 121);
    tf_sim_get_positions(sim, x, 121);
    double worst = 0.0, weight = 0.0;
    for (uint32_t i = 11; i < 121; ++i) {
      worst = fmax(worst, sqrt(f[3 * i] * f[3 * i] + f[3 * i + 1] * f[3 * i + 1] +
                               f[3 * i + 2] * f[3 * i + 2]));
    }
    weight = 0.1 * 1.0 * 9.81 / 121.0; /* an average vertex's weight */
    double sag = 0.0 - x[3 * 120 + 2];
    TF_NOTE(
        "tau=%g: max net force on a free vertex %.2e N (%.2e of a vertex weight), bottom z %.5f",
        taus[t], worst, worst / weight, -sag);
    ENSURE(worst < 1e-6 * weight);
    tf_sim_destroy(sim);
    scene_free(&sc);
  }
}

/* a sheet of cells x cells, size m across, flat in the x-y plane and pinned along one edge (the
 * benchmark's SWING set-up): density kg/m^2, stretch 1000 N/m, bending bend N m, tau 1 s */
static void flat_sheet(scene *sc, tf_cloth_def *def, uint32_t cells, double size, double density,
                       double bend) {
  scene_grid(sc, cells, cells, size, size, ORIGIN, EX, EY, 1);
  scene_def(sc, def);
  def->density = density;
  def->stretch_stiffness = 1000.0;
  def->bend_stiffness = bend;
  def->tau = 1.0;
}

TF_TEST(tau_low_newton_budget_has_no_jitter) {
  /* a sheet released flat from one pinned edge (the SWING scene, 16 x 16): however few Newton
   * iterations a step may take, every accepted iterate lowers the step's objective, so the
   * potential energy never rises from frame to frame (no jitter to iterate away), and the sheet
   * reaches the rest state of fully converged steps, only later */
  const uint32_t budgets[3] = {1, 2, 20};
  double rest[3][289 * 3];
  int frames_to_rest[3];
  for (int b = 0; b < 3; ++b) {
    scene sc;
    tf_cloth_def def;
    flat_sheet(&sc, &def, 16, 1.0, 0.1, 1e-4);
    def.solver.max_newton = budgets[b];
    tf_sim *sim = NULL;
    ENSURE(tf_cloth_create(&def, &sim, NULL, 0) == TF_OK);
    ENSURE(tf_sim_set_pins(sim, sc.pins, NULL, sc.pin_count) == TF_OK);
    double e_prev = 0.0, rise = 0.0, v[289 * 3];
    tf_sim_get_energy(sim, &e_prev);
    frames_to_rest[b] = -1;
    for (int f = 1; f <= 120; ++f) {
      ENSURE(tf_sim_advance(sim, 1.0 / 24.0, 1) == TF_OK);
      double e;
      tf_sim_get_energy(sim, &e);
      rise = fmax(rise, e - e_prev);
      e_prev = e;
      tf_sim_get_velocities(sim, v, sc.vert_count);
      double vmax = 0.0;
      for (uint32_t i = 0; i < 3 * sc.vert_count; ++i) vmax = fmax(vmax, fabs(v[i]));
      if (frames_to_rest[b] < 0 && vmax < 1e-3) frames_to_rest[b] = f;
    }
    tf_sim_get_positions(sim, rest[b], sc.vert_count);
    TF_NOTE(
        "Newton budget %u: largest rise of the potential energy between frames %.1e J; at rest (< "
        "1 mm/s) "
        "from frame %d",
        budgets[b], rise, frames_to_rest[b]);
    ENSURE(rise <= 1e-12 * fabs(e_prev));
    ENSURE(frames_to_rest[b] > 0);
    tf_sim_destroy(sim);
    scene_free(&sc);
  }
  for (int b = 0; b < 2; ++b) {
    double d = dist_d2(rest[b], rest[2], 289);
    TF_NOTE("budget %u: rest state %.1e m from the converged one's", budgets[b], d);
    ENSURE(d <
           2e-3); /* both at rest to the solver's tolerance (net force below 1e-3 of the weight) */
  }
}

/* the benchmark's SWING scene at 24 x 24 (a 2 m sheet of 0.3 kg released flat from one pinned
 * edge), at tolerance tol: its Newton and CG iterations over frames 1-48 into *newton, *cg, and its
 * positions at frame 48 */
enum { SWING_N = 24, SWING_V = (SWING_N + 1) * (SWING_N + 1) };
static void swing_run(double tol, uint32_t *newton, uint32_t *cg, double *x) {
  scene sc;
  tf_cloth_def def;
  flat_sheet(&sc, &def, SWING_N, 2.0, 0.075, 1e-5);
  def.solver.tolerance = tol;
  def.solver.max_newton = 100;
  tf_sim *sim = NULL;
  *newton = *cg = 0;
  if (tf_cloth_create(&def, &sim, NULL, 0) == TF_OK &&
      tf_sim_set_pins(sim, sc.pins, NULL, sc.pin_count) == TF_OK)
    for (int f = 1; f <= 48 && tf_sim_advance(sim, 1.0 / 24.0, 1) == TF_OK; ++f) {
      tf_stats st = {.struct_size = sizeof st};
      if (tf_sim_get_stats(sim, &st) != TF_OK) break;
      *newton += st.newton_iterations, *cg += st.cg_iterations;
      if (f == 48) tf_sim_get_positions(sim, x, sc.vert_count);
    }
  tf_sim_destroy(sim);
  scene_free(&sc);
}

TF_TEST(tau_swinging_sheet_starts_where_its_swing_goes) {
  /* a step of a deforming sheet without contact also tries the last step's deformable velocity
   * continued and starts from the lower objective (step_tau.c, moving_start): the same minimizer
   * (the frame-48 positions as close to a run converged to 1e-6 as before), in fewer Newton and
   * CG iterations */
  double x[SWING_V * 3], xc[SWING_V * 3];
  uint32_t newton, cg, nc, cgc;
  swing_run(1e-3, &newton, &cg, x);
  swing_run(1e-6, &nc, &cgc, xc);
  double d = dist_d2(x, xc, SWING_V);
  TF_NOTE("frames 1-48: %.2f Newton and %.1f CG iterations a step; %.2g m from the converged run",
          newton / 48.0, cg / 48.0, d);
  /* from xhat alone: 7.67 Newton and 34.8 CG a step, 4.6 mm from the converged run */
  ENSURE_MSG(newton / 48.0 < 7.2, "%.2f Newton iterations a step", newton / 48.0);
  ENSURE_MSG(d < 4e-3, "%.2g m from the converged run", d);
}
