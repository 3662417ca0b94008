/* SPDX-License-Identifier: MIT
 * Self-contact (issue 17): the simulated surface (a cloth's triangles, a flesh's skin faces)
 * against itself, with the barrier, CCD and friction its contact with colliders uses (IPC: Li et
 * al. 2020; codimensional cloth: Li, Kaufman, Jiang 2021). Candidates are vertex-triangle pairs
 * (the vertex not on the triangle) and edge-edge pairs (no shared vertex), from the broad phase's
 * self queries over the swept surface.
 *
 * The gap is the cloth's thickness: two layers of the same cloth rest one thickness apart.
 * Pairs that are closer than the gap in the rest shape are left out: with edges shorter than the
 * thickness, a vertex and a triangle two rings away would sit inside each other's barrier on a
 * flat, unstrained sheet and push it apart (the barrier must be zero at rest). Such a pair is
 * within a gap of each other along the surface, so it cannot fold onto itself without
 * compressing its own ring by more than the gap, which the membrane resists; on flesh the same
 * rule leaves out a skin vertex and a skin face of one thin tet. The count dropped is in stats.
 *
 * Opt-out (tf_sim_set_param_map): a pair is left out when both of its sides hold an opted-out
 * vertex, so an opted-out part (a collar sewn onto itself) does not collide with itself but still
 * with the rest of the surface.
 *
 * A start that already crosses itself (a garment modelled through itself): the barrier keeps
 * each pair on the side it starts on, so it would hold a crossing in place, and the CCD would stop
 * every step that tried to undo it. At an advance's start (after a new state or map, when
 * self-contact comes on, while crossings remain) the surface's edges are tested against its
 * triangles; the vertices of a crossing edge and triangle are "tangled": out of their
 * self pairs with each other (not with the rest) until no edge crosses there any more, so the
 * layers can come apart. Where the
 * surface around a crossing lies on one side, the end poking through is pushed back (vote_and_push);
 * elsewhere the crossing moves down the gradient of the intersection contour's length
 * (untangle.c). Counted in tf_stats.intersecting; tf_sim_self_intersections lists the crossings. */
#include <math.h>
#include <string.h>

#include "contact/contact.h"
#include "core/clock.h"
#include "core/vec3.h"
#include "geom/crossing.h"
#include "sim/sim.h"

int contact_self_on(const tf_sim *s) { return s->contact && s->par.self_contact != 0.0; }

void contact_add_block(sim_contact *c, bsr *H, uint32_t i, uint32_t j, const double blk[9]) {
  if (i == j) {
    bsr_add_block(H, H->diag[i], blk);
    return;
  }
  uint32_t slot = bsr_slot(H, i, j);
  if (slot != UINT32_MAX) {
    bsr_add_block(H, slot, blk);
    return;
  }
  uint32_t grown = c->pm.grow_count;
  if (!pairmat_push(c->mem, &c->pm, i, j, blk)) c->pm_failed = 1;
  c->growths += c->pm.grow_count - grown;
}

/* the pair's two sides each hold an opted-out vertex, or tangled vertices of two sides of a
 * crossing (sides.c). Tangled parts pass through each other (that is how a crossing is undone)
 * but not through the rest: with every pair that touched a tangled vertex left out, crumpling
 * carried tangled vertices through untangled layers and the tangle spread (three sheets crossing
 * one another, dropped on a floor: 224 crossings to 5589 in 3 s at 24 x 24 quads) */
static int left_out(const tf_sim *s, const contact_pair *p) {
  const sim_contact *c = s->contact;
  uint32_t v[4];
  contact_pair_vertices(s, p, v);
  int split = p->kind == CONTACT_SPT ? 1 : 2, off0 = 0, off1 = 0, tangled = 0;
  for (int k = 0; k < 4; ++k)
    if (c->self_off[v[k]]) *(k < split ? &off0 : &off1) = 1;
  for (int a = 0; a < split && !tangled; ++a)
    for (int b = split; b < 4 && !tangled; ++b) tangled = contact_sides_linked(c, v[a], v[b]);
  return tangled || (off0 && off1);
}

