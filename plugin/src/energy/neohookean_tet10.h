/* SPDX-License-Identifier: MIT
 * Stable Neo-Hookean quadratic tetrahedron (10 nodes: the 4 corners, then the midpoints of edges
 * 01 02 03 12 13 23). Linear (4-node) tets have a constant strain, so a bent limb can only bend
 * by shearing them: they lock in bending at 2-6 elements across and, near incompressibility,
 * in volume as well (issue 20 measured a clamped beam 1.7-3.4x too stiff at 4 across). The
 * quadratic tet's strain varies linearly inside it, which represents bending exactly and leaves
 * the incompressible constraint few enough conditions per node that it does not lock at the
 * Poisson ratios of flesh (Zienkiewicz & Taylor, The Finite Element Method vol. 1, ch. 8 and 11;
 * Longva et al. 2020, "Higher-order finite elements for embedded simulation", show the same for
 * graphics: a 10-node tet mesh reaches a given accuracy at a fraction of a 4-node mesh's cost).
 *
 * Rest elements are straight-sided (midpoints at the edges' middles), so x -> X is affine at rest
 * and the shape gradients are the linear tet's barycentric gradients (tet_rest.dm_inv) times the
 * quadratic shape functions' derivatives.
 *
 * Integration is selective (Hughes 1980, "Generalization of selective integration procedures to
 * anisotropic and nonlinear media"; Malkus & Hughes 1978): the element's energy is
 *   V psi(F_c) + mu/2 [sum_q V/4 |F_q|^2 - V |F_c|^2],
 * the stable Neo-Hookean density psi (tet_stress_derivative, its analytic PSD projection
 * included) at the centroid c, and the stretch term mu/2 |F|^2 where F varies, at the 4-point
 * degree-2 rule (Keast 1986) less its centroid value. The bracket is the integral of
 * mu/2 |F - F_c|^2 (the rule is exact for the quadratic element's linear F), so its Hessian is
 * PSD and constant, and the whole is exact at rest and rotation invariant. One volume condition
 * per element instead of four is what keeps it from locking at Poisson 0.49: with all four
 * (the density at every point) a clamped beam at 4 across sagged 0.975 of beam theory at nu 0.49
 * and moved 2.5 % from 2 across; selectively, 0.989 and 1.4 %. The pair (quadratic displacement,
 * one pressure per element) is inf-sup stable (Boffi, Brezzi & Fortin 2013, P2-P0), so no mode
 * goes soft. */
#ifndef TF_ENERGY_NEOHOOKEAN_TET10_H
#define TF_ENERGY_NEOHOOKEAN_TET10_H

#include "energy/neohookean_tet.h"

#define TET10_NODES 10

/* edge k's two corners (k = 0..5), in the node order above */
extern TF_LOCAL const int TET10_EDGE[6][2];

/* Energy of one element at x (10 nodes x 3, corners in tet_rest's local order, tet_local_vertex,
 * then the edge nodes). grad (30) and hess (30 x 30 row-major) Nullable; psd as tet_energy. */
TF_LOCAL double tet10_energy(const tet_rest *r, const double x[30], double lambda, double mu,
                             double *grad, double *hess, int psd);

/* the current volume over the rest volume: det F integrated exactly (a degree-3 rule, det F of
 * a quadratic element being cubic) */
TF_LOCAL double tet10_volume_ratio(const tet_rest *r, const double x[30]);
/* the deformation gradient at the element's centroid (where its volume term is taken) */
TF_LOCAL void tet10_centroid_gradient(const tet_rest *r, const double x[30], double F[9]);

/* the smallest det F at the quadrature points: <= 0 means the element is inverted there */
TF_LOCAL double tet10_min_volume_ratio(const tet_rest *r, const double x[30]);

/* the ten shape functions' values at a point with barycentric coordinates b (summing to 1): a
 * point embedded in the element follows x = sum w_k x_k */
TF_LOCAL void tet10_shape(const double b[4], double w[10]);

/* The lumped mass of each node as a share of the element's mass: the consistent mass matrix's
 * diagonal scaled to the total (Hinton, Rock & Zienkiewicz 1976; row sums would give the corners
 * negative mass). For a straight-sided element the diagonal is 6/420 at a corner and 32/420 at
 * an edge node, so a corner takes 1/36 and an edge node 4/27 */
#define TET10_MASS_CORNER (1.0 / 36.0)
#define TET10_MASS_EDGE (4.0 / 27.0)

#endif
