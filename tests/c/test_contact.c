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
  uint32_t inside;  /* vertices within the sphere's inscribed radius */
  double min_clear; /* smallest distance from the centre minus the sphere's radius */
} check;

static void check_frame(const scene *sc, const double *x, const body *b, const double c[3],
                        double r, check *out) {
  long cr = cloth_body_crossings(sc, x, b, NULL);
  if (cr > out->crossings) out->crossings = cr;
  for (uint32_t i = 0; i < sc->vert_count; ++i) {
    const double *p = x + 3 * i;
    double d = sqrt((p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) +
                    (p[2] - c[2]) * (p[2] - c[2]));
    if (d < b->inner) out->inside++;
    if (d - r < out->min_clear) out->min_clear = d - r;
  }
}

/* a 1 m sheet of n x n cells dropped from 0.2 m above a 0.3 m sphere, the ground below */
static tf_sim *drape_from(scene *sc, body *b, int n, double tau, double z0, uint32_t max_newton,
                          double *sphere_c, double *sphere_r) {
  const double O[3] = {-0.5, -0.5, z0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0}, C[3] = {0, 0, 0};
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
  if (max_newton) def.solver.max_newton = max_newton;
  tf_sim *sim = NULL;
  if (tf_cloth_create(&def, &sim, NULL, 0) != TF_OK) return NULL;
  uint32_t id;
  if (body_add(sim, b, 0.002, 0.3, &id) != TF_OK) return tf_sim_destroy(sim), NULL;
  double gn[3] = {0, 0, 1}, gh = -0.35;
  tf_sim_set_param(sim, TF_PARAM_GROUND_NORMAL, gn, 3);
  tf_sim_set_param(sim, TF_PARAM_GROUND_HEIGHT, &gh, 1);
  return sim;
}

static tf_sim *drape(scene *sc, body *b, int n, double tau, double *sphere_c, double *sphere_r) {
  return drape_from(sc, b, n, tau, 0.5, 0, sphere_c, sphere_r);
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
      fprintf(stderr,
              "frame %2d: z0 %.4f newton %u cg %u contacts %u pairs %u cuts %u dmin %.3g ms %.1f "
              "(contact %.1f)\n",
              f, x[3 * (sc.vert_count / 2) + 2], st.newton_iterations, st.cg_iterations,
              st.contacts, st.broad_pairs, st.ccd_cuts, st.min_distance, 1e3 * st.seconds,
              1e3 * st.contact_seconds);
  }
  ENSURE_MSG(ck.crossings == 0 && ck.inside == 0, "%ld crossings, %u vertices inside", ck.crossings,
             ck.inside);
  /* it rests on the sphere: the centre vertex just above the top, within the gap */
  double top = x[3 * (sc.vert_count / 2) + 2] - r;
  ENSURE_MSG(top > 0.0 && top < 0.004 * 1.1 + 0.01, "centre vertex %.4g m above the sphere", top);
  free(x);
  tf_sim_destroy(sim);
  body_free(&b);
  scene_free(&sc);
}

/* at rest on a body, without jitter: a sheet dropped on the sphere lands, drapes and then slows
 * down. At kappa = 0 every mode is overdamped, so a velocity that goes back and forth over three
 * frames is jitter, not motion. The step balances each vertex's net force to rtol of its weight,
 * which tau turns into a velocity rtol g tau (9.8 mm/s at tau 1 s and the default 1e-3): the
 * solver's accuracy, for the sheet as a whole (a residual that gathers on a few vertices moves them
 * by more). A back-and-forth's size is the smaller of its two reversals, each the reversed part of
 * the slower velocity, -v.v' / max(|v|, |v'|) (scenes.c): none may exceed twice the accuracy.
 * Measured on 40 paths each (tests/ensemble.sh, 240 runs): at most 11.4 mm/s at the default
 * budget of 20 Newton iterations, 2.6 at 100 where every step is solved; starved to 2 iterations a
 * step, 15-55 mm/s, to 4, 9-41. One reversal alone is not asked about: a fold snapping through
 * carries a vertex off the other way once, with every step solved too (19.1 mm/s on 2 runs in 120
 * at a budget of 100; 16 in 120 at 20, up to 105 mm/s where a capped step had moved the vertex the
 * wrong way), and the test asked that until 2026-12-04, when it held on 18 of 40 paths.
 * By 3 s the sheet is at rest (under 3 mm/s, and below 60 % of its speed at 1 s if that was above
 * the accuracy: what is left is friction's creep, friction.c, and the tolerance's wander). A fold
 * may also snap through late (134-204 mm/s after 1 s, still 3.3-43 mm/s at 3 s, on 11 of 240 runs),
 * so rest is asked of two of the three drop heights at each budget, which held on every one of the
 * 40 paths. The solver converges in a few iterations at rest instead of spending its budget, and
 * at a budget of 100 no step after 1 s stops at it: a capped step is damping the solver adds, and
 * rest must not depend on it. Before the solver's friction model and first iterate were fixed
 * (friction.c, step_tau.c) the same run jittered at up to 364 mm/s with 20 Newton iterations per
 * step (the budget). Three drop heights, because what the landing leaves is a matter of where
 * folds form. */
