/* SPDX-License-Identifier: MIT
 * Flesh through the public API: the assembled energy against finite differences and rigid
 * invariance, the tau laws on a block (rest time ~ 1/tau, dt independence, no oscillation at
 * kappa = 0), ballistic motion and momenta of a free body, equilibrium sag and volume of a nearly
 * incompressible block, recovery from squashed and inverted states, the embedded render surface,
 * and bad input. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/vec3.h"
#include "scenes.h"
#include "sim/sim.h"
#include "testmath.h"
#include "tf_test.h"

static tf_sim *make_block(tet_scene *b, uint32_t n, double size, void (*edit)(tf_flesh_def *)) {
  scene_block(b, n, n, n, size / n, size / n, size / n);
  tf_flesh_def def;
  scene_flesh_def(b, &def);
  def.solver.tolerance = 1e-8;
  def.solver.abs_tolerance = 1e-12;
  if (edit) edit(&def);
  tf_sim *sim = NULL;
  char err[256];
  if (tf_flesh_create(&def, &sim, err, sizeof err) != TF_OK)
    fprintf(stderr, "  flesh create: %s\n", err);
  return sim;
}

/* the vertices of the block's bottom face z = 0 */
static uint32_t bottom_face(const tet_scene *b, uint32_t *idx) {
  uint32_t c = 0;
  for (uint32_t i = 0; i < b->vert_count; ++i)
    if (b->pos[3 * i + 2] == 0.0) idx[c++] = i;
  return c;
}

static void no_gravity(tf_flesh_def *d) { d->gravity[2] = 0.0; }
static void no_gravity_quadratic(tf_flesh_def *d) {
  d->gravity[2] = 0.0;
  d->element = TF_TET_QUADRATIC;
}

TF_TEST(flesh_forces_are_minus_energy_gradient) {
  tet_scene b;
  tf_sim *sim = make_block(&b, 2, 0.1, NULL);
  ENSURE(sim);
  uint32_t n = b.vert_count;
  double *x = malloc(sizeof(double) * 3 * n), *f = malloc(sizeof(double) * 3 * n);
  unsigned seed = 7;
  for (uint32_t k = 0; k < 3 * n; ++k) {
    seed = seed * 1103515245u + 12345u;
    x[k] = b.pos[k] + 0.02 * ((seed >> 8 & 0xffff) / 65535.0 - 0.5);
  }
  uint32_t pin = 0;
  double w = 0.5;
  ENSURE(tf_sim_set_pins(sim, &pin, &w, 1) == TF_OK); /* a soft pin joins the potential */
  ENSURE(tf_sim_set_state(sim, x, NULL, n) == TF_OK);
  ENSURE(tf_sim_get_forces(sim, f, n) == TF_OK);
  double worst = 0.0, scale = 0.0;
  const double h = 1e-7;
  for (uint32_t k = 0; k < 3 * n; ++k) {
    double ep, em, x0 = x[k];
    x[k] = x0 + h;
    tf_sim_set_state(sim, x, NULL, n);
    tf_sim_get_energy(sim, &ep);
    x[k] = x0 - h;
    tf_sim_set_state(sim, x, NULL, n);
    tf_sim_get_energy(sim, &em);
    x[k] = x0;
    double fd = -(ep - em) / (2 * h);
    worst = fmax(worst, fabs(fd - f[k]));
    scale = fmax(scale, fabs(f[k]));
  }
  TF_NOTE("assembled flesh force vs -dE/dx by central differences: max error %.3g N of %.3g N",
          worst, scale);
  ENSURE(scale > 1e-3);
  ENSURE(worst < 1e-5 * scale);
  free(x), free(f);
  tf_sim_destroy(sim);
  tet_scene_free(&b);
}

