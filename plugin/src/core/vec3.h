/* SPDX-License-Identifier: MIT
 * Small inline 3-vector and 3x3 matrix helpers on plain double arrays. Matrices are row-major
 * double[9]. Everything here is header-only so the energy kernels inline it. */
#ifndef TF_CORE_VEC3_H
#define TF_CORE_VEC3_H

#include <math.h>

static inline void v3_set(double *r, double x, double y, double z) {
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
static inline void v3_copy(double *r, const double *a) {
  r[0] = a[0];
  r[1] = a[1];
  r[2] = a[2];
}
static inline void v3_add(double *r, const double *a, const double *b) {
  r[0] = a[0] + b[0];
  r[1] = a[1] + b[1];
  r[2] = a[2] + b[2];
}
static inline void v3_sub(double *r, const double *a, const double *b) {
  r[0] = a[0] - b[0];
  r[1] = a[1] - b[1];
  r[2] = a[2] - b[2];
}
static inline void v3_scale(double *r, const double *a, double s) {
  r[0] = a[0] * s;
  r[1] = a[1] * s;
  r[2] = a[2] * s;
}
/* r += s * a */
static inline void v3_axpy(double *r, double s, const double *a) {
  r[0] += s * a[0];
  r[1] += s * a[1];
  r[2] += s * a[2];
}
static inline double v3_dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void v3_cross(double *r, const double *a, const double *b) {
  double x = a[1] * b[2] - a[2] * b[1];
  double y = a[2] * b[0] - a[0] * b[2];
  double z = a[0] * b[1] - a[1] * b[0];
  r[0] = x;
  r[1] = y;
  r[2] = z;
}
static inline double v3_norm2(const double *a) { return v3_dot(a, a); }
static inline double v3_norm(const double *a) { return sqrt(v3_dot(a, a)); }
/* a unit vector orthogonal to the unit vector a: the coordinate axis least aligned with a, made
 * orthogonal to it */
static inline void v3_any_orthogonal(const double *a, double *out) {
  double e[3] = {0, 0, 0};
  int k = fabs(a[0]) <= fabs(a[1]) ? (fabs(a[0]) <= fabs(a[2]) ? 0 : 2)
                                   : (fabs(a[1]) <= fabs(a[2]) ? 1 : 2);
  e[k] = 1.0;
  v3_axpy(e, -v3_dot(e, a), a);
  v3_scale(out, e, 1.0 / v3_norm(e));
}
static inline double v3_dist(const double *a, const double *b) {
  double d[3];
  v3_sub(d, a, b);
  return v3_norm(d);
}
static inline double v3_maxabs(const double *a) {
  double m = fabs(a[0]);
  if (fabs(a[1]) > m) m = fabs(a[1]);
  if (fabs(a[2]) > m) m = fabs(a[2]);
  return m;
}

/* r = A * x for row-major 3x3 A */
static inline void m3_mulv(double *r, const double *A, const double *x) {
  double a = A[0] * x[0] + A[1] * x[1] + A[2] * x[2];
  double b = A[3] * x[0] + A[4] * x[1] + A[5] * x[2];
  double c = A[6] * x[0] + A[7] * x[1] + A[8] * x[2];
  r[0] = a;
  r[1] = b;
  r[2] = c;
}
/* r += A * x */
static inline void m3_mulv_add(double *r, const double *A, const double *x) {
  r[0] += A[0] * x[0] + A[1] * x[1] + A[2] * x[2];
  r[1] += A[3] * x[0] + A[4] * x[1] + A[5] * x[2];
  r[2] += A[6] * x[0] + A[7] * x[1] + A[8] * x[2];
}
/* r -= A * x */
static inline void m3_mulv_sub(double *r, const double *A, const double *x) {
  r[0] -= A[0] * x[0] + A[1] * x[1] + A[2] * x[2];
  r[1] -= A[3] * x[0] + A[4] * x[1] + A[5] * x[2];
  r[2] -= A[6] * x[0] + A[7] * x[1] + A[8] * x[2];
}
static inline double m3_det(const double *A) {
  return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
         A[2] * (A[3] * A[7] - A[4] * A[6]);
}
/* Inverse of a 3x3 matrix; returns 0 (and leaves r untouched) when |det| <= tiny. */
static inline int m3_inverse(double *r, const double *A, double tiny) {
  double d = m3_det(A);
  if (!(fabs(d) > tiny)) return 0;
  double s = 1.0 / d;
  double t[9] = {(A[4] * A[8] - A[5] * A[7]) * s, (A[2] * A[7] - A[1] * A[8]) * s,
                 (A[1] * A[5] - A[2] * A[4]) * s, (A[5] * A[6] - A[3] * A[8]) * s,
                 (A[0] * A[8] - A[2] * A[6]) * s, (A[2] * A[3] - A[0] * A[5]) * s,
                 (A[3] * A[7] - A[4] * A[6]) * s, (A[1] * A[6] - A[0] * A[7]) * s,
                 (A[0] * A[4] - A[1] * A[3]) * s};
  for (int i = 0; i < 9; ++i) r[i] = t[i];
  return 1;
}

#endif