TF_TEST(contact_sheet_rests_on_sphere_without_jitter) {
  const double heights[3] = {0.5, 0.35, 0.31}, ACCURACY = 1e-3 * 9.81 * 1.0;
  const uint32_t budgets[2] = {0, 100};
  for (int bi = 0; bi < 2; ++bi) {
    const uint32_t budget = budgets[bi];
    int at_rest = 0, slowing = 0;
    for (int hi = 0; hi < 3; ++hi) {
      scene sc;
      body b;
      double c[3], r;
      tf_sim *sim = drape_from(&sc, &b, 16, 1.0, heights[hi], budget, c, &r);
      ENSURE(sim);
      const int FRAMES = 72, SETTLED = 24;
      size_t m = 3 * (size_t)sc.vert_count;
      double *v = calloc(m, sizeof *v), *vp = calloc(m, sizeof *vp), *vpp = calloc(m, sizeof *vpp);
      double vmax_late = 0.0, v_first = 0.0, v_last = 0.0, reversal = 0.0, back_forth = 0.0;
      long newton_late = 0, capped = 0, landing_capped = 0;
      tf_stats st = {.struct_size = sizeof st};
      for (int f = 0; f < FRAMES; ++f) {
        tf_status s = tf_sim_advance(sim, 1.0 / 24, 1);
        ENSURE_MSG(s == TF_OK, "from %.2f m, budget %u, frame %d: %s", heights[hi], budget, f,
                   tf_sim_last_error(sim));
        tf_sim_get_stats(sim, &st);
        if (f < SETTLED) {
          landing_capped += st.unconverged_steps;
          continue;
        }
        if (budget) capped += st.unconverged_steps;
        newton_late += st.newton_iterations;
        memcpy(vpp, vp, m * sizeof *v);
        memcpy(vp, v, m * sizeof *v);
        v_last = largest_speed(sim, v, sc.vert_count);
        if (f == SETTLED) v_first = v_last;
        vmax_late = fmax(vmax_late, v_last);
        if (f > SETTLED) reversal = fmax(reversal, largest_reversal(v, vp, sc.vert_count));
        if (f > SETTLED + 1)
          back_forth = fmax(back_forth, largest_oscillation(v, vp, vpp, sc.vert_count));
      }
      double per_step = (double)newton_late / (FRAMES - SETTLED);
      TF_NOTE(
          "sheet dropped on a sphere from %.2f m, tau 1 s, Newton budget %u: largest vertex "
          "speed %.3g mm/s at 1 s, %.3g mm/s at 3 s, %.3g mm/s at most between; back and "
          "forth %.3g mm/s (one reversal %.3g); %.1f Newton iterations per step (steps at the "
          "budget: %ld landing, %ld after)",
          heights[hi], budget ? budget : 20, 1e3 * v_first, 1e3 * v_last, 1e3 * vmax_late,
          1e3 * back_forth, 1e3 * reversal, per_step, landing_capped, capped);
      ENSURE_MSG(capped == 0, "from %.2f m, %ld steps stopped at a budget of %u", heights[hi],
                 capped, budget);
      ENSURE_MSG(back_forth < 2.0 * ACCURACY, "from %.2f m it jitters: back and forth by %.3g mm/s",
                 heights[hi], 1e3 * back_forth);
      ENSURE_MSG(per_step < 8.0, "from %.2f m: %.1f Newton iterations per step at rest",
                 heights[hi], per_step);
      at_rest += v_last < 3e-3;
      /* slowing down is asked only of a sheet still moving faster than the solver resolves at
       * 1 s: one already at rest there (from 0.31 m: 0.42 mm/s) wanders within that accuracy (0.3
       * to 3.3 mm/s over the next 9 s, the centroid still to 0.1 mm) */
      slowing += v_last < 0.6 * v_first || v_first < ACCURACY;
      free(v), free(vp), free(vpp);
      tf_sim_destroy(sim);
      body_free(&b);
      scene_free(&sc);
    }
    ENSURE_MSG(at_rest >= 2, "budget %u: at rest by 3 s from %d of 3 heights", budget, at_rest);
    ENSURE_MSG(slowing >= 2, "budget %u: slowing down from %d of 3 heights", budget, slowing);
  }
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
      ENSURE_MSG(fabs(fd - gd) <= 1e-4 * fabs(gd) + 1e-9,
                 "set %s: gradient . d %.9g, finite difference %.9g", set->ops->name, gd, fd);
    }
  }
  free(g), free(y), free(dd);
  tf_sim_destroy(sim);
  body_free(&b);
  scene_free(&sc);
}

