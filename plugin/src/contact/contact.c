/* SPDX-License-Identifier: MIT
 * Contact's storage and candidates: the simulated surface (triangles and their edges), the
 * colliders' poses, and the candidate pairs of a motion from the broad phase (geom/broad.c),
 * each with its gap, stiffness and friction. Storage grows rarely (doubling, counted in stats)
 * and is otherwise reused step after step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "core/vec3.h"
#include "geom/distance.h"
#include "mesh/tetrahedralize.h"
#include "sim/sim.h"

/* the barrier's force at half the gap balances this many times the vertex's weight, before
 * IPC's adaptive doubling (barrier.c: F(dhat/2) = 4.33 kappa dhat^3) */
static const double KAPPA_LOAD = 4.0;
/* a Newton segment within this share of the thickness of where the candidates were built reuses
 * them (contact_candidates_covering). The cover widens every gap of its query by twice this, and
 * the barrier and CCD then walk the extra pairs on every evaluation: a narrow cover rebuilds a
 * little more often and costs less overall (0.5 -> 0.1, the same bits: contact 6 % less on
 * DRAPE-64, 9 % on DRAPE-SELF-64, examples/bench/results/2026-12-04-multigrid-modes) */
static const double COVER_SHARE = 0.1;

static int grow(tf_mem *m, void **p, size_t *cap, size_t need, size_t elem, uint32_t *growths) {
  if (need <= *cap) return 1;
  size_t nc = *cap ? *cap : 64;
  while (nc < need) nc *= 2;
  void *q = mem_array(m, nc, elem);
  if (!q) return 0;
  if (*p) {
    memcpy(q, *p, *cap * elem);
    mem_free(m, *p, *cap * elem);
  }
  *p = q;
  *cap = nc;
  ++*growths;
  return 1;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* unique edges of the simulated surface (a cloth's triangles or a flesh's skin faces), sorted */
static tf_status build_surface(tf_sim *s, sim_contact *c) {
  const trimesh *m = &s->model.mesh;
  size_t cap = 3 * (size_t)m->tri_count;
  c->tri_count = m->tri_count;
  c->n = s->model.n;
  c->tris = mem_array(&s->mem, cap, sizeof *c->tris);
  uint64_t *key = mem_array(&s->mem, cap, sizeof *key);
  if (!c->tris || !key) return MEM_FREE_ARRAY(&s->mem, key, cap), TF_E_NOMEM;
  for (size_t k = 0; k < cap; ++k) {
    uint32_t a = m->tris[k], b = m->tris[k - k % 3 + (k % 3 + 1) % 3];
    c->tris[k] = (int)a;
    key[k] = a < b ? ((uint64_t)a << 32 | b) : ((uint64_t)b << 32 | a);
  }
  qsort(key, cap, sizeof *key, cmp_u64);
  size_t ne = 0;
  for (size_t k = 0; k < cap; ++k)
    if (k == 0 || key[k] != key[k - 1]) key[ne++] = key[k];
  c->edges = mem_array(&s->mem, 2 * ne, sizeof *c->edges);
  if (c->edges)
    for (size_t e = 0; e < ne; ++e) {
      c->edges[2 * e] = (int)(key[e] >> 32);
      c->edges[2 * e + 1] = (int)(key[e] & 0xffffffffu);
    }
  c->edge_count = (uint32_t)ne;
  MEM_FREE_ARRAY(&s->mem, key, cap);
  if (!c->edges) return TF_E_NOMEM;
  /* each vertex's neighbours along the edges (self-contact's crossing test) */
  c->vedge_start = mem_array(&s->mem, (size_t)c->n + 1, sizeof *c->vedge_start);
  c->vedge = mem_array(&s->mem, 2 * ne, sizeof *c->vedge);
  if (!c->vedge_start || !c->vedge) return TF_E_NOMEM;
  for (size_t e = 0; e < 2 * ne; ++e) c->vedge_start[c->edges[e] + 1]++;
  for (uint32_t i = 0; i < c->n; ++i) c->vedge_start[i + 1] += c->vedge_start[i];
  for (size_t e = 0; e < ne; ++e)
    for (int k = 0; k < 2; ++k) {
      uint32_t v = (uint32_t)c->edges[2 * e + k], w = (uint32_t)c->edges[2 * e + 1 - k];
      c->vedge[c->vedge_start[v]++] = w;
    }
  for (uint32_t i = c->n; i > 0; --i) c->vedge_start[i] = c->vedge_start[i - 1];
  c->vedge_start[0] = 0;
  /* each vertex's triangles (the contour of a crossing, untangle.c) */
  return contact_vertex_tris(&s->mem, c->n, c->tris, c->tri_count, &c->vtri_start, &c->vtri);
}

tf_status contact_vertex_tris(tf_mem *m, uint32_t n, const int *tris, uint32_t nt, uint32_t **start,
                              uint32_t **list) {
  size_t cap = 3 * (size_t)nt;
  uint32_t *st = *start = mem_array(m, (size_t)n + 1, sizeof *st);
  uint32_t *l = *list = mem_array(m, cap, sizeof *l);
  if (!st || !l) return TF_E_NOMEM;
  for (size_t k = 0; k < cap; ++k) st[tris[k] + 1]++;
  for (uint32_t i = 0; i < n; ++i) st[i + 1] += st[i];
  for (size_t k = 0; k < cap; ++k) l[st[tris[k]]++] = (uint32_t)(k / 3);
  for (uint32_t i = n; i > 0; --i) st[i] = st[i - 1];
  st[0] = 0;
  return TF_OK;
}

tf_status contact_init(tf_sim *s, sim_contact *c) {
  memset(c, 0, sizeof *c);
  c->mem = &s->mem;
  broad_init(&c->bp, &s->mem);
  for (int k = 0; k < 2; ++k) broad_cache_init(&c->self_cache[k], &s->mem);
  c->kappa_scale = 1.0;
  c->min_distance = INFINITY;
  c->inside_check = c->tangle_check = 1;
  tf_status st = build_surface(s, c);
  if (st != TF_OK) return st;
  c->yseg = mem_array(&s->mem, 3 * (size_t)c->n, sizeof *c->yseg);
  c->cover_x = mem_array(&s->mem, 3 * (size_t)c->n, sizeof *c->cover_x);
  if (!c->cover_x) return TF_E_NOMEM;
  c->anchor = mem_array(&s->mem, c->n, sizeof *c->anchor);
  if (contact_blocks_init(s, c) != TF_OK) return TF_E_NOMEM;
  c->self_off = mem_array(&s->mem, c->n, sizeof *c->self_off);
  c->xrel = mem_array(&s->mem, 3 * (size_t)c->n, sizeof *c->xrel);
  c->xrel0 = mem_array(&s->mem, 3 * (size_t)c->n, sizeof *c->xrel0);
  if (!c->xrel || !c->xrel0) return TF_E_NOMEM;
  c->tangled = mem_array(&s->mem, c->n, sizeof *c->tangled);
  c->poking = mem_array(&s->mem, c->n, sizeof *c->poking);
  c->untangle = mem_array(&s->mem, 3 * (size_t)c->n, sizeof *c->untangle);
  c->contour = mem_array(&s->mem, 3 * (size_t)c->n, sizeof *c->contour);
  c->col_tangled = mem_array(&s->mem, c->n, sizeof *c->col_tangled);
  c->patch = mem_array(&s->mem, c->n, sizeof *c->patch);
  c->links = mem_array(&s->mem, c->n, sizeof *c->links);
  if (!c->self_off || !c->tangled || !c->poking || !c->untangle || !c->contour || !c->col_tangled ||
      !c->patch || !c->links)
    return TF_E_NOMEM;
  for (uint32_t i = 0; i < c->n; ++i) c->col_tangled[i] = -1;
  c->below = mem_array(&s->mem, c->n, sizeof *c->below);
  c->inside = mem_array(&s->mem, c->n, sizeof *c->inside);
  c->inside_frames = mem_array(&s->mem, c->n, sizeof *c->inside_frames);
  if (!c->inside_frames) return TF_E_NOMEM;
  c->outside = mem_array(&s->mem, 3 * (size_t)c->n, sizeof *c->outside);
  if (!c->yseg || !c->anchor || !c->below || !c->inside || !c->outside) return TF_E_NOMEM;
  for (uint32_t i = 0; i < c->n; ++i) c->inside[i] = -1;
  /* room for a few candidates per vertex up front, and for a couple of contacts, so a typical
   * drape never grows (DRAPE-64 at most 1.3 pairs in contact a vertex) */
  size_t cap = 8 * (size_t)c->n + 64, fcap = 2 * (size_t)c->n + 64;
  if (!grow(&s->mem, (void **)&c->buf, &c->buf_cap, cap, sizeof *c->buf, &c->growths) ||
      !grow(&s->mem, (void **)&c->pairs, &c->pair_cap, cap, sizeof *c->pairs, &c->growths) ||
      !grow(&s->mem, (void **)&c->fric, &c->fric_cap, fcap, sizeof *c->fric, &c->growths))
    return TF_E_NOMEM;
  c->growths = 0;
  return broad_reserve(&c->bp, (int)(c->n + 3 * (size_t)c->tri_count),
                       8 * (c->n + 3 * (size_t)c->tri_count));
}

static void collider_free(tf_mem *m, contact_collider *k) {
  size_t n3 = 3 * (size_t)k->nv;
  MEM_FREE_ARRAY(m, k->vtri_start, (size_t)k->nv + 1);
  MEM_FREE_ARRAY(m, k->vtri, 3 * (size_t)k->nt);
  MEM_FREE_ARRAY(m, k->rest, n3);
  MEM_FREE_ARRAY(m, k->prev, n3);
  MEM_FREE_ARRAY(m, k->next, n3);
  MEM_FREE_ARRAY(m, k->x0, n3);
  MEM_FREE_ARRAY(m, k->x1, n3);
  MEM_FREE_ARRAY(m, k->tris, 3 * (size_t)k->nt);
  MEM_FREE_ARRAY(m, k->edges, 2 * (size_t)k->ne);
  for (int q = 0; q < 3; ++q) broad_cache_free(&k->cache[q]);
  mem_free(m, k, sizeof *k);
}

void contact_free(tf_mem *m, sim_contact *c) {
  for (uint32_t k = 0; k < c->col_count; ++k) collider_free(m, c->col[k]);
  MEM_FREE_ARRAY(m, c->col, c->col_cap);
  MEM_FREE_ARRAY(m, c->tris, 3 * (size_t)c->tri_count);
  MEM_FREE_ARRAY(m, c->edges, 2 * (size_t)c->edge_count);
  MEM_FREE_ARRAY(m, c->vedge_start, (size_t)c->n + 1);
  MEM_FREE_ARRAY(m, c->vedge, 2 * (size_t)c->edge_count);
  MEM_FREE_ARRAY(m, c->vtri_start, (size_t)c->n + 1);
  MEM_FREE_ARRAY(m, c->vtri, 3 * (size_t)c->tri_count);
  MEM_FREE_ARRAY(m, c->yseg, 3 * (size_t)c->n);
  MEM_FREE_ARRAY(m, c->cover_x, 3 * (size_t)c->n);
  MEM_FREE_ARRAY(m, c->anchor, c->n);
  contact_blocks_free(m, c);
  MEM_FREE_ARRAY(m, c->self_off, c->n);
  MEM_FREE_ARRAY(m, c->xrel, 3 * (size_t)c->n);
  MEM_FREE_ARRAY(m, c->xrel0, 3 * (size_t)c->n);
  MEM_FREE_ARRAY(m, c->tangled, c->n);
  MEM_FREE_ARRAY(m, c->poking, c->n);
  MEM_FREE_ARRAY(m, c->untangle, 3 * (size_t)c->n);
  MEM_FREE_ARRAY(m, c->contour, 3 * (size_t)c->n);
  MEM_FREE_ARRAY(m, c->col_tangled, c->n);
  MEM_FREE_ARRAY(m, c->patch, c->n);
  MEM_FREE_ARRAY(m, c->links, c->n);
  MEM_FREE_ARRAY(m, c->below, c->n);
  MEM_FREE_ARRAY(m, c->inside, c->n);
  MEM_FREE_ARRAY(m, c->inside_frames, c->n);
  MEM_FREE_ARRAY(m, c->outside, 3 * (size_t)c->n);
  MEM_FREE_ARRAY(m, c->buf, c->buf_cap);
  MEM_FREE_ARRAY(m, c->pairs, c->pair_cap);
  MEM_FREE_ARRAY(m, c->fric, c->fric_cap);
  pairmat_free(m, &c->pm);
  for (int k = 0; k < 2; ++k) broad_cache_free(&c->self_cache[k]);
  broad_free(&c->bp);
}

void contact_rebind(sim_contact *c, tf_mem *m) {
  c->mem = m;
  c->bp.mem = m;
  for (int k = 0; k < 2; ++k) c->self_cache[k].mem = m;
  for (uint32_t k = 0; k < c->col_count; ++k)
    for (int q = 0; q < 3; ++q) c->col[k]->cache[q].mem = m;
}

int contact_ground_on(const tf_sim *s) {
  const double *n = s->par.ground_normal;
  return n[0] != 0.0 || n[1] != 0.0 || n[2] != 0.0;
}

int contact_active(const tf_sim *s) {
  return s->contact && (s->contact->col_count || contact_ground_on(s) || s->par.self_contact);
}

void contact_ground(const tf_sim *s, double n[3], double *h) {
  double l = v3_norm(s->par.ground_normal);
  v3_scale(n, s->par.ground_normal, 1.0 / l);
  *h = s->par.ground_height;
}

tf_status contact_add_collider(tf_sim *s, const tf_collider_def *d, uint32_t *out_id) {
  sim_contact *c = s->contact;
  tf_mem *m = &s->mem;
  if (c->col_count == c->col_cap) {
    uint32_t nc = c->col_cap ? 2 * c->col_cap : 4;
    contact_collider **q = mem_array(m, nc, sizeof *q);
    if (!q) return TF_E_NOMEM;
    if (c->col) memcpy(q, c->col, c->col_count * sizeof *q), MEM_FREE_ARRAY(m, c->col, c->col_cap);
    c->col = q;
    c->col_cap = nc;
  }
  contact_collider *k = mem_alloc(m, sizeof *k);
  if (!k) return TF_E_NOMEM;
  memset(k, 0, sizeof *k);
  for (int q = 0; q < 3; ++q) broad_cache_init(&k->cache[q], m);
  size_t n3 = 3 * (size_t)d->vert_count;
  k->nv = d->vert_count;
  k->nt = d->tri_count;
  k->rest = mem_array(m, n3, sizeof *k->rest);
  k->prev = mem_array(m, n3, sizeof *k->prev);
  k->next = mem_array(m, n3, sizeof *k->next);
  k->x0 = mem_array(m, n3, sizeof *k->x0);
  k->x1 = mem_array(m, n3, sizeof *k->x1);
  k->tris = mem_array(m, 3 * (size_t)k->nt, sizeof *k->tris);
  uint64_t *key = mem_array(m, 3 * (size_t)k->nt, sizeof *key);
  if (!k->rest || !k->prev || !k->next || !k->x0 || !k->x1 || !k->tris || !key) {
    MEM_FREE_ARRAY(m, key, 3 * (size_t)k->nt);
    collider_free(m, k);
    return TF_E_NOMEM;
  }
  memcpy(k->rest, d->positions, n3 * sizeof *k->rest);
  memcpy(k->prev, d->positions, n3 * sizeof *k->prev);
  memcpy(k->next, d->positions, n3 * sizeof *k->next);
  memcpy(k->x0, d->positions, n3 * sizeof *k->x0);
  memcpy(k->x1, d->positions, n3 * sizeof *k->x1);
  for (size_t q = 0; q < 3 * (size_t)k->nt; ++q) {
    uint32_t a = d->triangles[q] - s->index_base,
             b = d->triangles[q - q % 3 + (q % 3 + 1) % 3] - s->index_base;
    k->tris[q] = (int)a;
    key[q] = a < b ? ((uint64_t)a << 32 | b) : ((uint64_t)b << 32 | a);
  }
  qsort(key, 3 * (size_t)k->nt, sizeof *key, cmp_u64);
  size_t ne = 0;
  for (size_t q = 0; q < 3 * (size_t)k->nt; ++q)
    if (q == 0 || key[q] != key[q - 1]) key[ne++] = key[q];
  k->ne = (uint32_t)ne;
  k->edges = mem_array(m, 2 * ne, sizeof *k->edges);
  if (k->edges)
    for (size_t e = 0; e < ne; ++e) {
      k->edges[2 * e] = (int)(key[e] >> 32);
      k->edges[2 * e + 1] = (int)(key[e] & 0xffffffffu);
    }
  MEM_FREE_ARRAY(m, key, 3 * (size_t)k->nt);
  if (!k->edges || contact_vertex_tris(m, k->nv, k->tris, k->nt, &k->vtri_start, &k->vtri) != TF_OK)
    return collider_free(m, k), TF_E_NOMEM;
  k->thickness = d->thickness;
  k->friction = d->friction;
  k->one_sided = d->one_sided != 0;
  c->inside_check = 1;
  *out_id = c->col_count;
  c->col[c->col_count++] = k;
  return TF_OK;
}

void contact_collider_poses(tf_sim *s, double f0, double f1) {
  sim_contact *c = s->contact;
  if (!c) return;
  for (uint32_t k = 0; k < c->col_count; ++k) {
    contact_collider *col = c->col[k];
    for (size_t q = 0; q < 3 * (size_t)col->nv; ++q) {
      double a = col->prev[q], b = col->next[q];
      col->x0[q] = a + f0 * (b - a);
      col->x1[q] = a + f1 * (b - a);
    }
  }
}

void contact_end_advance(tf_sim *s) {
  sim_contact *c = s->contact;
  if (!c) return;
  for (uint32_t k = 0; k < c->col_count; ++k)
    memcpy(c->col[k]->prev, c->col[k]->next, 3 * (size_t)c->col[k]->nv * sizeof(double));
}

void contact_pair_init(const tf_sim *s, contact_pair *p, double mass, double dhat, double mu) {
  double g = fmax(v3_norm(s->par.gravity), 1.0);
  p->dhat = dhat;
  p->mu = mu;
  p->kappa =
      s->contact->kappa_scale * KAPPA_LOAD * mass * g / (CONTACT_F_HALF * dhat * dhat * dhat);
}

int contact_push_pair(tf_sim *s, contact_pair p) {
  sim_contact *c = s->contact;
  if (c->pair_count == c->pair_cap && !grow(&s->mem, (void **)&c->pairs, &c->pair_cap,
                                            c->pair_cap + 1, sizeof *c->pairs, &c->growths))
    return 0;
  c->pairs[c->pair_count++] = p;
  return 1;
}

contact_friction *contact_push_friction(tf_sim *s) {
  sim_contact *c = s->contact;
  if (c->fric_count == c->fric_cap && !grow(&s->mem, (void **)&c->fric, &c->fric_cap,
                                            c->fric_cap + 1, sizeof *c->fric, &c->growths))
    return NULL;
  return &c->fric[c->fric_count++];
}

tf_status contact_query(tf_sim *s, broad_query q, broad_cache *k, const broad_mesh *a,
                        const broad_mesh *b, double infl, size_t *count) {
  sim_contact *c = s->contact;
  uint64_t grown = c->bp.grow_count; /* the broad phase's scratch and caches count too */
  c->bp.pool = s->pool; /* set here: tearing moves the contact to a new simulation's pool */
  tf_status st = q(&c->bp, k, a, b, infl, c->buf, c->buf_cap, count);
  if (st == TF_OK && *count > c->buf_cap) {
    if (!grow(&s->mem, (void **)&c->buf, &c->buf_cap, *count, sizeof *c->buf, &c->growths))
      return TF_E_NOMEM;
    st = q(&c->bp, k, a, b, infl, c->buf, c->buf_cap, count);
  }
  c->growths += (uint32_t)(c->bp.grow_count - grown);
  return st;
}

/* the largest displacement over x0 -> x1 of the points pts (n), m */
static double travel(const double *x0, const double *x1, const int *pts, int n) {
  double most = 0.0;
  for (int q = 0; q < n; ++q) {
    double d[3];
    v3_sub(d, x1 + 3 * (size_t)pts[q], x0 + 3 * (size_t)pts[q]);
    most = fmax(most, v3_norm(d));
  }
  return most;
}

int contact_cannot_close(const tf_sim *s, const contact_pair *p, const double *x0, const double *x1,
                         int colliders_move, double infl) {
  const contact_collider *col = contact_has_collider(p->kind) ? s->contact->col[p->collider] : NULL;
  int v[4];
  double xs[12];
  const double *cx = col ? (colliders_move ? col->x0 : col->x1) : NULL;
  uint32_t sv[4];
  int ns = contact_pair_vertices(s, p, sv);
  /* how far the pair can close over the step: the largest relative displacement of its two
   * sides (both simulated), or the simulated points' and the collider's travel */
  double most = 0.0, tr = 0.0, dc = 0.0;
  if (!col) {
    int split = p->kind == CONTACT_SPT ? 1 : 2;
    for (int i = 0; x1 && i < split; ++i)
      for (int j = split; j < ns; ++j) {
        double r[3];
        for (int k = 0; k < 3; ++k)
          r[k] = (x1[3 * sv[i] + k] - x0[3 * sv[i] + k]) - (x1[3 * sv[j] + k] - x0[3 * sv[j] + k]);
        most = tf_max(v3_norm(r), most);
      }
  } else {
    int pts[4];
    for (int q = 0; q < ns; ++q) pts[q] = (int)sv[q];
    if (colliders_move) {
      const int *cv = p->kind == CONTACT_PT   ? col->tris + 3 * (size_t)p->b
                      : p->kind == CONTACT_TP ? (const int *)&p->a
                                              : col->edges + 2 * (size_t)p->b;
      dc = travel(col->x0, col->x1, cv, p->kind == CONTACT_PT ? 3 : p->kind == CONTACT_TP ? 1 : 2);
    }
    tr = x1 ? travel(x0, x1, pts, ns) : 0.0;
  }
  /* first the boxes' gap, a lower bound on the distance (the slack covers the exact distance's
   * rounding): most candidates end here, where the exact distance's classification was 7 % of
   * DRAPE-SELF-64's samples; the bound decides only what the distance would */
  contact_pair_stencil_at(s, p, x0, cx, v, xs);
  const double gap = contact_stencil_gap(xs, p->kind) * (1.0 - 1e-12);
  if (col ? gap - tr - dc >= infl : gap - most >= infl) return 1;
  double d0 = sqrt(contact_is_ee(p->kind) ? geom_ee_distance2(xs, NULL, NULL, NULL)
                                          : geom_pt_distance2(xs, NULL, NULL, NULL));
  if (d0 < infl) return 0;
  return col ? d0 - tr - dc >= infl : d0 - most >= infl;
}

/* a pair with a vertex that started inside this pair's (one-sided) collider, or on an edge or
 * triangle crossing it (untangle.c) */
static int touches_inside(const tf_sim *s, const contact_pair *p) {
  const sim_contact *c = s->contact;
  uint32_t v[4];
  int nv = contact_pair_vertices(s, p, v);
  for (int q = 0; q < nv; ++q)
    if (c->inside[v[q]] == (int32_t)p->collider || c->col_tangled[v[q]] == (int32_t)p->collider)
      return 1;
  return 0;
}

/* anchoring (contact_anchor) asks only which pieces have a pair: a pair whose vertices' pieces
 * all have one already (or are pinned: they need none) adds nothing, and once every piece is
 * settled the rest of the query is skipped (a sheet lying on a body: the first pair settles it,
 * where the whole query with the anchoring margin was the largest of the step's) */
static int anchor_settled(const tf_sim *s, const contact_pair *p) {
  uint32_t v[4];
  int nv = contact_pair_vertices(s, p, v);
  for (int q = 0; q < nv; ++q) {
    const sim_comp *cc = &s->work.comp[s->model.mesh.comp[v[q]]];
    if (!cc->pinned && !cc->anchored) return 0;
  }
  return 1;
}

static int all_settled(const tf_sim *s) {
  for (uint32_t k = 0; k < s->model.mesh.comp_count; ++k)
    if (!s->work.comp[k].pinned && !s->work.comp[k].anchored) return 0;
  return 1;
}

/* the pair's vertices are near something: their pieces are anchored */
static void anchor_pair(tf_sim *s, const contact_pair *p) {
  uint32_t v[4];
  int nv = contact_pair_vertices(s, p, v);
  for (int q = 0; q < nv; ++q) {
    sim_comp *cc = &s->work.comp[s->model.mesh.comp[v[q]]];
    s->contact->anchor[v[q]] = 1;
    if (!cc->pinned) cc->anchored = 1;
  }
}

double contact_side_mass(const tf_sim *s, int points, uint32_t item) {
  const sim_contact *c = s->contact;
  const double *mass = s->model.mass;
  if (points == 1) return mass[item];
  if (points == 3) {
    const int *t = c->tris + 3 * (size_t)item;
    return (mass[t[0]] + mass[t[1]] + mass[t[2]]) / 3.0;
  }
  const int *e = c->edges + 2 * (size_t)item;
  return 0.5 * (mass[e[0]] + mass[e[1]]);
}

/* the broad phase's pairs of one query (kind, collider) into the candidates: those that can come
 * within infl over x0 -> x1 (blocks.c: the test on any thread, the list in order) */
typedef struct filter_job {
  tf_sim *s;
  const double *x0, *x1;
  int colliders_move;
  double infl, dhat, mu;
  uint8_t kind;
  uint16_t collider;
} filter_job;

static contact_pair filter_candidate(const filter_job *j, size_t q) {
  const broad_pair *b = &j->s->contact->buf[q];
  return (contact_pair){
      .kind = j->kind, .collider = j->collider, .a = (uint32_t)b->a, .b = (uint32_t)b->b};
}

static void filter_pair(void *ctx, size_t q, void *out) {
  const filter_job *j = ctx;
  const tf_sim *s = j->s;
  contact_pair p = filter_candidate(j, q);
  *(uint8_t *)out = !touches_inside(s, &p) && /* pushed out by its own spring (barrier.c), or
                                                  moved along its contour (untangle.c) */
                    !(s->contact->anchoring && anchor_settled(s, &p)) &&
                    !contact_cannot_close(s, &p, j->x0, j->x1, j->colliders_move, j->infl);
}

static int filter_take(void *ctx, size_t q, void *out) {
  filter_job *j = ctx;
  tf_sim *s = j->s;
  if (!*(const uint8_t *)out) return 1;
  contact_pair p = filter_candidate(j, q);
  double m = p.kind == CONTACT_PT   ? contact_side_mass(s, 1, p.a)
             : p.kind == CONTACT_TP ? contact_side_mass(s, 3, p.b)
                                    : contact_side_mass(s, 2, p.a);
  if (s->contact->anchoring) anchor_pair(s, &p);
  contact_pair_init(s, &p, m, j->dhat, j->mu);
  return contact_push_pair(s, p);
}

tf_status contact_candidates(tf_sim *s, const double *x0, const double *x1, int colliders_move) {
  sim_contact *c = s->contact;
  const double *mass = s->model.mass;
  c->pair_count = 0;
  c->self_pairs = 0;
  c->cover_valid = 0;
  broad_mesh me = {x0, x1, (int)c->n, c->tris, (int)c->tri_count, c->edges, (int)c->edge_count};
  for (uint32_t k = 0; k < c->col_count; ++k) {
    contact_collider *col = c->col[k];
    broad_mesh other = {colliders_move ? col->x0 : col->x1,
                        colliders_move ? col->x1 : NULL,
                        (int)col->nv,
                        col->tris,
                        (int)col->nt,
                        col->edges,
                        (int)col->ne};
    double dhat = s->par.thickness + col->thickness, mu = sqrt(s->par.friction * col->friction);
    size_t count = 0;
    tf_status st;
    for (int kind = CONTACT_PT; kind <= CONTACT_EE; ++kind) {
      if (c->anchoring && all_settled(s)) return TF_OK;
      double infl = dhat + c->margin;
      broad_cache *cache = &col->cache[kind];
      if (kind == CONTACT_PT)
        st = contact_query(s, broad_vertex_tri_cached, cache, &me, &other, infl, &count);
      else if (kind == CONTACT_TP)
        st = contact_query(s, broad_vertex_tri_cached, cache, &other, &me, infl, &count);
      else
        st = contact_query(s, broad_edge_edge_cached, cache, &me, &other, infl, &count);
      if (st != TF_OK) return st;
      filter_job j = {s, x0, x1, colliders_move, infl, dhat, mu, (uint8_t)kind, (uint16_t)k};
      if (c->anchoring) { /* in order: a pair's anchoring settles the next ones' */
        for (size_t q = 0; q < count; ++q) {
          uint8_t keep;
          filter_pair(&j, q, &keep);
          if (!filter_take(&j, q, &keep)) return TF_E_NOMEM;
        }
      } else if (!contact_pairs_run(s, count, 1, filter_pair, filter_take, &j))
        return TF_E_NOMEM;
    }
  }
  if (contact_ground_on(s)) {
    double n[3], h, dhat = s->par.thickness, mu = sqrt(s->par.friction * s->par.ground_friction);
    contact_ground(s, n, &h);
    for (uint32_t i = 0; i < c->n; ++i) {
      double d0 = v3_dot(n, x0 + 3 * (size_t)i) - h;
      double d1 = x1 ? v3_dot(n, x1 + 3 * (size_t)i) - h : d0;
      if (fmin(d0, d1) >= dhat + c->margin) continue;
      contact_pair p = {.kind = CONTACT_G, .a = i, .inside = c->below[i]};
      if (c->anchoring) {
        if (anchor_settled(s, &p)) continue;
        anchor_pair(s, &p);
      }
      contact_pair_init(s, &p, mass[i], dhat, mu);
      if (!contact_push_pair(s, p)) return TF_E_NOMEM;
    }
  }
  if (contact_self_on(s) && !c->anchoring) {
    tf_status st = contact_self_candidates(s, &me);
    if (st != TF_OK) return st;
  }
  if (c->pair_count > c->broad_pairs) c->broad_pairs = (uint32_t)c->pair_count;
  return TF_OK;
}

/* advances in a row each vertex has started inside something (found), up to 12 */
static void count_frames_inside(sim_contact *c, const uint8_t *found) {
  for (uint32_t i = 0; i < c->n; ++i)
    c->inside_frames[i] =
        found[i] ? (uint8_t)(c->inside_frames[i] < 12 ? c->inside_frames[i] + 1 : 12) : 0;
}

/* vertices inside a one-sided (closed, outward-normal) collider at the advance's start: winding
 * number above 1/2 (Jacobson et al. 2013; mesh/tetrahedralize.c). Such a vertex cannot have a
 * barrier against that body (the barrier keeps it on the side it is on); it is pushed to its
 * closest surface point plus one gap outward instead, and joins the barrier once outside */
static void find_inside(tf_sim *s) {
  sim_contact *c = s->contact;
  const double *x = s->state.x;
  uint8_t *found = c->anchor; /* scratch here: the step rebuilds it */
  memcpy(found, c->below, c->n);
  for (uint32_t i = 0; i < c->n; ++i) c->inside[i] = -1;
  for (uint32_t k = 0; k < c->col_count; ++k) {
    const contact_collider *col = c->col[k];
    if (!col->one_sided) continue;
    const double *X = col->prev; /* the pose at the advance's start */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t j = 0; j < col->nv; ++j)
      for (int a = 0; a < 3; ++a)
        lo[a] = fmin(lo[a], X[3 * j + a]), hi[a] = fmax(hi[a], X[3 * j + a]);
    double dhat = s->par.thickness + col->thickness;
    for (uint32_t i = 0; i < c->n; ++i) {
      const double *p = x + 3 * (size_t)i;
      if (c->inside[i] >= 0 || s->pins.fixed[i]) continue;
      if (p[0] < lo[0] || p[1] < lo[1] || p[2] < lo[2] || p[0] > hi[0] || p[1] > hi[1] ||
          p[2] > hi[2])
        continue;
      if (!(winding_number(X, (const uint32_t *)col->tris, col->nt, p) > 0.5)) continue;
      /* the closest surface point and its triangle's outward normal */
      double best = INFINITY, q[3] = {0, 0, 0}, nrm[3] = {0, 0, 1};
      for (uint32_t t = 0; t < col->nt; ++t) {
        const int *tv = col->tris + 3 * (size_t)t;
        const double *a = X + 3 * (size_t)tv[0], *b = X + 3 * (size_t)tv[1],
                     *cc = X + 3 * (size_t)tv[2];
        double w[3], pt[3] = {0, 0, 0}, d[3];
        contact_closest_tri(p, a, b, cc, w);
        v3_axpy(pt, w[0], a), v3_axpy(pt, w[1], b), v3_axpy(pt, w[2], cc);
        v3_sub(d, pt, p);
        double dd = v3_norm2(d);
        if (dd < best) {
          double e1[3], e2[3];
          best = dd;
          v3_copy(q, pt);
          v3_sub(e1, b, a), v3_sub(e2, cc, a), v3_cross(nrm, e1, e2);
        }
      }
      double l = v3_norm(nrm);
      if (l > 0.0) v3_scale(nrm, nrm, 1.0 / l);
      c->inside[i] = (int32_t)k;
      found[i] = 1;
      v3_copy(c->outside + 3 * (size_t)i, q);
      v3_axpy(c->outside + 3 * (size_t)i, dhat, nrm);
      c->intersecting++;
    }
  }
  count_frames_inside(c, found);
  int any = 0;
  for (uint32_t i = 0; i < c->n; ++i) any |= c->inside[i] >= 0;
  c->inside_check = any;
}

