/* SPDX-License-Identifier: MIT
 * State snapshots (tf_sim_save_state / tf_sim_load_state, issue 21): a run saved halfway, written
 * to a file, and loaded in another process into a new simulation made from the same def ends bit
 * for bit where the uninterrupted run ends: cloth with hard pins that accelerate (the carrier's low-passed changes,
 * pins.c), soft pins, wind with turbulence and gusts, keyed parameters and a keyed bending map, a
 * moving collider and the ground; and flesh with keyed stiffness. Snapshots of another mesh,
 * kind or version, truncated or damaged ones are refused by name, and the simulation is
 * unchanged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contact_scenes.h"
#include "scenes.h"
#include "sim/sim.h"
#include "tf_test.h"

static const double O[3] = {-0.5, 0, 0.6}, EX[3] = {1, 0, 0}, EY[3] = {0, 0, -1};
static const double FRAME = 1.0 / 24.0;
enum { N = 8 };

typedef struct cloth_run {
  scene sc;
  body ball;
  tf_sim *sim;
} cloth_run;

/* a 1 m sheet hanging from its top row (half hard pins, half soft), wind, ground, a ball */
static int cloth_make(cloth_run *r) {
  scene_grid(&r->sc, N, N, 1.0, 1.0, O, EX, EY, 1);
  const double c[3] = {0.0, 0.2, 0.0};
  body_sphere(&r->ball, c, 0.15, 8, 16);
  tf_cloth_def def;
  scene_def(&r->sc, &def);
  def.tau = 0.2;
  def.stretch_stiffness = 2000;
  r->sim = NULL;
  if (tf_cloth_create(&def, &r->sim, NULL, 0) != TF_OK) return 0;
  double w[N + 1];
  for (uint32_t q = 0; q < r->sc.pin_count; ++q) w[q] = q % 2 ? 0.8 : 1.0;
  uint32_t id;
  const double air = 1.225, wind[3] = {2.0, 0.6, 0.0}, turb = 0.8, gust = 0.5, gn[3] = {0, 0, 1};
  const double gh = -0.38; /* the sheet's hem rests on it */
  return tf_sim_set_pins(r->sim, r->sc.pins, w, r->sc.pin_count) == TF_OK &&
         body_add(r->sim, &r->ball, 0.005, 0.3, &id) == TF_OK &&
         tf_sim_set_param(r->sim, TF_PARAM_AIR_DENSITY, &air, 1) == TF_OK &&
         tf_sim_set_param(r->sim, TF_PARAM_WIND, wind, 3) == TF_OK &&
         tf_sim_set_param(r->sim, TF_PARAM_TURBULENCE, &turb, 1) == TF_OK &&
         tf_sim_set_param(r->sim, TF_PARAM_GUST, &gust, 1) == TF_OK &&
         tf_sim_set_param(r->sim, TF_PARAM_GROUND_NORMAL, gn, 3) == TF_OK &&
         tf_sim_set_param(r->sim, TF_PARAM_GROUND_HEIGHT, &gh, 1) == TF_OK;
}

static void cloth_free(cloth_run *r) {
  tf_sim_destroy(r->sim);
  body_free(&r->ball);
  scene_free(&r->sc);
}

/* the host's inputs for frame f (1-based), then the advance: the top row swings and speeds up,
 * tau and the bending map are keyed, the ball moves */
