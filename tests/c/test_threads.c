/* SPDX-License-Identifier: MIT
 * Threads (tf_cloth_def.threads, tf_flesh_def.threads; core/pool.h): a simulation's results are
 * bitwise the same on 1, 2, 3 and 8 threads, for cloth (shell and hinge bending, multigrid on),
 * cloth in turbulent wind, cloth falling on a sphere and the ground with self-contact (the
 * candidates' loops, contact/blocks.c), and flesh with linear and quadratic tets; a def from
 * before 1.10 runs on one thread; a thread count past the limit is refused. (test_memory: the
 * threaded step allocates nothing.) */
#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "contact_scenes.h"
#include "scenes.h"
#include "tf_test.h"

static const uint32_t THREAD_COUNTS[] = {1, 2, 3, 8};
enum { RUNS = sizeof THREAD_COUNTS / sizeof THREAD_COUNTS[0] };

/* the positions after frames of 1/24 s, and the Newton iterations they took */
typedef struct run_out {
  double *x;
  uint32_t n, newton;
  int ok;
} run_out;

static void advance_frames(tf_sim *sim, int frames, run_out *o) {
  o->ok = 1;
  tf_stats st;
  for (int f = 0; f < frames && o->ok; ++f) {
    o->ok = tf_sim_advance(sim, 1.0 / 24.0, 1) == TF_OK;
    if (!o->ok) fprintf(stderr, "  frame %d: %s\n", f, tf_sim_last_error(sim));
    st.struct_size = sizeof st;
    tf_sim_get_stats(sim, &st);
    o->newton += st.newton_iterations;
  }
  o->x = malloc(sizeof(double) * 3 * o->n);
  tf_sim_get_positions(sim, o->x, o->n);
}

/* a 48 x 48 sheet (2401 vertices: the multigrid with two smoother blocks on its finest level,
 * five row blocks of the product, several element blocks per colour) hanging from its top row,
 * released 40 degrees out of the vertical; wind > 0 blows across it with gusting turbulence */
static run_out cloth_run(uint32_t threads, tf_bend_model bend, double wind) {
  static const double O[3] = {0, 0, 1}, EX[3] = {1, 0, 0}, ED[3] = {0, 0.6427876, -0.7660444};
  scene sc;
  scene_grid(&sc, 48, 48, 1.0, 1.0, O, EX, ED, 1);
  tf_cloth_def def;
  scene_def(&sc, &def);
  def.tau = 0.3;
  def.bend_stiffness = 1e-4;
  def.bend_model = bend;
  def.stretch_stiffness = 2000.0;
  def.threads = threads;
  run_out o = {NULL, sc.vert_count, 0, 0};
  tf_sim *sim = NULL;
  if (tf_cloth_create(&def, &sim, NULL, 0) != TF_OK) return o;
  if (tf_sim_set_pins(sim, sc.pins, NULL, sc.pin_count) != TF_OK) return tf_sim_destroy(sim), o;
  if (wind > 0.0) {
    double w[3] = {2.0, wind, 0.0}, rho = 1.225, turb = 2.0, gust = 0.5;
    tf_sim_set_param(sim, TF_PARAM_AIR_DENSITY, &rho, 1);
    tf_sim_set_param(sim, TF_PARAM_WIND, w, 3);
    tf_sim_set_param(sim, TF_PARAM_TURBULENCE, &turb, 1);
    tf_sim_set_param(sim, TF_PARAM_GUST, &gust, 1);
  }
  advance_frames(sim, 6, &o);
  tf_sim_destroy(sim);
  scene_free(&sc);
  return o;
}

/* a 5 x 5 x 10 block of tets (a beam; quadratic: 2.6k nodes, two smoother blocks) clamped at one
 * end, sagging and swinging */