void contact_begin_advance(tf_sim *s) {
  sim_contact *c = s->contact;
  c->ccd_cuts = c->broad_pairs = c->intersecting = c->substeps_extra = c->self_pairs_max = 0;
  c->min_distance = INFINITY;
  c->seconds = c->self_seconds = 0.0;
  memset(c->below, 0, c->n);
  if (contact_ground_on(s)) {
    double n[3], h;
    contact_ground(s, n, &h);
    for (uint32_t i = 0; i < c->n; ++i)
      if (v3_dot(n, s->state.x + 3 * (size_t)i) - h <= 0.0 && !s->pins.fixed[i]) {
        c->below[i] = 1;
        c->intersecting++;
      }
  }
  /* an advance never moves a vertex into a body (the CCD), so after one that ends with none
   * inside there is nothing to find until the state is set, a collider is added or one still
   * has a vertex inside (winding numbers cost 5 % of DRAPE-SELF-32 when run every frame) */
  const int look = c->inside_check;
  if (look)
    find_inside(s);
  else
    count_frames_inside(c, c->below); /* the ground's, as find_inside keeps them */
  /* the crossings' contour (untangle.c): its gradient gathered here when crossings are looked
   * for, the moves it asks below; nothing to clear or gather on an advance with none */
  if (c->contour_on) memset(c->contour, 0, sizeof(double) * 3 * c->n);
  c->contour_on = 0;
  const int gather = look || (contact_self_on(s) && c->tangle_check);
  if (gather) memset(c->xrel0, 0, sizeof(double) * 3 * c->n);
  /* likewise an advance with self-contact on never makes the surface cross itself: look again
   * only after a new state or map, while crossings remain, or once self-contact comes on (the
   * search is a broad-phase query over the whole surface) */
  if (!contact_self_on(s)) {
    c->tangle_check = 1;
    memset(c->poking, 0, c->n); /* nothing to push back through without self-contact */
  } else if (c->tangle_check) {
    contact_self_tangles(s);
  }
  /* nor an edge through a collider (a two-sided one, or a thin part of a closed one): looked for
   * with the vertices inside */
  if (look && contact_collider_tangles(s) > 0) c->inside_check = 1;
  if (gather) contact_contour_moves(s, s->state.x);
}

