/* SPDX-License-Identifier: MIT
 * Tearing of cloth (issue 23; Leplatre's springs that break, nCloth's tearable constraints).
 *
 * What breaks: an interior edge whose opening strain passes tear_strain (the mean of its two
 * vertices' values, a per-vertex map marking a weak seam). The opening strain is the stretch of
 * its two triangles across it, |F d| - 1 with d the unit rest direction in the triangle's plane
 * perpendicular to the edge, averaged over the two: a crack opens where the cloth is pulled
 * apart across it (mode I), not where it is stretched along it (Pfaff et al. 2014, "Adaptive
 * tearing and cracking of thin sheets", split along edges by the stress normal to them). It is
 * measured on the triangles whatever the energy, so membrane and spring cloth tear alike.
 *
 * How it splits: a broken edge is only a flag until the broken edges (with the boundary) cut a
 * vertex's ring of triangles into two or more fans; then the vertex is split, one copy per fan
 * (the fan with its lowest triangle keeps the vertex, the others get copies appended after the
 * last vertex, so every existing index stays valid). A copy gets its vertex's position and
 * velocity and the fan's share of its mass (by rest area: a density's lumped mass exactly), so
 * mass and momentum are kept to round-off. A tear starts at the boundary or where two broken
 * edges meet, as a real rip does.
 *
 * The rebuild: the simulation is created anew on the split mesh (sim_rebuild_cloth: element sets,
 * Hessian pattern, multigrid, pieces) and everything a step carries over is moved onto it:
 * state (per vertex from its parent, the carrier per piece), parameters, per-element maps and
 * plastic rest shapes (matched by their vertices' parents, or by triangle), pins, air, contact
 * (colliders, each vertex's contact state). Then the
 * two are swapped in place so the host's handle stays valid. A rebuild allocates, so it happens
 * only on the step that splits; a step that tears nothing allocates nothing. */
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "core/vec3.h"
#include "sim/sim.h"

void tear_free(tf_mem *m, sim_tear *t) {
  if (!t) return;
  MEM_FREE_ARRAY(m, t->origin, t->n);
  MEM_FREE_ARRAY(m, t->parent, t->n);
  MEM_FREE_ARRAY(m, t->map, t->n);
  MEM_FREE_ARRAY(m, t->nbr, 3 * (size_t)t->tris);
  MEM_FREE_ARRAY(m, t->cut, 3 * (size_t)t->tris);
  mem_free(m, t, sizeof *t);
}

tf_status tear_enable(tf_sim *s) {
  if (s->tear) return TF_OK;
  const trimesh *m = &s->model.mesh;
  sim_tear *t = mem_alloc(&s->mem, sizeof *t);
  if (!t) return TF_E_NOMEM;
  memset(t, 0, sizeof *t);
  t->n = t->n0 = s->model.n;
  t->tris = m->tri_count;
  t->origin = mem_array(&s->mem, t->n, sizeof *t->origin);
  t->parent = mem_array(&s->mem, t->n, sizeof *t->parent);
  t->map = mem_array(&s->mem, t->n, sizeof *t->map);
  t->nbr = mem_array(&s->mem, 3 * (size_t)t->tris, sizeof *t->nbr);
  t->cut = mem_array(&s->mem, 3 * (size_t)t->tris, sizeof *t->cut);
  uint32_t *flaps = mem_array(&s->mem, 3 * (size_t)t->tris, sizeof *flaps);
  int ok = t->origin && t->parent && t->map && t->nbr && t->cut && flaps &&
           trimesh_tri_flaps(&s->mem, m, flaps, t->nbr);
  MEM_FREE_ARRAY(&s->mem, flaps, 3 * (size_t)t->tris);
  if (!ok) return tear_free(&s->mem, t), TF_E_NOMEM;
  for (uint32_t i = 0; i < t->n; ++i) t->origin[i] = t->parent[i] = i;
  s->tear = t;
  return TF_OK;
}

