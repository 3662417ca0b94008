/* SPDX-License-Identifier: MIT
 * Memory: all allocation goes through the host's allocator; advancing allocates nothing after
 * create; running out of memory at any point of create fails with TF_E_NOMEM and leaks nothing. */
#include <stdlib.h>
#include <string.h>

#include "contact_scenes.h"
#include "scenes.h"
#include "tf_test.h"

typedef struct counter {
  long allocs, frees, fail_after; /* fail_after < 0: never */
  long long live, peak;
} counter;

static void *count_alloc(size_t size, size_t align, void *ud) {
  counter *c = ud;
  if (c->fail_after >= 0 && c->allocs >= c->fail_after) return NULL;
  c->allocs++;
  c->live += (long long)size;
  if (c->live > c->peak) c->peak = c->live;
  size_t rounded = (size + align - 1) / align * align;
  return aligned_alloc(align, rounded);
}

static void count_free(void *p, size_t size, void *ud) {
  counter *c = ud;
  c->frees++;
  c->live -= (long long)size;
  free(p);
}

static const double O[3] = {0, 0, 1}, EX[3] = {1, 0, 0}, EZ[3] = {0, 0, -1};

/* the scene's def with every allocation going through the counter */
static void counted_def(const scene *sc, counter *c, tf_cloth_def *def) {
  scene_def(sc, def);
  def->allocator.alloc = count_alloc;
  def->allocator.free = count_free;
  def->allocator.ud = c;
}

TF_TEST(memory_no_allocation_per_step) {
  for (int springs = 0; springs < 2; ++springs) {
    scene sc;
    scene_grid(&sc, 24, 24, 1.0, 1.0, O, EX, EZ, 1); /* 625 vertices: the multigrid path too */
    counter c = {0, 0, -1, 0, 0};
    tf_cloth_def def;
    counted_def(&sc, &c, &def);
    def.threads = 3; /* the threaded loops too, on any machine */
    /* spring cloth, and the membrane, with plasticity on: their rest-shape updates after each
     * step too */
    if (springs) def.cloth_model = TF_CLOTH_SPRINGS;
    tf_sim *sim = NULL;
    ENSURE(tf_cloth_create(&def, &sim, NULL, 0) == TF_OK);
    const double limit = 0.3, yield = 0.001, bend_limit = 50.0;
    ENSURE(tf_sim_set_param(sim, TF_PARAM_PLASTIC_LIMIT, &limit, 1) == TF_OK &&
           tf_sim_set_param(sim, TF_PARAM_PLASTIC_YIELD, &yield, 1) == TF_OK);
    if (!springs) /* the membrane's shell yields too: its rest curvatures after each step */
      ENSURE(tf_sim_set_param(sim, TF_PARAM_BEND_PLASTIC_LIMIT, &bend_limit, 1) == TF_OK &&
             tf_sim_set_param(sim, TF_PARAM_BEND_YIELD, &yield, 1) == TF_OK);
    ENSURE(c.allocs > 0); /* the host's allocator is really used */
    ENSURE(tf_sim_set_pins(sim, sc.pins, NULL, sc.pin_count) == TF_OK);
    long after_setup = c.allocs;
    double *t = malloc(sizeof(double) * 3 * sc.pin_count);
    for (int f = 0; f < 24; ++f) {
      for (uint32_t q = 0; q < sc.pin_count; ++q) {
        memcpy(t + 3 * q, sc.pos + 3 * q, 3 * sizeof(double));
        t[3 * q + 1] += 0.02 * f; /* moving pins, the full step path */
      }
      ENSURE(tf_sim_set_pin_targets(sim, t, sc.pin_count) == TF_OK);
      ENSURE(tf_sim_advance(sim, 1.0 / 24.0, 2) == TF_OK);
      double tau = 0.1 + 0.01 * f;
      ENSURE(tf_sim_set_param(sim, TF_PARAM_TAU, &tau, 1) == TF_OK);
    }
    ENSURE_MSG(c.allocs == after_setup, "%s: %ld allocations during 24 frames",
               springs ? "springs" : "membrane", c.allocs - after_setup);
    tf_sim_destroy(sim);
    ENSURE(c.live == 0 && c.frees == c.allocs);
    free(t);
    scene_free(&sc);
  }
}