double contact_min_distance(const tf_sim *s, const double *y, uint32_t *out_active) {
  const sim_contact *c = s->contact;
  double dmin = INFINITY;
  uint32_t active = 0;
  for (size_t k = 0; k < c->pair_count; ++k) {
    const contact_pair *p = &c->pairs[k];
    int v[4];
    double xs[12];
    double d = sqrt(contact_pair_distance2(s, p, y, NULL, NULL, v, xs));
    if (p->kind == CONTACT_G && p->inside) continue;
    if (d < p->dhat) active++;
    if (d < dmin) dmin = d;
  }
  if (out_active) *out_active = active;
  return dmin;
}

/* IPC's stiffness update (Li et al. 2020, supplemental): a pair closer than this share of its gap
 * means kappa is too soft for the load; doubling it keeps the next steps' gaps open */
static const double KAPPA_CLOSE = 0.25;
static const double KAPPA_SCALE_MAX = 1e4;

/* the candidates' distances after a step (blocks.c): each on any thread, counted in order */
typedef struct after_job {
  const tf_sim *s;
  const double *x;
  uint32_t active;
  int close;
} after_job;

static void after_pair(void *ctx, size_t k, void *out) {
  const after_job *j = ctx;
  const contact_pair *p = &j->s->contact->pairs[k];
  int v[4];
  double xs[12];
  *(double *)out = p->kind == CONTACT_G && p->inside
                       ? INFINITY /* pushed out by its spring: no distance of a contact */
                       : sqrt(contact_pair_distance2(j->s, p, j->x, NULL, NULL, v, xs));
}

