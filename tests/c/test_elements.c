/* SPDX-License-Identifier: MIT
 * Element sets (sim/elements/): the objective is nothing but the sum of its sets plus inertia, and
 * every set's gradient is the derivative of its energy, checked through the generic interface
 * (ops->eval) on a deformed cloth (membrane, hinge or shell, soft pins, drag with air) and a deformed
 * flesh block (tets, soft pins, drag). A set whose kernel and energy disagree, or a set left out of
 * the objective's loop, fails here. */
#include <math.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "scenes.h"
#include "sim/sim.h"
#include "tf_test.h"

static double urand(unsigned *seed) {
  *seed = *seed * 1664525u + 1013904223u;
  return (double)(*seed >> 8) / (double)(1u << 24) - 0.5;
}

/* deform the state, soft-pin some vertices, give the drag a step context */
static tf_status deform(tf_sim *s, unsigned seed, double amp) {
  uint32_t n = s->model.n;
  for (size_t k = 0; k < 3 * (size_t)n; ++k) {
    s->state.x[k] = s->model.rest[k] + amp * urand(&seed);
    s->state.v[k] = urand(&seed);
  }
  uint32_t idx[3] = {0, n / 2, n - 1};
  double w[3] = {0.5, 0.9, 0.2};
  pins_set(s, idx, w, 3);
  for (size_t k = 0; k < 9; ++k) s->pins.sub[k] = s->state.x[3 * idx[k / 3] + k % 3] + 0.05;
  double air[3] = {1.2, 0, 0}, wind[3] = {3.0, 1.0, -2.0};
  double *field = (double *)&s->par.air_density;
  tf_status st = sim_set_param(s, TF_PARAM_AIR_DENSITY, field, air, 1);
  memcpy(s->par.wind, wind, sizeof wind);
  s->work.dt = 1.0 / 48;
  s->drag->on = 1;
  memset(s->work.f, 0, sizeof(double) * 3 * n);
  elem_drag_forces(s, s->drag, s->state.x, s->state.v, 0.0, s->work.f);
  for (size_t k = 0; k < 3 * (size_t)n; ++k)
    s->drag->ydrag[k] = s->state.x[k] + s->work.dt * s->state.v[k];
  return st;
}

static double set_energy(const tf_sim *s, const elem_set *set, const double *y, double *grad) {
  double E = 0.0;
  elem_args a = {s->pins.sub};
  if (grad) memset(grad, 0, sizeof(double) * 3 * s->model.n);
  set->ops->eval(s, set->data, &a, y, &E, grad, NULL);
  return E;
}

/* central differences of each set's energy along random directions against its gradient */
static void check_sets(int *tf_failed_, tf_sim *s, double h, int expect_sets) {
  uint32_t n = s->model.n;
  size_t m = 3 * (size_t)n;
  double *g = calloc(m, sizeof *g), *y = calloc(m, sizeof *y), *d = calloc(m, sizeof *d);
  unsigned seed = 7;
  ENSURE((int)s->set_count == expect_sets);
  double total = 0.0;
  for (uint32_t k = 0; k < s->set_count; ++k) {
    const elem_set *set = &s->sets[k];
    double E = set_energy(s, set, s->state.x, g);
    ENSURE(isfinite(E) && E > 0.0); /* every set is active in these scenes */
    total += E;
    for (int trial = 0; trial < 4; ++trial) {
      double gd = 0.0;
      for (size_t j = 0; j < m; ++j) gd += g[j] * (d[j] = urand(&seed));
      for (size_t j = 0; j < m; ++j) y[j] = s->state.x[j] + h * d[j];
      double ep = set_energy(s, set, y, NULL);
      for (size_t j = 0; j < m; ++j) y[j] = s->state.x[j] - h * d[j];
      double em = set_energy(s, set, y, NULL);
      double fd = (ep - em) / (2.0 * h);
      ENSURE_MSG(fabs(fd - gd) <= 1e-5 * (fabs(gd) + 1e-6 * fabs(E) + 1e-12),
                 "set %s: directional derivative %.9g, finite difference %.9g", set->ops->name, gd,
                 fd);
    }
  }
  /* the objective's sets are exactly these: the step objective minus inertia and f.y */
  s->work.h2 = 1e300; /* inertia vanishes */
  memset(s->work.f, 0, sizeof(double) * m);
  double Eobj = sim_step_eval(s, s->state.x, NULL, NULL);
  ENSURE(fabs(Eobj - total) <= 1e-9 * fabs(total));
  free(g), free(y), free(d);
}

