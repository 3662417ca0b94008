/* SPDX-License-Identifier: MIT
 * Tet mesh topology: the boundary of a cube cut into six tets is closed, outward and encloses the
 * cube's volume; adjacency and components; re-orientation; rejected meshes; the quality report. */
#include <stdlib.h>
#include <string.h>

#include "core/vec3.h"
#include "mesh/tet10mesh.h"
#include "mesh/tetmesh.h"
#include "tf_test.h"

/* unit cube, vertex i at (i & 1, i >> 1 & 1, i >> 2 & 1); Kuhn's six tets around the 0-7 diagonal,
 * the last three written with negative orientation on purpose */
static void cube(double pos[24], uint32_t tets[24]) {
  for (int i = 0; i < 8; ++i) v3_set(pos + 3 * i, i & 1, i >> 1 & 1, i >> 2 & 1);
  const uint32_t t[24] = {0, 1, 3, 7, 0, 1, 5, 7, 0, 2, 3, 7, 0, 2, 6, 7, 0, 4, 5, 7, 0, 4, 6, 7};
  memcpy(tets, t, sizeof t);
}

TF_TEST(mesh_tet_cube_boundary_is_closed_and_outward) {
  tf_mem m;
  mem_init(&m, NULL);
  double pos[24];
  uint32_t tets[24];
  cube(pos, tets);
  tetmesh t;
  char err[256];
  ENSURE_MSG(tetmesh_build(&m, &t, pos, 8, tets, 6, 0, NULL, err, sizeof err) == TF_OK, "%s", err);
  ENSURE(t.face_count == 12 && t.comp_count == 1);
  /* every tet positive after re-orientation */
  tetmesh_quality q;
  tetmesh_measure(pos, t.tets, t.tet_count, &q);
  ENSURE(q.inverted == 0);
  ENSURE_NEAR(q.min_volume, 1.0 / 6.0, 1e-15);
  /* enclosed volume by the divergence theorem: sum p0 . (p1 x p2) / 6 over boundary faces */
  double vol = 0.0;
  for (uint32_t f = 0; f < t.face_count; ++f) {
    const uint32_t *v = t.faces + 3 * f;
    double c[3];
    v3_cross(c, pos + 3 * v[1], pos + 3 * v[2]);
    vol += v3_dot(pos + 3 * v[0], c) / 6.0;
  }
  ENSURE_NEAR(vol, 1.0, 1e-14);
  /* closed: each directed boundary edge has its reverse exactly once */
  for (uint32_t f = 0; f < t.face_count; ++f)
    for (int k = 0; k < 3; ++k) {
      uint32_t a = t.faces[3 * f + k], b = t.faces[3 * f + (k + 1) % 3];
      int same = 0, rev = 0;
      for (uint32_t g = 0; g < t.face_count; ++g)
        for (int l = 0; l < 3; ++l) {
          uint32_t c = t.faces[3 * g + l], d = t.faces[3 * g + (l + 1) % 3];
          same += (c == a && d == b);
          rev += (c == b && d == a);
        }
      ENSURE(same == 1 && rev == 1);
    }
  /* adjacency: symmetric, sorted, with the diagonal; vertex 0 and 7 touch everything */
  for (uint32_t i = 0; i < 8; ++i) {
    int diag = 0;
    for (uint32_t k = t.adj_ptr[i]; k < t.adj_ptr[i + 1]; ++k) {
      uint32_t j = t.adj[k];
      diag += (j == i);
      if (k > t.adj_ptr[i]) ENSURE(t.adj[k - 1] < j);
      int back = 0;
      for (uint32_t l = t.adj_ptr[j]; l < t.adj_ptr[j + 1]; ++l) back += (t.adj[l] == i);
      ENSURE(back == 1);
    }
    ENSURE(diag == 1);
  }
  ENSURE(t.adj_ptr[1] - t.adj_ptr[0] == 8 && t.adj_ptr[8] - t.adj_ptr[7] == 8);
  ENSURE(t.adj_ptr[2] - t.adj_ptr[1] == 5); /* vertex 1 (in tets 0137, 0157): itself, 0, 3, 5, 7 */
  tetmesh_free(&m, &t);
  ENSURE(m.live_bytes == 0);
}

TF_TEST(mesh_tet_components_and_rejects) {
  tf_mem m;
  mem_init(&m, NULL);
  char err[256];
  tetmesh t;
  double pos[24];
  uint32_t tets[24];
  cube(pos, tets);
  /* two separate tets: two components, eight faces */
  const uint32_t two[8] = {0, 1, 2, 4, 3, 5, 6, 7};
  ENSURE_MSG(tetmesh_build(&m, &t, pos, 8, two, 2, 0, NULL, err, sizeof err) == TF_OK, "%s", err);
  ENSURE(t.comp_count == 2 && t.face_count == 8);
  ENSURE(t.comp[0] == 0 && t.comp[3] == 1 && t.comp[4] == 0 && t.comp[7] == 1);
  tetmesh_free(&m, &t);
  const uint32_t out_of_range[4] = {0, 1, 2, 8}, repeat[4] = {0, 1, 1, 3}, flat[4] = {0, 1, 2, 3};
  const uint32_t three_on_a_face[12] = {0, 1, 2, 4, 0, 1, 2, 7, 0, 1, 2, 5};
  ENSURE(tetmesh_build(&m, &t, pos, 8, out_of_range, 1, 0, NULL, err, sizeof err) == TF_E_BAD_MESH);
  ENSURE(strstr(err, "tet 0: vertex index 8 out of range"));
  ENSURE(tetmesh_build(&m, &t, pos, 8, repeat, 1, 0, NULL, err, sizeof err) == TF_E_BAD_MESH);
  ENSURE(strstr(err, "repeats vertex 1"));
  ENSURE(tetmesh_build(&m, &t, pos, 8, flat, 1, 0, NULL, err, sizeof err) == TF_E_BAD_MESH);
  ENSURE(strstr(err, "flat at rest"));
  ENSURE(tetmesh_build(&m, &t, pos, 8, three_on_a_face, 3, 0, NULL, err, sizeof err) ==
         TF_E_BAD_MESH);
  ENSURE(strstr(err, "shared by 3 tets"));
  ENSURE(m.live_bytes == 0);
}

