/* SPDX-License-Identifier: MIT
 * ACCD (Li, Kaufman and Jiang 2021, supplemental Alg. 1). The mean displacement is subtracted
 * first: a common translation changes no distance, and what remains bounds how fast the
 * distance can shrink, l_p = |p_a| + max|p_b| over the two primitives' points (any point of a
 * segment or triangle moves by a convex combination of its vertices' displacements). So from a
 * time t with distance d, the distance stays at least xi + s'(d - xi) for a step of
 * (1 - s')(d - xi) / l_p: the algorithm walks forward by such steps, each provably safe, and
 * stops (returning the last accepted time) once the gap has shrunk below s (d0 - xi). */
#include "geom/ccd.h"

#include <math.h>
#include <string.h>

#include "core/vec3.h"
#include "geom/distance.h"

/* Alg. 1's step fraction after the first step: each step closes at most 90 % of the gap */
static const double ACCD_STEP_FRACTION = 0.9;

void geom_ccd_params_default(geom_ccd_params *p) {
  p->s = 0.1;
  p->thickness = 0.0;
  p->tmax = 1.0;
  p->max_iter = 50000;
}

/* the swept boxes of point set [0, split) and [split, 4) are apart by more than xi on an axis:
 * then no pair of their points (nor convex combinations) ever comes within xi */
static int swept_apart(const double x0[12], const double dx[12], int split, double xi) {
  for (int k = 0; k < 3; ++k) {
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int v = 0; v < 4; ++v) {
      int side = v >= split;
      double a = x0[3 * v + k], b = a + dx[3 * v + k];
      /* b first: b = a + dx is NaN where a is, and a NaN dx leaves a (as fmin(a, b) did) */
      lo[side] = tf_min(tf_min(b, a), lo[side]);
      hi[side] = tf_max(tf_max(b, a), hi[side]);
    }
    if (lo[0] > hi[1] + xi || lo[1] > hi[0] + xi) return 1;
  }
  return 0;
}

static double dist(const double x[12], int is_ee) {
  return sqrt(is_ee ? geom_ee_distance2(x, NULL, NULL, NULL)
                    : geom_pt_distance2(x, NULL, NULL, NULL));
}

/* Alg. 1; split = 1 for point-triangle (point | triangle), 2 for edge-edge */
static double accd(const double x0[12], const double dx[12], const geom_ccd_params *prm, int split,
                   int *out_hit) {
  double xi = prm->thickness, tmax = prm->tmax, s = prm->s;
  int is_ee = split == 2;
  if (out_hit) *out_hit = 0;
  if (swept_apart(x0, dx, split, xi)) return tmax;
  double d = dist(x0, is_ee);
  if (!(d > xi)) { /* starts in contact (or NaN input): no step is safe */
    if (out_hit) *out_hit = 1;
    return 0.0;
  }
  /* relative displacements p = dx - mean(dx) and the bound l_p on the distance's rate */
  double p[12], mean[3] = {0, 0, 0};
  for (int v = 0; v < 4; ++v) v3_axpy(mean, 0.25, dx + 3 * v);
  for (int v = 0; v < 4; ++v) v3_sub(p + 3 * v, dx + 3 * v, mean);
  double la = 0.0, lb = 0.0;
  for (int v = 0; v < 4; ++v) {
    double m = v3_norm(p + 3 * v);
    if (v < split)
      la = tf_max(m, la);
    else
      lb = tf_max(m, lb);
  }
  double lp = la + lb;
  if (!(lp > 0.0)) return tmax; /* a common translation: the distance never changes */

  double gap = s * (d - xi); /* stop once d - xi falls below this */
  double t = 0.0, tl = (1.0 - s) * (d - xi) / lp;
  double x[12];
  for (int it = 0; it < prm->max_iter; ++it) {
    double tn = tf_min(t + tl, tmax);
    for (int k = 0; k < 12; ++k) x[k] = x0[k] + tn * p[k];
    d = dist(x, is_ee);
    /* the first step is safe by construction (gap >= s (d0 - xi) in exact arithmetic), so it is
     * always taken, as in Alg. 1; later ones stop the walk once the gap is used up */
    if (!(d > xi) || (it > 0 && !(d - xi >= gap))) break;
    t = tn;
    if (t >= tmax) return tmax; /* every step up to tmax was safe */
    tl = ACCD_STEP_FRACTION * (d - xi) / lp;
  }
  if (out_hit) *out_hit = 1;
  return t;
}

double geom_ccd_pt(const double x0[12], const double dx[12], const geom_ccd_params *p,
                   int *out_hit) {
  return accd(x0, dx, p, 1, out_hit);
}

double geom_ccd_ee(const double x0[12], const double dx[12], const geom_ccd_params *p,
                   int *out_hit) {
  return accd(x0, dx, p, 2, out_hit);
}
