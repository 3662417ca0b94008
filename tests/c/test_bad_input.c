/* SPDX-License-Identifier: MIT
 * Bad input: every mistake a host can make gets a status and a message naming it, and a
 * simulation that existed is unchanged afterwards (positions, velocities, parameters, pins). */
#include <stdlib.h>
#include <string.h>

#include "scenes.h"
#include "tf_test.h"

static const double O[3] = {0, 0, 0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0};

static tf_status try_create(scene *sc, void (*edit)(tf_cloth_def *, scene *), char *err, size_t n) {
  tf_cloth_def def;
  scene_def(sc, &def);
  if (edit) edit(&def, sc);
  tf_sim *sim = (tf_sim *)0x1; /* must be reset to NULL on failure */
  tf_status st = tf_cloth_create(&def, &sim, err, n);
  if (st == TF_OK)
    tf_sim_destroy(sim);
  else if (sim != NULL)
    return (tf_status)99;
  return st;
}

static void e_index_range(tf_cloth_def *d, scene *s) {
  s->tri[7] = 1000;
  (void)d;
}
static void e_repeat(tf_cloth_def *d, scene *s) {
  s->tri[4] = s->tri[3];
  (void)d;
}
static void e_degenerate(tf_cloth_def *d, scene *s) {
  (void)d; /* put vertex 1 on the line through vertices 0 and 10 */
  s->pos[3 * 10] = 0.5;
  s->pos[3 * 10 + 1] = 0.0;
  s->pos[3 * 1] = 0.25;
  s->tri[0] = 0;
  s->tri[1] = 1;
  s->tri[2] = 10; /* zero area */
}
static void e_nan(tf_cloth_def *d, scene *s) {
  s->pos[3 * 5 + 2] = NAN;
  (void)d;
}
static void e_inf(tf_cloth_def *d, scene *s) {
  s->pos[3 * 6] = INFINITY;
  (void)d;
}
static void e_tau0(tf_cloth_def *d, scene *s) {
  d->tau = 0.0;
  (void)s;
}
static void e_tau_neg(tf_cloth_def *d, scene *s) {
  d->tau = -1.0;
  (void)s;
}
static void e_kappa(tf_cloth_def *d, scene *s) {
  d->kappa = 1.5;
  (void)s;
}
static void e_kappa_neg(tf_cloth_def *d, scene *s) {
  d->kappa = -0.1;
  (void)s;
}
static void e_poisson(tf_cloth_def *d, scene *s) {
  d->poisson = 1.0;
  (void)s;
}
static void e_density(tf_cloth_def *d, scene *s) {
  d->density = 0.0;
  (void)s;
}
static void e_uninit(tf_cloth_def *d, scene *s) {
  d->struct_size = 0;
  (void)s;
}
static void e_nonmanifold(tf_cloth_def *d, scene *s) {
  /* a third triangle on edge (0, 1): reuse triangle 1's slot with vertex 5 */
  (void)d;
  s->tri[3] = 0;
  s->tri[4] = 1;
  s->tri[5] = 6;
}
static void e_dup(tf_cloth_def *d, scene *s) {
  (void)d;
  s->tri[3] = s->tri[0];
  s->tri[4] = s->tri[2];
  s->tri[5] = s->tri[1];
}
static void e_nullpos(tf_cloth_def *d, scene *s) {
  d->rest_positions = NULL;
  (void)s;
}

