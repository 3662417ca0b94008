/* SPDX-License-Identifier: MIT
 * Spring cloth (TF_CLOTH_SPRINGS, Leplatre's mass-spring model): the spring's gradient and Hessian
 * against finite differences, the three families on a grid, a family's stiffness as the sheet's
 * modulus whatever the spacing, the tau laws as for the membrane, and its parameters kept apart
 * from the membrane's. */
#include <stdlib.h>
#include <string.h>

#include "core/eigen_sym.h"
#include "energy/spring.h"
#include "mesh/springs.h"
#include "scenes.h"
#include "tf_test.h"

static const double ORIGIN[3] = {0, 0, 0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0},
                    EZ_DOWN[3] = {0, 0, -1};

static double frand(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return (double)(*s >> 8) / (double)(1u << 24) * 2.0 - 1.0;
}

TF_TEST(energy_spring_gradient_hessian_fd) {
  unsigned seed = 3;
  double worst_g = 0.0, worst_h = 0.0, worst_psd = 0.0;
  for (int trial = 0; trial < 40; ++trial) {
    double x[6], g[6], H[36], gp[6], gm[6];
    for (int k = 0; k < 6; ++k) x[k] = frand(&seed);
    const double k = 50.0 + 40.0 * frand(&seed);
    double l = 0.0;
    for (int i = 0; i < 3; ++i) l += (x[3 + i] - x[i]) * (x[3 + i] - x[i]);
    l = sqrt(l);
    /* stretched (the Hessian is exact) for even trials, compressed (projected) for odd ones */
    const double L = trial % 2 ? 1.5 * l : 0.6 * l;
    spring_energy(x, k, L, g, H);
    const double eps = 1e-6;
    for (int a = 0; a < 6; ++a) {
      double xp[6], xm[6];
      memcpy(xp, x, sizeof xp), memcpy(xm, x, sizeof xm);
      xp[a] += eps, xm[a] -= eps;
      double fd =
          (spring_energy(xp, k, L, NULL, NULL) - spring_energy(xm, k, L, NULL, NULL)) / (2 * eps);
      worst_g = fmax(worst_g, fabs(fd - g[a]) / k);
      if (trial % 2) continue;
      spring_energy(xp, k, L, gp, NULL);
      spring_energy(xm, k, L, gm, NULL);
      for (int b = 0; b < 6; ++b)
        worst_h = fmax(worst_h, fabs((gp[b] - gm[b]) / (2 * eps) - H[6 * a + b]) / k);
    }
    double w[6];
    eigen_sym(H, 6, w, NULL);
    for (int a = 0; a < 6; ++a) worst_psd = fmin(worst_psd, w[a] / k);
  }
  TF_NOTE(
      "spring: gradient vs FD %.1e, Hessian vs FD (stretched) %.1e, smallest eigenvalue / k "
      "%.1e (compressed ones projected)",
      worst_g, worst_h, worst_psd);
  ENSURE(worst_g < 1e-7 && worst_h < 1e-6 && worst_psd > -1e-12);
}

/* the spring families of a scene's mesh (through the mesh's own topology) */
static int families_of(const scene *sc, tf_mem *m, trimesh *t, springs *sp) {
  mem_init(m, NULL);
  return trimesh_build(m, t, sc->vert_count, sc->tri, sc->tri_count, 0, NULL, NULL, 0) == TF_OK &&
         springs_build(m, t, sc->pos, sp) == TF_OK;
}

/* Leplatre's layout on an n x n grid: 2 n (n + 1) structural (the grid lines), 2 n^2 shear (both
 * diagonals of each cell), 2 (n + 1) (n - 1) bend (skip-one along both grid directions); an
 * equilateral mesh has no near-rectangles and no shear springs */