tf_status tear_set_map(tf_sim *s, const double *values) {
  tf_status st = tear_enable(s);
  if (st != TF_OK) return st;
  sim_tear *t = s->tear;
  memcpy(t->map, values, sizeof(double) * t->n);
  t->has_map = 1;
  double mean = 0.0;
  for (uint32_t i = 0; i < t->n; ++i) mean += values[i] / t->n;
  s->par.tear_strain = mean; /* get_param reports the map's mean, as for the other maps */
  return TF_OK;
}

/* the opening strain of triangle f across its edge opposite corner k: |F d| - 1 */
static double opening(const tf_sim *s, uint32_t f, int k) {
  const uint32_t *v = s->model.mesh.tris + 3 * (size_t)f;
  const uint32_t a = v[(k + 1) % 3], b = v[(k + 2) % 3], c = v[k];
  const double *X = s->model.rest, *x = s->state.x;
  double e[3], h[3], de[3], dh[3];
  v3_sub(e, X + 3 * (size_t)b, X + 3 * (size_t)a);
  v3_sub(h, X + 3 * (size_t)c, X + 3 * (size_t)a);
  v3_sub(de, x + 3 * (size_t)b, x + 3 * (size_t)a);
  v3_sub(dh, x + 3 * (size_t)c, x + 3 * (size_t)a);
  /* d = (h - r e) / |h - r e|, r = h.e / e.e, and F d = (dh - r de) / |h - r e| */
  const double r = v3_dot(h, e) / v3_dot(e, e);
  double hp[3], fd[3];
  for (int i = 0; i < 3; ++i) hp[i] = h[i] - r * e[i], fd[i] = dh[i] - r * de[i];
  return v3_norm(fd) / v3_norm(hp) - 1.0;
}

/* the breaking strain of the edge from a to b (0: it never breaks) */
static double threshold(const tf_sim *s, uint32_t a, uint32_t b) {
  const sim_tear *t = s->tear;
  return t->has_map ? 0.5 * (t->map[a] + t->map[b]) : s->par.tear_strain;
}

/* the corner of triangle g whose opposite edge borders triangle f */
static int across(const sim_tear *t, uint32_t g, uint32_t f) {
  for (int k = 0; k < 3; ++k)
    if (t->nbr[3 * (size_t)g + k] == f) return k;
  return -1;
}