/* the motion me (x0 -> x1) seen from its own mean: each end less its mean position, into *rel
 * (c->xrel0, c->xrel). Every pair's distance along the way is the same (both sides shift alike),
 * but a sheet falling as a whole no longer sweeps boxes over its whole fall (DRAPE-SELF-32: 285k
 * self candidates at the impact), and the boxes of a step's several queries (the swept start,
 * the first iterate, Newton's segments) and of the next steps of a body at rest stay where they
 * were, so the broad phase's cache holds them. Returns the largest remaining displacement, m */
static double relative_motion(sim_contact *c, const broad_mesh *me, broad_mesh *rel) {
  *rel = *me;
  double t0[3] = {0, 0, 0}, t1[3] = {0, 0, 0}, most = 0.0;
  for (uint32_t i = 0; i < c->n; ++i)
    for (int k = 0; k < 3; ++k) {
      t0[k] += me->x0[3 * i + k] / c->n;
      if (me->x1) t1[k] += me->x1[3 * i + k] / c->n;
    }
  for (uint32_t i = 0; i < c->n; ++i) {
    double d2 = 0.0;
    for (int k = 0; k < 3; ++k) {
      size_t j = 3 * (size_t)i + k;
      c->xrel0[j] = me->x0[j] - t0[k];
      if (!me->x1) continue;
      c->xrel[j] = me->x1[j] - t1[k];
      d2 += (c->xrel[j] - c->xrel0[j]) * (c->xrel[j] - c->xrel0[j]);
    }
    most = fmax(most, sqrt(d2));
  }
  rel->x0 = c->xrel0;
  rel->x1 = me->x1 ? c->xrel : NULL;
  return most;
}

/* the broad phase's self pairs of one kind into the candidates (blocks.c: the tests on any
 * thread, the list in order) */
typedef struct self_job {
  tf_sim *s;
  const broad_mesh *me;
  double infl, dhat, mu;
  uint8_t kind;
} self_job;

enum { SELF_DROP = 0, SELF_KEEP = 1, SELF_AT_REST = 2 };

static void self_pair(void *ctx, size_t q, void *out) {
  const self_job *j = ctx;
  const tf_sim *s = j->s;
  const broad_pair *b = &s->contact->buf[q];
  contact_pair p = {.kind = j->kind, .a = (uint32_t)b->a, .b = (uint32_t)b->b};
  uint8_t *r = out;
  *r = SELF_DROP;
  if (left_out(s, &p)) return;
  int v[4];
  double xs[12];
  if (contact_pair_distance2_at(s, &p, s->model.rest, NULL, NULL, NULL, v, xs) <
      j->dhat * j->dhat) {
    *r = SELF_AT_REST;
    return;
  }
  /* boxes overlap, but the pair cannot come within its gap over the motion: a sheet's near
   * neighbours in the plane, most of the broad phase's pairs when the sheet deforms fast
   * (DRAPE-SELF-128 at the impact) */
  if (!contact_cannot_close(s, &p, j->me->x0, j->me->x1, 0, j->infl)) *r = SELF_KEEP;
}

static int self_take(void *ctx, size_t q, void *out) {
  const self_job *j = ctx;
  tf_sim *s = j->s;
  sim_contact *c = s->contact;
  uint8_t r = *(const uint8_t *)out;
  if (r == SELF_AT_REST) c->self_excluded++;
  if (r != SELF_KEEP) return 1;
  uint32_t a = (uint32_t)c->buf[q].a, b = (uint32_t)c->buf[q].b;
  contact_pair p = {.kind = j->kind, .a = a, .b = b};
  int spt = j->kind == CONTACT_SPT;
  double m0 = contact_side_mass(s, spt ? 1 : 2, a), m1 = contact_side_mass(s, spt ? 3 : 2, b);
  /* stiffness from the lighter side's weight, as a vertex on a collider */
  contact_pair_init(s, &p, fmin(m0, m1), j->dhat, j->mu);
  return contact_push_pair(s, p);
}

