/* SPDX-License-Identifier: MIT
 * See eigen_sym.h. */
#include "core/eigen_sym.h"

#include <math.h>
#include <string.h>

void eigen_sym(const double *A, int n, double *w, double *V) {
  double a[EIGEN_SYM_MAX * EIGEN_SYM_MAX];
  memcpy(a, A, sizeof(double) * (size_t)(n * n));
  if (V)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) V[i * n + j] = (i == j);
  for (int sweep = 0; sweep < 64; ++sweep) {
    double off = 0.0, total = 0.0;
    for (int i = 0; i < n * n; ++i) total += a[i] * a[i];
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off += 2.0 * a[p * n + q] * a[p * n + q];
    if (off <= 1e-30 * total) break; /* converged to double precision (quadratic convergence) */
    for (int p = 0; p < n - 1; ++p)
      for (int q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0.0) continue;
        /* the rotation J(p, q, theta) with J^T A J zeroing a_pq; t = tan(theta), smaller root */
        const double theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
        const double t = copysign(1.0, theta) / (fabs(theta) + sqrt(theta * theta + 1.0));
        const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < n; ++k) { /* A <- A J */
          const double x = a[k * n + p], y = a[k * n + q];
          a[k * n + p] = c * x - s * y;
          a[k * n + q] = s * x + c * y;
        }
        for (int k = 0; k < n; ++k) { /* A <- J^T A */
          const double x = a[p * n + k], y = a[q * n + k];
          a[p * n + k] = c * x - s * y;
          a[q * n + k] = s * x + c * y;
        }
        if (V)
          for (int k = 0; k < n; ++k) { /* V <- V J */
            const double x = V[k * n + p], y = V[k * n + q];
            V[k * n + p] = c * x - s * y;
            V[k * n + q] = s * x + c * y;
          }
      }
  }
  for (int i = 0; i < n; ++i) w[i] = a[i * n + i];
}

int eigen_sym_project_psd(double *A, int n) {
  double w[EIGEN_SYM_MAX], V[EIGEN_SYM_MAX * EIGEN_SYM_MAX];
  eigen_sym(A, n, w, V);
  int clamped = 0;
  for (int i = 0; i < n; ++i)
    if (w[i] < 0.0) {
      w[i] = 0.0;
      ++clamped;
    }
  if (!clamped) return 0;
  for (int i = 0; i < n; ++i)
    for (int j = i; j < n; ++j) {
      double s = 0.0;
      for (int k = 0; k < n; ++k) s += V[i * n + k] * w[k] * V[j * n + k];
      A[i * n + j] = A[j * n + i] = s;
    }
  return clamped;
}
