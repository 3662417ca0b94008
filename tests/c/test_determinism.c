/* SPDX-License-Identifier: MIT
 * Determinism: the same inputs give bitwise the same frames (a render farm re-running a shot
 * must get the same cache), across runs and across simulation objects in one process. */
#include <stdlib.h>
#include <string.h>

#include "scenes.h"
#include "tf_test.h"

/* FNV-1a over the bytes of the positions */
static uint64_t hash_bytes(const void *p, size_t n, uint64_t h) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

/* what a drape run produced: the hash of every frame's positions, how many advances returned
 * TF_OK, how far the sheet moved from its start, and the free corner (vertex 168) at frames 60
 * and 120 */
typedef struct drape {
  uint64_t hash;
  int ok_frames;
  double moved;        /* m, max over vertices and frames of |x - x_start| */
  double corner[2][3]; /* m */
} drape;

static const int DRAPE_FRAMES = 120;

static drape drape_run(double tolerance) {
  static const double O[3] = {0, 0, 0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0};
  drape r;
  memset(&r, 0, sizeof r);
  scene sc;
  scene_grid(&sc, 12, 12, 1.0, 1.0, O, EX, EY, 1);
  tf_cloth_def def;
  scene_def(&sc, &def);
  def.tau = 0.5;
  def.kappa = 0.3;
  def.solver.tolerance = tolerance;
  tf_sim *sim = NULL;
  if (tf_cloth_create(&def, &sim, NULL, 0) != TF_OK) return scene_free(&sc), r;
  tf_sim_set_pins(sim, sc.pins, NULL, sc.pin_count);
  double *x = malloc(sizeof(double) * 3 * sc.vert_count), t[13 * 3];
  r.hash = 1469598103934665603ull;
  for (int f = 0; f < DRAPE_FRAMES; ++f) {
    for (uint32_t q = 0; q < 13; ++q) {
      memcpy(t + 3 * q, sc.pos + 3 * q, sizeof(double) * 3);
      t[3 * q + 2] += 0.2 * sin(0.1 * f); /* pinned edge moving up and down */
    }
    tf_sim_set_pin_targets(sim, t, 13);
    if (tf_sim_advance(sim, 1.0 / 24.0, 2) != TF_OK) break;
    r.ok_frames++;
    tf_sim_get_positions(sim, x, sc.vert_count);
    r.hash = hash_bytes(x, sizeof(double) * 3 * sc.vert_count, r.hash);
    r.moved = fmax(r.moved, dist_d2(x, sc.pos, sc.vert_count));
    if (f == DRAPE_FRAMES / 2 - 1) memcpy(r.corner[0], x + 3 * 168, sizeof r.corner[0]);
    if (f == DRAPE_FRAMES - 1) memcpy(r.corner[1], x + 3 * 168, sizeof r.corner[1]);
  }
  free(x);
  tf_sim_destroy(sim);
  scene_free(&sc);
  return r;
}

TF_TEST(determinism_drape_bitwise) {
  /* every advance must succeed and the sheet must move: two runs that both fail at the first
   * step hash the same start and used to pass */
  drape a = drape_run(1e-3), b = drape_run(1e-3);
  TF_NOTE(
      "120-frame drape hash %016llx, moved %.4g m, corner at 60: (%.9f, %.9f, %.9f), at 120: "
      "(%.9f, %.9f, %.9f)",
      (unsigned long long)a.hash, a.moved, a.corner[0][0], a.corner[0][1], a.corner[0][2],
      a.corner[1][0], a.corner[1][1], a.corner[1][2]);
  ENSURE_MSG(a.ok_frames == DRAPE_FRAMES && b.ok_frames == DRAPE_FRAMES, "%d, %d frames advanced",
             a.ok_frames, b.ok_frames);
  ENSURE_MSG(a.moved > 0.5, "the sheet moved only %g m", a.moved);
  ENSURE(a.hash == b.hash && memcmp(a.corner, b.corner, sizeof a.corner) == 0);
  /* against a recorded trajectory, not a recorded hash: the bits depend on the compiler's FMA
   * contraction, the -O level and libm (sin, sqrt), which CI does not pin, and a run with
   * different bits is still right. The positions do not: the tau step is dissipative, so a
   * round-off perturbation does not grow, and what it changes is which Newton iterate ends a step,
   * each within the solver tolerance of the minimizer. Measured (2026-11-25, gcc Release): with
   * the solver tolerance at 0.9e-3, 1.1e-3 or 1e-5 instead of 1e-3 the corner moves by 5.8e-7,
   * 5.3e-6 and 9.0e-6 m, so 1e-4 m is 10x what a different iteration path can do, while a
   * change of the physics as small as kappa 0.30 -> 0.31 already moves it by more (1.1e-4 m in y
   * at frame 60). Recorded again 2026-11-26: the pins' change of velocity now acts over
   * (1 - kappa) tau (pins.c), which moved the corner by 2.6e-4 m in y at frame 60 */
  static const double RECORDED[2][3] = {{0.999970636, -0.001073074, -1.075283412},
                                        {0.999965280, 0.000002725, -1.124142033}};
  static const double RECORD_TOL = 1e-4; /* m */
  for (int s = 0; s < 2; ++s)
    for (int k = 0; k < 3; ++k)
      ENSURE_MSG(fabs(a.corner[s][k] - RECORDED[s][k]) <= RECORD_TOL,
                 "corner at frame %d, axis %d: %.9f, recorded %.9f", 60 * (s + 1), k,
                 a.corner[s][k], RECORDED[s][k]);
}

