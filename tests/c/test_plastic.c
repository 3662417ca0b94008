/* SPDX-License-Identifier: MIT
 * Plasticity of the membrane's triangles and of flesh's tets (issue 23, energy/plastic_flow.h):
 * the flow rules against their closed forms, a stretched membrane strip and a compressed flesh
 * block that keep what the elastic and plastic limits predict, a flow time that gives the same
 * rest shape at any substep count, a flesh dent that stays, per-vertex limits, and bit for bit
 * nothing below the elastic limit. Spring cloth's and bending's are in test_springs.c and
 * test_bend_shell.c. */
#include <stdlib.h>
#include <string.h>

#include "core/vec3.h"
#include "energy/plastic_flow.h"
#include "scenes.h"
#include "sim/sim.h"
#include "testmath.h"
#include "tf_test.h"

/* principal stretches of a 3x2 (n = 2) or 3x3 (n = 3) F, ascending */
static void stretches_of(const double *F, int n, double out[3]) {
  /* plastic_stretches(dm, dm0) takes Fp = dm^-1 dm0: dm = I and dm0 = F */
  const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  if (n == 3) {
    plastic_stretches(I3, F, 3, out);
    for (int k = 0; k < 3; ++k) out[k] = exp(out[k]);
    return;
  }
  /* 3x2: its 2x2 Gram matrix's square root has the same singular values */
  double C[4] = {0};
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 3; ++i) C[2 * a + b] += F[2 * i + a] * F[2 * i + b];
  const double m = 0.5 * (C[0] + C[3]), r = hypot(0.5 * (C[0] - C[3]), C[1]);
  out[0] = sqrt(m - r), out[1] = sqrt(m + r);
}

/* Fe = Ftot dm (Ftot: rows x n, dm: n x n) */
static void elastic_part(const double *Ftot, const double *dm, int rows, int n, double *Fe) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0.0;
      for (int k = 0; k < n; ++k) s += Ftot[n * i + k] * dm[n * k + j];
      Fe[n * i + j] = s;
    }
}

/* The rules in closed form. A triangle held at 1.3 x along a direction at 30 degrees in its plane
 * (rotated out of it too) with a 5 % elastic limit keeps 1.05 of it elastic: its rest frame takes
 * 1.3 / 1.05 along that direction, its rest area with it; a plastic limit of 0.2 stops the rest
 * frame at 1.2 and the rest stays elastic. A tet squashed to 0.7 of its height at constant volume
 * (equivalent strain |ln 0.7| = 0.357) keeps 0.05 of it elastic, its rest shape the other 0.307,
 * volume kept; a plastic limit of 0.1 stops it there. A flow rate r held at the same total
 * deformation brings the elastic excess down by (1 - r) per step, so steps compound exactly. */