static uint32_t find(uint32_t *parent, uint32_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

/* sorted (key, index) pairs, for matching elements by their vertices' parents */
typedef struct keyed {
  uint64_t key;
  uint32_t index;
} keyed;
static int keyed_cmp(const void *pa, const void *pb) {
  const keyed *a = pa, *b = pb;
  return a->key < b->key ? -1 : a->key > b->key ? 1 : (a->index > b->index) - (a->index < b->index);
}
static uint64_t pair_key(uint32_t a, uint32_t b) {
  return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}
static uint32_t lookup(const keyed *k, uint32_t count, uint64_t key) {
  uint32_t lo = 0, hi = count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (k[mid].key < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < count && k[lo].key == key ? k[lo].index : UINT32_MAX;
}
/* old element e's pair: verts[stride e], verts[stride e + 1] */
static keyed *pair_table(tf_mem *m, const uint32_t *verts, uint32_t stride, uint32_t count) {
  keyed *k = mem_array(m, count ? count : 1, sizeof *k);
  if (!k) return NULL;
  for (uint32_t e = 0; e < count; ++e)
    k[e] = (keyed){pair_key(verts[(size_t)stride * e], verts[(size_t)stride * e + 1]), e};
  qsort(k, count, sizeof *k, keyed_cmp);
  return k;
}

static void copy_plastic(elem_plastic *dst, uint32_t d, const elem_plastic *src, uint32_t e) {
  dst->yield[d] = src->yield[e];
  dst->limit[d] = src->limit[e];
}

/* element ea of a's stretch stiffness from element eb of b's */
static void copy_stretch(elem_stiffness *a, uint32_t ea, const elem_stiffness *b, uint32_t eb) {
  if (ea >= a->count || eb >= b->count) return;
  a->value[ea] = b->value[eb];
  a->mapped = b->mapped;
  a->changed = 1;
}

/* per-element maps and plastic rest shapes from the old simulation o onto the new one n, each
 * element found by its vertices' parents (from), or by its triangle */
static int carry_elements(tf_sim *n, const tf_sim *o, const uint32_t *from) {
  if (n->membrane) { /* triangles keep their indices */
    elem_membrane *a = n->membrane;
    const elem_membrane *b = o->membrane;
    for (uint32_t t = 0; t < a->count; ++t) {
      a->rest[t] = b->rest[t];
      copy_plastic(&a->pl, t, &b->pl, t);
      copy_stretch(&a->stretch, t, &b->stretch, t);
    }
    elem_plastic_refresh(&a->pl);
  }
  if (n->shell) { /* one patch per triangle: the plastic offset of its rest curvature */
    elem_shell *a = n->shell;
    const elem_shell *b = o->shell;
    uint32_t *of = mem_array(&n->mem, b->cap ? b->cap : 1, sizeof *of);
    if (!of) return 0;
    for (uint32_t f = 0; f < b->cap; ++f) of[f] = UINT32_MAX;
    for (uint32_t k = 0; k < b->count; ++k) of[b->tri[k]] = k;
    for (uint32_t k = 0; k < a->count; ++k) {
      const uint32_t j = of[a->tri[k]];
      if (j == UINT32_MAX) continue;
      a->bend[k] = b->bend[j];
      copy_plastic(&a->pl, k, &b->pl, j);
      for (int c = 0; c < 3; ++c)
        a->b0[3 * (size_t)k + c] = a->rest[k].b0[c] + (b->b0[3 * (size_t)j + c] - b->rest[j].b0[c]);
    }
    elem_plastic_refresh(&a->pl);
    MEM_FREE_ARRAY(&n->mem, of, b->cap ? b->cap : 1);
  }
  if (n->hinge && o->hinge) { /* by its edge */
    elem_hinge *a = n->hinge;
    const elem_hinge *b = o->hinge;
    keyed *k = pair_table(&n->mem, b->hinges, 4, b->count);
    if (!k) return 0;
    for (uint32_t h = 0; h < a->count; ++h) {
      const uint32_t *v = a->hinges + 4 * (size_t)h;
      const uint32_t j = lookup(k, b->count, pair_key(from[v[0]], from[v[1]]));
      if (j == UINT32_MAX) continue;
      a->bend[h] = b->bend[j];
      a->theta[h] = b->theta[j];
      copy_plastic(&a->pl, h, &b->pl, j);
    }
    elem_plastic_refresh(&a->pl);
    MEM_FREE_ARRAY(&n->mem, k, b->count ? b->count : 1);
  }
  if (n->spring && o->spring) { /* by its two ends */
    elem_spring *a = n->spring;
    const elem_spring *b = o->spring;
    keyed *k = pair_table(&n->mem, b->sp.pairs, 2, b->sp.count);
    if (!k) return 0;
    for (uint32_t e = 0; e < a->sp.count; ++e) {
      const uint32_t *v = a->sp.pairs + 2 * (size_t)e;
      const uint32_t j = lookup(k, b->sp.count, pair_key(from[v[0]], from[v[1]]));
      if (j == UINT32_MAX) continue;
      a->rest[e] = b->rest[j];
      copy_plastic(&a->pl, e, &b->pl, j);
      copy_stretch(&a->stretch, e, &b->stretch, j);
    }
    elem_plastic_refresh(&a->pl);
    MEM_FREE_ARRAY(&n->mem, k, b->sp.count ? b->sp.count : 1);
  }
  return 1;
}

/* contact: the colliders move over (o gives them up), each vertex's state comes from its parent,
 * and the next advance looks again for vertices inside bodies and for crossings. A split's new
 * copies sit on their parents, which self-contact leaves alone: pairs closer than the gap in the
 * rest shape are not candidates (contact/self.c), and a copy's rest position is its parent's */
static tf_status carry_contact(tf_sim *n, tf_sim *o, const uint32_t *from) {
  if (!o->contact) return TF_OK;
  if (contact_enable(n) != TF_OK) return TF_E_NOMEM;
  sim_contact *c = n->contact, *d = o->contact;
  c->col = d->col, c->col_count = d->col_count, c->col_cap = d->col_cap;
  d->col = NULL, d->col_count = d->col_cap = 0;
  /* the broad phase's supersets hold the old surface's indices and o's memory */
  for (uint32_t k = 0; k < c->col_count; ++k)
    for (int q = 0; q < 3; ++q) {
      broad_cache_free(&c->col[k]->cache[q]);
      broad_cache_init(&c->col[k]->cache[q], &n->mem);
    }
  for (uint32_t i = 0; i < c->n; ++i) {
    const uint32_t j = from[i];
    c->below[i] = d->below[j];
    c->inside[i] = d->inside[j];
    c->inside_frames[i] = d->inside_frames[j];
    c->self_off[i] = d->self_off[j];
    c->tangled[i] = d->tangled[j];
    c->patch[i] = d->patch[j]; /* a patch is a label (an old index): the links still name it */
    c->poking[i] = d->poking[j];
    v3_copy(c->untangle + 3 * (size_t)i, d->untangle + 3 * (size_t)j);
    v3_copy(c->outside + 3 * (size_t)i, d->outside + 3 * (size_t)j);
  }
  /* a split only adds vertices (c->n >= d->n), so the old links fit */
  c->link_count = d->link_count, c->links_full = d->links_full;
  memcpy(c->links, d->links, sizeof *c->links * c->link_count);
  c->kappa_scale = d->kappa_scale;
  c->inside_check = c->tangle_check = 1;
  /* the stats of the advance in progress: the frame that tears reported a new contact's empty
   * counters (no contact, smallest distance inf) where its steps had 221 ground contacts */
  c->ccd_cuts = d->ccd_cuts, c->broad_pairs = d->broad_pairs, c->growths += d->growths;
  c->intersecting = d->intersecting, c->substeps_extra = d->substeps_extra;
  c->contacts = d->contacts, c->min_distance = d->min_distance, c->seconds = d->seconds;
  c->self_pairs_max = d->self_pairs_max, c->self_seconds = d->self_seconds;
  c->self_excluded = d->self_excluded;
  return TF_OK;
}

/* the response: each vertex's shares from its parent; the host's force stays on the vertex it
 * was given to (a split's copies take none: the total is kept). The levels are the same (the
 * rest shape is), their patches the new pieces' */
static tf_status carry_levels(tf_sim *n, const tf_sim *o, const uint32_t *from) {
  const sim_levels *b = o->levels;
  if (!b) return TF_OK;
  if (levels_enable(n) != TF_OK) return TF_E_NOMEM;
  sim_levels *a = n->levels;
  if (a->count != b->count) return TF_E_NOMEM; /* the rest box is the same: cannot happen */
  for (uint32_t i = 0; i < a->n; ++i) {
    memcpy(a->share + (size_t)i * a->count, b->share + (size_t)from[i] * b->count,
           sizeof(double) * a->count);
    if (from[i] == i) v3_copy(a->force + 3 * (size_t)i, b->force + 3 * (size_t)i);
  }
  levels_refresh(a);
  return levels_local(a) ? TF_OK : levels_build(n);
}

/* everything a step carries over, from o onto the freshly created n (vertex i's parent from[i]) */
static tf_status carry_over(tf_sim *n, tf_sim *o, const uint32_t *from) {
  n->par = o->par;
  n->index_base = o->index_base;
  n->frames = o->frames;
  n->stats = o->stats;
  n->pins.unfiltered = o->pins.unfiltered;
  /* the stretch stiffness the parameters say now (n was made with the def's); a map's per-element
   * values come over with the elements below */
  if (n->membrane) elem_stiffness_set(&n->membrane->stretch, n->par.stretch, NULL);
  if (n->spring) elem_stiffness_set(&n->spring->stretch, n->par.stretch, NULL);
  sim_params_derive(n);
  if (o->drag && o->drag->P && elem_drag_enable_air(n, n->drag) != TF_OK) return TF_E_NOMEM;
  const uint32_t nn = n->model.n;
  for (uint32_t i = 0; i < nn; ++i) {
    const size_t a = 3 * (size_t)i, b = 3 * (size_t)from[i];
    v3_copy(n->state.x + a, o->state.x + b);
    v3_copy(n->state.v + a, o->state.v + b);
    v3_copy(n->state.vref + a, o->state.vref + b);
    v3_copy(n->state.afict + a, o->state.afict + b);
    /* a piece of the new mesh lies within one of the old: its carrier */
    const uint32_t c = n->model.mesh.comp[i], d = o->model.mesh.comp[from[i]];
    memcpy(n->state.carrier + 9 * (size_t)c, o->state.carrier + 9 * (size_t)d, 9 * sizeof(double));
  }
  if (!carry_elements(n, o, from) || carry_contact(n, o, from) != TF_OK ||
      carry_levels(n, o, from) != TF_OK)
    return TF_E_NOMEM;
  sim_params_derive(n); /* constants from the carried per-element stiffness */
  /* pins: their vertices kept their indices */
  sim_pins *P = &n->pins;
  const sim_pins *Q = &o->pins;
  P->host = Q->host;
  P->targets_fresh = Q->targets_fresh;
  for (uint32_t q = 0; q < Q->host; ++q) {
    P->idx[q] = Q->idx[q];
    P->w[q] = Q->w[q];
    v3_copy(P->prev + 3 * q, Q->prev + 3 * q);
    v3_copy(P->next + 3 * q, Q->next + 3 * q);
    v3_copy(P->sub0 + 3 * q, Q->sub0 + 3 * q);
    v3_copy(P->sub + 3 * q, Q->sub + 3 * q);
    v3_copy(P->vel + 3 * q, Q->vel + 3 * q);
  }
  pins_derive(n);
  pins_refresh_components(n);
  sim_state_copy(n, &n->saved, &n->state); /* a later failure of this advance rolls back to here */
  return TF_OK;
}

/* split the vertices whose rings the newly broken edges cut (touched: those edges' ends), then
 * rebuild. TF_OK when nothing split or the rebuild took */
static tf_status split(tf_sim *s, const uint8_t *touched) {
  sim_tear *t = s->tear;
  const uint32_t n = s->model.n, nt = t->tris;
  tf_mem *m = &s->mem;
  /* each vertex's triangles (CSR) */
  uint32_t *ptr = mem_array(m, (size_t)n + 1, sizeof *ptr);
  uint32_t *ring = mem_array(m, 3 * (size_t)nt, sizeof *ring);
  uint32_t *parent = mem_array(m, nt, sizeof *parent);
  uint32_t *tris = mem_array(m, 3 * (size_t)nt, sizeof *tris);
  /* at most one copy per triangle corner */
  const size_t cap = (size_t)n + 3 * (size_t)nt;
  uint32_t *from = mem_array(m, cap, sizeof *from);
  double *mass = mem_array(m, cap, sizeof *mass);
  tf_status st = TF_E_NOMEM;
  if (!ptr || !ring || !parent || !tris || !from || !mass) goto done;
  memcpy(tris, s->model.mesh.tris, sizeof(uint32_t) * 3 * nt);
  for (uint32_t f = 0; f < 3 * nt; ++f) ptr[tris[f] + 1]++;
  for (uint32_t i = 0; i < n; ++i) ptr[i + 1] += ptr[i];
  {
    uint32_t *fill = from; /* scratch: the fill position per vertex */
    for (uint32_t i = 0; i < n; ++i) fill[i] = ptr[i];
    for (uint32_t f = 0; f < nt; ++f)
      for (int k = 0; k < 3; ++k) ring[fill[tris[3 * f + k]]++] = f;
  }
  for (uint32_t i = 0; i < n; ++i) from[i] = i, mass[i] = s->model.mass[i];
  uint32_t count = n;
  for (uint32_t v = 0; v < n; ++v) {
    if (!touched[v]) continue;
    /* join the ring's triangles across its unbroken edges at v */
    for (uint32_t r = ptr[v]; r < ptr[v + 1]; ++r) parent[ring[r]] = ring[r];
    for (uint32_t r = ptr[v]; r < ptr[v + 1]; ++r) {
      const uint32_t f = ring[r];
      for (int k = 0; k < 3; ++k) {
        if (s->model.mesh.tris[3 * (size_t)f + k] == v) continue; /* the edge away from v */
        const uint32_t g = t->nbr[3 * (size_t)f + k];
        if (g == UINT32_MAX || t->cut[3 * (size_t)f + k]) continue;
        const uint32_t a = find(parent, f), b = find(parent, g);
        if (a != b) parent[a < b ? b : a] = a < b ? a : b;
      }
    }
    /* the fan of the lowest triangle keeps v; every other fan takes a copy and its rest area's
     * share of v's mass */
    double area_all = 0.0;
    for (uint32_t r = ptr[v]; r < ptr[v + 1]; ++r)
      area_all += trimesh_rest_area(&s->model.mesh, s->model.rest, ring[r]);
    /* a ring of zero rest area (degenerate triangles): a share per triangle instead */
    const int by_count = !(area_all > 0.0);
    if (by_count) area_all = (double)(ptr[v + 1] - ptr[v]);
    const uint32_t keep = find(parent, ring[ptr[v]]);
    for (uint32_t r = ptr[v]; r < ptr[v + 1]; ++r) {
      const uint32_t root = find(parent, ring[r]);
      if (root == keep || root != ring[r]) continue; /* each other fan once, at its root */
      double area = 0.0;
      const uint32_t copy = count++;
      for (uint32_t q = ptr[v]; q < ptr[v + 1]; ++q) {
        const uint32_t f = ring[q];
        if (find(parent, f) != root) continue;
        area += by_count ? 1.0 : trimesh_rest_area(&s->model.mesh, s->model.rest, f);
        for (int k = 0; k < 3; ++k)
          if (tris[3 * (size_t)f + k] == v) tris[3 * (size_t)f + k] = copy;
      }
      from[copy] = v;
      mass[copy] = s->model.mass[v] * (area / area_all);
      mass[v] -= mass[copy];
    }
  }
  if (count == n) {
    st = TF_OK; /* the broken edges cut no ring apart yet: a slit, kept as flags */
    goto done;
  }
  {
    /* the new simulation, from the create's settings on the split mesh */
    double *rest = mem_array(m, 3 * (size_t)count, sizeof *rest);
    uint32_t *origin = mem_array(m, count, sizeof *origin);
    uint32_t *par = mem_array(m, count, sizeof *par);
    double *map = mem_array(m, count, sizeof *map);
    /* the vertices keep their places in the simulation's order and the copies follow, as the
     * host's numbers do */
    uint32_t *keep = s->model.host_of ? mem_array(m, count, sizeof *keep) : NULL;
    tf_sim *N = NULL;
    if (rest && origin && par && map && (keep || !s->model.host_of)) {
      for (uint32_t i = 0; keep && i < count; ++i) keep[i] = i < n ? s->model.host_of[i] : i;
      for (uint32_t i = 0; i < count; ++i) {
        v3_copy(rest + 3 * (size_t)i, s->model.rest + 3 * (size_t)from[i]);
        origin[i] = t->origin[from[i]];
        par[i] = i < n ? t->parent[i] : from[i];
        map[i] = t->map[from[i]];
      }
      tf_cloth_def d = s->cloth_def;
      d.rest_positions = rest, d.vert_count = count, d.triangles = tris, d.tri_count = nt;
      d.index_base = 0, d.vertex_masses = mass, d.total_mass = 0.0, d.initial_positions = NULL;
      char err[SIM_ERR_SIZE];
      st = sim_rebuild_cloth(&d, keep, &N, err, sizeof err);
      if (st == TF_OK) st = carry_over(N, s, from);
      if (st != TF_OK) {
        sim_destroy(N);
        N = NULL;
      }
    }
    if (N) {
      /* the tearing data moves over: per triangle as it was, per vertex grown */
      MEM_FREE_ARRAY(m, t->origin, t->n);
      MEM_FREE_ARRAY(m, t->parent, t->n);
      MEM_FREE_ARRAY(m, t->map, t->n);
      t->origin = origin, t->parent = par, t->map = map, t->n = count;
      origin = NULL, par = NULL, map = NULL;
      t->serial++;
      t->changed = 1;
      N->tear = t;
      s->tear = NULL;
      /* swap in place: the host's handle now holds the new simulation */
      tf_sim old;
      memcpy(&old, s, sizeof old);
      memcpy(s, N, sizeof old);
      memcpy(N, &old, sizeof old);
      sim_rebind(s);
      sim_rebind(N);
      sim_destroy(N);
      m = &s->mem;
      st = TF_OK;
    } else if (st == TF_OK) {
      st = TF_E_NOMEM;
    }
    MEM_FREE_ARRAY(m, rest, 3 * (size_t)count);
    MEM_FREE_ARRAY(m, origin, count);
    MEM_FREE_ARRAY(m, par, count);
    MEM_FREE_ARRAY(m, map, count);
    MEM_FREE_ARRAY(m, keep, keep ? count : 0);
  }
done:
  MEM_FREE_ARRAY(m, ptr, (size_t)n + 1);
  MEM_FREE_ARRAY(m, ring, 3 * (size_t)nt);
  MEM_FREE_ARRAY(m, parent, nt);
  MEM_FREE_ARRAY(m, tris, 3 * (size_t)nt);
  MEM_FREE_ARRAY(m, from, cap);
  MEM_FREE_ARRAY(m, mass, cap);
  return st;
}

tf_status tear_after_step(tf_sim *s) {
  sim_tear *t = s->tear;
  if (!t || (!t->has_map && !(s->par.tear_strain > 0.0))) return TF_OK;
  const uint32_t *tris = s->model.mesh.tris;
  uint32_t broke = 0;
  uint8_t *touched = NULL;
  for (uint32_t f = 0; f < t->tris; ++f)
    for (int k = 0; k < 3; ++k) {
      const uint32_t g = t->nbr[3 * (size_t)f + k];
      if (g == UINT32_MAX || g < f || t->cut[3 * (size_t)f + k]) continue;
      const uint32_t a = tris[3 * (size_t)f + (k + 1) % 3], b = tris[3 * (size_t)f + (k + 2) % 3];
      const double limit = threshold(s, a, b);
      if (!(limit > 0.0)) continue;
      const int kg = across(t, g, f);
      if (kg < 0) continue;
      const double open = 0.5 * (opening(s, f, k) + opening(s, g, kg));
      if (!(open > limit)) continue;
      if (!touched && !(touched = mem_array(&s->mem, s->model.n, 1))) return TF_E_NOMEM;
      t->cut[3 * (size_t)f + k] = t->cut[3 * (size_t)g + kg] = 1;
      touched[a] = touched[b] = 1;
      broke++;
    }
  if (!broke) return TF_OK;
  t->torn += broke;
  const uint32_t n = s->model.n;
  tf_status st = split(s, touched);
  /* split may have swapped s's insides: touched was allocated before, from the old record */
  MEM_FREE_ARRAY(&s->mem, touched, n);
  return st;
}
