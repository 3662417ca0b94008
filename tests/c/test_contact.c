/* SPDX-License-Identifier: MIT
 * Contact (issue 16): cloth against colliders and the ground. Every check of "never crosses" is
 * made with the independent exact test of intersect_check.c (no code shared with geom/): no
 * cloth edge crosses a collider triangle and no collider edge crosses a cloth triangle at the end
 * of any frame, and no cloth vertex is inside a closed collider (its inscribed radius). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact_scenes.h"
#include "scenes.h"
#include "tf_test.h"

typedef struct check {
  long crossings;
  uint32_t inside; /* vertices within the sphere's inscribed radius */
  double min_clear; /* smallest distance from the centre minus the sphere's radius */
} check;

static void check_frame(const scene *sc, const double *x, const body *b, const double c[3], double r, check *out) {
  long cr = cloth_body_crossings(sc, x, b, NULL);
  if (cr > out->crossings) out->crossings = cr;
  for (uint32_t i = 0; i < sc->vert_count; ++i) {
    const double *p = x + 3 * i;
    double d = sqrt((p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) + (p[2] - c[2]) * (p[2] - c[2]));
    if (d < b->inner) out->inside++;
    if (d - r < out->min_clear) out->min_clear = d - r;
  }
}

/* a 1 m sheet of n x n cells dropped from 0.2 m above a 0.3 m sphere, the ground below */
static tf_sim *drape(scene *sc, body *b, int n, double tau, double *sphere_c, double *sphere_r) {
  const double O[3] = {-0.5, -0.5, 0.5}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0}, C[3] = {0, 0, 0};
  scene_grid(sc, (uint32_t)n, (uint32_t)n, 1.0, 1.0, O, EX, EY, 0);
  body_sphere(b, C, 0.3, 16, 32);
  memcpy(sphere_c, C, sizeof C);
  *sphere_r = 0.3;
  tf_cloth_def def;
  scene_def(sc, &def);
  def.tau = tau;
  def.stretch_stiffness = 2000;
  def.bend_stiffness = 1e-5;
  def.density = 0.2;
  tf_sim *sim = NULL;
  if (tf_cloth_create(&def, &sim, NULL, 0) != TF_OK) return NULL;
  uint32_t id;
  if (body_add(sim, b, 0.002, getenv("TF_MU") ? atof(getenv("TF_MU")) : 0.3, &id) != TF_OK) return tf_sim_destroy(sim), NULL;
  double gn[3] = {0, 0, 1}, gh = -0.35;
  tf_sim_set_param(sim, TF_PARAM_GROUND_NORMAL, gn, 3);
  tf_sim_set_param(sim, TF_PARAM_GROUND_HEIGHT, &gh, 1);
  return sim;
}

TF_TEST(contact_sheet_drapes_on_sphere_never_crossing) {
  scene sc;
  body b;
  double c[3], r;
  tf_sim *sim = drape(&sc, &b, 16, 0.1, c, &r);
  ENSURE(sim);
  double *x = malloc(3 * sc.vert_count * sizeof *x);
  check ck = {0, 0, INFINITY};
  tf_stats st = {.struct_size = sizeof st};
  for (int f = 0; f < 48; ++f) {
    tf_status s = tf_sim_advance(sim, 1.0 / 24, 2);
    ENSURE_MSG(s == TF_OK, "frame %d: %s", f, tf_sim_last_error(sim));
    tf_sim_get_positions(sim, x, sc.vert_count);
    check_frame(&sc, x, &b, c, r, &ck);
    tf_sim_get_stats(sim, &st);
    double zmin = INFINITY;
    for (uint32_t i = 0; i < sc.vert_count; ++i) zmin = fmin(zmin, x[3 * i + 2]);
    if (getenv("TF_TRACE")) fprintf(stderr, "zmin %.6f ", zmin);
    if (getenv("TF_TRACE"))
      fprintf(stderr, "frame %2d: z0 %.4f newton %u cg %u contacts %u pairs %u cuts %u dmin %.3g ms %.1f (contact %.1f)\n",
              f, x[3 * (sc.vert_count / 2) + 2], st.newton_iterations, st.cg_iterations, st.contacts,
              st.broad_pairs, st.ccd_cuts, st.min_distance, 1e3 * st.seconds, 1e3 * st.contact_seconds);
  }
  ENSURE_MSG(ck.crossings == 0 && ck.inside == 0, "%ld crossings, %u vertices inside", ck.crossings, ck.inside);
  /* it rests on the sphere: the centre vertex just above the top, within the gap */
  double top = x[3 * (sc.vert_count / 2) + 2] - r;
  ENSURE_MSG(top > 0.0 && top < 0.004 * 1.1 + 0.01, "centre vertex %.4g m above the sphere", top);
  free(x);
  tf_sim_destroy(sim);
  body_free(&b);
  scene_free(&sc);
}

