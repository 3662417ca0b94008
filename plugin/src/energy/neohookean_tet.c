/* SPDX-License-Identifier: MIT
 * See neohookean_tet.h. F is indexed row-major, F_ij = 3i + j; dF_ij/dx_a,i = b_a[j] with b_a the
 * a-th row of Dm^-1 (a = 1..3) and b_0 = -(b_1 + b_2 + b_3). */
#include "energy/neohookean_tet.h"

#include <math.h>
#include <string.h>

#include "core/eigen3.h"
#include "core/svd3.h"
#include "core/vec3.h"

/* Levi-Civita symbol */
static int eps3(int i, int j, int k) { return (i - j) * (j - k) * (k - i) / 2; }

int tet_rest_init(tet_rest *r, const double x0[3], const double x1[3], const double x2[3],
                  const double x3[3]) {
  const double *p[4] = {x0, x1, x2, x3};
  double Dm[9];
  r->swapped = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Dm[3 * i + j] = p[j + 1][i] - p[0][i];
  double d = m3_det(Dm);
  if (d < 0.0) { /* exchange vertices 2 and 3: swaps columns 1 and 2 of Dm */
    r->swapped = 1;
    for (int i = 0; i < 3; ++i) {
      double t = Dm[3 * i + 1];
      Dm[3 * i + 1] = Dm[3 * i + 2];
      Dm[3 * i + 2] = t;
    }
    d = -d;
  }
  /* flat relative to the tet's size: |det| against the product of its edge lengths */
  double scale = 1.0;
  for (int j = 0; j < 3; ++j)
    scale *= sqrt(Dm[j] * Dm[j] + Dm[3 + j] * Dm[3 + j] + Dm[6 + j] * Dm[6 + j]);
  if (!(d > 1e-12 * scale)) return 0;
  m3_inverse(r->dm_inv, Dm, 0.0);
  r->volume = d / 6.0;
  return 1;
}

void tet_deformation_gradient(const tet_rest *r, const double x[12], double F[9]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0.0;
      for (int k = 0; k < 3; ++k) s += (x[3 * (k + 1) + i] - x[i]) * r->dm_inv[3 * k + j];
      F[3 * i + j] = s;
    }
}

void tet_shape_gradients(const tet_rest *r, double b[4][3]) {
  for (int j = 0; j < 3; ++j) {
    b[0][j] = 0.0;
    for (int a = 1; a < 4; ++a) {
      b[a][j] = r->dm_inv[3 * (a - 1) + j];
      b[0][j] -= b[a][j];
    }
  }
}

double tet_volume_ratio(const tet_rest *r, const double x[12]) {
  double F[9];
  tet_deformation_gradient(r, x, F);
  return m3_det(F);
}

void tet_cofactor(const double F[9], double cof[9]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      cof[3 * i + j] = F[3 * i1 + j1] * F[3 * i2 + j2] - F[3 * i1 + j2] * F[3 * i2 + j1];
    }
}

/* C += w vec(U M V^T) vec(U M V^T)^T, M = diag(d) + o (e_x e_y^T) + p (e_y e_x^T); vec row-major */
static void add_mode(double C[81], const double U[9], const double V[9], const double d[3], int x,
                     int y, double o, double p, double w) {
  double M[9] = {d[0], 0, 0, 0, d[1], 0, 0, 0, d[2]}, UM[9], Q[9];
  if (o != 0.0 || p != 0.0) M[3 * x + y] = o, M[3 * y + x] = p;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      UM[3 * i + j] = U[3 * i] * M[j] + U[3 * i + 1] * M[3 + j] + U[3 * i + 2] * M[6 + j];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      Q[3 * i + j] =
          UM[3 * i] * V[3 * j] + UM[3 * i + 1] * V[3 * j + 1] + UM[3 * i + 2] * V[3 * j + 2];
  for (int a = 0; a < 9; ++a)
    for (int b = 0; b < 9; ++b) C[9 * a + b] += w * Q[a] * Q[b];
}

/* The analytic eigensystem of the stable Neo-Hookean Hessian d2psi/dF2 (Smith et al. 2018 sec. 4;
 * Smith et al. 2019): with F = U diag(s) V^T (signed SVD), psi = mu/2 sum s_i^2 + lam/2 (J -
 * alpha)^2 has three scaling modes U diag(e) V^T (e: eigenvectors of the 3x3 Hessian in s), and for
 * every pair (x, y) with third index z a twist (antisymmetric) of eigenvalue mu + lam (J - alpha)
 * s_z and a flip (symmetric) of eigenvalue mu - lam (J - alpha) s_z. The projection adds -lambda_m
 * q q^T for each negative mode, so a Hessian with nothing to clamp is left exactly as computed: no
 * 9x9 eigensolve per tet. */
