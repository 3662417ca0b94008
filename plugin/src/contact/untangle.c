/* SPDX-License-Identifier: MIT
 * Untangling a surface that crosses itself or a collider along a line (two sheets of a garment
 * modelled through each other, a cape modelled through a two-sided body): intersection contour
 * minimization (Volino & Magnenat-Thalmann 2006, "Resolving surface collisions through
 * intersection contour minimization"). Where two surfaces cross, their intersection is a
 * polyline, the contour; its points are the edges of each through the triangles of the other, and
 * each of its segments is where two triangles meet. Moving the vertices down the gradient of the
 * contour's length shrinks it until it vanishes and the layers are apart. This is the way out
 * where the local vote (self.c) has none: the contour of two sheets crossed along a line bounds no
 * region on either sheet, so neither side is "inside", but its ends can always be pulled in.
 *
 * The gradient, for a contour point X where edge (x_v, x_w), d = x_w - x_v, crosses triangle t
 * (unit normal n, X = x_v + s d = sum_i beta_i x_i): to first order X moves as
 *     dX = dE + d n.(dP - dE) / (n.d),   dE = (1 - s) dx_v + s dx_w,   dP = sum_i beta_i dx_i
 * (X stays on the edge and in t's plane), so with g = dL/dX (the sum of the unit vectors to X from
 * its neighbours along the contour) and h = (g.d) / (n.d):
 *     dL/dx_v = (1 - s)(g - h n),   dL/dx_w = s (g - h n),   dL/dx_i = beta_i h n.
 * Each segment joins two contour points; each point adds its own end's share, so a segment is
 * counted once from each end and no list of segments is needed. A collider's points are not
 * unknowns: against it, only the cloth's share moves. */
#include <math.h>
#include <string.h>

#include "contact/contact.h"
#include "core/vec3.h"
#include "geom/crossing.h"
#include "sim/sim.h"

/* |h| at most this times |g|: an edge within ~14 degrees of the triangle's plane moves its
 * crossing far along the edge for a small step across the plane, and would take the whole step */
static const double UNTANGLE_H_MAX = 4.0;

/* how far the contour's gradient moves its vertices in a step: this share of the mean length of
 * their edges (the contour then shrinks by about an edge in two steps) */
static const double CONTOUR_STEP = 0.5;

/* one side of a crossing: the simulated surface, or a collider at its pose */
typedef struct surface {
  const double *x;
  const int *tris;
  const uint32_t *vtri_start, *vtri; /* each vertex's triangles */
} surface;

static const double *at(const surface *m, int i) { return m->x + 3 * (size_t)i; }

/* edge (v, w) of E through triangle t of T: the contour point X, s along v -> w, the weights on t
 * and t's unit normal; 0 when it does not cross (or, on one surface, shares a vertex with t) */
static int crossing_at(const surface *E, int v, int w, const surface *T, uint32_t t, double X[3],
                       double *s, double beta[3], double n[3]) {
  const int *tv = T->tris + 3 * (size_t)t;
  if (E == T && (v == tv[0] || v == tv[1] || v == tv[2] || w == tv[0] || w == tv[1] || w == tv[2]))
    return 0;
  const double *a = at(T, tv[0]), *b = at(T, tv[1]), *c = at(T, tv[2]);
  if (!geom_segment_crosses(at(E, v), at(E, w), a, b, c)) return 0;
  if (!geom_segment_plane_point(at(E, v), at(E, w), a, b, c, s, beta, n)) return 0;
  double d[3];
  v3_sub(d, at(E, w), at(E, v));
  for (int k = 0; k < 3; ++k) X[k] = at(E, v)[k] + *s * d[k];
  return 1;
}

/* the other end Y of the contour's segment through triangle f of E (holding the crossing edge
 * (v, w)) and triangle t of T: f's other two edges through t, or t's three edges through f; 0
 * when none crosses */
