/* SPDX-License-Identifier: MIT
 * Primitive distances for IPC (Li et al. 2020, sec. 4 and supplemental B). Every squared
 * distance is one of three formulas of difference vectors u (each u_b = x_i - x_j):
 *   point-point  f = |a|^2
 *   point-line   f = |a x e|^2 / |e|^2
 *   point-plane  f = (a . (e1 x e2))^2 / |e1 x e2|^2   (also the line-line distance)
 * so each formula's derivatives are worked out once in u and scattered to the stencil:
 * dx_k f = sum_b C_bk du_b f with C_bk = +1 / -1 / 0. The classification takes the smallest of
 * the candidate features that are valid, which is the true minimum: an interior minimum of the
 * convex squared distance is global, otherwise it lies on a boundary feature. */
#include "geom/distance.h"

#include <string.h>

#include "core/vec3.h"

enum { FORM_PP = 1, FORM_PE = 2, FORM_PLANE = 3 }; /* value = number of 3-blocks of u */

/* H (dim x dim) block (bi, bj) += s * M */
static void blk_add(double *H, int dim, int bi, int bj, const double M[9], double s) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) H[(3 * bi + i) * dim + 3 * bj + j] += s * M[3 * i + j];
}

/* M = alpha I + beta u v^T + gamma [w]x */
static void mat_iuv(double M[9], double alpha, double beta, const double u[3], const double v[3],
                    double gamma, const double w[3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) M[3 * i + j] = (i == j ? alpha : 0.0) + beta * u[i] * v[j];
  /* [w]x = [[0, -w2, w1], [w2, 0, -w0], [-w1, w0, 0]] */
  M[1] -= gamma * w[2];
  M[2] += gamma * w[1];
  M[3] += gamma * w[2];
  M[5] -= gamma * w[0];
  M[6] -= gamma * w[1];
  M[7] += gamma * w[0];
}

/* c = |e1 x e2|^2 in u = (e1, e2): with n = e1 x e2, dn/de1 = -[e2]x, dn/de2 = [e1]x,
 *   dc = (2 e2 x n, 2 n x e1),
 *   d2c = 2 J^T J + 2 sum_k n_k d2n_k, the second term -2[n]x in block (e1, e2), using
 *   [u]x[v]x = v u^T - (u.v) I for the J^T J blocks. g (6), H (36) Nullable. */
static double cross2(const double e1[3], const double e2[3], double *g, double *H) {
  double n[3];
  v3_cross(n, e1, e2);
  if (g) {
    v3_cross(g, e2, n);
    v3_cross(g + 3, n, e1);
    v3_scale(g, g, 2.0);
    v3_scale(g + 3, g + 3, 2.0);
  }
  if (H) {
    double M[9], d12 = v3_dot(e1, e2);
    memset(H, 0, 36 * sizeof *H);
    mat_iuv(M, v3_norm2(e2), -1.0, e2, e2, 0.0, n);
    blk_add(H, 6, 0, 0, M, 2.0);
    mat_iuv(M, v3_norm2(e1), -1.0, e1, e1, 0.0, n);
    blk_add(H, 6, 1, 1, M, 2.0);
    mat_iuv(M, -d12, 1.0, e1, e2, -1.0, n);
    blk_add(H, 6, 0, 1, M, 2.0);
    mat_iuv(M, -d12, 1.0, e2, e1, 1.0, n);
    blk_add(H, 6, 1, 0, M, 2.0);
  }
  return v3_norm2(n);
}

/* f = N / D: df = dN / D - N dD / D^2,
 * d2f = d2N / D - (dN dD^T + dD dN^T) / D^2 + 2 N dD dD^T / D^3 - N d2D / D^2 */
static double quotient(int dim, double N, const double *gN, const double *HN, double D,
                       const double *gD, const double *HD, double *g, double *H) {
  double f = N / D, iD = 1.0 / D;
  if (g)
    for (int i = 0; i < dim; ++i) g[i] = (gN[i] - f * gD[i]) * iD;
  if (H)
    for (int i = 0; i < dim; ++i)
      for (int j = 0; j < dim; ++j)
        H[i * dim + j] = (HN[i * dim + j] - (gN[i] * gD[j] + gD[i] * gN[j]) * iD +
                          2.0 * f * gD[i] * gD[j] * iD - f * HD[i * dim + j]) *
                         iD;
  return f;
}

