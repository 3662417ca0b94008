/* SPDX-License-Identifier: MIT
 * Flat test meshes (flatmesh.h). */
#include "flatmesh.h"

#include <stdlib.h>
#include <string.h>

static double orient(const double *a, const double *b, const double *c) {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* > 0 when d is inside the circumcircle of the counter-clockwise a b c */
static double incircle(const double *a, const double *b, const double *c, const double *d) {
  double m[3][3];
  const double *p[3] = {a, b, c};
  for (int i = 0; i < 3; ++i) {
    double x = p[i][0] - d[0], y = p[i][1] - d[1];
    m[i][0] = x, m[i][1] = y, m[i][2] = x * x + y * y;
  }
  return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
         m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
         m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

/* flip one edge of triangle t that is not locally Delaunay; 1 when flipped */
static int flip_one(flatmesh *m, uint32_t t) {
  for (int k = 0; k < 3; ++k) {
    uint32_t a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3],
             c = m->tri[3 * t + (k + 2) % 3];
    for (uint32_t u = 0; u < m->tri_count; ++u)
      for (int l = 0; l < 3; ++l) {
        /* the twin triangle (b, a, d) */
        if (m->tri[3 * u + l] != b || m->tri[3 * u + (l + 1) % 3] != a) continue;
        uint32_t d = m->tri[3 * u + (l + 2) % 3];
        const double *pa = m->uv + 2 * a, *pb = m->uv + 2 * b, *pc = m->uv + 2 * c,
                     *pd = m->uv + 2 * d;
        if (!(incircle(pa, pb, pc, pd) > 1e-12)) continue;
        /* the quad a d b c, convex when d is in the circle; its other diagonal c d */
        if (orient(pa, pd, pc) <= 0.0 || orient(pd, pb, pc) <= 0.0) continue;
        uint32_t t1[3] = {a, d, c}, t2[3] = {d, b, c};
        memcpy(m->tri + 3 * t, t1, sizeof t1);
        memcpy(m->tri + 3 * u, t2, sizeof t2);
        return 1;
      }
  }
  return 0;
}

/* Lawson's flips until every interior edge is locally Delaunay */
static void delaunay_flips(flatmesh *m) {
  for (int flipped = 1; flipped;) {
    flipped = 0;
    for (uint32_t t = 0; t < m->tri_count; ++t) flipped |= flip_one(m, t);
  }
}

/* the counter-clockwise quad p0 p1 p2 p3 as two triangles, split along p0-p2 or (other) p1-p3;
 * returns the next free triangle */
static uint32_t *quad(uint32_t *t, uint32_t p0, uint32_t p1, uint32_t p2, uint32_t p3, int other) {
  uint32_t q[2][6] = {{p0, p1, p2, p0, p2, p3}, {p0, p1, p3, p1, p2, p3}};
  memcpy(t, q[other ? 1 : 0], sizeof q[0]);
  return t + 6;
}

void flatmesh_rect(flatmesh *m, flatmesh_kind kind, uint32_t nx, uint32_t ny, double x0, double w,
                   double h, uint32_t keep_cols, uint32_t seed) {
  m->vert_count = (nx + 1) * (ny + 1);
  m->tri_count = 2 * nx * ny;
  m->uv = malloc(sizeof(double) * 2 * m->vert_count);
  m->tri = malloc(sizeof(uint32_t) * 3 * m->tri_count);
  uint64_t r = 0x9e3779b97f4a7c15ull * (seed + 1);
  for (uint32_t j = 0; j <= ny; ++j)
    for (uint32_t i = 0; i <= nx; ++i) {
      double *p = m->uv + 2 * (j * (nx + 1) + i);
      p[0] = x0 + w * i / nx, p[1] = h * j / ny;
      if (kind != FLATMESH_IRREGULAR) continue;
      for (int c = 0; c < 2; ++c) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        double z = ((r >> 11) * (1.0 / 9007199254740992.0)) - 0.5; /* [-0.5, 0.5) */
        int inside = c == 0 ? (i > keep_cols && i < nx) : (j > 0 && j < ny);
        if (inside) p[c] += 0.5 * z * (c == 0 ? w / nx : h / ny);
      }
    }
  uint32_t *t = m->tri;
  for (uint32_t j = 0; j < ny; ++j)
    for (uint32_t i = 0; i < nx; ++i) {
      uint32_t a = j * (nx + 1) + i, b = a + 1, c = a + nx + 2, d = a + nx + 1;
      t = quad(t, a, b, c, d, kind == FLATMESH_ALTERNATE && (i + j) % 2);
    }
  if (kind == FLATMESH_IRREGULAR) delaunay_flips(m);
}

void flatmesh_equilateral(flatmesh *m, uint32_t n, double s) {
  double dy = s * 0.86602540378443864676;
  uint32_t w = n + 1;
  m->vert_count = (n + 1) * w;
  m->tri_count = 2 * n * n;
  m->uv = malloc(sizeof(double) * 2 * m->vert_count);
  m->tri = malloc(sizeof(uint32_t) * 3 * m->tri_count);
  for (uint32_t j = 0; j <= n; ++j)
    for (uint32_t i = 0; i < w; ++i) {
      m->uv[2 * (j * w + i)] = (i + 0.5 * (j % 2)) * s;
      m->uv[2 * (j * w + i) + 1] = j * dy;
    }
  uint32_t *t = m->tri;
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t a = j * w + i, b = a + 1, c = a + w, d = c + 1;
      t = quad(t, a, b, d, c, j % 2 == 0);
    }
}

double flatmesh_area(const flatmesh *m) {
  double a = 0.0;
  for (uint32_t t = 0; t < m->tri_count; ++t)
    a += 0.5 * orient(m->uv + 2 * m->tri[3 * t], m->uv + 2 * m->tri[3 * t + 1],
                      m->uv + 2 * m->tri[3 * t + 2]);
  return a;
}

void flatmesh_free(flatmesh *m) {
  free(m->uv);
  free(m->tri);
  memset(m, 0, sizeof *m);
}
