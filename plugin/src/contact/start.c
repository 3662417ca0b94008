/* SPDX-License-Identifier: MIT
 * Before a step's minimization. (1) Anchoring: the tau step advances a free piece's rigid motion
 * ballistically and minimizes only its deformation (tau damps deformation, never rigid motion);
 * contact must act on all of the motion, so a piece with any vertex that can come within a gap
 * of a collider or the ground over the step flows like a pinned piece for that step (every mode
 * in the minimization, kinetic energy relative to the carrier; at kappa = 0 the impact is fully
 * inelastic, kappa keeps that share of the momentum). (2) A first iterate that no collider
 * crosses over the step: the start x_n is intersection-free, but a collider moves over the step,
 * so a vertex in its path is carried along by the collider's own displacement at the closest
 * point (IPC needs an intersection-free start; Li et al. 2020 sec. 3). What cannot be carried (a
 * hard pin in the way) makes the caller split the collider's motion. */
#include <math.h>
#include <string.h>

#include "contact/contact.h"
#include "core/vec3.h"
#include "sim/sim.h"

static const int CARRY_ROUNDS = 6;
/* a pair counts as reached when it would come within this fraction of its gap */
static const double REACH = 0.05;

/* barycentric weights of the point of triangle (a, b, c) closest to p (Ericson 2005, 5.1.5) */
void contact_closest_tri(const double p[3], const double a[3], const double b[3], const double c[3],
                         double w[3]) {
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  v3_sub(ab, b, a), v3_sub(ac, c, a), v3_sub(ap, p, a);
  double d1 = v3_dot(ab, ap), d2 = v3_dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) {
    w[0] = 1, w[1] = w[2] = 0;
    return;
  }
  v3_sub(bp, p, b);
  double d3 = v3_dot(ab, bp), d4 = v3_dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) {
    w[1] = 1, w[0] = w[2] = 0;
    return;
  }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    double t = d1 / (d1 - d3);
    w[0] = 1 - t, w[1] = t, w[2] = 0;
    return;
  }
  v3_sub(cp, p, c);
  double d5 = v3_dot(ab, cp), d6 = v3_dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) {
    w[2] = 1, w[0] = w[1] = 0;
    return;
  }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    double t = d2 / (d2 - d6);
    w[0] = 1 - t, w[2] = t, w[1] = 0;
    return;
  }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    w[1] = 1 - t, w[2] = t, w[0] = 0;
    return;
  }
  double den = 1.0 / (va + vb + vc);
  w[1] = vb * den, w[2] = vc * den, w[0] = 1 - w[1] - w[2];
}

/* parameters (sa on p0-p1, sb on q0-q1) of the closest points of two segments (Ericson 5.1.9) */
static void closest_seg(const double p0[3], const double p1[3], const double q0[3],
                        const double q1[3], double *sa, double *sb) {
  double d1[3], d2[3], r[3];
  v3_sub(d1, p1, p0), v3_sub(d2, q1, q0), v3_sub(r, p0, q0);
  double a = v3_dot(d1, d1), e = v3_dot(d2, d2), f = v3_dot(d2, r), s = 0, t = 0;
  if (a <= 1e-300 && e <= 1e-300) {
    *sa = *sb = 0;
    return;
  }
  if (a <= 1e-300) {
    s = 0, t = fmin(fmax(f / e, 0), 1);
  } else {
    double cc = v3_dot(d1, r);
    if (e <= 1e-300) {
      t = 0, s = fmin(fmax(-cc / a, 0), 1);
    } else {
      double b = v3_dot(d1, d2), den = a * e - b * b;
      s = den > 0 ? fmin(fmax((b * f - cc * e) / den, 0), 1) : 0;
      t = (b * s + f) / e;
      if (t < 0)
        t = 0, s = fmin(fmax(-cc / a, 0), 1);
      else if (t > 1)
        t = 1, s = fmin(fmax((b - cc) / a, 0), 1);
    }
  }
  *sa = s, *sb = t;
}