TF_TEST(flesh_no_force_at_rest_or_rotated) {
  tet_scene b;
  tf_sim *sim = make_block(&b, 3, 0.3, no_gravity);
  ENSURE(sim);
  uint32_t n = b.vert_count;
  double *x = malloc(sizeof(double) * 3 * n), *f = malloc(sizeof(double) * 3 * n);
  const double axis[3] = {0.3, -0.5, 0.8}, shift[3] = {1, 2, -3};
  double worst[2] = {0, 0};
  for (int c = 0; c < 2; ++c) {
    rigid_motion(b.pos, (int)n, axis, c ? 1.9 : 0.0, shift, x);
    ENSURE(tf_sim_set_state(sim, x, NULL, n) == TF_OK);
    ENSURE(tf_sim_get_forces(sim, f, n) == TF_OK);
    for (uint32_t k = 0; k < 3 * n; ++k) worst[c] = fmax(worst[c], fabs(f[k]));
  }
  /* the scale: one vertex pushed by 1 % of an edge */
  x[0] += 0.001;
  tf_sim_set_state(sim, x, NULL, n);
  tf_sim_get_forces(sim, f, n);
  double poke = v3_norm(f);
  TF_NOTE("net force: at rest %.2e N, rotated 1.9 rad %.2e N; a 1 mm poke %.2e N", worst[0],
          worst[1], poke);
  ENSURE(poke > 1.0);
  ENSURE(worst[0] < 1e-9 * poke && worst[1] < 1e-9 * poke);
  free(x), free(f);
  tf_sim_destroy(sim);
  tet_scene_free(&b);
}

/* block clamped at its bottom face, sheared (x += 0.3 z) and released without gravity */
static double tau_soft;
static void shear_material(tf_flesh_def *d) {
  d->gravity[2] = 0.0;
  d->youngs_modulus = 2000.0;
  d->poisson = 0.3;
  d->tau = tau_soft;
}

static double block_rest_time(double tau, double dt, int *monotone) {
  tet_scene b;
  tau_soft = tau;
  tf_sim *sim = make_block(&b, 3, 0.1, shear_material);
  if (!sim) return -1.0;
  uint32_t n = b.vert_count, pins[64];
  uint32_t pc = bottom_face(&b, pins);
  tf_sim_set_pins(sim, pins, NULL, pc);
  double *x = malloc(sizeof(double) * 3 * n);
  memcpy(x, b.pos, sizeof(double) * 3 * n);
  for (uint32_t i = 0; i < n; ++i) x[3 * i] += 0.3 * x[3 * i + 2];
  tf_sim_set_state(sim, x, NULL, n);
  double d0 = dist_d1(x, b.pos, n), dp = d0, rest = -1.0;
  *monotone = 1;
  int steps = (int)(40.0 / (tau * 100.0) / dt + 0.5);
  for (int k = 1; k <= steps && rest < 0; ++k) {
    if (tf_sim_advance(sim, dt, 1) != TF_OK) break;
    tf_sim_get_positions(sim, x, n);
    double d = dist_d1(x, b.pos, n);
    if (d > dp * (1.0 + 1e-9)) *monotone = 0;
    if (d < 0.01 * d0) rest = k * dt;
    dp = d;
  }
  free(x);
  tf_sim_destroy(sim);
  tet_scene_free(&b);
  return rest;
}

TF_TEST(flesh_tau_law_rest_time) {
  int m1, m2, m3;
  double t1 = block_rest_time(0.05, 0.005, &m1);
  double t2 = block_rest_time(0.1, 0.005, &m2);
  double t1h = block_rest_time(0.05, 0.0025, &m3);
  TF_NOTE(
      "sheared flesh block rest time: tau=0.05 %.3f s, tau=0.1 %.3f s (ratio %.3f); at dt/2 %.3f s "
      "(%.2f %%)",
      t1, t2, t1 / t2, t1h, 100.0 * (t1 - t1h) / t1h);
  ENSURE(t1 > 0 && t2 > 0 && t1h > 0);
  ENSURE(fabs(t1 / t2 - 2.0) < 0.2);
  ENSURE(fabs(t1 - t1h) < 0.05 * t1h);
  ENSURE_MSG(m1 && m2 && m3, "distance from rest increased at kappa = 0");
}

static tf_tet_element spin_element;
static void spin_free(tf_flesh_def *d) {
  d->tau = 0.05;
  d->element = spin_element;
}

static void momenta(const tf_sim *s, double com[3], double P[3], double *Lz, double *M) {
  const double *x = s->state.x, *v = s->state.v, *m = s->model.mass;
  *M = 0.0, *Lz = 0.0;
  for (int k = 0; k < 3; ++k) com[k] = P[k] = 0.0;
  for (uint32_t i = 0; i < s->model.n; ++i) *M += m[i];
  for (uint32_t i = 0; i < s->model.n; ++i)
    for (int k = 0; k < 3; ++k) com[k] += m[i] * x[3 * i + k] / *M, P[k] += m[i] * v[3 * i + k];
  for (uint32_t i = 0; i < s->model.n; ++i)
    *Lz += m[i] * ((x[3 * i] - com[0]) * v[3 * i + 1] - (x[3 * i + 1] - com[1]) * v[3 * i]);
}

