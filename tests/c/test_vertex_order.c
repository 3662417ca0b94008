/* SPDX-License-Identifier: MIT
 * Flesh numbers its vertices along a Morton curve of their rest positions (sim_flesh.c), and the
 * host never sees that order. A mesh and the same mesh renumbered must then simulate bit for bit
 * the same, read through every per-vertex call of the ABI, and every message must name the host's
 * vertices. */
#include <stdlib.h>
#include <string.h>

#include "scenes.h"
#include "tf_test.h"

/* a fixed shuffle of n indices (Fisher-Yates on a 64-bit LCG) */
static void shuffle(uint32_t *p, uint32_t n, uint64_t seed) {
  for (uint32_t i = 0; i < n; ++i) p[i] = i;
  for (uint32_t i = n; i > 1; --i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t j = (uint32_t)((seed >> 33) % i), t = p[i - 1];
    p[i - 1] = p[j], p[j] = t;
  }
}

/* b: a's mesh with a's vertex i as b's pi[i] */
static void renumber(const tet_scene *a, const uint32_t *pi, tet_scene *b) {
  b->vert_count = a->vert_count, b->tet_count = a->tet_count;
  b->pos = malloc(sizeof(double) * 3 * a->vert_count);
  b->tets = malloc(sizeof(uint32_t) * 4 * a->tet_count);
  for (uint32_t i = 0; i < a->vert_count; ++i) memcpy(b->pos + 3 * pi[i], a->pos + 3 * i, 24);
  for (size_t k = 0; k < 4 * (size_t)a->tet_count; ++k) b->tets[k] = pi[a->tets[k]];
}

/* one simulation of a mesh whose vertex i is the reference's pi[i] (pi NULL: the reference):
 * pins on the x = 0 face turning about x, a plastic map, forces and a start velocity, 6 frames */
static tf_sim *run(const tet_scene *ref, const tet_scene *m, const uint32_t *pi,
                   tf_tet_element element) {
  const uint32_t n = ref->vert_count;
#define P(i) (pi ? pi[i] : (i))
  tf_flesh_def def;
  scene_flesh_def(m, &def);
  def.element = element;
  def.tau = 0.05;
  def.kappa = 0.3;
  def.threads = 2;
  tf_sim *s = NULL;
  char err[256];
  if (tf_flesh_create(&def, &s, err, sizeof err) != TF_OK) {
    fprintf(stderr, "  flesh create: %s\n", err);
    return NULL;
  }
  uint32_t *ri = malloc(sizeof(uint32_t) * n), *pins = malloc(sizeof(uint32_t) * n), count = 0;
  double *a = malloc(sizeof(double) * 3 * n), *b = malloc(sizeof(double) * 3 * n);
  for (uint32_t i = 0; i < n; ++i)
    if (ref->pos[3 * i] == 0.0) ri[count] = i, pins[count++] = P(i);
  int ok = tf_sim_set_pins(s, pins, NULL, count) == TF_OK;
  for (uint32_t i = 0; i < n; ++i) a[P(i)] = 2e-3 * (1.0 + i % 7); /* plastic yield, a strain */
  ok = ok && tf_sim_set_param_map(s, TF_PARAM_PLASTIC_YIELD, a, n) == TF_OK;
  for (uint32_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      a[3 * P(i) + k] = ref->pos[3 * i + k];
      b[3 * P(i) + k] = 0.01 * ((i * 7 + (uint32_t)k * 3) % 11) - 0.05; /* m/s */
    }
  ok = ok && tf_sim_set_state(s, a, b, n) == TF_OK;
  for (uint32_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) a[3 * P(i) + k] = k == 1 ? 0.02 * (i % 5) : 0.0; /* N */
  ok = ok && tf_sim_set_forces(s, a, n) == TF_OK;
  for (int f = 0; ok && f < 6; ++f) {
    double c = cos(0.05 * (f + 1)), sn = sin(0.05 * (f + 1));
    for (uint32_t q = 0; q < count; ++q) {
      double y = ref->pos[3 * ri[q] + 1] - 0.05, z = ref->pos[3 * ri[q] + 2] - 0.05;
      a[3 * q] = 0.0, a[3 * q + 1] = 0.05 + c * y - sn * z, a[3 * q + 2] = 0.05 + sn * y + c * z;
    }
    ok = tf_sim_set_pin_targets(s, a, count) == TF_OK && tf_sim_advance(s, 1.0 / 24, 2) == TF_OK;
  }
#undef P
  if (!ok) fprintf(stderr, "  %s\n", tf_sim_last_error(s));
  free(ri), free(pins), free(a), free(b);
  if (!ok) tf_sim_destroy(s);
  return ok ? s : NULL;
}

