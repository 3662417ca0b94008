/* SPDX-License-Identifier: MIT
 * The contact geometry layer (plugin/src/geom): distances against a brute-force minimization
 * over the primitives' parameters, gradients and Hessians against central finite differences,
 * the edge-edge mollifier, additive CCD against an independent first-contact time (dense time
 * sampling of the coplanarity determinant, then an exact-sign check at its roots, and an exact
 * segment-triangle test for swept shapes), the broad phase against O(n^2) enumeration, and the
 * independent intersection check the contact tests will rely on. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/pool.h"
#include "core/vec3.h"
#include "geom/broad.h"
#include "geom/ccd.h"
#include "geom/crossing.h"
#include "geom/distance.h"
#include "intersect_check.h"
#include "tf_test.h"

static double frand(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return (double)(*s >> 8) / (double)(1u << 24) * 2.0 - 1.0;
}

/* ---- brute force distances: zoom a grid over the parameters (convex, so it converges) ---- */

static double sq3(const double *a, const double *b) {
  double d[3];
  v3_sub(d, a, b);
  return v3_norm2(d);
}

/* min over (u, v) in [0,1]^2 (pt: u + v <= 1) of |P(u) - Q(v)|^2 by a shrinking grid */
static double brute_min(const double x[12], int is_pt) {
  const int N = 40;
  double cu = 0.5, cv = 0.5, w = 0.5, best = INFINITY;
  for (int level = 0; level < 40; ++level) {
    double bu = cu, bv = cv;
    for (int i = 0; i <= N; ++i)
      for (int j = 0; j <= N; ++j) {
        double u = fmin(1.0, fmax(0.0, cu - w + 2.0 * w * i / N));
        double v = fmin(1.0, fmax(0.0, cv - w + 2.0 * w * j / N));
        double P[3], Q[3];
        if (is_pt) {
          if (u + v > 1.0) continue;
          for (int k = 0; k < 3; ++k) {
            P[k] = x[k];
            Q[k] = x[3 + k] + u * (x[6 + k] - x[3 + k]) + v * (x[9 + k] - x[3 + k]);
          }
        } else {
          for (int k = 0; k < 3; ++k) {
            P[k] = x[k] + u * (x[3 + k] - x[k]);
            Q[k] = x[6 + k] + v * (x[9 + k] - x[6 + k]);
          }
        }
        double d = sq3(P, Q);
        if (d < best) {
          best = d;
          bu = u;
          bv = v;
        }
      }
    cu = bu;
    cv = bv;
    w *= 0.3;
  }
  return best;
}

/* random stencil; kind picks a degenerate family now and then */
static void random_config(unsigned *seed, double x[12], int kind) {
  for (int k = 0; k < 12; ++k) x[k] = frand(seed);
  switch (kind % 8) {
    case 1: /* collinear triangle / parallel edges */
      for (int k = 0; k < 3; ++k) x[9 + k] = x[6 + k] + 0.7 * (x[6 + k] - x[3 + k]);
      if (kind % 16 == 9)
        for (int k = 0; k < 3; ++k) x[9 + k] = x[6 + k] + 0.7 * (x[3 + k] - x[k]);
      break;
    case 2: /* zero-length edge */
      for (int k = 0; k < 3; ++k) x[9 + k] = x[6 + k];
      break;
    case 3: /* point in the triangle's plane / coplanar edges */
      for (int k = 0; k < 3; ++k)
        x[k] = x[3 + k] + 0.4 * (x[6 + k] - x[3 + k]) + 0.9 * (x[9 + k] - x[3 + k]);
      break;
    case 4: /* nearly parallel edges, offset */
      for (int k = 0; k < 3; ++k)
        x[9 + k] = x[6 + k] + 1.3 * (x[3 + k] - x[k]) + 1e-9 * frand(seed);
      break;
    case 5: /* tiny scale */
      for (int k = 0; k < 12; ++k) x[k] *= 1e-4;
      break;
    default:
      break;
  }
}

TF_TEST(geom_distance_vs_brute_force) {
  unsigned seed = 17;
  double worst_pt = 0.0, worst_ee = 0.0;
  int types_pt[7] = {0}, types_ee[9] = {0};
  for (int trial = 0; trial < 1500; ++trial) {
    double x[12];
    random_config(&seed, x, trial);
    double scale = 0.0;
    for (int k = 0; k < 12; ++k) scale = fmax(scale, fabs(x[k]));
    geom_pt_type tp;
    geom_ee_type te;
    double dpt = geom_pt_distance2(x, &tp, NULL, NULL);
    double dee = geom_ee_distance2(x, &te, NULL, NULL);
    double bpt = brute_min(x, 1), bee = brute_min(x, 0);
    /* a value-only query (the classification's own value) is the typed formula's, bit for bit:
     * the candidates' filters and the barrier's evaluation agree on every pair */
    double g[12];
    ENSURE_MSG(dpt == geom_pt_distance2_typed(x, tp, g, NULL), "pt trial %d type %d", trial,
               (int)tp);
    ENSURE_MSG(dee == geom_ee_distance2_typed(x, te, g, NULL), "ee trial %d type %d", trial,
               (int)te);
    types_pt[tp]++;
    types_ee[te]++;
    /* the exact minimum is never above the sampled one and the sampled one converges to it */
    double ept = fabs(dpt - bpt) / (scale * scale), eee = fabs(dee - bee) / (scale * scale);
    ENSURE_MSG(ept < 1e-9, "pt trial %d type %d: %.17g vs brute %.17g", trial, (int)tp, dpt, bpt);
    ENSURE_MSG(eee < 1e-9, "ee trial %d type %d: %.17g vs brute %.17g", trial, (int)te, dee, bee);
    worst_pt = fmax(worst_pt, ept);
    worst_ee = fmax(worst_ee, eee);
  }
  TF_NOTE(
      "1500 configs (1/8 each collinear, zero-length, coplanar, near-parallel, tiny): max "
      "|d2 - brute| / L^2 pt %.1e ee %.1e",
      worst_pt, worst_ee);
  TF_NOTE("pt types T0 T1 T2 E01 E12 E20 F: %d %d %d %d %d %d %d", types_pt[0], types_pt[1],
          types_pt[2], types_pt[3], types_pt[4], types_pt[5], types_pt[6]);
  TF_NOTE("ee types A0B0 A0B1 A1B0 A1B1 EAB0 EAB1 A0EB A1EB EAEB: %d %d %d %d %d %d %d %d %d",
          types_ee[0], types_ee[1], types_ee[2], types_ee[3], types_ee[4], types_ee[5], types_ee[6],
          types_ee[7], types_ee[8]);
  for (int k = 0; k < 7; ++k) ENSURE(types_pt[k] > 0);
  for (int k = 0; k < 9; ++k) ENSURE(types_ee[k] > 0);
}

