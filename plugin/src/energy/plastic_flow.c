/* SPDX-License-Identifier: MIT
 * See plastic_flow.h. Matrices are row-major, n x n with n = 2 (triangle) or 3 (tet). */
#include "energy/plastic_flow.h"

#include <math.h>

#include "core/eigen3.h"
#include "core/eigen_sym.h"
#include "core/vec3.h"

/* C = A B (n x n) */
static void mat_mul(int n, const double *A, const double *B, double *C) {
  double t[9];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0.0;
      for (int k = 0; k < n; ++k) s += A[n * i + k] * B[n * k + j];
      t[n * i + j] = s;
    }
  for (int k = 0; k < n * n; ++k) C[k] = t[k];
}

/* M = V diag(d) W^T (n x n; columns of V and W) */
static void mat_vdw(int n, const double *V, const double *d, const double *W, double *M) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0.0;
      for (int k = 0; k < n; ++k) s += V[n * i + k] * d[k] * W[n * j + k];
      M[n * i + j] = s;
    }
}

static double mat_det(int n, const double *A) {
  return n == 2 ? A[0] * A[3] - A[1] * A[2] : m3_det(A);
}

static int mat_inverse(int n, const double *A, double *r) {
  if (n == 3) return m3_inverse(r, A, 0.0);
  const double d = mat_det(2, A);
  if (!(d != 0.0) || !isfinite(d)) return 0;
  const double t[4] = {A[3] / d, -A[1] / d, -A[2] / d, A[0] / d};
  for (int k = 0; k < 4; ++k) r[k] = t[k];
  return 1;
}

/* A (n x n symmetric) = V diag(w) V^T (core/eigen3.h's closed form for 3, Jacobi for 2) */
static void sym_eigen(int n, const double *A, double *w, double *V) {
  if (n == 3)
    eigen3_sym(A, w, V);
  else
    eigen_sym(A, n, w, V);
}

/* X^T X of a rows x n matrix X */
static void gram(int rows, int n, const double *X, double *C) {
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      double s = 0.0;
      for (int i = 0; i < rows; ++i) s += X[n * i + a] * X[n * i + b];
      C[n * a + b] = s;
    }
}

double plastic_stretches(const double *dm, const double *dm0, int n, double lp[3]) {
  double inv[9], Fp[9], C[9] = {0}, w[3], V[9];
  if (!mat_inverse(n, dm, inv)) return NAN;
  mat_mul(n, inv, dm0, Fp);
  gram(n, n, Fp, C);
  sym_eigen(n, C, w, V);
  for (int k = 0; k < n; ++k) lp[k] = w[k] > 0.0 ? 0.5 * log(w[k]) : -INFINITY;
  for (int a = 0; a < n; ++a) /* ascending */
    for (int b = a + 1; b < n; ++b)
      if (lp[b] < lp[a]) {
        double t = lp[a];
        lp[a] = lp[b];
        lp[b] = t;
      }
  return mat_det(n, Fp);
}

/* dm <- dm V diag(e^-delta) V^T: Fp <- V diag(e^delta) V^T Fp */
static void flow(int n, const double *V, const double *delta, double *dm) {
  double d[3], Ginv[9];
  for (int k = 0; k < n; ++k) d[k] = exp(-delta[k]);
  mat_vdw(n, V, d, V, Ginv);
  mat_mul(n, dm, Ginv, dm);
}

/* the plastic limit: Fp = dm^-1 dm0 = R Vp e^lp Vp^T (polar, R a rotation) brought back to
 * Fp_c = R Vp e^lc Vp^T, so dm = dm0 Vp e^-lc Vp^T R^T. rule fills lc from lp and returns 0 when
 * nothing is clamped */
typedef int (*limit_rule)(int n, const double *lp, double *lc, double p);

static void apply_limit(int n, const double *dm0, double p, limit_rule rule, double *dm) {
  double inv[9], Fp[9], C[9] = {0}, w[3], Vp[9], lp[3], lc[3], d[3], R[9], Rt[9];
  if (!mat_inverse(n, dm, inv)) return;
  mat_mul(n, inv, dm0, Fp);
  gram(n, n, Fp, C);
  sym_eigen(n, C, w, Vp);
  for (int k = 0; k < n; ++k) {
    if (!(w[k] > 0.0)) return;
    lp[k] = 0.5 * log(w[k]);
  }
  if (!rule(n, lp, lc, p)) return;
  for (int k = 0; k < n; ++k) d[k] = exp(-lp[k]);
  mat_vdw(n, Vp, d, Vp, C); /* Vp e^-lp Vp^T */
  mat_mul(n, Fp, C, R);     /* R = Fp S^-1 */
  for (int k = 0; k < n; ++k) d[k] = exp(-lc[k]);
  mat_vdw(n, Vp, d, Vp, C); /* Vp e^-lc Vp^T */
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) Rt[n * i + j] = R[n * j + i];
  mat_mul(n, C, Rt, C); /* Fp_c^-1 */
  mat_mul(n, dm0, C, dm);
}

