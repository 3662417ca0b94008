/* SPDX-License-Identifier: MIT
 * The lattice tetrahedralizer on a sphere and a torus: a valid, conforming tet mesh (no inverted
 * tets, dihedral angles within Kuhn's 45-90 degrees), enclosing the surface, which embeds with
 * non-negative weights summing to 1; the winding number inside/outside; bad input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec3.h"
#include "mesh/tet_embed.h"
#include "mesh/tetmesh.h"
#include "mesh/tetrahedralize.h"
#include "tf_test.h"

enum { NU = 32, NV = 16 };

/* torus (R, r) or, with R = 0, a UV sphere of radius r; outward winding */
static uint32_t surface(double R, double r, double *pos, uint32_t *tris) {
  uint32_t nt = 0;
  if (R > 0.0) {
    for (int i = 0; i < NU; ++i)
      for (int j = 0; j < NV; ++j) {
        double u = 2 * TF_PI * i / NU, v = 2 * TF_PI * j / NV;
        v3_set(pos + 3 * (i * NV + j), (R + r * cos(v)) * cos(u), (R + r * cos(v)) * sin(u),
               r * sin(v));
      }
    for (int i = 0; i < NU; ++i)
      for (int j = 0; j < NV; ++j) {
        uint32_t a = i * NV + j, b = ((i + 1) % NU) * NV + j,
                 c = ((i + 1) % NU) * NV + (j + 1) % NV, d = i * NV + (j + 1) % NV;
        uint32_t t[6] = {a, b, c, a, c, d};
        memcpy(tris + 3 * nt, t, sizeof t);
        nt += 2;
      }
    return nt;
  }
  /* sphere: poles 0 and 1, rings j = 1..NV-1 */
  v3_set(pos, 0, 0, r);
  v3_set(pos + 3, 0, 0, -r);
  for (int j = 1; j < NV; ++j)
    for (int i = 0; i < NU; ++i) {
      double th = TF_PI * j / NV, ph = 2 * TF_PI * i / NU;
      v3_set(pos + 3 * (2 + (j - 1) * NU + i), r * sin(th) * cos(ph), r * sin(th) * sin(ph),
             r * cos(th));
    }
#define RING(j, i) (uint32_t)(2 + ((j)-1) * NU + ((i) % NU))
  for (int i = 0; i < NU; ++i) {
    uint32_t t0[3] = {0, RING(1, i), RING(1, i + 1)},
             t1[3] = {1, RING(NV - 1, i + 1), RING(NV - 1, i)};
    memcpy(tris + 3 * nt++, t0, sizeof t0);
    memcpy(tris + 3 * nt++, t1, sizeof t1);
  }
  for (int j = 1; j < NV - 1; ++j)
    for (int i = 0; i < NU; ++i) {
      uint32_t t[6] = {RING(j, i), RING(j + 1, i),     RING(j + 1, i + 1),
                       RING(j, i), RING(j + 1, i + 1), RING(j, i + 1)};
      memcpy(tris + 3 * nt, t, sizeof t);
      nt += 2;
    }
#undef RING
  return nt;
}