TF_TEST(bad_input_create) {
  struct {
    void (*edit)(tf_cloth_def *, scene *);
    tf_status want;
    const char *needle;
  } cases[] = {
      {e_index_range, TF_E_BAD_MESH, "out of range"},
      {e_repeat, TF_E_BAD_MESH, "repeats a vertex"},
      {e_degenerate, TF_E_BAD_MESH, "degenerate"},
      {e_nan, TF_E_INVALID_ARG, "vertex 5"},
      {e_inf, TF_E_INVALID_ARG, "vertex 6"},
      {e_tau0, TF_E_INVALID_ARG, "tau"},
      {e_tau_neg, TF_E_INVALID_ARG, "tau"},
      {e_kappa, TF_E_INVALID_ARG, "kappa"},
      {e_kappa_neg, TF_E_INVALID_ARG, "kappa"},
      {e_poisson, TF_E_INVALID_ARG, "poisson"},
      {e_density, TF_E_INVALID_ARG, "density"},
      {e_uninit, TF_E_DEF_INIT, "tf_cloth_def_init"},
      {e_nonmanifold, TF_E_BAD_MESH, "non-manifold"},
      {e_dup, TF_E_BAD_MESH, "duplicates"},
      {e_nullpos, TF_E_INVALID_ARG, "rest_positions"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    scene sc;
    scene_grid(&sc, 3, 3, 1.0, 1.0, O, EX, EY, 0);
    char err[256] = "";
    tf_status st = try_create(&sc, cases[c].edit, err, sizeof err);
    ENSURE_MSG(st == cases[c].want, "case %zu: got %s, want %s (%s)", c, tf_status_name(st),
               tf_status_name(cases[c].want), err);
    ENSURE_MSG(strstr(err, cases[c].needle) != NULL, "case %zu: message '%s' lacks '%s'", c, err,
               cases[c].needle);
    scene_free(&sc);
  }
  /* NULL errbuf is allowed, NULL out_sim is not */
  scene sc;
  scene_grid(&sc, 3, 3, 1.0, 1.0, O, EX, EY, 0);
  tf_cloth_def def;
  scene_def(&sc, &def);
  ENSURE(tf_cloth_create(&def, NULL, NULL, 0) == TF_E_INVALID_ARG);
  def.tau = -1;
  tf_sim *sim = NULL;
  ENSURE(tf_cloth_create(&def, &sim, NULL, 0) == TF_E_INVALID_ARG && sim == NULL);
  scene_free(&sc);
}

/* every create call reads its def alike (api_def_take): a NULL def and one never initialized get
 * their own status and a message naming the call and the initializer to use */
TF_TEST(bad_input_create_defs_checked_alike) {
  tf_cloth_def cloth;
  tf_flesh_def flesh;
  tf_rig_def rig;
  tf_cloth_def_init(&cloth);
  tf_flesh_def_init(&flesh);
  tf_rig_def_init(&rig);
  cloth.struct_size = flesh.struct_size = rig.struct_size = 0;
  char err[256];
  tf_sim *sim = (tf_sim *)0x1;
  tf_rig *r = (tf_rig *)0x1;
  ENSURE(tf_cloth_create(NULL, &sim, err, sizeof err) == TF_E_INVALID_ARG && sim == NULL);
  ENSURE_MSG(strcmp(err, "tf_cloth_create: def is NULL") == 0, "%s", err);
  ENSURE(tf_flesh_create(NULL, &sim, err, sizeof err) == TF_E_INVALID_ARG);
  ENSURE_MSG(strcmp(err, "tf_flesh_create: def is NULL") == 0, "%s", err);
  ENSURE(tf_rig_load(NULL, &r, err, sizeof err) == TF_E_INVALID_ARG && r == NULL);
  ENSURE_MSG(strcmp(err, "tf_rig_load: def is NULL") == 0, "%s", err);
  ENSURE(tf_cloth_create(&cloth, &sim, err, sizeof err) == TF_E_DEF_INIT && sim == NULL);
  ENSURE_MSG(
      strstr(err, "tf_cloth_create: def.struct_size is 0") && strstr(err, "tf_cloth_def_init"),
      "%s", err);
  ENSURE(tf_flesh_create(&flesh, &sim, err, sizeof err) == TF_E_DEF_INIT && sim == NULL);
  ENSURE_MSG(
      strstr(err, "tf_flesh_create: def.struct_size is 0") && strstr(err, "tf_flesh_def_init"),
      "%s", err);
  ENSURE(tf_rig_load(&rig, &r, err, sizeof err) == TF_E_DEF_INIT && r == NULL);
  ENSURE_MSG(strstr(err, "tf_rig_load: def.struct_size is 0") && strstr(err, "tf_rig_def_init"),
             "%s", err);
  /* no message buffer at all is allowed */
  ENSURE(tf_flesh_create(&flesh, &sim, NULL, 0) == TF_E_DEF_INIT);
}

/* snapshot of everything a failed call must leave alone */
typedef struct snap {
  double x[48], v[48], f[48], energy, tau, kappa, bend, g[3];
  tf_stats st;
} snap;

static void take(tf_sim *s, snap *p) {
  memset(p, 0, sizeof *p);
  tf_sim_get_positions(s, p->x, 16);
  tf_sim_get_velocities(s, p->v, 16);
  tf_sim_get_forces(s, p->f, 16); /* sees pin targets, soft-pin weights and hinge stiffness */
  tf_sim_get_energy(s, &p->energy);
  tf_sim_get_param(s, TF_PARAM_TAU, &p->tau, 1);
  tf_sim_get_param(s, TF_PARAM_KAPPA, &p->kappa, 1);
  tf_sim_get_param(s, TF_PARAM_BEND_STIFFNESS, &p->bend, 1);
  tf_sim_get_param(s, TF_PARAM_GRAVITY, p->g, 3);
  p->st.struct_size = sizeof p->st;
  tf_sim_get_stats(s, &p->st);
}

TF_TEST(bad_input_leaves_sim_unchanged) {
  scene sc;
  scene_grid(&sc, 3, 3, 1.0, 1.0, O, EX, EY, 1);
  tf_cloth_def def;
  scene_def(&sc, &def);
  tf_sim *sim = NULL;
  ENSURE(tf_cloth_create(&def, &sim, NULL, 0) == TF_OK);
  ENSURE(tf_sim_set_pins(sim, sc.pins, NULL, sc.pin_count) == TF_OK);
  ENSURE(tf_sim_advance(sim, 1.0 / 24, 2) == TF_OK);
  snap before, after;
  take(sim, &before);
  double bad_tau = 0.0, bad_kappa = 2.0, nan_g[3] = {0, NAN, 0}, inf1 = INFINITY;
  double targets[12] = {0};
  targets[5] = NAN;
  double pos[48];
  memcpy(pos, before.x, sizeof pos);
  pos[17] = NAN;
  uint32_t bad_pins[2] = {3, 3}, far_pin[1] = {99};
  double bad_w[1] = {1.5};
  double map[15] = {0};
  /* each rejected call must name the problem in the sim's last error */
#define REJECTS(call, needle)                                                                \
  do {                                                                                       \
    tf_status st_ = (call);                                                                  \
    ENSURE_MSG(st_ != TF_OK, "%s succeeded", #call);                                         \
    ENSURE_MSG(strstr(tf_sim_last_error(sim), needle), "%s: message '%s' lacks '%s'", #call, \
               tf_sim_last_error(sim), needle);                                              \
  } while (0)
  REJECTS(tf_sim_set_param(sim, TF_PARAM_TAU, &bad_tau, 1), "tau must be > 0");
  REJECTS(tf_sim_set_param(sim, TF_PARAM_KAPPA, &bad_kappa, 1), "kappa must be in [0, 1]");
  REJECTS(tf_sim_set_param(sim, TF_PARAM_GRAVITY, nan_g, 3), "gravity must be finite");
  REJECTS(tf_sim_set_param(sim, TF_PARAM_GRAVITY, nan_g, 1), "gravity takes 3 values");
  REJECTS(tf_sim_set_param(sim, TF_PARAM_BEND_STIFFNESS, &inf1, 1),
          "bend_stiffness must be finite");
  REJECTS(tf_sim_set_param(sim, (tf_param)77, &bad_tau, 1), "unknown parameter");
  REJECTS(tf_sim_set_pin_targets(sim, targets, 4), "target 1 (vertex 1) is not finite");
  REJECTS(tf_sim_set_pin_targets(sim, targets, 3), "4 vertices are pinned");
  REJECTS(tf_sim_set_state(sim, pos, NULL, 16), "position of vertex 5 is not finite");
  REJECTS(tf_sim_set_state(sim, before.x, NULL, 15), "vert_count is 15");
  REJECTS(tf_sim_set_pins(sim, bad_pins, NULL, 2), "vertex 3 is pinned twice");
  REJECTS(tf_sim_set_pins(sim, far_pin, NULL, 1), "indices[0] = 99 out of range");
  REJECTS(tf_sim_set_pins(sim, sc.pins, bad_w, 1), "weights[0] = 1.5");
  REJECTS(tf_sim_set_param_map(sim, TF_PARAM_BEND_STIFFNESS, map, 15), "vert_count is 15");
  REJECTS(tf_sim_advance(sim, -1.0, 1), "frame_dt must be");
  REJECTS(tf_sim_advance(sim, NAN, 1), "frame_dt must be");
  REJECTS(tf_sim_advance(sim, 0.04, 0), "substeps must be in [1, 10000]");
  REJECTS(tf_sim_get_positions(sim, pos, 15), "wrong vert_count");
#undef REJECTS
  take(sim, &after);
  ENSURE(memcmp(&before, &after, sizeof before) == 0);
  /* the pins still work after the rejected calls: the sim advances as before */
  double tg[12];
  for (int q = 0; q < 4; ++q) memcpy(tg + 3 * q, before.x + 3 * q, 3 * sizeof(double));
  ENSURE(tf_sim_set_pin_targets(sim, tg, 4) == TF_OK);
  ENSURE(tf_sim_advance(sim, 1.0 / 24, 2) == TF_OK);
  tf_sim_destroy(sim);
  scene_free(&sc);
}

TF_TEST(bad_input_blowup_rolls_back) {
  /* the explicit baseline with a step far above its stability limit goes non-finite: the frame
   * is rolled back and the call fails with a message */
  scene sc;
  scene_grid(&sc, 6, 6, 1.0, 1.0, O, EX, EY, 1);
  tf_cloth_def def;
  scene_def(&sc, &def);
  def.integrator = TF_INTEGRATOR_STRAIN_RATE;
  def.stretch_stiffness = 1e6;
  tf_sim *sim = NULL;
  ENSURE(tf_cloth_create(&def, &sim, NULL, 0) == TF_OK);
  ENSURE(tf_sim_set_pins(sim, sc.pins, NULL, sc.pin_count) == TF_OK);
  double x0[49 * 3], x1[49 * 3];
  /* a bump so the explicit step has forces to blow up on */
  tf_sim_get_positions(sim, x0, 49);
  x0[3 * 30 + 2] = 0.2;
  ENSURE(tf_sim_set_state(sim, x0, NULL, 49) == TF_OK);
  tf_status st = TF_OK;
  for (int f = 0; f < 200 && st == TF_OK; ++f) {
    tf_sim_get_positions(sim, x0, 49);
    st = tf_sim_advance(sim, 0.04, 1);
  }
  ENSURE(st == TF_E_NOT_CONVERGED);
  ENSURE(strstr(tf_sim_last_error(sim), "rolled back"));
  tf_sim_get_positions(sim, x1, 49);
  ENSURE(memcmp(x0, x1, sizeof x0) == 0);
  tf_sim_destroy(sim);
  scene_free(&sc);
}

/* index_base 1 (hosts in 1-based languages): every index in a message is the host's own */
static tf_status create_base(scene *sc, uint32_t base, void (*edit)(tf_cloth_def *, scene *),
                             tf_sim **sim, char *err, size_t n) {
  tf_cloth_def def;
  scene_def(sc, &def);
  def.index_base = base;
  if (edit) edit(&def, sc);
  return tf_cloth_create(&def, sim, err, n);
}

TF_TEST(bad_input_messages_count_from_index_base) {
  struct {
    void (*edit)(tf_cloth_def *, scene *);
    const char *base0, *base1;
  } cases[] = {
      /* triangle 1 (0-based) gets vertex 1000; triangle 1 = (tri[3], tri[4], tri[5]) */
      {e_index_range, "triangle 2: vertex index 1000 out of range 0..15",
       "triangle 3: vertex index 1001 out of range 1..16"},
      {e_nan, "vertex 5 has a non-finite position", "vertex 6 has a non-finite position"},
      {e_dup, "triangle 1 duplicates triangle 0", "triangle 2 duplicates triangle 1"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    for (uint32_t base = 0; base < 2; ++base) {
      scene sc;
      scene_grid(&sc, 3, 3, 1.0, 1.0, O, EX, EY, 0);
      char err[256] = "";
      tf_sim *sim = NULL;
      ENSURE(create_base(&sc, base, cases[c].edit, &sim, err, sizeof err) != TF_OK && sim == NULL);
      const char *want = base ? cases[c].base1 : cases[c].base0;
      ENSURE_MSG(strstr(err, want) != NULL, "case %zu base %u: message '%s' lacks '%s'", c, base,
                 err, want);
      scene_free(&sc);
    }
  /* the repeated vertex is named as the host numbers it: (tri[3], tri[3], tri[5]) */
  scene sc;
  scene_grid(&sc, 3, 3, 1.0, 1.0, O, EX, EY, 0);
  char err[256] = "", want[64];
  tf_sim *sim = NULL;
  ENSURE(create_base(&sc, 1, e_repeat, &sim, err, sizeof err) == TF_E_BAD_MESH);
  snprintf(want, sizeof want, "triangle 2 repeats a vertex (%u %u %u)", sc.tri[3] + 1,
           sc.tri[4] + 1, sc.tri[5] + 1);
  ENSURE_MSG(strstr(err, want), "'%s' lacks '%s'", err, want);
  scene_free(&sc);
  scene_grid(&sc, 3, 3, 1.0, 1.0, O, EX, EY, 0);
  ENSURE(create_base(&sc, 2, NULL, &sim, err, sizeof err) == TF_E_INVALID_ARG &&
         strstr(err, "index_base must be 0 or 1"));
  /* and the simulation's own calls */
  ENSURE_MSG(create_base(&sc, 1, NULL, &sim, err, sizeof err) == TF_OK, "%s", err);
  uint32_t twice[2] = {3, 3}, far_pin[1] = {16};
  double w[1] = {1.5}, bad[6] = {0, 0, 0, 0, NAN, 0}, pos[48];
  ENSURE(tf_sim_set_pins(sim, twice, NULL, 2) != TF_OK);
  ENSURE_MSG(strstr(tf_sim_last_error(sim), "vertex 4 is pinned twice (indices[2])"), "%s",
             tf_sim_last_error(sim));
  ENSURE(tf_sim_set_pins(sim, far_pin, NULL, 1) != TF_OK);
  ENSURE_MSG(strstr(tf_sim_last_error(sim), "indices[1] = 17 out of range 1..16"), "%s",
             tf_sim_last_error(sim));
  ENSURE(tf_sim_set_pins(sim, twice, w, 1) != TF_OK &&
         strstr(tf_sim_last_error(sim), "weights[1] = 1.5"));
  uint32_t two[2] = {0, 5};
  ENSURE(tf_sim_set_pins(sim, two, NULL, 2) == TF_OK);
  ENSURE(tf_sim_set_pin_targets(sim, bad, 2) != TF_OK);
  ENSURE_MSG(strstr(tf_sim_last_error(sim), "target 2 (vertex 6) is not finite"), "%s",
             tf_sim_last_error(sim));
  tf_sim_get_positions(sim, pos, 16);
  pos[3 * 7 + 1] = INFINITY;
  ENSURE(tf_sim_set_state(sim, pos, NULL, 16) != TF_OK);
  ENSURE_MSG(strstr(tf_sim_last_error(sim), "position of vertex 8 is not finite"), "%s",
             tf_sim_last_error(sim));
  tf_sim_destroy(sim);
  scene_free(&sc);
}

TF_TEST(bad_input_flesh_messages_count_from_index_base) {
  tet_scene ts;
  scene_block(&ts, 1, 1, 1, 1.0, 1.0, 1.0);
  ts.tets[4 * 2 + 1] = ts.tets[4 * 2]; /* tet 2 (0-based) repeats a vertex */
  char want[64];
  for (uint32_t base = 0; base < 2; ++base) {
    tf_flesh_def def;
    scene_flesh_def(&ts, &def);
    def.index_base = base;
    char err[256] = "";
    tf_sim *sim = NULL;
    ENSURE(tf_flesh_create(&def, &sim, err, sizeof err) == TF_E_BAD_MESH && sim == NULL);
    snprintf(want, sizeof want, "tet %u repeats vertex %u", 2 + base, ts.tets[4 * 2] + base);
    ENSURE_MSG(strstr(err, want), "base %u: '%s' lacks '%s'", base, err, want);
  }
  tet_scene_free(&ts);
}

/* issue 14: huge finite values used to be accepted (gravity 1e200: a frozen cloth "converged" with
 * residual 0; air density 1e300 on flesh: positions of 1e52 m with TF_OK). Each is refused by
 * name with its physical range (api_params.c), and the simulation is bitwise as if the call had
 * not been made: it then advances exactly like a twin that never saw them */
typedef struct absurd {
  tf_param p;
  double v[3];
  uint32_t count;
  const char *says;
} absurd;

static const absurd ABSURD[] = {
    {TF_PARAM_GRAVITY, {0, 0, 1e200}, 3, "gravity must be in [-1e4, 1e4] m/s^2, got 1e+200"},
    {TF_PARAM_GRAVITY, {-2e4, 0, 0}, 3, "gravity must be in [-1e4, 1e4] m/s^2, got -20000"},
    {TF_PARAM_WIND, {1e100, 0, 0}, 3, "wind must be in [-1e3, 1e3] m/s, got 1e+100"},
    {TF_PARAM_AIR_DENSITY, {1e300}, 1, "air_density must be in [0, 1e4] kg/m^3, got 1e+300"},
    {TF_PARAM_TAU, {1e7}, 1, "tau must be in (0, 1e6] s, got 1e+07"},
    {TF_PARAM_PIN_STIFFNESS, {1e13}, 1, "pin_stiffness must be in (0, 1e12] 1/s^2"},
    {TF_PARAM_DRAG, {1e5}, 1, "drag must be in [0, 100], got 100000"},
    {TF_PARAM_LIFT, {1e5}, 1, "lift must be in [0, 100]"},
    {TF_PARAM_TURBULENCE, {1e4}, 1, "turbulence must be in [0, 1e3] m/s"},
    {TF_PARAM_TURBULENCE_SCALE,
     {1e-9},
     1,
     "turbulence_scale must be in [0.0001, 1e6] m, got 1e-09"},
    {TF_PARAM_TURBULENCE_TIME, {1e-9}, 1, "turbulence_time must be in [0.0001, 1e6] s"},
    {TF_PARAM_GUST, {1e3}, 1, "gust must be in [0, 100]"},
    {TF_PARAM_GUST_PERIOD, {1e9}, 1, "gust_period must be in [0.0001, 1e6] s"},
    /* cloth only */
    {TF_PARAM_STRETCH_STIFFNESS, {1e10}, 1, "stretch_stiffness must be in (0, 1e9] N/m"},
    {TF_PARAM_BEND_STIFFNESS, {1e4}, 1, "bend_stiffness must be in [0, 1e3] N m"},
    {TF_PARAM_PHI, {1e10}, 1, "phi must be in [0, 1e9] N s/m"},
    {TF_PARAM_PSI, {1e10}, 1, "psi must be in [0, 1e9] N s/m"},
    /* flesh only */
    {TF_PARAM_YOUNGS_MODULUS, {1e13}, 1, "youngs_modulus must be in (0, 1e12] Pa"},
};

/* every parameter of the kind, the positions and velocities, bitwise */
static void fingerprint(tf_sim *sim, double *out, size_t cap, size_t *len) {
  size_t k = 0;
  for (int p = 0; p < TF_PARAM_COUNT_; ++p) {
    double v[3] = {0, 0, 0};
    tf_sim_get_param(sim, (tf_param)p, v, 3);
    tf_sim_get_param(sim, (tf_param)p, v, 1);
    for (int c = 0; c < 3; ++c) out[k++] = v[c];
  }
  uint32_t n = tf_sim_vert_count(sim);
  if (k + 6 * (size_t)n <= cap) {
    tf_sim_get_positions(sim, out + k, n);
    tf_sim_get_velocities(sim, out + k + 3 * (size_t)n, n);
    k += 6 * (size_t)n;
  }
  *len = k;
}

static void refuses_absurd(int *tf_failed_, tf_sim *sim, tf_sim *twin, uint32_t kind) {
  static double before[4096], after[4096], a[4096], b[4096];
  size_t nb, na;
  fingerprint(sim, before, 4096, &nb);
  int tried = 0;
  for (size_t k = 0; k < sizeof ABSURD / sizeof ABSURD[0]; ++k) {
    const absurd *t = &ABSURD[k];
    tf_param_info info;
    info.struct_size = sizeof info;
    ENSURE(tf_param_get_info(t->p, &info) == TF_OK);
    char err[256];
    /* the same check without a simulation */
    ENSURE(tf_param_check(t->p, t->v, t->count, err, sizeof err) == TF_E_INVALID_ARG);
    ENSURE_MSG(strstr(err, t->says), "'%s' lacks '%s'", err, t->says);
    if (!(info.kinds & kind)) continue;
    ++tried;
    ENSURE(tf_sim_set_param(sim, t->p, t->v, t->count) == TF_E_INVALID_ARG);
    ENSURE_MSG(strstr(tf_sim_last_error(sim), t->says), "'%s' lacks '%s'", tf_sim_last_error(sim),
               t->says);
  }
  ENSURE(tried >= 12);
  fingerprint(sim, after, 4096, &na);
  ENSURE(na == nb && memcmp(before, after, nb * sizeof(double)) == 0);
  /* and it runs on exactly as its twin */
  for (int f = 0; f < 3; ++f) {
    ENSURE(tf_sim_advance(sim, 1.0 / 24, 2) == TF_OK);
    ENSURE(tf_sim_advance(twin, 1.0 / 24, 2) == TF_OK);
  }
  fingerprint(sim, a, 4096, &na);
  fingerprint(twin, b, 4096, &nb);
  ENSURE(na == nb && memcmp(a, b, na * sizeof(double)) == 0);
}

TF_TEST(bad_input_absurd_values_refused_by_name) {
  scene sc;
  scene_grid(&sc, 4, 4, 1.0, 1.0, O, EX, EY, 1);
  tf_cloth_def def;
  scene_def(&sc, &def);
  tf_sim *sim = NULL, *twin = NULL;
  ENSURE(tf_cloth_create(&def, &sim, NULL, 0) == TF_OK &&
         tf_cloth_create(&def, &twin, NULL, 0) == TF_OK);
  ENSURE(tf_sim_set_pins(sim, sc.pins, NULL, sc.pin_count) == TF_OK);
  ENSURE(tf_sim_set_pins(twin, sc.pins, NULL, sc.pin_count) == TF_OK);
  refuses_absurd(tf_failed_, sim, twin, TF_PARAM_FOR_CLOTH);
  if (*tf_failed_) return;
  /* the per-vertex bending map checks each value against the same range */
  double map[25];
  for (int i = 0; i < 25; ++i) map[i] = 1e-5;
  map[7] = 1e4;
  ENSURE(tf_sim_set_param_map(sim, TF_PARAM_BEND_STIFFNESS, map, 25) == TF_E_INVALID_ARG);
  ENSURE(strstr(tf_sim_last_error(sim),
                "vertex 7: bend_stiffness must be in [0, 1e3] N m, got 10000"));
  tf_sim_destroy(sim);
  tf_sim_destroy(twin);

  tet_scene ts;
  scene_block(&ts, 2, 2, 2, 0.1, 0.1, 0.1);
  tf_flesh_def fd;
  scene_flesh_def(&ts, &fd);
  ENSURE(tf_flesh_create(&fd, &sim, NULL, 0) == TF_OK &&
         tf_flesh_create(&fd, &twin, NULL, 0) == TF_OK);
  refuses_absurd(tf_failed_, sim, twin, TF_PARAM_FOR_FLESH);
  tf_sim_destroy(sim);
  tf_sim_destroy(twin);
  tet_scene_free(&ts);
  scene_free(&sc);
}

/* the def fields at create go through the same table: one code path */
static void e_gravity(tf_cloth_def *d, scene *s) {
  d->gravity[1] = 1e200;
  (void)s;
}
static void e_tau_huge(tf_cloth_def *d, scene *s) {
  d->tau = 1e7;
  (void)s;
}
static void e_stretch_huge(tf_cloth_def *d, scene *s) {
  d->stretch_stiffness = 1e10;
  (void)s;
}
static void e_bend_huge(tf_cloth_def *d, scene *s) {
  d->bend_stiffness = 1e4;
  (void)s;
}
static void e_pin_huge(tf_cloth_def *d, scene *s) {
  d->pin_stiffness = 1e13;
  (void)s;
}

TF_TEST(bad_input_absurd_def_values_refused_at_create) {
  struct {
    void (*edit)(tf_cloth_def *, scene *);
    const char *says;
  } cases[] = {
      {e_gravity, "gravity must be in [-1e4, 1e4] m/s^2, got 1e+200"},
      {e_tau_huge, "tau must be in (0, 1e6] s, got 1e+07"},
      {e_stretch_huge, "stretch_stiffness must be in (0, 1e9] N/m"},
      {e_bend_huge, "bend_stiffness must be in [0, 1e3] N m"},
      {e_pin_huge, "pin_stiffness must be in (0, 1e12] 1/s^2"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    scene sc;
    scene_grid(&sc, 3, 3, 1.0, 1.0, O, EX, EY, 1);
    char err[256] = "";
    ENSURE(try_create(&sc, cases[k].edit, err, sizeof err) == TF_E_INVALID_ARG);
    ENSURE_MSG(strstr(err, cases[k].says), "'%s' lacks '%s'", err, cases[k].says);
    scene_free(&sc);
  }
  tet_scene ts;
  scene_block(&ts, 1, 1, 1, 0.1, 0.1, 0.1);
  tf_flesh_def fd;
  scene_flesh_def(&ts, &fd);
  fd.gravity[2] = -1e200;
  tf_sim *sim = (tf_sim *)0x1;
  char err[256] = "";
  ENSURE(tf_flesh_create(&fd, &sim, err, sizeof err) == TF_E_INVALID_ARG && sim == NULL);
  ENSURE_MSG(strstr(err, "gravity must be in [-1e4, 1e4] m/s^2, got -1e+200"), "%s", err);
  /* the base material and a region's take the parameter table's modulus range too */
  fd.gravity[2] = -9.81;
  fd.youngs_modulus = 1e13;
  ENSURE(tf_flesh_create(&fd, &sim, err, sizeof err) == TF_E_INVALID_ARG && sim == NULL);
  ENSURE_MSG(strstr(err, "material: youngs_modulus") && strstr(err, "got 1e+13"), "%s", err);
  fd.youngs_modulus = 5e4;
  tf_flesh_material region = {1e13, 0.3, 1000};
  uint32_t *mats = calloc(fd.tet_count, sizeof *mats);
  ENSURE(mats != NULL);
  mats[0] = 1;
  fd.tet_materials = mats;
  fd.materials = &region;
  fd.material_count = 1;
  ENSURE(tf_flesh_create(&fd, &sim, err, sizeof err) == TF_E_INVALID_ARG && sim == NULL);
  ENSURE_MSG(strstr(err, "youngs_modulus") && strstr(err, "got 1e+13"), "%s", err);
  region.youngs_modulus = 1e6;
  ENSURE_MSG(tf_flesh_create(&fd, &sim, err, sizeof err) == TF_OK, "%s", err);
  tf_sim_destroy(sim);
  free(mats);
  tet_scene_free(&ts);
}
