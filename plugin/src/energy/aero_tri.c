/* SPDX-License-Identifier: MIT
 * Per-triangle aerodynamic force and its drag linearization (see aero_tri.h). */
#include "energy/aero_tri.h"

#include <math.h>

#include "core/svd3.h"
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

/* Every corner carries a third of the triangle's load, so J = U B with U = [I; I; I] and B (3 x 9)
 * its first block row, B = (1/3) df/da da/dx. A translation leaves the area vector a unchanged
 * (da/dx sums to zero over the corners), so B U = 0 and J^2 = U (B U) B = 0. In an orthonormal
 * basis [U/sqrt3, W] of span(U, B^T) (W orthogonal to U), J = [[0, K], [0, 0]], and with the SVD
 * K = sum s u v^T:
 *   sym(J) = 1/2 [[0, K], [K^T, 0]] has the eigenpairs +-s/2, (u, +-v)/sqrt2, so minus its
 *     negative part is 1/4 [[|K^T|, -K], [-K^T, |K|]] (|K| = (K^T K)^(1/2));
 *   N = 1/2 [[0, K], [-K^T, 0]] has N^T N = 1/4 diag(K K^T, K^T K), whose root is
 *     1/2 diag(|K^T|, |K|).
 * Back in 9-space, [[|K^T|, 0], [0, 0]] is (J J^T)^(1/2), [[0, 0], [0, |K|]] is (J^T J)^(1/2) and
 * [[0, K], [K^T, 0]] is J + J^T, so
 *   P = 3/4 [(J J^T)^(1/2) + (J^T J)^(1/2)] - 1/2 sym(J).
 * With an orthonormal basis W (9 x 3) of B's rows and the SVD B W = E diag(b) F'^T (3 x 3), so
 * B = E diag(b) F^T with F = W F': J J^T = U B B^T U^T has the root U (E diag|b| E^T / sqrt3) U^T,
 * the same 3 x 3 block everywhere, and J^T J = 3 B^T B has the root sqrt3 F diag|b| F^T. The SVD is
 * of B itself, not an eigen-decomposition of B B^T, whose small eigenvalues (a triangle nearly
 * edge-on) carry round-off of the largest and would give their roots ~1e-8 of it. One 3 x 3 SVD
 * per triangle (two 6 x 6 Jacobi eigen-decompositions before: 20 % of the flag's time).
 * Why these two parts: the restoring one is the load's own stiffness, taken implicitly; the
 * circulatory part N rotates the motion, and explicit its step factor is |1 + i w h| > 1, which
 * damping by |N| bounds by 1 without moving the equilibrium (both vanish at rest). */
int aero_restoring_stiffness(const double x[9], const double v[9], const double wind[3],
                             const aero_coeffs *k, double P[81]) {
  double J[81];
  for (int i = 0; i < 81; ++i) P[i] = 0.0;
  if (!aero_drag_jacobian(x, v, wind, k, J)) return 0;
  const double *B = J; /* the first block row */
  /* W: B's rows orthonormalized (Gram-Schmidt, twice); a row in the span of the others adds none */
  double W[27], scale = 0.0;
  int r = 0;
  for (int i = 0; i < 27; ++i) scale = fmax(scale, fabs(B[i]));
  if (!(scale > 0.0)) return 1; /* no air (density 0): no load to follow */
  for (int row = 0; row < 3; ++row) {
    double *q = W + 9 * r;
    for (int m = 0; m < 9; ++m) q[m] = B[9 * row + m] / scale;
    for (int pass = 0; pass < 2; ++pass)
      for (int j = 0; j < r; ++j) {
        double d = 0.0;
        for (int m = 0; m < 9; ++m) d += q[m] * W[9 * j + m];
        for (int m = 0; m < 9; ++m) q[m] -= d * W[9 * j + m];
      }
    double nq = 0.0;
    for (int m = 0; m < 9; ++m) nq += q[m] * q[m];
    if (!(nq > 1e-30)) continue;
    for (int m = 0; m < 9; ++m) q[m] /= sqrt(nq);
    ++r;
  }
  double BW[9] = {0}, E[9], b[3], Fp[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < r; ++j) {
      double acc = 0.0;
      for (int m = 0; m < 9; ++m) acc += B[9 * i + m] * W[9 * j + m];
      BW[3 * i + j] = acc;
    }
  svd3_signed(BW, E, b, Fp);
  double root[9] = {0};
  for (int e = 0; e < 3; ++e) {
    double s = fabs(b[e]), F[9];
    if (s == 0.0) continue;
    for (int m = 0; m < 9; ++m) {
      F[m] = 0.0;
      for (int j = 0; j < r; ++j) F[m] += W[9 * j + m] * Fp[3 * j + e];
    }
    for (int i = 0; i < 3; ++i)
      for (int c = 0; c < 3; ++c) root[3 * i + c] += E[3 * i + e] * E[3 * c + e] * s / sqrt(3.0);
    double w = 0.75 * sqrt(3.0) * s;
    for (int a = 0; a < 9; ++a)
      for (int c = 0; c < 9; ++c) P[9 * a + c] += w * F[a] * F[c];
  }
  for (int a = 0; a < 9; ++a)
    for (int c = 0; c < 9; ++c)
      P[9 * a + c] += 0.75 * root[3 * (a % 3) + c % 3] - 0.25 * (J[9 * a + c] + J[9 * c + a]);
  return 1;
}
