/* SPDX-License-Identifier: MIT
 * Discrete hinge bending energy E = k (theta - theta0)^2 on one interior edge of a triangle mesh
 * (Bridson et al. 2003, Grinspun et al. 2003), with its exact gradient and Hessian (Tamstorf &
 * Grinspun 2013) and a positive semi-definite Hessian for Newton. A hinge is 4 vertices packed as
 * x[12] = {x0, x1, x2, x3}: v0 v1 is the shared edge, triangle A = (v0, v1, v2), triangle B =
 * (v1, v0, v3), both oriented like the mesh. theta is the signed dihedral angle in (-pi, pi]:
 * atan2((nA x nB) . e^, nA . nB) with unit normals nA, nB and unit edge e^ = (x1 - x0) / |x1 - x0|.
 * It is 0 when flat, positive when the hinge is convex seen from the normals (the normals
 * diverge, as on a sphere with outward normals) and negative when v2 and v3 fold towards the
 * normal side. Degenerate hinges (zero-length edge, zero-area triangle, non-finite input) have
 * theta = 0 and contribute zero energy, gradient and Hessian. All functions are pure and
 * thread-safe.
 */
#ifndef TF_ENERGY_BEND_HINGE_H
#define TF_ENERGY_BEND_HINGE_H

/* Signed dihedral angle of the hinge in radians, in (-pi, pi]; 0 for a degenerate hinge. */
double hinge_angle(const double x[12]);

/* Per-hinge coefficient k = (B / 2) * 3 |e|^2 / (A_A + A_B) from rest positions rest[12] (m) and
 * flexural rigidity B (N m), with rest edge length |e| and rest triangle areas A_A, A_B
 * (Grinspun et al. 2003). Returns 0 for a degenerate rest hinge. Measured in test_bend_hinge.c:
 * a sheet bent onto a cylinder of curvature c gets 3 x (1/2 B c^2) per unit area on square grids
 * and equilateral meshes (9 x on a grid curving along its diagonals), not 1 x (1/2 B c^2). */
double hinge_rest_stiffness(const double rest[12], double B);

/* Energy k (theta - theta0)^2 in J, with theta - theta0 wrapped into [-pi, pi] so the energy stays
 * continuous across theta = pi; theta0 (radians) should lie in [-pi, pi]. Nullable: grad receives
 * dE/dx (12), hess the exact Hessian (12 x 12, row-major, symmetric, indefinite in general). Both
 * are zero for a degenerate hinge. */
double hinge_energy(const double x[12], double k, double theta0, double *grad, double *hess);

/* Same energy and gradient as hinge_energy; hess (nullable, 12 x 12 row-major) receives a
 * symmetric positive semi-definite approximation of the Hessian for Newton's method: the
 * Gauss-Newton term 2 k grad(theta) grad(theta)^T (bend_hinge.c says why nothing more). */
double hinge_energy_psd(const double x[12], double k, double theta0, double *grad, double *hess);

#endif