TF_TEST(geom_distance_classification_cases) {
  /* triangle (0,0,0) (1,0,0) (0,1,0); the point in each Voronoi region */
  static const double pts[7][3] = {{-1, -1, 0.3}, {2, -0.5, 0.2}, {-0.5, 2, -0.1}, {0.5, -1, 1},
                                   {1, 1, 0.5},   {-1, 0.5, -2},  {0.2, 0.2, 0.7}};
  for (int k = 0; k < 7; ++k) {
    double x[12] = {pts[k][0], pts[k][1], pts[k][2], 0, 0, 0, 1, 0, 0, 0, 1, 0};
    ENSURE_MSG(geom_pt_classify(x) == (geom_pt_type)k, "region %d gave %d", k,
               (int)geom_pt_classify(x));
  }
  double xf[12] = {0.2, 0.2, 0.7, 0, 0, 0, 1, 0, 0, 0, 1, 0};
  ENSURE_NEAR(geom_pt_distance2(xf, NULL, NULL, NULL), 0.49, 1e-15);
  /* A along x at z = 1 from x = a0..a1, B along y at z = 0, x = bx, y from 0 to 1 */
  struct {
    double a0, a1, bx, by0, by1;
    geom_ee_type want;
  } ee[] = {
      {1, 2, 0, 1, 2, GEOM_EE_A0_B0},   {1, 2, 0, -2, -1, GEOM_EE_A0_B1},
      {-2, -1, 0, 1, 2, GEOM_EE_A1_B0}, {-2, -1, 0, -2, -1, GEOM_EE_A1_B1},
      {-1, 1, 0, 1, 2, GEOM_EE_EA_B0},  {-1, 1, 0, -2, -1, GEOM_EE_EA_B1},
      {1, 2, 0, -1, 1, GEOM_EE_A0_EB},  {-2, -1, 0, -1, 1, GEOM_EE_A1_EB},
      {-1, 1, 0, -1, 1, GEOM_EE_EA_EB},
  };
  for (int k = 0; k < 9; ++k) {
    double x[12] = {ee[k].a0, 0, 1, ee[k].a1, 0, 1, ee[k].bx, ee[k].by0, 0, ee[k].bx, ee[k].by1, 0};
    ENSURE_MSG(geom_ee_classify(x) == ee[k].want, "ee case %d gave %d", k,
               (int)geom_ee_classify(x));
  }
  /* exactly parallel edges overlapping: distance from the endpoints, never the line formula */
  double xp[12] = {0, 0, 0, 2, 0, 0, 1, 0.5, 0, 3, 0.5, 0};
  geom_ee_type t;
  ENSURE_NEAR(geom_ee_distance2(xp, &t, NULL, NULL), 0.25, 1e-15);
  ENSURE(t != GEOM_EE_EA_EB);
  /* point-plane */
  double o[3] = {0, 0, 1}, n[3] = {0, 0, 1}, p[3] = {3, 4, -1}, g[3], H[9];
  ENSURE_NEAR(geom_point_plane_signed(p, o, n), -2.0, 0);
  ENSURE_NEAR(geom_point_plane_distance2(p, o, n, g, H), 4.0, 0);
  ENSURE_NEAR(g[2], -4.0, 0);
  ENSURE_NEAR(H[8], 2.0, 0);
  ENSURE_NEAR(H[0], 0.0, 0);
}

/* ---- derivatives against central differences ---- */

typedef double (*dist_fn)(const double *x, int type, double *g, double *H);
static double f_pt(const double *x, int t, double *g, double *H) {
  return geom_pt_distance2_typed(x, (geom_pt_type)t, g, H);
}
static double f_ee(const double *x, int t, double *g, double *H) {
  return geom_ee_distance2_typed(x, (geom_ee_type)t, g, H);
}
static double f_pe(const double *x, int t, double *g, double *H) {
  return geom_pe_distance2_typed(x, (geom_pe_type)t, g, H);
}
static double f_pp(const double *x, int t, double *g, double *H) {
  (void)t;
  return geom_pp_distance2(x, g, H);
}
static double f_moll(const double *x, int t, double *g, double *H) {
  (void)t;
  return geom_ee_mollifier(x, 0.05, g, H); /* eps_x fixed: c < eps for the test configs */
}

/* max relative errors of the gradient and the Hessian against central differences at x */
static void fd_check(dist_fn f, int type, const double *x, int n, double *eg, double *eh) {
  double g[12], H[144], gp[12], gm[12];
  f(x, type, g, H);
  double gmax = 1e-300, hmax = 1e-300;
  for (int k = 0; k < n; ++k) gmax = fmax(gmax, fabs(g[k]));
  for (int k = 0; k < n * n; ++k) hmax = fmax(hmax, fabs(H[k]));
  *eg = *eh = 0.0;
  for (int k = 0; k < n; ++k) {
    const double h = 1e-6;
    double xp[12], xm[12];
    memcpy(xp, x, (size_t)n * sizeof *x);
    memcpy(xm, x, (size_t)n * sizeof *x);
    xp[k] += h;
    xm[k] -= h;
    double fd = (f(xp, type, NULL, NULL) - f(xm, type, NULL, NULL)) / (2 * h);
    *eg = fmax(*eg, fabs(fd - g[k]) / gmax);
    f(xp, type, gp, NULL);
    f(xm, type, gm, NULL);
    for (int i = 0; i < n; ++i)
      *eh = fmax(*eh, fabs((gp[i] - gm[i]) / (2 * h) - H[n * i + k]) / hmax);
  }
  /* the Hessian is symmetric */
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) *eh = fmax(*eh, fabs(H[n * i + j] - H[n * j + i]) / hmax);
}

TF_TEST(geom_distance_derivatives_fd) {
  unsigned seed = 23;
  double worst_g = 0.0, worst_h = 0.0;
  struct {
    dist_fn f;
    int types, n;
    const char *name;
  } fam[] = {{f_pt, 7, 12, "pt"}, {f_ee, 9, 12, "ee"}, {f_pe, 3, 9, "pe"}, {f_pp, 1, 6, "pp"}};
  for (int fi = 0; fi < 4; ++fi)
    for (int type = 0; type < fam[fi].types; ++type) {
      double wg = 0.0, wh = 0.0;
      for (int trial = 0; trial < 40; ++trial) {
        double x[12], eg, eh;
        for (int k = 0; k < 12; ++k) x[k] = frand(&seed);
        fd_check(fam[fi].f, type, x, fam[fi].n, &eg, &eh);
        wg = fmax(wg, eg);
        wh = fmax(wh, eh);
      }
      ENSURE_MSG(wg < 1e-6 && wh < 1e-6, "%s type %d: grad %.2e hess %.2e", fam[fi].name, type, wg,
                 wh);
      worst_g = fmax(worst_g, wg);
      worst_h = fmax(worst_h, wh);
    }
  TF_NOTE("all 20 distance formulas, 40 configs each: max rel err grad %.1e, Hessian %.1e", worst_g,
          worst_h);
  ENSURE(worst_h > 0.0); /* the check compared something */
}