static int other_end(const surface *E, uint32_t f, int v, int w, const surface *T, uint32_t t,
                     double Y[3]) {
  const int *fv = E->tris + 3 * (size_t)f, *tv = T->tris + 3 * (size_t)t;
  int third = fv[0] != v && fv[0] != w ? fv[0] : fv[1] != v && fv[1] != w ? fv[1] : fv[2];
  double s, beta[3], n[3];
  if (crossing_at(E, v, third, T, t, Y, &s, beta, n) ||
      crossing_at(E, w, third, T, t, Y, &s, beta, n))
    return 1;
  for (int k = 0; k < 3; ++k)
    if (crossing_at(T, tv[k], tv[(k + 1) % 3], E, f, Y, &s, beta, n)) return 1;
  return 0;
}

/* the contour point where edge (v, w) of E crosses triangle t of T: its share of the gradient of
 * the contour's length, E's part into gE and T's into gT (each Nullable: a collider's) */
static void point_gradient(const surface *E, int v, int w, const surface *T, uint32_t t, double *gE,
                           double *gT) {
  double X[3], sv, beta[3], n[3], g[3] = {0, 0, 0};
  if (!crossing_at(E, v, w, T, t, X, &sv, beta, n)) return;
  /* the faces on the edge (one on a border: the contour ends there) */
  for (uint32_t q = E->vtri_start[v]; q < E->vtri_start[v + 1]; ++q) {
    uint32_t f = E->vtri[q];
    const int *fv = E->tris + 3 * (size_t)f;
    if (fv[0] != w && fv[1] != w && fv[2] != w) continue;
    double Y[3], u[3];
    if (!other_end(E, f, v, w, T, t, Y)) continue;
    v3_sub(u, X, Y);
    double len = v3_norm(u);
    if (len > 0.0) v3_axpy(g, 1.0 / len, u);
  }
  double d[3], a[3];
  v3_sub(d, at(E, w), at(E, v));
  double nd = v3_dot(n, d), gn = v3_norm(g);
  if (!(gn > 0.0) || nd == 0.0) return;
  double h = v3_dot(g, d) / nd;
  h = fmax(-UNTANGLE_H_MAX * gn, fmin(UNTANGLE_H_MAX * gn, h));
  for (int k = 0; k < 3; ++k) a[k] = g[k] - h * n[k];
  if (gE) {
    v3_axpy(gE + 3 * (size_t)v, 1.0 - sv, a);
    v3_axpy(gE + 3 * (size_t)w, sv, a);
  }
  if (gT) {
    const int *tv = T->tris + 3 * (size_t)t;
    for (int k = 0; k < 3; ++k) v3_axpy(gT + 3 * (size_t)tv[k], beta[k] * h, n);
  }
}

static surface cloth_surface(const sim_contact *c, const double *x) {
  return (surface){x, c->tris, c->vtri_start, c->vtri};
}

void contact_contour_gradient(const tf_sim *s, const double *x, uint32_t v, uint32_t w, uint32_t t,
                              double *grad) {
  surface m = cloth_surface(s->contact, x);
  point_gradient(&m, (int)v, (int)w, &m, t, grad, grad);
}

/* the longest edge of a triangle mesh at x */
static double longest_edge(const double *x, const int *edges, uint32_t ne) {
  double l = 0.0;
  for (uint32_t e = 0; e < ne; ++e) {
    double d[3];
    v3_sub(d, x + 3 * (size_t)edges[2 * e], x + 3 * (size_t)edges[2 * e + 1]);
    l = fmax(l, v3_norm(d));
  }
  return l;
}

/* the crossings of one collider k at its pose X and the surface at x: marked (col_tangled), their
 * contour's gradient over the surface's vertices into c->xrel0; the count */