TF_TEST(flesh_free_body_is_ballistic_and_keeps_momenta) {
  for (int e = 0; e < 2; ++e) {
    spin_element = e ? TF_TET_QUADRATIC : TF_TET_LINEAR;
    tet_scene b;
    tf_sim *sim = make_block(&b, 3, 0.2, spin_free);
    ENSURE(sim);
    uint32_t n = b.vert_count;
    double *x = malloc(sizeof(double) * 3 * n), *v = malloc(sizeof(double) * 3 * n);
    const double T = 0.5;
    const int N = 25;
    /* deformed (stretched along x) and spinning about z while flying */
    double c0[3] = {0.1, 0.1, 0.1}, v0[3] = {1.0, 0.0, 3.0}, w = 2.0;
    for (uint32_t i = 0; i < n; ++i) {
      double *p = x + 3 * i;
      memcpy(p, b.pos + 3 * i, sizeof(double) * 3);
      p[0] = c0[0] + 1.3 * (p[0] - c0[0]);
      v[3 * i] = v0[0] - w * (p[1] - c0[1]);
      v[3 * i + 1] = v0[1] + w * (p[0] - c0[0]);
      v[3 * i + 2] = v0[2];
    }
    ENSURE(tf_sim_set_state(sim, x, v, n) == TF_OK);
    /* over every node of the simulation (a quadratic tet's edge nodes are its own): centre of
   * mass, momentum and angular momentum about it */
    const double g[3] = {0, 0, -9.81};
    double M = 0.0, com0[3], P0[3], L0, com[3], P[3], L;
    momenta(sim, com0, P0, &L0, &M);
    ENSURE(tf_sim_advance(sim, T, N) == TF_OK);
    momenta(sim, com, P, &L, &M);
    /* the discrete parabola of the step (symplectic Euler of the centre of mass: V += dt g, c += dt
   * V) */
    const double dt = T / N;
    double want[3], dev = 0.0;
    for (int k = 0; k < 3; ++k) {
      want[k] = com0[k] + v0[k] * T + g[k] * dt * dt * N * (N + 1) / 2.0;
      dev = fmax(dev, fabs(com[k] - want[k]));
    }
    double dP = fmax(fabs(P[0] - M * v0[0]), fabs(P[2] - M * (v0[2] + g[2] * T)));
    TF_NOTE(
        "free %s flesh block after %.1f s: centre of mass off the parabola by %.2e m, momentum off "
        "by %.2e kg m/s, L_z %.6f -> %.6f",
        e ? "quadratic" : "linear", T, dev, dP, L0, L);
    ENSURE(dev < 1e-9);
    ENSURE(dP < 1e-9 * M);
    ENSURE(fabs(L - L0) < 1e-6 * fabs(L0));
    free(x), free(v);
    tf_sim_destroy(sim);
    tet_scene_free(&b);
  }
}

/* a block hanging from its top face under gravity; returns the relative volume change at
 * equilibrium and the largest residual force on a free vertex relative to its weight */
static double nu_hang, tau_hang;
static tf_tet_element element_hang;
static void hang_material(tf_flesh_def *d) {
  d->youngs_modulus = 10e3;
  d->poisson = nu_hang;
  d->tau = tau_hang;
  d->element = element_hang;
}

static double hanging_volume_change(double nu, double tau, double *residual, double *tip) {
  tet_scene b;
  nu_hang = nu, tau_hang = tau;
  tf_sim *sim = make_block(&b, 4, 0.2, hang_material);
  if (!sim) return -1.0;
  uint32_t n = b.vert_count, top[64], tc = 0;
  for (uint32_t i = 0; i < n; ++i)
    if (fabs(b.pos[3 * i + 2] - 0.2) < 1e-12) top[tc++] = i;
  tf_sim_set_pins(sim, top, NULL, tc);
  for (int f = 0; f < 200; ++f)
    if (tf_sim_advance(sim, 1.0 / 24.0, 1) != TF_OK) break;
  tf_flesh_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  tf_sim_flesh_info(sim, &info);
  double *f = malloc(sizeof(double) * 3 * n), *x = malloc(sizeof(double) * 3 * n);
  tf_sim_get_forces(sim, f, n);
  tf_sim_get_positions(sim, x, n);
  double worst = 0.0, weight = info.mass * 9.81 / n;
  for (uint32_t i = 0; i < n; ++i)
    if (fabs(b.pos[3 * i + 2] - 0.2) > 1e-12) worst = fmax(worst, v3_norm(f + 3 * i) / weight);
  *residual = worst;
  *tip = x[2] - b.pos[2]; /* vertex 0 is a bottom corner */
  free(f), free(x);
  tf_sim_destroy(sim);
  tet_scene_free(&b);
  return info.volume / info.rest_volume - 1.0;
}