/* a self pair's closest points at xn: both sides simulated, the second side's weights negative,
 * so sum w_k dy_k is the relative motion of the two points (no collider displacement) */
static void self_points(const tf_sim *s, const contact_pair *p, const double *xn, double w[4],
                        double ps[3], double pc[3]) {
  int v[4];
  double xs[12];
  contact_pair_stencil(s, p, xn, v, xs);
  if (p->kind == CONTACT_SPT) {
    double bw[3];
    contact_closest_tri(xs, xs + 3, xs + 6, xs + 9, bw);
    w[0] = 1.0;
    v3_copy(ps, xs);
    for (int k = 0; k < 3; ++k) w[1 + k] = -bw[k], v3_axpy(pc, bw[k], xs + 3 + 3 * k);
    return;
  }
  double sa, sb;
  closest_seg(xs, xs + 3, xs + 6, xs + 9, &sa, &sb);
  w[0] = 1 - sa, w[1] = sa, w[2] = -(1 - sb), w[3] = -sb;
  v3_axpy(ps, 1 - sa, xs), v3_axpy(ps, sa, xs + 3);
  v3_axpy(pc, 1 - sb, xs + 6), v3_axpy(pc, sb, xs + 9);
}

/* a collider pair's closest points (sim at xn, collider at its step-start pose), the simulated
 * points' weights and the collider's displacement at its point over the step */
static void collider_points(const tf_sim *s, const contact_pair *p, const double *xn, double w[4],
                            double disp[3], double ps[3], double pc[3]) {
  const sim_contact *c = s->contact;
  const contact_collider *col = c->col[p->collider];
  const double *X0 = col->x0, *X1 = col->x1;
  if (p->kind == CONTACT_PT) {
    const int *t = col->tris + 3 * (size_t)p->b;
    double bw[3];
    const double *q = xn + 3 * (size_t)p->a;
    contact_closest_tri(q, X0 + 3 * (size_t)t[0], X0 + 3 * (size_t)t[1], X0 + 3 * (size_t)t[2], bw);
    w[0] = 1.0;
    v3_copy(ps, q);
    for (int k = 0; k < 3; ++k) {
      double dd[3];
      v3_axpy(pc, bw[k], X0 + 3 * (size_t)t[k]);
      v3_sub(dd, X1 + 3 * (size_t)t[k], X0 + 3 * (size_t)t[k]);
      v3_axpy(disp, bw[k], dd);
    }
  } else if (p->kind == CONTACT_TP) {
    const int *t = c->tris + 3 * (size_t)p->b;
    double bw[3];
    const double *q = X0 + 3 * (size_t)p->a;
    contact_closest_tri(q, xn + 3 * (size_t)t[0], xn + 3 * (size_t)t[1], xn + 3 * (size_t)t[2], bw);
    for (int k = 0; k < 3; ++k) {
      w[1 + k] = bw[k];
      v3_axpy(ps, bw[k], xn + 3 * (size_t)t[k]);
    }
    v3_copy(pc, q);
    v3_sub(disp, X1 + 3 * (size_t)p->a, q);
  } else {
    const int *ea = c->edges + 2 * (size_t)p->a, *eb = col->edges + 2 * (size_t)p->b;
    double sa, sb;
    closest_seg(xn + 3 * (size_t)ea[0], xn + 3 * (size_t)ea[1], X0 + 3 * (size_t)eb[0],
                X0 + 3 * (size_t)eb[1], &sa, &sb);
    w[0] = 1 - sa, w[1] = sa;
    v3_axpy(ps, 1 - sa, xn + 3 * (size_t)ea[0]);
    v3_axpy(ps, sa, xn + 3 * (size_t)ea[1]);
    for (int k = 0; k < 2; ++k) {
      double wk = k ? sb : 1 - sb, dd[3];
      v3_axpy(pc, wk, X0 + 3 * (size_t)eb[k]);
      v3_sub(dd, X1 + 3 * (size_t)eb[k], X0 + 3 * (size_t)eb[k]);
      v3_axpy(disp, wk, dd);
    }
  }
}

