/* SPDX-License-Identifier: MIT
 * Small dense symmetric eigen-decomposition (cyclic Jacobi, Golub & Van Loan alg. 8.5.3) and the
 * projection to the nearest positive semi-definite matrix built on it, for per-element Hessians
 * whose size (9x9 for a tet's dPsi/dF) is too large for a closed form we want to maintain. */
#ifndef TF_CORE_EIGEN_SYM_H
#define TF_CORE_EIGEN_SYM_H

#include "core/common.h"

#define EIGEN_SYM_MAX 16

/* A (n x n, row-major, symmetric, n <= EIGEN_SYM_MAX) = V diag(w) V^T; the columns of V are the
 * eigenvectors. V is Nullable when only eigenvalues are wanted. A is left untouched. */
TF_LOCAL void eigen_sym(const double *A, int n, double *w, double *V);

/* A <- V diag(max(w, 0)) V^T in place: the closest PSD matrix in the Frobenius norm. Returns the
 * number of eigenvalues that were clamped (0 means A was already PSD and is returned unchanged). */
TF_LOCAL int eigen_sym_project_psd(double *A, int n);

#endif