TF_TEST(elements_cloth_sets_gradients_match_their_energies) {
  scene sc;
  const double O[3] = {0, 0, 0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0};
  scene_grid(&sc, 8, 8, 1.0, 1.0, O, EX, EY, 0);
  tf_cloth_def def;
  scene_def(&sc, &def);
  def.bend_stiffness = 1e-3;
  tf_sim *s = NULL;
  ENSURE(tf_cloth_create(&def, &s, NULL, 0) == TF_OK);
  ENSURE(deform(s, 3, 0.05) == TF_OK);
  /* the default bending is the shell's (1.7 on) */
  ENSURE(!strcmp(s->sets[0].ops->name, "membrane") && !strcmp(s->sets[1].ops->name, "shell"));
  ENSURE(s->shell && !s->hinge);
  check_sets(tf_failed_, s, 1e-6, 4);
  tf_sim_destroy(s);
  /* the same cloth with hinge bending: its set stands where the shell stood */
  def.bend_model = TF_BEND_HINGE;
  ENSURE(tf_cloth_create(&def, &s, NULL, 0) == TF_OK);
  ENSURE(deform(s, 3, 0.05) == TF_OK);
  ENSURE(!strcmp(s->sets[1].ops->name, "hinge") && s->hinge && !s->shell);
  check_sets(tf_failed_, s, 1e-6, 4);
  tf_sim_destroy(s);
  scene_free(&sc);
}

TF_TEST(elements_cloth_def_before_1_7_keeps_the_hinge) {
  /* a host built against a header before 1.7 passes a def that ends before bend_model: it gets
   * the bending it was built with, whatever the shorter def's bytes beyond it hold */
  scene sc;
  const double O[3] = {0, 0, 0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0};
  scene_grid(&sc, 4, 4, 1.0, 1.0, O, EX, EY, 0);
  tf_cloth_def def;
  scene_def(&sc, &def);
  def.bend_model = TF_BEND_SHELL;
  def.struct_size = (uint32_t)offsetof(tf_cloth_def, bend_model);
  tf_sim *s = NULL;
  ENSURE(tf_cloth_create(&def, &s, NULL, 0) == TF_OK);
  ENSURE(s->hinge && !s->shell);
  tf_sim_destroy(s);
  def.struct_size = (uint32_t)sizeof def;
  ENSURE(tf_cloth_create(&def, &s, NULL, 0) == TF_OK);
  ENSURE(s->shell && !s->hinge);
  tf_sim_destroy(s);
  scene_free(&sc);
}

TF_TEST(elements_flesh_sets_gradients_match_their_energies) {
  tet_scene b;
  scene_block(&b, 3, 3, 3, 0.3, 0.3, 0.3);
  tf_flesh_def def;
  scene_flesh_def(&b, &def);
  tf_sim *s = NULL;
  ENSURE(tf_flesh_create(&def, &s, NULL, 0) == TF_OK);
  ENSURE(deform(s, 5, 0.01) == TF_OK);
  ENSURE(!strcmp(s->sets[0].ops->name, "tet") && s->flesh && !s->membrane && !s->hinge);
  check_sets(tf_failed_, s, 1e-7, 3);
  tf_sim_destroy(s);
  tet_scene_free(&b);
}