/* flesh uses the same contact: its skin (the tets' boundary faces) lands on the ground and on a
 * sphere without crossing either */
TF_TEST(contact_flesh_block_lands_on_sphere_and_ground) {
  for (int e = 0; e < 2; ++e) { /* linear, then quadratic tets */
    tet_scene blk;
    scene_block(&blk, 3, 3, 3, 0.1, 0.1, 0.1);
    for (uint32_t i = 0; i < blk.vert_count; ++i)
      blk.pos[3 * i] += 0.05, blk.pos[3 * i + 1] -= 0.15, blk.pos[3 * i + 2] += 0.35;
    tf_flesh_def def;
    scene_flesh_def(&blk, &def);
    def.youngs_modulus = 2e5;
    def.element = e ? TF_TET_QUADRATIC : TF_TET_LINEAR;
    tf_sim *sim = NULL;
    ENSURE(tf_flesh_create(&def, &sim, NULL, 0) == TF_OK);
    body b;
    const double C[3] = {0, 0, 0};
    body_sphere(&b, C, 0.3, 12, 24);
    uint32_t id;
    ENSURE(body_add(sim, &b, 0.002, 0.5, &id) == TF_OK);
    double gn[3] = {0, 0, 1}, gh = -0.35;
    ENSURE(tf_sim_set_param(sim, TF_PARAM_GROUND_NORMAL, gn, 3) == TF_OK);
    ENSURE(tf_sim_set_param(sim, TF_PARAM_GROUND_HEIGHT, &gh, 1) == TF_OK);
    /* the surface contact keeps out: every boundary node's (a quadratic tet's faces are curved;
   * the host's triangles through the corners are their chords) */
    uint32_t nt = sim->model.mesh.tri_count, nn = sim->model.n;
    scene skin = {.vert_count = nn, .tri_count = nt};
    skin.tri = malloc(3 * nt * sizeof *skin.tri);
    memcpy(skin.tri, sim->model.mesh.tris, 3 * nt * sizeof *skin.tri);
    double *x = malloc(3 * nn * sizeof *x);
    check ck = {0, 0, INFINITY};
    double zmin = INFINITY;
    int touched = 0;
    for (int f = 0; f < 48; ++f) {
      tf_status st = tf_sim_advance(sim, 1.0 / 24, 1);
      ENSURE_MSG(st == TF_OK, "frame %d: %s", f, tf_sim_last_error(sim));
      memcpy(x, sim->state.x, 3 * nn * sizeof *x);
      check_frame(&skin, x, &b, C, 0.3, &ck);
      for (uint32_t i = 0; i < nn; ++i) zmin = fmin(zmin, x[3 * i + 2]);
      tf_stats s = {.struct_size = sizeof s};
      tf_sim_get_stats(sim, &s);
      touched |= s.contacts > 0;
    }
    ENSURE_MSG(ck.crossings == 0 && ck.inside == 0, "%ld crossings, %u vertices inside",
               ck.crossings, ck.inside);
    ENSURE_MSG(zmin > gh, "a vertex reached z = %.4f, the ground is at %.2f", zmin, gh);
    ENSURE(touched);
    free(x), free(skin.tri);
    tf_sim_destroy(sim);
    body_free(&b);
    tet_scene_free(&blk);
  }
}

