/* SPDX-License-Identifier: MIT
 * Dense helpers for the tests: the smallest eigenvalue of a small symmetric matrix, for positive
 * semi-definiteness checks. */
#ifndef TF_TESTMATH_H
#define TF_TESTMATH_H

/* n <= 16; A (n x n, row-major, symmetric) is left untouched */
double sym_min_eigenvalue(const double *A, int n);

/* out = R p + shift for count points, R the rotation by angle (rad) about axis (any length),
 * by Rodrigues' formula: rigid motions for invariance tests */
void rigid_motion(const double *p, int count, const double axis[3], double angle,
                  const double shift[3], double *out);

#endif
