/* SPDX-License-Identifier: MIT
 * Tearing (issue 23, sim/tear.c): a sheet pulled apart by two pin lines tears along its weakened
 * line and nowhere else, into two pieces; mass and momentum are kept through the split; no
 * NaN and no zero-area triangle after it; a torn-off piece falls ballistically; the run is
 * deterministic; the host reads the new topology; bad thresholds and unsupported combinations
 * are refused by name. */
#include <stdlib.h>
#include <string.h>

#include "core/vec3.h"
#include "scenes.h"
#include "sim/sim.h"
#include "testmath.h"
#include "tf_test.h"

enum { NX = 16, NY = 16, NV = (NX + 1) * (NY + 1) };

/* a 1 m square sheet in the x-y plane (no gravity), rows j = 0..NY of NX + 1 vertices (vertex
 * j (NX + 1) + i), its tear strain 0.5 but `weak` on row NY / 2 (0 there: uniform 0.5) */
static tf_sim *sheet(scene *sc, double weak, int spring_cloth) {
  const double O[3] = {0, 0, 0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0};
  scene_grid(sc, NX, NY, 1.0, 1.0, O, EX, EY, 0);
  tf_cloth_def def;
  scene_def(sc, &def);
  def.gravity[2] = 0.0;
  def.density = 0.1, def.stretch_stiffness = 200.0, def.tau = 2.0;
  if (spring_cloth) def.cloth_model = TF_CLOTH_SPRINGS;
  tf_sim *sim = NULL;
  if (tf_cloth_create(&def, &sim, NULL, 0) != TF_OK) return NULL;
  double map[NV];
  for (uint32_t i = 0; i < NV; ++i) map[i] = (i / (NX + 1) == NY / 2 && weak > 0.0) ? weak : 0.5;
  if (tf_sim_set_param_map(sim, TF_PARAM_TEAR_STRAIN, map, NV) != TF_OK)
    return tf_sim_destroy(sim), NULL;
  return sim;
}

/* pieces of the mesh (connected through shared vertices) */
static uint32_t pieces(const uint32_t *tris, uint32_t nt, uint32_t nv) {
  uint32_t *p = malloc(sizeof(uint32_t) * nv), count = nv;
  for (uint32_t i = 0; i < nv; ++i) p[i] = i;
  for (uint32_t f = 0; f < nt; ++f)
    for (int k = 1; k < 3; ++k) {
      uint32_t a = tris[3 * f], b = tris[3 * f + k];
      while (p[a] != a) a = p[a];
      while (p[b] != b) b = p[b];
      if (a != b) p[a > b ? a : b] = a < b ? a : b, --count;
    }
  free(p);
  return count;
}

/* pulled apart: the bottom row held, the top row moved 12 cm up over 1 s (12 % strain), then
 * 0.5 s held there; positions (Nullable) and the vertex count at the end */
/* most_crossings and fewest_contacts (Nullable): over the frames, the most self-intersections and
 * the fewest contacts the stats report */
static uint32_t pull_counting(tf_sim *sim, double *positions, uint32_t *most_crossings,
                              uint32_t *fewest_contacts) {
  uint32_t pins[2 * (NX + 1)];
  for (uint32_t i = 0; i <= NX; ++i) pins[i] = i, pins[NX + 1 + i] = NY * (NX + 1) + i;
  if (tf_sim_set_pins(sim, pins, NULL, 2 * (NX + 1)) != TF_OK) return 0;
  double tg[3 * 2 * (NX + 1)];
  tf_sim_get_pin_targets(sim, tg, 2 * (NX + 1));
  for (int f = 1; f <= 36; ++f) {
    const double s = f <= 24 ? f / 24.0 : 1.0;
    for (uint32_t q = NX + 1; q < 2 * (NX + 1); ++q) tg[3 * q + 1] = 1.0 + 0.12 * s;
    if (tf_sim_set_pin_targets(sim, tg, 2 * (NX + 1)) != TF_OK) return 0;
    if (tf_sim_advance(sim, 1.0 / 24, 2) != TF_OK) return 0;
    uint32_t crossings = 0;
    if (most_crossings && tf_sim_self_intersections(sim, NULL, 0, &crossings) == TF_OK &&
        crossings > *most_crossings)
      *most_crossings = crossings;
    tf_stats st = {.struct_size = sizeof st};
    if (fewest_contacts && tf_sim_get_stats(sim, &st) == TF_OK && st.contacts < *fewest_contacts)
      *fewest_contacts = st.contacts;
  }
  const uint32_t n = tf_sim_vert_count(sim);
  if (positions) tf_sim_get_positions(sim, positions, n);
  return n;
}

