/* SPDX-License-Identifier: MIT
 * See svd3.h. V from the eigenvectors of F^T F; U from F V column by column, with the columns
 * that a flat F cannot give (tiny singular values) completed to a right-handed frame, so the last
 * singular value carries the sign of det F. */
#include "core/svd3.h"

#include <math.h>

#include "core/eigen3.h"
#include "core/vec3.h"

/* below this fraction of the largest singular value a column of F V gives no direction */
static const double SVD_DEGENERATE = 1e-12;

static void column(const double M[9], int j, double c[3]) { v3_set(c, M[j], M[3 + j], M[6 + j]); }
static void set_column(double M[9], int j, const double c[3]) {
  M[j] = c[0], M[3 + j] = c[1], M[6 + j] = c[2];
}

void svd3_signed(const double F[9], double U[9], double s[3], double V[9]) {
  double FtF[9], w[3], W[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      FtF[3 * i + j] = F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j];
  eigen3_sym(FtF, w, W);
  /* columns sorted by descending eigenvalue, then a right-handed V */
  int o[3] = {0, 1, 2};
  for (int a = 0; a < 2; ++a)
    for (int b = a + 1; b < 3; ++b)
      if (w[o[b]] > w[o[a]]) {
        int t = o[a];
        o[a] = o[b], o[b] = t;
      }
  double v[3][3];
  for (int j = 0; j < 3; ++j) column(W, o[j], v[j]);
  v3_cross(v[2], v[0], v[1]);
  double c[3][3];
  for (int j = 0; j < 3; ++j) {
    v3_set(c[j], v3_dot(F, v[j]), v3_dot(F + 3, v[j]), v3_dot(F + 6, v[j])); /* F v_j */
    set_column(V, j, v[j]);
  }
  double u[3][3], n0 = v3_norm(c[0]);
  double tiny = SVD_DEGENERATE * n0;
  if (n0 > 0.0)
    v3_scale(u[0], c[0], 1.0 / n0);
  else
    v3_set(u[0], 1, 0, 0);
  /* Gram-Schmidt against u0: exact in exact arithmetic (F v_j are orthogonal), and stable */
  double t[3];
  v3_copy(t, c[1]);
  v3_axpy(t, -v3_dot(t, u[0]), u[0]);
  double n1 = v3_norm(t);
  if (n1 > tiny && n1 > 0.0)
    v3_scale(u[1], t, 1.0 / n1);
  else
    v3_any_orthogonal(u[0], u[1]);
  v3_cross(u[2], u[0], u[1]);
  for (int j = 0; j < 3; ++j) {
    set_column(U, j, u[j]);
    s[j] = v3_dot(u[j], c[j]);
  }
}