TF_TEST(geom_mollifier) {
  unsigned seed = 29;
  double wg = 0.0, wh = 0.0, mmin = 1.0;
  for (int trial = 0; trial < 200; ++trial) {
    /* near-parallel edges so c = |ea x eb|^2 < eps = 0.05 */
    double x[12], eg, eh;
    for (int k = 0; k < 6; ++k) x[k] = frand(&seed);
    for (int k = 0; k < 3; ++k) {
      x[6 + k] = x[k] + 0.3 * frand(&seed);
      x[9 + k] = x[6 + k] + (x[3 + k] - x[k]) * (0.8 + 0.2 * frand(&seed)) + 0.1 * frand(&seed);
    }
    double m = geom_ee_mollifier(x, 0.05, NULL, NULL);
    if (m >= 1.0) continue;
    mmin = fmin(mmin, m);
    fd_check(f_moll, 0, x, 12, &eg, &eh);
    wg = fmax(wg, eg);
    wh = fmax(wh, eh);
  }
  TF_NOTE("mollifier, near-parallel edges: max rel err grad %.1e Hessian %.1e (min m %.3f)", wg, wh,
          mmin);
  ENSURE(wg < 1e-6 && wh < 1e-6);
  ENSURE(mmin < 0.5);
  /* eps_x from rest lengths 2 and 3: 1e-3 * 4 * 9 */
  double rest[12] = {0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 1, 3};
  ENSURE_NEAR(geom_ee_mollifier_eps(rest), 0.036, 1e-15);
  /* perpendicular: c = 36 >= eps, m = 1, zero derivatives; parallel: m = 0 */
  double g[12], H[144];
  ENSURE_NEAR(geom_ee_mollifier(rest, 0.036, g, H), 1.0, 0);
  for (int k = 0; k < 12; ++k) ENSURE(g[k] == 0.0);
  double par[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 1, 0};
  ENSURE_NEAR(geom_ee_mollifier(par, 0.036, NULL, NULL), 0.0, 0);
  /* C1 at c = eps: value 1 and slope 0 from below */
  double eps = 1e-2, ang = asin(sqrt(eps)) * (1.0 - 1e-9);
  double xb[12] = {0, 0, 0, 1, 0, 0, 0, 0, 1, cos(ang), sin(ang), 1};
  ENSURE_NEAR(geom_ee_mollifier(xb, eps, g, NULL), 1.0, 1e-12);
  for (int k = 0; k < 12; ++k) ENSURE(fabs(g[k]) < 1e-6);
}

/* ---- CCD against an independent first contact ---- */

typedef long double ld;

/* det[b - a, c - a, d - a] in long double */
static ld det4(const double *a, const double *b, const double *c, const double *d) {
  ld u[3], v[3], w[3];
  for (int k = 0; k < 3; ++k) {
    u[k] = (ld)b[k] - a[k];
    v[k] = (ld)c[k] - a[k];
    w[k] = (ld)d[k] - a[k];
  }
  return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
         u[2] * (v[0] * w[1] - v[1] * w[0]);
}

static void at_time(const double *x0, const double *dx, double t, double *x) {
  for (int k = 0; k < 12; ++k) x[k] = x0[k] + t * dx[k];
}

/* at a coplanar instant: do the primitives meet? pt: the point inside the triangle (in-plane
 * barycentric signs); ee: the lines' closest parameters inside both segments */
static int meets(const double *x, int is_ee) {
  ld e1[3], e2[3], a[3];
  for (int k = 0; k < 3; ++k) {
    if (!is_ee) {
      e1[k] = (ld)x[6 + k] - x[3 + k];
      e2[k] = (ld)x[9 + k] - x[3 + k];
      a[k] = (ld)x[k] - x[3 + k];
    } else {
      e1[k] = (ld)x[3 + k] - x[k];
      e2[k] = (ld)x[9 + k] - x[6 + k];
      a[k] = (ld)x[6 + k] - x[k];
    }
  }
  ld A = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2];
  ld B = e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2];
  ld C = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
  ld D = e1[0] * a[0] + e1[1] * a[1] + e1[2] * a[2];
  ld E = e2[0] * a[0] + e2[1] * a[1] + e2[2] * a[2];
  ld den = A * C - B * B;
  if (!(den > 0)) return 0;
  if (!is_ee) { /* a = u e1 + v e2 */
    ld u = (C * D - B * E) / den, v = (A * E - B * D) / den;
    return u >= 0 && v >= 0 && u + v <= 1;
  }
  /* a0 + s e1 = b0 + t e2: s = (C D - B E)/den, t = (B D - A E)/den */
  ld s = (C * D - B * E) / den, t = (B * D - A * E) / den;
  return s >= 0 && s <= 1 && t >= 0 && t <= 1;
}

/* first t in [0, 1] where the primitives meet, 2 if none: the coplanarity determinant sampled
 * densely in time, each sign change bisected, then the meeting test at the root */
static double first_contact(const double *x0, const double *dx, int is_ee) {
  const int N = 2000;
  double x[12];
  at_time(x0, dx, 0.0, x);
  ld fprev = det4(x, x + 3, x + 6, x + 9);
  for (int i = 1; i <= N; ++i) {
    double t1 = (double)i / N;
    at_time(x0, dx, t1, x);
    ld f = det4(x, x + 3, x + 6, x + 9);
    if ((fprev <= 0 && f >= 0) || (fprev >= 0 && f <= 0)) {
      double lo = (double)(i - 1) / N, hi = t1;
      ld flo = fprev;
      for (int it = 0; it < 80; ++it) {
        double mid = 0.5 * (lo + hi);
        at_time(x0, dx, mid, x);
        ld fm = det4(x, x + 3, x + 6, x + 9);
        if ((flo <= 0 && fm <= 0) || (flo >= 0 && fm >= 0)) {
          lo = mid;
          flo = fm;
        } else {
          hi = mid;
        }
      }
      at_time(x0, dx, hi, x);
      if (meets(x, is_ee)) return lo;
      at_time(x0, dx, lo, x);
      if (meets(x, is_ee)) return lo;
    }
    fprev = f;
  }
  return 2.0;
}