static int after_take(void *ctx, size_t k, void *out) {
  after_job *j = ctx;
  sim_contact *c = j->s->contact;
  const contact_pair *p = &c->pairs[k];
  double d = *(const double *)out;
  if (p->kind == CONTACT_G && p->inside) return 1;
  if (d < p->dhat) j->active++;
  if (d < KAPPA_CLOSE * p->dhat) j->close = 1;
  if (d < c->min_distance) c->min_distance = d;
  return 1;
}

void contact_after_step(tf_sim *s, const double *x) {
  sim_contact *c = s->contact;
  after_job j = {s, x, 0, 0};
  contact_pairs_run(s, c->pair_count, sizeof(double), after_pair, after_take, &j);
  c->contacts = j.active;
  if (j.close && c->kappa_scale < KAPPA_SCALE_MAX) c->kappa_scale *= 2.0;
}

tf_status contact_enable(tf_sim *s) {
  if (s->contact) return TF_OK;
  uint32_t sets = s->set_count;
  sim_contact *c = sim_add_set(s, &ELEM_BARRIER);
  if (!c) return TF_E_NOMEM;
  s->contact = c;
  if (contact_init(s, c) == TF_OK && sim_add_set(s, &ELEM_FRICTION)) return TF_OK;
  /* undo: the sets as they were, nothing half-built left behind */
  while (s->set_count > sets) {
    elem_set *set = &s->sets[--s->set_count];
    if (set->ops->destroy) set->ops->destroy(&s->mem, set->data);
    if (set->data) mem_free(&s->mem, set->data, set->ops->data_size);
  }
  s->contact = NULL;
  return TF_E_NOMEM;
}