static uint32_t pull(tf_sim *sim, double *positions) {
  return pull_counting(sim, positions, NULL, NULL);
}

TF_TEST(tear_along_the_weakened_line_only) {
  for (int model = 0; model < 2; ++model) {
    scene sc;
    tf_sim *sim = sheet(&sc, 0.04, model);
    ENSURE(sim);
    double *x = malloc(sizeof(double) * 3 * 2 * NV);
    const uint32_t n = pull(sim, x);
    tf_topology topo = {.struct_size = sizeof topo};
    ENSURE(tf_sim_get_topology(sim, &topo) == TF_OK);
    const uint32_t nt = tf_sim_tri_count(sim);
    uint32_t *tris = malloc(sizeof(uint32_t) * 3 * nt), *origin = malloc(sizeof(uint32_t) * n);
    ENSURE(tf_sim_get_triangles(sim, tris, nt) == TF_OK);
    ENSURE(tf_sim_get_vertex_origins(sim, origin, n) == TF_OK);
    uint32_t off_line = 0;
    for (uint32_t i = NV; i < n; ++i) off_line += origin[i] / (NX + 1) != NY / 2;
    /* every triangle keeps an area: none collapsed, none NaN */
    double min_area = INFINITY;
    int finite = 1;
    for (uint32_t k = 0; k < 3 * n; ++k) finite &= isfinite(x[k]);
    for (uint32_t f = 0; f < nt; ++f) {
      double e1[3], e2[3], c[3];
      v3_sub(e1, x + 3 * tris[3 * f + 1], x + 3 * tris[3 * f]);
      v3_sub(e2, x + 3 * tris[3 * f + 2], x + 3 * tris[3 * f]);
      v3_cross(c, e1, e2);
      min_area = fmin(min_area, 0.5 * v3_norm(c));
    }
    /* the gap: the lowest vertex above the line less the highest below it */
    double above = INFINITY, below = -INFINITY;
    const uint32_t np = pieces(tris, nt, n);
    for (uint32_t f = 0; f < nt; ++f) {
      int up = 0;
      for (int k = 0; k < 3; ++k) up |= origin[tris[3 * f + k]] / (NX + 1) > NY / 2;
      for (int k = 0; k < 3; ++k) {
        const double y = x[3 * tris[3 * f + k] + 1];
        if (up)
          above = fmin(above, y);
        else
          below = fmax(below, y);
      }
    }
    TF_NOTE(
        "%s: %u vertices (%u at create, %u edges broken, serial %llu), %u pieces, %u split "
        "vertices off the weak row, smallest triangle %.2e m^2, gap %.1f mm",
        model ? "springs" : "membrane", n, topo.original_vert_count, topo.torn_edges,
        (unsigned long long)topo.serial, np, off_line, min_area, 1e3 * (above - below));
    /* parents come before their copies, and share their origin */
    uint32_t *parent = malloc(sizeof(uint32_t) * n), bad_parent = 0;
    ENSURE(tf_sim_get_vertex_parents(sim, parent, n) == TF_OK);
    for (uint32_t i = 0; i < n; ++i)
      bad_parent += i < NV ? parent[i] != i || origin[i] != i
                           : parent[i] >= i || origin[parent[i]] != origin[i];
    free(parent);
    ENSURE(bad_parent == 0);
    ENSURE(finite && topo.vert_count == n && topo.original_vert_count == NV);
    ENSURE(n == NV + NX + 1); /* the weak row, every vertex once */
    ENSURE(off_line == 0 && np == 2);
    ENSURE(min_area > 1e-4);
    ENSURE(above - below > 0.05);
    free(x), free(tris), free(origin);
    tf_sim_destroy(sim);
    scene_free(&sc);
  }
}

/* a free sheet (no pins) torn by its own motion: its top half thrown up, its bottom half down,
 * faster than the weak row holds. Mass and momentum (less gravity's impulse) are the same before
 * and after every split to round-off, the run is bit for bit the same twice, and a torn-off half
 * falls ballistically once free: its centre of mass on the discrete parabola */
