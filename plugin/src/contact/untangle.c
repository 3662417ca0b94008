/* SPDX-License-Identifier: MIT
 * Untangling a surface that crosses itself along a line through both layers (two sheets of a
 * garment modelled through each other): intersection contour minimization (Volino &
 * Magnenat-Thalmann 2006, "Resolving surface collisions through intersection contour
 * minimization"). Where the layers cross, their intersection is a polyline, the contour; its
 * points are the surface's edges through its triangles, and each of its segments is where two
 * triangles meet. Moving the vertices down the gradient of the contour's length shrinks it until
 * it vanishes and the layers are apart. This is the way out where the local vote (self.c) has
 * none: the contour of two sheets crossed along a line bounds no region on either sheet, so
 * neither side is "inside", but its ends can always be pulled in.
 *
 * The gradient, for a contour point X where edge (x_v, x_w), d = x_w - x_v, crosses triangle t
 * (unit normal n, X = x_v + s d = sum_i beta_i x_i): to first order X moves as
 *     dX = dE + d n.(dP - dE) / (n.d),   dE = (1 - s) dx_v + s dx_w,   dP = sum_i beta_i dx_i
 * (X stays on the edge and in t's plane), so with g = dL/dX (the sum of the unit vectors to X from
 * its neighbours along the contour) and h = (g.d) / (n.d):
 *     dL/dx_v = (1 - s)(g - h n),   dL/dx_w = s (g - h n),   dL/dx_i = beta_i h n.
 * Each segment joins two contour points; each point adds its own end's share, so a segment is
 * counted once from each end and no list of segments is needed. */
#include <math.h>

#include "contact/contact.h"
#include "core/vec3.h"
#include "geom/crossing.h"
#include "sim/sim.h"

/* |h| at most this times |g|: an edge within ~14 degrees of the triangle's plane moves its
 * crossing far along the edge for a small step across the plane, and would take the whole step */
static const double UNTANGLE_H_MAX = 4.0;

static const double *at(const double *x, int i) { return x + 3 * (size_t)i; }

/* edge (v, w) through triangle t at x: the contour point X, s along v -> w, the weights on t and
 * t's unit normal; 0 when it does not cross */
static int crossing_at(const sim_contact *c, const double *x, int v, int w, uint32_t t, double X[3],
                       double *s, double beta[3], double n[3]) {
  const int *tv = c->tris + 3 * (size_t)t;
  if (v == tv[0] || v == tv[1] || v == tv[2] || w == tv[0] || w == tv[1] || w == tv[2]) return 0;
  if (!geom_segment_crosses(at(x, v), at(x, w), at(x, tv[0]), at(x, tv[1]), at(x, tv[2]))) return 0;
  if (!geom_segment_plane_point(at(x, v), at(x, w), at(x, tv[0]), at(x, tv[1]), at(x, tv[2]), s,
                                beta, n))
    return 0;
  double d[3];
  v3_sub(d, at(x, w), at(x, v));
  for (int k = 0; k < 3; ++k) X[k] = x[3 * (size_t)v + k] + *s * d[k];
  return 1;
}

/* the other end Y of the contour's segment through triangles f and t, f holding the crossing edge
 * (v, w): f's other two edges through t, or t's three edges through f; 0 when none crosses */
static int other_end(const sim_contact *c, const double *x, uint32_t f, uint32_t t, int v, int w,
                     double Y[3]) {
  const int *fv = c->tris + 3 * (size_t)f, *tv = c->tris + 3 * (size_t)t;
  int third = fv[0] != v && fv[0] != w ? fv[0] : fv[1] != v && fv[1] != w ? fv[1] : fv[2];
  double s, beta[3], n[3];
  if (crossing_at(c, x, v, third, t, Y, &s, beta, n) ||
      crossing_at(c, x, w, third, t, Y, &s, beta, n))
    return 1;
  for (int k = 0; k < 3; ++k)
    if (crossing_at(c, x, tv[k], tv[(k + 1) % 3], f, Y, &s, beta, n)) return 1;
  return 0;
}

void contact_contour_gradient(const tf_sim *s, const double *x, uint32_t v, uint32_t w, uint32_t t,
                              double *grad) {
  const sim_contact *c = s->contact;
  double X[3], sv, beta[3], n[3], g[3] = {0, 0, 0};
  if (!crossing_at(c, x, (int)v, (int)w, t, X, &sv, beta, n)) return;
  const int *tv = c->tris + 3 * (size_t)t;
  /* the faces on the edge (one on a border: the contour ends there) */
  for (uint32_t q = c->vtri_start[v]; q < c->vtri_start[v + 1]; ++q) {
    uint32_t f = c->vtri[q];
    const int *fv = c->tris + 3 * (size_t)f;
    if (fv[0] != (int)w && fv[1] != (int)w && fv[2] != (int)w) continue;
    double Y[3], u[3];
    if (!other_end(c, x, f, t, (int)v, (int)w, Y)) continue;
    v3_sub(u, X, Y);
    double len = v3_norm(u);
    if (len > 0.0) v3_axpy(g, 1.0 / len, u);
  }
  double d[3], a[3];
  v3_sub(d, at(x, (int)w), at(x, (int)v));
  double nd = v3_dot(n, d), gn = v3_norm(g);
  if (!(gn > 0.0) || nd == 0.0) return;
  double h = v3_dot(g, d) / nd;
  h = fmax(-UNTANGLE_H_MAX * gn, fmin(UNTANGLE_H_MAX * gn, h));
  for (int k = 0; k < 3; ++k) a[k] = g[k] - h * n[k];
  v3_axpy(grad + 3 * (size_t)v, 1.0 - sv, a);
  v3_axpy(grad + 3 * (size_t)w, sv, a);
  for (int k = 0; k < 3; ++k) v3_axpy(grad + 3 * (size_t)tv[k], beta[k] * h, n);
}