TF_TEST(geom_ccd_random_trajectories) {
  unsigned seed = 31;
  geom_ccd_params prm;
  geom_ccd_params_default(&prm);
  const int TRIALS = 4000;
  for (int is_ee = 0; is_ee < 2; ++is_ee) {
    int contacts = 0, exact_checked = 0;
    double ratio_sum = 0.0, free_sum = 0.0, iters_ok = 0;
    int n_free = 0;
    for (int trial = 0; trial < TRIALS; ++trial) {
      double x0[12], dx[12], x1[12];
      for (int k = 0; k < 12; ++k) x0[k] = frand(&seed);
      for (int k = 0; k < 12; ++k) dx[k] = 1.5 * frand(&seed);
      /* a quarter with a static triangle / a rigidly translating edge A and static edge B, where
       * the swept shape is exact and the segment-triangle test decides */
      int kind = trial % 4 == 0;
      if (kind) {
        if (!is_ee) {
          for (int k = 3; k < 12; ++k) dx[k] = 0.0;
        } else {
          for (int k = 0; k < 3; ++k) dx[3 + k] = dx[k];
          for (int k = 6; k < 12; ++k) dx[k] = 0.0;
        }
      }
      /* half are aimed: the point (a point of A) passes near a random point of the triangle
       * (of B) at t = 0.5, so about half of those really hit */
      if (trial % 2 == 0) {
        double xm[12], u = 0.5 * (1 + frand(&seed)), v = 0.5 * (1 + frand(&seed)), q[3], a[3];
        at_time(x0, dx, 0.5, xm);
        if (!is_ee && u + v > 1) {
          u = 1 - u;
          v = 1 - v;
        }
        for (int k = 0; k < 3; ++k) {
          if (!is_ee) {
            q[k] = xm[3 + k] + u * (xm[6 + k] - xm[3 + k]) + v * (xm[9 + k] - xm[3 + k]);
            a[k] = xm[k];
          } else {
            q[k] = xm[6 + k] + v * (xm[9 + k] - xm[6 + k]);
            a[k] = xm[k] + u * (xm[3 + k] - xm[k]);
          }
          double off = 2.0 * (q[k] - a[k] + 0.05 * frand(&seed));
          dx[k] += off;
          if (is_ee) dx[3 + k] += off;
        }
      }
      int hit;
      double t = is_ee ? geom_ccd_ee(x0, dx, &prm, &hit) : geom_ccd_pt(x0, dx, &prm, &hit);
      double tc = first_contact(x0, dx, is_ee);
      ENSURE_MSG(t >= 0.0 && t <= 1.0, "t %.17g", t);
      ENSURE_MSG(t < tc, "%s trial %d: ccd t %.17g at or past contact %.17g", is_ee ? "ee" : "pt",
                 trial, t, tc);
      if (tc <= 1.0) {
        ENSURE(hit);
        contacts++;
        ratio_sum += t / tc;
      } else {
        free_sum += t;
        n_free++;
      }
      iters_ok += hit ? 0 : 1;
      if (kind) {
        exact_checked++;
        at_time(x0, dx, t, x1);
        if (!is_ee) {
          /* the point's path over [0, t] must not meet the static triangle */
          ENSURE(!ic_segment_triangle(x0, x1, x0 + 3, x0 + 6, x0 + 9));
          double xe[12];
          at_time(x0, dx, 1.0, xe);
          if (ic_segment_triangle(x0, xe, x0 + 3, x0 + 6, x0 + 9)) ENSURE(hit);
        } else {
          /* the parallelogram swept by A over [0, t] must not meet B */
          ENSURE(!ic_segment_triangle(x0 + 6, x0 + 9, x0, x0 + 3, x1 + 3));
          ENSURE(!ic_segment_triangle(x0 + 6, x0 + 9, x0, x1 + 3, x1));
        }
      }
    }
    TF_NOTE(
        "%s: %d random trajectories, %d reach contact (%d exact swept checks): mean "
        "t_ccd / t_contact %.3f; contact-free mean t %.3f; %d report no hit",
        is_ee ? "edge-edge" : "point-triangle", TRIALS, contacts, exact_checked,
        ratio_sum / (contacts ? contacts : 1), free_sum / (n_free ? n_free : 1), (int)iters_ok);
    ENSURE(contacts > TRIALS / 10);
    ENSURE(ratio_sum / contacts > 0.7); /* not absurdly conservative */
  }
}

TF_TEST(geom_ccd_special_cases) {
  geom_ccd_params prm;
  geom_ccd_params_default(&prm);
  int hit;
  double tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  double x0[12], dx[12] = {0};
  /* head-on: the point crosses the face at t = 0.5 */
  double p0[3] = {0.2, 0.2, 1};
  memcpy(x0, p0, sizeof p0);
  memcpy(x0 + 3, tri, sizeof tri);
  dx[2] = -2.0;
  double t = geom_ccd_pt(x0, dx, &prm, &hit);
  ENSURE(hit && t < 0.5 && t > 0.4);
  /* and with a thickness of 0.2 it stops before distance 0.2 (t = 0.4) */
  prm.thickness = 0.2;
  t = geom_ccd_pt(x0, dx, &prm, &hit);
  ENSURE(hit && t < 0.4 && t > 0.3);
  prm.thickness = 0.0;
  /* through a vertex exactly at t = 0.5 */
  double pv[3] = {-0.5, -0.5, 1}, dv[3] = {1, 1, -2};
  memcpy(x0, pv, sizeof pv);
  memcpy(dx, dv, sizeof dv);
  t = geom_ccd_pt(x0, dx, &prm, &hit);
  ENSURE(hit && t < 0.5 && t > 0.3);
  /* coplanar sliding into an edge at t = 0.5 */
  double ps[3] = {0.3, -1, 0}, ds[3] = {0, 2, 0};
  memcpy(x0, ps, sizeof ps);
  memcpy(dx, ds, sizeof ds);
  t = geom_ccd_pt(x0, dx, &prm, &hit);
  ENSURE(hit && t < 0.5 && t > 0.3);
  /* grazing: the point passes 1e-9 above an edge, tilted so no box test can decide */
  double pg[3] = {0.5, -1, 1 - 1e-9}, dg[3] = {0, 2, -2};
  memcpy(x0, pg, sizeof pg);
  memcpy(dx, dg, sizeof dg);
  t = geom_ccd_pt(x0, dx, &prm, &hit);
  ENSURE(t < 0.5 + 1e-9); /* never past the near-touch; here it must not overshoot */
  /* start touching (distance 0) and start inside the thickness: t = 0 */
  double pt0[3] = {0.2, 0.2, 0};
  memcpy(x0, pt0, sizeof pt0);
  memset(dx, 0, sizeof dx);
  dx[2] = 1.0;
  ENSURE(geom_ccd_pt(x0, dx, &prm, &hit) == 0.0 && hit);
  x0[2] = 0.05;
  prm.thickness = 0.1;
  ENSURE(geom_ccd_pt(x0, dx, &prm, &hit) == 0.0 && hit);
  prm.thickness = 0.0;
  /* zero motion and a common translation: the whole step, no hit */
  memset(dx, 0, sizeof dx);
  ENSURE(geom_ccd_pt(x0, dx, &prm, &hit) == 1.0 && !hit);
  for (int v = 0; v < 4; ++v) v3_set(dx + 3 * v, 0.3, -5, -7);
  ENSURE(geom_ccd_pt(x0, dx, &prm, &hit) == 1.0 && !hit);
  /* tmax: a contact after tmax is not searched for */
  memcpy(x0, p0, sizeof p0);
  memset(dx, 0, sizeof dx);
  dx[2] = -2.0;
  prm.tmax = 0.3;
  ENSURE(geom_ccd_pt(x0, dx, &prm, &hit) == 0.3 && !hit);
  prm.tmax = 1.0;

  /* edge-edge: parallel edges approaching, meeting at t = 0.5 */
  double xe[12] = {0, 0, 1, 1, 0, 1, 0.5, 0, 0, 1.5, 0, 0}, de[12] = {0, 0, -2, 0, 0, -2};
  t = geom_ccd_ee(xe, de, &prm, &hit);
  ENSURE(hit && t < 0.5 && t > 0.4);
  /* collinear, end to end: A's end reaches B's start at t = 0.5 */
  double xc[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0}, dc[12] = {2, 0, 0, 2, 0, 0};
  t = geom_ccd_ee(xc, dc, &prm, &hit);
  ENSURE(hit && t < 0.5 && t > 0.4);
  /* crossing edges (perpendicular), A sweeps down through B at t = 0.25 */
  double xp[12] = {-1, 0, 0.5, 1, 0, 0.5, 0, -1, 0, 0, 1, 0}, dp[12] = {0, 0, -2, 0, 0, -2};
  t = geom_ccd_ee(xp, dp, &prm, &hit);
  ENSURE(hit && t < 0.25 && t > 0.2);
  /* parallel sliding past at constant distance 0.1: no contact, the step is kept whole */
  double xs[12] = {0, 0, 0.1, 1, 0, 0.1, 2, 0, 0, 3, 0, 0}, dsl[12] = {4, 0, 0, 4, 0, 0};
  t = geom_ccd_ee(xs, dsl, &prm, &hit);
  ENSURE(t > 0.9 || !hit);
  /* a fallback after max_iter is still safe (and small) */
  prm.max_iter = 2;
  t = geom_ccd_ee(xp, dp, &prm, &hit);
  ENSURE(hit && t < 0.25);
}