TF_TEST(springs_families_on_a_grid) {
  for (uint32_t n = 2; n <= 8; n += 3) {
    scene sc;
    scene_grid(&sc, n, n, 1.0, 1.0, ORIGIN, EX, EY, 0);
    tf_mem m;
    trimesh t;
    springs sp;
    ENSURE(families_of(&sc, &m, &t, &sp));
    uint32_t fam[3];
    for (int f = 0; f < 3; ++f) fam[f] = sp.first[f + 1] - sp.first[f];
    TF_NOTE("%ux%u grid: %u structural, %u shear, %u bend springs", n, n, fam[0], fam[1], fam[2]);
    ENSURE(fam[0] == 2 * n * (n + 1) && fam[1] == 2 * n * n && fam[2] == 2 * (n + 1) * (n - 1));
    /* every bend spring is two cells long along a grid line */
    for (uint32_t e = sp.first[SPRING_BEND]; e < sp.first[SPRING_BEND + 1]; ++e) {
      const double *a = sc.pos + 3 * (size_t)sp.pairs[2 * e],
                   *b = sc.pos + 3 * (size_t)sp.pairs[2 * e + 1];
      const double dx = fabs(a[0] - b[0]), dy = fabs(a[1] - b[1]);
      ENSURE(fabs(fmax(dx, dy) - 2.0 / n) < 1e-12 && fmin(dx, dy) < 1e-12);
    }
    springs_free(&m, &sp);
    trimesh_free(&m, &t);
    ENSURE(m.live_bytes == 0);
    scene_free(&sc);
  }
  /* Young's equilateral example: every edge structural, nothing else is a quad */
  scene sc;
  scene_young1(&sc);
  tf_mem m;
  trimesh t;
  springs sp;
  ENSURE(families_of(&sc, &m, &t, &sp));
  ENSURE(sp.first[1] == t.edge_count && sp.first[2] == sp.first[1]);
  springs_free(&m, &sp);
  trimesh_free(&m, &t);
  scene_free(&sc);
}

static tf_sim *spring_sheet(const scene *sc, double stretch, double shear, double bend,
                            double tau) {
  tf_cloth_def def;
  scene_def(sc, &def);
  def.cloth_model = TF_CLOTH_SPRINGS;
  def.density = 0.1;
  def.stretch_stiffness = stretch;
  def.shear_stiffness = shear;
  def.bend_spring_stiffness = bend;
  def.tau = tau;
  def.solver.tolerance = 1e-8;
  def.solver.abs_tolerance = 1e-12;
  tf_sim *sim = NULL;
  return tf_cloth_create(&def, &sim, NULL, 0) == TF_OK ? sim : NULL;
}

/* a sheet hanging from its top edge, structural springs only: the tension across a horizontal cut
 * is the weight below it, and on a square grid a spring family's k is the sheet's modulus along
 * it, so the sheet lengthens by rho g L^2 / (2 k) at any spacing (away from its side edges) */
TF_TEST(springs_family_stiffness_is_the_sheet_modulus) {
  const double k = 100.0, rho = 0.1, g = 9.81, L = 1.0, want = rho * g * L * L / (2.0 * k);
  double got[2];
  for (int r = 0; r < 2; ++r) {
    const uint32_t n = r ? 16 : 8;
    scene sc;
    scene_grid(&sc, n, n, 1.0, L, ORIGIN, EX, EZ_DOWN, 1);
    tf_sim *sim = spring_sheet(&sc, k, 0.0, 0.0, 20.0);
    ENSURE(sim);
    ENSURE(tf_sim_set_pins(sim, sc.pins, NULL, sc.pin_count) == TF_OK);
    for (int f = 0; f < 40; ++f) ENSURE(tf_sim_advance(sim, 1.0 / 24, 1) == TF_OK);
    double *x = malloc(sizeof(double) * 3 * sc.vert_count);
    tf_sim_get_positions(sim, x, sc.vert_count);
    /* the middle of the bottom edge: a boundary spring line carries half a cell's width of
     * cloth with a whole spring, so the sheet's edges stretch about half as much (the spring
     * model's own boundary; measured: 2.4 of 4.9 mm at 8x8) */
    const double bottom = x[3 * (size_t)(n * (n + 1) + n / 2) + 2];
    got[r] = -L - bottom;
    free(x);
    tf_sim_destroy(sim);
    scene_free(&sc);
  }
  TF_NOTE(
      "hanging spring sheet, middle, lengthens %.3f mm (8x8), %.3f mm (16x16); rho g L^2 / 2k = "
      "%.3f mm",
      1e3 * got[0], 1e3 * got[1], 1e3 * want);
  ENSURE(fabs(got[0] / want - 1.0) < 0.01 && fabs(got[1] / want - 1.0) < 0.01);
}