static int cloth_frame(cloth_run *r, int f) {
  double tg[3 * (N + 1)], M[16];
  double s = 0.1 * sin(0.15 * f * f / 24.0);
  for (uint32_t q = 0; q < r->sc.pin_count; ++q) {
    memcpy(tg + 3 * q, r->sc.pos + 3 * (size_t)r->sc.pins[q], 3 * sizeof(double));
    tg[3 * q + 1] += s;
  }
  const double axis[3] = {0, 0, 1}, cen[3] = {0, 0, 0}, t[3] = {0.1 * sin(0.2 * f), 0, 0};
  rigid_matrix(axis, 0.05 * f, cen, t, M);
  if (tf_sim_set_pin_targets(r->sim, tg, r->sc.pin_count) != TF_OK ||
      tf_sim_transform_collider(r->sim, 0, M) != TF_OK)
    return 0;
  if (f == 55) {
    const double tau = 0.35;
    if (tf_sim_set_param(r->sim, TF_PARAM_TAU, &tau, 1) != TF_OK) return 0;
  }
  if (f == 35) {
    double map[(N + 1) * (N + 1)];
    for (uint32_t i = 0; i < r->sc.vert_count; ++i) map[i] = 1e-5 * (1.0 + (double)(i % 7));
    if (tf_sim_set_param_map(r->sim, TF_PARAM_BEND_STIFFNESS, map, r->sc.vert_count) != TF_OK)
      return 0;
  }
  int ok = tf_sim_advance(r->sim, FRAME, 1) == TF_OK;
  if (getenv("TF_TRACE")) {
    tf_stats st = {.struct_size = sizeof st};
    tf_sim_get_stats(r->sim, &st);
    fprintf(stderr, "frame %d: contacts %u newton %u\n", f, st.contacts, st.newton_iterations);
  }
  return ok;
}

/* the snapshot written to a file, loaded and run on in a child process (fork), which writes its
 * final positions and velocities back: what a render farm does between two machines. resume
 * (ctx, buf, size) runs in the child; returns its simulation for the result, NULL on failure */
typedef tf_sim *(*resume_fn)(void *ctx, const unsigned char *buf, size_t size);

static int resume_elsewhere(const unsigned char *buf, size_t size, resume_fn resume, void *ctx,
                            uint32_t n, double *result) {
  char snap[] = "/tmp/tf_snapshot_XXXXXX", out[] = "/tmp/tf_resumed_XXXXXX";
  int fs = mkstemp(snap), fo = mkstemp(out), ok = 0;
  if (fs < 0 || fo < 0) return 0;
  close(fo);
  ok = write(fs, buf, size) == (ssize_t)size;
  close(fs);
  pid_t pid = ok ? fork() : -1;
  if (pid == 0) { /* the other process: the file is all it has */
    FILE *f = fopen(snap, "rb");
    unsigned char *in = malloc(size + 1);
    size_t got = f && in ? fread(in, 1, size + 1, f) : 0;
    if (f) fclose(f);
    tf_sim *sim = got == size ? resume(ctx, in, got) : NULL;
    double *r = malloc(sizeof(double) * 6 * n);
    int good = sim && r && tf_sim_get_positions(sim, r, n) == TF_OK &&
               tf_sim_get_velocities(sim, r + 3 * n, n) == TF_OK;
    FILE *o = good ? fopen(out, "wb") : NULL;
    good = o && fwrite(r, sizeof(double), 6 * (size_t)n, o) == 6 * (size_t)n;
    if (o) fclose(o);
    _exit(good ? 0 : 1);
  }
  int status = 0;
  ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  FILE *o = ok ? fopen(out, "rb") : NULL;
  ok = o && fread(result, sizeof(double), 6 * (size_t)n, o) == 6 * (size_t)n;
  if (o) fclose(o);
  remove(snap), remove(out);
  return ok;
}

static int matches(tf_sim *a, const double *result, uint32_t n) {
  double *x = malloc(sizeof(double) * 6 * n);
  int same = x && tf_sim_get_positions(a, x, n) == TF_OK &&
             tf_sim_get_velocities(a, x + 3 * n, n) == TF_OK &&
             memcmp(x, result, sizeof(double) * 6 * n) == 0;
  free(x);
  return same;
}

static int same_state(tf_sim *a, tf_sim *b, uint32_t n) {
  double *xa = malloc(sizeof(double) * 6 * n), *xb = malloc(sizeof(double) * 6 * n);
  int same = xa && xb && tf_sim_get_positions(a, xa, n) == TF_OK &&
             tf_sim_get_velocities(a, xa + 3 * n, n) == TF_OK &&
             tf_sim_get_positions(b, xb, n) == TF_OK &&
             tf_sim_get_velocities(b, xb + 3 * n, n) == TF_OK &&
             memcmp(xa, xb, sizeof(double) * 6 * n) == 0;
  free(xa), free(xb);
  return same;
}

/* the child's part: a new simulation from the same def with the same ball, never advanced (the
 * snapshot brings the rest: pins, parameters, the map, the ball's pose, contact's state), then
 * frames 51..100 with the host's inputs */
