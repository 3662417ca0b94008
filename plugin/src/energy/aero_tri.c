/* SPDX-License-Identifier: MIT
 * Per-triangle aerodynamic force and its drag linearization (see aero_tri.h). */
#include "energy/aero_tri.h"

#include <math.h>

#include "core/vec3.h"

/* relative flow below this speed (m/s) exerts no force: keeps |u| out of denominators */
static const double AERO_MIN_SPEED = 1e-9;

int aero_triangle(const double x[9], const double v[9], const double wind[3], const aero_coeffs *k,
                  double f[3], double *c, double n_out[3]) {
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
  m[0] = 0;
  m[1] = -w[2];
  m[2] = w[1];
  m[3] = w[2];
  m[4] = 0;
  m[5] = -w[0];
  m[6] = -w[1];
  m[7] = w[0];
  m[8] = 0;
}

int aero_drag_jacobian(const double x[9], const double v[9], const double wind[3],
                       const aero_coeffs *k, double J[81]) {
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
      G[3 * r + c] =
          q * (a[r] * u[c] / al + ua * ((r == c ? 1.0 : 0.0) / al - a[r] * a[c] / (al * al * al))) -
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
        GD[3 * r + c] =
            (G[3 * r] * D[j][c] + G[3 * r + 1] * D[j][3 + c] + G[3 * r + 2] * D[j][6 + c]) / 3.0;
    for (int i = 0; i < 3; ++i)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) J[(3 * i + r) * 9 + 3 * j + c] = GD[3 * r + c];
  }
  return 1;
}

/* cyclic Jacobi on a symmetric n x n, n <= 6 (Golub & Van Loan alg. 8.5.3): S becomes diagonal,
 * V holds the eigenvectors as columns (both row-major n x n) */
static void jacobi_sym(double *S, double *V, int n) {
  for (int i = 0; i < n * n; ++i) V[i] = (i % (n + 1) == 0) ? 1.0 : 0.0;
  for (int sweep = 0; sweep < 30; ++sweep) {
    double off = 0.0, diag = 0.0;
    for (int p = 0; p < n; ++p) {
      diag += S[(n + 1) * p] * S[(n + 1) * p];
      for (int q2 = p + 1; q2 < n; ++q2) off += S[n * p + q2] * S[n * p + q2];
    }
    if (off <= 1e-28 * diag || off == 0.0) break;
    for (int p = 0; p < n; ++p)
      for (int q2 = p + 1; q2 < n; ++q2) {
        double apq = S[n * p + q2];
        if (apq == 0.0) continue;
        double th = (S[n * q2 + q2] - S[n * p + p]) / (2.0 * apq);
        double t = (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1.0));
        double c = 1.0 / sqrt(t * t + 1.0), sn = t * c;
        for (int m = 0; m < n; ++m) {
          double mp = S[n * m + p], mq = S[n * m + q2];
          S[n * m + p] = c * mp - sn * mq;
          S[n * m + q2] = sn * mp + c * mq;
        }
        for (int m = 0; m < n; ++m) {
          double pm = S[n * p + m], qm = S[n * q2 + m];
          S[n * p + m] = c * pm - sn * qm;
          S[n * q2 + m] = sn * pm + c * qm;
        }
        for (int m = 0; m < n; ++m) {
          double vp = V[n * m + p], vq = V[n * m + q2];
          V[n * m + p] = c * vp - sn * vq;
          V[n * m + q2] = sn * vp + c * vq;
        }
      }
  }
}

/* Every corner carries a third of the triangle's load, so J's three block rows are equal:
 * J = U B with U = [I; I; I] and B (3 x 9) its first block row. Its symmetric and antisymmetric
 * parts, and N^T N, then map everything into span(U, B^T) and vanish on its complement, so their
 * eigenpairs come from an r x r problem (r <= 6) in an orthonormal basis Q (9 x r, columns) of that
 * span. Returns r. */
