/* SPDX-License-Identifier: MIT
 * Cyclic Jacobi rotations for symmetric 3x3 matrices (Golub & Van Loan, sec. 8.5); converges to
 * round-off in a handful of sweeps and never fails, unlike closed-form cubic roots. */
#include "core/eigen3.h"

#include <math.h>

#define JACOBI_MAX_SWEEPS 32

void eigen3_sym(const double Ain[9], double w[3], double V[9]) {
  double A[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A[i][j] = 0.5 * (Ain[3 * i + j] + Ain[3 * j + i]);
  for (int i = 0; i < 9; ++i) V[i] = (i % 4 == 0) ? 1.0 : 0.0;
  for (int sweep = 0; sweep < JACOBI_MAX_SWEEPS; ++sweep) {
    double off = A[0][1] * A[0][1] + A[0][2] * A[0][2] + A[1][2] * A[1][2];
    double diag = A[0][0] * A[0][0] + A[1][1] * A[1][1] + A[2][2] * A[2][2];
    if (off <= 1e-30 * diag || off == 0.0) break;
    for (int p = 0; p < 2; ++p) {
      for (int q = p + 1; q < 3; ++q) {
        double apq = A[p][q];
        if (apq == 0.0) continue;
        /* rotation angle that zeroes A[p][q] */
        double theta = (A[q][q] - A[p][p]) / (2.0 * apq);
        double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
        double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < 3; ++k) {
          double akp = A[k][p], akq = A[k][q];
          A[k][p] = c * akp - s * akq;
          A[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; ++k) {
          double apk = A[p][k], aqk = A[q][k];
          A[p][k] = c * apk - s * aqk;
          A[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; ++k) {
          double vkp = V[3 * k + p], vkq = V[3 * k + q];
          V[3 * k + p] = c * vkp - s * vkq;
          V[3 * k + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  w[0] = A[0][0];
  w[1] = A[1][1];
  w[2] = A[2][2];
}

void eigen3_pinv_solve(const double A[9], const double b[3], double rel_cut, double x[3]) {
  double w[3], V[9];
  eigen3_sym(A, w, V);
  double wmax = fmax(fabs(w[0]), fmax(fabs(w[1]), fabs(w[2])));
  x[0] = x[1] = x[2] = 0.0;
  if (!(wmax > 0.0)) return;
  for (int k = 0; k < 3; ++k) {
    if (fabs(w[k]) <= rel_cut * wmax) continue;
    double c = (V[k] * b[0] + V[3 + k] * b[1] + V[6 + k] * b[2]) / w[k];
    x[0] += c * V[k];
    x[1] += c * V[3 + k];
    x[2] += c * V[6 + k];
  }
}