/* ---- broad phase against O(n^2) ---- */

typedef struct test_mesh {
  int nv, nt, ne;
  double *x0, *x1;
  int *tris, *edges;
} test_mesh;

static void mesh_free(test_mesh *m) {
  free(m->x0);
  free(m->x1);
  free(m->tris);
  free(m->edges);
}

static void mesh_edges(test_mesh *m) {
  m->edges = malloc(sizeof(int) * 6 * (size_t)m->nt);
  m->ne = 0;
  for (int t = 0; t < m->nt; ++t)
    for (int k = 0; k < 3; ++k) {
      int a = m->tris[3 * t + k], b = m->tris[3 * t + (k + 1) % 3];
      int lo = a < b ? a : b, hi = a < b ? b : a, dup = 0;
      for (int e = 0; e < m->ne && !dup; ++e)
        dup = m->edges[2 * e] == lo && m->edges[2 * e + 1] == hi;
      if (!dup) {
        m->edges[2 * m->ne] = lo;
        m->edges[2 * m->ne + 1] = hi;
        m->ne++;
      }
    }
}

/* n x n vertex grid in [-1,1]^2 at height z, jittered, moving by up to `motion` */
static void make_cloth(test_mesh *m, int n, double z, double jitter, double motion,
                       unsigned *seed) {
  m->nv = n * n;
  m->nt = 2 * (n - 1) * (n - 1);
  m->x0 = malloc(sizeof(double) * 3 * (size_t)m->nv);
  m->x1 = malloc(sizeof(double) * 3 * (size_t)m->nv);
  m->tris = malloc(sizeof(int) * 3 * (size_t)m->nt);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double *p = m->x0 + 3 * (i * n + j);
      v3_set(p, -1 + 2.0 * i / (n - 1) + jitter * frand(seed),
             -1 + 2.0 * j / (n - 1) + jitter * frand(seed), z + jitter * frand(seed));
      for (int k = 0; k < 3; ++k) m->x1[3 * (i * n + j) + k] = p[k] + motion * frand(seed);
    }
  int t = 0;
  for (int i = 0; i + 1 < n; ++i)
    for (int j = 0; j + 1 < n; ++j) {
      int a = i * n + j, b = a + 1, c = a + n, d = c + 1;
      int tv[6] = {a, c, b, b, c, d};
      memcpy(m->tris + 3 * t, tv, sizeof tv);
      t += 2;
    }
  mesh_edges(m);
}

/* UV sphere of radius r at the origin, static */
static void make_sphere(test_mesh *m, int rings, int segs, double r) {
  m->nv = 2 + (rings - 1) * segs;
  m->nt = 2 * segs * (rings - 1);
  m->x0 = malloc(sizeof(double) * 3 * (size_t)m->nv);
  m->x1 = NULL;
  m->tris = malloc(sizeof(int) * 3 * (size_t)m->nt);
  v3_set(m->x0, 0, 0, r);
  v3_set(m->x0 + 3, 0, 0, -r);
  for (int i = 1; i < rings; ++i)
    for (int j = 0; j < segs; ++j) {
      double th = TF_PI * i / rings, ph = 2 * TF_PI * j / segs;
      v3_set(m->x0 + 3 * (2 + (i - 1) * segs + j), r * sin(th) * cos(ph), r * sin(th) * sin(ph),
             r * cos(th));
    }
  int t = 0;
  for (int j = 0; j < segs; ++j) {
    int j1 = (j + 1) % segs;
    int top[3] = {0, 2 + j, 2 + j1},
        bot[3] = {1, 2 + (rings - 2) * segs + j1, 2 + (rings - 2) * segs + j};
    memcpy(m->tris + 3 * t++, top, sizeof top);
    memcpy(m->tris + 3 * t++, bot, sizeof bot);
    for (int i = 1; i + 1 < rings; ++i) {
      int a = 2 + (i - 1) * segs + j, b = 2 + (i - 1) * segs + j1, c = a + segs, d = b + segs;
      int tv[6] = {a, c, b, b, c, d};
      memcpy(m->tris + 3 * t, tv, sizeof tv);
      t += 2;
    }
  }
  mesh_edges(m);
}

static broad_mesh view(const test_mesh *m) {
  broad_mesh v = {m->x0, m->x1, m->nv, m->tris, m->nt, m->edges, m->ne};
  return v;
}

static void ref_box(const test_mesh *m, const int *idx, int k, double h, double box[6]) {
  for (int c = 0; c < 3; ++c) {
    box[c] = INFINITY;
    box[3 + c] = -INFINITY;
  }
  for (int i = 0; i < k; ++i)
    for (int e = 0; e < 2; ++e) {
      const double *p = (e && m->x1 ? m->x1 : m->x0) + 3 * idx[i];
      for (int c = 0; c < 3; ++c) {
        box[c] = fmin(box[c], p[c] - h);
        box[3 + c] = fmax(box[3 + c], p[c] + h);
      }
    }
}

/* brute-force candidates; returns count, pairs in (a, b) order (the loops are sorted) */
static size_t brute_pairs(const test_mesh *qa, const test_mesh *gb, int ee, int self, double infl,
                          broad_pair *out) {
  size_t n = 0;
  int nq = ee ? qa->ne : qa->nv, ng = ee ? gb->ne : gb->nt, gk = ee ? 2 : 3, qk = ee ? 2 : 1;
  for (int i = 0; i < nq; ++i) {
    int qv[2] = {ee ? qa->edges[2 * i] : i, ee ? qa->edges[2 * i + 1] : i};
    double qbx[6], gbx[6];
    ref_box(qa, qv, qk, 0.5 * infl, qbx);
    for (int j = 0; j < ng; ++j) {
      const int *gv = ee ? gb->edges + 2 * j : gb->tris + 3 * j;
      if (self) {
        if (ee && j <= i) continue;
        int shared = 0;
        for (int a = 0; a < qk; ++a)
          for (int c = 0; c < gk; ++c) shared |= qv[a] == gv[c];
        if (shared) continue;
      }
      ref_box(gb, gv, gk, 0.5 * infl, gbx);
      int ov = 1;
      for (int c = 0; c < 3; ++c) ov &= !(qbx[c] > gbx[3 + c] || gbx[c] > qbx[3 + c]);
      if (ov) {
        out[n].a = i;
        out[n].b = j;
        n++;
      }
    }
  }
  return n;
}

/* broad equals brute force, pairs within the inflation at t0 are present, small buffers report
 * the count, and a repeated query allocates nothing */
