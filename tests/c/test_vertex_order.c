/* SPDX-License-Identifier: MIT
 * Flesh numbers its vertices along a Morton curve of their rest positions (sim_flesh.c), and the
 * host never sees that order. A mesh and the same mesh renumbered must then simulate bit for bit
 * the same, read through every per-vertex call of the ABI, and every message must name the host's
 * vertices. */
#include <stdlib.h>
#include <string.h>

#include "scenes.h"
#include "sim/sim.h"
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

/* every per-vertex read-back of a and b is the same, row pa[i] of a against row pb[i] of b, bit
 * for bit, for the n vertices of the reference */
static int same_rows(const tf_sim *a, const tf_sim *b, const uint32_t *pa, const uint32_t *pb,
                     uint32_t n, const char **what) {
  double *ra = malloc(sizeof(double) * 3 * n), *rb = malloc(sizeof(double) * 3 * n);
  float *fa = malloc(sizeof(float) * 3 * n), *fb = malloc(sizeof(float) * 3 * n);
  tf_status (*get[])(const tf_sim *, double *, uint32_t) = {
      tf_sim_get_positions, tf_sim_get_velocities, tf_sim_get_normals, tf_sim_get_forces,
      tf_sim_get_rest_positions};
  const char *names[] = {"positions", "velocities", "normals", "forces", "rest positions"};
  int same = 1;
  for (size_t g = 0; same && g < sizeof get / sizeof get[0]; ++g) {
    same = get[g](a, ra, n) == TF_OK && get[g](b, rb, n) == TF_OK;
    for (uint32_t i = 0; same && i < n; ++i) same = !memcmp(ra + 3 * pa[i], rb + 3 * pb[i], 24);
    *what = names[g];
  }
  if (same) {
    *what = "masses";
    same = tf_sim_get_masses(a, ra, n) == TF_OK && tf_sim_get_masses(b, rb, n) == TF_OK;
    for (uint32_t i = 0; same && i < n; ++i) same = ra[pa[i]] == rb[pb[i]];
  }
  if (same) {
    *what = "float positions";
    same = tf_sim_get_positions_f(a, fa, n) == TF_OK && tf_sim_get_positions_f(b, fb, n) == TF_OK;
    for (uint32_t i = 0; same && i < n; ++i) same = !memcmp(fa + 3 * pa[i], fb + 3 * pb[i], 12);
  }
  free(ra), free(rb), free(fa), free(fb);
  return same;
}

/* the triangles of a and b: the same list, corner pa[i] of a where b has pb[i] (inverses ia, ib) */
static int same_triangles(const tf_sim *a, const tf_sim *b, const uint32_t *ia,
                          const uint32_t *ib) {
  uint32_t nt = tf_sim_tri_count(a);
  uint32_t *ta = malloc(sizeof(uint32_t) * 3 * nt), *tb = malloc(sizeof(uint32_t) * 3 * nt);
  int same = tf_sim_tri_count(b) == nt && tf_sim_get_triangles(a, ta, nt) == TF_OK &&
             tf_sim_get_triangles(b, tb, nt) == TF_OK;
  for (size_t k = 0; same && k < 3 * (size_t)nt; ++k) same = ia[ta[k]] == ib[tb[k]];
  free(ta), free(tb);
  return same;
}

static uint32_t *inverse(const uint32_t *p, uint32_t n) {
  uint32_t *q = malloc(sizeof(uint32_t) * n);
  for (uint32_t i = 0; i < n; ++i) q[p[i]] = i;
  return q;
}

