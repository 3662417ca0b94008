/* SPDX-License-Identifier: MIT
 * Shell bending on a patch of np vertices (bend_shell.h). Each curvature component is b_k = n . q_k,
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
static inline int shell_normal(const double *x, double n[3], double *inv_len, double e1[3],
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

/* q_k = sum_i c_k,i x_i, in nine running sums (each x_i read once; no store to q can alias x) */
static inline void shell_q(const double *restrict x, const shell_rest *restrict r, double q[3][3]) {
  double a[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < r->np; ++i) {
    const double *xi = x + 3 * i;
    for (int k = 0; k < 3; ++k) {
      double c = r->c[k][i];
      a[3 * k] += c * xi[0];
      a[3 * k + 1] += c * xi[1];
      a[3 * k + 2] += c * xi[2];
    }
  }
  for (int k = 0; k < 3; ++k) v3_copy(q[k], a + 3 * k);
}

int shell_rest_frame(const double *X, double u[3], double v[3], double n[3]) {
  double inv, e1[3], e2[3];
  if (!shell_normal(X, n, &inv, e1, e2)) return 0;
  v3_scale(u, e1, 1.0 / sqrt(v3_norm2(e1)));
  v3_cross(v, n, u);
  return 1;
}

int shell_rest_finish(shell_rest *r, const double *X) {
  double n[3], inv, e1[3], e2[3], q[3][3];
  if (!shell_normal(X, n, &inv, e1, e2)) return 0;
  r->area = 0.5 / inv;
  shell_q(X, r, q);
  for (int k = 0; k < 3; ++k) r->b0[k] = v3_dot(n, q[k]);
  return 1;
}

double shell_rest_init(shell_rest *r, const double X[18]) {
  memset(r, 0, sizeof *r);
  double n[3], u[3], v[3], uv[12];
  if (!shell_rest_frame(X, u, v, n)) return 0.0;
  for (int i = 0; i < 6; ++i) {
    double d[3];
    v3_sub(d, X + 3 * i, X);
    uv[2 * i] = v3_dot(d, u);
    uv[2 * i + 1] = v3_dot(d, v);
  }
  /* a curved rest patch is projected onto the triangle's plane: the chart differs from the
   * unfolded surface by O(h^2 c^2), below the fit's own error */
  double w[3][6];
  double quality = quadfit_weights(uv, w);
  if (!(quality > 0.0)) return memset(r, 0, sizeof *r), 0.0;
  r->np = 6;
  for (int k = 0; k < 3; ++k) memcpy(r->c[k], w[k], sizeof w[k]);
  shell_rest_finish(r, X);
  return quality;
}

int shell_curvature(const double *x, const shell_rest *r, double b[3]) {
  double n[3], inv, e1[3], e2[3], q[3][3];
  if (!shell_normal(x, n, &inv, e1, e2)) return b[0] = b[1] = b[2] = 0.0, 0;
  shell_q(x, r, q);
  for (int k = 0; k < 3; ++k) b[k] = v3_dot(n, q[k]);
  return 1;
}

double shell_energy_gn(const double *x, const shell_rest *r, double D, double nu, double *grad,
                       shell_hess *h) {
  return shell_energy_gn_at(x, r, r->b0, D, nu, grad, h);
}

double shell_energy_gn_at(const double *x, const shell_rest *r, const double b0[3], double D,
                          double nu, double *grad, shell_hess *h) {
  double n[3], inv, e1[3], e2[3], q[3][3];
  const int np = r->np;
  if (!shell_normal(x, n, &inv, e1, e2)) { /* degenerate: nothing (outputs zeroed) */
    if (grad) memset(grad, 0, (size_t)3 * np * sizeof *grad);
    if (h) memset(h, 0, sizeof *h);
    return 0.0;
  }
  shell_q(x, r, q);
  double s[3];
  for (int k = 0; k < 3; ++k) s[k] = v3_dot(n, q[k]) - b0[k];
  /* E = A D/2 s^T M s, M = [[1, nu, 0], [nu, 1, 0], [0, 0, 2 (1 - nu)]]: nu (s0 + s1)^2 +
   * (1 - nu)(s0^2 + s1^2 + 2 s2^2) */
  double AD = r->area * D;
  double W[3][3] = {{AD, AD * nu, 0.0}, {AD * nu, AD, 0.0}, {0.0, 0.0, 2.0 * AD * (1.0 - nu)}};
  double Ws[3];
  for (int k = 0; k < 3; ++k) Ws[k] = W[k][0] * s[0] + W[k][1] * s[1] + W[k][2] * s[2];
  double E = 0.5 * (s[0] * Ws[0] + s[1] * Ws[1] + s[2] * Ws[2]);
  if (!grad && !h) return E;
  if (grad) {
    /* sum_k Ws_k d_k,i is the turning term of p = sum_k Ws_k p_k (d is linear in p) */
    double Q[3] = {0, 0, 0}, p[3], dg[3][3];
    for (int k = 0; k < 3; ++k) v3_axpy(Q, Ws[k], q[k]);
    v3_scale(p, n, -v3_dot(n, Q));
    v3_add(p, p, Q);
    v3_scale(p, p, inv);
    v3_cross(dg[1], e2, p);
    v3_cross(dg[2], p, e1);
    for (int j = 0; j < 3; ++j) dg[0][j] = -(dg[1][j] + dg[2][j]);
    for (int i = 0; i < np; ++i) {
      double cs = Ws[0] * r->c[0][i] + Ws[1] * r->c[1][i] + Ws[2] * r->c[2][i];
      v3_scale(grad + 3 * i, n, cs);
      if (i < 3) v3_add(grad + 3 * i, grad + 3 * i, dg[i]);
    }
  }
  if (!h) return E;
  /* d_k,i: the normal's turning, p = (q_k - n (n . q_k)) / |N| */
  for (int k = 0; k < 3; ++k) {
    double p[3];
    v3_scale(p, n, -v3_dot(n, q[k]));
    v3_add(p, p, q[k]);
    v3_scale(p, p, inv);
    v3_cross(h->d[k][1], e2, p);
    v3_cross(h->d[k][2], p, e1);
    for (int j = 0; j < 3; ++j) h->d[k][0][j] = -(h->d[k][1][j] + h->d[k][2][j]);
  }
  v3_copy(h->n, n);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) h->nn[3 * a + b] = n[a] * n[b], h->W[a][b] = W[a][b];
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < np; ++i)
      h->Wc[k][i] = W[k][0] * r->c[0][i] + W[k][1] * r->c[1][i] + W[k][2] * r->c[2][i];
  return E;
}

/* Gauss-Newton J^T W J, PSD since W is for |nu| <= 1, and nothing of (W s) . d2S: as for the
 * hinge (bend_hinge.c), that term couples in-plane with out-of-plane motion in sign-indefinite
 * pairs and vanishes at rest, where Newton needs the Hessian most */
double shell_energy_psd(const double *x, const shell_rest *r, double D, double nu, double *grad,
                        double *hess) {
  shell_hess h;
  double E = shell_energy_gn(x, r, D, nu, grad, hess ? &h : NULL);
  if (!hess) return E;
  const int m = 3 * r->np;
  for (int a = 0; a < r->np; ++a)
    for (int b = a; b < r->np; ++b) {
      double blk[9];
      shell_hess_block(&h, r, a, b, blk);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          hess[m * (3 * a + i) + 3 * b + j] = hess[m * (3 * b + j) + 3 * a + i] = blk[3 * i + j];
    }
  return E;
}
