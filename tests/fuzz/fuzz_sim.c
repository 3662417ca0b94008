/* SPDX-License-Identifier: MIT
 * Fuzz target: create and advance with random defs and parameters on tiny meshes, through the
 * public C ABI: a cloth grid (or triangles from the input) or a flesh body (tets of a cube, or a
 * surface filled by the lattice), random def fields, tf_sim_set_param, tf_sim_set_pins with
 * weights, pin targets and a few tf_sim_advance frames. Every call either fails with a status and
 * a message or succeeds; after a successful advance every position is finite. */
#include "fuzz_common.h"
#include "tauform.h"

/* the unit cube: corners x + 2y + 4z, its 12 outward triangles and 5 tets */
static const uint32_t CUBE_TRIS[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                                       2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
static const uint32_t CUBE_TETS[20] = {0, 1, 2, 4, 1, 3, 2, 7, 1, 4, 5, 7, 2, 6, 4, 7, 1, 2, 4, 7};

enum { MAX_V = 16, MAX_T = 24 };

static void check_created(tf_status st, const tf_sim *sim, const char *err) {
  if (st == TF_OK)
    FUZZ_CHECK(sim != NULL, "OK without a sim");
  else
    FUZZ_CHECK(sim == NULL && err[0], "status %s without a message", tf_status_name(st));
}

static void check_call(tf_sim *sim, tf_status st, const char *what) {
  if (st != TF_OK)
    FUZZ_CHECK(tf_sim_last_error(sim)[0], "%s: %s without a message", what, tf_status_name(st));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_bytes f = {data, size};
  double pos[3 * 64];
  uint32_t idx[4 * MAX_T];
  uint8_t mode = fz_u8(&f);
  tf_sim *sim = NULL;
  char err[512] = "";
  tf_status st;
  uint32_t nv;
  double jitter = (fz_u8(&f) & 1) ? fz_double(&f) : 0.0;
  if ((mode & 3) != 3) { /* cloth */
    tf_cloth_def d;
    tf_cloth_def_init(&d);
    uint32_t nx = 1 + fz_u8(&f) % 3, ny = 1 + fz_u8(&f) % 3, nt = 0;
    nv = (nx + 1) * (ny + 1);
    for (uint32_t j = 0; j <= ny; ++j)
      for (uint32_t i = 0; i <= nx; ++i) {
        double *p = pos + 3 * (j * (nx + 1) + i);
        p[0] = 0.1 * i, p[1] = 0.1 * j, p[2] = 0.0;
        if (fz_u8(&f) == 7) p[fz_u8(&f) % 3] += jitter;
      }
    if (mode & 4) { /* triangles from the input (validation's job) */
      nt = 1 + fz_u8(&f) % MAX_T;
      for (uint32_t k = 0; k < 3 * nt; ++k) idx[k] = fz_u8(&f) % (nv + 1);
    } else {
      for (uint32_t j = 0; j < ny; ++j)
        for (uint32_t i = 0; i < nx; ++i) {
          uint32_t a = j * (nx + 1) + i, b = a + 1, c = a + nx + 1, e = c + 1;
          uint32_t t[6] = {a, b, e, a, e, c};
          memcpy(idx + 3 * nt, t, sizeof t);
          nt += 2;
        }
    }
    d.rest_positions = pos, d.vert_count = nv, d.triangles = idx, d.tri_count = nt;
    if (mode & 8) d.density = fz_double(&f);
    if (mode & 16) d.stretch_stiffness = fz_double(&f), d.poisson = fz_double(&f);
    if (mode & 32) d.bend_stiffness = fz_double(&f), d.tau = fz_double(&f), d.kappa = fz_double(&f);
    if (mode & 64)
      d.integrator = (tf_integrator)(fz_u8(&f) % 3), d.phi = fz_double(&f), d.psi = fz_double(&f);
    d.solver.max_newton = 1 + fz_u8(&f) % 6;
    d.solver.max_cg = 1 + fz_u8(&f) % 60;
    if (mode & 128) d.solver.tolerance = fz_double(&f), d.solver.abs_tolerance = fz_double(&f);
    st = tf_cloth_create(&d, &sim, err, sizeof err);
  } else { /* flesh */
    tf_flesh_def d;
    tf_flesh_def_init(&d);
    nv = 8;
    for (uint32_t i = 0; i < 8; ++i) {
      pos[3 * i] = 0.2 * (i & 1), pos[3 * i + 1] = 0.2 * (i >> 1 & 1),
              pos[3 * i + 2] = 0.2 * (i >> 2 & 1);
      if (fz_u8(&f) == 7) pos[3 * i + fz_u8(&f) % 3] += jitter;
    }
    memcpy(idx, (mode & 4) ? CUBE_TRIS : CUBE_TETS,
           (mode & 4) ? sizeof CUBE_TRIS : sizeof CUBE_TETS);
    if (fz_u8(&f) == 9) idx[fz_u8(&f) % ((mode & 4) ? 36 : 20)] = fz_u8(&f) % 9;
    if (mode & 4) {
      d.surface_positions = pos, d.surface_vert_count = 8, d.surface_triangles = idx,
      d.surface_tri_count = 12;
      d.lattice_cells = fz_u8(&f) % 6; /* 0..5: the small lattices, and the refused 0 and 1 */
    } else {
      d.rest_positions = pos, d.vert_count = 8, d.tets = idx, d.tet_count = 5;
      if (mode & 8)
        d.surface_positions = pos + 3, d.surface_vert_count = 5; /* an embedded point cloud */
    }
    if (mode & 16)
      d.youngs_modulus = fz_double(&f), d.poisson = fz_double(&f), d.density = fz_double(&f);
    if (mode & 32) d.tau = fz_double(&f), d.kappa = fz_double(&f), d.pin_stiffness = fz_double(&f);
    d.solver.max_newton = 1 + fz_u8(&f) % 6;
    d.solver.max_cg = 1 + fz_u8(&f) % 60;
    if (mode & 128) d.solver.tolerance = fz_double(&f), d.solver.abs_tolerance = fz_double(&f);
    st = tf_flesh_create(&d, &sim, err, sizeof err);
  }
  check_created(st, sim, err);
  if (!sim) return 0;
  nv = tf_sim_vert_count(sim);
  double *x = malloc(3 * (size_t)nv * sizeof(double));
  FUZZ_CHECK(x, "malloc");
  uint32_t pins[4], npin = 0;
  double weights[4], targets[12];
  for (int op = 0, ops = fz_u8(&f) % 12; op < ops && f.n; ++op) {
    uint8_t k = fz_u8(&f);
    switch (k % 6) {
      case 0: { /* a parameter, sometimes with the wrong count */
        double v[3] = {fz_double(&f), fz_double(&f), fz_double(&f)};
        tf_param p = (tf_param)(fz_u8(&f) % (TF_PARAM_COUNT_ + 1));
        uint32_t count = (k >> 2) & 1 ? 3 : 1;
        check_call(sim, tf_sim_set_param(sim, p, v, count), "tf_sim_set_param");
        break;
      }
      case 1: { /* pins with weights (or hard) */
        uint32_t n = fz_u8(&f) % 5;
        for (uint32_t i = 0; i < n; ++i) pins[i] = fz_u8(&f) % (nv + 1), weights[i] = fz_double(&f);
        st = tf_sim_set_pins(sim, n ? pins : NULL, (k >> 2) & 1 ? weights : NULL, n);
        check_call(sim, st, "tf_sim_set_pins");
        if (st == TF_OK) npin = n;
        break;
      }
      case 2: { /* pin targets near the rest positions */
        for (uint32_t i = 0; i < 3 * npin; ++i) targets[i] = 0.1 * (int8_t)fz_u8(&f) / 16.0;
        if (fz_u8(&f) == 3) targets[0] = fz_double(&f);
        check_call(sim, tf_sim_set_pin_targets(sim, targets, npin), "tf_sim_set_pin_targets");
        break;
      }
      case 4: { /* external forces on a few vertices, sometimes absurd or the wrong count */
        double *fv = calloc(3 * (size_t)nv, sizeof(double));
        FUZZ_CHECK(fv, "calloc");
        for (int q = fz_u8(&f) % 4; q > 0; --q) fv[fz_u8(&f) % (3 * nv)] = fz_double(&f);
        uint32_t count = (k >> 3) & 1 ? nv - fz_u8(&f) % 2 : nv;
        check_call(sim, tf_sim_set_forces(sim, (k >> 4) & 1 ? NULL : fv, count),
                   "tf_sim_set_forces");
        free(fv);
        break;
      }
      case 5: { /* the response: percentages (summing to 100 or not) for all or a few vertices */
        double pct[18];
        uint32_t count = fz_u8(&f) % 18, grp[3];
        for (uint32_t i = 0; i < count; ++i) pct[i] = (k >> 3) & 1 ? fz_double(&f) : 0.0;
        if (count && !((k >> 3) & 1)) pct[fz_u8(&f) % count] = 100.0;
        for (int i = 0; i < 3; ++i) grp[i] = fz_u8(&f) % (nv + 1);
        st = tf_sim_set_response(sim, pct, count, (k >> 4) & 1 ? grp : NULL, (k >> 4) & 1 ? 3 : 0);
        check_call(sim, st, "tf_sim_set_response");
        break;
      }
      default: { /* a frame */
        double dt = (k >> 2) & 1 ? fz_double(&f) : 1.0 / 24.0;
        uint32_t sub = fz_u8(&f) % 4;
        st = tf_sim_advance(sim, dt, sub);
        check_call(sim, st, "tf_sim_advance");
        if (st == TF_OK) {
          /* tearing splits vertices: the count is the simulation's after the frame */
          if (tf_sim_vert_count(sim) != nv) {
            nv = tf_sim_vert_count(sim);
            free(x);
            x = malloc(3 * (size_t)nv * sizeof(double));
            FUZZ_CHECK(x, "malloc");
          }
          FUZZ_CHECK(tf_sim_get_positions(sim, x, nv) == TF_OK, "get_positions");
          for (size_t i = 0; i < 3 * (size_t)nv; ++i)
            FUZZ_CHECK(isfinite(x[i]), "advance OK (dt %g, %u substeps) but position %zu is %g", dt,
                       sub, i, x[i]);
        }
        break;
      }
    }
  }
  free(x);
  tf_sim_destroy(sim);
  return 0;
}