/* where a pair touches at the segment start (sim at xn, colliders at cx): the simulated points'
 * weights (w over the stencil's 4 points, 0 for collider points), the collider's displacement at
 * that point over the step, and the unit direction from the other side's point to the simulated */
void contact_pair_frame(const tf_sim *s, const contact_pair *p, const double *xn, double w[4],
                        double disp[3], double nrm[3]) {
  double ps[3] = {0, 0, 0}, pc[3] = {0, 0, 0};
  memset(w, 0, 4 * sizeof *w);
  v3_set(disp, 0, 0, 0);
  if (p->kind == CONTACT_G) {
    double h;
    contact_ground(s, nrm, &h);
    w[0] = 1.0;
    return;
  }
  if (contact_is_self(p->kind))
    self_points(s, p, xn, w, ps, pc);
  else
    collider_points(s, p, xn, w, disp, ps, pc);
  v3_sub(nrm, ps, pc);
  double l = v3_norm(nrm);
  if (l > 0.0)
    v3_scale(nrm, nrm, 1.0 / l);
  else
    v3_set(nrm, 0, 0, 1);
}

/* the stencil's simulated vertices */
int contact_pair_vertices(const tf_sim *s, const contact_pair *p, uint32_t out[4]) {
  const sim_contact *c = s->contact;
  switch (p->kind) {
    case CONTACT_SPT:
      out[0] = p->a;
      for (int k = 0; k < 3; ++k) out[1 + k] = (uint32_t)c->tris[3 * (size_t)p->b + k];
      return 4;
    case CONTACT_SEE:
      for (int k = 0; k < 2; ++k) {
        out[k] = (uint32_t)c->edges[2 * (size_t)p->a + k];
        out[2 + k] = (uint32_t)c->edges[2 * (size_t)p->b + k];
      }
      return 4;
    case CONTACT_TP:
      for (int k = 0; k < 3; ++k) out[k] = (uint32_t)c->tris[3 * (size_t)p->b + k];
      return 3;
    case CONTACT_EE:
      out[0] = (uint32_t)c->edges[2 * (size_t)p->a],
      out[1] = (uint32_t)c->edges[2 * (size_t)p->a + 1];
      return 2;
    default:
      out[0] = p->a;
      return 1;
  }
}

/* Pieces that may meet another piece over the step: self-contact within one piece is internal
 * (no net force or torque), but between two pieces it is not, and it must act on their rigid
 * modes: unanchored, a free sheet falling onto a held one kept the ballistic rigid part of its
 * motion, had the barrier's push dropped with the rest of its correction's rigid part, and fell
 * through it in one frame (self_free_piece_rests_on_a_held_one). Boxes over the whole sweep,
 * widened by the gap and the margin: a pair of pieces whose boxes overlap anchors both (layered
 * garments always do; pieces apart never) */
static void anchor_meeting_pieces(tf_sim *s, const double *xn, const double *xhat, double margin) {
  sim_contact *c = s->contact;
  const uint32_t nc = s->model.mesh.comp_count;
  const double h = s->par.thickness + margin;
  for (uint32_t q = 0; q < nc; ++q)
    for (int k = 0; k < 3; ++k)
      s->work.comp[q].box[k] = INFINITY, s->work.comp[q].box[3 + k] = -INFINITY;
  for (uint32_t i = 0; i < c->n; ++i) {
    double *b = s->work.comp[s->model.mesh.comp[i]].box;
    for (int k = 0; k < 3; ++k) {
      const double p = xn[3 * (size_t)i + k], r = xhat[3 * (size_t)i + k];
      b[k] = fmin(b[k], fmin(p, r) - h), b[3 + k] = fmax(b[3 + k], fmax(p, r) + h);
    }
  }
  for (uint32_t q = 0; q < nc; ++q) {
    sim_comp *cq = &s->work.comp[q];
    for (uint32_t r = 0; r < nc && !cq->pinned && !cq->anchored; ++r) {
      if (r != q && broad_boxes_overlap(cq->box, s->work.comp[r].box)) cq->anchored = 1;
    }
  }
}