/* point-line f = |a x e|^2 / |e|^2 in u = (a, e): N = |a x e|^2 is cross2(a, e), D = |e|^2 */
static double form_pe(const double *u, double *g, double *H) {
  double gN[6], HN[36], gD[6] = {0}, HD[36] = {0};
  int need = g || H;
  double N = cross2(u, u + 3, need ? gN : NULL, H ? HN : NULL);
  double D = v3_norm2(u + 3);
  if (!need) return N / D;
  v3_scale(gD + 3, u + 3, 2.0);
  for (int i = 3; i < 6; ++i) HD[i * 6 + i] = 2.0;
  return quotient(6, N, gN, HN, D, gD, HD, g, H);
}

/* point-plane f = s^2 / c in u = (a, e1, e2), s = a . n, n = e1 x e2, c = |n|^2 (cross2):
 *   ds = (n, e2 x a, a x e1); d2s has zero diagonal blocks and (a,e1) = -[e2]x,
 *   (a,e2) = [e1]x, (e1,e2) = -[a]x (their transposes below the diagonal);
 *   N = s^2: dN = 2 s ds, d2N = 2 ds ds^T + 2 s d2s */
static double form_plane(const double *u, double *g, double *H) {
  const double *a = u, *e1 = u + 3, *e2 = u + 6;
  double n[3];
  v3_cross(n, e1, e2);
  double s = v3_dot(a, n);
  if (!g && !H) return s * s / v3_norm2(n);
  double ds[9], gN[9], HN[81], gc[6], Hc[36], gD[9] = {0}, HD[81] = {0};
  double c = cross2(e1, e2, gc, H ? Hc : NULL);
  v3_copy(ds, n);
  v3_cross(ds + 3, e2, a);
  v3_cross(ds + 6, a, e1);
  for (int i = 0; i < 9; ++i) gN[i] = 2.0 * s * ds[i];
  memcpy(gD + 3, gc, sizeof gc);
  if (H) {
    double M[9];
    for (int i = 0; i < 9; ++i)
      for (int j = 0; j < 9; ++j) HN[i * 9 + j] = 2.0 * ds[i] * ds[j];
    mat_iuv(M, 0.0, 0.0, a, a, -1.0, e2);
    blk_add(HN, 9, 0, 1, M, 2.0 * s);
    blk_add(HN, 9, 1, 0, M, -2.0 * s); /* [w]x^T = -[w]x */
    mat_iuv(M, 0.0, 0.0, a, a, 1.0, e1);
    blk_add(HN, 9, 0, 2, M, 2.0 * s);
    blk_add(HN, 9, 2, 0, M, -2.0 * s);
    mat_iuv(M, 0.0, 0.0, a, a, -1.0, a);
    blk_add(HN, 9, 1, 2, M, 2.0 * s);
    blk_add(HN, 9, 2, 1, M, -2.0 * s);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) HD[(3 + i) * 9 + 3 + j] = Hc[i * 6 + j];
  }
  return quotient(9, s * s, gN, HN, c, gD, HD, g, H);
}

/* Evaluate formula `form` on u_b = x[plus[b]] - x[minus[b]] and scatter its derivatives to the
 * npts-point stencil: grad_k = sum_b C_bk g_b, hess_kl = sum_bc C_bk C_cl H_bc. */
static double eval_form(const double *x, int npts, int form, const int *plus, const int *minus,
                        double *grad, double *hess) {
  double u[9], gu[9], Hu[81];
  for (int b = 0; b < form; ++b) v3_sub(u + 3 * b, x + 3 * plus[b], x + 3 * minus[b]);
  double *g = grad ? gu : NULL, *H = hess ? Hu : NULL;
  double f;
  if (form == FORM_PP) {
    f = v3_norm2(u);
    if (g) v3_scale(g, u, 2.0);
    if (H) {
      memset(H, 0, 9 * sizeof *H);
      H[0] = H[4] = H[8] = 2.0;
    }
  } else if (form == FORM_PE) {
    f = form_pe(u, g, H);
  } else {
    f = form_plane(u, g, H);
  }
  int dim = 3 * npts, ud = 3 * form;
  if (grad) {
    memset(grad, 0, (size_t)dim * sizeof *grad);
    for (int b = 0; b < form; ++b)
      for (int i = 0; i < 3; ++i) {
        grad[3 * plus[b] + i] += gu[3 * b + i];
        grad[3 * minus[b] + i] -= gu[3 * b + i];
      }
  }
  if (hess) {
    memset(hess, 0, (size_t)dim * (size_t)dim * sizeof *hess);
    for (int b = 0; b < form; ++b)
      for (int c = 0; c < form; ++c) {
        int rows[2] = {plus[b], minus[b]}, cols[2] = {plus[c], minus[c]};
        for (int r = 0; r < 2; ++r)
          for (int q = 0; q < 2; ++q) {
            double sg = (r == q) ? 1.0 : -1.0;
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j)
                hess[(3 * rows[r] + i) * dim + 3 * cols[q] + j] +=
                    sg * Hu[(3 * b + i) * ud + 3 * c + j];
          }
      }
  }
  return f;
}