TF_TEST(tear_keeps_mass_and_momentum_and_is_deterministic) {
  double out[2][3 * 2 * NV];
  uint32_t nout[2];
  for (int run = 0; run < 2; ++run) {
    scene sc;
    tf_sim *sim = sheet(&sc, 0.02, 0);
    ENSURE(sim);
    const double kappa = 1.0; /* inertia in the deformation (kappa 0 is pure flow): the throw
                               * stretches the weak row */
    const double soft = 5.0;  /* N/m: a wave crosses the sheet in a fifth of a second */
    ENSURE(tf_sim_set_param(sim, TF_PARAM_KAPPA, &kappa, 1) == TF_OK &&
           tf_sim_set_param(sim, TF_PARAM_STRETCH_STIFFNESS, &soft, 1) == TF_OK);
    const double g[3] = {0, 0, -9.81};
    ENSURE(tf_sim_set_param(sim, TF_PARAM_GRAVITY, g, 3) == TF_OK);
    double v[3 * NV];
    for (uint32_t i = 0; i < NV; ++i)
      v3_set(v + 3 * i, 0.0, i / (NX + 1) > NY / 2 ? 3.0 : i / (NX + 1) < NY / 2 ? -3.0 : 0.0, 0);
    ENSURE(tf_sim_set_state(sim, sc.pos, v, NV) == TF_OK);
    double P0[3] = {0, 0, 0}, M0 = 0.0, worst_P = 0.0, worst_M = 0.0;
    for (uint32_t i = 0; i < NV; ++i) {
      M0 += sim->model.mass[i];
      v3_axpy(P0, sim->model.mass[i], v + 3 * i);
    }
    double com[24][3];
    uint32_t upper_n = 0;
    for (int f = 0; f < 24; ++f) {
      ENSURE(tf_sim_advance(sim, 1.0 / 24, 1) == TF_OK);
      double P[3] = {0, 0, 0}, M = 0.0, c[3] = {0, 0, 0}, mu = 0.0;
      const uint32_t n = sim->model.n;
      for (uint32_t i = 0; i < n; ++i) {
        M += sim->model.mass[i];
        v3_axpy(P, sim->model.mass[i], sim->state.v + 3 * i);
      }
      /* the upper half's centre of mass, by origin row */
      for (uint32_t i = 0; i < n; ++i) {
        const uint32_t row = sim->tear->origin[i] / (NX + 1);
        int up = row > NY / 2;
        if (row == NY / 2) { /* the row's own vertices: the copy that went with the top */
          up = i >= NV;
        }
        if (!up) continue;
        mu += sim->model.mass[i];
        v3_axpy(c, sim->model.mass[i], sim->state.x + 3 * i);
      }
      v3_scale(com[f], c, 1.0 / mu);
      upper_n = n;
      double dP[3]; /* gravity's impulse taken out: M g t */
      v3_sub(dP, P, P0);
      dP[2] -= M0 * -9.81 * (f + 1) / 24.0;
      worst_P = fmax(worst_P, v3_norm(dP));
      worst_M = fmax(worst_M, fabs(M - M0));
    }
    tf_topology topo = {.struct_size = sizeof topo};
    tf_sim_get_topology(sim, &topo);
    /* the last 12 frames, the halves apart: the upper one's centre moves evenly */
    double d1[3], d2[3], worst = 0.0;
    for (int f = 14; f < 24; ++f) {
      v3_sub(d1, com[f], com[f - 1]);
      v3_sub(d2, com[f - 1], com[f - 2]);
      v3_sub(d1, d1, d2);
      d1[2] -= -9.81 / (24.0 * 24.0); /* the discrete parabola's g dt^2 */
      worst = fmax(worst, v3_norm(d1));
    }
    TF_NOTE(
        "run %d: %u vertices after, %u edges broken; |P - P0| <= %.1e kg m/s (|P0| = "
        "%.1e), |M - M0| <= %.1e kg of %.4f; upper half's centre: off the parabola by <= %.1e m "
        "(speed %.3f m/s)",
        run, upper_n, topo.torn_edges, worst_P, v3_norm(P0), worst_M, M0, worst,
        24.0 * (com[23][1] - com[22][1]));
    ENSURE(topo.serial >= 1 && upper_n > NV);
    ENSURE(worst_P < 1e-12 && worst_M < 1e-14);
    ENSURE(worst < 1e-6);
    nout[run] = upper_n;
    tf_sim_get_positions(sim, out[run], upper_n);
    tf_sim_destroy(sim);
    scene_free(&sc);
  }
  ENSURE(nout[0] == nout[1] && memcmp(out[0], out[1], sizeof(double) * 3 * nout[0]) == 0);
}