TF_TEST(mesh_tet_quality_report) {
  /* regular tet: every dihedral angle is acos(1/3) = 70.53 degrees */
  const double s = 1.0 / sqrt(2.0);
  double pos[15] = {1, 0, -s, -1, 0, -s, 0, 1, s, 0, -1, s, 0, 0, 0};
  uint32_t t[4] = {0, 1, 2, 3};
  tetmesh_quality q;
  tetmesh_measure(pos, t, 1, &q);
  if (q.inverted) { /* the winding above may be negative: swap and retry */
    t[2] = 3;
    t[3] = 2;
    tetmesh_measure(pos, t, 1, &q);
  }
  ENSURE(q.inverted == 0);
  ENSURE_NEAR(q.min_dihedral, acos(1.0 / 3.0) * 180.0 / TF_PI, 1e-9);
  ENSURE_NEAR(q.max_dihedral, acos(1.0 / 3.0) * 180.0 / TF_PI, 1e-9);
  /* the same tet listed with the other winding: inverted, same angles */
  const uint32_t flipped[4] = {t[0], t[1], t[3], t[2]};
  tetmesh_measure(pos, flipped, 1, &q);
  ENSURE(q.inverted == 1 && q.min_volume < 0.0);
  ENSURE_NEAR(q.min_dihedral, acos(1.0 / 3.0) * 180.0 / TF_PI, 1e-9);
  /* a sliver: the apex almost on the base plane has angles near 0 and 180 */
  double sliver[12] = {0, 0, 0, 1, 0, 0, 0.5, 0.9, 0, 0.5, 0.3, 1e-3};
  const uint32_t st[4] = {0, 1, 2, 3};
  tetmesh_measure(sliver, st, 1, &q);
  ENSURE(q.inverted == 0 && q.min_dihedral < 1.0 && q.max_dihedral > 179.0);
}

TF_TEST(mesh_tet_lumped_mass) {
  tf_mem m;
  mem_init(&m, NULL);
  double pos[24], mass[8];
  uint32_t tets[24];
  cube(pos, tets);
  for (int i = 0; i < 8; ++i) v3_scale(pos + 3 * i, pos + 3 * i, 0.5); /* a 0.5 m cube */
  tetmesh t;
  char err[256];
  ENSURE_MSG(tetmesh_build(&m, &t, pos, 8, tets, 6, 0, NULL, err, sizeof err) == TF_OK, "%s", err);
  tetmesh_lumped_mass(&t, pos, NULL, 1000.0, mass);
  double total = 0.0;
  for (int i = 0; i < 8; ++i) total += mass[i];
  ENSURE_NEAR(total, 125.0, 1e-12);              /* water: 1000 kg/m^3 x 0.125 m^3 */
  ENSURE_NEAR(mass[0], 6 * 125.0 / 24.0, 1e-12); /* on the diagonal: a quarter of all six tets */
  ENSURE_NEAR(mass[1], 2 * 125.0 / 24.0, 1e-12); /* in two tets */
  /* per-tet density: only the first tet is heavy */
  double rho[6] = {7000, 1000, 1000, 1000, 1000, 1000};
  tetmesh_lumped_mass(&t, pos, rho, 0.0, mass);
  total = 0.0;
  for (int i = 0; i < 8; ++i) total += mass[i];
  ENSURE_NEAR(total, 125.0 + 6000.0 * 0.125 / 6.0, 1e-9);
  /* quadratic: the same total, 1/36 of each tet at its corners and 4/27 at its edge nodes */
  tet10mesh q;
  ENSURE(tet10mesh_build(&m, &t, &q) == TF_OK);
  double *all = calloc(3 * (size_t)q.node_count, sizeof *all),
         *m10 = calloc(q.node_count, sizeof *m10);
  memcpy(all, pos, sizeof pos);
  tet10mesh_spread(&q, all, 3);
  for (int k = 0; k < 6; ++k) rho[k] = 1000.0;
  tet10mesh_lumped_mass(&q, &t, all, rho, m10);
  total = 0.0;
  for (uint32_t i = 0; i < q.node_count; ++i) total += m10[i];
  ENSURE_NEAR(total, 125.0, 1e-12);
  ENSURE_NEAR(m10[1], 2 * 125.0 / 6.0 / 36.0, 1e-12); /* vertex 1 is in two tets */
  ENSURE(q.edge_count == 19); /* 12 cube edges, 6 face diagonals, the body diagonal */
  free(all), free(m10);
  tet10mesh_free(&m, &q);
  tetmesh_free(&m, &t);
}