double geom_pp_distance2(const double x[6], double *grad, double *hess) {
  static const int plus[1] = {0}, minus[1] = {1};
  return eval_form(x, 2, FORM_PP, plus, minus, grad, hess);
}

/* ---- point-edge ---- */

/* segment parameter of the projection of p on e0-e1; below 0 when the edge has no length */
static double seg_param(const double p[3], const double e0[3], const double e1[3]) {
  double e[3], a[3];
  v3_sub(e, e1, e0);
  v3_sub(a, p, e0);
  double ee = v3_norm2(e);
  if (!(ee > 0.0)) return -1.0;
  return v3_dot(a, e) / ee;
}

static geom_pe_type pe_classify3(const double p[3], const double e0[3], const double e1[3]) {
  double t = seg_param(p, e0, e1);
  if (t <= 0.0) return GEOM_PE_E0;
  if (t >= 1.0) return GEOM_PE_E1;
  return GEOM_PE_EDGE;
}

/* the value only, straight from three points */
static double pe_value3(const double p[3], const double e0[3], const double e1[3], geom_pe_type t) {
  double a[3], e[3], c[3];
  if (t != GEOM_PE_EDGE) {
    v3_sub(a, p, t == GEOM_PE_E0 ? e0 : e1);
    return v3_norm2(a);
  }
  v3_sub(a, p, e0);
  v3_sub(e, e1, e0);
  v3_cross(c, a, e);
  return v3_norm2(c) / v3_norm2(e);
}

geom_pe_type geom_pe_classify(const double x[9]) { return pe_classify3(x, x + 3, x + 6); }

double geom_pe_distance2_typed(const double x[9], geom_pe_type type, double *grad, double *hess) {
  static const int plus[3][2] = {{0}, {0}, {0, 2}}, minus[3][2] = {{1}, {2}, {1, 1}};
  int form = type == GEOM_PE_EDGE ? FORM_PE : FORM_PP;
  return eval_form(x, 3, form, plus[type], minus[type], grad, hess);
}

double geom_pe_distance2(const double x[9], geom_pe_type *out_type, double *grad, double *hess) {
  geom_pe_type t = geom_pe_classify(x);
  if (out_type) *out_type = t;
  return geom_pe_distance2_typed(x, t, grad, hess);
}

/* ---- point-triangle ---- */

/* the closest feature and its squared distance (*d2), by the same arithmetic as the typed
 * formula's (pe_value3, the plane's (a . n)^2 / |n|^2): the value equals
 * geom_pt_distance2_typed's bit for bit, so a value-only query needs no second evaluation */
static geom_pt_type pt_classify_value(const double x[12], double *d2) {
  const double *p = x, *t0 = x + 3, *t1 = x + 6, *t2 = x + 9;
  double e1[3], e2[3], a[3], n[3], w[3];
  v3_sub(e1, t1, t0);
  v3_sub(e2, t2, t0);
  v3_sub(a, p, t0);
  v3_cross(n, e1, e2);
  double nn = v3_norm2(n);
  /* barycentric coordinates of the projection: a x e2 = u n and e1 x a = v n in the plane */
  if (nn > GEOM_EE_PARALLEL_SIN2 * v3_norm2(e1) * v3_norm2(e2)) {
    v3_cross(w, a, e2);
    double u = v3_dot(w, n) / nn;
    v3_cross(w, e1, a);
    double v = v3_dot(w, n) / nn;
    if (u >= 0.0 && v >= 0.0 && u + v <= 1.0) {
      double an = v3_dot(a, n);
      *d2 = an * an / nn;
      return GEOM_PT_FACE;
    }
  }
  /* outside (or degenerate): the nearest of the three edges, each to a vertex or its interior */
  static const geom_pt_type as_pt[3][3] = {
      {GEOM_PT_T0, GEOM_PT_T1, GEOM_PT_E01},
      {GEOM_PT_T1, GEOM_PT_T2, GEOM_PT_E12},
      {GEOM_PT_T2, GEOM_PT_T0, GEOM_PT_E20},
  };
  const double *tv[3] = {t0, t1, t2};
  geom_pt_type best = GEOM_PT_T0;
  double dbest = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double *ea = tv[k], *eb = tv[(k + 1) % 3];
    geom_pe_type t = pe_classify3(p, ea, eb);
    double d = pe_value3(p, ea, eb, t);
    if (k == 0 || d < dbest) {
      dbest = d;
      best = as_pt[k][t];
    }
  }
  *d2 = dbest;
  return best;
}

