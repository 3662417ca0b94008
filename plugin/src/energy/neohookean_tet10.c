/* SPDX-License-Identifier: MIT
 * See neohookean_tet10.h. With barycentric coordinates l_0..l_3 (grad l_a = b_a, the linear tet's
 * shape gradients from Dm^-1), the shape functions are N_a = l_a (2 l_a - 1) at corner a and
 * N_ab = 4 l_a l_b at the edge node of ab, so grad N_a = (4 l_a - 1) b_a and
 * grad N_ab = 4 (l_a b_b + l_b b_a), and F = sum_k x_k (x) grad N_k. */
#include "energy/neohookean_tet10.h"

#include <math.h>
#include <string.h>

#include "core/vec3.h"

const int TET10_EDGE[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

/* the 4-point rule, exact for degree 2 (weights 1/4 of the volume each) */
static const double Q4A = 0.58541019662496845446, Q4B = 0.13819660112501051518;

/* shape gradients g[k] (k = 0..9) at barycentric point l */
static void shape_gradients(const double b[4][3], const double l[4], double g[10][3]) {
  for (int a = 0; a < 4; ++a)
    for (int j = 0; j < 3; ++j) g[a][j] = (4.0 * l[a] - 1.0) * b[a][j];
  for (int e = 0; e < 6; ++e) {
    int a = TET10_EDGE[e][0], c = TET10_EDGE[e][1];
    for (int j = 0; j < 3; ++j) g[4 + e][j] = 4.0 * (l[a] * b[c][j] + l[c] * b[a][j]);
  }
}

static void deformation_gradient(const double x[30], const double g[10][3], double F[9]) {
  memset(F, 0, 9 * sizeof *F);
  for (int k = 0; k < 10; ++k)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) F[3 * i + j] += x[3 * k + i] * g[k][j];
}

static void quad_point(int q, double l[4]) {
  for (int a = 0; a < 4; ++a) l[a] = a == q ? Q4A : Q4B;
}

/* the quadratic term mu/2 (|F|^2 - 3) at one point with weight w (negative at the centroid): its
 * gradient and its Hessian, mu w (g_a . g_c) I */
static double add_stretch(const double x[30], const double g[10][3], double w, double mu,
                          double *grad, double *hess) {
  double F[9], Ic = 0.0;
  deformation_gradient(x, g, F);
  for (int k = 0; k < 9; ++k) Ic += F[k] * F[k];
  if (grad)
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i)
        grad[3 * a + i] +=
            w * mu * (F[3 * i] * g[a][0] + F[3 * i + 1] * g[a][1] + F[3 * i + 2] * g[a][2]);
  if (hess)
    for (int a = 0; a < 10; ++a)
      for (int c = a; c < 10; ++c) {
        double d = w * mu * (g[a][0] * g[c][0] + g[a][1] * g[c][1] + g[a][2] * g[c][2]);
        for (int i = 0; i < 3; ++i) hess[30 * (3 * a + i) + 3 * c + i] += d;
      }
  return w * 0.5 * mu * (Ic - 3.0);
}

