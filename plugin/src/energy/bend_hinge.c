/* SPDX-License-Identifier: MIT
 * Hinge bending energy E = k (theta - theta0)^2 (Bridson et al. 2003, Grinspun et al. 2003). The
 * gradient of theta is the classic closed form: each vertex moves theta only along the normal of
 * its triangle, the opposite vertices with weight 1 / height and the edge vertices with the
 * barycentric share of the foot of that height. The exact Hessian differentiates that closed form
 * in the translation-free coordinates e = x1 - x0, a = x2 - x0, b = x3 - x0 (an independent
 * derivation of what Tamstorf & Grinspun 2013 give in closed form), then scatters the 9 x 9
 * result to the 12 vertex coordinates with x0 = minus the sum of the others. Nothing here
 * allocates.
 */
#include "energy/bend_hinge.h"

#include <math.h>
#include <string.h>

#include "core/vec3.h"

static const double HINGE_PI = 3.14159265358979323846;
/* a triangle is degenerate when its height over the hinge edge is below this fraction of the edge
 * length: the Hessian scales with (|e| / h)^2, so this caps it at 1e24 times its normal size */
static const double HINGE_MIN_REL_HEIGHT2 = 1e-24;

/* hinge quantities shared by the energy, gradient and Hessian */
typedef struct hinge_geom {
  double e[3], a[3], b[3]; /* x1 - x0, x2 - x0, x3 - x0 */
  double na[3], nb[3];     /* unnormalized normals e x a (triangle A) and b x e (triangle B) */
  double e2, el;           /* |e|^2, |e| */
  double na2, nb2;         /* |nA|^2, |nB|^2 */
  double theta;
} hinge_geom;

/* fills g; returns 0 (and theta = 0) for a degenerate or non-finite hinge */
static int hinge_geom_init(hinge_geom *g, const double x[12]) {
  v3_sub(g->e, x + 3, x);
  v3_sub(g->a, x + 6, x);
  v3_sub(g->b, x + 9, x);
  v3_cross(g->na, g->e, g->a);
  v3_cross(g->nb, g->b, g->e);
  g->e2 = v3_norm2(g->e);
  g->na2 = v3_norm2(g->na);
  g->nb2 = v3_norm2(g->nb);
  g->theta = 0.0;
  /* |n| = h |e|, so h / |e| = |n| / |e|^2; written negated so NaN counts as degenerate */
  double floor2 = HINGE_MIN_REL_HEIGHT2 * g->e2 * g->e2;
  if (!(g->na2 > floor2) || !(g->nb2 > floor2)) return 0;
  g->el = sqrt(g->e2);
  /* guards overflow of the 1 / |n|^2 and 1 / |e|^2 factors for absurd scales */
  if (!isfinite(g->el / g->na2) || !isfinite(g->el / g->nb2) || !isfinite(1.0 / g->e2)) return 0;
  /* theta = atan2((nA x nB) . e^, nA . nB); the common factor 1 / (|nA| |nB|) cancels */
  double c[3];
  v3_cross(c, g->na, g->nb);
  g->theta = atan2(v3_dot(c, g->e) / g->el, v3_dot(g->na, g->nb));
  return 1;
}

/* dtheta/dx (12), the closed form of Bridson et al. 2003 (their bending modes u1..u4) with the
 * signs of this theta:
 * dtheta/dx2 = -|e| nA / |nA|^2, dtheta/dx3 = -|e| nB / |nB|^2,
 * dtheta/dx1 = -sA dtheta/dx2 - sB dtheta/dx3,
 * dtheta/dx0 = -(1 - sA) dtheta/dx2 - (1 - sB) dtheta/dx3,
 * with sA = a.e / |e|^2 and sB = b.e / |e|^2 the feet of the heights along the edge */
static void hinge_angle_grad(const hinge_geom *g, double dth[12], double *out_sa, double *out_sb) {
  double sa = v3_dot(g->a, g->e) / g->e2;
  double sb = v3_dot(g->b, g->e) / g->e2;
  double *d0 = dth, *d1 = dth + 3, *d2 = dth + 6, *d3 = dth + 9;
  v3_scale(d2, g->na, -g->el / g->na2);
  v3_scale(d3, g->nb, -g->el / g->nb2);
  for (int i = 0; i < 3; ++i) {
    d1[i] = -sa * d2[i] - sb * d3[i];
    d0[i] = -(1.0 - sa) * d2[i] - (1.0 - sb) * d3[i];
  }
  if (out_sa) *out_sa = sa;
  if (out_sb) *out_sb = sb;
}

/* r = [v]x as a row-major 3x3, so that r w = v x w */
static void m3_skew(double r[9], const double v[3]) {
  r[0] = 0.0;
  r[1] = -v[2];
  r[2] = v[1];
  r[3] = v[2];
  r[4] = 0.0;
  r[5] = -v[0];
  r[6] = -v[1];
  r[7] = v[0];
  r[8] = 0.0;
}

