/* SPDX-License-Identifier: MIT
 * See neohookean_tet.h. F is indexed row-major, F_ij = 3i + j; dF_ij/dx_a,i = b_a[j] with b_a the
 * a-th row of Dm^-1 (a = 1..3) and b_0 = -(b_1 + b_2 + b_3). */
#include "energy/neohookean_tet.h"

#include <math.h>
#include <string.h>

#include "core/eigen_sym.h"
#include "core/vec3.h"

/* Levi-Civita symbol */
static int eps3(int i, int j, int k) { return (i - j) * (j - k) * (k - i) / 2; }

int tet_rest_init(tet_rest *r, const double x0[3], const double x1[3], const double x2[3], const double x3[3]) {
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
  for (int j = 0; j < 3; ++j) scale *= sqrt(Dm[j] * Dm[j] + Dm[3 + j] * Dm[3 + j] + Dm[6 + j] * Dm[6 + j]);
  if (!(d > 1e-12 * scale)) return 0;
  m3_inverse(r->dm_inv, Dm, 0.0);
  r->volume = d / 6.0;
  return 1;
}

static void deformation_gradient(const tet_rest *r, const double x[12], double F[9]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0.0;
      for (int k = 0; k < 3; ++k) s += (x[3 * (k + 1) + i] - x[i]) * r->dm_inv[3 * k + j];
      F[3 * i + j] = s;
    }
}

double tet_volume_ratio(const tet_rest *r, const double x[12]) {
  double F[9];
  deformation_gradient(r, x, F);
  return m3_det(F);
}

double tet_energy(const tet_rest *r, const double x[12], double lambda, double mu, double *grad, double *hess,
                  int psd) {
  const double lam = lambda + mu, alpha = 1.0 + mu / lam, V = r->volume;
  double F[9];
  deformation_gradient(r, x, F);
  const double J = m3_det(F);
  double Ic = 0.0;
  for (int k = 0; k < 9; ++k) Ic += F[k] * F[k];
  /* (J - alpha)^2 - (1 - alpha)^2 factored, so the rest energy is exactly 0 */
  const double psi = 0.5 * mu * (Ic - 3.0) + 0.5 * lam * (J - 1.0) * (J + 1.0 - 2.0 * alpha);
  if (!grad && !hess) return V * psi;

  /* dJ/dF = cof(F), cof_ij = 1/2 eps_ikm eps_jln F_kl F_mn */
  double cof[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      cof[3 * i + j] = F[3 * i1 + j1] * F[3 * i2 + j2] - F[3 * i1 + j2] * F[3 * i2 + j1];
    }
  double b[4][3]; /* dF_ij/dx_a,i = b[a][j] */
  for (int j = 0; j < 3; ++j) {
    b[0][j] = 0.0;
    for (int a = 1; a < 4; ++a) {
      b[a][j] = r->dm_inv[3 * (a - 1) + j];
      b[0][j] -= b[a][j];
    }
  }
  if (grad) { /* first Piola-Kirchhoff stress P = mu F + lam (J - alpha) cof, force = -V P b_a */
    double P[9];
    for (int k = 0; k < 9; ++k) P[k] = mu * F[k] + lam * (J - alpha) * cof[k];
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i) grad[3 * a + i] = V * (P[3 * i] * b[a][0] + P[3 * i + 1] * b[a][1] + P[3 * i + 2] * b[a][2]);
  }
  if (hess) {
    /* d2psi/dF_ij dF_kl = mu d_ik d_jl + lam cof_ij cof_kl + lam (J - alpha) eps_ikm eps_jln F_mn */
    double C[81];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k)
          for (int l = 0; l < 3; ++l) {
            double h = 0.0;
            if (i != k && j != l) {
              int m = 3 - i - k, n = 3 - j - l;
              h = eps3(i, k, m) * eps3(j, l, n) * F[3 * m + n];
            }
            C[9 * (3 * i + j) + 3 * k + l] = (i == k && j == l ? mu : 0.0) + lam * cof[3 * i + j] * cof[3 * k + l] + lam * (J - alpha) * h;
          }
    if (psd) eigen_sym_project_psd(C, 9);
    /* K_(a,i),(c,k) = V sum_jl C_ij,kl b_a[j] b_c[l] */
    for (int a = 0; a < 4; ++a)
      for (int c = 0; c < 4; ++c)
        for (int i = 0; i < 3; ++i)
          for (int k = 0; k < 3; ++k) {
            double s = 0.0;
            for (int j = 0; j < 3; ++j)
              for (int l = 0; l < 3; ++l) s += C[9 * (3 * i + j) + 3 * k + l] * b[a][j] * b[c][l];
            hess[12 * (3 * a + i) + 3 * c + k] = V * s;
          }
  }
  return V * psi;
}

void tet_lame(double E, double nu, double *lambda, double *mu) {
  *mu = E / (2.0 * (1.0 + nu));
  *lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
}
