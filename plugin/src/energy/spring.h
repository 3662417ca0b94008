/* SPDX-License-Identifier: MIT
 * A linear spring between two vertices, the element of Leplatre's mass-spring cloth (the seeds'
 * leplatre2016 lecture: F = -k (|d| - L) d/|d|): E = k/2 (l - L)^2 with l = |xb - xa|, its
 * gradient, and a positive semi-definite Hessian for Newton. The exact Hessian is
 *   k [u u^T + (1 - L/l) (I - u u^T)],  u = d / l,
 * whose transverse term is negative when the spring is compressed (l < L); the projection clamps
 * that coefficient at 0 (the spring's own eigen-decomposition: eigenvalue k along u, k (1 - L/l)
 * twice across it), so a stretched spring keeps its exact Hessian. Pure and thread-safe. */
#ifndef TF_ENERGY_SPRING_H
#define TF_ENERGY_SPRING_H

/* x (6): xa then xb, m; k N/m; L m (> 0). grad (6) and hess (6 x 6 row-major) Nullable, written
 * (not added). A spring of zero length (l = 0) has energy k L^2 / 2, no gradient, and the
 * Hessian k I on both ends: any direction may open it. Returns E in J. */
double spring_energy(const double x[6], double k, double L, double *grad, double *hess);

#endif