/* every per-vertex read-back of b equals a's, row pi[i] of b against row i of a, bit for bit */
static int same_rows(const tf_sim *a, const tf_sim *b, const uint32_t *pi, uint32_t n,
                     const char **what) {
  double *ra = malloc(sizeof(double) * 3 * n), *rb = malloc(sizeof(double) * 3 * n);
  float *fa = malloc(sizeof(float) * 3 * n), *fb = malloc(sizeof(float) * 3 * n);
  tf_status (*get[])(const tf_sim *, double *, uint32_t) = {
      tf_sim_get_positions, tf_sim_get_velocities, tf_sim_get_normals, tf_sim_get_forces,
      tf_sim_get_rest_positions};
  const char *names[] = {"positions", "velocities", "normals", "forces", "rest positions"};
  int same = 1;
  for (size_t g = 0; same && g < sizeof get / sizeof get[0]; ++g) {
    same = get[g](a, ra, n) == TF_OK && get[g](b, rb, n) == TF_OK;
    for (uint32_t i = 0; same && i < n; ++i) same = !memcmp(ra + 3 * i, rb + 3 * pi[i], 24);
    *what = names[g];
  }
  if (same) {
    *what = "masses";
    same = tf_sim_get_masses(a, ra, n) == TF_OK && tf_sim_get_masses(b, rb, n) == TF_OK;
    for (uint32_t i = 0; same && i < n; ++i) same = ra[i] == rb[pi[i]];
  }
  if (same) {
    *what = "float positions";
    same = tf_sim_get_positions_f(a, fa, n) == TF_OK && tf_sim_get_positions_f(b, fb, n) == TF_OK;
    for (uint32_t i = 0; same && i < n; ++i) same = !memcmp(fa + 3 * i, fb + 3 * pi[i], 12);
  }
  free(ra), free(rb), free(fa), free(fb);
  return same;
}

TF_TEST(vertex_order_a_renumbered_mesh_simulates_bit_for_bit_the_same) {
  tet_scene a, b;
  scene_block(&a, 6, 3, 3, 0.05, 0.1 / 3, 0.1 / 3);
  const uint32_t n = a.vert_count;
  uint32_t *pi = malloc(sizeof(uint32_t) * n);
  shuffle(pi, n, 12345);
  renumber(&a, pi, &b);
  tf_tet_element elements[2] = {TF_TET_LINEAR, TF_TET_QUADRATIC};
  for (int e = 0; e < 2; ++e) {
    tf_sim *sa = run(&a, &a, NULL, elements[e]), *sb = run(&a, &b, pi, elements[e]);
    ENSURE(sa && sb);
    const char *what = "";
    int same = same_rows(sa, sb, pi, n, &what);
    /* the boundary triangles: the same list, each corner renamed */
    uint32_t nt = tf_sim_tri_count(sa);
    uint32_t *ta = malloc(sizeof(uint32_t) * 3 * nt), *tb = malloc(sizeof(uint32_t) * 3 * nt);
    int tris = tf_sim_tri_count(sb) == nt && tf_sim_get_triangles(sa, ta, nt) == TF_OK &&
               tf_sim_get_triangles(sb, tb, nt) == TF_OK;
    for (size_t k = 0; tris && k < 3 * (size_t)nt; ++k) tris = tb[k] == pi[ta[k]];
    double *x = malloc(sizeof(double) * 3 * n);
    tf_sim_get_positions(sa, x, n);
    fprintf(stderr,
            "    note: %s tets, %u vertices shuffled: %s; host vertex 0 (pinned, turned) at "
            "(%.4f %.4f %.4f)\n",
            e ? "quadratic" : "linear", n, same && tris ? "every read-back the same" : what, x[0],
            x[1], x[2]);
    free(x);
    free(ta), free(tb);
    tf_sim_destroy(sa), tf_sim_destroy(sb);
    ENSURE_MSG(same, "%s differ", what);
    ENSURE_MSG(tris, "the triangles differ");
  }
  free(pi);
  tet_scene_free(&a), tet_scene_free(&b);
}

/* messages name the host's vertices: a bad start position, a bad rest position, a vertex in no
 * tet, whatever the simulation's own order */
TF_TEST(vertex_order_messages_name_the_hosts_vertices) {
  tet_scene a;
  scene_block(&a, 4, 2, 2, 0.05, 0.05, 0.05);
  const uint32_t n = a.vert_count, j = n / 3;
  tf_flesh_def def;
  scene_flesh_def(&a, &def);
  tf_sim *s = NULL;
  char err[256], want[64];
  ENSURE(tf_flesh_create(&def, &s, err, sizeof err) == TF_OK);
  double *x = malloc(sizeof(double) * 3 * (n + 1));
  tf_sim_get_positions(s, x, n);
  x[3 * j + 1] = NAN;
  ENSURE(tf_sim_set_state(s, x, NULL, n) == TF_E_INVALID_ARG);
  snprintf(want, sizeof want, "position of vertex %u is not finite", j);
  ENSURE_MSG(strstr(tf_sim_last_error(s), want), "%s", tf_sim_last_error(s));
  tf_sim_destroy(s);
  /* a NaN rest position, numbered from 1 */
  memcpy(x, a.pos, sizeof(double) * 3 * n);
  x[3 * j] = NAN;
  def.rest_positions = x;
  def.index_base = 1;
  ENSURE(tf_flesh_create(&def, &s, err, sizeof err) == TF_E_BAD_MESH);
  snprintf(want, sizeof want, "vertex %u has a non-finite position", j + 1);
  ENSURE_MSG(strstr(err, want), "%s", err);
  /* a vertex no tet uses, appended as vertex n */
  memcpy(x, a.pos, sizeof(double) * 3 * n);
  x[3 * n] = x[3 * n + 1] = x[3 * n + 2] = 0.025;
  def.vert_count = n + 1;
  def.index_base = 0;
  ENSURE(tf_flesh_create(&def, &s, err, sizeof err) == TF_E_BAD_MESH);
  snprintf(want, sizeof want, "vertex %u is in no tet", n);
  ENSURE_MSG(strstr(err, want), "%s", err);
  fprintf(stderr, "    note: %s\n", err);
  free(x);
  tet_scene_free(&a);
}
