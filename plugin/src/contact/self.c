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
 * rule leaves out a skin vertex and a skin face of one thin tet. The count dropped is in stats. */
#include <math.h>

#include "contact/contact.h"
#include "core/vec3.h"
#include "geom/distance.h"
#include "sim/sim.h"

/* stiffness of a self pair: its load is the lighter side's weight (as a vertex on a collider) */
static const double SELF_KAPPA_LOAD = 4.0;

int contact_self_on(const tf_sim *s) { return s->contact && s->par.self_contact != 0.0; }

void contact_add_block(bsr *H, pairmat *pm, uint32_t i, uint32_t j, const double blk[9]) {
  if (i == j) {
    bsr_add_block(H, H->diag[i], blk);
    return;
  }
  uint32_t slot = bsr_slot(H, i, j);
  if (slot != UINT32_MAX)
    bsr_add_block(H, slot, blk);
  else
    pairmat_add(pm, i, j, blk);
}

static void gather(double *dst, const double *src, int i) { v3_copy(dst, src + 3 * (size_t)i); }

/* squared distance of a self pair's stencil at x (the rest shape for the exclusion) */
static double self_distance2(const sim_contact *c, int kind, uint32_t a, uint32_t b,
                             const double *x) {
  double xs[12];
  if (kind == CONTACT_SPT) {
    const int *t = c->tris + 3 * (size_t)b;
    gather(xs, x, (int)a);
    for (int k = 0; k < 3; ++k) gather(xs + 3 + 3 * k, x, t[k]);
    return geom_pt_distance2(xs, NULL, NULL, NULL);
  }
  const int *ea = c->edges + 2 * (size_t)a, *eb = c->edges + 2 * (size_t)b;
  gather(xs, x, ea[0]), gather(xs + 3, x, ea[1]), gather(xs + 6, x, eb[0]),
      gather(xs + 9, x, eb[1]);
  return geom_ee_distance2(xs, NULL, NULL, NULL);
}

tf_status contact_self_candidates(tf_sim *s, const broad_mesh *me) {
  sim_contact *c = s->contact;
  const double *mass = s->model.mass;
  double dhat = s->par.thickness, mu = s->par.friction, g = fmax(v3_norm(s->par.gravity), 1.0);
  double infl = dhat + c->margin;
  size_t first = c->pair_count;
  double t0 = contact_now();
  c->self_excluded = 0;
  for (int kind = CONTACT_SPT; kind <= CONTACT_SEE; ++kind) {
    size_t count = 0;
    tf_status st = kind == CONTACT_SPT ? contact_query(s, broad_vertex_tri, me, me, infl, &count)
                                       : contact_query(s, broad_edge_edge, me, me, infl, &count);
    if (st != TF_OK) return st;
    for (size_t q = 0; q < count; ++q) {
      uint32_t a = (uint32_t)c->buf[q].a, b = (uint32_t)c->buf[q].b;
      if (self_distance2(c, kind, a, b, s->model.rest) < dhat * dhat) {
        c->self_excluded++;
        continue;
      }
      double m0, m1;
      if (kind == CONTACT_SPT) {
        const int *t = c->tris + 3 * (size_t)b;
        m0 = mass[a];
        m1 = (mass[t[0]] + mass[t[1]] + mass[t[2]]) / 3.0;
      } else {
        const int *ea = c->edges + 2 * (size_t)a, *eb = c->edges + 2 * (size_t)b;
        m0 = 0.5 * (mass[ea[0]] + mass[ea[1]]);
        m1 = 0.5 * (mass[eb[0]] + mass[eb[1]]);
      }
      contact_pair p = {.kind = (uint8_t)kind, .a = a, .b = b, .dhat = dhat, .mu = mu};
      p.kappa = c->kappa_scale * SELF_KAPPA_LOAD * fmin(m0, m1) * g /
                (CONTACT_F_HALF * dhat * dhat * dhat);
      if (!contact_push_pair(s, p)) return TF_E_NOMEM;
    }
  }
  c->self_pairs = (uint32_t)(c->pair_count - first);
  if (c->self_pairs > c->self_pairs_max) c->self_pairs_max = c->self_pairs;
  c->self_seconds += contact_now() - t0;
  /* room for every block the pairs can put outside the mesh's pattern: 6 off-diagonal blocks of
   * a 4-vertex stencil, for the barrier and for friction */
  uint64_t need = 12u * (uint64_t)c->self_pairs;
  if (need > UINT32_MAX) return TF_E_NOMEM;
  if (need > c->pm.capacity) {
    uint32_t before = c->pm.grow_count;
    if (!pairmat_reserve(&s->mem, &c->pm, (uint32_t)need)) return TF_E_NOMEM;
    c->growths += c->pm.grow_count - before;
  }
  return TF_OK;
}