static void project_psd(double C[81], const double F[9], double mu, double lam, double alpha) {
  double U[9], s[3], V[9];
  svd3_signed(F, U, s, V);
  const double J = s[0] * s[1] * s[2], g = lam * (J - alpha);
  static const double R2 = 0.70710678118654752440;
  for (int z = 0; z < 3; ++z) {
    int x = (z + 1) % 3, y = (z + 2) % 3;
    const double zero[3] = {0, 0, 0};
    double twist = mu + g * s[z], flip = mu - g * s[z];
    if (twist < 0.0) add_mode(C, U, V, zero, x, y, R2, -R2, -twist);
    if (flip < 0.0) add_mode(C, U, V, zero, x, y, R2, R2, -flip);
  }
  double A[9], w[3], E[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      int k = 3 - i - j;
      if (i == j) {
        double dj = s[(i + 1) % 3] * s[(i + 2) % 3]; /* dJ/ds_i */
        A[3 * i + j] = mu + lam * dj * dj;
      } else {
        A[3 * i + j] = lam * s[i] * s[j] * s[k] * s[k] + g * s[k];
      }
    }
  /* positive definite by its leading minors (Sylvester), as it is near rest: nothing to clamp,
   * no eigensolve (it was 12 % of a quadratic flesh step) */
  double m2 = A[0] * A[4] - A[1] * A[3];
  if (A[0] > 0.0 && m2 > 0.0 && m3_det(A) > 0.0) return;
  eigen3_sym(A, w, E);
  for (int m = 0; m < 3; ++m)
    if (w[m] < 0.0) {
      double e[3] = {E[m], E[3 + m], E[6 + m]};
      add_mode(C, U, V, e, 0, 1, 0.0, 0.0, -w[m]);
    }
}

void tet_stress_derivative(const double F[9], double lambda, double mu, int psd, double C[81]) {
  const double lam = lambda + mu, alpha = 1.0 + mu / lam, J = m3_det(F), g = lam * (J - alpha);
  double cof[9];
  tet_cofactor(F, cof);
  /* d2psi/dF_ij dF_kl = mu d_ik d_jl + lam cof_ij cof_kl + lam (J - alpha) eps_ikm eps_jln F_mn;
   * the last term is nonzero only for i != k and j != l, where m and n are the third indices */
  for (int a = 0; a < 9; ++a) {
    const double ca = lam * cof[a];
    for (int b = 0; b < 9; ++b) C[9 * a + b] = ca * cof[b];
    C[10 * a] += mu;
  }
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) {
      if (i == k) continue;
      const int m = 3 - i - k;
      const double gik = g * eps3(i, k, m);
      for (int j = 0; j < 3; ++j)
        for (int l = 0; l < 3; ++l) {
          if (j == l) continue;
          const int n = 3 - j - l;
          C[9 * (3 * i + j) + 3 * k + l] += gik * eps3(j, l, n) * F[3 * m + n];
        }
    }
  if (psd) project_psd(C, F, mu, lam, alpha);
}

double tet_energy(const tet_rest *r, const double x[12], double lambda, double mu, double *grad,
                  double *hess, int psd) {
  const double lam = lambda + mu, alpha = 1.0 + mu / lam, V = r->volume;
  double F[9];
  tet_deformation_gradient(r, x, F);
  const double J = m3_det(F);
  double Ic = 0.0;
  for (int k = 0; k < 9; ++k) Ic += F[k] * F[k];
  /* (J - alpha)^2 - (1 - alpha)^2 factored, so the rest energy is exactly 0 */
  const double psi = 0.5 * mu * (Ic - 3.0) + 0.5 * lam * (J - 1.0) * (J + 1.0 - 2.0 * alpha);
  if (!grad && !hess) return V * psi;

  double cof[9];
  tet_cofactor(F, cof);
  double b[4][3]; /* dF_ij/dx_a,i = b[a][j] */
  tet_shape_gradients(r, b);
  if (grad) { /* first Piola-Kirchhoff stress P = mu F + lam (J - alpha) cof, force = -V P b_a */
    double P[9];
    for (int k = 0; k < 9; ++k) P[k] = mu * F[k] + lam * (J - alpha) * cof[k];
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i)
        grad[3 * a + i] =
            V * (P[3 * i] * b[a][0] + P[3 * i + 1] * b[a][1] + P[3 * i + 2] * b[a][2]);
  }
  if (hess) {
    double C[81];
    tet_stress_derivative(F, lambda, mu, psd, C);
    /* K_(a,i),(c,k) = V sum_jl C_ij,kl b_a[j] b_c[l], in two contractions (D = C b_c, then b_a D:
     * 486 multiply-adds instead of 2592) over nodes 1..3 only: b_0 = -(b_1 + b_2 + b_3), so node
     * 0's rows and columns are minus the sums of the others' (the element's forces ignore a
     * translation) */
    double D[3][9][3];
    for (int c = 0; c < 3; ++c)
      for (int ij = 0; ij < 9; ++ij)
        for (int k = 0; k < 3; ++k) {
          const double *Ck = C + 9 * ij + 3 * k;
          D[c][ij][k] = Ck[0] * b[c + 1][0] + Ck[1] * b[c + 1][1] + Ck[2] * b[c + 1][2];
        }
    for (int a = 1; a < 4; ++a)
      for (int i = 0; i < 3; ++i) {
        double *row = hess + 12 * (3 * a + i);
        for (int c = 1; c < 4; ++c)
          for (int k = 0; k < 3; ++k)
            row[3 * c + k] = V * (b[a][0] * D[c - 1][3 * i][k] + b[a][1] * D[c - 1][3 * i + 1][k] +
                                  b[a][2] * D[c - 1][3 * i + 2][k]);
        for (int k = 0; k < 3; ++k) row[k] = -(row[3 + k] + row[6 + k] + row[9 + k]);
      }
    for (int i = 0; i < 3; ++i)
      for (int col = 0; col < 12; ++col)
        hess[12 * i + col] =
            -(hess[12 * (3 + i) + col] + hess[12 * (6 + i) + col] + hess[12 * (9 + i) + col]);
  }
  return V * psi;
}

void tet_lame(double E, double nu, double *lambda, double *mu) {
  *mu = E / (2.0 * (1.0 + nu));
  *lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
}