int contact_anchor(tf_sim *s, const double *xn, const double *xhat) {
  sim_contact *c = s->contact;
  uint32_t nc = s->model.mesh.comp_count, before = 0, after = 0;
  for (uint32_t q = 0; q < nc; ++q) before += s->work.comp[q].anchored != 0;
  memset(c->anchor, 0, c->n);
  /* the margin: a free piece's result differs from its prediction by its deformation, whose
   * rigid part the step then drops; half its largest predicted travel covers that */
  double travel = 0.0;
  for (size_t k = 0; k < 3 * (size_t)c->n; ++k) travel = fmax(travel, fabs(xhat[k] - xn[k]));
  const double margin = 0.5 * sqrt(3.0) * travel;
  c->margin = margin;
  /* not against itself: self-contact forces are internal (no net force or torque), so a free
   * piece's rigid modes need no anchoring for them, and the dropped rigid part of its correction
   * moves both sides of a fold alike. With the margin above, the self candidates of a sheet
   * hitting a sphere at N = 128 ran to millions (24 GB). The query anchors the pieces of the
   * pairs it finds (contact_candidates) */
  c->anchoring = 1;
  tf_status st = contact_candidates(s, xn, xhat, 1);
  c->anchoring = 0;
  c->margin = 0.0;
  if (st != TF_OK) memset(c->anchor, 1, c->n); /* out of memory: anchor everything, the safe side */
  /* pushed-out vertices and those moved along a crossing's contour (untangle.c): their spring
   * acts on the piece's rigid modes too (a free sheet through a plate slides off it as a whole) */
  for (uint32_t i = 0; i < c->n; ++i) {
    const double *u = c->contour + 3 * (size_t)i;
    if (c->inside[i] >= 0 || c->below[i] || c->poking[i] ||
        (c->contour_on && (u[0] != 0.0 || u[1] != 0.0 || u[2] != 0.0)))
      c->anchor[i] = 1;
  }
  for (uint32_t i = 0; i < c->n; ++i) {
    sim_comp *cc = &s->work.comp[s->model.mesh.comp[i]];
    if (c->anchor[i] && !cc->pinned) cc->anchored = 1;
  }
  if (contact_self_on(s) && nc > 1) anchor_meeting_pieces(s, xn, xhat, margin);
  for (uint32_t q = 0; q < nc; ++q) after += s->work.comp[q].anchored != 0;
  return after > before;
}

/* a round of contact_start over the candidates (blocks.c): whether and when each pair is reached
 * along x_n -> x_n + d on any thread, what the reach does to y0 in pair order */
typedef struct reach_job {
  tf_sim *s;
  const double *xn, *d;
  double *y0;
  int round;
  int hits, blocked;
} reach_job;

typedef struct reach_hit {
  double t;
  int hit;
} reach_hit;

static void reach_pair(void *ctx, size_t k, void *out) {
  const reach_job *j = ctx;
  const tf_sim *s = j->s;
  const contact_pair *p = &s->contact->pairs[k];
  reach_hit *r = out;
  r->hit = 0;
  if (p->kind == CONTACT_G) {
    if (!p->inside) r->t = contact_pair_toi(s, p, j->xn, j->d, 0, 0.0, &r->hit);
    return;
  }
  /* reached: closer than REACH of the gap, or than half of where it starts */
  int v4[4];
  const double *cx = contact_has_collider(p->kind) ? s->contact->col[p->collider]->x0 : NULL;
  double xs[12], d0 = sqrt(contact_pair_distance2_at(s, p, j->xn, cx, NULL, NULL, v4, xs));
  r->t = contact_pair_toi(s, p, j->xn, j->d, 1, fmin(REACH * p->dhat, 0.5 * d0), &r->hit);
}