/* vertices' largest distance from the cover's positions over the segment y -> y + dir */
static int covered(const sim_contact *c, const double *y, const double *dir) {
  if (!c->cover_valid) return 0;
  double r2 = c->cover_r * c->cover_r;
  for (uint32_t i = 0; i < c->n; ++i) {
    const double *a = y + 3 * (size_t)i, *d = dir ? dir + 3 * (size_t)i : NULL,
                 *x = c->cover_x + 3 * (size_t)i;
    double e0[3], e1[3];
    v3_sub(e0, a, x);
    if (v3_norm2(e0) > r2) return 0;
    if (d) {
      v3_add(e1, e0, d);
      if (v3_norm2(e1) > r2) return 0;
    }
  }
  return 1;
}

tf_status contact_candidates_covering(tf_sim *s, const double *y, const double *dir) {
  sim_contact *c = s->contact;
  if (covered(c, y, dir)) return TF_OK;
  double r = COVER_SHARE * s->par.thickness, dmax = 0.0;
  if (dir)
    for (size_t k = 0; k < 3 * (size_t)c->n; ++k) dmax = fmax(dmax, fabs(dir[k]));
  if (sqrt(3.0) * dmax > r) {
    /* a long segment: its own swept candidates, no cover */
    for (size_t k = 0; k < 3 * (size_t)c->n; ++k) c->yseg[k] = y[k] + dir[k];
    return contact_candidates(s, y, c->yseg, 0);
  }
  /* a short one (Newton's late iterations): built around its start, wide enough for the next
   * segments of this size, which then reuse it */
  c->margin = 2.0 * r;
  tf_status st = contact_candidates(s, y, NULL, 0);
  c->margin = 0.0;
  if (st != TF_OK) return st;
  memcpy(c->cover_x, y, 3 * (size_t)c->n * sizeof *y);
  c->cover_r = r;
  c->cover_valid = 1;
  return TF_OK;
}