static tf_sim *cloth_resume(void *ctx, const unsigned char *buf, size_t size) {
  cloth_run *c = ctx;
  if (!cloth_make(c) || tf_sim_load_state(c->sim, buf, size) != TF_OK) return NULL;
  for (int f = 51; f <= 100; ++f)
    if (!cloth_frame(c, f)) return NULL;
  return c->sim;
}

TF_TEST(snapshot_cloth_resumes_bit_for_bit) {
  cloth_run a, b, c;
  ENSURE(cloth_make(&a) && cloth_make(&b));
  for (int f = 1; f <= 100; ++f)
    ENSURE_MSG(cloth_frame(&a, f), "frame %d: %s", f, tf_sim_last_error(a.sim));
  for (int f = 1; f <= 50; ++f) ENSURE(cloth_frame(&b, f));
  size_t size = tf_sim_state_size(b.sim);
  unsigned char *buf = malloc(size);
  double *result = malloc(sizeof(double) * 6 * a.sc.vert_count);
  ENSURE(buf && result && tf_sim_save_state(b.sim, buf, size) == TF_OK);
  int resumed = resume_elsewhere(buf, size, cloth_resume, &c, a.sc.vert_count, result);
  /* and in this process, into the very simulation it was saved from after running on */
  for (int f = 51; f <= 60; ++f) ENSURE(cloth_frame(&b, f));
  ENSURE(tf_sim_load_state(b.sim, buf, size) == TF_OK);
  for (int f = 51; f <= 100; ++f) ENSURE(cloth_frame(&b, f));
  tf_stats st = {.struct_size = sizeof st};
  tf_sim_get_stats(a.sim, &st);
  TF_NOTE(
      "cloth snapshot: %zu bytes for %u vertices; resumed at frame 50 in another process, "
      "frame 100 equal bit for bit: %s (%u contacts at the end)",
      size, a.sc.vert_count, resumed && matches(a.sim, result, a.sc.vert_count) ? "yes" : "no",
      st.contacts);
  ENSURE(st.contacts > 0); /* contact is part of what was resumed */
  ENSURE(resumed && matches(a.sim, result, a.sc.vert_count));
  ENSURE(same_state(a.sim, b.sim, a.sc.vert_count));
  free(buf), free(result);
  cloth_free(&a), cloth_free(&b);
}

typedef struct flesh_run {
  tet_scene blk;
  uint32_t pins[9], np;
  tf_tet_element element;
  tf_sim *sim;
} flesh_run;

/* a 0.4 x 0.2 x 0.2 m block held at its x = 0 face, which bobs; its stiffness keyed at frames 20
 * and 70 */
static int flesh_make(flesh_run *r) {
  scene_block(&r->blk, 4, 2, 2, 0.1, 0.1, 0.1);
  tf_flesh_def def;
  scene_flesh_def(&r->blk, &def);
  def.tau = 0.05;
  def.element = r->element;
  r->np = 0;
  for (uint32_t i = 0; i < r->blk.vert_count; ++i)
    if (r->blk.pos[3 * i] == 0.0) r->pins[r->np++] = i;
  r->sim = NULL;
  return tf_flesh_create(&def, &r->sim, NULL, 0) == TF_OK &&
         tf_sim_set_pins(r->sim, r->pins, NULL, r->np) == TF_OK;
}

static int flesh_frame(flesh_run *r, int f) {
  double tg[27], E = f < 20 ? 2e5 : f < 70 ? 4e5 : 3e5;
  for (uint32_t q = 0; q < r->np; ++q) {
    memcpy(tg + 3 * q, r->blk.pos + 3 * (size_t)r->pins[q], 3 * sizeof(double));
    tg[3 * q + 2] += 0.05 * sin(0.3 * f);
  }
  return tf_sim_set_pin_targets(r->sim, tg, r->np) == TF_OK &&
         tf_sim_set_param(r->sim, TF_PARAM_YOUNGS_MODULUS, &E, 1) == TF_OK &&
         tf_sim_advance(r->sim, FRAME, 1) == TF_OK;
}

static tf_sim *flesh_resume(void *ctx, const unsigned char *buf, size_t size) {
  flesh_run *c = ctx;
  if (!flesh_make(c) || tf_sim_load_state(c->sim, buf, size) != TF_OK) return NULL;
  for (int f = 51; f <= 100; ++f)
    if (!flesh_frame(c, f)) return NULL;
  return c->sim;
}