static int load_span(const double J[81], double Q[54]) {
  /* the dependence test is relative to J's own size (a light wind's J is small, not dependent) */
  double scale = 0.0;
  for (int i = 0; i < 27; ++i) scale = fmax(scale, fabs(J[i]));
  if (!(scale > 0.0)) scale = 1.0; /* J = 0: its rows are dependent whatever the scale */
  int r = 0;
  for (int c = 0; c < 6; ++c) {
    double *q = Q + 9 * r;
    for (int k = 0; k < 9; ++k)
      q[k] = c < 3 ? (k % 3 == c ? 1.0 : 0.0) : J[9 * (c - 3) + k] / scale;
    for (int pass = 0; pass < 2; ++pass) /* Gram-Schmidt, twice for orthogonality */
      for (int j = 0; j < r; ++j) {
        double d = 0.0;
        for (int k = 0; k < 9; ++k) d += q[k] * Q[9 * j + k];
        for (int k = 0; k < 9; ++k) q[k] -= d * Q[9 * j + k];
      }
    double nq = 0.0;
    for (int k = 0; k < 9; ++k) nq += q[k] * q[k];
    if (nq <= 1e-24) continue; /* dependent */
    for (int k = 0; k < 9; ++k) q[k] /= sqrt(nq);
    ++r;
  }
  return r;
}

/* A (9 x 9 symmetric, living in span Q) = sum_e w_e v_e v_e^T: w (r) and v_e as V[9 e .. 9 e + 8]
 */
static void span_eigen(const double A[81], const double Q[54], int r, double w[6], double V[54]) {
  double AQ[54], Ar[36], Vr[36];
  for (int k = 0; k < 9; ++k)
    for (int j = 0; j < r; ++j) {
      double acc = 0.0;
      for (int m = 0; m < 9; ++m) acc += A[9 * k + m] * Q[9 * j + m];
      AQ[r * k + j] = acc;
    }
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < r; ++j) {
      double acc = 0.0;
      for (int k = 0; k < 9; ++k) acc += Q[9 * i + k] * AQ[r * k + j];
      Ar[r * i + j] = acc;
    }
  for (int i = 0; i < r; ++i) /* exactly symmetric for the Jacobi sweeps (round-off otherwise) */
    for (int j = 0; j < i; ++j)
      Ar[r * i + j] = Ar[r * j + i] = 0.5 * (Ar[r * i + j] + Ar[r * j + i]);
  jacobi_sym(Ar, Vr, r);
  for (int e = 0; e < r; ++e) {
    w[e] = Ar[(r + 1) * e];
    for (int k = 0; k < 9; ++k) {
      double acc = 0.0;
      for (int j = 0; j < r; ++j) acc += Q[9 * j + k] * Vr[r * j + e];
      V[9 * e + k] = acc;
    }
  }
}

int aero_restoring_stiffness(const double x[9], const double v[9], const double wind[3],
                             const aero_coeffs *k, double P[81]) {
  double J[81], S[81], N2[81], Q[54], w[6], V[54];
  for (int i = 0; i < 81; ++i) P[i] = 0.0;
  if (!aero_drag_jacobian(x, v, wind, k, J)) return 0;
  int r = load_span(J, Q);
  /* restoring: minus the negative part of the symmetric part */
  for (int a = 0; a < 9; ++a)
    for (int c = 0; c < 9; ++c) S[9 * a + c] = 0.5 * (J[9 * a + c] + J[9 * c + a]);
  span_eigen(S, Q, r, w, V);
  for (int e = 0; e < r; ++e) {
    if (!(w[e] < 0.0)) continue;
    for (int a = 0; a < 9; ++a)
      for (int c = 0; c < 9; ++c) P[9 * a + c] -= w[e] * V[9 * e + a] * V[9 * e + c];
  }
  /* the circulatory (antisymmetric) part N rotates the motion; explicit, its step factor is
   * |1 + i w h| > 1. Damping the step with |N| = sqrt(N^T N) bounds it by 1 without moving the
   * equilibrium (the term vanishes at rest) */
  double Nm[81];
  for (int a = 0; a < 9; ++a)
    for (int c = 0; c < 9; ++c) Nm[9 * a + c] = 0.5 * (J[9 * a + c] - J[9 * c + a]);
  for (int a = 0; a < 9; ++a)
    for (int c = 0; c < 9; ++c) {
      double acc = 0.0;
      for (int m = 0; m < 9; ++m) acc += Nm[9 * m + a] * Nm[9 * m + c];
      N2[9 * a + c] = acc;
    }
  span_eigen(N2, Q, r, w, V);
  for (int e = 0; e < r; ++e) {
    if (!(w[e] > 0.0)) continue;
    double sw = sqrt(w[e]);
    for (int a = 0; a < 9; ++a)
      for (int c = 0; c < 9; ++c) P[9 * a + c] += sw * V[9 * e + a] * V[9 * e + c];
  }
  return 1;
}