TF_TEST(plastic_flow_rules_closed_form) {
  const double c30 = cos(TF_PI / 6), s30 = sin(TF_PI / 6);
  /* F = R diag(1.3, 1) Q^T, Q the in-plane rotation by 30 degrees, R a 3x2 isometry */
  const double Q[4] = {c30, -s30, s30, c30};
  const double R[6] = {0.0, 1.0, 0.6, 0.0, 0.8, 0.0};
  double F[6];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      F[2 * i + j] = R[2 * i] * 1.3 * Q[2 * j] + R[2 * i + 1] * Q[2 * j + 1];
  const double I2[4] = {1, 0, 0, 1};
  for (int capped = 0; capped < 2; ++capped) {
    double dm[4] = {1, 0, 0, 1}, area = 0.5, Fe[6], st[3];
    ENSURE(plastic_flow_tri(F, I2, 0.5, 0.05, capped ? 0.2 : 0.5, 1.0, dm, &area) == 1);
    elastic_part(F, dm, 3, 2, Fe);
    stretches_of(Fe, 2, st);
    const double want = capped ? 1.3 / 1.2 : 1.05, want_area = 0.5 * (capped ? 1.2 : 1.3 / 1.05);
    TF_NOTE(
        "triangle at 1.3 x, limit %.1f: elastic stretches %.6f %.6f (want 1, %.6f), area %.6f "
        "(want %.6f)",
        capped ? 0.2 : 0.5, st[0], st[1], want, area, want_area);
    ENSURE(fabs(st[0] - 1.0) < 1e-12 && fabs(st[1] - want) < 1e-12);
    ENSURE(fabs(area - want_area) < 1e-12);
    /* the flow was along F's own direction: the rest frame is Q diag(1 / g, 1) Q^T */
    const double g = capped ? 1.2 : 1.3 / 1.05;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        double want_dm = Q[2 * i] * Q[2 * j] / g + Q[2 * i + 1] * Q[2 * j + 1];
        ENSURE(fabs(dm[2 * i + j] - want_dm) < 1e-12);
      }
  }
  /* inside the elastic limit nothing moves */
  {
    double dm[4] = {1, 0, 0, 1}, area = 0.5, Fs[6] = {1.04, 0, 0, 0.97, 0, 0};
    ENSURE(plastic_flow_tri(Fs, I2, 0.5, 0.05, 0.5, 1.0, dm, &area) == 0);
    ENSURE(dm[0] == 1.0 && dm[1] == 0.0 && dm[3] == 1.0 && area == 0.5);
  }
  /* tet: squashed along a tilted axis at constant volume */
  const double c = 0.7, a = 1.0 / sqrt(c), I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double Rz[9], Ft[9];
  {
    const double ct = cos(0.4), sn = sin(0.4); /* rotation about (1, 1, 1) / sqrt 3 by 0.4 rad */
    const double u[3] = {1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0)};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double eps = (i == j) ? 0.0 : ((j == (i + 1) % 3) ? -u[3 - i - j] : u[3 - i - j]);
        Rz[3 * i + j] = (i == j) * ct + (1 - ct) * u[i] * u[j] + sn * eps;
      }
    const double D[3] = {a, a, c};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double s = 0.0;
        for (int k = 0; k < 3; ++k) s += Rz[3 * i + k] * D[k] * Rz[3 * j + k];
        Ft[3 * i + j] = s;
      }
  }
  for (int capped = 0; capped < 2; ++capped) {
    double dm[9], Fe[9], lp[3];
    memcpy(dm, I3, sizeof dm);
    ENSURE(plastic_flow_tet(Ft, I3, 0.05, capped ? 0.1 : 0.5, 1.0, dm) == 1);
    const double det = plastic_stretches(dm, I3, 3, lp);
    elastic_part(Ft, dm, 3, 3, Fe);
    double st[3];
    stretches_of(Fe, 3, st);
    const double eq_e =
        sqrt(2.0 / 3.0) * sqrt(pow(log(st[0]), 2) + pow(log(st[1]), 2) + pow(log(st[2]), 2) -
                               pow(log(st[0] * st[1] * st[2]), 2) / 3.0);
    const double want_lz = capped ? -0.1 : log(c) + 0.05;
    TF_NOTE(
        "tet squashed to 0.7, limit %.1f: rest shape's log stretches %.6f %.6f %.6f (want "
        "%.6f, then -1/2 of it twice), det Fp %.15f, elastic equivalent strain %.6f",
        capped ? 0.1 : 0.5, lp[0], lp[1], lp[2], want_lz, det, eq_e);
    ENSURE(fabs(det - 1.0) < 1e-13);
    ENSURE(fabs(lp[0] - want_lz) < 1e-12 && fabs(lp[1] + 0.5 * want_lz) < 1e-12 &&
           fabs(lp[2] + 0.5 * want_lz) < 1e-12);
    ENSURE(fabs(eq_e - (capped ? fabs(log(c)) - 0.1 : 0.05)) < 1e-12);
  }
  /* the flow time: held at the same total deformation, 10 steps of rate 0.1 take the rest frame
   * 1 - 0.9^10 of the way to its target (Fp = I + (1 - 0.9^10) (Fp* - I), the target stretch
   * 1.3 / 1.05 along F's direction); a tet's rest shape gets there too, its volume kept */
  {
    double dm[4] = {1, 0, 0, 1}, area = 0.5, Fe[6], lp[3];
    for (int k = 0; k < 10; ++k) {
      elastic_part(F, dm, 3, 2, Fe);
      plastic_flow_tri(Fe, I2, 0.5, 0.05, 0.5, 0.1, dm, &area);
    }
    plastic_stretches(dm, I2, 2, lp);
    const double want = 1.0 + (1.0 - pow(0.9, 10)) * (1.3 / 1.05 - 1.0);
    TF_NOTE("10 steps at rate 0.1: rest stretch %.12f (want %.12f), other %.1e", exp(lp[1]), want,
            lp[0]);
    ENSURE(fabs(exp(lp[1]) - want) < 1e-12 && fabs(lp[0]) < 1e-12);
    double dt[9], Fet[9], det = 0.0;
    memcpy(dt, I3, sizeof dt);
    for (int k = 0; k < 200; ++k) {
      elastic_part(Ft, dt, 3, 3, Fet);
      plastic_flow_tet(Fet, I3, 0.05, 0.5, 0.1, dt);
      det = fmax(det, fabs(plastic_stretches(dt, I3, 3, lp) - 1.0));
    }
    TF_NOTE("tet, 200 steps at rate 0.1: rest log stretch %.9f (target %.9f), |det Fp - 1| <= %.1e",
            lp[0], log(c) + 0.05, det);
    ENSURE(fabs(lp[0] - (log(c) + 0.05)) < 1e-9 && det < 1e-13);
  }
}

