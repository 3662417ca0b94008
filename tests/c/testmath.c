/* SPDX-License-Identifier: MIT
 * See testmath.h. The decomposition itself is the library's, checked in test_eigen_sym.c. */
#include "testmath.h"

#include <math.h>

#include "core/eigen_sym.h"
#include "core/vec3.h"

double sym_min_eigenvalue(const double *A, int n) {
  double w[EIGEN_SYM_MAX];
  eigen_sym(A, n, w, NULL);
  double m = w[0];
  for (int i = 1; i < n; ++i)
    if (w[i] < m) m = w[i];
  return m;
}

void rigid_motion(const double *p, int count, const double axis[3], double angle,
                  const double shift[3], double *out) {
  double u[3], c = cos(angle), s = sin(angle);
  v3_scale(u, axis, 1.0 / v3_norm(axis));
  for (int v = 0; v < count; ++v) {
    const double *q = p + 3 * v;
    double x[3], uq = v3_dot(u, q);
    v3_cross(x, u, q);
    for (int k = 0; k < 3; ++k)
      out[3 * v + k] = q[k] * c + x[k] * s + u[k] * uq * (1.0 - c) + shift[k];
  }
}
