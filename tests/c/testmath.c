/* SPDX-License-Identifier: MIT
 * See testmath.h. The decomposition itself is the library's, checked in test_eigen_sym.c. */
#include "testmath.h"

#include "core/eigen_sym.h"

double sym_min_eigenvalue(const double *A, int n) {
  double w[EIGEN_SYM_MAX];
  eigen_sym(A, n, w, NULL);
  double m = w[0];
  for (int i = 1; i < n; ++i)
    if (w[i] < m) m = w[i];
  return m;
}