/* with linear tets and with quadratic ones (their edge nodes and derived pins in the state) */
TF_TEST(snapshot_flesh_resumes_bit_for_bit) {
  for (int e = 0; e < 2; ++e) {
    flesh_run a, b, c;
    a.element = b.element = c.element = e ? TF_TET_QUADRATIC : TF_TET_LINEAR;
    ENSURE(flesh_make(&a) && flesh_make(&b));
    for (int f = 1; f <= 100; ++f) ENSURE(flesh_frame(&a, f));
    for (int f = 1; f <= 50; ++f) ENSURE(flesh_frame(&b, f));
    size_t size = tf_sim_state_size(b.sim);
    unsigned char *buf = malloc(size);
    double *result = malloc(sizeof(double) * 6 * a.blk.vert_count);
    ENSURE(buf && result && tf_sim_save_state(b.sim, buf, size) == TF_OK);
    int resumed = resume_elsewhere(buf, size, flesh_resume, &c, a.blk.vert_count, result);
    TF_NOTE(
        "%s flesh snapshot: %zu bytes for %u vertices; resumed at frame 50 in another "
        "process, frame 100 equal: %s",
        e ? "quadratic" : "linear", size, a.blk.vert_count,
        resumed && matches(a.sim, result, a.blk.vert_count) ? "yes" : "no");
    ENSURE(resumed && matches(a.sim, result, a.blk.vert_count));
    free(buf), free(result);
    tf_sim_destroy(a.sim), tf_sim_destroy(b.sim);
    tet_scene_free(&a.blk), tet_scene_free(&b.blk);
  }
}

/* load must refuse, name why (the message contains what), and change nothing: the refused
 * simulation goes on exactly as its twin that was never offered the buffer */
static void refused(int *tf_failed_, cloth_run *r, cloth_run *twin, const void *buf, size_t size,
                    const char *what, int frame) {
  tf_status st = tf_sim_load_state(r->sim, buf, size);
  const char *msg = tf_sim_last_error(r->sim);
  TF_NOTE("refused: %s", msg);
  ENSURE_MSG(st == TF_E_INVALID_ARG && strstr(msg, what), "status %d, message '%s', want '%s'",
             (int)st, msg, what);
  ENSURE(cloth_frame(r, frame) && cloth_frame(twin, frame));
  ENSURE(same_state(r->sim, twin->sim, r->sc.vert_count));
}

