/* SPDX-License-Identifier: MIT
 * StVK membrane: energy, gradient and Hessian in closed form. With f_a the columns of F and
 * beta_{k,a} = dF_a/dx_k (from Dm^-1; vertex 0 gets minus the sum):
 *   dE/dx_k = A sum_a beta_{k,a} P_a,  P = F S,  S = lambda tr(G) I + 2 mu G
 *   d2E/dx_k dx_l = A sum_{a,b} beta_{k,a} beta_{l,b} K_ab,
 *   K_ab = S_ab I + lambda f_a f_b^T + mu (f_b f_a^T + delta_ab sum_c f_c f_c^T).
 * The first (geometric) term is the only one that can be indefinite (compression, S < 0). */
#include "energy/membrane_tri.h"

#include <math.h>
#include <string.h>

#include "core/vec3.h"

void membrane_lame(double Y, double nu, double *lambda, double *mu) {
  *lambda = Y * nu / (1.0 - nu * nu);
  *mu = Y / (2.0 * (1.0 + nu));
}

int membrane_rest_init(membrane_rest *r, const double x0[3], const double x1[3],
                       const double x2[3]) {
  double e1[3], e2[3], n[3], t1[3], t2[3];
  v3_sub(e1, x1, x0);
  v3_sub(e2, x2, x0);
  v3_cross(n, e1, e2);
  double l1 = v3_norm(e1), nn = v3_norm(n);
  if (!(l1 > 0.0) || !(nn > 0.0)) return 0;
  /* orthonormal frame (t1, t2) in the triangle plane, t1 along the first edge */
  v3_scale(t1, e1, 1.0 / l1);
  v3_cross(t2, n, t1);
  v3_scale(t2, t2, 1.0 / nn);
  double a = l1, b = v3_dot(e2, t1), d = v3_dot(e2, t2); /* Dm = [[a, b], [0, d]] */
  r->dm_inv[0] = 1.0 / a;
  r->dm_inv[1] = -b / (a * d);
  r->dm_inv[2] = 0.0;
  r->dm_inv[3] = 1.0 / d;
  r->area = 0.5 * nn;
  return 1;
}

/* beta[k][a] = dF_a / dx_k */
static void shape_derivs(const double *B, double beta[3][2]) {
  for (int a = 0; a < 2; ++a) {
    beta[1][a] = B[0 * 2 + a];
    beta[2][a] = B[1 * 2 + a];
    beta[0][a] = -(beta[1][a] + beta[2][a]);
  }
}

/* F columns f[a] = sum_k beta[k][a] x_k */
static void deformation_gradient(const double x[9], double beta[3][2], double f[2][3]) {
  for (int a = 0; a < 2; ++a)
    for (int i = 0; i < 3; ++i)
      f[a][i] = beta[0][a] * x[i] + beta[1][a] * x[3 + i] + beta[2][a] * x[6 + i];
}