/* r = s * P * M with P = I - 2 n n^T / |n|^2 (the Jacobian of n / |n|^2 is P / |n|^2) */
static void reflect_mul(double r[9], const double n[3], double n2, const double M[9], double s) {
  for (int j = 0; j < 3; ++j) {
    double nm = (n[0] * M[j] + n[1] * M[3 + j] + n[2] * M[6 + j]) * (2.0 / n2);
    for (int i = 0; i < 3; ++i) r[3 * i + j] = s * (M[3 * i + j] - n[i] * nm);
  }
}

/* exact Hessian of theta (12x12 row-major). In (e, a, b) with f(n) = n / |n|^2:
 * theta_a = -|e| f(nA), nA = e x a   => H_aa = -|e| P_A [e]x / |nA|^2,
 *                                      H_ae = -f(nA) e^T/|e| + |e| P_A [a]x / |nA|^2
 * theta_b = -|e| f(nB), nB = b x e   => H_bb = |e| P_B [e]x / |nB|^2,
 *                                      H_be = -f(nB) e^T/|e| - |e| P_B [b]x / |nB|^2
 * theta_e = -sA theta_a - sB theta_b => H_ee = -theta_a (a - 2 sA e)^T / |e|^2 - sA H_ae
 *                                               -theta_b (b - 2 sB e)^T / |e|^2 - sB H_be
 * and H_ab = 0, H_ea = H_ae^T, H_eb = H_be^T */
static void hinge_angle_hess(const hinge_geom *g, const double dth[12], double sa, double sb,
                             double h[144]) {
  double sk[9], haa[9], hbb[9], hae[9], hbe[9], hee[9];
  double ehat[3], fa[3], fb[3], ua[3], ub[3];
  v3_scale(ehat, g->e, 1.0 / g->el);
  v3_scale(fa, g->na, 1.0 / g->na2);
  v3_scale(fb, g->nb, 1.0 / g->nb2);

  m3_skew(sk, g->e);
  reflect_mul(haa, g->na, g->na2, sk, -g->el / g->na2);
  reflect_mul(hbb, g->nb, g->nb2, sk, g->el / g->nb2);
  m3_skew(sk, g->a);
  reflect_mul(hae, g->na, g->na2, sk, g->el / g->na2);
  m3_skew(sk, g->b);
  reflect_mul(hbe, g->nb, g->nb2, sk, -g->el / g->nb2);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      hae[3 * i + j] -= fa[i] * ehat[j];
      hbe[3 * i + j] -= fb[i] * ehat[j];
    }

  /* (a - 2 sA e) / |e|^2 is d sA / de */
  for (int i = 0; i < 3; ++i) {
    ua[i] = (g->a[i] - 2.0 * sa * g->e[i]) / g->e2;
    ub[i] = (g->b[i] - 2.0 * sb * g->e[i]) / g->e2;
  }
  const double *ta = dth + 6, *tb = dth + 9;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      hee[3 * i + j] = -ta[i] * ua[j] - sa * hae[3 * i + j] - tb[i] * ub[j] - sb * hbe[3 * i + j];
  /* H_ee is symmetric in exact arithmetic; average away the rounding */
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j) {
      double m = 0.5 * (hee[3 * i + j] + hee[3 * j + i]);
      hee[3 * i + j] = hee[3 * j + i] = m;
    }

  /* blocks in (e, a, b) order map to vertices 1, 2, 3; block (p, q) entry (i, j) */
  double blk[3][3][9];
  for (int k = 0; k < 9; ++k) {
    int i = k / 3, j = k % 3, t = 3 * j + i;
    blk[0][0][k] = hee[k];
    blk[0][1][k] = hae[t]; /* H_ea = H_ae^T */
    blk[0][2][k] = hbe[t];
    blk[1][0][k] = hae[k];
    blk[1][1][k] = haa[k];
    blk[1][2][k] = 0.0;
    blk[2][0][k] = hbe[k];
    blk[2][1][k] = 0.0;
    blk[2][2][k] = hbb[k];
  }
  /* H_aa and H_bb are symmetric in exact arithmetic too */
  for (int p = 1; p < 3; ++p)
    for (int i = 0; i < 3; ++i)
      for (int j = i + 1; j < 3; ++j) {
        double m = 0.5 * (blk[p][p][3 * i + j] + blk[p][p][3 * j + i]);
        blk[p][p][3 * i + j] = blk[p][p][3 * j + i] = m;
      }

  /* x0 = -(sum of the others): H_{0q} = -sum_p H_{pq}, H_{00} = sum_pq H_{pq} */
  for (int k = 0; k < 9; ++k) {
    int i = k / 3, j = k % 3;
    double col[3] = {0.0, 0.0, 0.0}, all = 0.0;
    for (int q = 0; q < 3; ++q) {
      double row = 0.0;
      for (int p = 0; p < 3; ++p) {
        row += blk[q][p][k];
        col[q] += blk[p][q][k];
      }
      h[(3 + 3 * q + i) * 12 + j] = -row; /* H_{q+1, 0} */
      all += row;
    }
    h[i * 12 + j] = all;
    for (int q = 0; q < 3; ++q) {
      h[i * 12 + 3 + 3 * q + j] = -col[q]; /* H_{0, q+1} */
      for (int p = 0; p < 3; ++p) h[(3 + 3 * p + i) * 12 + 3 + 3 * q + j] = blk[p][q][k];
    }
  }
  /* H_00 sums the blocks in a different order above and below its diagonal */
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j) {
      double m = 0.5 * (h[i * 12 + j] + h[j * 12 + i]);
      h[i * 12 + j] = h[j * 12 + i] = m;
    }
}