TF_TEST(snapshot_refuses_what_is_not_its_own) {
  cloth_run a, b, twin;
  ENSURE(cloth_make(&a) && cloth_make(&b) && cloth_make(&twin));
  for (int f = 1; f <= 5; ++f)
    ENSURE(cloth_frame(&a, f) && cloth_frame(&b, f) && cloth_frame(&twin, f));
  size_t size = tf_sim_state_size(a.sim);
  ENSURE(size > 0 && tf_sim_state_size(NULL) == 0);
  unsigned char *buf = malloc(size + 16), *bad = malloc(size + 16);
  ENSURE(buf && bad);
  ENSURE(tf_sim_save_state(a.sim, buf, size - 1) == TF_E_INVALID_ARG &&
         strstr(tf_sim_last_error(a.sim), "needs"));
  ENSURE(tf_sim_save_state(a.sim, buf, size) == TF_OK);
  int f = 6;
  /* truncated, padded */
  refused(tf_failed_, &b, &twin, buf, size - 1, "truncated", f++);
  refused(tf_failed_, &b, &twin, buf, 10, "header", f++);
  /* damaged: one byte of the payload flipped */
  memcpy(bad, buf, size);
  bad[size / 2] ^= 0x10;
  refused(tf_failed_, &b, &twin, bad, size, "damaged", f++);
  /* well-formed bytes (the checksum made right again) whose values are not a state: a negative
   * tau, a pin on a vertex that does not exist */
  {
    const size_t header = 80, payload = header + sizeof(sim_params);
    size_t tau_at = header + offsetof(sim_params, tau);
    /* after the frame count, x, v, vref and afict, the one piece's carrier, the plastic rest
     * state (the membrane's rest frames, the shell's rest curvatures) and targets_fresh */
    size_t pin_at = payload + sizeof(uint64_t) + 4 * 3 * sizeof(double) * b.sc.vert_count +
                    9 * sizeof(double) + sizeof(double) * b.sim->size.plastic + sizeof(int);
    double tau = -1.0;
    memcpy(bad, buf, size);
    memcpy(bad + tau_at, &tau, sizeof tau);
    snapshot_reseal(bad, size, header);
    refused(tf_failed_, &b, &twin, bad, size, "tau", f++);
    uint32_t far = 1000000;
    memcpy(bad, buf, size);
    memcpy(bad + pin_at, &far, sizeof far);
    snapshot_reseal(bad, size, header);
    refused(tf_failed_, &b, &twin, bad, size, "pin's vertex", f++);
  }
  /* not a snapshot */
  memset(bad, 0x5a, size);
  refused(tf_failed_, &b, &twin, bad, size, "not a tauform", f++);
  /* a future library version: the version field of the header (after magic, format, endian) */
  memcpy(bad, buf, size);
  uint32_t future = (TF_VERSION_MAJOR << 16) | (99u << 8);
  memcpy(bad + 16, &future, sizeof future);
  refused(tf_failed_, &b, &twin, bad, size, "1.99.0", f++);
  /* another mesh of the same size (moved), and one of another size */
  {
    scene sc;
    const double O2[3] = {-0.5, 0, 0.7};
    scene_grid(&sc, N, N, 1.0, 1.0, O2, EX, EY, 1);
    tf_cloth_def def;
    scene_def(&sc, &def);
    tf_sim *other = NULL;
    ENSURE(tf_cloth_create(&def, &other, NULL, 0) == TF_OK);
    uint32_t id;
    ENSURE(body_add(other, &b.ball, 0.005, 0.3, &id) == TF_OK);
    size_t os = tf_sim_state_size(other);
    unsigned char *ob = malloc(os);
    ENSURE(ob && tf_sim_save_state(other, ob, os) == TF_OK);
    refused(tf_failed_, &b, &twin, ob, os, "another mesh", f++);
    free(ob);
    tf_sim_destroy(other);
    scene_free(&sc);
    scene_grid(&sc, N - 1, N, 1.0, 1.0, O, EX, EY, 1);
    scene_def(&sc, &def);
    ENSURE(tf_cloth_create(&def, &other, NULL, 0) == TF_OK);
    os = tf_sim_state_size(other);
    ob = malloc(os);
    ENSURE(ob && tf_sim_save_state(other, ob, os) == TF_OK);
    refused(tf_failed_, &b, &twin, ob, os, "vertices", f++);
    free(ob);
    tf_sim_destroy(other);
    scene_free(&sc);
  }
  /* a flesh snapshot */
  {
    tet_scene blk;
    scene_block(&blk, 2, 2, 2, 0.1, 0.1, 0.1);
    tf_flesh_def def;
    scene_flesh_def(&blk, &def);
    tf_sim *fl = NULL;
    ENSURE(tf_flesh_create(&def, &fl, NULL, 0) == TF_OK);
    size_t fs = tf_sim_state_size(fl);
    unsigned char *fb = malloc(fs);
    ENSURE(fb && tf_sim_save_state(fl, fb, fs) == TF_OK);
    refused(tf_failed_, &b, &twin, fb, fs, "flesh", f++);
    free(fb);
    tf_sim_destroy(fl);
    tet_scene_free(&blk);
  }
  /* without the ball the snapshot's collider has nowhere to go */
  {
    tf_cloth_def def;
    scene_def(&a.sc, &def);
    def.tau = 0.2;
    def.stretch_stiffness = 2000;
    tf_sim *bare = NULL;
    ENSURE(tf_cloth_create(&def, &bare, NULL, 0) == TF_OK);
    ENSURE(tf_sim_load_state(bare, buf, size) == TF_E_INVALID_ARG &&
           strstr(tf_sim_last_error(bare), "colliders"));
    tf_sim_destroy(bare);
  }
  /* and the good one still loads */
  ENSURE(tf_sim_load_state(b.sim, buf, size) == TF_OK);
  free(buf), free(bad);
  cloth_free(&a), cloth_free(&b), cloth_free(&twin);
}