static int check_broad(broad *b, const test_mesh *qa, const test_mesh *gb, int ee, double infl,
                       size_t *out_n) {
  int self = qa == gb;
  size_t cap = (size_t)(ee ? qa->ne : qa->nv) * (size_t)(ee ? gb->ne : gb->nt);
  broad_pair *ref = malloc(sizeof *ref * cap + 1), *got = malloc(sizeof *got * cap + 1);
  size_t nref = brute_pairs(qa, gb, ee, self, infl, ref), n = 0, n2 = 0;
  broad_mesh va = view(qa), vb = view(gb);
  const broad_mesh *pb = self ? &va : &vb;
  tf_status s = ee ? broad_edge_edge(b, &va, pb, infl, got, cap, &n)
                   : broad_vertex_tri(b, &va, pb, infl, got, cap, &n);
  int ok = s == TF_OK && n == nref && memcmp(ref, got, n * sizeof *got) == 0;
  if (!ok) fprintf(stderr, "  broad %zu pairs vs brute %zu\n", n, nref);
  /* everything truly within the inflation at t0 is a candidate */
  for (size_t k = 0, c = 0; ok && k < (size_t)(ee ? qa->ne : qa->nv); ++k)
    for (int j = 0; j < (ee ? gb->ne : gb->nt); ++j) {
      double x[12];
      const int *gv = ee ? gb->edges + 2 * j : gb->tris + 3 * j;
      if (ee) {
        memcpy(x, qa->x0 + 3 * qa->edges[2 * k], 3 * sizeof *x);
        memcpy(x + 3, qa->x0 + 3 * qa->edges[2 * k + 1], 3 * sizeof *x);
        for (int v = 0; v < 2; ++v) memcpy(x + 6 + 3 * v, gb->x0 + 3 * gv[v], 3 * sizeof *x);
      } else {
        memcpy(x, qa->x0 + 3 * k, 3 * sizeof *x);
        for (int v = 0; v < 3; ++v) memcpy(x + 3 + 3 * v, gb->x0 + 3 * gv[v], 3 * sizeof *x);
      }
      double d2 =
          ee ? geom_ee_distance2(x, NULL, NULL, NULL) : geom_pt_distance2(x, NULL, NULL, NULL);
      if (d2 > 0.99 * infl * infl) continue;
      int excluded = 0;
      if (self) {
        if (ee && j <= (int)k) continue;
        for (int v = 0; v < (ee ? 2 : 3); ++v)
          excluded |=
              ee ? (gv[v] == qa->edges[2 * k] || gv[v] == qa->edges[2 * k + 1]) : gv[v] == (int)k;
      }
      if (excluded) continue;
      while (c < n && (got[c].a < (int)k || (got[c].a == (int)k && got[c].b < j))) c++;
      ok = c < n && got[c].a == (int)k && got[c].b == j;
      if (!ok) fprintf(stderr, "  pair (%zu, %d) at distance %g missing\n", k, j, sqrt(d2));
    }
  /* small buffers: the needed count comes back, repeatedly and without allocating */
  uint64_t allocs = b->mem->alloc_count;
  if (ok && nref > 0) {
    s = ee ? broad_edge_edge(b, &va, pb, infl, got, nref - 1, &n2)
           : broad_vertex_tri(b, &va, pb, infl, got, nref - 1, &n2);
    ok = s == TF_OK && n2 == nref;
    s = ee ? broad_edge_edge(b, &va, pb, infl, NULL, 0, &n2)
           : broad_vertex_tri(b, &va, pb, infl, NULL, 0, &n2);
    ok = ok && s == TF_OK && n2 == nref && b->mem->alloc_count == allocs;
  }
  free(ref);
  free(got);
  *out_n = nref;
  return ok;
}

TF_TEST(geom_broad_vs_brute_force) {
  unsigned seed = 41;
  tf_mem mem;
  mem_init(&mem, NULL);
  broad b;
  broad_init(&b, &mem);
  ENSURE(broad_reserve(&b, 64, 512) == TF_OK);
  uint64_t allocs0 = mem.alloc_count;
  size_t n;
  for (int trial = 0; trial < 6; ++trial) {
    /* crumpled random sheets (heavy jitter and motion make a tangled soup) against each other */
    test_mesh a, c;
    make_cloth(&a, 6 + trial, 0.0, 0.3, 0.2 * trial, &seed);
    make_cloth(&c, 5 + trial, 0.1, 0.4, 0.1, &seed);
    double infl = 0.02 + 0.05 * trial;
    b.cell_size = trial == 5 ? 0.013 : 0.0; /* also a tiny given cell: big boxes go brute force */
    ENSURE_MSG(check_broad(&b, &a, &c, 0, infl, &n), "trial %d vt", trial);
    ENSURE_MSG(check_broad(&b, &c, &a, 0, infl, &n), "trial %d tv", trial);
    ENSURE_MSG(check_broad(&b, &a, &c, 1, infl, &n), "trial %d ee", trial);
    ENSURE_MSG(check_broad(&b, &a, &a, 0, infl, &n), "trial %d self vt", trial);
    ENSURE_MSG(check_broad(&b, &a, &a, 1, infl, &n), "trial %d self ee", trial);
    mesh_free(&a);
    mesh_free(&c);
  }
  b.cell_size = 0.0;
  /* a falling cloth grid over a sphere mesh */
  test_mesh cloth, sph;
  make_cloth(&cloth, 24, 0.55, 0.0, 0.0, &seed);
  for (int v = 0; v < cloth.nv; ++v) cloth.x1[3 * v + 2] = cloth.x0[3 * v + 2] - 0.1;
  make_sphere(&sph, 16, 24, 0.5);
  size_t nvt, ntv, nee, nself;
  ENSURE(check_broad(&b, &cloth, &sph, 0, 0.01, &nvt));
  ENSURE(check_broad(&b, &sph, &cloth, 0, 0.01, &ntv));
  ENSURE(check_broad(&b, &cloth, &sph, 1, 0.01, &nee));
  ENSURE(check_broad(&b, &cloth, &cloth, 1, 0.01, &nself));
  TF_NOTE(
      "cloth 24x24 (%d tris) falling 0.1 onto sphere (%d tris), inflation 0.01: %zu vt, %zu tv, "
      "%zu ee, %zu self-ee candidates; scratch grown by queries %llu times (%llu allocs since "
      "reserve)",
      cloth.nt, sph.nt, nvt, ntv, nee, nself, (unsigned long long)b.grow_count,
      (unsigned long long)(mem.alloc_count - allocs0));
  ENSURE(nvt > 0 && nee > 0);
  mesh_free(&cloth);
  mesh_free(&sph);
  broad_free(&b);
  ENSURE(mem.live_bytes == 0);
}

/* a query through a cache gives what a fresh query gives, pair for pair and in order, over a
 * cloth moving a little (the cache answers, allocating nothing) and then a lot (it is rebuilt),
 * for every kind of query: vertex-triangle both ways, edge-edge, and the self queries; then on
 * three threads with a sheet whose caches hold enough pairs for the filter to run in chunks on
 * the pool */
