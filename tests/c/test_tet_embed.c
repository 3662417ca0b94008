/* SPDX-License-Identifier: MIT
 * Embedded render surface: points inside a tet lattice get non-negative weights summing to 1 that
 * reproduce their positions, follow any affine deformation exactly (linear precision), and points
 * outside are reported and still reproduced by extrapolation. */
#include <string.h>

#include "core/vec3.h"
#include "mesh/tet_embed.h"
#include "tf_test.h"

static double frand(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return (double)(*s >> 8) / (double)(1u << 24);
}

/* an n^3 lattice of unit cubes, each cut into Kuhn's six tets */
enum { N = 4, NV = (N + 1) * (N + 1) * (N + 1), NT = 6 * N * N * N };

static void lattice(double *pos, uint32_t *tets) {
  for (int z = 0; z <= N; ++z)
    for (int y = 0; y <= N; ++y)
      for (int x = 0; x <= N; ++x) v3_set(pos + 3 * ((z * (N + 1) + y) * (N + 1) + x), x, y, z);
  static const int kuhn[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7},
                                 {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
  int e = 0;
  for (int z = 0; z < N; ++z)
    for (int y = 0; y < N; ++y)
      for (int x = 0; x < N; ++x)
        for (int k = 0; k < 6; ++k, ++e)
          for (int a = 0; a < 4; ++a) {
            int c = kuhn[k][a];
            tets[4 * e + a] =
                (uint32_t)(((z + (c >> 2 & 1)) * (N + 1) + y + (c >> 1 & 1)) * (N + 1) + x +
                           (c & 1));
          }
}

TF_TEST(mesh_tet_embed_linear_precision) {
  tf_mem m;
  mem_init(&m, NULL);
  static double pos[3 * NV], moved[3 * NV];
  static uint32_t tets[4 * NT];
  lattice(pos, tets);
  enum { P = 500 };
  double pts[3 * (P + 2)], w[4 * (P + 2)], out[3 * (P + 2)];
  uint32_t tet_of[P + 2];
  unsigned seed = 41;
  for (int p = 0; p < 3 * P; ++p) pts[p] = N * frand(&seed);
  v3_set(pts + 3 * P, N + 0.2, 1.5, 2.5);       /* outside, beside a face */
  v3_set(pts + 3 * (P + 1), 0.0, 0.0, N * 1.0); /* exactly on a lattice corner */
  tet_embed_stats st;
  ENSURE(tet_embed(&m, pos, tets, NT, pts, P + 2, tet_of, w, &st) == TF_OK);
  ENSURE(m.live_bytes == 0);
  TF_NOTE("%d points: %u outside, most negative weight %.3f", P + 2, st.outside, st.worst_outside);
  ENSURE(st.outside == 1 && st.worst_outside < -0.1);
  for (int p = 0; p < P + 2; ++p) {
    double s = w[4 * p] + w[4 * p + 1] + w[4 * p + 2] + w[4 * p + 3];
    ENSURE_NEAR(s, 1.0, 1e-12);
    if (p < P)
      for (int k = 0; k < 4; ++k) ENSURE(w[4 * p + k] >= -1e-9);
  }
  tet_embed_apply(pos, tets, 4, tet_of, w, P + 2, out);
  for (int k = 0; k < 3 * (P + 2); ++k) ENSURE_NEAR(out[k], pts[k], 1e-12);
  /* an affine map of the lattice carries every embedded point by the same map */
  const double A[9] = {1.2, 0.3, -0.1, 0.0, 0.8, 0.4, 0.2, -0.3, 1.1}, b[3] = {0.5, -2.0, 3.0};
  for (int i = 0; i < NV; ++i)
    for (int r = 0; r < 3; ++r)
      moved[3 * i + r] = b[r] + A[3 * r] * pos[3 * i] + A[3 * r + 1] * pos[3 * i + 1] +
                         A[3 * r + 2] * pos[3 * i + 2];
  tet_embed_apply(moved, tets, 4, tet_of, w, P + 2, out);
  double worst = 0.0;
  for (int p = 0; p < P + 2; ++p)
    for (int r = 0; r < 3; ++r) {
      const double *q = pts + 3 * p;
      double want = b[r] + A[3 * r] * q[0] + A[3 * r + 1] * q[1] + A[3 * r + 2] * q[2];
      worst = fmax(worst, fabs(out[3 * p + r] - want));
    }
  ENSURE(worst < 1e-12);
  /* a non-affine deformation moves an interior point with its own tet only */
  memcpy(moved, pos, sizeof pos);
  moved[3 * (NV - 1)] += 1.0; /* the far corner vertex */
  tet_embed_apply(moved, tets, 4, tet_of, w, 1, out);
  int touches = 0;
  for (int a = 0; a < 4; ++a) touches |= tets[4 * tet_of[0] + a] == NV - 1;
  ENSURE(touches || (out[0] == pts[0] && out[1] == pts[1] && out[2] == pts[2]));
}