geom_pt_type geom_pt_classify(const double x[12]) {
  double d2;
  return pt_classify_value(x, &d2);
}

double geom_pt_distance2_typed(const double x[12], geom_pt_type type, double *grad, double *hess) {
  /* stencil (p, t0, t1, t2) = points 0..3 */
  static const int forms[7] = {FORM_PP, FORM_PP, FORM_PP, FORM_PE, FORM_PE, FORM_PE, FORM_PLANE};
  static const int plus[7][3] = {{0}, {0}, {0}, {0, 2}, {0, 3}, {0, 1}, {0, 2, 3}};
  static const int minus[7][3] = {{1}, {2}, {3}, {1, 1}, {2, 2}, {3, 3}, {1, 1, 1}};
  return eval_form(x, 4, forms[type], plus[type], minus[type], grad, hess);
}

double geom_pt_distance2(const double x[12], geom_pt_type *out_type, double *grad, double *hess) {
  double d2;
  geom_pt_type t = pt_classify_value(x, &d2);
  if (out_type) *out_type = t;
  return grad || hess ? geom_pt_distance2_typed(x, t, grad, hess) : d2;
}

/* ---- edge-edge ---- */

/* as pt_classify_value: the value by the typed formula's arithmetic (an endpoint's difference
 * and an edge's cross product with their signs flipped, which squaring keeps bit for bit) */
static geom_ee_type ee_classify_value(const double x[12], double *d2) {
  const double *a0 = x, *a1 = x + 3, *b0 = x + 6, *b1 = x + 9;
  double ea[3], eb[3], r[3], n[3];
  v3_sub(ea, a1, a0);
  v3_sub(eb, b1, b0);
  v3_sub(r, a0, b0);
  v3_cross(n, ea, eb);
  double nn = v3_norm2(n), A = v3_norm2(ea), C = v3_norm2(eb);
  if (nn > GEOM_EE_PARALLEL_SIN2 * A * C) {
    /* the lines' closest parameters (a0 + s ea, b0 + t eb), denominator A C - B^2 = |n|^2 */
    double B = v3_dot(ea, eb), D = v3_dot(ea, r), E = v3_dot(eb, r);
    double s = (B * E - C * D) / nn, t = (A * E - B * D) / nn;
    if (s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0) {
      double rn = v3_dot(r, n);
      *d2 = rn * rn / nn;
      return GEOM_EE_EA_EB;
    }
  }
  /* otherwise the minimum lies on a boundary: an endpoint against the other segment */
  static const geom_ee_type as_ee[4][3] = {
      {GEOM_EE_A0_B0, GEOM_EE_A0_B1, GEOM_EE_A0_EB},
      {GEOM_EE_A1_B0, GEOM_EE_A1_B1, GEOM_EE_A1_EB},
      {GEOM_EE_A0_B0, GEOM_EE_A1_B0, GEOM_EE_EA_B0},
      {GEOM_EE_A0_B1, GEOM_EE_A1_B1, GEOM_EE_EA_B1},
  };
  const double *pts[4] = {a0, a1, b0, b1};
  const double *seg[4][2] = {{b0, b1}, {b0, b1}, {a0, a1}, {a0, a1}};
  geom_ee_type best = GEOM_EE_A0_B0;
  double dbest = 0.0;
  for (int k = 0; k < 4; ++k) {
    geom_pe_type t = pe_classify3(pts[k], seg[k][0], seg[k][1]);
    double d = pe_value3(pts[k], seg[k][0], seg[k][1], t);
    if (k == 0 || d < dbest) {
      dbest = d;
      best = as_ee[k][t];
    }
  }
  *d2 = dbest;
  return best;
}