TF_TEST(geom_broad_cache_equals_fresh_queries) {
  for (int threaded = 0; threaded < 2; ++threaded) {
    unsigned seed = 7;
    tf_mem mem;
    mem_init(&mem, NULL);
    tf_pool *pool = threaded ? pool_create(&mem, 3) : NULL;
    ENSURE(!threaded || pool);
    broad b;
    broad_init(&b, &mem);
    b.pool = pool;
    test_mesh cloth, sph;
    make_cloth(&cloth, threaded ? 48 : 20, 0.52, 0.0, 0.0, &seed);
    make_sphere(&sph, 12, 16, 0.5);
    double *base = malloc(sizeof(double) * 3 * (size_t)cloth.nv);
    memcpy(base, cloth.x0, sizeof(double) * 3 * (size_t)cloth.nv);
    enum { KINDS = 5 };
    broad_cache cache[KINDS];
    for (int k = 0; k < KINDS; ++k) broad_cache_init(&cache[k], &mem);
    size_t cap = 400000, chunked = 0;
    broad_pair *fresh = malloc(sizeof *fresh * cap), *got = malloc(sizeof *got * cap);
    broad_mesh vc = view(&cloth), vs = view(&sph);
    uint64_t hit_allocs = 0, total = 0;
    for (int q = 0; q < 60; ++q) {
      /* drifting down by 1 mm a query with 0.2 mm of noise, and every 20th a jump of 5 cm */
      double drop = 0.001 * q + (q >= 20 ? 0.05 : 0.0) + (q >= 40 ? 0.05 : 0.0);
      for (int v = 0; v < cloth.nv; ++v)
        for (int k = 0; k < 3; ++k) {
          cloth.x0[3 * v + k] = base[3 * v + k] + 2e-4 * frand(&seed) - (k == 2 ? drop : 0.0);
          cloth.x1[3 * v + k] = cloth.x0[3 * v + k] + (k == 2 ? -0.004 : 0.0);
        }
      double infl = 0.02 + 0.002 * (q % 3);
      for (int k = 0; k < KINDS; ++k) {
        /* 0: cloth vertices / sphere triangles, 1: the other way, 2: edges, 3 and 4: self */
        const broad_mesh *qa = k == 1 ? &vs : &vc, *gb = k == 0 || k == 2 ? &vs : &vc;
        int ee = k == 2 || k == 4;
        size_t nf = 0, ng = 0;
        tf_status s1 = ee ? broad_edge_edge(&b, qa, gb, infl, fresh, cap, &nf)
                          : broad_vertex_tri(&b, qa, gb, infl, fresh, cap, &nf);
        uint64_t hits = cache[k].hits, allocs = mem.alloc_count;
        tf_status s2 = ee ? broad_edge_edge_cached(&b, &cache[k], qa, gb, infl, got, cap, &ng)
                          : broad_vertex_tri_cached(&b, &cache[k], qa, gb, infl, got, cap, &ng);
        if (cache[k].hits > hits) hit_allocs += mem.alloc_count - allocs;
        if (cache[k].count >= 2 * BROAD_FILTER_CHUNK) chunked++;
        ENSURE(s1 == TF_OK && s2 == TF_OK && nf <= cap);
        ENSURE_MSG(ng == nf && memcmp(fresh, got, nf * sizeof *got) == 0,
                   "%s, query %d kind %d: %zu cached pairs against %zu fresh",
                   threaded ? "three threads" : "one thread", q, k, ng, nf);
        /* a buffer too small: the count comes back, from the cache too, and the pairs that fit
         * are the first ones */
        if (nf > 1) {
          ee ? broad_edge_edge_cached(&b, &cache[k], qa, gb, infl, got, nf - 1, &ng)
             : broad_vertex_tri_cached(&b, &cache[k], qa, gb, infl, got, nf - 1, &ng);
          ENSURE(ng == nf && memcmp(fresh, got, (nf - 1) * sizeof *got) == 0);
        }
        total += nf;
      }
    }
    uint64_t hits = 0, misses = 0;
    for (int k = 0; k < KINDS; ++k) hits += cache[k].hits, misses += cache[k].misses;
    TF_NOTE(
        "%s: 60 queries x 5 kinds, %llu pairs: %llu answered by the cache, %llu rebuilds, %zu "
        "filtered in chunks",
        threaded ? "three threads" : "one thread", (unsigned long long)total,
        (unsigned long long)hits, (unsigned long long)misses, chunked);
    /* the jumps and the drift past the widening rebuild; most queries are answered */
    ENSURE(misses >= 3 * KINDS && hits > 4 * misses);
    ENSURE(hit_allocs == 0);
    ENSURE(total > 1000);
    if (threaded) ENSURE(chunked > 50); /* the filter ran on the pool */
    for (int k = 0; k < KINDS; ++k) broad_cache_free(&cache[k]);
    free(fresh);
    free(got);
    free(base);
    mesh_free(&cloth);
    mesh_free(&sph);
    broad_free(&b);
    pool_destroy(&mem, pool);
    ENSURE(mem.live_bytes == 0);
  }
}

/* a query on three threads (the item loop in chunks, each into its region, core/pool.h) gives a
 * one-thread query's pairs in its order, for every kind: on the first query (no regions yet:
 * every chunk runs again on the caller's thread), once the regions are sized, when a jump
 * overflows them, and into a buffer too small (the count comes back). The regions together hold
 * at most twice the largest query's pairs: where the sheet meets the sphere a few chunks hold
 * most of them, and one size for all (a quarter more than the fullest chunk's) had made the
 * regions 2.44x the largest query here (1.36x each sized by its own) */
TF_TEST(geom_broad_threads_equal_one_thread) {
  unsigned seed = 11;
  tf_mem mem;
  mem_init(&mem, NULL);
  tf_pool *pool = pool_create(&mem, 3);
  ENSURE(pool != NULL);
  broad one, three;
  broad_init(&one, &mem);
  broad_init(&three, &mem);
  three.pool = pool;
  test_mesh cloth, sph;
  make_cloth(&cloth, 40, 0.52, 0.0, 0.0, &seed);
  make_sphere(&sph, 16, 24, 0.5);
  size_t cap = 400000;
  broad_pair *ref = malloc(sizeof *ref * cap), *got = malloc(sizeof *got * cap);
  broad_mesh vc = view(&cloth), vs = view(&sph);
  size_t total = 0, largest = 0;
  for (int q = 0; q < 4; ++q) {
    /* a drop of 5 mm, then 6 mm, then a swept fall of 15 cm (bigger boxes, more pairs) */
    double fall = q == 3 ? 0.15 : 0.005 + 0.001 * q;
    for (int v = 0; v < cloth.nv; ++v) cloth.x1[3 * v + 2] = cloth.x0[3 * v + 2] - fall;
    for (int k = 0; k < 5 && pool; ++k) {
      const broad_mesh *qa = k == 1 ? &vs : &vc, *gb = k == 0 || k == 2 ? &vs : &vc;
      int ee = k == 2 || k == 4;
      size_t n1 = 0, n3 = 0;
      tf_status s1 = ee ? broad_edge_edge(&one, qa, gb, 0.02, ref, cap, &n1)
                        : broad_vertex_tri(&one, qa, gb, 0.02, ref, cap, &n1);
      tf_status s3 = ee ? broad_edge_edge(&three, qa, gb, 0.02, got, cap, &n3)
                        : broad_vertex_tri(&three, qa, gb, 0.02, got, cap, &n3);
      ENSURE(s1 == TF_OK && s3 == TF_OK && n1 <= cap);
      ENSURE_MSG(n3 == n1 && memcmp(ref, got, n1 * sizeof *got) == 0,
                 "query %d kind %d: %zu pairs on three threads, %zu on one", q, k, n3, n1);
      if (n1 > 1) {
        s3 = ee ? broad_edge_edge(&three, qa, gb, 0.02, got, n1 / 2, &n3)
                : broad_vertex_tri(&three, qa, gb, 0.02, got, n1 / 2, &n3);
        ENSURE(s3 == TF_OK && n3 == n1);
      }
      total += n1;
      if (n1 > largest) largest = n1;
    }
  }
  size_t regions = 0;
  for (int c = 0; c < BROAD_CHUNKS; ++c) regions += three.part_cap[c];
  TF_NOTE(
      "4 queries x 5 kinds on a 40 x 40 cloth: %zu pairs, the same on three threads; the "
      "threads' regions hold %zu pairs, %.2fx the largest query's %zu",
      total, regions, (double)regions / (double)largest, largest);
  ENSURE(total > 20000);
  ENSURE_MSG(regions <= 2 * largest, "regions of %zu pairs for queries of at most %zu", regions,
             largest);
  free(ref);
  free(got);
  mesh_free(&cloth);
  mesh_free(&sph);
  broad_free(&one);
  broad_free(&three);
  pool_destroy(&mem, pool);
  ENSURE(mem.live_bytes == 0);
}

