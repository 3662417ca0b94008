/* SPDX-License-Identifier: MIT
 * Quadratic interpolation through six planar points (quadfit.h): Gauss-Jordan inversion of the
 * 6 x 6 Vandermonde-like system (or the normal equations of a least-squares fit) with partial
 * pivoting, on coordinates centred at the mean and
 * scaled by the largest distance from it, so the quality is independent of size and position. */
#include "core/quadfit.h"

#include <math.h>
#include <string.h>

/* Gauss-Jordan inverse (partial pivoting) of the 6 x 6 matrix a into inv; returns the
 * determinant's magnitude, 0 when a pivot vanishes (a is left untouched) */
static double invert6(const double a[6][6], double inv[6][6]) {
  double m[6][12];
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) m[i][j] = a[i][j], m[i][6 + j] = i == j ? 1.0 : 0.0;
  double det = 1.0;
  for (int c = 0; c < 6; ++c) {
    int p = c;
    for (int r = c + 1; r < 6; ++r)
      if (fabs(m[r][c]) > fabs(m[p][c])) p = r;
    if (!(fabs(m[p][c]) > 1e-14)) return 0.0;
    if (p != c) {
      double t[12];
      memcpy(t, m[p], sizeof t);
      memcpy(m[p], m[c], sizeof t);
      memcpy(m[c], t, sizeof t);
    }
    double piv = m[c][c];
    det *= piv;
    for (int j = 0; j < 12; ++j) m[c][j] /= piv;
    for (int r = 0; r < 6; ++r) {
      if (r == c || m[r][c] == 0.0) continue;
      double f = m[r][c];
      for (int j = 0; j < 12; ++j) m[r][j] -= f * m[c][j];
    }
  }
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) inv[i][j] = m[i][6 + j];
  return fabs(det);
}

double quadfit_weights(const double uv[12], double w[3][6]) {
  memset(w, 0, sizeof(double) * 18);
  double cu = 0.0, cv = 0.0, r2 = 0.0;
  for (int i = 0; i < 6; ++i) cu += uv[2 * i] / 6.0, cv += uv[2 * i + 1] / 6.0;
  for (int i = 0; i < 6; ++i) {
    double du = uv[2 * i] - cu, dv = uv[2 * i + 1] - cv;
    if (du * du + dv * dv > r2) r2 = du * du + dv * dv;
  }
  if (!(r2 > 0.0) || !isfinite(r2)) return 0.0;
  double s = 1.0 / sqrt(r2);
  /* V's row i = (1, u, v, u^2, u v, v^2) at point i */
  double V[6][6], Vi[6][6];
  for (int i = 0; i < 6; ++i) {
    double u = (uv[2 * i] - cu) * s, v = (uv[2 * i + 1] - cv) * s;
    double row[6] = {1.0, u, v, u * u, u * v, v * v};
    memcpy(V[i], row, sizeof row);
  }
  double det = invert6(V, Vi);
  if (!(det > 0.0)) return 0.0;
  /* coefficients = V^-1 f on scaled coordinates; f_uu = 2 a3 s^2, f_uv = a4 s^2, f_vv = 2 a5 s^2 */
  double s2 = s * s;
  for (int i = 0; i < 6; ++i) {
    w[0][i] = 2.0 * Vi[3][i] * s2;
    w[1][i] = 2.0 * Vi[5][i] * s2;
    w[2][i] = Vi[4][i] * s2;
  }
  return det;
}

double quadfit_gradient(const double *uv, int k, double w[2][QUADFIT_MAX]) {
  memset(w, 0, sizeof(double) * 2 * QUADFIT_MAX);
  if (k < 6 || k > QUADFIT_MAX) return 0.0;
  double r2 = 0.0;
  for (int i = 0; i < k; ++i) {
    double d2 = uv[2 * i] * uv[2 * i] + uv[2 * i + 1] * uv[2 * i + 1];
    if (d2 > r2) r2 = d2;
  }
  if (!(r2 > 0.0) || !isfinite(r2)) return 0.0;
  double s = 1.0 / sqrt(r2), V[QUADFIT_MAX][6], N[6][6] = {{0}}, Ni[6][6];
  for (int i = 0; i < k; ++i) {
    double u = uv[2 * i] * s, v = uv[2 * i + 1] * s;
    double row[6] = {1.0, u, v, u * u, u * v, v * v};
    memcpy(V[i], row, sizeof row);
    for (int a = 0; a < 6; ++a)
      for (int b = 0; b < 6; ++b) N[a][b] += row[a] * row[b] / k;
  }
  double det = invert6(N, Ni);
  if (!(det > 0.0)) return 0.0;
  /* coefficients a = N^-1 V^T f / k on scaled coordinates; f_u(0) = a1 s, f_v(0) = a2 s */
  for (int i = 0; i < k; ++i)
    for (int b = 0; b < 6; ++b) {
      w[0][i] += Ni[1][b] * V[i][b] * s / k;
      w[1][i] += Ni[2][b] * V[i][b] * s / k;
    }
  return det;
}