TF_TEST(memory_out_of_memory_leaks_nothing) {
  for (int springs = 0; springs < 2; ++springs) {
    scene sc;
    scene_grid(&sc, 24, 24, 1.0, 1.0, O, EX, EZ, 1); /* big enough to build the multigrid too */
    long needed = -1;
    for (long n = 0; n < 1000; ++n) {
      counter c = {0, 0, n, 0, 0};
      tf_cloth_def def;
      counted_def(&sc, &c, &def);
      if (springs) def.cloth_model = TF_CLOTH_SPRINGS; /* its families and couplings too */
      tf_sim *sim = NULL;
      char err[256] = "";
      tf_status st = tf_cloth_create(&def, &sim, err, sizeof err);
      if (st == TF_OK) {
        needed = n;
        tf_sim_destroy(sim);
        ENSURE(c.live == 0);
        break;
      }
      ENSURE_MSG(st == TF_E_NOMEM, "failing allocation %ld gave %s", n, tf_status_name(st));
      ENSURE(sim == NULL);
      ENSURE(strstr(err, "out of memory"));
      ENSURE_MSG(c.live == 0, "failing allocation %ld leaked %lld bytes", n, c.live);
    }
    TF_NOTE("%s create needs %ld allocations; every earlier failure was clean",
            springs ? "spring cloth" : "membrane cloth", needed);
    ENSURE(needed > 10);
    scene_free(&sc);
  }
}

/* flesh from a closed surface (tetrahedralizer, topology, masses, embedding, multigrid), with
 * linear and with quadratic tets (their edge nodes too): every allocation failure during create
 * is clean, and stepping allocates nothing */