TF_TEST(flesh_hanging_block_equilibrium_and_volume) {
  for (int e = 0; e < 2; ++e) {
    element_hang = e ? TF_TET_QUADRATIC : TF_TET_LINEAR;
    double r49, r30, r49b, tip49, tip30, tip49b;
    double dv49 = hanging_volume_change(0.49, 0.05, &r49, &tip49);
    double dv49b = hanging_volume_change(0.49, 0.5, &r49b, &tip49b);
    double dv30 = hanging_volume_change(0.3, 0.05, &r30, &tip30);
    TF_NOTE(
        "hanging block, %s (E 10 kPa, 1000 kg/m^3, 20 cm): volume change nu=0.49 %.3f %%, "
        "nu=0.3 %.3f %%; corner sag %.2f mm (tau 0.05) / %.2f mm (tau 0.5); residual force "
        "<= %.1e / %.1e of a vertex weight",
        e ? "quadratic" : "linear", 100 * dv49, 100 * dv30, -1e3 * tip49, -1e3 * tip49b, r49, r49b);
    ENSURE(fabs(dv49) < 0.02 && fabs(dv49b) < 0.02);
    ENSURE(fabs(dv30) > 3 * fabs(dv49));               /* the measure sees compressibility */
    ENSURE(tip49 < -0.005);                            /* it really sagged */
    ENSURE(fabs(tip49 - tip49b) < 1e-3 * fabs(tip49)); /* equilibrium does not depend on tau */
    ENSURE(r49 < 1e-3 && r49b < 1e-3);
  }
  element_hang = TF_TET_LINEAR;
}

/* squashed flat; a top corner pushed down through the block (the tets around it turned inside
 * out); a single tet mirrored: each recovers its rest volume with no tet left inverted */
TF_TEST(flesh_squashed_and_inverted_block_recovers) {
  for (int k = 0; k < 6; ++k) { /* the three cases with linear, then quadratic tets */
    const int c = k % 3;
    tet_scene b;
    tf_sim *sim = make_block(&b, c == 2 ? 1 : 3, 0.1, k < 3 ? no_gravity : no_gravity_quadratic);
    ENSURE(sim);
    uint32_t n = b.vert_count;
    double *x = malloc(sizeof(double) * 3 * n);
    memcpy(x, b.pos, sizeof(double) * 3 * n);
    if (c == 0)
      for (uint32_t i = 0; i < n; ++i) x[3 * i + 2] *= 1e-4;
    if (c == 1) x[3 * (n - 1) + 2] = -0.05; /* the corner (0.1, 0.1, 0.1) to below the bottom */
    if (c == 2) x[3 * (n - 1) + 2] = -0.1;  /* vertex 7 through the opposite faces */
    ENSURE(tf_sim_set_state(sim, x, NULL, n) == TF_OK);
    tf_flesh_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    tf_sim_flesh_info(sim, &info);
    uint32_t inverted0 = info.inverted_now;
    double v0 = info.volume;
    tf_status st = TF_OK;
    for (int f = 0; f < 48 && st == TF_OK; ++f) st = tf_sim_advance(sim, 1.0 / 24.0, 1);
    tf_sim_flesh_info(sim, &info);
    static const char *what[] = {"squashed flat", "corner pushed through", "mirrored cube"};
    TF_NOTE(
        "%s, %s: %u inverted tets, volume %.3g of rest -> after 2 s: %u inverted, volume %.4f of "
        "rest",
        k < 3 ? "linear" : "quadratic", what[c], inverted0, v0 / info.rest_volume,
        info.inverted_now, info.volume / info.rest_volume);
    ENSURE(st == TF_OK);
    if (c > 0) ENSURE(inverted0 > 0);
    ENSURE(info.inverted_now == 0);
    ENSURE(fabs(info.volume / info.rest_volume - 1.0) < 1e-3);
    free(x);
    tf_sim_destroy(sim);
    tet_scene_free(&b);
  }
}

