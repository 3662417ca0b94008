/* SPDX-License-Identifier: MIT
 * Isotropic shell bending on a triangle and its patch (the rotation-free shell triangles of Onate
 * & Zarate 2000 and Flores & Onate 2005; Phaal & Calladine 1992). The patch is np vertices,
 * x = {x0, x1, x2, p3, ...}: the triangle (x0, x1, x2), oriented like the mesh, and up to nine
 * more vertices nearby. Fixed weights c on them (computed at set-up from the rest mesh: by
 * sim/elements/shell.c from its edges' gradients, or here from the quadratic through six points,
 * core/quadfit.h) give the second derivatives of the deformed surface over the rest triangle's
 * plane, q_ab = sum_i c_ab,i x_i, and the second fundamental form is b_ab = n . q_ab with n the
 * triangle's unit normal. With S = b - b0 (b0 at rest) in the triangle's orthonormal rest frame,
 * the energy is the Kirchhoff plate's
 *   E = A D/2 [nu (tr S)^2 + (1 - nu) tr(S^2)]
 * with A the rest area, D the flexural rigidity (N m) and nu the bending Poisson ratio: 1/2 D c^2
 * per area for a cylinder of curvature c in any direction, D (1 - nu) k^2 for the twist
 * z = k x y, when the weights are exact for quadratics. All functions are pure, thread-safe and
 * never allocate. */
#ifndef TF_ENERGY_BEND_SHELL_H
#define TF_ENERGY_BEND_SHELL_H

#include "core/vec3.h"

/* a patch has the triangle's three vertices and up to nine more */
#define SHELL_MAX_PATCH 12

typedef struct shell_rest {
  int np;                       /* patch vertices, 6..SHELL_MAX_PATCH */
  double c[3][SHELL_MAX_PATCH]; /* weights of the second derivatives uu, vv, uv on them */
  double b0[3];                 /* rest second fundamental form (uu, vv, uv), 1/m */
  double area;                  /* rest area of the triangle, m^2 */
} shell_rest;

/* Fill r from a six-vertex rest patch X[18] (np = 6, the quadratic through the six points).
 * Returns the fit's quality (quadfit_weights: scale-free, 0 when the patch lies on a conic, or
 * the triangle is degenerate, and r is then all zero). */
double shell_rest_init(shell_rest *r, const double X[18]);

/* With r->np and r->c given (any weights of the second derivatives in the rest triangle's frame:
 * u along x1 - x0, v = n x u), the rest area and curvature b0 from the rest patch X (3 np). 0 for
 * a degenerate triangle. */
int shell_rest_finish(shell_rest *r, const double *X);

/* The rest triangle's orthonormal frame (u, v, n) of X (its first three points); 0 if
 * degenerate. */
int shell_rest_frame(const double *X, double u[3], double v[3], double n[3]);

/* The energy (J) at x (3 np). Nullable: grad receives dE/dx (3 np), hess (3 np x 3 np, row-major)
 * the Gauss-Newton Hessian J^T (A D M) J with J = dS/dx, symmetric positive semi-definite for
 * D >= 0 and nu in [-1, 1] (bend_shell.c says why nothing more). A degenerate deformed triangle
 * contributes zero. */
double shell_energy_psd(const double *x, const shell_rest *r, double D, double nu, double *grad,
                        double *hess);

/* The Gauss-Newton Hessian J^T W J in factored form, for assembling it block by block: with
 * J_k,i = c_k,i n + d_k,i (d only on the triangle's three vertices, the turning of its normal),
 * block (a, b) = m_ab n n^T + n (sum_l Wc_l,a d_l,b)^T + (sum_k Wc_k,b d_k,a) n^T
 *              + sum_kl W_kl d_k,a d_l,b^T,   m_ab = sum_k c_k,a Wc_k,b, Wc = W c. */
typedef struct shell_hess {
  double n[3], nn[9];            /* the deformed unit normal and n n^T */
  double W[3][3];                /* A D M */
  double Wc[3][SHELL_MAX_PATCH]; /* W c */
  double d[3][3][3];             /* d[k][i]: dS_k/dx_i beyond c_k,i n, i < 3 */
} shell_hess;

/* The energy (J) at x (3 np); Nullable: grad (3 np) and h, the Hessian's factors (all zero for a
 * degenerate deformed triangle). */
double shell_energy_gn(const double *x, const shell_rest *r, double D, double nu, double *grad,
                       shell_hess *h);
/* the same about the rest curvature b0 (uu, vv, uv) instead of r->b0: plasticity moves it */
double shell_energy_gn_at(const double *x, const shell_rest *r, const double b0[3], double D,
                          double nu, double *grad, shell_hess *h);

/* block (a, b) (3 x 3, row-major) of the Gauss-Newton Hessian from its factors (inline: the
 * assembly's inner loop) */
static inline void shell_hess_block(const shell_hess *h, const shell_rest *r, int a, int b,
                                    double blk[9]) {
  double m = r->c[0][a] * h->Wc[0][b] + r->c[1][a] * h->Wc[1][b] + r->c[2][a] * h->Wc[2][b];
  for (int k = 0; k < 9; ++k) blk[k] = m * h->nn[k];
  if (a >= 3 && b >= 3) return;
  double u[3] = {0, 0, 0}, w[3] = {0, 0, 0}; /* n u^T + w n^T */
  for (int k = 0; k < 3; ++k) {
    if (b < 3) v3_axpy(u, h->Wc[k][a], h->d[k][b]);
    if (a < 3) v3_axpy(w, h->Wc[k][b], h->d[k][a]);
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) blk[3 * i + j] += h->n[i] * u[j] + w[i] * h->n[j];
  if (a < 3 && b < 3)
    for (int k = 0; k < 3; ++k)
      for (int l = 0; l < 3; ++l) {
        double wkl = h->W[k][l];
        if (wkl == 0.0) continue;
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) blk[3 * i + j] += wkl * h->d[k][a][i] * h->d[l][b][j];
      }
}

/* The deformed second fundamental form b (uu, vv, uv) at x, for tests; 0 when degenerate. */
int shell_curvature(const double *x, const shell_rest *r, double b[3]);

#endif