/* each model's parameters, and only those: a membrane's on a spring cloth (and the reverse) is
 * refused by name with the simulation unchanged; bad values and combinations refused at create */
TF_TEST(springs_parameters_belong_to_their_model) {
  scene sc;
  scene_grid(&sc, 4, 4, 1.0, 1.0, ORIGIN, EX, EY, 0);
  tf_sim *sp = spring_sheet(&sc, 300.0, 100.0, 5.0, 0.5);
  ENSURE(sp);
  double v = 0.2, got = 0.0;
  ENSURE(tf_sim_set_param(sp, TF_PARAM_POISSON, &v, 1) == TF_E_UNSUPPORTED);
  TF_NOTE("%s", tf_sim_last_error(sp));
  ENSURE(strstr(tf_sim_last_error(sp), "poisson") && strstr(tf_sim_last_error(sp), "spring"));
  ENSURE(tf_sim_set_param(sp, TF_PARAM_BEND_STIFFNESS, &v, 1) == TF_E_UNSUPPORTED);
  ENSURE(strstr(tf_sim_last_error(sp), "bend_spring_stiffness"));
  v = 250.0;
  ENSURE(tf_sim_set_param(sp, TF_PARAM_SHEAR_STIFFNESS, &v, 1) == TF_OK);
  ENSURE(tf_sim_get_param(sp, TF_PARAM_SHEAR_STIFFNESS, &got, 1) == TF_OK && got == 250.0);
  v = -1.0;
  ENSURE(tf_sim_set_param(sp, TF_PARAM_BEND_SPRING_STIFFNESS, &v, 1) == TF_E_INVALID_ARG);
  ENSURE(tf_sim_get_param(sp, TF_PARAM_BEND_SPRING_STIFFNESS, &got, 1) == TF_OK && got == 5.0);
  tf_sim_destroy(sp);

  tf_cloth_def def;
  scene_def(&sc, &def);
  tf_sim *mb = NULL;
  ENSURE(tf_cloth_create(&def, &mb, NULL, 0) == TF_OK);
  v = 100.0;
  ENSURE(tf_sim_set_param(mb, TF_PARAM_SHEAR_STIFFNESS, &v, 1) == TF_E_UNSUPPORTED);
  TF_NOTE("%s", tf_sim_last_error(mb));
  ENSURE(strstr(tf_sim_last_error(mb), "spring cloth"));
  tf_sim_destroy(mb);

  char err[256];
  def.cloth_model = (tf_cloth_model)7;
  ENSURE(tf_cloth_create(&def, &mb, err, sizeof err) == TF_E_INVALID_ARG &&
         strstr(err, "cloth_model"));
  def.cloth_model = TF_CLOTH_SPRINGS;
  def.shear_stiffness = NAN;
  ENSURE(tf_cloth_create(&def, &mb, err, sizeof err) == TF_E_INVALID_ARG && strstr(err, "shear"));
  def.shear_stiffness = 400.0;
  def.poisson = 0.4; /* a membrane's field, set: a mistake, not a setting to ignore */
  ENSURE(tf_cloth_create(&def, &mb, err, sizeof err) == TF_E_INVALID_ARG && strstr(err, "poisson"));
  def.poisson = 0.3;
  def.cloth_model = TF_CLOTH_MEMBRANE;
  def.bend_spring_stiffness = 3.0;
  ENSURE(tf_cloth_create(&def, &mb, err, sizeof err) == TF_E_INVALID_ARG &&
         strstr(err, "bend_spring_stiffness"));
  def.bend_spring_stiffness = 10.0;
  def.cloth_model = TF_CLOTH_SPRINGS;
  def.integrator = TF_INTEGRATOR_STRAIN_RATE;
  ENSURE(tf_cloth_create(&def, &mb, err, sizeof err) == TF_E_INVALID_ARG && strstr(err, "tau"));
  TF_NOTE("%s", err);
  scene_free(&sc);
}

/* Leplatre's rule: held at 30 % stretch with an elastic limit of 5 %, a spring's rest length
 * becomes l / 1.05 = 1.238 of its original, unless the plastic limit stops it first (0.2: 1.2);
 * let go, the strip keeps that length. Within the elastic limit nothing is kept, and the run is
 * bit for bit the one without plasticity. */
