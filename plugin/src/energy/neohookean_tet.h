/* SPDX-License-Identifier: MIT
 * Stable Neo-Hookean linear tetrahedron (Smith, de Goes & Kim 2018, "Stable Neo-Hookean Flesh
 * Simulation", eq. 14 without the log term): F = Ds Dm^-1,
 *   psi(F) = mu/2 (tr(F^T F) - 3) + lambda'/2 (det F - alpha)^2 - psi(I),   alpha = 1 + mu/lambda',
 * energy V psi with V the rest volume. No log(J), so it is finite and smooth for flat and inverted
 * tets (J <= 0) and the (J - alpha) term pushes them back out. lambda' = lambda + mu makes the
 * small-strain limit linear elasticity with the usual Lame parameters (lambda, mu). */
#ifndef TF_ENERGY_NEOHOOKEAN_TET_H
#define TF_ENERGY_NEOHOOKEAN_TET_H

#include "core/common.h"

typedef struct tet_rest {
  double dm_inv[9]; /* Dm^-1, row-major 3x3, Dm = [X1-X0, X2-X0, X3-X0] */
  double volume;    /* rest volume, m^3 (positive: the rest tet is re-oriented if needed) */
  int swapped;      /* 1 if vertices 2 and 3 were exchanged to make the rest volume positive */
} tet_rest;

/* Rest data from four rest positions; returns 0 for a degenerate (flat) rest tet. A negatively
 * oriented rest tet is accepted: callers must gather x in tet_rest order (tet_gather_order). */
TF_LOCAL int tet_rest_init(tet_rest *r, const double x0[3], const double x1[3], const double x2[3],
                           const double x3[3]);

/* The i-th vertex (0..3) in the element's local order, given the file's order. */
static inline int tet_local_vertex(const tet_rest *r, int i) {
  return r->swapped && i >= 2 ? 5 - i : i;
}

/* Energy of one tet at x (4 vertices x 3, gathered in local order). grad (12) and hess (12x12
 * row-major) are Nullable. psd != 0 projects d2psi/dF2 to positive semi-definite (so the element
 * Hessian is too); it is exact (nothing clamped) near rest. lambda, mu: Lame parameters, Pa. */
TF_LOCAL double tet_energy(const tet_rest *r, const double x[12], double lambda, double mu,
                           double *grad, double *hess, int psd);

/* det(F) of the tet at x: the volume ratio, negative for an inverted tet. */
/* d2psi/dF2 (9x9, F row-major) of the stable Neo-Hookean energy density; psd: with its negative
 * modes clamped to zero through the analytic eigensystem */
TF_LOCAL void tet_stress_derivative(const double F[9], double lambda, double mu, int psd,
                                    double C[81]);

/* the shape gradients b[a] of the tet's four barycentric coordinates (dF_ij/dx_a,i = b[a][j]):
 * the rows of Dm^-1, and b[0] = -(b[1] + b[2] + b[3]) */
TF_LOCAL void tet_shape_gradients(const tet_rest *r, double b[4][3]);

/* dJ/dF = cof(F), cof_ij = 1/2 eps_ikm eps_jln F_kl F_mn */
TF_LOCAL void tet_cofactor(const double F[9], double cof[9]);

TF_LOCAL double tet_volume_ratio(const tet_rest *r, const double x[12]);
/* F = Ds Dm^-1 (row-major) at x (4 vertices x 3, gathered in local order) */
TF_LOCAL void tet_deformation_gradient(const tet_rest *r, const double x[12], double F[9]);

/* 3D Lame parameters from Young's modulus E (Pa) and Poisson's ratio nu in (-1, 0.5). */
TF_LOCAL void tet_lame(double E, double nu, double *lambda, double *mu);

#endif