TF_TEST(memory_flesh_create_and_step) {
  tet_scene box;
  scene_block(&box, 1, 1, 1, 0.3, 0.2, 0.2);
  /* the box's closed surface: 12 outward triangles over its 8 corners */
  static const uint32_t faces[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                                     2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
  for (int e = 0; e < 2; ++e) {
    long needed = -1;
    for (long n = 0; n < 2000 && needed < 0; ++n) {
      counter c = {0, 0, n, 0, 0};
      tf_flesh_def def;
      tf_flesh_def_init(&def);
      def.surface_positions = box.pos;
      def.surface_vert_count = 8;
      def.surface_triangles = faces;
      def.surface_tri_count = 12;
      def.lattice_cells = e ? 6 : 10; /* > 400 nodes: the multigrid too */
      def.element = e ? TF_TET_QUADRATIC : TF_TET_LINEAR;
      def.allocator.alloc = count_alloc;
      def.allocator.free = count_free;
      def.allocator.ud = &c;
      tf_sim *sim = NULL;
      char err[256] = "";
      tf_status st = tf_flesh_create(&def, &sim, err, sizeof err);
      if (st != TF_OK) {
        ENSURE_MSG(st == TF_E_NOMEM, "failing allocation %ld gave %s: %s", n, tf_status_name(st),
                   err);
        ENSURE(sim == NULL && strstr(err, "out of memory"));
        ENSURE_MSG(c.live == 0, "failing allocation %ld leaked %lld bytes", n, c.live);
        continue;
      }
      needed = n;
      tf_flesh_info info = {.struct_size = sizeof info};
      ENSURE(tf_sim_flesh_info(sim, &info) == TF_OK && info.node_count >= 400);
      uint32_t pin = 0;
      ENSURE(tf_sim_set_pins(sim, &pin, NULL, 1) == TF_OK);
      /* with plasticity on (a low yield, so tets do yield): the rest shapes' updates per step */
      const double yield = 1e-4, limit = 0.3;
      ENSURE(tf_sim_set_param(sim, TF_PARAM_PLASTIC_YIELD, &yield, 1) == TF_OK &&
             tf_sim_set_param(sim, TF_PARAM_PLASTIC_LIMIT, &limit, 1) == TF_OK);
      double s[24];
      long after_setup = c.allocs;
      for (int f = 0; f < 4; ++f) {
        double t[3] = {0.01 * f, 0, 0};
        ENSURE(tf_sim_set_pin_targets(sim, t, 1) == TF_OK);
        ENSURE(tf_sim_advance(sim, 1.0 / 24.0, 2) == TF_OK);
        ENSURE(tf_sim_get_surface_positions(sim, s, 8) == TF_OK);
      }
      ENSURE_MSG(c.allocs == after_setup, "%ld allocations during 4 frames",
                 c.allocs - after_setup);
      tf_sim_destroy(sim);
      ENSURE(c.live == 0 && c.frees == c.allocs);
    }
    TF_NOTE("%s flesh create from a surface needs %ld allocations; every earlier failure was clean",
            e ? "quadratic" : "linear", needed);
    ENSURE(needed > 10);
  }
  tet_scene_free(&box);
}

/* Self-contact's storage follows the pairs in contact, not the candidates. A 32 x 32 sheet falls
 * 0.55 m flat onto a sphere with self-contact on: at the impact (frames 8-16) its folds sweep over
 * their neighbours and the broad phase hands on some 40 000 candidate pairs a frame, while a
 * step's Hessian holds blocks for the few within their gap. The pair blocks used to be reserved
 * for every candidate (12 blocks of 80 bytes) and every candidate carried friction's data (112
 * bytes): here the library's memory went from 17.5 MB after the first frame to a peak of 75.7 MB
 * (DRAPE-SELF-64 peaked at 361 MB, DRAPE-SELF-128 at 2.6 GB); now 13.8 to 20.6 MB. */
TF_TEST(memory_self_contact_follows_contacts_not_candidates) {
  const double o[3] = {-0.5, -0.5, 0.8}, ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, c0[3] = {0, 0, 0};
  scene sc;
  scene_grid(&sc, 32, 32, 1.0, 1.0, o, ex, ey, 0);
  body b;
  body_sphere(&b, c0, 0.25, 12, 24);
  counter c = {0, 0, -1, 0, 0};
  tf_cloth_def def;
  counted_def(&sc, &c, &def);
  def.tau = 0.2;
  tf_sim *sim = NULL;
  uint32_t id;
  ENSURE(tf_cloth_create(&def, &sim, NULL, 0) == TF_OK);
  ENSURE(body_add(sim, &b, 0.005, 0.3, &id) == TF_OK);
  const double thick = 0.004, on = 1.0, mu = 0.3;
  ENSURE(tf_sim_set_param(sim, TF_PARAM_THICKNESS, &thick, 1) == TF_OK &&
         tf_sim_set_param(sim, TF_PARAM_SELF_CONTACT, &on, 1) == TF_OK &&
         tf_sim_set_param(sim, TF_PARAM_FRICTION, &mu, 1) == TF_OK);
  ENSURE(tf_sim_advance(sim, 1.0 / 24.0, 1) == TF_OK); /* contact's storage is set up on use */
  long long created = c.live;
  uint32_t most = 0;
  for (int f = 1; f < 16; ++f) {
    ENSURE(tf_sim_advance(sim, 1.0 / 24.0, 1) == TF_OK);
    tf_stats st = {.struct_size = sizeof st};
    ENSURE(tf_sim_get_stats(sim, &st) == TF_OK);
    if (st.self_pairs > most) most = st.self_pairs;
  }
  TF_NOTE(
      "live bytes after the first frame %.1f MB, peak %.1f MB (%.2fx); at most %u self "
      "candidates in a frame",
      created / 1e6, c.peak / 1e6, (double)c.peak / (double)created, most);
  ENSURE_MSG(most > 5000, "only %u self candidates: the scene does not fold fast", most);
  ENSURE_MSG(c.peak <= 2 * created, "peak %.1f MB against %.1f MB after the first frame",
             c.peak / 1e6, created / 1e6);
  tf_sim_destroy(sim);
  ENSURE(c.live == 0);
  body_free(&b);
  scene_free(&sc);
}