/* the membrane yields as the springs do: held at 1.3 x with a 5 % elastic limit it keeps
 * 1.3 / 1.05, or the plastic limit's 1.2; without plasticity it springs back; inside the elastic
 * limit (1.04 x) the run is bit for bit the elastic one; and with a flow time of 0.5 s, 1 s of
 * holding keeps 1 + 0.2 (1 - e^-2) at 1, 2 and 4 substeps alike */
TF_TEST(membrane_plastic_stretch_and_rate) {
  const double free_limit = plastic_strip(0, 1.3, 0.05, 0.5, 0.0, 1.0, 1, NULL);
  const double capped = plastic_strip(0, 1.3, 0.05, 0.2, 0.0, 1.0, 1, NULL);
  const double elastic = plastic_strip(0, 1.3, 0.05, 0.0, 0.0, 1.0, 1, NULL);
  TF_NOTE(
      "membrane strip held at 1.3 x, yield 5 %%: keeps %.4f m (limit 0.5; 1.3 / 1.05 = %.4f), "
      "%.4f m (limit 0.2), %.4f m (no plasticity)",
      free_limit, 1.3 / 1.05, capped, elastic);
  ENSURE(fabs(free_limit - 1.3 / 1.05) < 2e-3);
  ENSURE(fabs(capped - 1.2) < 2e-3);
  ENSURE(fabs(elastic - 1.0) < 1e-3);
  double a[3 * 22], b[3 * 22];
  plastic_strip(0, 1.04, 0.05, 0.5, 0.0, 1.0, 1, a);
  plastic_strip(0, 1.04, 0.05, 0.0, 0.0, 1.0, 1, b);
  ENSURE(memcmp(a, b, sizeof a) == 0);
  const double want = 1.0 + 0.2 * (1.0 - exp(-2.0));
  double got[3];
  for (int k = 0; k < 3; ++k) got[k] = plastic_strip(0, 1.3, 0.05, 0.2, 0.5, 1.0, 1u << k, NULL);
  TF_NOTE("held 1 s, T = 0.5 s: keeps %.4f / %.4f / %.4f m at 1 / 2 / 4 substeps (%.4f)", got[0],
          got[1], got[2], want);
  for (int k = 0; k < 3; ++k) ENSURE(fabs((got[k] - 1.0) / (want - 1.0) - 1.0) < 0.02);
}

