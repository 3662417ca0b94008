/* SPDX-License-Identifier: MIT
 * See tet10mesh.h. Edges are found by sorting every tet's six (min, max) corner pairs: O(T log T)
 * at set-up, no hashing, as the faces of tetmesh.c. */
#include "mesh/tet10mesh.h"

#include <stdlib.h>
#include <string.h>

#include "core/sorted.h"
#include "energy/neohookean_tet10.h"

static int key_cmp(const void *pa, const void *pb) {
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return a < b ? -1 : a > b;
}

static uint64_t edge_key(uint32_t a, uint32_t b) {
  return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

void tet10mesh_free(tf_mem *m, tet10mesh *q) {
  MEM_FREE_ARRAY(m, q->nodes, 10 * (size_t)q->tet_count);
  MEM_FREE_ARRAY(m, q->edges, 2 * (size_t)q->edge_count);
  MEM_FREE_ARRAY(m, q->faces, 3 * (size_t)(q->face_count ? q->face_count : 1));
  MEM_FREE_ARRAY(m, q->comp, q->node_count);
  if (q->adj_ptr) MEM_FREE_ARRAY(m, q->adj_ptr, q->node_count + 1);
  if (q->adj) MEM_FREE_ARRAY(m, q->adj, q->adj_count);
  memset(q, 0, sizeof *q);
}

/* the node of edge (a, b): keys sorted and unique, edge e is node corner_count + e */
static uint32_t edge_node(const uint64_t *keys, uint32_t count, uint32_t corners, uint32_t a,
                          uint32_t b) {
  return corners + sorted_floor_u64(keys, count, edge_key(a, b));
}

tf_status tet10mesh_build(tf_mem *m, const tetmesh *t, tet10mesh *q) {
  memset(q, 0, sizeof *q);
  size_t nk = 6 * (size_t)t->tet_count;
  uint64_t *keys = mem_array(m, nk, sizeof *keys);
  if (!keys) return TF_E_NOMEM;
  for (uint32_t e = 0; e < t->tet_count; ++e)
    for (int k = 0; k < 6; ++k) {
      const uint32_t *v = t->tets + 4 * (size_t)e;
      keys[6 * (size_t)e + k] = edge_key(v[TET10_EDGE[k][0]], v[TET10_EDGE[k][1]]);
    }
  qsort(keys, nk, sizeof *keys, key_cmp);
  size_t ne = 0;
  for (size_t k = 0; k < nk; ++k)
    if (ne == 0 || keys[k] != keys[ne - 1]) keys[ne++] = keys[k];
  q->corner_count = t->vert_count;
  q->edge_count = (uint32_t)ne;
  q->node_count = t->vert_count + (uint32_t)ne;
  q->tet_count = t->tet_count;
  q->face_count = 4 * t->face_count;
  q->nodes = mem_array(m, 10 * (size_t)t->tet_count, sizeof *q->nodes);
  q->edges = mem_array(m, 2 * ne, sizeof *q->edges);
  q->faces = mem_array(m, 3 * (size_t)(q->face_count ? q->face_count : 1), sizeof *q->faces);
  q->comp = mem_array(m, q->node_count, sizeof *q->comp);
  if (!q->nodes || !q->edges || !q->faces || !q->comp) goto fail;
  for (size_t e = 0; e < ne; ++e) {
    q->edges[2 * e] = (uint32_t)(keys[e] >> 32);
    q->edges[2 * e + 1] = (uint32_t)keys[e];
  }
  for (uint32_t e = 0; e < t->tet_count; ++e) {
    const uint32_t *v = t->tets + 4 * (size_t)e;
    uint32_t *n = q->nodes + 10 * (size_t)e;
    memcpy(n, v, 4 * sizeof *n);
    for (int k = 0; k < 6; ++k)
      n[4 + k] =
          edge_node(keys, (uint32_t)ne, t->vert_count, v[TET10_EDGE[k][0]], v[TET10_EDGE[k][1]]);
  }
  /* each face (a, b, c) into its corners' triangles and the middle one, keeping the winding */
  for (uint32_t f = 0; f < t->face_count; ++f) {
    const uint32_t *v = t->faces + 3 * (size_t)f;
    uint32_t ab = edge_node(keys, (uint32_t)ne, t->vert_count, v[0], v[1]);
    uint32_t bc = edge_node(keys, (uint32_t)ne, t->vert_count, v[1], v[2]);
    uint32_t ca = edge_node(keys, (uint32_t)ne, t->vert_count, v[2], v[0]);
    const uint32_t split[4][3] = {{v[0], ab, ca}, {v[1], bc, ab}, {v[2], ca, bc}, {ab, bc, ca}};
    memcpy(q->faces + 12 * (size_t)f, split, sizeof split);
  }
  memcpy(q->comp, t->comp, sizeof(uint32_t) * t->vert_count);
  for (size_t e = 0; e < ne; ++e) q->comp[t->vert_count + e] = t->comp[q->edges[2 * e]];
  MEM_FREE_ARRAY(m, keys, nk);
  keys = NULL;
  if (mesh_adjacency(m, q->nodes, q->tet_count, 10, q->node_count, &q->adj_ptr, &q->adj,
                     &q->adj_count) != TF_OK)
    goto fail;
  return TF_OK;
fail:
  if (keys) MEM_FREE_ARRAY(m, keys, nk);
  tet10mesh_free(m, q);
  return TF_E_NOMEM;
}

void tet10mesh_lumped_mass(const tet10mesh *q, const tetmesh *t, const double *pos,
                           const double *density, double *mass) {
  memset(mass, 0, sizeof(double) * q->node_count);
  for (uint32_t e = 0; e < q->tet_count; ++e) {
    const uint32_t *n = q->nodes + 10 * (size_t)e;
    double mt = density[e] * tetmesh_volume(pos, t->tets + 4 * (size_t)e);
    for (int k = 0; k < 10; ++k) mass[n[k]] += mt * (k < 4 ? TET10_MASS_CORNER : TET10_MASS_EDGE);
  }
}

void tet10mesh_spread(const tet10mesh *q, double *a, int dim) {
  for (uint32_t e = 0; e < q->edge_count; ++e) {
    const double *p = a + (size_t)dim * q->edges[2 * (size_t)e],
                 *r = a + (size_t)dim * q->edges[2 * (size_t)e + 1];
    double *o = a + (size_t)dim * (q->corner_count + e);
    for (int k = 0; k < dim; ++k) o[k] = 0.5 * (p[k] + r[k]);
  }
}

void tet10mesh_gather(const tet10mesh *q, double *a, int dim) {
  for (uint32_t e = 0; e < q->edge_count; ++e) {
    const double *o = a + (size_t)dim * (q->corner_count + e);
    for (int c = 0; c < 2; ++c) {
      double *p = a + (size_t)dim * q->edges[2 * (size_t)e + c];
      for (int k = 0; k < dim; ++k) p[k] += 0.5 * o[k];
    }
  }
}