/* ---- the independent intersection check ---- */

/* the library's own crossing test (geom/crossing.c) where a segment lies (nearly) in the
 * triangle's plane: a flat sheet on the ground, its heights 1e-12 m apart. The first case is a
 * torn sheet's edge and a triangle 6 cm beside it (tests/ensemble.sh, seed 3 of
 * tear_with_ground_and_self_contact): read as a crossing, as the line through the edge runs
 * along the triangle's top edge, where every triple product is rounding */
TF_TEST(geom_segment_crosses_near_its_plane) {
  const double p[3] = {0.25000501929552799, 0.25005856542059307, -0.0014591852528431531},
               q[3] = {0.31249826614507697, 0.25005639106614652, -0.0014591852520777053},
               a[3] = {0.1250168257893618, 0.18754556882261117, -0.0014591881014064296},
               b[3] = {0.18751176940757006, 0.25006102336198427, -0.0014591852536640125},
               c[3] = {0.12501835200204775, 0.25006351524729553, -0.001459185254345292};
  ENSURE(!geom_segment_crosses(p, q, a, b, c));
  ENSURE(!geom_segment_crosses(q, p, c, b, a));
  const double A[3] = {0, 0, 0}, B[3] = {1, 0, 0}, C[3] = {0, 1, 0};
  struct {
    double p[3], q[3];
    int want;
  } cs[] = {
      {{0.1, 0.2, -1e-9}, {0.3, 0.2, 1e-9}, 1},   /* 1e-8 rad from the plane, through the face */
      {{0.7, 0.7, -1e-9}, {0.9, 0.7, 1e-9}, 0},   /* the same beside the hypotenuse */
      {{-0.3, 0.0, -1e-9}, {-0.1, 0.0, 1e-9}, 0}, /* along an edge's line, short of it */
      {{0.2, 0.2, 1}, {0.2, 0.2, -1}, 1},         /* through the face */
      {{0.8, 0.8, 1}, {0.8, 0.8, -1}, 0},         /* beside it */
  };
  for (int k = 0; k < (int)(sizeof cs / sizeof cs[0]); ++k) {
    ENSURE_MSG(geom_segment_crosses(cs[k].p, cs[k].q, A, B, C) == cs[k].want, "case %d", k);
    ENSURE_MSG(geom_segment_crosses(cs[k].q, cs[k].p, C, B, A) == cs[k].want, "case %d reversed",
               k);
  }
}

TF_TEST(geom_intersect_check_cases) {
  double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0};
  struct {
    double p[3], q[3];
    int want;
  } cs[] = {
      {{0.2, 0.2, 1}, {0.2, 0.2, -1}, 1},  /* through the face */
      {{0.8, 0.8, 1}, {0.8, 0.8, -1}, 0},  /* beside the hypotenuse */
      {{0, 0, 1}, {0, 0, -1}, 1},          /* through a vertex */
      {{0.5, 0, 1}, {0.5, 0, -1}, 1},      /* through an edge */
      {{0.2, 0.2, 1}, {0.2, 0.2, 0.1}, 0}, /* stops short */
      {{0.2, 0.2, 0.5}, {0.2, 0.2, 0}, 1}, /* ends on the face */
      {{-1, 0.2, 0.1}, {2, 0.2, 0.1}, 0},  /* parallel above */
      {{-1, 0.2, 0}, {2, 0.2, 0}, 1},      /* coplanar crossing */
      {{-1, 2, 0}, {2, 2, 0}, 0},          /* coplanar disjoint */
      {{0.1, 0.1, 0}, {0.2, 0.1, 0}, 1},   /* coplanar inside */
      {{-1, 0, 0}, {-0.5, 0, 0}, 0},       /* collinear with an edge, short of it */
      {{-1, 0, 0}, {0, 0, 0}, 1},          /* collinear, touching the vertex */
  };
  for (int k = 0; k < (int)(sizeof cs / sizeof cs[0]); ++k) {
    ENSURE_MSG(ic_segment_triangle(cs[k].p, cs[k].q, a, b, c) == cs[k].want, "case %d", k);
    ENSURE_MSG(ic_segment_triangle(cs[k].q, cs[k].p, c, b, a) == cs[k].want, "case %d reversed", k);
  }
  /* two unit quads crossing at right angles: the x-z quad's edge at z = 0.5... */
  double xa[12] = {-1, -1, 0, 1, -1, 0, -1, 1, 0, 1, 1, 0};
  int ta[6] = {0, 1, 2, 1, 3, 2};
  double xb[12] = {-0.5, 0, -1, 0.5, 0, -1, -0.5, 0, 1, 0.5, 0, 1};
  int tb[6] = {0, 1, 2, 1, 3, 2};
  long n = ic_count_crossings(xa, 4, ta, 2, xb, 4, tb, 2);
  ENSURE_MSG(n > 0, "crossing quads: %ld", n);
  for (int v = 0; v < 4; ++v) xb[3 * v + 2] += 3.0; /* lifted clear */
  ENSURE(ic_count_crossings(xa, 4, ta, 2, xb, 4, tb, 2) == 0);
  /* self: a flat sheet has none; push one corner through the sheet far away from it */
  unsigned seed = 5;
  test_mesh s;
  make_cloth(&s, 5, 0.0, 0.0, 0.0, &seed);
  ENSURE(ic_count_crossings(s.x0, s.nv, s.tris, s.nt, NULL, 0, NULL, 0) == 0);
  /* fold: row 3 lifted, row 4 brought back under rows 0-1, so the row 3-4 edges cross the
   * flat strip between rows 1 and 2, which shares no vertex with them */
  for (int j = 0; j < 5; ++j) {
    double *p = s.x0 + 3 * (4 * 5 + j);
    v3_set(p, -0.8, p[1], -0.3);
  }
  for (int j = 0; j < 5; ++j) {
    double *p = s.x0 + 3 * (3 * 5 + j);
    p[2] = 0.4;
  }
  long self = ic_count_crossings(s.x0, s.nv, s.tris, s.nt, NULL, 0, NULL, 0);
  TF_NOTE("folded 5x5 sheet pushed through itself: %ld edge-triangle crossings", self);
  ENSURE(self > 0);
  mesh_free(&s);
}
