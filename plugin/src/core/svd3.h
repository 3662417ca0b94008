/* SPDX-License-Identifier: MIT
 * Rotation-variant ("signed") SVD of a 3x3 matrix, F = U diag(s) V^T with U and V rotations and
 * s0 >= s1 >= |s2|, s2 < 0 when F inverts (Irving et al. 2004): the form that the analytic
 * eigensystems of isotropic energies need. Robust for flat and degenerate F. */
#ifndef TF_CORE_SVD3_H
#define TF_CORE_SVD3_H

#include "core/common.h"

/* F, U, V row-major; columns of U and V are the singular vectors */
TF_LOCAL void svd3_signed(const double F[9], double U[9], double s[3], double V[9]);

#endif
