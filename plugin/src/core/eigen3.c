/* SPDX-License-Identifier: MIT
 * Symmetric 3x3 eigen-decomposition, called once or twice per tet per Newton iteration (the flesh
 * Hessian's projection, energy/neohookean_tet.c), so its cost is a flesh step's cost.
 *
 * The eigenvalues come in closed form (Smith 1961: the trigonometric roots of the characteristic
 * cubic of A - m I). Only the most isolated one's eigenvector is taken from them, as the largest
 * cross product of two rows of A - lambda I: its gap to the others is at least half the spread of
 * the eigenvalues, so that vector is accurate whatever the other two do. The remaining pair lives
 * in the plane orthogonal to it, where one 2x2 Jacobi rotation is exact, equal eigenvalues
 * included. The eigenvalues returned are the Rayleigh quotients of the vectors returned. When the
 * spread is at round-off of the diagonal (A nearly a multiple of I) the roots say nothing, and the
 * cyclic Jacobi method (Golub & Van Loan, sec. 8.5), which never fails, takes over. About 4x
 * faster than Jacobi alone on a deforming tet's F^T F. */
#include "core/eigen3.h"

#include <math.h>

#include "core/vec3.h"

#define JACOBI_MAX_SWEEPS 32
/* below this spread of the eigenvalues relative to the matrix's size, Jacobi decides */
static const double EIGEN3_MIN_SPREAD = 1e-7;

static void eigen3_jacobi(const double Ain[9], double w[3], double V[9]) {
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

/* the unit eigenvector of the symmetric A for its eigenvalue lam, isolated from the other two:
 * orthogonal to the rows of A - lam I, so the largest cross product of two rows. 0 if the rows
 * vanish (then lam is not isolated). */
static int isolated_vector(const double A[9], double lam, double v[3]) {
  double r0[3] = {A[0] - lam, A[1], A[2]}, r1[3] = {A[3], A[4] - lam, A[5]},
         r2[3] = {A[6], A[7], A[8] - lam}, c[3][3];
  v3_cross(c[0], r0, r1);
  v3_cross(c[1], r0, r2);
  v3_cross(c[2], r1, r2);
  double n[3] = {v3_norm2(c[0]), v3_norm2(c[1]), v3_norm2(c[2])};
  int k = n[0] >= n[1] ? (n[0] >= n[2] ? 0 : 2) : (n[1] >= n[2] ? 1 : 2);
  if (!(n[k] > 0.0)) return 0;
  v3_scale(v, c[k], 1.0 / sqrt(n[k]));
  return 1;
}

static double quad_form(const double A[9], const double a[3], const double b[3]) {
  double Ab[3] = {A[0] * b[0] + A[1] * b[1] + A[2] * b[2], A[3] * b[0] + A[4] * b[1] + A[5] * b[2],
                  A[6] * b[0] + A[7] * b[1] + A[8] * b[2]};
  return v3_dot(a, Ab);
}

void eigen3_sym(const double Ain[9], double w[3], double V[9]) {
  /* scaled to entries of at most 1: the squares and cross products below neither overflow nor
   * underflow, from 1e-150 to 1e150 */
  double A[9], amax = 0.0;
  for (int k = 0; k < 9; ++k) amax = fmax(amax, fabs(Ain[k]));
  if (!(amax > 0.0) || !isfinite(amax)) {
    eigen3_jacobi(Ain, w, V);
    return;
  }
  const double scale = 1.0 / amax;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A[3 * i + j] = 0.5 * scale * (Ain[3 * i + j] + Ain[3 * j + i]);
  /* Smith's roots: B = (A - m I) / p has eigenvalues 2 cos(phi + 2 pi k / 3), det B =
   * 2 cos 3 phi */
  const double m = (A[0] + A[4] + A[8]) / 3.0;
  const double d0 = A[0] - m, d1 = A[4] - m, d2 = A[8] - m;
  const double off = A[1] * A[1] + A[2] * A[2] + A[5] * A[5];
  const double p = sqrt((d0 * d0 + d1 * d1 + d2 * d2 + 2.0 * off) / 6.0);
  const double size = fabs(m) + p;
  if (!(p > EIGEN3_MIN_SPREAD * size)) { /* also NaN: Jacobi returns what it can */
    eigen3_jacobi(A, w, V);
    for (int k = 0; k < 3; ++k) w[k] *= amax;
    return;
  }
  const double ip = 1.0 / p;
  const double b0 = d0 * ip, b1 = d1 * ip, b2 = d2 * ip, b01 = A[1] * ip, b02 = A[2] * ip,
               b12 = A[5] * ip;
  double r = 0.5 * (b0 * (b1 * b2 - b12 * b12) - b01 * (b01 * b2 - b12 * b02) +
                    b02 * (b01 * b12 - b1 * b02));
  r = r < -1.0 ? -1.0 : (r > 1.0 ? 1.0 : r);
  const double phi = acos(r) / 3.0;
  const double hi = m + 2.0 * p * cos(phi), lo = m + 2.0 * p * cos(phi + 2.0943951023931954923);
  const double mid = 3.0 * m - hi - lo;
  /* the most isolated root: hi unless lo is further from mid */
  const double iso = hi - mid >= mid - lo ? hi : lo;
  double v[3];
  if (!isolated_vector(A, iso, v)) {
    eigen3_jacobi(A, w, V);
    for (int k = 0; k < 3; ++k) w[k] *= amax;
    return;
  }
  /* an orthonormal basis (e1, e2) of the plane orthogonal to v, then the 2x2 rotation that
   * diagonalizes A there: tan 2 theta = 2 a12 / (a11 - a22) */
  double e1[3], e2[3];
  v3_any_orthogonal(v, e1);
  v3_cross(e2, v, e1);
  const double a11 = quad_form(A, e1, e1), a22 = quad_form(A, e2, e2), a12 = quad_form(A, e1, e2);
  double c = 1.0, s = 0.0;
  if (a12 != 0.0) {
    const double theta = (a22 - a11) / (2.0 * a12);
    const double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
    c = 1.0 / sqrt(t * t + 1.0), s = t * c;
  }
  double u1[3], u2[3];
  for (int k = 0; k < 3; ++k) u1[k] = c * e1[k] - s * e2[k], u2[k] = s * e1[k] + c * e2[k];
  const double *col[3] = {v, u1, u2};
  for (int j = 0; j < 3; ++j) {
    for (int k = 0; k < 3; ++k) V[3 * k + j] = col[j][k];
    w[j] = amax * quad_form(A, col[j], col[j]);
  }
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