TF_TEST(springs_plastic_rest_length_and_limits) {
  const double free_limit = plastic_strip(1, 1.3, 0.05, 0.5, 0.0, 1.0, 1, NULL);
  const double capped = plastic_strip(1, 1.3, 0.05, 0.2, 0.0, 1.0, 1, NULL);
  const double elastic = plastic_strip(1, 1.3, 0.05, 0.0, 0.0, 1.0, 1, NULL);
  TF_NOTE(
      "strip held at 1.3 x, yield 5 %%: keeps %.4f m (limit 0.5; l / 1.05 = %.4f), %.4f m "
      "(limit 0.2), %.4f m (no plasticity)",
      free_limit, 1.3 / 1.05, capped, elastic);
  ENSURE(fabs(free_limit - 1.3 / 1.05) < 2e-3);
  ENSURE(fabs(capped - 1.2) < 2e-3);
  ENSURE(fabs(elastic - 1.0) < 1e-3);
  /* 4 % stretch: inside the elastic limit, bitwise the run without plasticity */
  double a[3 * 22], b[3 * 22];
  plastic_strip(1, 1.04, 0.05, 0.5, 0.0, 1.0, 1, a);
  plastic_strip(1, 1.04, 0.05, 0.0, 0.0, 1.0, 1, b);
  ENSURE(memcmp(a, b, sizeof a) == 0);
  /* compressed past the limit it shortens, as far as the plastic limit lets it */
  const double short_ = plastic_strip(1, 0.8, 0.05, 0.1, 0.0, 1.0, 1, NULL);
  TF_NOTE("strip held at 0.8 x, limit 0.1: keeps %.4f m", short_);
  ENSURE(fabs(short_ - 0.9) < 2e-3);
}

/* with a flow time T the rest length approaches its target as 1 - exp(-t / T), whatever the step:
 * held 1 s at 1.3 x with T = 0.5 s (limit 0.2) the strip keeps 1 + 0.2 (1 - e^-2), at 1, 2 and 4
 * substeps per frame */
TF_TEST(springs_plastic_flow_rate_independent_of_the_step) {
  const double want = 1.0 + 0.2 * (1.0 - exp(-2.0));
  double got[3];
  for (int k = 0; k < 3; ++k) got[k] = plastic_strip(1, 1.3, 0.05, 0.2, 0.5, 1.0, 1u << k, NULL);
  TF_NOTE(
      "strip held 1 s at 1.3 x, T = 0.5 s: keeps %.4f / %.4f / %.4f m at 1 / 2 / 4 substeps "
      "(1 + 0.2 (1 - e^-2) = %.4f)",
      got[0], got[1], got[2], want);
  for (int k = 0; k < 3; ++k) ENSURE(fabs((got[k] - 1.0) / (want - 1.0) - 1.0) < 0.02);
}

/* the rest lengths plasticity moved are state: a snapshot taken while the strip is held carries
 * them, so a new simulation loading it lets go of the same stretched strip bit for bit */
TF_TEST(springs_plastic_state_is_in_snapshots) {
  scene sc;
  scene_grid(&sc, 10, 1, 1.0, 0.1, ORIGIN, EX, EY, 0);
  double out[2][3 * 22];
  void *snap = NULL;
  size_t size = 0;
  for (int run = 0; run < 2; ++run) {
    tf_sim *sim = spring_sheet(&sc, 100.0, 0.0, 0.0, 5.0);
    ENSURE(sim);
    const double zero[3] = {0, 0, 0}, limit = 0.3;
    tf_sim_set_param(sim, TF_PARAM_GRAVITY, zero, 3);
    tf_sim_set_param(sim, TF_PARAM_PLASTIC_LIMIT, &limit, 1);
    const uint32_t ends[4] = {0, 11, 10, 21};
    if (run == 0) {
      double x[3 * 22];
      memcpy(x, sc.pos, sizeof x);
      for (int i = 0; i < 22; ++i) x[3 * i] *= 1.3;
      tf_sim_set_state(sim, x, NULL, 22);
      tf_sim_set_pins(sim, ends, NULL, 4);
      for (int f = 0; f < 12; ++f) ENSURE(tf_sim_advance(sim, 1.0 / 24, 1) == TF_OK);
      size = tf_sim_state_size(sim);
      snap = malloc(size);
      ENSURE(tf_sim_save_state(sim, snap, size) == TF_OK);
    } else {
      ENSURE_MSG(tf_sim_load_state(sim, snap, size) == TF_OK, "%s", tf_sim_last_error(sim));
    }
    tf_sim_set_pins(sim, ends, NULL, 2);
    for (int f = 0; f < 24; ++f) ENSURE(tf_sim_advance(sim, 1.0 / 24, 1) == TF_OK);
    tf_sim_get_positions(sim, out[run], 22);
    tf_sim_destroy(sim);
  }
  TF_NOTE("let go after a snapshot: free end at x = %.6f m, loaded run %.6f m", out[0][30],
          out[1][30]);
  ENSURE(out[0][30] > 1.15 && memcmp(out[0], out[1], sizeof out[0]) == 0);
  free(snap);
  scene_free(&sc);
}