TF_TEST(vertex_order_a_renumbered_mesh_simulates_bit_for_bit_the_same) {
  tet_scene a, b, c;
  scene_block(&a, 6, 3, 3, 0.05, 0.1 / 3, 0.1 / 3);
  const uint32_t n = a.vert_count;
  uint32_t *pb = calloc(n, sizeof(uint32_t)), *pc = calloc(n, sizeof(uint32_t));
  shuffle(pb, n, 12345);
  shuffle(pc, n, 777);
  renumber(&a, pb, &b);
  renumber(&a, pc, &c);
  uint32_t *ib = inverse(pb, n), *ic = inverse(pc, n);
  tf_tet_element elements[2] = {TF_TET_LINEAR, TF_TET_QUADRATIC};
  for (int e = 0; e < 2; ++e) {
    tf_sim *sa = run(&a, &a, NULL, elements[e]), *sb = run(&a, &b, pb, elements[e]),
           *sc = run(&a, &c, pc, elements[e]);
    ENSURE(sa && sb && sc);
    /* the lattice's own order is local and kept; a shuffle's is not */
    ENSURE(!sa->model.host_of && sb->model.host_of && sc->model.host_of);
    const char *what = "";
    int same = same_rows(sb, sc, pb, pc, n, &what), tris = same_triangles(sb, sc, ib, ic);
    double *x = malloc(sizeof(double) * 3 * n), *y = malloc(sizeof(double) * 3 * n);
    tf_sim_get_positions(sa, x, n);
    tf_sim_get_positions(sb, y, n);
    double off = 0.0;
    for (uint32_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) off = fmax(off, fabs(x[3 * i + k] - y[3 * pb[i] + k]));
    fprintf(stderr,
            "    note: %s tets, %u vertices shuffled twice: %s; host vertex 0 (pinned, turned) at "
            "(%.4f %.4f %.4f); the lattice's own order within %.1e m\n",
            e ? "quadratic" : "linear", n, same && tris ? "every read-back the same" : what, x[0],
            x[1], x[2], off);
    free(x), free(y);
    tf_sim_destroy(sa), tf_sim_destroy(sb), tf_sim_destroy(sc);
    ENSURE_MSG(same, "%s differ", what);
    ENSURE_MSG(tris, "the triangles differ");
    ENSURE(off < 1e-5); /* another order rounds differently: solves within their tolerance */
  }
  free(pb), free(pc), free(ib), free(ic);
  tet_scene_free(&a), tet_scene_free(&b), tet_scene_free(&c);
}

/* cloth: a 16 x 16 sheet with a weak middle row, uneven masses and a start off its rest plane,
 * shuffled twice, pulled apart until it tears (test_tear.c's scene): the same tear, the copies
 * appended in the same order, their origins the same vertices; and a grid row by row keeps its
 * own order */
enum { SX = 16, SV = (SX + 1) * (SX + 1) };

static tf_sim *torn_sheet(const scene *sc, const uint32_t *pi, uint32_t *count) {
  tf_cloth_def def;
  scene_def(sc, &def);
  double *pos = malloc(sizeof(double) * 3 * SV), map[SV], tg[3 * 2 * (SX + 1)];
  uint32_t *tris = malloc(sizeof(uint32_t) * 3 * sc->tri_count), pins[2 * (SX + 1)];
  double *x0 = malloc(sizeof(double) * 3 * SV), mass[SV];
  for (uint32_t i = 0; i < SV; ++i) {
    memcpy(pos + 3 * pi[i], sc->pos + 3 * i, 24);
    memcpy(x0 + 3 * pi[i], sc->pos + 3 * i, 24);
    x0[3 * pi[i] + 2] = 1e-3 * (double)(i % 5);             /* a start off the rest plane */
    mass[pi[i]] = 0.1 / SV * (1.0 + 0.1 * (double)(i % 3)); /* kg, uneven */
  }
  for (size_t k = 0; k < 3 * (size_t)sc->tri_count; ++k) tris[k] = pi[sc->tri[k]];
  def.rest_positions = pos, def.triangles = tris, def.initial_positions = x0;
  def.vertex_masses = mass;
  def.gravity[2] = 0.0;
  def.density = 0.1, def.stretch_stiffness = 200.0, def.tau = 2.0;
  tf_sim *s = NULL;
  int ok = tf_cloth_create(&def, &s, NULL, 0) == TF_OK;
  for (uint32_t i = 0; i < SV; ++i) map[pi[i]] = i / (SX + 1) == SX / 2 ? 0.04 : 0.5;
  ok = ok && tf_sim_set_param_map(s, TF_PARAM_TEAR_STRAIN, map, SV) == TF_OK;
  for (uint32_t i = 0; i <= SX; ++i) pins[i] = pi[i], pins[SX + 1 + i] = pi[SX * (SX + 1) + i];
  ok = ok && tf_sim_set_pins(s, pins, NULL, 2 * (SX + 1)) == TF_OK &&
       tf_sim_get_pin_targets(s, tg, 2 * (SX + 1)) == TF_OK;
  for (int f = 1; ok && f <= 36; ++f) {
    for (uint32_t q = SX + 1; q < 2 * (SX + 1); ++q)
      tg[3 * q + 1] = 1.0 + 0.12 * fmin(1.0, f / 24.0);
    ok = tf_sim_set_pin_targets(s, tg, 2 * (SX + 1)) == TF_OK &&
         tf_sim_advance(s, 1.0 / 24, 2) == TF_OK;
  }
  free(pos), free(tris), free(x0);
  *count = ok ? tf_sim_vert_count(s) : 0;
  if (!ok) tf_sim_destroy(s);
  return ok ? s : NULL;
}