/* tear_strain out of range (uniform or in a map) or on flesh: refused by name, nothing changed */
TF_TEST(tear_bad_input_refused) {
  scene sc;
  tf_sim *sim = sheet(&sc, 0.0, 0);
  ENSURE(sim);
  double v = -0.1;
  ENSURE(tf_sim_set_param(sim, TF_PARAM_TEAR_STRAIN, &v, 1) == TF_E_INVALID_ARG);
  TF_NOTE("%s", tf_sim_last_error(sim));
  ENSURE(strstr(tf_sim_last_error(sim), "tear_strain"));
  v = NAN;
  ENSURE(tf_sim_set_param(sim, TF_PARAM_TEAR_STRAIN, &v, 1) == TF_E_INVALID_ARG);
  double map[NV];
  for (uint32_t i = 0; i < NV; ++i) map[i] = i == 7 ? 11.0 : 0.5;
  ENSURE(tf_sim_set_param_map(sim, TF_PARAM_TEAR_STRAIN, map, NV) == TF_E_INVALID_ARG);
  TF_NOTE("%s", tf_sim_last_error(sim));
  ENSURE(strstr(tf_sim_last_error(sim), "vertex 7"));
  tf_sim_destroy(sim);
  scene_free(&sc);
  /* flesh does not tear */
  tet_scene b;
  scene_block(&b, 1, 1, 1, 0.1, 0.1, 0.1);
  tf_flesh_def fd;
  scene_flesh_def(&b, &fd);
  ENSURE(tf_flesh_create(&fd, &sim, NULL, 0) == TF_OK);
  v = 0.3;
  ENSURE(tf_sim_set_param(sim, TF_PARAM_TEAR_STRAIN, &v, 1) == TF_E_UNSUPPORTED);
  TF_NOTE("%s", tf_sim_last_error(sim));
  tf_sim_destroy(sim);
  tet_scene_free(&b);
}

/* a torn cloth's snapshot loads into the same simulation (its mesh as torn), and a simulation of
 * the untorn mesh refuses it as another mesh; a frame that tears nothing allocates nothing */
TF_TEST(tear_snapshots_and_topology_queries) {
  scene sc;
  tf_sim *sim = sheet(&sc, 0.04, 0);
  ENSURE(sim);
  tf_topology topo = {.struct_size = 0};
  ENSURE(tf_sim_get_topology(sim, &topo) == TF_E_DEF_INIT);
  topo.struct_size = sizeof topo;
  ENSURE(tf_sim_get_topology(sim, &topo) == TF_OK && topo.serial == 0 && !topo.changed);
  const uint32_t n = pull(sim, NULL);
  ENSURE(n > NV);
  const size_t size = tf_sim_state_size(sim);
  void *snap = malloc(size);
  ENSURE(tf_sim_save_state(sim, snap, size) == TF_OK);
  double a[3 * 2 * NV], b[3 * 2 * NV];
  ENSURE(tf_sim_advance(sim, 1.0 / 24, 2) == TF_OK);
  tf_sim_get_positions(sim, a, n);
  ENSURE(tf_sim_get_topology(sim, &topo) == TF_OK && !topo.changed);
  ENSURE_MSG(tf_sim_load_state(sim, snap, size) == TF_OK, "%s", tf_sim_last_error(sim));
  ENSURE(tf_sim_advance(sim, 1.0 / 24, 2) == TF_OK);
  tf_sim_get_positions(sim, b, n);
  ENSURE(memcmp(a, b, sizeof(double) * 3 * n) == 0);
  scene fresh_sc;
  tf_sim *fresh = sheet(&fresh_sc, 0.04, 0);
  ENSURE(fresh && tf_sim_load_state(fresh, snap, size) == TF_E_INVALID_ARG);
  TF_NOTE("untorn simulation: %s", tf_sim_last_error(fresh));
  /* the torn sheet, held still: frames with tearing on that tear nothing allocate nothing */
  const uint64_t allocs = sim->mem.alloc_count;
  for (int f = 0; f < 6; ++f) ENSURE(tf_sim_advance(sim, 1.0 / 24, 2) == TF_OK);
  TF_NOTE("6 frames of the torn sheet: %llu allocations",
          (unsigned long long)(sim->mem.alloc_count - allocs));
  ENSURE(sim->mem.alloc_count == allocs);
  free(snap);
  tf_sim_destroy(fresh);
  tf_sim_destroy(sim);
  scene_free(&sc);
  scene_free(&fresh_sc);
}