double tet10_energy(const tet_rest *r, const double x[30], double lambda, double mu, double *grad,
                    double *hess, int psd) {
  const double lam = lambda + mu, alpha = 1.0 + mu / lam, V = r->volume;
  double b[4][3], g[10][3], F[9], cof[9];
  tet_shape_gradients(r, b);
  if (grad) memset(grad, 0, 30 * sizeof *grad);
  if (hess) memset(hess, 0, 900 * sizeof *hess);
  /* the stretch term where the element's strain varies: the 4-point rule, less its centroid value
   * (that difference is the integral of |F - F_c|^2's mu/2, so its Hessian is PSD) */
  double E = 0.0;
  for (int q = 0; q < 4; ++q) {
    double l[4];
    quad_point(q, l);
    shape_gradients(b, l, g);
    E += add_stretch(x, g, 0.25 * V, mu, grad, hess);
  }
  const double c[4] = {0.25, 0.25, 0.25, 0.25};
  shape_gradients(b, c, g);
  E += add_stretch(x, g, -V, mu, grad, hess);
  /* the whole density at the centroid: one volume condition per element */
  deformation_gradient(x, g, F);
  const double J = m3_det(F);
  double Ic = 0.0;
  for (int k = 0; k < 9; ++k) Ic += F[k] * F[k];
  /* as tet_energy: (J - alpha)^2 - (1 - alpha)^2 factored, so the rest energy is exactly 0 */
  E += V * (0.5 * mu * (Ic - 3.0) + 0.5 * lam * (J - 1.0) * (J + 1.0 - 2.0 * alpha));
  if (grad) {
    double P[9];
    tet_cofactor(F, cof);
    for (int k = 0; k < 9; ++k) P[k] = mu * F[k] + lam * (J - alpha) * cof[k];
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i)
        grad[3 * a + i] +=
            V * (P[3 * i] * g[a][0] + P[3 * i + 1] * g[a][1] + P[3 * i + 2] * g[a][2]);
  }
  if (hess) {
    double C[81], T[10][3][9];
    tet_stress_derivative(F, lambda, mu, psd, C);
    /* T_a[i][kl] = sum_j C_ij,kl g_a[j]; then K_ac[i][k] = V sum_l T_a[i][kl] g_c[l] */
    for (int a = 0; a < 10; ++a)
      for (int i = 0; i < 3; ++i)
        for (int kl = 0; kl < 9; ++kl)
          T[a][i][kl] = C[9 * (3 * i) + kl] * g[a][0] + C[9 * (3 * i + 1) + kl] * g[a][1] +
                        C[9 * (3 * i + 2) + kl] * g[a][2];
    for (int a = 0; a < 10; ++a)
      for (int cc = a; cc < 10; ++cc)
        for (int i = 0; i < 3; ++i)
          for (int k = 0; k < 3; ++k) {
            const double *t = T[a][i] + 3 * k;
            hess[30 * (3 * a + i) + 3 * cc + k] +=
                V * (t[0] * g[cc][0] + t[1] * g[cc][1] + t[2] * g[cc][2]);
          }
    /* the lower blocks from the upper (both parts are symmetric) */
    for (int a = 0; a < 10; ++a)
      for (int cc = 0; cc < a; ++cc)
        for (int i = 0; i < 3; ++i)
          for (int k = 0; k < 3; ++k)
            hess[30 * (3 * a + i) + 3 * cc + k] = hess[30 * (3 * cc + k) + 3 * a + i];
  }
  return E;
}

void tet10_centroid_gradient(const tet_rest *r, const double x[30], double F[9]) {
  double b[4][3], g[10][3];
  const double c[4] = {0.25, 0.25, 0.25, 0.25};
  tet_shape_gradients(r, b);
  shape_gradients(b, c, g);
  deformation_gradient(x, g, F);
}

/* a degree-3 rule (Keast 1986 #2): the centroid with weight -4/5, and (1/2, 1/6, 1/6, 1/6) and its
 * permutations with 9/20 each */
double tet10_volume_ratio(const tet_rest *r, const double x[30]) {
  double b[4][3], g[10][3], F[9], sum = 0.0;
  tet_shape_gradients(r, b);
  const double c[4] = {0.25, 0.25, 0.25, 0.25};
  shape_gradients(b, c, g);
  deformation_gradient(x, g, F);
  sum -= 0.8 * m3_det(F);
  for (int q = 0; q < 4; ++q) {
    double l[4] = {1.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0};
    l[q] = 0.5;
    shape_gradients(b, l, g);
    deformation_gradient(x, g, F);
    sum += 0.45 * m3_det(F);
  }
  return sum;
}

double tet10_min_volume_ratio(const tet_rest *r, const double x[30]) {
  double b[4][3], g[10][3], F[9], lo = INFINITY;
  tet_shape_gradients(r, b);
  for (int q = 0; q < 4; ++q) {
    double l[4];
    quad_point(q, l);
    shape_gradients(b, l, g);
    deformation_gradient(x, g, F);
    lo = fmin(lo, m3_det(F));
  }
  return lo;
}

void tet10_shape(const double b[4], double w[10]) {
  for (int a = 0; a < 4; ++a) w[a] = b[a] * (2.0 * b[a] - 1.0);
  for (int e = 0; e < 6; ++e) w[4 + e] = 4.0 * b[TET10_EDGE[e][0]] * b[TET10_EDGE[e][1]];
}
