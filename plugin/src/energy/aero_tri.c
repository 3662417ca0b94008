/* SPDX-License-Identifier: MIT
 * Per-triangle aerodynamic force and its drag linearization (see aero_tri.h). */
#include "energy/aero_tri.h"

#include <math.h>

#include "core/vec3.h"

/* relative flow below this speed (m/s) exerts no force: keeps |u| out of denominators */
static const double AERO_MIN_SPEED = 1e-9;

int aero_triangle(const double x[9], const double v[9], const double wind[3], const aero_coeffs *k, double f[3],
                  double *c, double n_out[3]) {
  double e1[3], e2[3], n[3];
  v3_sub(e1, x + 3, x);
  v3_sub(e2, x + 6, x);
  v3_cross(n, e1, e2);
  double nn = v3_norm(n);
  v3_set(f, 0, 0, 0);
  *c = 0.0;
  if (!(nn > 0.0)) return 0;
  double area = 0.5 * nn;
  v3_scale(n, n, 1.0 / nn);
  if (n_out) v3_copy(n_out, n);
  /* air relative to the triangle's mean velocity */
  double u[3];
  for (int i = 0; i < 3; ++i) u[i] = wind[i] - (v[i] + v[3 + i] + v[6 + i]) / 3.0;
  double speed = v3_norm(u);
  if (!(speed > AERO_MIN_SPEED)) return 1;
  double un = v3_dot(u, n);
  if (k->windward_only && un >= 0.0) return 1; /* the lee side of a closed body */
  double half = 0.5 * k->rho * area;
  /* drag along the normal, lift across the flow */
  v3_axpy(f, half * k->cd * speed * un, n);
  if (k->cl != 0.0) {
    double l[3];
    v3_copy(l, n);
    v3_axpy(l, -un / (speed * speed), u);
    v3_axpy(f, half * k->cl * speed * un, l);
  }
  /* d(|u| (u.n))/du along n = |u| + (u.n)^2/|u|; the mean velocity carries 1/3 of each vertex's */
  *c = half * k->cd * (speed + un * un / speed);
  return 1;
}

/* [w]x: the matrix with [w]x z = w x z, row-major */
static void skew(const double w[3], double m[9]) {
  m[0] = 0; m[1] = -w[2]; m[2] = w[1];
  m[3] = w[2]; m[4] = 0; m[5] = -w[0];
  m[6] = -w[1]; m[7] = w[0]; m[8] = 0;
}

int aero_drag_jacobian(const double x[9], const double v[9], const double wind[3], const aero_coeffs *k,
                       double J[81]) {
  double e1[3], e2[3], a[3];
  v3_sub(e1, x + 3, x);
  v3_sub(e2, x + 6, x);
  v3_cross(a, e1, e2);
  v3_scale(a, a, 0.5);
  double al = v3_norm(a);
  double u[3];
  for (int i = 0; i < 3; ++i) u[i] = wind[i] - (v[i] + v[3 + i] + v[6 + i]) / 3.0;
  double speed = v3_norm(u);
  for (int i = 0; i < 81; ++i) J[i] = 0.0;
  if (!(al > 0.0) || !(speed > AERO_MIN_SPEED)) return 0;
  /* drag + lift in the area vector a (A n = a): f(a) = (rho/2) [(c_d + c_l) |u| (u.a) a / |a|
   * - c_l (u.a)^2 u / (|u| |a|)], so df/da = q (a u^T/|a| + (u.a)(I/|a| - a a^T/|a|^3))
   * - ql (2 (u.a) u u^T / |a| - (u.a)^2 u a^T / |a|^3) */
  double q = 0.5 * k->rho * (k->cd + k->cl) * speed, ua = v3_dot(u, a), G[9];
  if (k->windward_only && ua >= 0.0) return 0;
  double ql = 0.5 * k->rho * k->cl / speed; /* lift's second term: -(u.a)^2 u / (|u| |a|) */
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      G[3 * r + c] = q * (a[r] * u[c] / al + ua * ((r == c ? 1.0 : 0.0) / al - a[r] * a[c] / (al * al * al))) -
                     ql * (2.0 * ua * u[r] * u[c] / al - ua * ua * u[r] * a[c] / (al * al * al));
  /* da/dx: a = (e1 x e2)/2, da/dx1 = -[e2]x / 2, da/dx2 = [e1]x / 2, da/dx0 = -(both) */
  double D[3][9], s1[9], s2[9];
  skew(e1, s1);
  skew(e2, s2);
  for (int i = 0; i < 9; ++i) {
    D[1][i] = -0.5 * s2[i];
    D[2][i] = 0.5 * s1[i];
    D[0][i] = -(D[1][i] + D[2][i]);
  }
  for (int j = 0; j < 3; ++j) {
    double GD[9];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        GD[3 * r + c] = (G[3 * r] * D[j][c] + G[3 * r + 1] * D[j][3 + c] + G[3 * r + 2] * D[j][6 + c]) / 3.0;
    for (int i = 0; i < 3; ++i)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) J[(3 * i + r) * 9 + 3 * j + c] = GD[3 * r + c];
  }
  return 1;
}