tf_status contact_self_candidates(tf_sim *s, const broad_mesh *sweep) {
  sim_contact *c = s->contact;
  double dhat = s->par.thickness, mu = s->par.friction;
  /* the margin covers how far a vertex may end from its predicted motion (contact_anchor: half
   * its travel); against itself only the motion relative to the rest of the surface counts */
  broad_mesh rel;
  const broad_mesh *me = &rel;
  double travel = relative_motion(c, sweep, &rel);
  double infl = dhat + (sweep->x1 ? fmin(c->margin, 0.5 * sqrt(3.0) * travel) : c->margin);
  size_t first = c->pair_count;
  double t0 = now_seconds();
  c->self_excluded = 0;
  for (int kind = CONTACT_SPT; kind <= CONTACT_SEE; ++kind) {
    size_t count = 0;
    broad_cache *cache = &c->self_cache[kind - CONTACT_SPT];
    tf_status st = kind == CONTACT_SPT
                       ? contact_query(s, broad_vertex_tri_cached, cache, me, me, infl, &count)
                       : contact_query(s, broad_edge_edge_cached, cache, me, me, infl, &count);
    if (st != TF_OK) return st;
    self_job j = {s, me, infl, dhat, mu, (uint8_t)kind};
    if (!contact_pairs_run(s, count, 1, self_pair, self_take, &j)) return TF_E_NOMEM;
  }
  c->self_pairs = (uint32_t)(c->pair_count - first);
  if (c->self_pairs > c->self_pairs_max) c->self_pairs_max = c->self_pairs;
  c->self_seconds += now_seconds() - t0;
  return TF_OK;
}

/* Which way out: the crossing edge (v, w) has one end on each side of triangle tv's plane. The
 * surface around the edge (the vertices within two rings of its ends that are not tangled
 * themselves) votes by the side each lies on; when at least UNTANGLE_MAJORITY of the votes agree,
 * the end on the other side pokes through, and is sent to one gap beyond the plane on the
 * agreed side (summed into c->xrel, counted in c->anchor, both scratch at an advance's start).
 * A local reading of Baraff, Witkin & Kass 2003 ("Untangling cloth"), whose global analysis
 * floods the smaller region an intersection contour bounds: for a fold or a pinch modelled a
 * little through another layer the surface around it lies on one side and that is the way out.
 * Where it does not (two sheets crossing along a line through both, each half on either side),
 * the votes split: pushing there on a thin majority made the crossings grow, 31 to 765 in two
 * seconds on the test's two crossed sheets. Such a crossing is pulled along the gradient of the
 * intersection contour's length instead (untangle.c). */
static const double UNTANGLE_MAJORITY = 0.75;

static int vote_and_push(tf_sim *s, const double *x, uint32_t v, uint32_t w, const int *tv) {
  sim_contact *c = s->contact;
  const double *a = x + 3 * (size_t)tv[0];
  double e1[3], e2[3], n[3];
  v3_sub(e1, x + 3 * (size_t)tv[1], a), v3_sub(e2, x + 3 * (size_t)tv[2], a), v3_cross(n, e1, e2);
  const double nn = v3_norm(n);
  if (!(nn > 0.0)) return 0;
  v3_scale(n, n, 1.0 / nn);
  double up = 0.0, down = 0.0;
  const uint32_t ends[2] = {v, w};
  for (int q = 0; q < 2; ++q)
    for (uint32_t e = c->vedge_start[ends[q]]; e < c->vedge_start[ends[q] + 1]; ++e) {
      const uint32_t k = c->vedge[e];
      for (uint32_t f = c->vedge_start[k]; f < c->vedge_start[k + 1]; ++f) {
        const uint32_t j = c->vedge[f]; /* two rings out, through k */
        if (c->tangled[j] || (int)j == tv[0] || (int)j == tv[1] || (int)j == tv[2]) continue;
        double d[3];
        v3_sub(d, x + 3 * (size_t)j, a);
        const double h = v3_dot(n, d);
        up += h > 0.0, down += h < 0.0;
      }
    }
  if (!(fmax(up, down) >= UNTANGLE_MAJORITY * (up + down)) || up + down == 0.0) return 0;
  const double side = up > down ? 1.0 : -1.0;
  for (int q = 0; q < 2; ++q) {
    const uint32_t p = ends[q];
    double d[3];
    v3_sub(d, x + 3 * (size_t)p, a);
    const double h = v3_dot(n, d);
    /* on the agreed side, or within rounding of the plane (a tear's copies lie on their
     * parents: nothing pokes through there) */
    if (h * side > -1e-3 * s->par.thickness || c->anchor[p] == UINT8_MAX) continue;
    double *t = c->xrel + 3 * (size_t)p;
    for (int k = 0; k < 3; ++k) t[k] += x[3 * (size_t)p + k] + (side * s->par.thickness - h) * n[k];
    c->anchor[p]++;
  }
  return 1;
}