/* a 0.1 m flesh cube (4^3 cells, no gravity) squashed at constant volume to c of its height,
 * every vertex held there for `hold` s, then let go for 2 s: its height after (the mean z of the
 * top face less the bottom's). positions Nullable */
static double flesh_squash(double c, double yield, double limit, double time, double hold,
                           unsigned substeps, double *positions) {
  const uint32_t n = 4;
  tet_scene b;
  scene_block(&b, n, n, n, 0.1 / n, 0.1 / n, 0.1 / n);
  tf_flesh_def def;
  scene_flesh_def(&b, &def);
  def.gravity[2] = 0.0;
  def.tau = 0.05;
  def.solver.tolerance = 1e-8, def.solver.abs_tolerance = 1e-12;
  tf_sim *sim = NULL;
  double h = NAN;
  if (tf_flesh_create(&def, &sim, NULL, 0) == TF_OK &&
      tf_sim_set_param(sim, TF_PARAM_PLASTIC_YIELD, &yield, 1) == TF_OK &&
      tf_sim_set_param(sim, TF_PARAM_PLASTIC_LIMIT, &limit, 1) == TF_OK &&
      tf_sim_set_param(sim, TF_PARAM_PLASTIC_TIME, &time, 1) == TF_OK) {
    const uint32_t nv = b.vert_count;
    double *x = malloc(sizeof(double) * 3 * nv);
    uint32_t *all = malloc(sizeof(uint32_t) * nv);
    const double a = 1.0 / sqrt(c);
    for (uint32_t i = 0; i < nv; ++i) {
      x[3 * i] = a * b.pos[3 * i], x[3 * i + 1] = a * b.pos[3 * i + 1];
      x[3 * i + 2] = c * b.pos[3 * i + 2];
      all[i] = i;
    }
    tf_sim_set_state(sim, x, NULL, nv);
    tf_sim_set_pins(sim, all, NULL, nv);
    int ok = 1;
    for (int f = 0; f < (int)(hold * 24 + 0.5); ++f)
      ok &= tf_sim_advance(sim, 1.0 / 24, substeps) == TF_OK;
    tf_sim_set_pins(sim, NULL, NULL, 0);
    for (int f = 0; f < 48; ++f) ok &= tf_sim_advance(sim, 1.0 / 24, substeps) == TF_OK;
    tf_sim_get_positions(sim, x, nv);
    double top = 0.0, bottom = 0.0;
    uint32_t nt = 0, nb = 0;
    for (uint32_t i = 0; i < nv; ++i) {
      if (b.pos[3 * i + 2] > 0.1 - 1e-9) top += x[3 * i + 2], ++nt;
      if (b.pos[3 * i + 2] < 1e-9) bottom += x[3 * i + 2], ++nb;
    }
    if (ok) h = top / nt - bottom / nb;
    if (positions) memcpy(positions, x, sizeof(double) * 3 * nv);
    free(x), free(all);
  }
  tf_sim_destroy(sim);
  tet_scene_free(&b);
  return h;
}

/* flesh keeps what the von Mises rule predicts: squashed to 0.7 at constant volume with a 5 %
 * elastic limit, the cube rests at 0.7 e^0.05 of its height, or e^-0.1 under a plastic limit of
 * 0.1, or springs back without plasticity; squashed to 0.97 (inside the limit) bit for bit the
 * elastic run; a flow time of 0.25 s held 0.5 s gives the same height at 1 and 2 substeps */