/* cyclic Jacobi on a symmetric 9x9 (Golub & Van Loan alg. 8.5.3): S becomes diagonal, V holds the
 * eigenvectors as columns */
static void jacobi9(double S[81], double V[81]) {
  for (int i = 0; i < 81; ++i) V[i] = (i % 10 == 0) ? 1.0 : 0.0;
  for (int sweep = 0; sweep < 30; ++sweep) {
    double off = 0.0, diag = 0.0;
    for (int p = 0; p < 9; ++p) {
      diag += S[10 * p] * S[10 * p];
      for (int q2 = p + 1; q2 < 9; ++q2) off += S[9 * p + q2] * S[9 * p + q2];
    }
    if (off <= 1e-28 * diag || off == 0.0) break;
    for (int p = 0; p < 9; ++p)
      for (int q2 = p + 1; q2 < 9; ++q2) {
        double apq = S[9 * p + q2];
        if (apq == 0.0) continue;
        double th = (S[9 * q2 + q2] - S[9 * p + p]) / (2.0 * apq);
        double t = (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1.0));
        double c = 1.0 / sqrt(t * t + 1.0), sn = t * c;
        for (int m = 0; m < 9; ++m) {
          double mp = S[9 * m + p], mq = S[9 * m + q2];
          S[9 * m + p] = c * mp - sn * mq;
          S[9 * m + q2] = sn * mp + c * mq;
        }
        for (int m = 0; m < 9; ++m) {
          double pm = S[9 * p + m], qm = S[9 * q2 + m];
          S[9 * p + m] = c * pm - sn * qm;
          S[9 * q2 + m] = sn * pm + c * qm;
        }
        for (int m = 0; m < 9; ++m) {
          double vp = V[9 * m + p], vq = V[9 * m + q2];
          V[9 * m + p] = c * vp - sn * vq;
          V[9 * m + q2] = sn * vp + c * vq;
        }
      }
  }
}

int aero_restoring_stiffness(const double x[9], const double v[9], const double wind[3], const aero_coeffs *k,
                             double P[81]) {
  double J[81], S[81], V[81], N2[81];
  for (int i = 0; i < 81; ++i) P[i] = 0.0;
  if (!aero_drag_jacobian(x, v, wind, k, J)) return 0;
  /* restoring: minus the negative part of the symmetric part */
  for (int r = 0; r < 9; ++r)
    for (int c = 0; c < 9; ++c) S[9 * r + c] = 0.5 * (J[9 * r + c] + J[9 * c + r]);
  jacobi9(S, V);
  for (int e = 0; e < 9; ++e) {
    double lam = S[10 * e];
    if (!(lam < 0.0)) continue;
    for (int r = 0; r < 9; ++r)
      for (int c = 0; c < 9; ++c) P[9 * r + c] -= lam * V[9 * r + e] * V[9 * c + e];
  }
  /* the circulatory (antisymmetric) part N rotates the motion; explicit, its step factor is
   * |1 + i w h| > 1. Damping the step with |N| = sqrt(N^T N) bounds it by 1 without moving the
   * equilibrium (the term vanishes at rest) */
  double Nm[81];
  for (int r = 0; r < 9; ++r)
    for (int c = 0; c < 9; ++c) Nm[9 * r + c] = 0.5 * (J[9 * r + c] - J[9 * c + r]);
  for (int r = 0; r < 9; ++r)
    for (int c = 0; c < 9; ++c) {
      double acc = 0.0;
      for (int m = 0; m < 9; ++m) acc += Nm[9 * m + r] * Nm[9 * m + c];
      N2[9 * r + c] = acc;
    }
  jacobi9(N2, V);
  for (int e = 0; e < 9; ++e) {
    double mu = N2[10 * e];
    if (!(mu > 0.0)) continue;
    double w = sqrt(mu);
    for (int r = 0; r < 9; ++r)
      for (int c = 0; c < 9; ++c) P[9 * r + c] += w * V[9 * r + e] * V[9 * c + e];
  }
  return 1;
}