/* a per-vertex plastic limit (a vertex group): only the strip's right half may yield, so after the
 * same stretch its left half springs back and its right half keeps all its plastic limit lets it
 * (a 2 % elastic limit: every yielding spring reaches its limit) */
TF_TEST(springs_plastic_limit_per_vertex) {
  scene sc;
  scene_grid(&sc, 10, 1, 1.0, 0.1, ORIGIN, EX, EY, 0);
  tf_sim *sim = spring_sheet(&sc, 100.0, 0.0, 0.0, 5.0);
  ENSURE(sim);
  const double zero[3] = {0, 0, 0}, yield = 0.02;
  tf_sim_set_param(sim, TF_PARAM_GRAVITY, zero, 3);
  tf_sim_set_param(sim, TF_PARAM_PLASTIC_YIELD, &yield, 1);
  double map[22], x[3 * 22];
  for (int i = 0; i < 22; ++i) map[i] = sc.pos[3 * i] > 0.55 ? 0.5 : 0.0;
  ENSURE(tf_sim_set_param_map(sim, TF_PARAM_PLASTIC_LIMIT, map, 22) == TF_OK);
  map[0] = 2.0; /* past the parameter's range: refused, nothing changed */
  ENSURE(tf_sim_set_param_map(sim, TF_PARAM_PLASTIC_LIMIT, map, 22) == TF_E_INVALID_ARG);
  memcpy(x, sc.pos, sizeof x);
  for (int i = 0; i < 22; ++i) x[3 * i] *= 1.3;
  tf_sim_set_state(sim, x, NULL, 22);
  const uint32_t ends[4] = {0, 11, 10, 21};
  tf_sim_set_pins(sim, ends, NULL, 4);
  for (int f = 0; f < 24; ++f) ENSURE(tf_sim_advance(sim, 1.0 / 24, 1) == TF_OK);
  tf_sim_set_pins(sim, ends, NULL, 2);
  for (int f = 0; f < 72; ++f) ENSURE(tf_sim_advance(sim, 1.0 / 24, 1) == TF_OK);
  tf_sim_get_positions(sim, x, 22);
  /* vertex 5 (x = 0.5 at rest) ends the elastic half; the spring from it to vertex 6 takes its
   * ends' mean limit, 0.25, the four beyond 0.5 */
  const double mid = x[3 * 5], end = x[3 * 10], want = 0.5 + 0.1 * 1.25 + 0.4 * 1.5;
  TF_NOTE("right half plastic: vertex at 0.5 m now at %.4f m, free end %.4f m (want %.4f)", mid,
          end, want);
  ENSURE(fabs(mid - 0.5) < 2e-3 && fabs(end - want) < 2e-3);
  /* spring cloth bends through its bend springs: it has no bending plasticity to map */
  for (int i = 0; i < 22; ++i) map[i] = 5.0;
  ENSURE(tf_sim_set_param_map(sim, TF_PARAM_BEND_YIELD, map, 22) == TF_E_UNSUPPORTED);
  TF_NOTE("%s", tf_sim_last_error(sim));
  tf_sim_destroy(sim);
  scene_free(&sc);
}