/* with contact: the sheet lying on the ground (gravity, friction, self-contact on) is pulled apart
 * along it and tears along its weak row; no vertex goes below the ground, the surface does not
 * cross itself at any frame, the ground and self-contact state followed the split, and so did
 * the stats (the frame that tore reported no contact). A split's
 * copies sit on their parents: their edges touch the parents' triangles at a corner, which is not
 * a crossing (contact/self.c); counted as one, the frame that split read 118-126 crossings, the
 * torn line was left out of self-contact as a tangle, and on 6 of 17 neighbouring paths the sheet
 * ended crossed (tests/ensemble.sh) */
TF_TEST(tear_with_ground_and_self_contact) {
  scene sc;
  tf_sim *sim = sheet(&sc, 0.04, 0);
  ENSURE(sim);
  const double g[3] = {0, 0, -9.81}, up[3] = {0, 0, 1}, h = -0.003, on = 1.0;
  ENSURE(tf_sim_set_param(sim, TF_PARAM_GRAVITY, g, 3) == TF_OK &&
         tf_sim_set_param(sim, TF_PARAM_GROUND_NORMAL, up, 3) == TF_OK &&
         tf_sim_set_param(sim, TF_PARAM_GROUND_HEIGHT, &h, 1) == TF_OK &&
         tf_sim_set_param(sim, TF_PARAM_SELF_CONTACT, &on, 1) == TF_OK);
  double *x = malloc(sizeof(double) * 3 * 2 * NV);
  uint32_t most = 0, fewest = UINT32_MAX;
  const uint32_t n = pull_counting(sim, x, &most, &fewest);
  uint32_t crossings = 99;
  ENSURE(tf_sim_self_intersections(sim, NULL, 0, &crossings) == TF_OK);
  double lowest = INFINITY;
  int finite = 1;
  for (uint32_t i = 0; i < n; ++i) {
    lowest = fmin(lowest, x[3 * i + 2]);
    finite &= isfinite(x[3 * i]) && isfinite(x[3 * i + 1]) && isfinite(x[3 * i + 2]);
  }
  tf_topology topo = {.struct_size = sizeof topo};
  tf_sim_get_topology(sim, &topo);
  TF_NOTE(
      "on the ground with self-contact: %u vertices (%u edges broken), lowest z %.4f m "
      "(ground %.3f), %u self-crossings, at most %u at a frame; at least %u contacts a frame",
      n, topo.torn_edges, lowest, h, crossings, most, fewest);
  ENSURE(finite && n == NV + NX + 1);
  ENSURE(lowest > h && crossings == 0 && most == 0);
  /* the sheet lies on the ground throughout: the frame that tears reports its contacts too */
  ENSURE_MSG(fewest > 100, "a frame reported %u contacts", fewest);
  free(x);
  tf_sim_destroy(sim);
  scene_free(&sc);
}

/* a slit (a broken edge whose ends each keep one fan: no split yet) is tearing's state too: a
 * snapshot taken with one loads into a new simulation of the same mesh, which had no tearing
 * set, and both pulled on tear and move bit for bit alike */