static run_out flesh_run(uint32_t threads, tf_tet_element element) {
  tet_scene ts;
  scene_block(&ts, 5, 5, 10, 0.05, 0.05, 0.05);
  tf_flesh_def def;
  scene_flesh_def(&ts, &def);
  def.youngs_modulus = 2e4;
  def.tau = 0.2;
  def.element = element;
  def.threads = threads;
  run_out o = {NULL, ts.vert_count, 0, 0};
  tf_sim *sim = NULL;
  if (tf_flesh_create(&def, &sim, NULL, 0) != TF_OK) return o;
  /* clamp the k = 0 face, tilt gravity so the beam bends sideways as well */
  uint32_t *pins = malloc(sizeof *pins * 36);
  uint32_t np = 0;
  for (uint32_t j = 0; j <= 5; ++j)
    for (uint32_t i = 0; i <= 5; ++i) pins[np++] = j * 6 + i;
  double g[3] = {0.0, 3.0, -9.81};
  tf_sim_set_param(sim, TF_PARAM_GRAVITY, g, 3);
  if (tf_sim_set_pins(sim, pins, NULL, np) == TF_OK) advance_frames(sim, 4, &o);
  free(pins);
  tf_sim_destroy(sim);
  tet_scene_free(&ts);
  return o;
}

/* a 1 m sheet (30 x 30) dropped off-centre on a sphere (r 0.25 m) above the ground, friction and
 * self-contact on: thousands of candidates, several of contact/blocks.c's blocks of 2048 */
static run_out drape_run(uint32_t threads, uint32_t *most_pairs, uint32_t *contacts) {
  static const double O[3] = {-0.4, -0.55, 0.3}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0},
                      C[3] = {0, 0, 0}, UP[3] = {0, 0, 1};
  scene sc;
  scene_grid(&sc, 30, 30, 1.0, 1.0, O, EX, EY, 0);
  body b;
  body_sphere(&b, C, 0.25, 12, 24);
  tf_cloth_def def;
  scene_def(&sc, &def);
  def.tau = 0.3;
  def.threads = threads;
  run_out o = {NULL, sc.vert_count, 0, 0};
  tf_sim *sim = NULL;
  uint32_t id;
  double floor_h = -0.3, thick = 0.003, mu = 0.3, on = 1.0;
  if (tf_cloth_create(&def, &sim, NULL, 0) == TF_OK && body_add(sim, &b, 0.002, mu, &id) == TF_OK &&
      tf_sim_set_param(sim, TF_PARAM_GROUND_NORMAL, UP, 3) == TF_OK &&
      tf_sim_set_param(sim, TF_PARAM_GROUND_HEIGHT, &floor_h, 1) == TF_OK &&
      tf_sim_set_param(sim, TF_PARAM_THICKNESS, &thick, 1) == TF_OK &&
      tf_sim_set_param(sim, TF_PARAM_FRICTION, &mu, 1) == TF_OK &&
      tf_sim_set_param(sim, TF_PARAM_SELF_CONTACT, &on, 1) == TF_OK) {
    *most_pairs = 0;
    o.ok = 1;
    for (int f = 0; f < 8 && o.ok; ++f) {
      o.ok = tf_sim_advance(sim, 1.0 / 24.0, 1) == TF_OK;
      tf_stats st;
      st.struct_size = sizeof st;
      tf_sim_get_stats(sim, &st);
      o.newton += st.newton_iterations;
      if (st.broad_pairs > *most_pairs) *most_pairs = st.broad_pairs;
      *contacts = st.contacts;
    }
    o.x = malloc(sizeof(double) * 3 * o.n);
    tf_sim_get_positions(sim, o.x, o.n);
  }
  tf_sim_destroy(sim);
  body_free(&b);
  scene_free(&sc);
  return o;
}

static void check_same(int *tf_failed_, run_out *r, const char *what) {
  for (int k = 0; k < RUNS; ++k)
    ENSURE_MSG(r[k].ok && r[k].x, "%s on %u threads failed", what, THREAD_COUNTS[k]);
  for (int k = 1; k < RUNS; ++k) {
    ENSURE_MSG(!memcmp(r[0].x, r[k].x, sizeof(double) * 3 * r[0].n),
               "%s: positions on %u threads differ from 1 thread's", what, THREAD_COUNTS[k]);
    ENSURE_MSG(r[0].newton == r[k].newton, "%s: %u Newton iterations on 1 thread, %u on %u", what,
               r[0].newton, r[k].newton, THREAD_COUNTS[k]);
  }
  TF_NOTE("%s: %u vertices, %u Newton iterations, bitwise equal on 1, 2, 3, 8 threads", what,
          r[0].n, r[0].newton);
  for (int k = 0; k < RUNS; ++k) free(r[k].x);
}

