/* SPDX-License-Identifier: MIT
 * Isotropic shell bending on a triangle and its patch (Phaal & Calladine 1992; the rotation-free
 * shell triangles of Onate & Zarate 2000 and Flores & Onate 2005). The patch is six vertices,
 * x[18] = {x0, x1, x2, p3, p4, p5}: the triangle (x0, x1, x2), oriented like the mesh, and three
 * more vertices nearby (the opposite vertices of its three neighbours, or other vertices of the
 * mesh at a free edge). The quadratic through the six rest positions, in the rest triangle's
 * plane, gives fixed weights c (core/quadfit.h) with which the second derivatives of the deformed
 * surface are q_ab = sum_i c_ab,i x_i, and the second fundamental form is b_ab = n . q_ab with n
 * the triangle's unit normal. With S = b - b0 (b0 at rest) in the triangle's orthonormal rest
 * frame, the energy is the Kirchhoff plate's
 *   E = A D/2 [nu (tr S)^2 + (1 - nu) tr(S^2)]
 * with A the rest area, D the flexural rigidity (N m) and nu the bending Poisson ratio: 1/2 D c^2
 * per area for a cylinder of curvature c in any direction on any mesh, D (1 - nu) k^2 for the
 * twist z = k x y. All functions are pure, thread-safe and never allocate. */
#ifndef TF_ENERGY_BEND_SHELL_H
#define TF_ENERGY_BEND_SHELL_H

typedef struct shell_rest {
  double c[3][6]; /* weights of the second derivatives uu, vv, uv on the six vertices */
  double b0[3];   /* rest second fundamental form (uu, vv, uv), 1/m */
  double area;    /* rest area of the triangle, m^2 */
} shell_rest;

/* Fill r from the rest patch X[18]. Returns the fit's quality (quadfit_weights: scale-free, 0
 * when the patch lies on a conic, or the triangle is degenerate, and r is then all zero). */
double shell_rest_init(shell_rest *r, const double X[18]);

/* The energy (J) at x[18]. Nullable: grad receives dE/dx (18), hess (18 x 18, row-major) the
 * Gauss-Newton Hessian J^T (A D M) J with J = dS/dx, symmetric positive semi-definite for
 * D >= 0 and nu in [-1, 1] (bend_shell.c says why nothing more). A degenerate deformed triangle
 * contributes zero. */
double shell_energy_psd(const double x[18], const shell_rest *r, double D, double nu, double *grad,
                        double *hess);

/* The deformed second fundamental form b (uu, vv, uv) at x, for tests; 0 when degenerate. */
int shell_curvature(const double x[18], const shell_rest *r, double b[3]);

#endif
