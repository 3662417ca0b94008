/* SPDX-License-Identifier: MIT
 * Validation and topology of triangle meshes. Edges come from sorting the 3T half-edges once at
 * set-up; an edge with two triangles becomes a hinge (Bridson et al. 2003), one with more is
 * rejected (non-manifold bending is undefined). Components by union-find over triangles. */
#include "mesh/trimesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec3.h"

/* a triangle whose area is below this fraction of its longest edge squared is degenerate */
static const double DEGENERATE_AREA_REL = 1e-10;

tf_status trimesh_validate(const double *pos, uint32_t nv, const uint32_t *tris, uint32_t nt,
                           uint32_t b, char *err, size_t n) {
  if (!pos) return snprintf(err, n, "rest_positions is NULL"), TF_E_INVALID_ARG;
  if (!tris) return snprintf(err, n, "triangles is NULL"), TF_E_INVALID_ARG;
  if (nv < 3) return snprintf(err, n, "vert_count is %u, need at least 3", nv), TF_E_BAD_MESH;
  if (nt < 1) return snprintf(err, n, "tri_count is 0"), TF_E_BAD_MESH;
  for (uint32_t i = 0; i < nv; ++i)
    if (!tf_isfinite3(pos + 3 * i))
      return snprintf(err, n, "vertex %u has a non-finite position", i + b), TF_E_INVALID_ARG;
  for (uint32_t t = 0; t < nt; ++t) {
    const uint32_t *v = tris + 3 * t;
    for (int k = 0; k < 3; ++k)
      if (v[k] >= nv)
        return snprintf(err, n, "triangle %u: vertex index %u out of range %u..%u", t + b, v[k] + b,
                        b, nv - 1 + b),
               TF_E_BAD_MESH;
    if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2])
      return snprintf(err, n, "triangle %u repeats a vertex (%u %u %u)", t + b, v[0] + b, v[1] + b,
                      v[2] + b),
             TF_E_BAD_MESH;
    double e1[3], e2[3], e3[3], c[3];
    v3_sub(e1, pos + 3 * v[1], pos + 3 * v[0]);
    v3_sub(e2, pos + 3 * v[2], pos + 3 * v[0]);
    v3_sub(e3, pos + 3 * v[2], pos + 3 * v[1]);
    v3_cross(c, e1, e2);
    double lmax2 = fmax(v3_norm2(e1), fmax(v3_norm2(e2), v3_norm2(e3)));
    double area = 0.5 * v3_norm(c);
    if (!(area > DEGENERATE_AREA_REL * lmax2))
      return snprintf(err, n, "triangle %u (%u %u %u) is degenerate (zero area)", t + b, v[0] + b,
                      v[1] + b, v[2] + b),
             TF_E_BAD_MESH;
  }
  return TF_OK;
}

typedef struct half_edge {
  uint32_t a, b, tri, opp;
} half_edge; /* a < b; opp = third vertex */

static int cmp_half_edge(const void *pa, const void *pb) {
  const half_edge *x = pa, *y = pb;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  return x->tri < y->tri ? -1 : (x->tri > y->tri);
}

static int cmp_u64(const void *pa, const void *pb) {
  uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;
  return x < y ? -1 : (x > y);
}

