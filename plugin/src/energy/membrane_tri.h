/* SPDX-License-Identifier: MIT
 * St.Venant-Kirchhoff membrane triangle (Young 2007 eq. 3.17 lifted to 3D): the 3x2 deformation
 * gradient F = Ds Dm^-1 from a rest frame in the triangle's plane, Green strain
 * G = (F^T F - I)/2, energy density psi = lambda/2 tr(G)^2 + mu G:G (plane stress Lame
 * parameters, N/m), energy A psi with A the rest area. Also the thesis's strain-rate damping
 * force (sec. 4.2) for the baseline integrator. */
#ifndef TF_ENERGY_MEMBRANE_TRI_H
#define TF_ENERGY_MEMBRANE_TRI_H

#include "core/common.h"

typedef struct membrane_rest {
  double dm_inv[4]; /* Dm^-1, row-major 2x2 */
  double area;      /* rest area, m^2 */
} membrane_rest;

/* Rest data from three rest positions; returns 0 for a degenerate triangle. */
TF_LOCAL int membrane_rest_init(membrane_rest *r, const double x0[3], const double x1[3],
                                const double x2[3]);

/* Energy of one triangle at x (3 vertices x 3, gathered). grad (9) and hess (9x9 row-major) are
 * Nullable. psd != 0 projects the Hessian to positive semi-definite: the stress S in the
 * geometric term is clamped to its positive part, the material term is PSD whenever
 * lambda + mu >= 0 (always for poisson in (-1, 1)); exact when S >= 0 (tension). */
TF_LOCAL double membrane_energy(const membrane_rest *r, const double x[9], double lambda, double mu,
                                double *grad, double *hess, int psd);

/* Strain-rate damping force (Young 2007 eqs. 4.5-4.7): G' = (F'^T F + F^T F')/2 from vertex
 * velocities v, damping stress S_d = phi tr(G') I + 2 psi G', force -A F S_d Dm^-T added to f (9).
 */
TF_LOCAL void membrane_damping_force(const membrane_rest *r, const double x[9], const double v[9],
                                     double phi, double psi, double *f);

/* Plane-stress Lame parameters from the 2D Young's modulus Y (N/m) and Poisson's ratio. */
TF_LOCAL void membrane_lame(double Y, double nu, double *lambda, double *mu);

#endif