TF_TEST(flesh_plastic_squash_keeps_the_predicted_height) {
  const double H = 0.1;
  const double free_limit = flesh_squash(0.7, 0.05, 0.5, 0.0, 0.5, 1, NULL);
  const double capped = flesh_squash(0.7, 0.05, 0.1, 0.0, 0.5, 1, NULL);
  const double elastic = flesh_squash(0.7, 0.05, 0.0, 0.0, 0.5, 1, NULL);
  TF_NOTE(
      "cube squashed to 0.7, yield 0.05: keeps %.5f m (0.7 e^0.05 H = %.5f), %.5f m (limit "
      "0.1: e^-0.1 H = %.5f), %.5f m elastic",
      free_limit, 0.7 * exp(0.05) * H, capped, exp(-0.1) * H, elastic);
  ENSURE(fabs(free_limit / (0.7 * exp(0.05) * H) - 1.0) < 0.01);
  ENSURE(fabs(capped / (exp(-0.1) * H) - 1.0) < 0.01);
  ENSURE(fabs(elastic / H - 1.0) < 0.005);
  const uint32_t nv = 125;
  double a[3 * 125], b[3 * 125];
  flesh_squash(0.97, 0.05, 0.5, 0.0, 0.5, 1, a);
  flesh_squash(0.97, 0.05, 0.0, 0.0, 0.5, 1, b);
  ENSURE(memcmp(a, b, sizeof(double) * 3 * nv) == 0);
  /* held 0.5 s with T = 0.25 s: the rest shape goes 1 - e^-2 of the way to 0.7 e^0.05 (the
   * blend's return to det Fp = 1 bends that a little), the same at 1, 2 and 4 substeps */
  const double want = H * (1.0 + (1.0 - exp(-2.0)) * (0.7 * exp(0.05) - 1.0));
  double got[3];
  for (int k = 0; k < 3; ++k) got[k] = flesh_squash(0.7, 0.05, 0.5, 0.25, 0.5, 1u << k, NULL);
  TF_NOTE("T = 0.25 s, held 0.5 s: %.5f / %.5f / %.5f m at 1 / 2 / 4 substeps (about %.5f)", got[0],
          got[1], got[2], want);
  for (int k = 0; k < 3; ++k) {
    ENSURE(fabs((H - got[k]) / (H - got[0]) - 1.0) < 0.02);
    ENSURE(fabs((H - got[k]) / (H - want) - 1.0) < 0.03);
  }
}

/* A 0.3 x 0.3 x 0.15 m flesh slab (6 x 6 x 3 cells, gravity, its base held) pressed at the middle
 * of its top by a 5-vertex stamp pinned 3 cm down over 0.5 s, held 0.5 s, let go, then 2 s to
 * settle: the stamp's middle vertex's height. depth 0: not pressed. limit_map (Nullable, per
 * vertex) the plastic limit as a map */