double membrane_energy(const membrane_rest *r, const double x[9], double lambda, double mu,
                       double *grad, double *hess, int psd) {
  double beta[3][2], f[2][3];
  shape_derivs(r->dm_inv, beta);
  deformation_gradient(x, beta, f);
  /* Green strain G = (F^T F - I)/2 */
  double G[2][2];
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) G[a][b] = 0.5 * (v3_dot(f[a], f[b]) - (a == b ? 1.0 : 0.0));
  double trG = G[0][0] + G[1][1];
  double GG = G[0][0] * G[0][0] + 2.0 * G[0][1] * G[0][1] + G[1][1] * G[1][1];
  double A = r->area;
  double E = A * (0.5 * lambda * trG * trG + mu * GG);
  if (!grad && !hess) return E;

  /* second Piola-Kirchhoff stress S = lambda tr(G) I + 2 mu G */
  double S[2][2];
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) S[a][b] = 2.0 * mu * G[a][b] + (a == b ? lambda * trG : 0.0);

  if (grad) {
    /* P_a = sum_b f_b S_ba ; dE/dx_k = A sum_a beta_ka P_a */
    double P[2][3];
    for (int a = 0; a < 2; ++a)
      for (int i = 0; i < 3; ++i) P[a][i] = f[0][i] * S[0][a] + f[1][i] * S[1][a];
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 3; ++i)
        grad[3 * k + i] = A * (beta[k][0] * P[0][i] + beta[k][1] * P[1][i]);
  }
  if (hess) {
    double Sg[2][2] = {{S[0][0], S[0][1]}, {S[1][0], S[1][1]}};
    if (psd) {
      /* clamp the 2x2 stress to its positive part: S+ = sum max(s_i, 0) u_i u_i^T */
      double m = 0.5 * (S[0][0] + S[1][1]);
      double dd = 0.5 * (S[0][0] - S[1][1]);
      double rad = sqrt(dd * dd + S[0][1] * S[0][1]);
      double s1 = m + rad, s2 = m - rad;
      if (s2 < 0.0) {
        if (s1 <= 0.0) {
          memset(Sg, 0, sizeof Sg);
        } else {
          /* eigenvector of s1 */
          double u0, u1;
          if (rad > 0.0) {
            if (dd >= 0.0) {
              u0 = dd + rad;
              u1 = S[0][1];
            } else {
              u0 = S[0][1];
              u1 = rad - dd;
            }
            double nu_ = sqrt(u0 * u0 + u1 * u1);
            u0 /= nu_;
            u1 /= nu_;
          } else {
            u0 = 1.0;
            u1 = 0.0;
          }
          Sg[0][0] = s1 * u0 * u0;
          Sg[0][1] = Sg[1][0] = s1 * u0 * u1;
          Sg[1][1] = s1 * u1 * u1;
        }
      }
    }
    /* K_ab (3x3) for a, b in {0, 1} */
    double K[2][2][9];
    double ff[9]; /* sum_c f_c f_c^T */
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) ff[3 * i + j] = f[0][i] * f[0][j] + f[1][i] * f[1][j];
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) {
            double v = lambda * f[a][i] * f[b][j] + mu * f[b][i] * f[a][j];
            if (a == b) v += mu * ff[3 * i + j];
            if (i == j) v += Sg[a][b];
            K[a][b][3 * i + j] = v;
          }
    for (int k = 0; k < 3; ++k)
      for (int l = 0; l < 3; ++l) {
        double c00 = A * beta[k][0] * beta[l][0], c01 = A * beta[k][0] * beta[l][1];
        double c10 = A * beta[k][1] * beta[l][0], c11 = A * beta[k][1] * beta[l][1];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            hess[(3 * k + i) * 9 + 3 * l + j] = c00 * K[0][0][3 * i + j] +
                                                c01 * K[0][1][3 * i + j] +
                                                c10 * K[1][0][3 * i + j] + c11 * K[1][1][3 * i + j];
      }
  }
  return E;
}

void membrane_damping_force(const membrane_rest *r, const double x[9], const double v[9],
                            double phi, double psi, double *out) {
  double beta[3][2], f[2][3], fd[2][3];
  shape_derivs(r->dm_inv, beta);
  deformation_gradient(x, beta, f);
  deformation_gradient(v, beta, fd);
  /* strain rate G' = (F'^T F + F^T F')/2 (eq. 4.5) and damping stress (eq. 4.7) */
  double Gd[2][2], Sd[2][2];
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) Gd[a][b] = 0.5 * (v3_dot(fd[a], f[b]) + v3_dot(f[a], fd[b]));
  double tr = Gd[0][0] + Gd[1][1];
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) Sd[a][b] = 2.0 * psi * Gd[a][b] + (a == b ? phi * tr : 0.0);
  double P[2][3];
  for (int a = 0; a < 2; ++a)
    for (int i = 0; i < 3; ++i) P[a][i] = f[0][i] * Sd[0][a] + f[1][i] * Sd[1][a];
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 3; ++i)
      out[3 * k + i] -= r->area * (beta[k][0] * P[0][i] + beta[k][1] * P[1][i]);
}
