/* SPDX-License-Identifier: MIT
 * A segment through a triangle (crossing.h). */
#include "geom/crossing.h"

#include <math.h>

#include "core/vec3.h"

int geom_segment_crosses(const double p[3], const double q[3], const double a[3], const double b[3],
                         const double c[3]) {
  double e1[3], e2[3], n[3], dp[3], dq[3];
  v3_sub(e1, b, a), v3_sub(e2, c, a), v3_cross(n, e1, e2);
  v3_sub(dp, p, a), v3_sub(dq, q, a);
  double sp = v3_dot(n, dp), sq = v3_dot(n, dq), nn = v3_norm(n);
  if (fabs(sp) <= 1e-12 * nn * v3_norm(dp)) sp = 0.0;
  if (fabs(sq) <= 1e-12 * nn * v3_norm(dq)) sq = 0.0;
  if ((sp > 0 && sq > 0) || (sp < 0 && sq < 0) || (sp == 0 && sq == 0)) return 0;
  /* a segment within a microradian of the triangle's plane: the line through it runs along the
   * plane, where the triple products below are rounding alone (a flat sheet on the ground, its
   * vertices 1e-12 m apart in height, had an edge cross a neighbouring triangle that lay beside
   * it, 6 cm away in the plane, and a torn sheet ended "crossed" on 6 of 17 such paths). The
   * point where it meets the plane, X = p + s (q - p), s = sp / (sp - sq), must then lie in the
   * triangle itself (barycentric weights from the signed areas, closed) */
  double d[3];
  v3_sub(d, q, p);
  if (fabs(sp - sq) <= 1e-6 * nn * v3_norm(d)) {
    double s = sp / (sp - sq), X[3], r[3], m[3], n2 = nn * nn;
    for (int k = 0; k < 3; ++k) X[k] = p[k] + s * d[k];
    v3_sub(r, X, a);
    v3_cross(m, r, e2);
    double w1 = v3_dot(m, n) / n2;
    v3_cross(m, e1, r);
    double w2 = v3_dot(m, n) / n2;
    return w1 >= 0.0 && w2 >= 0.0 && w1 + w2 <= 1.0;
  }
  /* the line through pq against the triangle's three edges: all on one side */
  const double *t[3] = {a, b, c};
  int pos = 0, neg = 0;
  for (int k = 0; k < 3; ++k) {
    double u[3], w[3], pq[3], m[3];
    v3_sub(u, t[k], p), v3_sub(w, t[(k + 1) % 3], p), v3_sub(pq, q, p), v3_cross(m, u, w);
    double o = v3_dot(pq, m);
    pos |= o > 0, neg |= o < 0;
  }
  return !(pos && neg);
}

int geom_segment_plane_point(const double p[3], const double q[3], const double a[3],
                             const double b[3], const double c[3], double *s, double w[3],
                             double n[3]) {
  double e1[3], e2[3], d[3], ap[3];
  v3_sub(e1, b, a), v3_sub(e2, c, a), v3_cross(n, e1, e2), v3_sub(d, q, p), v3_sub(ap, a, p);
  double nn = v3_norm(n);
  if (!(nn > 0.0)) return 0;
  v3_scale(n, n, 1.0 / nn);
  double nd = v3_dot(n, d);
  if (!(fabs(nd) > 0.0)) return 0;
  *s = v3_dot(n, ap) / nd;
  /* barycentric weights of X = p + s d in the plane, X - a = w1 e1 + w2 e2: the signed areas
   * (r x e2) . n = w1 |e1 x e2| and (e1 x r) . n = w2 |e1 x e2| */
  double X[3], r[3], m[3];
  for (int k = 0; k < 3; ++k) X[k] = p[k] + *s * d[k];
  v3_sub(r, X, a);
  v3_cross(m, r, e2);
  double w1 = v3_dot(m, n) / nn;
  v3_cross(m, e1, r);
  double w2 = v3_dot(m, n) / nn;
  w[0] = 1.0 - w1 - w2, w[1] = w1, w[2] = w2;
  return 1;
}