static double slab_after_press(double depth, double limit, const double *limit_map, double *pos) {
  tet_scene b;
  scene_block(&b, 6, 6, 3, 0.05, 0.05, 0.05);
  tf_flesh_def def;
  scene_flesh_def(&b, &def);
  def.solver.tolerance = 1e-8, def.solver.abs_tolerance = 1e-12;
  tf_sim *sim = NULL;
  const double yield = 0.05;
  double z = NAN;
  const uint32_t nv = b.vert_count;
  uint32_t *pins = malloc(sizeof(uint32_t) * nv), np = 0, stamp[5], ns = 0, mid = 0;
  for (uint32_t i = 0; i < nv; ++i) {
    const double *p = b.pos + 3 * i;
    if (p[2] < 1e-9) pins[np++] = i;
    const double dx = p[0] - 0.15, dy = p[1] - 0.15;
    if (p[2] > 0.15 - 1e-9 && fabs(dx) + fabs(dy) < 0.05 + 1e-9) {
      if (fabs(dx) + fabs(dy) < 1e-9) mid = ns;
      stamp[ns++] = i;
    }
  }
  const uint32_t base = np;
  for (uint32_t k = 0; k < ns; ++k) pins[np++] = stamp[k];
  if (ns == 5 && tf_flesh_create(&def, &sim, NULL, 0) == TF_OK &&
      tf_sim_set_param(sim, TF_PARAM_PLASTIC_YIELD, &yield, 1) == TF_OK &&
      tf_sim_set_param(sim, TF_PARAM_PLASTIC_LIMIT, &limit, 1) == TF_OK &&
      (!limit_map || tf_sim_set_param_map(sim, TF_PARAM_PLASTIC_LIMIT, limit_map, nv) == TF_OK)) {
    int ok = tf_sim_set_pins(sim, pins, NULL, np) == TF_OK;
    double *tg = malloc(sizeof(double) * 3 * np);
    tf_sim_get_pin_targets(sim, tg, np);
    for (int f = 1; f <= 24 && ok; ++f) {
      const double s = f <= 12 ? f / 12.0 : 1.0; /* 0.5 s down, 0.5 s held */
      for (uint32_t k = base; k < np; ++k) tg[3 * k + 2] = 0.15 - s * depth;
      ok &= tf_sim_set_pin_targets(sim, tg, np) == TF_OK;
      ok &= tf_sim_advance(sim, 1.0 / 24, 1) == TF_OK;
    }
    ok &= tf_sim_set_pins(sim, pins, NULL, base) == TF_OK; /* let go of the stamp */
    for (int f = 0; f < 48 && ok; ++f) ok &= tf_sim_advance(sim, 1.0 / 24, 1) == TF_OK;
    double *x = malloc(sizeof(double) * 3 * nv);
    tf_sim_get_positions(sim, x, nv);
    if (ok) z = x[3 * stamp[mid] + 2];
    if (pos) memcpy(pos, x, sizeof(double) * 3 * nv);
    free(x), free(tg);
  }
  tf_sim_destroy(sim);
  free(pins);
  tet_scene_free(&b);
  return z;
}

/* a dent stays: pressed 3 cm with a 5 % elastic limit, the slab keeps a dent of half the press;
 * without plasticity it springs back to where an unpressed slab sags to; with the plastic limit
 * mapped to zero within 13 cm of the middle (a vertex group) it springs back but for the tenth
 * that the rim, still plastic, keeps */
TF_TEST(flesh_plastic_dent_stays) {
  const double d = 0.03;
  const double still = slab_after_press(0.0, 0.5, NULL, NULL);
  const double elastic = slab_after_press(d, 0.0, NULL, NULL);
  const double plastic = slab_after_press(d, 0.5, NULL, NULL);
  double map[7 * 7 * 4];
  tet_scene b;
  scene_block(&b, 6, 6, 3, 0.05, 0.05, 0.05);
  for (uint32_t i = 0; i < b.vert_count; ++i) {
    const double dx = b.pos[3 * i] - 0.15, dy = b.pos[3 * i + 1] - 0.15;
    map[i] = dx * dx + dy * dy < 0.13 * 0.13 ? 0.0 : 0.5; /* the middle stays elastic */
  }
  const double mapped = slab_after_press(d, 0.5, map, NULL);
  tet_scene_free(&b);
  TF_NOTE(
      "stamp's middle after a 3 cm press: %.2f mm below an unpressed slab's (plastic), %.3f "
      "mm (elastic), %.3f mm (plastic limit mapped to 0 on the middle)",
      1e3 * (still - plastic), 1e3 * (still - elastic), 1e3 * (still - mapped));
  ENSURE(still - plastic > 0.4 * d);
  ENSURE(fabs(still - elastic) < 0.02 * d);
  ENSURE(fabs(still - mapped) < 0.15 * (still - plastic));
}

/* the tets' rest shapes are state: a snapshot taken while a cube is held squashed carries them,
 * so a new simulation loading it lets go of the same cube bit for bit; a snapshot whose rest
 * shape changes a tet's volume (resealed, so only the value is wrong) is refused by name, and the
 * simulation offered it goes on as before */