/* A 25 x 25 sheet (625 vertices: the multigrid preconditioner is on) hanging from its top edge,
 * released 30 degrees out of the vertical. A
 * state saved and restored must continue bit for bit, and a settle-time query in between must not
 * change what follows: nothing a step computes may depend on solves before it. */
static tf_sim *swing_sim(scene *sc) {
  static const double O[3] = {0, 0, 1}, EX[3] = {1, 0, 0}, ED[3] = {0, 0.5, -0.8660254037844386};
  scene_grid(sc, 24, 24, 1.0, 1.0, O, EX, ED, 1);
  tf_cloth_def def;
  scene_def(sc, &def);
  def.stretch_stiffness = 1000.0;
  def.bend_stiffness = 1e-4;
  def.tau = 0.2;
  tf_sim *sim = NULL;
  if (tf_cloth_create(&def, &sim, NULL, 0) != TF_OK) return NULL;
  tf_sim_set_pins(sim, sc->pins, NULL, sc->pin_count);
  return sim;
}

/* 0 unless every frame advances */
static uint64_t run_frames(tf_sim *sim, uint32_t n, int frames, double *x) {
  uint64_t h = 1469598103934665603ull;
  for (int f = 0; f < frames; ++f) {
    if (tf_sim_advance(sim, 1.0 / 24.0, 1) != TF_OK) return 0;
    tf_sim_get_positions(sim, x, n);
    h = hash_bytes(x, sizeof(double) * 3 * n, h);
  }
  return h;
}

TF_TEST(determinism_restore_and_settle_query_continue_bitwise) {
  scene sc;
  tf_sim *sim = swing_sim(&sc);
  ENSURE(sim != NULL);
  uint32_t n = sc.vert_count;
  double *x = malloc(sizeof(double) * 3 * n), *x0 = malloc(sizeof(double) * 3 * n),
         *v0 = malloc(sizeof(double) * 3 * n);
  ENSURE(run_frames(sim, n, 6, x) != 0);
  tf_sim_get_positions(sim, x0, n);
  tf_sim_get_velocities(sim, v0, n);
  uint64_t a = run_frames(sim, n, 6, x);
  /* restore the saved state in the same simulation (its solver has seen six more frames) */
  ENSURE(tf_sim_set_state(sim, x0, v0, n) == TF_OK);
  uint64_t b = run_frames(sim, n, 6, x);
  /* restore again, ask for a settle tau (a solve of its own) first */
  ENSURE(tf_sim_set_state(sim, x0, v0, n) == TF_OK);
  double tau = 0.0, lambda = 0.0;
  ENSURE(tf_sim_settle_tau(sim, 1.0, 1.0 / 24.0, &tau, &lambda) == TF_OK);
  uint64_t c = run_frames(sim, n, 6, x);
  TF_NOTE("hashes %016llx %016llx %016llx, settle tau %.4g s", (unsigned long long)a,
          (unsigned long long)b, (unsigned long long)c, tau);
  ENSURE(a != 0 && a == b && a == c);
  free(x), free(x0), free(v0);
  tf_sim_destroy(sim);
  scene_free(&sc);
}
