/* SPDX-License-Identifier: MIT
 * Dense helpers for the tests: the smallest eigenvalue of a small symmetric matrix, for positive
 * semi-definiteness checks. */
#ifndef TF_TESTMATH_H
#define TF_TESTMATH_H

/* n <= 16; A (n x n, row-major, symmetric) is left untouched */
double sym_min_eigenvalue(const double *A, int n);

#endif