static uint32_t collider_crossings(tf_sim *s, uint32_t k, const double *x) {
  sim_contact *c = s->contact;
  const contact_collider *col = c->col[k];
  surface me = cloth_surface(c, x), it = {col->prev, col->tris, col->vtri_start, col->vtri};
  broad_mesh bm = {x, NULL, (int)c->n, c->tris, (int)c->tri_count, c->edges, (int)c->edge_count};
  broad_mesh bo = {col->prev,    NULL,       (int)col->nv, col->tris,
                   (int)col->nt, col->edges, (int)col->ne};
  uint32_t found = 0;
  /* a crossing edge has both ends within its length of the triangle it crosses: the vertex-
   * triangle candidates within the longest edge of each side hold every crossing */
  for (int side = 0; side < 2; ++side) {
    const surface *E = side ? &it : &me, *T = side ? &me : &it;
    double lmax = side ? longest_edge(col->prev, col->edges, col->ne)
                       : longest_edge(x, c->edges, c->edge_count);
    size_t count = 0;
    if (contact_query(s, broad_vertex_tri_cached, NULL, side ? &bo : &bm, side ? &bm : &bo, lmax,
                      &count) != TF_OK)
      return found;
    for (size_t q = 0; q < count && q < c->buf_cap; ++q) {
      int v = (int)c->buf[q].a;
      uint32_t t = (uint32_t)c->buf[q].b;
      /* each edge (v, w), w > v, once: the first of v's triangles that holds it names it */
      for (uint32_t a = E->vtri_start[v]; a < E->vtri_start[v + 1]; ++a) {
        const int *fv = E->tris + 3 * (size_t)E->vtri[a];
        for (int j = 0; j < 3; ++j) {
          int w = fv[j], first = 1;
          if (w <= v) continue;
          for (uint32_t b = E->vtri_start[v]; b < a && first; ++b) {
            const int *gv = E->tris + 3 * (size_t)E->vtri[b];
            first = gv[0] != w && gv[1] != w && gv[2] != w;
          }
          double X[3], sv, beta[3], n[3];
          if (!first || !crossing_at(E, v, w, T, t, X, &sv, beta, n)) continue;
          found++;
          const int *tv = T->tris + 3 * (size_t)t;
          const int cloth[3] = {side ? tv[0] : v, side ? tv[1] : w, side ? tv[2] : -1};
          for (int q3 = 0; q3 < 3; ++q3)
            if (cloth[q3] >= 0 && c->col_tangled[cloth[q3]] < 0)
              c->col_tangled[cloth[q3]] = (int32_t)k;
          point_gradient(E, v, w, T, t, side ? NULL : c->xrel0, side ? c->xrel0 : NULL);
        }
      }
    }
  }
  return found;
}

uint32_t contact_collider_tangles(tf_sim *s) {
  sim_contact *c = s->contact;
  uint32_t found = 0;
  for (uint32_t i = 0; i < c->n; ++i) c->col_tangled[i] = -1;
  for (uint32_t k = 0; k < c->col_count; ++k) found += collider_crossings(s, k, s->state.x);
  for (uint32_t i = 0; i < c->n; ++i) c->intersecting += c->col_tangled[i] >= 0 && c->inside[i] < 0;
  return found;
}

void contact_contour_moves(tf_sim *s, const double *x) {
  sim_contact *c = s->contact;
  double gmax = 0.0, len = 0.0;
  uint32_t edges = 0;
  for (uint32_t i = 0; i < c->n; ++i) {
    const double *g = c->xrel0 + 3 * (size_t)i;
    if (c->poking[i] || c->inside[i] >= 0 || s->pins.fixed[i] || !(v3_norm2(g) > 0.0)) continue;
    gmax = fmax(gmax, v3_norm(g));
    for (uint32_t e = c->vedge_start[i]; e < c->vedge_start[i + 1]; ++e, ++edges) {
      double d[3];
      v3_sub(d, x + 3 * (size_t)c->vedge[e], x + 3 * (size_t)i);
      len += v3_norm(d);
    }
  }
  if (!(gmax > 0.0) || !edges) return;
  const double lambda = CONTOUR_STEP * len / edges / gmax;
  for (uint32_t i = 0; i < c->n; ++i) {
    const double *g = c->xrel0 + 3 * (size_t)i;
    if (c->poking[i] || c->inside[i] >= 0 || s->pins.fixed[i] || !(v3_norm2(g) > 0.0)) continue;
    v3_scale(c->contour + 3 * (size_t)i, g, -lambda);
  }
  c->contour_on = 1;
}