/* a sheet modelled partly inside a closed (one-sided) body, as a garment often is: no NaN, the
 * vertices inside are reported, and within PUSH_OUT_FRAMES every vertex is outside, never to cross
 * back. The same for a sheet started partly below the ground */
enum { PUSH_OUT_FRAMES = 6 };

TF_TEST(contact_start_inside_collider_is_pushed_out) {
  const double O[3] = {-0.4, -0.4, 0.2}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0}, C[3] = {0, 0, 0};
  scene sc;
  scene_grid(&sc, 16, 16, 0.8, 0.8, O, EX, EY,
             0); /* z 0.2: its middle is inside the 0.3 m sphere */
  body b;
  body_sphere(&b, C, 0.3, 16, 32);
  tf_cloth_def def;
  scene_def(&sc, &def);
  def.gravity[2] = 0.0;
  tf_sim *sim = NULL;
  ENSURE(tf_cloth_create(&def, &sim, NULL, 0) == TF_OK);
  tf_collider_def d;
  tf_collider_def_init(&d);
  d.vert_count = b.nv, d.positions = b.pos, d.tri_count = b.nt, d.triangles = b.tri,
  d.one_sided = 1;
  uint32_t id;
  ENSURE(tf_sim_add_collider(sim, &d, &id) == TF_OK);
  double *x = malloc(3 * sc.vert_count * sizeof *x);
  uint32_t first = 0, inside_at = 0;
  for (int f = 0; f < 24; ++f) {
    tf_status st = tf_sim_advance(sim, 1.0 / 24, 1);
    ENSURE_MSG(st == TF_OK, "frame %d: %s", f, tf_sim_last_error(sim));
    tf_stats s = {.struct_size = sizeof s};
    tf_sim_get_stats(sim, &s);
    if (f == 0) first = s.intersecting;
    tf_sim_get_positions(sim, x, sc.vert_count);
    uint32_t inside = 0;
    for (uint32_t i = 0; i < sc.vert_count; ++i) {
      ENSURE(isfinite(x[3 * i]) && isfinite(x[3 * i + 1]) && isfinite(x[3 * i + 2]));
      const double *p = x + 3 * i;
      if (sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) < b.inner) inside++;
    }
    if (inside) inside_at = (uint32_t)f + 1;
  }
  ENSURE_MSG(first > 20, "%u vertices reported inside at the start", first);
  ENSURE_MSG(inside_at <= PUSH_OUT_FRAMES, "vertices still inside after frame %u", inside_at);
  free(x);
  tf_sim_destroy(sim);
  body_free(&b);
  scene_free(&sc);
}

/* A sheet modelled through a two-sided plate along a line (the plate's edge inside the sheet, the
 * sheet's edge inside the plate), without gravity: no vertex is inside anything, so nothing was
 * pushed, and the crossing stayed (23 crossings after 2 s, nothing moving: the barrier keeps each
 * pair on the side it starts on). The crossing edges' ends now leave the plate's pairs and are
 * moved down the gradient of the contour's length (contact/untangle.c), the piece anchored so its
 * rigid motion follows: the sheet slides off the plate's edge, and once apart it never crosses
 * again (the plate's pairs are back). Counted in stats.intersecting meanwhile. */