static void check_shape(int *tf_failed_, double R, double r, int cells) {
  tf_mem m;
  mem_init(&m, NULL);
  static double pos[3 * NU * NV + 6];
  static uint32_t tris[6 * NU * NV];
  uint32_t nv = R > 0 ? NU * NV : 2 + (NV - 1) * NU, nt = surface(R, r, pos, tris);
  /* the winding number tells inside from outside */
  double centre[3] = {0, 0, 0}, tube[3] = {R, 0, 0}, far[3] = {0, 0, 3 * (R + r)};
  if (R > 0) {
    ENSURE(fabs(winding_number(pos, tris, nt, centre)) < 1e-9); /* the hole */
    ENSURE_NEAR(winding_number(pos, tris, nt, tube), 1.0, 1e-9);
  } else {
    ENSURE_NEAR(winding_number(pos, tris, nt, centre), 1.0, 1e-9);
  }
  ENSURE(fabs(winding_number(pos, tris, nt, far)) < 1e-9);
  tetmesh_data d;
  char err[256];
  ENSURE_MSG(tetrahedralize_surface(&m, pos, nv, tris, nt, cells, &d, err, sizeof err) == TF_OK,
             "%s", err);
  tetmesh_quality q;
  tetmesh_measure(d.pos, d.tets, d.tet_count, &q);
  tetmesh t;
  ENSURE_MSG(tetmesh_build(&m, &t, d.pos, d.vert_count, d.tets, d.tet_count, 0, NULL, err,
                           sizeof err) == TF_OK,
             "%s", err);
  double vol = 0.0;
  for (uint32_t e = 0; e < d.tet_count; ++e) {
    double a[3], b[3], c[3], n[3];
    const uint32_t *v = d.tets + 4 * e;
    v3_sub(a, d.pos + 3 * v[1], d.pos + 3 * v[0]);
    v3_sub(b, d.pos + 3 * v[2], d.pos + 3 * v[0]);
    v3_sub(c, d.pos + 3 * v[3], d.pos + 3 * v[0]);
    v3_cross(n, a, b);
    vol += v3_dot(n, c) / 6.0;
  }
  double exact = R > 0 ? 2 * TF_PI * TF_PI * R * r * r : 4.0 / 3.0 * TF_PI * r * r * r;
  /* embed the surface itself */
  uint32_t *tet_of = malloc(sizeof(uint32_t) * nv);
  double *w = malloc(sizeof(double) * 4 * nv);
  tet_embed_stats es;
  ENSURE(tet_embed(&m, d.pos, d.tets, d.tet_count, pos, nv, tet_of, w, &es) == TF_OK);
  double wmin = 1.0, smax = 0.0;
  for (uint32_t p = 0; p < nv; ++p) {
    double s = 0.0;
    for (int k = 0; k < 4; ++k) s += w[4 * p + k], wmin = fmin(wmin, w[4 * p + k]);
    smax = fmax(smax, fabs(s - 1.0));
  }
  TF_NOTE(
      "%s at %d cells: %u tets, %u vertices, %u components, dihedral %.1f-%.1f deg, %u inverted; "
      "lattice "
      "volume %.3f vs %.3f enclosed; %u of %u surface points outside, min weight %.2e",
      R > 0 ? "torus" : "sphere", cells, d.tet_count, d.vert_count, t.comp_count, q.min_dihedral,
      q.max_dihedral, q.inverted, vol, exact, es.outside, nv, wmin);
  ENSURE(q.inverted == 0);
  ENSURE(q.min_dihedral > 45.0 - 1e-9 && q.max_dihedral < 90.0 + 1e-9);
  ENSURE(t.comp_count == 1);
  /* covers the body plus the shell of cells the surface passes through (a box-overlap test
   * gives 1.85 here) */
  ENSURE(vol > exact && vol < 1.7 * exact);
  ENSURE(es.outside == 0 && wmin >= -1e-9 && smax < 1e-12);
  free(tet_of);
  free(w);
  tetmesh_free(&m, &t);
  tetmesh_data_free(&m, &d);
  ENSURE(m.live_bytes == 0);
}

TF_TEST(mesh_tetrahedralize_sphere) { check_shape(tf_failed_, 0.0, 1.0, 12); }
TF_TEST(mesh_tetrahedralize_torus) { check_shape(tf_failed_, 1.0, 0.4, 16); }

TF_TEST(mesh_tetrahedralize_rejects_bad_input) {
  tf_mem m;
  mem_init(&m, NULL);
  double pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  uint32_t tris[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3},
           bad[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 9};
  tetmesh_data d;
  char err[256];
  ENSURE(tetrahedralize_surface(&m, pos, 4, tris, 4, 1, &d, err, sizeof err) == TF_E_INVALID_ARG);
  ENSURE(strstr(err, "resolution 1"));
  ENSURE(tetrahedralize_surface(&m, pos, 4, bad, 4, 4, &d, err, sizeof err) == TF_E_BAD_MESH);
  ENSURE(strstr(err, "triangle 3: vertex index 9"));
  pos[4] = NAN;
  ENSURE(tetrahedralize_surface(&m, pos, 4, tris, 4, 4, &d, err, sizeof err) == TF_E_BAD_MESH);
  ENSURE(strstr(err, "vertex 1 is not finite"));
  pos[4] = 0.0;
  ENSURE(tetrahedralize_surface(&m, pos, 4, tris, 4, 4, &d, err, sizeof err) == TF_OK);
  ENSURE(d.tet_count > 0);
  tetmesh_data_free(&m, &d);
  ENSURE(m.live_bytes == 0);
}