geom_ee_type geom_ee_classify(const double x[12]) {
  double d2;
  return ee_classify_value(x, &d2);
}

double geom_ee_distance2_typed(const double x[12], geom_ee_type type, double *grad, double *hess) {
  /* stencil (ea0, ea1, eb0, eb1) = points 0..3 */
  static const int forms[9] = {FORM_PP, FORM_PP, FORM_PP, FORM_PP,   FORM_PE,
                               FORM_PE, FORM_PE, FORM_PE, FORM_PLANE};
  static const int plus[9][3] = {{0}, {0}, {1}, {1}, {2, 1}, {3, 1}, {0, 3}, {1, 3}, {2, 1, 3}};
  static const int minus[9][3] = {{2}, {3}, {2}, {3}, {0, 0}, {0, 0}, {2, 2}, {2, 2}, {0, 0, 2}};
  return eval_form(x, 4, forms[type], plus[type], minus[type], grad, hess);
}

double geom_ee_distance2(const double x[12], geom_ee_type *out_type, double *grad, double *hess) {
  double d2;
  geom_ee_type t = ee_classify_value(x, &d2);
  if (out_type) *out_type = t;
  return grad || hess ? geom_ee_distance2_typed(x, t, grad, hess) : d2;
}

/* ---- edge-edge mollifier (Li et al. 2020 sec. 4.3, eq. 22 and 23) ---- */

/* the paper's factor 1e-3 on the product of rest squared lengths */
static const double EE_MOLLIFIER_SCALE = 1e-3;

double geom_ee_mollifier_eps(const double x_rest[12]) {
  double ea[3], eb[3];
  v3_sub(ea, x_rest + 3, x_rest);
  v3_sub(eb, x_rest + 9, x_rest + 6);
  return EE_MOLLIFIER_SCALE * v3_norm2(ea) * v3_norm2(eb);
}

double geom_ee_mollifier(const double x[12], double eps_x, double *grad, double *hess) {
  double ea[3], eb[3], gc[6], Hc[36];
  v3_sub(ea, x + 3, x);
  v3_sub(eb, x + 9, x + 6);
  double c = cross2(ea, eb, (grad || hess) ? gc : NULL, hess ? Hc : NULL);
  if (grad) memset(grad, 0, 12 * sizeof *grad);
  if (hess) memset(hess, 0, 144 * sizeof *hess);
  if (c >= eps_x) return 1.0;
  /* m(c) = -c^2 / eps^2 + 2 c / eps, m' = 2 (1 - c / eps) / eps, m'' = -2 / eps^2 */
  double r = c / eps_x, m = (2.0 - r) * r;
  double dm = 2.0 * (1.0 - r) / eps_x, d2m = -2.0 / (eps_x * eps_x);
  /* u = (ea, eb) = (x1 - x0, x3 - x2): point 1 and 3 get +, points 0 and 2 get - */
  static const int plus[2] = {1, 3}, minus[2] = {0, 2};
  if (grad)
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 3; ++i) {
        grad[3 * plus[b] + i] += dm * gc[3 * b + i];
        grad[3 * minus[b] + i] -= dm * gc[3 * b + i];
      }
  if (hess)
    for (int b = 0; b < 2; ++b)
      for (int c2 = 0; c2 < 2; ++c2) {
        int rows[2] = {plus[b], minus[b]}, cols[2] = {plus[c2], minus[c2]};
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) {
            int bi = 3 * b + i, cj = 3 * c2 + j;
            /* d2m/du2 = m'' dc dc^T + m' d2c */
            double h = d2m * gc[bi] * gc[cj] + dm * Hc[bi * 6 + cj];
            for (int rr = 0; rr < 2; ++rr)
              for (int q = 0; q < 2; ++q)
                hess[(3 * rows[rr] + i) * 12 + 3 * cols[q] + j] += (rr == q ? h : -h);
          }
      }
  return m;
}

/* ---- point-plane ---- */

double geom_point_plane_signed(const double p[3], const double origin[3], const double n[3]) {
  double a[3];
  v3_sub(a, p, origin);
  return v3_dot(a, n);
}

double geom_point_plane_distance2(const double p[3], const double origin[3], const double n[3],
                                  double *grad, double *hess) {
  double d = geom_point_plane_signed(p, origin, n);
  if (grad) v3_scale(grad, n, 2.0 * d);
  if (hess)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) hess[3 * i + j] = 2.0 * n[i] * n[j];
  return d * d;
}