TF_TEST(flesh_plastic_state_is_in_snapshots) {
  tet_scene b;
  scene_block(&b, 3, 3, 3, 0.1 / 3, 0.1 / 3, 0.1 / 3);
  const uint32_t nv = b.vert_count;
  tf_flesh_def def;
  scene_flesh_def(&b, &def);
  def.gravity[2] = 0.0, def.tau = 0.05;
  double out[3][3 * 64], x[3 * 64];
  uint32_t all[64];
  unsigned char *snap = NULL;
  size_t size = 0;
  for (int run = 0; run < 3; ++run) {
    tf_sim *sim = NULL;
    ENSURE(tf_flesh_create(&def, &sim, NULL, 0) == TF_OK);
    const double limit = 0.5;
    ENSURE(tf_sim_set_param(sim, TF_PARAM_PLASTIC_LIMIT, &limit, 1) == TF_OK);
    if (run == 0) {
      for (uint32_t i = 0; i < nv; ++i) {
        x[3 * i] = b.pos[3 * i] * 1.2, x[3 * i + 1] = b.pos[3 * i + 1] * 1.2;
        x[3 * i + 2] = b.pos[3 * i + 2] / 1.44;
        all[i] = i;
      }
      tf_sim_set_state(sim, x, NULL, nv);
      ENSURE(tf_sim_set_pins(sim, all, NULL, nv) == TF_OK);
      for (int f = 0; f < 6; ++f) ENSURE(tf_sim_advance(sim, 1.0 / 24, 1) == TF_OK);
      size = tf_sim_state_size(sim);
      snap = malloc(size);
      ENSURE(snap && tf_sim_save_state(sim, snap, size) == TF_OK);
    } else if (run == 1) {
      ENSURE_MSG(tf_sim_load_state(sim, snap, size) == TF_OK, "%s", tf_sim_last_error(sim));
    } else {
      /* the first tet's rest shape 10 % wider along x: the plastic slice follows the frame count,
       * x, v, vref, afict and the one piece's carrier */
      ENSURE(tf_sim_load_state(sim, snap, size) == TF_OK);
      unsigned char *bad = malloc(size);
      memcpy(bad, snap, size);
      const size_t header = 80, at = header + sizeof(sim_params) + sizeof(uint64_t) +
                                     4 * 3 * sizeof(double) * nv + 9 * sizeof(double);
      double dm0;
      memcpy(&dm0, bad + at, sizeof dm0);
      dm0 /= 1.1;
      memcpy(bad + at, &dm0, sizeof dm0);
      snapshot_reseal(bad, size, header);
      ENSURE(tf_sim_load_state(sim, bad, size) == TF_E_INVALID_ARG);
      TF_NOTE("refused: %s", tf_sim_last_error(sim));
      ENSURE(strstr(tf_sim_last_error(sim), "tet's rest shape"));
      free(bad);
    }
    ENSURE(tf_sim_set_pins(sim, NULL, NULL, 0) == TF_OK);
    for (int f = 0; f < 24; ++f) ENSURE(tf_sim_advance(sim, 1.0 / 24, 1) == TF_OK);
    tf_sim_get_positions(sim, out[run], nv);
    tf_sim_destroy(sim);
  }
  TF_NOTE("let go after a snapshot: top corner at z = %.6f m (rest 0.1), loaded run %.6f m",
          out[0][3 * (nv - 1) + 2], out[1][3 * (nv - 1) + 2]);
  ENSURE(out[0][3 * (nv - 1) + 2] < 0.09);
  ENSURE(memcmp(out[0], out[1], sizeof(double) * 3 * nv) == 0);
  ENSURE(memcmp(out[0], out[2], sizeof(double) * 3 * nv) == 0);
  free(snap);
  tet_scene_free(&b);
}
