/* SPDX-License-Identifier: MIT
 * See intersect_check.h. The segment-triangle test is the classic one built from orientation
 * predicates only: pq meets abc iff p and q are not strictly on one side of the plane and the
 * line pq passes the three edges on one side (orient(p, q, a, b), orient(p, q, b, c),
 * orient(p, q, c, a) not of mixed strict signs). No distances; one tolerance: a segment whose
 * both ends lie within 1e-12 (relative) of the triangle's plane is decided in the plane. Long
 * double is not exact for full-precision doubles, and for a segment that near-coplanar the
 * three line-edge orientations are rounding noise: a flat sheet one frame into free fall (every
 * vertex at the same height up to the last bit) showed 14 "crossings" between edges and
 * triangles 5 cm away in its plane. Deciding in the plane is conservative: a near-coplanar
 * segment overlapping the triangle still counts. */
#include "intersect_check.h"

#include <math.h>
#include <stdlib.h>

typedef long double ld;

int ic_orient3d(const double a[3], const double b[3], const double c[3], const double d[3]) {
  ld bx = (ld)b[0] - a[0], by = (ld)b[1] - a[1], bz = (ld)b[2] - a[2];
  ld cx = (ld)c[0] - a[0], cy = (ld)c[1] - a[1], cz = (ld)c[2] - a[2];
  ld dx = (ld)d[0] - a[0], dy = (ld)d[1] - a[1], dz = (ld)d[2] - a[2];
  ld det = bx * (cy * dz - cz * dy) - by * (cx * dz - cz * dx) + bz * (cx * dy - cy * dx);
  return (det > 0) - (det < 0);
}

/* 2D orientation of (a, b, c) in coordinates (u, v) of a dropped axis */
static int orient2(const double *a, const double *b, const double *c, int u, int v) {
  ld det = ((ld)b[u] - a[u]) * ((ld)c[v] - a[v]) - ((ld)b[v] - a[v]) * ((ld)c[u] - a[u]);
  return (det > 0) - (det < 0);
}

/* closed 2D segments ab and cd meet */
static int seg_seg2(const double *a, const double *b, const double *c, const double *d, int u,
                    int v) {
  int o1 = orient2(a, b, c, u, v), o2 = orient2(a, b, d, u, v);
  int o3 = orient2(c, d, a, u, v), o4 = orient2(c, d, b, u, v);
  if (o1 * o2 < 0 && o3 * o4 < 0) return 1;
  /* collinear touching: an endpoint within the other segment's bounding box */
  const double *pts[4] = {c, d, a, b}, *s0[4] = {a, a, c, c}, *s1[4] = {b, b, d, d};
  int os[4] = {o1, o2, o3, o4};
  for (int k = 0; k < 4; ++k) {
    if (os[k] != 0) continue;
    const double *p = pts[k];
    int in = 1;
    for (int w = 0; w < 2; ++w) {
      int ax = w ? v : u;
      double lo = s0[k][ax] < s1[k][ax] ? s0[k][ax] : s1[k][ax];
      double hi = s0[k][ax] < s1[k][ax] ? s1[k][ax] : s0[k][ax];
      if (p[ax] < lo || p[ax] > hi) in = 0;
    }
    if (in) return 1;
  }
  return 0;
}

static int point_in_tri2(const double *p, const double *a, const double *b, const double *c, int u,
                         int v) {
  int o1 = orient2(a, b, p, u, v), o2 = orient2(b, c, p, u, v), o3 = orient2(c, a, p, u, v);
  return (o1 >= 0 && o2 >= 0 && o3 >= 0) || (o1 <= 0 && o2 <= 0 && o3 <= 0);
}

static int coplanar(const double p[3], const double q[3], const double a[3], const double b[3],
                    const double c[3]) {
  /* drop the axis of the normal's largest component */
  ld e1[3], e2[3], n[3];
  for (int k = 0; k < 3; ++k) {
    e1[k] = (ld)b[k] - a[k];
    e2[k] = (ld)c[k] - a[k];
  }
  n[0] = e1[1] * e2[2] - e1[2] * e2[1];
  n[1] = e1[2] * e2[0] - e1[0] * e2[2];
  n[2] = e1[0] * e2[1] - e1[1] * e2[0];
  int drop = 0;
  for (int k = 1; k < 3; ++k)
    if ((n[k] < 0 ? -n[k] : n[k]) > (n[drop] < 0 ? -n[drop] : n[drop])) drop = k;
  int u = (drop + 1) % 3, v = (drop + 2) % 3;
  if (point_in_tri2(p, a, b, c, u, v) || point_in_tri2(q, a, b, c, u, v)) return 1;
  return seg_seg2(p, q, a, b, u, v) || seg_seg2(p, q, b, c, u, v) || seg_seg2(p, q, c, a, u, v);
}

