/* SPDX-License-Identifier: MIT
 * Aerodynamic force on a triangle (Leplatre 2016 per-triangle drag, plus lift): with the air's
 * velocity relative to the triangle u = v_air - mean(v_a, v_b, v_c), unit normal n, area A and
 * cos(phi) = u.n / |u|,
 *   drag  f_d = 1/2 rho c_d A |u| (u.n) n                    (normal pressure: the seed's model)
 *   lift  f_l = 1/2 rho c_l A |u| (u.n) (n - (u.n) u / |u|^2) (across the flow, in its plane
 *                                                              with n; |f_l| ~ sin(2 phi))
 * Both are two-sided (flipping n flips u.n) unless windward_only, vanish edge-on and with no
 * relative flow, and are split equally to the corners. For the implicit step the drag's exact
 * derivative along the normal, d f_d / d v_vertex = -(k/3) (|u| + (u.n)^2/|u|) n n^T with k = rho
 * c_d A / 2, gives a symmetric positive semi-definite damping matrix. */
#ifndef TF_ENERGY_AERO_TRI_H
#define TF_ENERGY_AERO_TRI_H

#include "core/common.h"

typedef struct aero_coeffs {
  double rho;        /* air density, kg/m^3 */
  double cd;         /* drag coefficient */
  double cl;         /* lift coefficient */
  int windward_only; /* a closed body's outward faces: only those the flow hits (u.n < 0) push;
                        a cloth sheet is two-sided */
} aero_coeffs;

/* Force on the whole triangle (x: 3 vertices gathered, v: their velocities, wind: the air's
 * velocity at the triangle) into f (3), and the drag's damping coefficient c (N s/m) such that
 * the force on each corner changes by -(c/9) n n^T per unit velocity change of each corner;
 * n_out (3, unit) Nullable. Returns 0 for a degenerate triangle (no force). */
TF_LOCAL int aero_triangle(const double x[9], const double v[9], const double wind[3],
                           const aero_coeffs *k, double f[3], double *c, double n_out[3]);

/* How the load (drag and lift) follows the triangle's orientation: with the air's relative
 * velocity held, the per-corner load changes with positions by J (9x9, all corners alike:
 * J_ij = (1/3) df/da da/dx_j, a the area vector). P (9x9, row-major) receives minus the negative
 * part of J's symmetric part (restoring, treated implicitly) plus the magnitude of its
 * antisymmetric part (circulatory, damped): a PSD matrix. Returns 0 when there is no relative flow
 * or the triangle is degenerate. */
TF_LOCAL int aero_restoring_stiffness(const double x[9], const double v[9], const double wind[3],
                                      const aero_coeffs *k, double P[81]);
/* J itself, drag and lift (for tests) */
TF_LOCAL int aero_drag_jacobian(const double x[9], const double v[9], const double wind[3],
                                const aero_coeffs *k, double J[81]);

#endif