#include "sim/sim.h"
#include "contact/contact.h"

/* the barrier and friction sets' gradients against central differences of their energies, in a
 * real contact state (a sheet pressed onto the sphere) */
TF_TEST(contact_sets_gradients_match_energies) {
  scene sc;
  body b;
  double c[3], r;
  tf_sim *sim = drape(&sc, &b, 12, 0.1, c, &r);
  ENSURE(sim);
  for (int f = 0; f < 6; ++f) ENSURE(tf_sim_advance(sim, 1.0 / 24, 2) == TF_OK);
  tf_sim *s = sim;
  size_t m = 3 * (size_t)s->model.n;
  double *g = calloc(m, sizeof *g), *y = calloc(m, sizeof *y), *dd = calloc(m, sizeof *dd);
  /* a state in contact: the current one, candidates from it, friction lagged at it */
  memcpy(y, s->state.x, m * sizeof *y);
  for (size_t k = 0; k < m; ++k) y[k] -= 0.0003 * (k % 3 == 2); /* pressed 0.3 mm further in */
  s->work.dt = 1.0 / 48;
  ENSURE(contact_candidates(s, s->state.x, y, 0) == TF_OK);
  contact_lag_friction(s, s->state.x, s->work.dt);
  ENSURE(s->contact->pair_count > 0 && s->contact->fric_count > 0);
  unsigned seed = 1;
  for (uint32_t k = 0; k < s->set_count; ++k) {
    const elem_set *set = &s->sets[k];
    if (strcmp(set->ops->name, "barrier") && strcmp(set->ops->name, "friction")) continue;
    elem_args a = {s->pins.sub};
    double E = 0.0;
    memset(g, 0, m * sizeof *g);
    set->ops->eval(s, set->data, &a, y, &E, g, NULL);
    ENSURE(E > 0.0);
    for (int trial = 0; trial < 6; ++trial) {
      double gd = 0.0, h = 1e-8;
      for (size_t j = 0; j < m; ++j) {
        seed = seed * 1664525u + 1013904223u;
        dd[j] = (double)(seed >> 8) / (1 << 24) - 0.5;
        gd += g[j] * dd[j];
      }
      double ep = 0.0, em = 0.0, *yp = malloc(m * sizeof *yp);
      for (size_t j = 0; j < m; ++j) yp[j] = y[j] + h * dd[j];
      set->ops->eval(s, set->data, &a, yp, &ep, NULL, NULL);
      for (size_t j = 0; j < m; ++j) yp[j] = y[j] - h * dd[j];
      set->ops->eval(s, set->data, &a, yp, &em, NULL, NULL);
      free(yp);
      double fd = (ep - em) / (2 * h);
      ENSURE_MSG(fabs(fd - gd) <= 1e-4 * fabs(gd) + 1e-9, "set %s: gradient . d %.9g, finite difference %.9g",
                 set->ops->name, gd, fd);
    }
  }
  free(g), free(y), free(dd);
  tf_sim_destroy(sim);
  body_free(&b);
  scene_free(&sc);
}
