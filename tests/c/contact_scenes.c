/* SPDX-License-Identifier: MIT
 * Collider bodies for the contact tests (see contact_scenes.h). */
#include "contact_scenes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "intersect_check.h"

#ifndef M_PI
#  define M_PI 3.14159265358979323846
#endif

/* the smallest distance from c to a triangle's plane: the radius of the ball about c inside */
static double inscribed(const body *b, const double c[3]) {
  double inner = INFINITY;
  for (uint32_t k = 0; k < b->nt; ++k) {
    const double *a = b->pos + 3 * b->tri[3 * k], *bb = b->pos + 3 * b->tri[3 * k + 1],
                 *cc = b->pos + 3 * b->tri[3 * k + 2];
    double e1[3] = {bb[0] - a[0], bb[1] - a[1], bb[2] - a[2]},
           e2[3] = {cc[0] - a[0], cc[1] - a[1], cc[2] - a[2]};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                   e1[0] * e2[1] - e1[1] * e2[0]};
    double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double d = fabs(((a[0] - c[0]) * n[0] + (a[1] - c[1]) * n[1] + (a[2] - c[2]) * n[2]) / l);
    if (d < inner) inner = d;
  }
  return inner;
}

static void body_alloc(body *b, uint32_t nv, uint32_t nt) {
  b->nv = nv, b->nt = nt;
  b->pos = calloc(3 * (size_t)nv, sizeof *b->pos);
  b->tri = calloc(3 * (size_t)nt, sizeof *b->tri);
  b->itri = calloc(3 * (size_t)nt, sizeof *b->itri);
}

void body_sphere(body *b, const double c[3], double r, int rings, int segs) {
  body_alloc(b, (uint32_t)(2 + (rings - 1) * segs), (uint32_t)(2 * segs * (rings - 1)));
  double *p = b->pos;
  p[0] = c[0], p[1] = c[1], p[2] = c[2] + r;
  for (int i = 1; i < rings; ++i)
    for (int j = 0; j < segs; ++j) {
      double th = M_PI * i / rings, ph = 2 * M_PI * j / segs;
      double *q = p + 3 * (1 + (i - 1) * segs + j);
      q[0] = c[0] + r * sin(th) * cos(ph), q[1] = c[1] + r * sin(th) * sin(ph),
      q[2] = c[2] + r * cos(th);
    }
  uint32_t south = b->nv - 1;
  p[3 * south] = c[0], p[3 * south + 1] = c[1], p[3 * south + 2] = c[2] - r;
  uint32_t t = 0;
#define V(i, j) (uint32_t)(1 + ((i)-1) * segs + ((j) % segs))
  for (int j = 0; j < segs; ++j) {
    uint32_t *q = b->tri + 3 * t++;
    q[0] = 0, q[1] = V(1, j), q[2] = V(1, j + 1);
  }
  for (int i = 1; i < rings - 1; ++i)
    for (int j = 0; j < segs; ++j) {
      uint32_t *q = b->tri + 3 * t++;
      q[0] = V(i, j), q[1] = V(i + 1, j), q[2] = V(i + 1, j + 1);
      q = b->tri + 3 * t++;
      q[0] = V(i, j), q[1] = V(i + 1, j + 1), q[2] = V(i, j + 1);
    }
  for (int j = 0; j < segs; ++j) {
    uint32_t *q = b->tri + 3 * t++;
    q[0] = south, q[1] = V(rings - 1, j + 1), q[2] = V(rings - 1, j);
  }
#undef V
  for (uint32_t k = 0; k < 3 * b->nt; ++k) b->itri[k] = (int)b->tri[k];
  b->inner = inscribed(b, c);
}

void body_box(body *b, const double c[3], const double half[3]) {
  /* corner k has x, y, z sign bits 1, 2, 4; faces wound outward */
  static const uint32_t faces[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                                     2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
  body_alloc(b, 8, 12);
  for (int k = 0; k < 8; ++k)
    for (int a = 0; a < 3; ++a) b->pos[3 * k + a] = c[a] + ((k >> a) & 1 ? half[a] : -half[a]);
  memcpy(b->tri, faces, sizeof faces);
  for (uint32_t k = 0; k < 36; ++k) b->itri[k] = (int)b->tri[k];
  b->inner = inscribed(b, c);
}

void body_plate(body *b, const double origin[3], const double u[3], const double v[3], double w,
                double h, uint32_t nu, uint32_t nv) {
  scene g;
  scene_grid(&g, nu, nv, w, h, origin, u, v, 0);
  body_alloc(b, g.vert_count, g.tri_count);
  memcpy(b->pos, g.pos, 3 * sizeof *b->pos * g.vert_count);
  memcpy(b->tri, g.tri, 3 * sizeof *b->tri * g.tri_count);
  for (size_t k = 0; k < 3 * (size_t)g.tri_count; ++k) b->itri[k] = (int)g.tri[k];
  b->inner = 0.0;
  scene_free(&g);
}

void body_free(body *b) {
  free(b->pos), free(b->tri), free(b->itri);
  memset(b, 0, sizeof *b);
}

tf_status body_add(tf_sim *sim, const body *b, double thickness, double friction, uint32_t *id) {
  tf_collider_def d;
  tf_collider_def_init(&d);
  d.vert_count = b->nv, d.positions = b->pos, d.tri_count = b->nt, d.triangles = b->tri;
  d.thickness = thickness, d.friction = friction;
  return tf_sim_add_collider(sim, &d, id);
}

void body_transform(const body *b, const double M[16], double *out) {
  for (uint32_t i = 0; i < b->nv; ++i) {
    const double *p = b->pos + 3 * (size_t)i;
    for (int r = 0; r < 3; ++r)
      out[3 * (size_t)i + r] =
          M[4 * r] * p[0] + M[4 * r + 1] * p[1] + M[4 * r + 2] * p[2] + M[4 * r + 3];
  }
}

void rigid_matrix(const double axis[3], double angle, const double c[3], const double t[3],
                  double M[16]) {
  /* Rodrigues: R = cos I + sin [a]x + (1 - cos) a a^T; p' = R (p - c) + c + t */
  double co = cos(angle), si = sin(angle), x = axis[0], y = axis[1], z = axis[2];
  double R[9] = {co + x * x * (1 - co),     x * y * (1 - co) - z * si, x * z * (1 - co) + y * si,
                 y * x * (1 - co) + z * si, co + y * y * (1 - co),     y * z * (1 - co) - x * si,
                 z * x * (1 - co) - y * si, z * y * (1 - co) + x * si, co + z * z * (1 - co)};
  memset(M, 0, 16 * sizeof *M);
  for (int r = 0; r < 3; ++r) {
    for (int q = 0; q < 3; ++q) M[4 * r + q] = R[3 * r + q];
    M[4 * r + 3] = c[r] + t[r] - (R[3 * r] * c[0] + R[3 * r + 1] * c[1] + R[3 * r + 2] * c[2]);
  }
  M[15] = 1.0;
}

long cloth_body_crossings(const scene *sc, const double *x, const body *b, const double *bx) {
  int *itri = malloc(3 * (size_t)sc->tri_count * sizeof *itri);
  if (!itri) return -1;
  for (uint32_t k = 0; k < 3 * sc->tri_count; ++k) itri[k] = (int)sc->tri[k];
  long cr = ic_count_crossings(x, (int)sc->vert_count, itri, (int)sc->tri_count, bx ? bx : b->pos,
                               (int)b->nv, b->itri, (int)b->nt);
  free(itri);
  return cr;
}