/* an end of edge (v, w) exactly where a corner of triangle tv is: the two touch at that point,
 * they do not cross. A torn vertex's copies sit on it (sim/tear.c), as a seam's vertices do in a
 * mesh that is not welded; counted as crossings, the split's 118-126 took the torn line for a
 * tangle, left it out of self-contact, and the opening flaps ended crossed on 6 of 17 paths
 * (examples/bench/results/2026-12-04-neighbouring-paths-epyc-2vcpu.md) */
static int touches_at_corner(const double *x, uint32_t v, uint32_t w, const int *tv) {
  for (int q = 0; q < 3; ++q) {
    const double *c = x + 3 * (size_t)tv[q];
    for (int e = 0; e < 2; ++e) {
      const double *p = x + 3 * (size_t)(e ? w : v);
      if (p[0] == c[0] && p[1] == c[1] && p[2] == c[2]) return 1;
    }
  }
  return 0;
}

/* each crossing (v, w, triangle) among the first count vertex-triangle candidates in c->buf: the
 * edges (v, w), w > v, that share no vertex with the triangle and cross it; out (cap of them,
 * Nullable) and mark (Nullable) as contact_self_crossings, or push (vote_and_push) */
static uint32_t each_crossing(tf_sim *s, const double *x, size_t count, uint32_t *out, uint32_t cap,
                              uint8_t *mark, int push) {
  sim_contact *c = s->contact;
  uint32_t found = 0;
  for (size_t k = 0; k < count && k < c->buf_cap; ++k) {
    uint32_t v = (uint32_t)c->buf[k].a, t = (uint32_t)c->buf[k].b;
    const int *tv = c->tris + 3 * (size_t)t;
    for (uint32_t e = c->vedge_start[v]; e < c->vedge_start[v + 1]; ++e) {
      uint32_t w = c->vedge[e];
      if (w < v || (int)w == tv[0] || (int)w == tv[1] || (int)w == tv[2]) continue;
      if (touches_at_corner(x, v, w, tv)) continue;
      if (!geom_segment_crosses(x + 3 * (size_t)v, x + 3 * (size_t)w, x + 3 * (size_t)tv[0],
                                x + 3 * (size_t)tv[1], x + 3 * (size_t)tv[2]))
        continue;
      if (push) contact_sides_link(c, v, (uint32_t)tv[0]);
      /* the vote found no side: the contour's length decides (untangle.c), into c->xrel0 */
      if (push && !vote_and_push(s, x, v, w, tv)) contact_contour_gradient(s, x, v, w, t, c->xrel0);
      if (out && found < cap) out[3 * found] = v, out[3 * found + 1] = w, out[3 * found + 2] = t;
      if (mark) {
        mark[v] = mark[w] = 1;
        for (int q = 0; q < 3; ++q) mark[tv[q]] = 1;
      }
      found++;
    }
  }
  return found;
}