static int reach_take(void *ctx, size_t k, void *out) {
  reach_job *j = ctx;
  tf_sim *s = j->s;
  sim_contact *c = s->contact;
  const contact_pair *p = &c->pairs[k];
  const reach_hit *r = out;
  if (!r->hit) return 1;
  j->hits++;
  uint32_t v[4];
  int nv = contact_pair_vertices(s, p, v);
  if (j->round == 0) {
    for (int q = 0; q < nv; ++q) {
      sim_comp *cc = &s->work.comp[s->model.mesh.comp[v[q]]];
      if (r->t < cc->toi) cc->toi = r->t;
    }
    return 1;
  }
  const double *xn = j->xn;
  if (!contact_has_collider(p->kind)) {
    /* the ground, or the surface itself, still reached: those vertices stay where they are
     * (a hard pin moves as it must; what still crosses then splits the step) */
    for (int q = 0; q < nv; ++q)
      if (!s->pins.fixed[v[q]]) v3_copy(j->y0 + 3 * (size_t)v[q], xn + 3 * (size_t)v[q]);
    return 1;
  }
  double w[4], disp[3], nrm[3];
  contact_pair_frame(s, p, xn, w, disp, nrm);
  for (int q = 0; q < nv; ++q) {
    if (s->pins.fixed[v[q]]) { /* a hard pin in the collider's way */
      c->blocked_vertex = v[q];
      c->blocked_collider = p->collider;
      j->blocked = 1;
      return 0;
    }
    /* carried: its own motion dropped, the collider's taken */
    v3_add(j->y0 + 3 * (size_t)v[q], xn + 3 * (size_t)v[q], disp);
  }
  return 1;
}

/* every collider is at rest over the step (its start and end poses the same, bit for bit) */
static int colliders_still(const sim_contact *c) {
  for (uint32_t k = 0; k < c->col_count; ++k) {
    const contact_collider *col = c->col[k];
    if (memcmp(col->x0, col->x1, 3 * (size_t)col->nv * sizeof *col->x0)) return 0;
  }
  return 1;
}

tf_status contact_start(tf_sim *s, const double *xn, double *y0) {
  sim_contact *c = s->contact;
  size_t m = 3 * (size_t)c->n;
  double *d = c->yseg;
  uint32_t nc = s->model.mesh.comp_count;
  int still = colliders_still(c);
  if (still && !memcmp(y0, xn, m * sizeof *y0))
    /* nothing moves (a piece at rest, started where it is): nothing can be reached (a pair is
     * reached below half of its starting distance). The candidates friction needs, every pair
     * within its gap at x_n, are the cover the minimization starts from */
    return contact_candidates_covering(s, y0, NULL);
  for (int round = 0; round < CARRY_ROUNDS; ++round) {
    for (size_t k = 0; k < m; ++k) d[k] = y0[k] - xn[k];
    /* against colliders at rest, a later round's motion is, vertex by vertex, a part of round
     * 0's path (cut short or dropped), and a pair's distance moves by at most its points' largest
     * displacement: round 0's candidates hold every pair a later round can reach. Self pairs are
     * filtered on the two sides' relative motion, which a cut of one side only can enlarge */
    if ((round == 0 || !still || contact_self_on(s)) && contact_candidates(s, xn, y0, 1) != TF_OK)
      return TF_E_NOMEM;
    /* round 0: a piece whose own predicted motion runs into something goes only part of the
     * way, all of it alike (its shape as predicted: stopping single vertices would stretch it);
     * later rounds: what a moving collider still reaches is carried along by it */
    for (uint32_t q = 0; q < nc; ++q) s->work.comp[q].toi = 1.0;
    reach_job j = {s, xn, d, y0, round, 0, 0};
    contact_pairs_run(s, c->pair_count, sizeof(reach_hit), reach_pair, reach_take, &j);
    if (j.blocked) return TF_E_CONTACT;
    if (!j.hits) return TF_OK;
    if (round == 0)
      for (uint32_t i = 0; i < c->n; ++i) {
        double t = s->work.comp[s->model.mesh.comp[i]].toi;
        if (t < 1.0 && !s->pins.fixed[i])
          for (int k = 0; k < 3; ++k)
            y0[3 * (size_t)i + k] = xn[3 * (size_t)i + k] + t * d[3 * (size_t)i + k];
      }
  }
  return TF_E_CONTACT;
}