TF_TEST(vertex_order_a_renumbered_cloth_tears_bit_for_bit_the_same) {
  const double O[3] = {0, 0, 0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0};
  scene sc;
  scene_grid(&sc, SX, SX, 1.0, 1.0, O, EX, EY, 0);
  uint32_t pa[SV], pb[SV], pc[SV], na, nb, nc;
  for (uint32_t i = 0; i < SV; ++i) pa[i] = i;
  shuffle(pb, SV, 4242);
  shuffle(pc, SV, 99);
  tf_sim *sa = torn_sheet(&sc, pa, &na), *sb = torn_sheet(&sc, pb, &nb),
         *sc2 = torn_sheet(&sc, pc, &nc);
  ENSURE(sa && sb && sc2);
  ENSURE(!sa->model.host_of && sb->model.host_of && sc2->model.host_of);
  ENSURE_MSG(nb > SV && nb == nc && na == nb, "vertices after the tear: %u, %u, %u of %u", na, nb,
             nc, (unsigned)SV);
  /* the sheet's own vertices through the shuffles, the copies as they were appended */
  uint32_t *qb = malloc(sizeof(uint32_t) * nb), *qc = malloc(sizeof(uint32_t) * nb);
  for (uint32_t i = 0; i < nb; ++i) qb[i] = i < SV ? pb[i] : i, qc[i] = i < SV ? pc[i] : i;
  uint32_t *ib = inverse(qb, nb), *ic = inverse(qc, nb);
  const char *what = "";
  int same = same_rows(sb, sc2, qb, qc, nb, &what), tris = same_triangles(sb, sc2, ib, ic);
  uint32_t *ob = malloc(sizeof(uint32_t) * nb), *oc = malloc(sizeof(uint32_t) * nb);
  int origins = tf_sim_get_vertex_origins(sb, ob, nb) == TF_OK &&
                tf_sim_get_vertex_origins(sc2, oc, nb) == TF_OK;
  for (uint32_t i = 0; origins && i < nb; ++i) origins = ib[ob[qb[i]]] == ic[oc[qc[i]]];
  int parents = tf_sim_get_vertex_parents(sb, ob, nb) == TF_OK &&
                tf_sim_get_vertex_parents(sc2, oc, nb) == TF_OK;
  for (uint32_t i = 0; parents && i < nb; ++i) parents = ib[ob[qb[i]]] == ic[oc[qc[i]]];
  fprintf(stderr, "    note: %u -> %u vertices; shuffled twice: %s, origins %s, parents %s\n", SV,
          nb, same && tris ? "every read-back the same" : what, origins ? "same" : "differ",
          parents ? "same" : "differ");
  free(qb), free(qc), free(ib), free(ic), free(ob), free(oc);
  tf_sim_destroy(sa), tf_sim_destroy(sb), tf_sim_destroy(sc2);
  scene_free(&sc);
  ENSURE_MSG(same, "%s differ", what);
  ENSURE(tris && origins && parents);
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
