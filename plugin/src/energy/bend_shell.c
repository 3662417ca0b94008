/* SPDX-License-Identifier: MIT
 * Shell bending on a six-vertex patch (bend_shell.h). Each curvature component is b_k = n . q_k,
 * linear in the patch through q_k = sum_i c_k,i x_i and nonlinear only through the triangle's
 * unit normal n = N / |N|, N = (x1 - x0) x (x2 - x0). Its gradient:
 *   db_k/dx_i = c_k,i n                     (every patch vertex)
 *             + dn/dx_i^T q_k               (the triangle's three vertices)
 * with dn = (I - n n^T) dN / |N|, dN = e1 x de2 - e2 x de1 (e1 = x1 - x0, e2 = x2 - x0), so with
 * p = (q_k - n (n . q_k)) / |N|: d/dx1 = e2 x p, d/dx2 = p x e1, d/dx0 = -(d/dx1 + d/dx2).
 * Nothing here allocates. */
#include "energy/bend_shell.h"

#include <math.h>
#include <string.h>

#include "core/quadfit.h"
#include "core/vec3.h"

/* a deformed triangle whose |N| is below this fraction of its squared edges is degenerate */
static const double SHELL_MIN_REL_AREA = 1e-12;

/* unit normal n and 1/|N| of the triangle x0 x1 x2; 0 when degenerate */
static int shell_normal(const double x[18], double n[3], double *inv_len, double e1[3],
                        double e2[3]) {
  double N[3];
  v3_sub(e1, x + 3, x);
  v3_sub(e2, x + 6, x);
  v3_cross(N, e1, e2);
  double len = sqrt(v3_norm2(N)), scale = v3_norm2(e1) + v3_norm2(e2);
  if (!(len > SHELL_MIN_REL_AREA * scale) || !isfinite(len)) return 0;
  *inv_len = 1.0 / len;
  v3_scale(n, N, *inv_len);
  return 1;
}

static void shell_q(const double x[18], const shell_rest *r, double q[3][3]) {
  for (int k = 0; k < 3; ++k) {
    v3_set(q[k], 0.0, 0.0, 0.0);
    for (int i = 0; i < 6; ++i) v3_axpy(q[k], r->c[k][i], x + 3 * i);
  }
}

double shell_rest_init(shell_rest *r, const double X[18]) {
  memset(r, 0, sizeof *r);
  double n[3], inv, e1[3], e2[3];
  if (!shell_normal(X, n, &inv, e1, e2)) return 0.0;
  /* the rest triangle's orthonormal frame: u along e1, v = n x u; origin x0 */
  double u[3], v[3], uv[12];
  v3_scale(u, e1, 1.0 / sqrt(v3_norm2(e1)));
  v3_cross(v, n, u);
  for (int i = 0; i < 6; ++i) {
    double d[3];
    v3_sub(d, X + 3 * i, X);
    uv[2 * i] = v3_dot(d, u);
    uv[2 * i + 1] = v3_dot(d, v);
  }
  /* a curved rest patch is projected onto the triangle's plane: the chart differs from the
   * unfolded surface by O(h^2 c^2), below the fit's own error */
  double quality = quadfit_weights(uv, r->c);
  if (!(quality > 0.0)) return memset(r, 0, sizeof *r), 0.0;
  r->area = 0.5 / inv;
  double q[3][3];
  shell_q(X, r, q);
  for (int k = 0; k < 3; ++k) r->b0[k] = v3_dot(n, q[k]);
  return quality;
}

int shell_curvature(const double x[18], const shell_rest *r, double b[3]) {
  double n[3], inv, e1[3], e2[3], q[3][3];
  if (!shell_normal(x, n, &inv, e1, e2)) return b[0] = b[1] = b[2] = 0.0, 0;
  shell_q(x, r, q);
  for (int k = 0; k < 3; ++k) b[k] = v3_dot(n, q[k]);
  return 1;
}

double shell_energy_psd(const double x[18], const shell_rest *r, double D, double nu, double *grad,
                        double *hess) {
  double n[3], inv, e1[3], e2[3], q[3][3];
  if (grad) memset(grad, 0, 18 * sizeof *grad);
  if (hess) memset(hess, 0, 324 * sizeof *hess);
  if (!shell_normal(x, n, &inv, e1, e2)) return 0.0;
  shell_q(x, r, q);
  double s[3];
  for (int k = 0; k < 3; ++k) s[k] = v3_dot(n, q[k]) - r->b0[k];
  /* E = A D/2 s^T M s, M = [[1, nu, 0], [nu, 1, 0], [0, 0, 2 (1 - nu)]]: nu (s0 + s1)^2 +
   * (1 - nu)(s0^2 + s1^2 + 2 s2^2) */
  double AD = r->area * D;
  double W[3][3] = {{AD, AD * nu, 0.0}, {AD * nu, AD, 0.0}, {0.0, 0.0, 2.0 * AD * (1.0 - nu)}};
  double Ws[3];
  for (int k = 0; k < 3; ++k) Ws[k] = W[k][0] * s[0] + W[k][1] * s[1] + W[k][2] * s[2];
  double E = 0.5 * (s[0] * Ws[0] + s[1] * Ws[1] + s[2] * Ws[2]);
  if (!grad && !hess) return E;

  /* J (3 x 18) = ds/dx */
  double J[3][18];
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < 6; ++i) v3_scale(J[k] + 3 * i, n, r->c[k][i]);
    double p[3], d1[3], d2[3];
    v3_scale(p, n, -v3_dot(n, q[k]));
    v3_add(p, p, q[k]);
    v3_scale(p, p, inv);
    v3_cross(d1, e2, p);
    v3_cross(d2, p, e1);
    for (int j = 0; j < 3; ++j) {
      J[k][3 + j] += d1[j];
      J[k][6 + j] += d2[j];
      J[k][j] -= d1[j] + d2[j];
    }
  }
  if (grad)
    for (int a = 0; a < 18; ++a) grad[a] = Ws[0] * J[0][a] + Ws[1] * J[1][a] + Ws[2] * J[2][a];
  /* Gauss-Newton J^T W J, PSD since W is for |nu| <= 1, and nothing of (W s) . d2S: as for the
   * hinge (bend_hinge.c), that term couples in-plane with out-of-plane motion in sign-indefinite
   * pairs and vanishes at rest, where Newton needs the Hessian most */
  if (hess) {
    double T[3][18];
    for (int l = 0; l < 3; ++l)
      for (int a = 0; a < 18; ++a)
        T[l][a] = W[l][0] * J[0][a] + W[l][1] * J[1][a] + W[l][2] * J[2][a];
    for (int a = 0; a < 18; ++a)
      for (int b = a; b < 18; ++b) {
        double h = T[0][a] * J[0][b] + T[1][a] * J[1][b] + T[2][a] * J[2][b];
        hess[18 * a + b] = hess[18 * b + a] = h;
      }
  }
  return E;
}
