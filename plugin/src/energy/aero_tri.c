/* SPDX-License-Identifier: MIT
 * Per-triangle aerodynamic force and its drag linearization (see aero_tri.h). */
#include "energy/aero_tri.h"

#include <math.h>

#include "core/vec3.h"

/* relative flow below this speed (m/s) exerts no force: keeps |u| out of denominators */
static const double AERO_MIN_SPEED = 1e-9;

int aero_triangle(const double x[9], const double v[9], const double wind[3], const aero_coeffs *k, double f[3],
                  double *c, double n_out[3]) {
  double e1[3], e2[3], n[3];
  v3_sub(e1, x + 3, x);
  v3_sub(e2, x + 6, x);
  v3_cross(n, e1, e2);
  double nn = v3_norm(n);
  v3_set(f, 0, 0, 0);
  *c = 0.0;
  if (!(nn > 0.0)) return 0;
  double area = 0.5 * nn;
  v3_scale(n, n, 1.0 / nn);
  if (n_out) v3_copy(n_out, n);
  /* air relative to the triangle's mean velocity */
  double u[3];
  for (int i = 0; i < 3; ++i) u[i] = wind[i] - (v[i] + v[3 + i] + v[6 + i]) / 3.0;
  double speed = v3_norm(u);
  if (!(speed > AERO_MIN_SPEED)) return 1;
  double un = v3_dot(u, n);
  double half = 0.5 * k->rho * area;
  /* drag along the normal, lift across the flow */
  v3_axpy(f, half * k->cd * speed * un, n);
  if (k->cl != 0.0) {
    double l[3];
    v3_copy(l, n);
    v3_axpy(l, -un / (speed * speed), u);
    v3_axpy(f, half * k->cl * speed * un, l);
  }
  /* d(|u| (u.n))/du along n = |u| + (u.n)^2/|u|; the mean velocity carries 1/3 of each vertex's */
  *c = half * k->cd * (speed + un * un / speed);
  return 1;
}