static uint32_t uf_find(uint32_t *parent, uint32_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* does triangle t traverse a -> b (in that direction)? */
static int tri_has_directed(const uint32_t *tri, uint32_t a, uint32_t b) {
  for (int k = 0; k < 3; ++k)
    if (tri[k] == a && tri[(k + 1) % 3] == b) return 1;
  return 0;
}

tf_status trimesh_build(tf_mem *m, trimesh *t, uint32_t nv, const uint32_t *tris, uint32_t nt,
                        uint32_t base, const uint32_t *names, char *err, size_t n) {
  tf_status st = TF_E_NOMEM;
  memset(t, 0, sizeof *t);
  t->vert_count = nv;
  t->tri_count = nt;
  half_edge *he = mem_array(m, (size_t)nt * 3, sizeof *he);
  uint64_t *pairs = NULL;
  size_t pair_cap = 0;
  t->tris = mem_array(m, (size_t)nt * 3, sizeof *t->tris);
  if (!he || !t->tris) goto fail;
  memcpy(t->tris, tris, (size_t)nt * 3 * sizeof *tris);

  /* half-edges sorted by (min, max) bring each edge's triangles together */
  for (uint32_t i = 0; i < nt; ++i)
    for (int k = 0; k < 3; ++k) {
      uint32_t a = tris[3 * i + k], b = tris[3 * i + (k + 1) % 3];
      half_edge h = {a < b ? a : b, a < b ? b : a, i, tris[3 * i + (k + 2) % 3]};
      he[3 * i + k] = h;
    }
  qsort(he, (size_t)nt * 3, sizeof *he, cmp_half_edge);
  uint32_t ne = 0, nh = 0;
  for (size_t i = 0; i < (size_t)nt * 3;) {
    size_t j = i + 1;
    while (j < (size_t)nt * 3 && he[j].a == he[i].a && he[j].b == he[i].b) ++j;
    if (j - i > 2) {
      snprintf(err, n,
               "edge (%u %u) is shared by %zu triangles (non-manifold), e.g. triangles %u and %u",
               (names ? names[he[i].a] : he[i].a) + base, (names ? names[he[i].b] : he[i].b) + base,
               j - i, he[i].tri + base, he[i + 1].tri + base);
      st = TF_E_BAD_MESH;
      goto fail;
    }
    if (j - i == 2) {
      if (he[i].opp == he[i + 1].opp) {
        snprintf(err, n, "triangle %u duplicates triangle %u", he[i + 1].tri + base,
                 he[i].tri + base);
        st = TF_E_BAD_MESH;
        goto fail;
      }
      nh++;
    }
    ne++;
    i = j;
  }
  t->edge_count = ne;
  t->hinge_count = nh;
  t->edges = mem_array(m, (size_t)ne * 2, sizeof *t->edges);
  t->hinges = mem_array(m, (size_t)(nh ? nh : 1) * 4, sizeof *t->hinges);
  if (!t->edges || !t->hinges) goto fail;
  ne = nh = 0;
  for (size_t i = 0; i < (size_t)nt * 3;) {
    size_t j = i + 1;
    while (j < (size_t)nt * 3 && he[j].a == he[i].a && he[j].b == he[i].b) ++j;
    t->edges[2 * ne] = he[i].a;
    t->edges[2 * ne + 1] = he[i].b;
    ne++;
    if (j - i == 2) {
      /* orient the hinge by the first triangle: it runs v0 -> v1, v2 is its third vertex */
      const half_edge *h0 = &he[i], *h1 = &he[i + 1];
      uint32_t v0 = h0->a, v1 = h0->b;
      if (!tri_has_directed(tris + 3 * h0->tri, v0, v1)) {
        v0 = h0->b;
        v1 = h0->a;
      }
      uint32_t *hg = t->hinges + 4 * nh++;
      hg[0] = v0;
      hg[1] = v1;
      hg[2] = h0->opp;
      hg[3] = h1->opp;
    }
    i = j;
  }

  /* connected components (union-find over triangle corners) */
  t->comp = mem_array(m, nv, sizeof *t->comp);
  if (!t->comp) goto fail;
  for (uint32_t i = 0; i < nv; ++i) t->comp[i] = i;
  for (uint32_t i = 0; i < nt; ++i) {
    uint32_t r0 = uf_find(t->comp, tris[3 * i]);
    for (int k = 1; k < 3; ++k) {
      uint32_t r = uf_find(t->comp, tris[3 * i + k]);
      if (r != r0) t->comp[r] = r0;
    }
  }
  {
    /* relabel roots 0..comp_count-1 in vertex order */
    uint32_t *map = mem_array(m, nv, sizeof *map);
    if (!map) goto fail;
    for (uint32_t i = 0; i < nv; ++i) map[i] = UINT32_MAX;
    uint32_t cc = 0;
    for (uint32_t i = 0; i < nv; ++i) {
      uint32_t r = uf_find(t->comp, i);
      if (map[r] == UINT32_MAX) map[r] = cc++;
    }
    /* resolve every root before relabelling: comp is both the forest and the output */
    for (uint32_t i = 0; i < nv; ++i) t->comp[i] = uf_find(t->comp, i);
    for (uint32_t i = 0; i < nv; ++i) t->comp[i] = map[t->comp[i]];
    t->comp_count = cc;
    MEM_FREE_ARRAY(m, map, nv);
  }

  /* adjacency pairs: every triangle's corner pairs, every hinge's (v2, v3), every diagonal */
  pair_cap = (size_t)nt * 6 + (size_t)nh * 2 + nv;
  pairs = mem_array(m, pair_cap, sizeof *pairs);
  if (!pairs) goto fail;
  size_t np = 0;
  for (uint32_t i = 0; i < nv; ++i) pairs[np++] = ((uint64_t)i << 32) | i;
  for (uint32_t i = 0; i < nt; ++i)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        if (a != b) pairs[np++] = ((uint64_t)tris[3 * i + a] << 32) | tris[3 * i + b];
  for (uint32_t h = 0; h < nh; ++h) {
    uint32_t a = t->hinges[4 * h + 2], b = t->hinges[4 * h + 3];
    pairs[np++] = ((uint64_t)a << 32) | b;
    pairs[np++] = ((uint64_t)b << 32) | a;
  }
  qsort(pairs, np, sizeof *pairs, cmp_u64);
  size_t nu = 0;
  for (size_t i = 0; i < np; ++i)
    if (i == 0 || pairs[i] != pairs[i - 1]) pairs[nu++] = pairs[i];
  t->adj_ptr = mem_array(m, (size_t)nv + 1, sizeof *t->adj_ptr);
  t->adj = mem_array(m, nu, sizeof *t->adj);
  t->adj_count = (uint32_t)nu;
  if (!t->adj_ptr || !t->adj) goto fail;
  for (size_t i = 0; i < nu; ++i) {
    t->adj_ptr[(pairs[i] >> 32) + 1]++;
    t->adj[i] = (uint32_t)(pairs[i] & 0xffffffffu);
  }
  for (uint32_t i = 0; i < nv; ++i) t->adj_ptr[i + 1] += t->adj_ptr[i];

  MEM_FREE_ARRAY(m, pairs, pair_cap);
  MEM_FREE_ARRAY(m, he, (size_t)nt * 3);
  return TF_OK;

fail:
  if (st == TF_E_NOMEM) snprintf(err, n, "out of memory building mesh topology");
  if (pairs) MEM_FREE_ARRAY(m, pairs, pair_cap);
  if (he) MEM_FREE_ARRAY(m, he, (size_t)nt * 3);
  trimesh_free(m, t);
  return st;
}

void trimesh_free(tf_mem *m, trimesh *t) {
  MEM_FREE_ARRAY(m, t->tris, (size_t)t->tri_count * 3);
  MEM_FREE_ARRAY(m, t->edges, (size_t)t->edge_count * 2);
  MEM_FREE_ARRAY(m, t->hinges, (size_t)(t->hinge_count ? t->hinge_count : 1) * 4);
  MEM_FREE_ARRAY(m, t->comp, t->vert_count);
  MEM_FREE_ARRAY(m, t->adj, t->adj_count);
  MEM_FREE_ARRAY(m, t->adj_ptr, (size_t)t->vert_count + 1);
  memset(t, 0, sizeof *t);
}

uint32_t trimesh_adj_find(const trimesh *t, uint32_t i, uint32_t j) {
  uint32_t lo = t->adj_ptr[i], hi = t->adj_ptr[i + 1];
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (t->adj[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (lo < t->adj_ptr[i + 1] && t->adj[lo] == j) ? lo : UINT32_MAX;
}

int trimesh_edge_adjacency(tf_mem *m, const trimesh *t, uint32_t **out_ptr, uint32_t **out_adj,
                           uint32_t *out_count) {
  uint32_t n = t->vert_count;
  uint8_t *keep = mem_array(m, t->adj_count, sizeof *keep);
  uint32_t *ptr = mem_array(m, (size_t)n + 1, sizeof *ptr);
  if (!keep || !ptr) {
    MEM_FREE_ARRAY(m, keep, t->adj_count);
    MEM_FREE_ARRAY(m, ptr, (size_t)n + 1);
    return 0;
  }
  memset(keep, 0, t->adj_count);
  for (uint32_t i = 0; i < n; ++i) keep[trimesh_adj_find(t, i, i)] = 1;
  for (uint32_t f = 0; f < t->tri_count; ++f)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        keep[trimesh_adj_find(t, t->tris[3 * f + a], t->tris[3 * f + b])] = 1;
  uint32_t count = 0;
  for (uint32_t k = 0; k < t->adj_count; ++k) count += keep[k];
  uint32_t *adj = mem_array(m, count, sizeof *adj);
  if (!adj) {
    MEM_FREE_ARRAY(m, keep, t->adj_count);
    MEM_FREE_ARRAY(m, ptr, (size_t)n + 1);
    return 0;
  }
  uint32_t c = 0;
  for (uint32_t i = 0; i < n; ++i) {
    ptr[i] = c;
    for (uint32_t k = t->adj_ptr[i]; k < t->adj_ptr[i + 1]; ++k)
      if (keep[k]) adj[c++] = t->adj[k];
  }
  ptr[n] = c;
  MEM_FREE_ARRAY(m, keep, t->adj_count);
  *out_ptr = ptr, *out_adj = adj, *out_count = count;
  return 1;
}

int trimesh_tri_flaps(tf_mem *m, const trimesh *t, uint32_t *flaps, uint32_t *nbr) {
  uint32_t nt = t->tri_count;
  /* each half edge with its triangle and corner; twins sort next to each other */
  half_edge *he = mem_array(m, (size_t)nt * 3, sizeof *he);
  if (!he) return 0;
  for (uint32_t f = 0; f < nt; ++f)
    for (int k = 0; k < 3; ++k) {
      uint32_t a = t->tris[3 * f + (k + 1) % 3], b = t->tris[3 * f + (k + 2) % 3];
      he[3 * f + k] = (half_edge){a < b ? a : b, a < b ? b : a, f, (uint32_t)k};
      flaps[3 * f + k] = UINT32_MAX;
      if (nbr) nbr[3 * f + k] = UINT32_MAX;
    }
  qsort(he, (size_t)nt * 3, sizeof *he, cmp_half_edge);
  for (size_t i = 0; i + 1 < (size_t)nt * 3; ++i) {
    const half_edge *x = &he[i], *y = &he[i + 1];
    if (x->a != y->a || x->b != y->b) continue;
    /* here opp holds the corner opposite the edge, so the flap is the twin's corner vertex */
    flaps[3 * x->tri + x->opp] = t->tris[3 * y->tri + y->opp];
    flaps[3 * y->tri + y->opp] = t->tris[3 * x->tri + x->opp];
    if (nbr) nbr[3 * x->tri + x->opp] = y->tri, nbr[3 * y->tri + y->opp] = x->tri;
    ++i;
  }
  MEM_FREE_ARRAY(m, he, (size_t)nt * 3);
  return 1;
}

int trimesh_add_couplings(tf_mem *m, trimesh *t, const uint32_t *elems, uint32_t count, int stride,
                          const int *size) {
  uint32_t n = t->vert_count;
  size_t cap = (size_t)t->adj_count;
  for (uint32_t e = 0; e < count; ++e) cap += (size_t)size[e] * (size[e] - 1);
  uint64_t *pairs = mem_array(m, cap, sizeof *pairs);
  if (!pairs) return 0;
  size_t np = 0;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t q = t->adj_ptr[i]; q < t->adj_ptr[i + 1]; ++q)
      pairs[np++] = ((uint64_t)i << 32) | t->adj[q];
  for (uint32_t e = 0; e < count; ++e) {
    const uint32_t *v = elems + (size_t)stride * e;
    for (int a = 0; a < size[e]; ++a)
      for (int b = 0; b < size[e]; ++b)
        if (a != b) pairs[np++] = ((uint64_t)v[a] << 32) | v[b];
  }
  qsort(pairs, np, sizeof *pairs, cmp_u64);
  size_t nu = 0;
  for (size_t i = 0; i < np; ++i)
    if (i == 0 || pairs[i] != pairs[i - 1]) pairs[nu++] = pairs[i];
  uint32_t *adj = mem_array(m, nu, sizeof *adj);
  if (!adj) return MEM_FREE_ARRAY(m, pairs, cap), 0;
  memset(t->adj_ptr, 0, sizeof *t->adj_ptr * ((size_t)n + 1));
  for (size_t i = 0; i < nu; ++i) {
    t->adj_ptr[(pairs[i] >> 32) + 1]++;
    adj[i] = (uint32_t)(pairs[i] & 0xffffffffu);
  }
  for (uint32_t i = 0; i < n; ++i) t->adj_ptr[i + 1] += t->adj_ptr[i];
  MEM_FREE_ARRAY(m, t->adj, t->adj_count);
  t->adj = adj;
  t->adj_count = (uint32_t)nu;
  MEM_FREE_ARRAY(m, pairs, cap);
  return 1;
}

double trimesh_rest_area(const trimesh *t, const double *pos, uint32_t f) {
  const uint32_t *v = t->tris + 3 * (size_t)f;
  double e1[3], e2[3], n[3];
  v3_sub(e1, pos + 3 * (size_t)v[1], pos + 3 * (size_t)v[0]);
  v3_sub(e2, pos + 3 * (size_t)v[2], pos + 3 * (size_t)v[0]);
  v3_cross(n, e1, e2);
  return 0.5 * v3_norm(n);
}