/* the triangle's: each principal stretch within 1 +- p */
static int clamp_each(int n, const double *lp, double *lc, double p) {
  int moved = 0;
  for (int k = 0; k < n; ++k) {
    const double lo = log1p(-p), hi = log1p(p);
    lc[k] = fmin(fmax(lp[k], lo), hi);
    moved |= lc[k] != lp[k];
  }
  return moved;
}

/* the tet's: the deviatoric logarithm's equivalent strain within p, the volume kept exactly */
static int clamp_deviatoric(int n, const double *lp, double *lc, double p) {
  const double mean = (lp[0] + lp[1] + lp[2]) / 3.0;
  double dev[3], s2 = 0.0;
  for (int k = 0; k < n; ++k) dev[k] = lp[k] - mean, s2 += dev[k] * dev[k];
  const double eq = sqrt(2.0 / 3.0 * s2);
  if (!(eq > p)) return 0;
  for (int k = 0; k < n; ++k) lc[k] = dev[k] * (p / eq);
  return 1;
}

/* Fp = dm^-1 dm0 */
static int plastic_part(int n, const double *dm, const double *dm0, double *Fp) {
  double inv[9];
  if (!mat_inverse(n, dm, inv)) return 0;
  mat_mul(n, inv, dm0, Fp);
  return 1;
}

/* the flow time: Fp moves the share rate of the way to its target Fp* (the rate-independent
 * rule's: dm_target), Fp <- Fp + rate (Fp* - Fp), the viscoplastic relaxation of Duvaut and Lions
 * (Simo & Hughes 1998, sec. 2.7); a held element's target does not move, so any split of a time
 * into steps compounds to the same rest shape, and on one axis this is the springs' rule.
 * unimodular: brought back to det Fp = 1 (a blend of two volume-keeping shapes gains volume at
 * second order) */
static void blend(int n, const double *dm0, const double *dm_target, double rate, int unimodular,
                  double *dm) {
  double Fp[9], Ft[9], inv[9];
  if (rate >= 1.0 || !plastic_part(n, dm, dm0, Fp) || !plastic_part(n, dm_target, dm0, Ft)) {
    for (int k = 0; k < n * n; ++k) dm[k] = dm_target[k];
    return;
  }
  for (int k = 0; k < n * n; ++k) Fp[k] += rate * (Ft[k] - Fp[k]);
  if (unimodular) {
    const double scale = cbrt(mat_det(n, Fp));
    for (int k = 0; k < n * n; ++k) Fp[k] /= scale;
  }
  if (mat_inverse(n, Fp, inv)) mat_mul(n, dm0, inv, dm);
}

int plastic_flow_tri(const double Fe[6], const double dm0[4], double A0, double y, double p,
                     double rate, double dm[4], double *area) {
  double C[4] = {0}, w[2], V[4], delta[2];
  gram(3, 2, Fe, C);
  sym_eigen(2, C, w, V);
  int moved = 0;
  for (int k = 0; k < 2; ++k) {
    const double sigma = sqrt(fmax(w[k], 0.0));
    double g = 1.0;
    if (sigma > 1.0 + y)
      g = sigma / (1.0 + y);
    else if (sigma < 1.0 - y && sigma > 0.0)
      g = sigma / (1.0 - y);
    delta[k] = log(g);
    moved |= g != 1.0;
  }
  if (!moved) return 0;
  double target[4] = {dm[0], dm[1], dm[2], dm[3]};
  flow(2, V, delta, target);
  apply_limit(2, dm0, p, clamp_each, target);
  blend(2, dm0, target, rate, 0, dm);
  *area = A0 * (mat_det(2, dm0) / mat_det(2, dm));
  return 1;
}

int plastic_flow_tet(const double Fe[9], const double dm0[9], double y, double p, double rate,
                     double dm[9]) {
  double C[9], w[3], V[9], e[3], delta[3];
  gram(3, 3, Fe, C);
  eigen3_sym(C, w, V);
  for (int k = 0; k < 3; ++k) {
    if (!(w[k] > 0.0)) return 0; /* flat or inverted: no principal stretch to yield */
    e[k] = 0.5 * log(w[k]);
  }
  const double mean = (e[0] + e[1] + e[2]) / 3.0;
  double s2 = 0.0;
  for (int k = 0; k < 3; ++k) e[k] -= mean, s2 += e[k] * e[k];
  const double eq = sqrt(2.0 / 3.0 * s2);
  if (!(eq > y)) return 0;
  for (int k = 0; k < 3; ++k) delta[k] = (1.0 - y / eq) * e[k];
  double target[9];
  for (int k = 0; k < 9; ++k) target[k] = dm[k];
  flow(3, V, delta, target);
  apply_limit(3, dm0, p, clamp_deviatoric, target);
  blend(3, dm0, target, rate, 1, dm);
  return 1;
}