/* a closed UV sphere of radius r */
static uint32_t sphere(double r, int nu, int nv, double **pos, uint32_t **tris) {
  uint32_t n = 2 + (uint32_t)(nu * (nv - 1)), nt = (uint32_t)(2 * nu * (nv - 1));
  *pos = malloc(sizeof(double) * 3 * n);
  *tris = malloc(sizeof(uint32_t) * 3 * nt);
  double *p = *pos;
  v3_set(p, 0, 0, -r);
  v3_set(p + 3, 0, 0, r);
  for (int j = 1; j < nv; ++j)
    for (int i = 0; i < nu; ++i) {
      double th = TF_PI * j / nv - TF_PI / 2, ph = 2 * TF_PI * i / nu;
      v3_set(p + 3 * (2 + (j - 1) * nu + i), r * cos(th) * cos(ph), r * cos(th) * sin(ph),
             r * sin(th));
    }
  uint32_t t = 0, *q = *tris;
#define RING(j, i) (2u + (uint32_t)(((j)-1) * nu + ((i) % nu)))
  for (int i = 0; i < nu; ++i) {
    q[3 * t] = 0, q[3 * t + 1] = RING(1, i + 1), q[3 * t + 2] = RING(1, i), ++t;
    q[3 * t] = 1, q[3 * t + 1] = RING(nv - 1, i), q[3 * t + 2] = RING(nv - 1, i + 1), ++t;
  }
  for (int j = 1; j < nv - 1; ++j)
    for (int i = 0; i < nu; ++i) {
      q[3 * t] = RING(j, i), q[3 * t + 1] = RING(j, i + 1), q[3 * t + 2] = RING(j + 1, i + 1), ++t;
      q[3 * t] = RING(j, i), q[3 * t + 1] = RING(j + 1, i + 1), q[3 * t + 2] = RING(j + 1, i), ++t;
    }
#undef RING
  return n | (nt << 16);
}

TF_TEST(flesh_from_surface_embeds_it_and_weighs_its_volume) {
  double *sp;
  uint32_t *st;
  uint32_t packed = sphere(0.1, 24, 12, &sp, &st), sn = packed & 0xffff, stc = packed >> 16;
  tf_flesh_def def;
  tf_flesh_def_init(&def);
  def.surface_positions = sp;
  def.surface_vert_count = sn;
  def.surface_triangles = st;
  def.surface_tri_count = stc;
  def.lattice_cells = 8;
  tf_sim *sim = NULL;
  char err[256];
  ENSURE_MSG(tf_flesh_create(&def, &sim, err, sizeof err) == TF_OK, "%s", err);
  tf_flesh_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  ENSURE(tf_sim_flesh_info(sim, &info) == TF_OK);
  double vol = 0.0;
  for (uint32_t t = 0; t < stc; ++t) {
    double c[3];
    const double *a = sp + 3 * st[3 * t], *b = sp + 3 * st[3 * t + 1], *d = sp + 3 * st[3 * t + 2];
    c[0] = b[1] * d[2] - b[2] * d[1], c[1] = b[2] * d[0] - b[0] * d[2],
    c[2] = b[0] * d[1] - b[1] * d[0];
    vol += (a[0] * c[0] + a[1] * c[1] + a[2] * c[2]) / 6.0;
  }
  TF_NOTE(
      "sphere r=10 cm, 8 cells: %u tets, dihedral %.1f-%.1f deg, %u inverted; lattice volume %.2f "
      "x the sphere's; "
      "mass %.3f kg (rho V = %.3f kg); %u surface points outside",
      info.tet_count, info.min_dihedral_deg, info.max_dihedral_deg, info.inverted_rest,
      info.rest_volume / vol, info.mass, 1000 * vol, info.surface_outside);
  ENSURE(info.inverted_rest == 0 && info.tet_count > 100);
  ENSURE(fabs(info.mass - 1000 * vol) < 1e-9 * info.mass);
  ENSURE(info.surface_outside == 0);
  ENSURE(tf_sim_surface_vert_count(sim) == sn);
  /* at rest the surface comes back as given; moved rigidly it follows rigidly */
  uint32_t n = tf_sim_vert_count(sim);
  double *rest = malloc(sizeof(double) * 3 * n), *x = malloc(sizeof(double) * 3 * n),
         *s = malloc(sizeof(double) * 3 * sn), *want = malloc(sizeof(double) * 3 * sn);
  ENSURE(tf_sim_get_surface_positions(sim, s, sn) == TF_OK);
  double e0 = 0.0, e1 = 0.0;
  for (uint32_t k = 0; k < 3 * sn; ++k) e0 = fmax(e0, fabs(s[k] - sp[k]));
  ENSURE(tf_sim_get_rest_positions(sim, rest, n) == TF_OK);
  const double axis[3] = {1, 1, 0}, shift[3] = {0.5, 0, 0.2};
  rigid_motion(rest, (int)n, axis, 0.7, shift, x);
  rigid_motion(sp, (int)sn, axis, 0.7, shift, want);
  ENSURE(tf_sim_set_state(sim, x, NULL, n) == TF_OK);
  ENSURE(tf_sim_get_surface_positions(sim, s, sn) == TF_OK);
  for (uint32_t k = 0; k < 3 * sn; ++k) e1 = fmax(e1, fabs(s[k] - want[k]));
  TF_NOTE("embedded surface: at rest off by %.1e m, after a rigid motion by %.1e m", e0, e1);
  ENSURE(e0 < 1e-12 && e1 < 1e-12);
  ENSURE(tf_sim_get_surface_positions(sim, s, sn - 1) == TF_E_INVALID_ARG);
  free(rest), free(x), free(s), free(want), free(sp), free(st);
  tf_sim_destroy(sim);
}

