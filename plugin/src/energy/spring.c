/* SPDX-License-Identifier: MIT
 * See spring.h. */
#include "energy/spring.h"

#include <math.h>

#include "core/vec3.h"

double spring_energy(const double x[6], double k, double L, double *grad, double *hess) {
  double d[3];
  v3_sub(d, x + 3, x);
  const double l = v3_norm(d), s = l - L;
  const double E = 0.5 * k * s * s;
  if (!grad && !hess) return E;
  double u[3] = {0.0, 0.0, 0.0};
  if (l > 0.0) v3_scale(u, d, 1.0 / l);
  if (grad)
    for (int i = 0; i < 3; ++i) grad[3 + i] = k * s * u[i], grad[i] = -grad[3 + i];
  if (hess) {
    /* the block on (a, a) and (b, b); minus it on (a, b) and (b, a) */
    const double across = l > 0.0 ? fmax(1.0 - L / l, 0.0) : 1.0, along = l > 0.0 ? 1.0 : 0.0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double uu = u[i] * u[j];
        const double b = k * (along * uu + across * ((i == j) - uu));
        hess[6 * i + j] = hess[6 * (3 + i) + 3 + j] = b;
        hess[6 * i + 3 + j] = hess[6 * (3 + i) + j] = -b;
      }
  }
  return E;
}