/* theta - theta0 wrapped into [-pi, pi], so a hinge folded through theta = pi does not jump by
 * 2 pi in energy */
static double wrap_angle(double d) {
  if (d > HINGE_PI) return d - 2.0 * HINGE_PI;
  if (d < -HINGE_PI) return d + 2.0 * HINGE_PI;
  return d;
}

double hinge_angle(const double x[12]) {
  hinge_geom g;
  hinge_geom_init(&g, x);
  return g.theta;
}

double hinge_rest_stiffness(const double rest[12], double B) {
  hinge_geom g;
  if (!hinge_geom_init(&g, rest)) return 0.0;
  /* |e| / h_bar (Grinspun et al. 2003) with h_bar a sixth of the summed heights is
   * 3 |e|^2 / (A_A + A_B); with that weight a mesh bent onto a cylinder of curvature c has 3x the
   * continuum energy 1/2 B c^2 per area (each hinge is given a third of its triangles' area, but
   * only one edge direction in three carries the curvature; measured on equilateral meshes at
   * every bending direction and on grids bent along their axes). Dropping the 3 calibrates
   * k = (B/2) |e|^2 / (A_A + A_B) so that energy is 1/2 B c^2 per area at every resolution. */
  double area_sum = 0.5 * (sqrt(g.na2) + sqrt(g.nb2));
  double k = 0.5 * B * g.e2 / area_sum;
  return isfinite(k) ? k : 0.0;
}

double hinge_energy(const double x[12], double k, double theta0, double *grad, double *hess) {
  hinge_geom g;
  if (!hinge_geom_init(&g, x)) {
    if (grad) memset(grad, 0, 12 * sizeof *grad);
    if (hess) memset(hess, 0, 144 * sizeof *hess);
    return 0.0;
  }
  double d = wrap_angle(g.theta - theta0);
  if (!grad && !hess) return k * d * d;
  double dth[12], sa, sb;
  hinge_angle_grad(&g, dth, &sa, &sb);
  /* dE/dx = 2 k (theta - theta0) dtheta/dx */
  if (grad)
    for (int i = 0; i < 12; ++i) grad[i] = 2.0 * k * d * dth[i];
  /* d2E/dx2 = 2 k dtheta dtheta^T + 2 k (theta - theta0) d2theta/dx2 */
  if (hess) {
    hinge_angle_hess(&g, dth, sa, sb, hess);
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j)
        hess[12 * i + j] = 2.0 * k * (dth[i] * dth[j] + d * hess[12 * i + j]);
  }
  return k * d * d;
}

double hinge_energy_psd(const double x[12], double k, double theta0, double *grad, double *hess) {
  hinge_geom g;
  if (!hinge_geom_init(&g, x)) {
    if (grad) memset(grad, 0, 12 * sizeof *grad);
    if (hess) memset(hess, 0, 144 * sizeof *hess);
    return 0.0;
  }
  double d = wrap_angle(g.theta - theta0);
  if (!grad && !hess) return k * d * d;
  double dth[12];
  hinge_angle_grad(&g, dth, NULL, NULL);
  if (grad)
    for (int i = 0; i < 12; ++i) grad[i] = 2.0 * k * d * dth[i];
  /* Gauss-Newton 2 k dtheta dtheta^T, PSD for k >= 0, and nothing of 2 k (theta - theta0)
   * d2theta: that term has rank <= 8 with eigenvalues in nearly opposite pairs (it couples
   * in-plane with out-of-plane motion), so its positive part needs a 12x12 eigensolve, and on a
   * folded 7x7 sheet with a stiff spring membrane per-hinge eigenvalue clamping took as many or
   * more Newton iterations than Gauss-Newton (up to 38 vs 18) */
  if (hess) {
    double c = 2.0 * k;
    /* dth[i] * dth[j] commutes exactly, so the matrix is bitwise symmetric */
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j) hess[12 * i + j] = c * (dth[i] * dth[j]);
  }
  return k * d * d;
}
