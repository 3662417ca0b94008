/* SPDX-License-Identifier: MIT
 * Triangle-mesh topology for cloth: validated triangles, unique edges, bending hinges (interior
 * edges with their two opposite vertices), connected components and the vertex adjacency that
 * fixes the sparsity of the Newton Hessian. Immutable after trimesh_build. */
#ifndef TF_MESH_TRIMESH_H
#define TF_MESH_TRIMESH_H

#include "core/mem.h"

typedef struct trimesh {
  uint32_t vert_count, tri_count, edge_count, hinge_count, comp_count;
  uint32_t *tris;   /* (tri_count x 3) */
  uint32_t *edges;  /* (edge_count x 2), a < b */
  uint32_t *hinges; /* (hinge_count x 4): edge v0 v1, v2 opposite in the triangle (v0 v1 v2), v3 in
                       the other */
  uint32_t *comp;   /* (vert_count) connected component of each vertex, 0..comp_count-1 */
  /* symmetric vertex adjacency incl. the diagonal, CSR: vertices sharing a triangle or a hinge */
  uint32_t *adj_ptr; /* (vert_count + 1) */
  uint32_t *adj;     /* (adj_count) sorted per row */
  uint32_t adj_count;
} trimesh;

/* Check positions and triangles; on failure returns TF_E_BAD_MESH or TF_E_INVALID_ARG with a
 * message naming the first offending vertex or triangle, numbered from base (0 or 1: the host's
 * language). */
TF_LOCAL tf_status trimesh_validate(const double *pos, uint32_t vert_count, const uint32_t *tris,
                                    uint32_t tri_count, uint32_t base, char *err, size_t err_size);
/* Build topology (after trimesh_validate). Reports non-manifold edges and duplicate triangles,
 * vertex v named names[v] when names is not NULL (the host's numbers of renumbered vertices). */
TF_LOCAL tf_status trimesh_build(tf_mem *m, trimesh *t, uint32_t vert_count, const uint32_t *tris,
                                 uint32_t tri_count, uint32_t base, const uint32_t *names,
                                 char *err, size_t err_size);
TF_LOCAL void trimesh_free(tf_mem *m, trimesh *t);
/* Index of column j in row i of the adjacency, or UINT32_MAX. */
TF_LOCAL uint32_t trimesh_adj_find(const trimesh *t, uint32_t i, uint32_t j);
/* The part of the adjacency through triangles (edges and the diagonal, no hinge couplings), CSR
 * into new arrays *ptr (vert_count + 1) and *adj (*count); 0 when out of memory. */
TF_LOCAL int trimesh_edge_adjacency(tf_mem *m, const trimesh *t, uint32_t **ptr, uint32_t **adj,
                                    uint32_t *count);
/* flaps[3 f + k] (tri_count x 3): the vertex across the edge opposite corner k of triangle f (the
 * other triangle's third vertex), and nbr[3 f + k] (Nullable) that triangle; UINT32_MAX on a
 * boundary edge. 0 when out of memory. */
TF_LOCAL int trimesh_tri_flaps(tf_mem *m, const trimesh *t, uint32_t *flaps, uint32_t *nbr);
/* The area of triangle f at the positions pos (vert_count x 3), m^2: half |e1 x e2| with e1, e2
 * its edges from its first corner (as the membrane's rest frame computes it). */
TF_LOCAL double trimesh_rest_area(const trimesh *t, const double *pos, uint32_t f);
/* Add to the adjacency every pair of vertices within each of count elements, element e being
 * elems[stride e .. stride e + size[e]) (an energy whose stencil is wider than a triangle and its
 * hinges); 0 when out of memory, the adjacency then unchanged. */
TF_LOCAL int trimesh_add_couplings(tf_mem *m, trimesh *t, const uint32_t *elems, uint32_t count,
                                   int stride, const int *size);

#endif