TF_TEST(contact_start_through_a_two_sided_plate_slides_off) {
  const double O[3] = {-0.2, -0.2, 0.3}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0};
  const double P0[3] = {-0.1731, 0.0137, 0.1289}, PZ[3] = {0, 0, 1};
  scene sc;
  body plate;
  scene_grid(&sc, 8, 8, 0.4, 0.4, O, EX, EY, 0);
  body_plate(&plate, P0, EX, PZ, 0.4, 0.3, 4, 3);
  tf_cloth_def def;
  scene_def(&sc, &def);
  def.gravity[2] = 0.0;
  tf_sim *sim = NULL;
  uint32_t id;
  ENSURE(tf_cloth_create(&def, &sim, NULL, 0) == TF_OK);
  ENSURE(body_add(sim, &plate, 0.001, 0.5, &id) == TF_OK);
  double *x = malloc(3 * sc.vert_count * sizeof *x);
  long start = cloth_body_crossings(&sc, sc.pos, &plate, NULL), after = 0;
  int apart = -1;
  uint32_t first = 0;
  for (int f = 0; f < 48; ++f) {
    tf_status st = tf_sim_advance(sim, 1.0 / 24, 1);
    ENSURE_MSG(st == TF_OK, "frame %d: %s", f + 1, tf_sim_last_error(sim));
    tf_stats s = {.struct_size = sizeof s};
    tf_sim_get_stats(sim, &s);
    if (f == 0) first = s.intersecting;
    tf_sim_get_positions(sim, x, sc.vert_count);
    for (uint32_t i = 0; i < 3 * sc.vert_count; ++i) ENSURE(isfinite(x[i]));
    long c = cloth_body_crossings(&sc, x, &plate, NULL);
    if (c == 0 && apart < 0) apart = f + 1;
    if (apart > 0 && c > after) after = c;
  }
  TF_NOTE(
      "sheet through a two-sided plate: %ld crossings at the start, %u vertices reported; none "
      "from frame %d on (most after %ld)",
      start, first, apart, after);
  ENSURE(start > 0 && first > 0);
  ENSURE_MSG(apart > 0 && apart <= 36, "still through the plate after 1.5 s");
  ENSURE(after == 0);
  free(x);
  tf_sim_destroy(sim);
  body_free(&plate);
  scene_free(&sc);
}

TF_TEST(contact_start_below_ground_is_pushed_out) {
  /* a sheet tilted through the ground: a third of it starts below */
  const double O[3] = {-0.4, -0.4, -0.1}, EX[3] = {1, 0, 0}, EY[3] = {0, 0.9, 0.436};
  scene sc;
  scene_grid(&sc, 12, 12, 0.8, 0.8, O, EX, EY, 0);
  tf_cloth_def def;
  scene_def(&sc, &def);
  tf_sim *sim = NULL;
  ENSURE(tf_cloth_create(&def, &sim, NULL, 0) == TF_OK);
  double gn[3] = {0, 0, 1}, gh = 0.0;
  ENSURE(tf_sim_set_param(sim, TF_PARAM_GROUND_NORMAL, gn, 3) == TF_OK);
  ENSURE(tf_sim_set_param(sim, TF_PARAM_GROUND_HEIGHT, &gh, 1) == TF_OK);
  double *x = malloc(3 * sc.vert_count * sizeof *x);
  uint32_t first = 0, below_at = 0;
  for (int f = 0; f < 24; ++f) {
    tf_status st = tf_sim_advance(sim, 1.0 / 24, 1);
    ENSURE_MSG(st == TF_OK, "frame %d: %s", f, tf_sim_last_error(sim));
    tf_stats s = {.struct_size = sizeof s};
    tf_sim_get_stats(sim, &s);
    if (f == 0) first = s.intersecting;
    tf_sim_get_positions(sim, x, sc.vert_count);
    uint32_t below = 0;
    for (uint32_t i = 0; i < sc.vert_count; ++i) {
      ENSURE(isfinite(x[3 * i + 2]));
      below += x[3 * i + 2] <= 0.0;
    }
    if (below) below_at = (uint32_t)f + 1;
  }
  ENSURE_MSG(first > 20, "%u vertices reported below at the start", first);
  ENSURE_MSG(below_at <= PUSH_OUT_FRAMES, "vertices still below the ground after frame %u",
             below_at);
  free(x);
  tf_sim_destroy(sim);
  scene_free(&sc);
}