TF_TEST(threads_cloth_bitwise_for_every_count) {
  run_out shell[RUNS], hinge[RUNS];
  for (int k = 0; k < RUNS; ++k) {
    shell[k] = cloth_run(THREAD_COUNTS[k], TF_BEND_SHELL, 0.0);
    hinge[k] = cloth_run(THREAD_COUNTS[k], TF_BEND_HINGE, 0.0);
  }
  /* the sheet swung towards the vertical (its free corner starts at y = 0.643): a run that did
   * nothing would be equal too */
  double y = shell[0].ok ? shell[0].x[3 * (shell[0].n - 1) + 1] : 1.0;
  ENSURE_MSG(y < 0.55, "the free corner is at y = %g", y);
  check_same(tf_failed_, shell, "cloth, shell bending");
  check_same(tf_failed_, hinge, "cloth, hinge bending");
}

TF_TEST(threads_wind_bitwise_for_every_count) {
  run_out r[RUNS], calm = cloth_run(1, TF_BEND_SHELL, 0.0);
  for (int k = 0; k < RUNS; ++k) r[k] = cloth_run(THREAD_COUNTS[k], TF_BEND_SHELL, 8.0);
  /* the wind (+y, across the sheet) held it out of the vertical against the calm run */
  double dy = 0.0;
  for (uint32_t i = 0; r[0].ok && calm.ok && i < r[0].n; ++i)
    dy += (r[0].x[3 * i + 1] - calm.x[3 * i + 1]) / r[0].n;
  free(calm.x);
  ENSURE_MSG(dy > 0.01, "the wind moved the sheet's mean y by %g m", dy);
  check_same(tf_failed_, r, "cloth in turbulent wind");
}

TF_TEST(threads_contact_bitwise_for_every_count) {
  run_out r[RUNS];
  uint32_t pairs = 0, contacts = 0;
  for (int k = 0; k < RUNS; ++k) r[k] = drape_run(THREAD_COUNTS[k], &pairs, &contacts);
  /* it reached the sphere, with more candidates than one block holds */
  TF_NOTE("largest candidate count %u, %u pairs in contact at the end", pairs, contacts);
  ENSURE_MSG(pairs > 3 * 2048, "%u candidates", pairs);
  ENSURE_MSG(contacts > 100, "%u pairs in contact", contacts);
  check_same(tf_failed_, r, "cloth on a sphere and the ground, self-contact on");
}

TF_TEST(threads_flesh_bitwise_for_every_count) {
  run_out lin[RUNS], quad[RUNS];
  for (int k = 0; k < RUNS; ++k) {
    lin[k] = flesh_run(THREAD_COUNTS[k], TF_TET_LINEAR);
    quad[k] = flesh_run(THREAD_COUNTS[k], TF_TET_QUADRATIC);
  }
  check_same(tf_failed_, lin, "flesh, linear tets");
  check_same(tf_failed_, quad, "flesh, quadratic tets");
}

TF_TEST(threads_def_count_checked_and_old_defs_single) {
  scene sc;
  static const double O[3] = {0, 0, 0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0};
  scene_grid(&sc, 4, 4, 1.0, 1.0, O, EX, EY, 1);
  tf_cloth_def def;
  scene_def(&sc, &def);
  ENSURE(def.threads == 0); /* every core, by default */
  def.threads = 257;
  tf_sim *sim = NULL;
  char err[256];
  ENSURE(tf_cloth_create(&def, &sim, err, sizeof err) == TF_E_INVALID_ARG && sim == NULL);
  ENSURE_MSG(strstr(err, "threads") && strstr(err, "257"), "message: %s", err);
  /* a def from a 1.9 header (no threads field) runs on one thread */
  def.threads = 0;
  def.struct_size = (uint32_t)offsetof(tf_cloth_def, threads);
  ENSURE(tf_cloth_create(&def, &sim, err, sizeof err) == TF_OK);
  tf_stats st = {.struct_size = sizeof st};
  tf_sim_get_stats(sim, &st);
  ENSURE_MSG(st.threads == 1, "an old def runs on %u threads", st.threads);
  tf_sim_destroy(sim);
  def.struct_size = sizeof def;
  def.threads = 3;
  ENSURE(tf_cloth_create(&def, &sim, err, sizeof err) == TF_OK);
  tf_sim_get_stats(sim, &st);
  ENSURE(st.threads == 3);
  tf_sim_destroy(sim);
  scene_free(&sc);
}
