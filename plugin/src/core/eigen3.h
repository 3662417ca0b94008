/* SPDX-License-Identifier: MIT
 * Symmetric 3x3 eigen-decomposition (cyclic Jacobi) and the pseudo-inverse solve built on it. Used
 * for rigid-motion fits: inertia tensors that are singular for collinear or single points. */
#ifndef TF_CORE_EIGEN3_H
#define TF_CORE_EIGEN3_H

#include "core/common.h"

/* A (row-major, symmetric) = V diag(w) V^T; columns of V are the eigenvectors. */
TF_LOCAL void eigen3_sym(const double A[9], double w[3], double V[9]);
/* x = A^+ b, eigenvalues below rel_cut * max|w| treated as zero (minimum-norm solution). */
TF_LOCAL void eigen3_pinv_solve(const double A[9], const double b[3], double rel_cut, double x[3]);

#endif