TF_TEST(tear_slit_in_a_snapshot) {
  scene sc[2];
  tf_sim *sim[2];
  for (int k = 0; k < 2; ++k) {
    const double O[3] = {0, 0, 0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0};
    scene_grid(&sc[k], NX, NY, 1.0, 1.0, O, EX, EY, 0);
    tf_cloth_def def;
    scene_def(&sc[k], &def);
    def.gravity[2] = 0.0, def.density = 0.1, def.stretch_stiffness = 200.0, def.tau = 2.0;
    ENSURE(tf_cloth_create(&def, &sim[k], NULL, 0) == TF_OK);
  }
  /* two weak vertices in the middle: the edge between them breaks, nothing splits */
  double map[NV];
  const uint32_t mid = (NY / 2) * (NX + 1) + NX / 2;
  for (uint32_t i = 0; i < NV; ++i) map[i] = i == mid || i == mid + 1 ? 0.02 : 0.5;
  ENSURE(tf_sim_set_param_map(sim[0], TF_PARAM_TEAR_STRAIN, map, NV) == TF_OK);
  ENSURE(pull(sim[0], NULL) == NV);
  tf_topology topo = {.struct_size = sizeof topo};
  tf_sim_get_topology(sim[0], &topo);
  TF_NOTE("slit: %u edges broken, %llu splits", topo.torn_edges, (unsigned long long)topo.serial);
  ENSURE(topo.torn_edges >= 1 && topo.serial == 0);
  const size_t size = tf_sim_state_size(sim[0]);
  void *snap = malloc(size);
  ENSURE(tf_sim_save_state(sim[0], snap, size) == TF_OK);
  ENSURE_MSG(tf_sim_load_state(sim[1], snap, size) == TF_OK, "%s", tf_sim_last_error(sim[1]));
  double x[2][3 * 2 * NV];
  uint32_t n[2];
  tf_topology t2[2];
  for (int k = 0; k < 2; ++k) { /* pulled on, 20 cm more: the slit runs and splits the sheet */
    double tg[3 * 2 * (NX + 1)];
    ENSURE(tf_sim_get_pin_targets(sim[k], tg, 2 * (NX + 1)) == TF_OK);
    for (int f = 0; f < 12; ++f) {
      for (uint32_t q = NX + 1; q < 2 * (NX + 1); ++q) tg[3 * q + 1] += 0.2 / 12;
      ENSURE(tf_sim_set_pin_targets(sim[k], tg, 2 * (NX + 1)) == TF_OK);
      ENSURE(tf_sim_advance(sim[k], 1.0 / 24, 2) == TF_OK);
    }
    n[k] = tf_sim_vert_count(sim[k]);
    tf_sim_get_positions(sim[k], x[k], n[k]);
    t2[k].struct_size = sizeof t2[k];
    tf_sim_get_topology(sim[k], &t2[k]);
  }
  TF_NOTE("12 frames on: %u / %u vertices, %u / %u edges broken", n[0], n[1], t2[0].torn_edges,
          t2[1].torn_edges);
  ENSURE(n[0] > NV && n[0] == n[1] && t2[0].torn_edges == t2[1].torn_edges);
  ENSURE(memcmp(x[0], x[1], sizeof(double) * 3 * n[0]) == 0);
  free(snap);
  for (int k = 0; k < 2; ++k) tf_sim_destroy(sim[k]), scene_free(&sc[k]);
}

/* the response through a split: every copy answers as the vertex it was split from (a group's
 * shares follow the seam), the host's forces stay on the vertices they were given to (their sum
 * kept), and the levels are those of the same rest shape */
TF_TEST(tear_carries_the_response) {
  scene sc;
  tf_sim *sim = sheet(&sc, 0.04, 0);
  ENSURE(sim);
  const uint32_t L = tf_sim_response_levels(sim, NULL, 0);
  double body[16] = {0}, seam[16] = {0}, got[16], f[3 * NV] = {0};
  body[0] = 70.0, body[L - 1] = 30.0, seam[0] = 100.0;
  uint32_t row[NX + 1];
  for (uint32_t i = 0; i <= NX; ++i) row[i] = (NY / 2) * (NX + 1) + i;
  ENSURE(tf_sim_set_response(sim, body, L, NULL, 0) == TF_OK);
  ENSURE(tf_sim_set_response(sim, seam, L, row, NX + 1) == TF_OK);
  f[3 * 40 + 2] = 1e-3, f[3 * row[5] + 2] = -2e-3; /* a push off the seam, one on it */
  ENSURE(tf_sim_set_forces(sim, f, NV) == TF_OK);
  const uint32_t n = pull(sim, NULL);
  ENSURE(n == NV + NX + 1);
  ENSURE(tf_sim_response_levels(sim, NULL, 0) == L);
  uint32_t parent[NV + NX + 1];
  ENSURE(tf_sim_get_vertex_parents(sim, parent, n) == TF_OK);
  for (uint32_t i = 0; i < n; ++i) {
    ENSURE(tf_sim_get_response(sim, i, got, L) == TF_OK);
    const int on_seam = parent[i] / (NX + 1) == NY / 2;
    ENSURE_MSG(got[0] == (on_seam ? 100.0 : 70.0), "vertex %u (from %u): %g %% on level 0", i,
               parent[i], got[0]);
  }
  const sim_levels *lv = sim->levels;
  double sum = 0.0;
  for (uint32_t i = 0; i < n; ++i) sum += lv->force[3 * i + 2];
  ENSURE(lv->force[3 * 40 + 2] == 1e-3 && lv->force[3 * row[5] + 2] == -2e-3);
  ENSURE_NEAR(sum, -1e-3, 1e-18);
  tf_sim_destroy(sim);
  scene_free(&sc);
}