TF_TEST(flesh_bad_input_names_the_problem) {
  tet_scene b;
  scene_block(&b, 1, 1, 1, 1, 1, 1);
  tf_flesh_def def;
  char err[256];
  tf_sim *sim = (tf_sim *)&def;
  struct {
    const char *want;
    tf_status st;
  } cases[] = {{"poisson must be in (-1, 0.5)", TF_E_INVALID_ARG},
               {"out of range", TF_E_BAD_MESH},
               {"tet_materials[2] = 3", TF_E_INVALID_ARG},
               {"give tets", TF_E_INVALID_ARG},
               {"lattice_cells", TF_E_INVALID_ARG},
               {"materials is NULL", TF_E_INVALID_ARG},
               {"wound inward", TF_E_BAD_MESH}};
  double *sp;
  uint32_t *stri;
  uint32_t packed = sphere(0.1, 12, 6, &sp, &stri), stc = packed >> 16;
  for (uint32_t t = 0; t < stc; ++t) { /* wound inward */
    uint32_t k = stri[3 * t + 1];
    stri[3 * t + 1] = stri[3 * t + 2], stri[3 * t + 2] = k;
  }
  for (int c = 0; c < 7; ++c) {
    scene_flesh_def(&b, &def);
    uint32_t mats[6] = {0, 1, 3, 0, 0, 0};
    tf_flesh_material table[1] = {{1e4, 0.4, 900}};
    if (c == 0) def.poisson = 0.5;
    if (c == 1) b.tets[5] = 99;
    if (c == 2) def.tet_materials = mats, def.materials = table, def.material_count = 1;
    if (c == 3) def.tets = NULL;
    if (c == 4)
      def.tets = NULL, def.surface_positions = b.pos, def.surface_vert_count = 8,
      def.lattice_cells = 1;
    if (c == 5) def.material_count = 1;
    if (c == 6) {
      def.tets = NULL, def.surface_positions = sp, def.surface_vert_count = packed & 0xffff;
      def.surface_triangles = stri, def.surface_tri_count = stc;
    }
    tf_status st = tf_flesh_create(&def, &sim, err, sizeof err);
    if (c == 1) b.tets[5] = 1;
    TF_NOTE("case %d: %s: %s", c, tf_status_name(st), err);
    ENSURE(st == cases[c].st && sim == NULL);
    ENSURE_MSG(strstr(err, cases[c].want), "'%s' does not say '%s'", err, cases[c].want);
  }
  /* cloth-only parameters are refused and change nothing */
  scene_flesh_def(&b, &def);
  ENSURE(tf_flesh_create(&def, &sim, err, sizeof err) == TF_OK);
  double k = 5.0, nu = 0.5, before, after;
  ENSURE(tf_sim_set_param(sim, TF_PARAM_STRETCH_STIFFNESS, &k, 1) == TF_E_UNSUPPORTED);
  ENSURE(strstr(tf_sim_last_error(sim), "stretch_stiffness is a cloth parameter"));
  tf_sim_get_param(sim, TF_PARAM_POISSON, &before, 1);
  ENSURE(tf_sim_set_param(sim, TF_PARAM_POISSON, &nu, 1) == TF_E_INVALID_ARG);
  tf_sim_get_param(sim, TF_PARAM_POISSON, &after, 1);
  ENSURE(before == after);
  ENSURE(tf_sim_set_param(sim, TF_PARAM_YOUNGS_MODULUS, &k, 1) == TF_OK);
  double s3[3];
  ENSURE(tf_sim_get_surface_positions(sim, s3, 1) == TF_E_UNSUPPORTED);
  /* its triangles are the tets' boundary: a block of 1 cube has 12 */
  uint32_t tris[36];
  ENSURE(tf_sim_tri_count(sim) == 12);
  ENSURE(tf_sim_get_triangles(sim, tris, 11) == TF_E_INVALID_ARG);
  ENSURE(strstr(tf_sim_last_error(sim), "wrong tri_count"));
  ENSURE(tf_sim_get_triangles(sim, tris, 12) == TF_OK);
  for (int j = 0; j < 36; ++j) ENSURE(tris[j] < 8);
  tf_sim_destroy(sim);
  tet_scene_free(&b);
  free(sp), free(stri);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

/* tet files through the public API: Gmsh with named regions mapped to materials, TetGen by either
 * file name, an unknown suffix and a malformed file (named with its line) */
TF_TEST(flesh_tet_files_through_the_api) {
  const char *tmp = getenv("TMPDIR");
  char dir[256], msh[300], node[300], ele[300], bad[300], err[512];
  snprintf(dir, sizeof dir, "%s/tf_flesh_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  ENSURE(mkdtemp(dir));
  snprintf(msh, sizeof msh, "%s/two.msh", dir);
  snprintf(node, sizeof node, "%s/two.node", dir);
  snprintf(ele, sizeof ele, "%s/two.ele", dir);
  snprintf(bad, sizeof bad, "%s/bad.msh", dir);
  write_text(
      msh,
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n3 11 \"fat\"\n3 12 \"muscle\"\n"
      "$EndPhysicalNames\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n$EndNodes\n"
      "$Elements\n2\n1 4 2 11 1 1 2 3 4\n2 4 2 12 1 2 3 4 5\n$EndElements\n");
  write_text(node, "5 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 1 1 1\n");
  write_text(ele, "2 4 0\n0 0 1 2 3\n1 1 2 3 4\n");
  write_text(bad, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n2\n1 0 0 zero\n");
  tf_tetmesh *m = NULL;
  ENSURE_MSG(tf_tetmesh_load(msh, &m, err, sizeof err) == TF_OK, "%s", err);
  tf_tetmesh_view v;
  memset(&v, 0, sizeof v);
  v.struct_size = sizeof v;
  ENSURE(tf_tetmesh_get(m, &v) == TF_OK);
  ENSURE(v.vert_count == 5 && v.tet_count == 2 && v.regions[0] == 11 && v.regions[1] == 12);
  ENSURE(!strcmp(tf_tetmesh_region_name(m, 12), "muscle") && tf_tetmesh_region_name(m, 5) == NULL);
  /* regions to materials: fat is the base, muscle 10x stiffer and denser */
  uint32_t mats[2] = {0, 1};
  tf_flesh_material muscle = {500e3, 0.45, 1100};
  tf_flesh_def def;
  tf_flesh_def_init(&def);
  def.rest_positions = v.positions, def.vert_count = v.vert_count, def.tets = v.tets,
  def.tet_count = v.tet_count;
  def.tet_materials = mats, def.materials = &muscle, def.material_count = 1;
  def.density = 900;
  tf_sim *sim = NULL;
  ENSURE_MSG(tf_flesh_create(&def, &sim, err, sizeof err) == TF_OK, "%s", err);
  tf_flesh_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  ENSURE(tf_sim_flesh_info(sim, &info) == TF_OK);
  /* the unit corner tet (1/6 m^3) is fat, the other (1/3 m^3) muscle */
  ENSURE(fabs(info.mass - (900 / 6.0 + 1100 / 3.0)) < 1e-9 && info.tet_count == 2 &&
         info.inverted_rest == 0);
  tf_sim_destroy(sim);
  /* the same regions on quadratic tets: the same mass, spread over the edge nodes too */
  def.element = TF_TET_QUADRATIC;
  ENSURE_MSG(tf_flesh_create(&def, &sim, err, sizeof err) == TF_OK, "%s", err);
  ENSURE(tf_sim_flesh_info(sim, &info) == TF_OK);
  ENSURE(fabs(info.mass - (900 / 6.0 + 1100 / 3.0)) < 1e-9 && info.node_count == 5 + 9);
  tf_sim_destroy(sim);
  tf_tetmesh_destroy(m);
  /* TetGen, by the .ele and the .face name */
  ENSURE_MSG(tf_tetmesh_load(ele, &m, err, sizeof err) == TF_OK, "%s", err);
  ENSURE(tf_tetmesh_get(m, &v) == TF_OK && v.tet_count == 2 && v.tets[7] == 4);
  tf_tetmesh_destroy(m);
  char face[300];
  snprintf(face, sizeof face, "%s/two.face", dir);
  ENSURE_MSG(tf_tetmesh_load(face, &m, err, sizeof err) == TF_OK, "%s", err);
  tf_tetmesh_destroy(m);
  ENSURE(tf_tetmesh_load("body.obj", &m, err, sizeof err) == TF_E_INVALID_ARG && m == NULL);
  ENSURE(strstr(err, "body.obj: unknown tet mesh format"));
  ENSURE(tf_tetmesh_load(bad, &m, err, sizeof err) == TF_E_BAD_MESH && m == NULL);
  char where[320];
  snprintf(where, sizeof where, "%s:6:", bad);
  TF_NOTE("%s", err);
  ENSURE_MSG(strstr(err, where), "'%s' does not name %s", err, where);
  remove(msh), remove(node), remove(ele), remove(bad), rmdir(dir);
}

/* wind on flesh acts on its boundary faces, windward side only (a closed body): a free cube at
 * rest in a 10 m/s wind gains in one step the momentum dt x 1/2 rho c_d A U^2 of its front face,
 * along the flow, head-on and at 45 degrees (two faces, each cos 45) */
TF_TEST(flesh_wind_pushes_the_windward_faces) {
  for (int c = 0; c < 4; ++c) { /* head-on, at 45 degrees; linear, then quadratic tets */
    tet_scene b;
    tf_sim *sim = make_block(&b, 2, 0.2, c < 2 ? no_gravity : no_gravity_quadratic);
    ENSURE(sim);
    const double U = 10.0, rho = 1.225, cd = 1.2, dt = 0.01;
    double wind[3] = {c % 2 ? U / sqrt(2.0) : U, c % 2 ? U / sqrt(2.0) : 0.0, 0.0};
    ENSURE(tf_sim_set_param(sim, TF_PARAM_WIND, wind, 3) == TF_OK);
    ENSURE(tf_sim_set_param(sim, TF_PARAM_AIR_DENSITY, &rho, 1) == TF_OK);
    ENSURE(tf_sim_advance(sim, dt, 1) == TF_OK);
    /* every node's momentum (the quadratic tet's edge nodes carry most of the mass) */
    double P[3] = {0, 0, 0};
    for (uint32_t i = 0; i < sim->model.n; ++i)
      for (int k = 0; k < 3; ++k) P[k] += sim->model.mass[i] * sim->state.v[3 * (size_t)i + k];
    double want = dt * 0.5 * rho * cd * 0.2 * 0.2 * U * U,
           got = sqrt(P[0] * P[0] + P[1] * P[1] + P[2] * P[2]);
    double along = (P[0] * wind[0] + P[1] * wind[1]) / (U * got);
    TF_NOTE(
        "cube in wind %s: momentum after one step %.6g N s (1/2 rho c_d A U^2 dt = %.6g), along "
        "the flow %.6f",
        c % 2 ? "at 45 degrees" : "head-on", got, want, along);
    ENSURE(fabs(got - want) < 1e-6 * want);
    ENSURE(along > 1.0 - 1e-9);
    tf_sim_destroy(sim);
    tet_scene_free(&b);
  }
}