/* side of d against the plane (a, b, c): ic_orient3d, 0 within a relative 1e-12 of the plane */
static int side(const double a[3], const double b[3], const double c[3], const double d[3]) {
  ld e[3][3], len = 1;
  for (int k = 0; k < 3; ++k) {
    const double *x = k == 0 ? b : k == 1 ? c : d;
    ld l2 = 0;
    for (int w = 0; w < 3; ++w) e[k][w] = (ld)x[w] - a[w], l2 += e[k][w] * e[k][w];
    len *= sqrtl(l2);
  }
  ld det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
           e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
           e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
  if ((det < 0 ? -det : det) <= 1e-12L * len) return 0;
  return (det > 0) - (det < 0);
}

int ic_segment_triangle(const double p[3], const double q[3], const double a[3], const double b[3],
                        const double c[3]) {
  int s1 = side(a, b, c, p), s2 = side(a, b, c, q);
  if (s1 * s2 > 0) return 0;
  if (s1 == 0 && s2 == 0) return coplanar(p, q, a, b, c);
  int o1 = ic_orient3d(p, q, a, b), o2 = ic_orient3d(p, q, b, c), o3 = ic_orient3d(p, q, c, a);
  return (o1 >= 0 && o2 >= 0 && o3 >= 0) || (o1 <= 0 && o2 <= 0 && o3 <= 0);
}

static int cmp_edge(const void *x, const void *y) {
  const int *a = x, *b = y;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return (a[1] > b[1]) - (a[1] < b[1]);
}

/* unique edges (lo, hi) of the triangles; caller frees; count in *out_n; NULL if no memory */
static int *unique_edges(const int *tris, int ntris, int *out_n) {
  int *e = malloc(sizeof(int) * 6 * (size_t)(ntris > 0 ? ntris : 1));
  if (!e) return NULL;
  int n = 0;
  for (int t = 0; t < ntris; ++t)
    for (int k = 0; k < 3; ++k) {
      int a = tris[3 * t + k], b = tris[3 * t + (k + 1) % 3];
      e[2 * n] = a < b ? a : b;
      e[2 * n + 1] = a < b ? b : a;
      n++;
    }
  qsort(e, (size_t)n, 2 * sizeof(int), cmp_edge);
  int m = 0;
  for (int k = 0; k < n; ++k)
    if (m == 0 || e[2 * k] != e[2 * (m - 1)] || e[2 * k + 1] != e[2 * (m - 1) + 1]) {
      e[2 * m] = e[2 * k];
      e[2 * m + 1] = e[2 * k + 1];
      m++;
    }
  *out_n = m;
  return e;
}

/* crossings of the edges of (xe, edges) with the triangles of (xt, tris); self skips shared
 * vertices. A quick box rejection keeps it usable on meshes of a few thousand triangles. */
static long edges_vs_tris(const double *xe, const int *edges, int ne, const double *xt,
                          const int *tris, int nt, int self) {
  long count = 0;
  for (int i = 0; i < ne; ++i) {
    const double *p = xe + 3 * edges[2 * i], *q = xe + 3 * edges[2 * i + 1];
    for (int t = 0; t < nt; ++t) {
      const int *tv = tris + 3 * t;
      if (self &&
          (tv[0] == edges[2 * i] || tv[1] == edges[2 * i] || tv[2] == edges[2 * i] ||
           tv[0] == edges[2 * i + 1] || tv[1] == edges[2 * i + 1] || tv[2] == edges[2 * i + 1]))
        continue;
      const double *a = xt + 3 * tv[0], *b = xt + 3 * tv[1], *c = xt + 3 * tv[2];
      int apart = 0;
      for (int k = 0; k < 3 && !apart; ++k) {
        double slo = p[k] < q[k] ? p[k] : q[k], shi = p[k] < q[k] ? q[k] : p[k];
        double tlo = a[k], thi = a[k];
        if (b[k] < tlo) tlo = b[k];
        if (c[k] < tlo) tlo = c[k];
        if (b[k] > thi) thi = b[k];
        if (c[k] > thi) thi = c[k];
        apart = slo > thi || tlo > shi;
      }
      if (!apart) count += ic_segment_triangle(p, q, a, b, c);
    }
  }
  return count;
}

long ic_count_crossings(const double *xa, int na_verts, const int *tris_a, int na_tris,
                        const double *xb, int nb_verts, const int *tris_b, int nb_tris) {
  (void)na_verts;
  (void)nb_verts;
  int nea = 0, neb = 0;
  int *ea = unique_edges(tris_a, na_tris, &nea);
  if (!ea) return -1;
  long count;
  if (!xb) {
    count = edges_vs_tris(xa, ea, nea, xa, tris_a, na_tris, 1);
  } else {
    int *eb = unique_edges(tris_b, nb_tris, &neb);
    if (!eb) {
      free(ea);
      return -1;
    }
    count = edges_vs_tris(xa, ea, nea, xb, tris_b, nb_tris, 0) +
            edges_vs_tris(xb, eb, neb, xa, tris_a, na_tris, 0);
    free(eb);
  }
  free(ea);
  return count;
}
