/* SPDX-License-Identifier: MIT
 * Fuzz target: tf_sim_load_state on damaged snapshots. A small cloth (pins, a collider, the
 * ground; with the mode's bit 3 external forces and a response) and a small flesh block each save
 * a snapshot after a frame; the input then overwrites
 * bytes of one of them at positions it chooses and, when its first byte says so, makes the
 * checksum right again, so the values behind it (parameters, indices, counts) are reached. Every
 * load either succeeds, after which a frame advances or fails with a message and every position is
 * finite, or is refused with a status and a message and leaves the simulation unchanged. */
#include "fuzz_common.h"
#include "tauform.h"

static const uint32_t CUBE_TETS[20] = {0, 1, 2, 4, 1, 3, 2, 7, 1, 4, 5, 7, 2, 6, 4, 7, 1, 2, 4, 7};

/* the header is 80 bytes, the checksum its last 8 (plugin/src/sim/snapshot.c) */
enum { HEADER = 80 };

static void reseal(uint8_t *b, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t k = HEADER; k < size; ++k) h = (h ^ b[k]) * 0x100000001b3ull;
  memcpy(b + HEADER - sizeof h, &h, sizeof h);
}

/* a poke on vertex 1 and 40 % of it on the rigid level: the snapshot's response section */
static void respond(tf_sim *sim) {
  const uint32_t n = tf_sim_vert_count(sim), L = tf_sim_response_levels(sim, NULL, 0);
  double f[3 * 16] = {0}, pct[16] = {0};
  f[3 + 2] = 0.01;
  pct[0] = 60.0, pct[L - 1] = 40.0;
  tf_sim_set_forces(sim, f, n);
  tf_sim_set_response(sim, pct, L, NULL, 0);
}

static tf_sim *make_cloth(int forces) {
  double pos[3 * 16], col[9] = {0, 0, -0.05, 0.4, 0, -0.05, 0, 0.4, -0.05};
  uint32_t tris[3 * 18], nt = 0, ct[3] = {0, 1, 2}, pins[2] = {0, 3};
  for (uint32_t j = 0; j < 4; ++j)
    for (uint32_t i = 0; i < 4; ++i) {
      double *p = pos + 3 * (4 * j + i);
      p[0] = 0.1 * i, p[1] = 0.1 * j, p[2] = 0.0;
    }
  for (uint32_t j = 0; j < 3; ++j)
    for (uint32_t i = 0; i < 3; ++i) {
      uint32_t a = 4 * j + i, t[6] = {a, a + 1, a + 5, a, a + 5, a + 4};
      memcpy(tris + 3 * nt, t, sizeof t);
      nt += 2;
    }
  tf_cloth_def d;
  tf_cloth_def_init(&d);
  d.rest_positions = pos, d.vert_count = 16, d.triangles = tris, d.tri_count = nt;
  tf_sim *sim = NULL;
  if (tf_cloth_create(&d, &sim, NULL, 0) != TF_OK) return NULL;
  tf_collider_def c;
  tf_collider_def_init(&c);
  c.positions = col, c.vert_count = 3, c.triangles = ct, c.tri_count = 1;
  uint32_t id;
  double gn[3] = {0, 0, 1}, gh = -0.2;
  tf_sim_add_collider(sim, &c, &id);
  tf_sim_set_param(sim, TF_PARAM_GROUND_NORMAL, gn, 3);
  tf_sim_set_param(sim, TF_PARAM_GROUND_HEIGHT, &gh, 1);
  tf_sim_set_pins(sim, pins, NULL, 2);
  if (forces) respond(sim);
  tf_sim_advance(sim, 1.0 / 24, 1);
  return sim;
}

static tf_sim *make_flesh(int forces) {
  double pos[24];
  for (int k = 0; k < 8; ++k)
    pos[3 * k] = 0.1 * (k & 1), pos[3 * k + 1] = 0.1 * (k >> 1 & 1),
            pos[3 * k + 2] = 0.1 * (k >> 2 & 1);
  tf_flesh_def d;
  tf_flesh_def_init(&d);
  d.rest_positions = pos, d.vert_count = 8, d.tets = CUBE_TETS, d.tet_count = 5;
  tf_sim *sim = NULL;
  if (tf_flesh_create(&d, &sim, NULL, 0) != TF_OK) return NULL;
  uint32_t pins[1] = {0};
  tf_sim_set_pins(sim, pins, NULL, 1);
  if (forces) respond(sim);
  tf_sim_advance(sim, 1.0 / 24, 1);
  return sim;
}

static void positions(tf_sim *sim, double *x) {
  uint32_t n = tf_sim_vert_count(sim);
  FUZZ_CHECK(tf_sim_get_positions(sim, x, n) == TF_OK, "positions");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_bytes f = {data, size};
  uint8_t mode = fz_u8(&f);
  tf_sim *sim = (mode & 1) ? make_flesh(mode & 8) : make_cloth(mode & 8);
  FUZZ_CHECK(sim != NULL, "the scene was not created");
  size_t n = tf_sim_state_size(sim);
  uint8_t *buf = malloc(n + 8);
  double before[3 * 16], after[3 * 16];
  FUZZ_CHECK(buf && tf_sim_save_state(sim, buf, n) == TF_OK, "save");
  positions(sim, before);
  /* overwrites: (position, byte) pairs, positions weighted towards the header and parameters */
  uint8_t edits = fz_u8(&f) % 16;
  for (uint8_t k = 0; k < edits; ++k) {
    uint32_t at = fz_u32(&f);
    at = (fz_u8(&f) & 1) ? at % 512 : at % (uint32_t)n;
    if (at < n) buf[at] = fz_u8(&f);
  }
  size_t len = n;
  if (mode & 4) len = n - fz_u8(&f) % 9; /* truncated */
  if (mode & 2) reseal(buf, len);
  tf_status st = tf_sim_load_state(sim, buf, len);
  if (st != TF_OK) {
    FUZZ_CHECK(tf_sim_last_error(sim)[0], "%s without a message", tf_status_name(st));
    positions(sim, after);
    FUZZ_CHECK(memcmp(before, after, sizeof(double) * 3 * tf_sim_vert_count(sim)) == 0,
               "a refused snapshot changed the simulation");
  } else {
    tf_status a = tf_sim_advance(sim, 1.0 / 24, 1);
    if (a != TF_OK) FUZZ_CHECK(tf_sim_last_error(sim)[0], "advance failed without a message");
    positions(sim, after);
    for (uint32_t i = 0; i < 3 * tf_sim_vert_count(sim); ++i)
      FUZZ_CHECK(isfinite(after[i]), "position %u not finite after a loaded snapshot", i);
  }
  free(buf);
  tf_sim_destroy(sim);
  return 0;
}