static uint32_t crossings(tf_sim *s, const double *x, uint32_t *out, uint32_t cap, uint8_t *mark,
                          int push) {
  sim_contact *c = s->contact;
  if (!c) return 0;
  /* a crossing edge has both ends within its length of the triangle it crosses: the vertex-
   * triangle candidates within the longest edge hold every crossing, once from each end */
  double lmax = 0.0;
  for (uint32_t e = 0; e < c->edge_count; ++e) {
    double d[3];
    v3_sub(d, x + 3 * (size_t)c->edges[2 * e], x + 3 * (size_t)c->edges[2 * e + 1]);
    lmax = fmax(lmax, v3_norm(d));
  }
  broad_mesh me = {x, NULL, (int)c->n, c->tris, (int)c->tri_count, c->edges, (int)c->edge_count};
  size_t count = 0;
  if (contact_query(s, broad_vertex_tri_cached, NULL, &me, &me, lmax, &count) != TF_OK) return 0;
  uint32_t found = each_crossing(s, x, count, out, cap, mark, 0);
  /* with every crossing's vertices marked, the votes count the untangled surface only, and the
   * crossings link the patches of the marked vertices */
  if (push && found) {
    contact_sides_patches(c);
    each_crossing(s, x, count, NULL, 0, NULL, 1);
    contact_sides_finish(c);
  }
  return found;
}

uint32_t contact_self_crossings(tf_sim *s, const double *x, uint32_t *out, uint32_t cap,
                                uint8_t *mark) {
  return crossings(s, x, out, cap, mark, 0);
}

/* the surface's own contour's gradient (c->xrel0, untangle.c) made ready for its moves. It sums to
 * zero (the contour's length does not change when the surface moves as a whole) but for
 * degenerate points (a crossing exactly on an edge of the crossed surface, found from both
 * triangles there: regular grids modelled through each other); that remainder is taken evenly
 * off the moved vertices. While the vote pushes a poke anywhere, none of it is used: a poke's
 * crossings share the contour with the split ones beside them, and with a part of its gradient
 * pushed and the rest moved, the remainder sent a sheet resting on another through it (2.3 m
 * down in a second) */
static void self_contour(tf_sim *s) {
  sim_contact *c = s->contact;
  double rest[3] = {0, 0, 0};
  uint32_t moved = 0;
  for (uint32_t i = 0; i < c->n; ++i)
    if (c->anchor[i]) { /* pokes first: the contour is theirs too, and they have a way out */
      memset(c->xrel0, 0, sizeof(double) * 3 * c->n);
      return;
    }
  for (uint32_t i = 0; i < c->n; ++i) {
    const double *g = c->xrel0 + 3 * (size_t)i;
    if (s->pins.fixed[i] || !(v3_norm2(g) > 0.0)) continue;
    v3_add(rest, rest, g);
    moved++;
  }
  if (!moved) return;
  v3_scale(rest, rest, 1.0 / moved);
  for (uint32_t i = 0; i < c->n; ++i) {
    double *g = c->xrel0 + 3 * (size_t)i;
    if (!s->pins.fixed[i] && v3_norm2(g) > 0.0) v3_sub(g, g, rest);
  }
}

void contact_self_tangles(tf_sim *s) {
  sim_contact *c = s->contact;
  memset(c->tangled, 0, c->n);
  memset(c->anchor, 0, c->n); /* per vertex: crossings that push it (vote_and_push) */
  memset(c->xrel, 0, sizeof(double) * 3 * c->n);
  c->tangles = crossings(s, s->state.x, NULL, 0, c->tangled, 1);
  c->tangle_check = c->tangles > 0;
  for (uint32_t i = 0; i < c->n; ++i) {
    c->intersecting += c->tangled[i];
    /* a poking vertex goes where its crossings send it, on average; the push grows 4x for every
     * further advance it still pokes through (barrier.c), as a vertex inside a body's does */
    const int push = c->anchor[i] > 0 && !s->pins.fixed[i];
    c->poking[i] = push ? (uint8_t)(c->poking[i] < 12 ? c->poking[i] + 1 : 12) : 0;
    if (push) v3_scale(c->untangle + 3 * (size_t)i, c->xrel + 3 * (size_t)i, 1.0 / c->anchor[i]);
  }
  self_contour(s);
}