/* Issue 14 (UBSan): a surface whose bounding box overflows a double (corners at +-1.5e308) made
 * the lattice's cell counts NaN, converted to int */
TF_TEST(mesh_tetrahedralize_rejects_overflowing_extent) {
  tf_mem m;
  mem_init(&m, NULL);
  double pos[12] = {-1.5e308, 0, 0, 1.5e308, 0, 0, 0, 1e308, 0, 0, 0, 1e308};
  uint32_t tris[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
  tetmesh_data d;
  char err[256];
  ENSURE(tetrahedralize_surface(&m, pos, 4, tris, 4, 4, &d, err, sizeof err) == TF_E_BAD_MESH);
  ENSURE_MSG(strstr(err, "too large for a double"), "%s", err);
  /* a box so small that its cell underflows to 0 */
  double tiny[12] = {0, 0, 0, 5e-324, 0, 0, 0, 5e-324, 0, 0, 0, 5e-324};
  ENSURE(tetrahedralize_surface(&m, tiny, 4, tris, 4, 512, &d, err, sizeof err) == TF_E_BAD_MESH);
  ENSURE(m.live_bytes == 0);
}

static tf_status flesh_from(const double *pos, const uint32_t *tris, uint32_t lattice_cells,
                            char *err, size_t n) {
  tf_flesh_def def;
  tf_flesh_def_init(&def);
  def.surface_positions = pos;
  def.surface_vert_count = 4;
  def.surface_triangles = tris;
  def.surface_tri_count = 4;
  def.lattice_cells = lattice_cells;
  tf_sim *sim = NULL;
  tf_status st = tf_flesh_create(&def, &sim, err, n);
  tf_sim_destroy(sim);
  return st;
}

/* Issue 14: flesh surfaces are validated like cloth's (a triangle that repeats a vertex or has no
 * area is refused by number), an overflowing extent is refused before the lattice is sized, and
 * lattice_cells 512 is refused up front with its memory estimate (it took a minute and gigabytes)
 */
TF_TEST(flesh_surface_validation_and_lattice_limit) {
  double pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  uint32_t tris[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
  char err[512];
  uint32_t rep[12] = {0, 2, 1, 0, 1, 3, 0, 3, 3, 1, 2, 3};
  ENSURE(flesh_from(pos, rep, 4, err, sizeof err) == TF_E_BAD_MESH);
  ENSURE_MSG(strstr(err, "surface triangle 2 repeats a vertex (0 3 3)"), "%s", err);
  double flat[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0, 1}; /* 0, 1, 2 on a line */
  uint32_t ftris[12] = {0, 1, 3, 1, 2, 3, 0, 3, 2, 0, 2, 1};
  ENSURE(flesh_from(flat, ftris, 4, err, sizeof err) == TF_E_BAD_MESH);
  ENSURE_MSG(strstr(err, "surface triangle 2 (0 3 2)") || strstr(err, "is degenerate"), "%s", err);
  double huge[12] = {-1.5e308, 0, 0, 1.5e308, 0, 0, 0, 1e308, 0, 0, 0, 1e308};
  tf_status st = flesh_from(huge, tris, 4, err, sizeof err);
  TF_NOTE("%s", err);
  ENSURE_MSG(st == TF_E_BAD_MESH || st == TF_E_INVALID_ARG, "%s", err);
  ENSURE(flesh_from(pos, tris, 512, err, sizeof err) == TF_E_INVALID_ARG);
  TF_NOTE("%s", err);
  ENSURE_MSG(strstr(err, "lattice_cells 512 would need ~") && strstr(err, "GB") &&
                 strstr(err, "limit 2.15 GB") && strstr(err, "use <= 69"),
             "%s", err);
  ENSURE_MSG(flesh_from(pos, tris, 12, err, sizeof err) == TF_OK, "%s", err);
}
