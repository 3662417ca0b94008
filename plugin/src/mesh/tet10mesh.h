/* SPDX-License-Identifier: MIT
 * The nodes of quadratic tets (energy/neohookean_tet10.h) on a tet mesh: one node per edge after
 * the corners, each tet's ten nodes, the boundary faces split at their edge nodes (four flat
 * triangles each: what contact, wind and pictures see of the curved surface), and the adjacency of
 * the ten-node elements. The host knows only the corners: the edge nodes are the simulation's own
 * (sim.h model.host_n), placed at their edges' middles wherever the host sets corners. */
#ifndef TF_MESH_TET10MESH_H
#define TF_MESH_TET10MESH_H

#include "mesh/tetmesh.h"

typedef struct tet10mesh {
  uint32_t corner_count, edge_count, node_count; /* node_count = corners + edges */
  uint32_t tet_count, face_count;                /* face_count: 4 x the tet mesh's boundary faces */
  uint32_t *nodes; /* (tet_count x 10): the tet's corners as in tetmesh.tets, then its edges' nodes
                    * in TET10_EDGE's order */
  uint32_t *edges; /* (edge_count x 2): the corners of node corner_count + e */
  uint32_t *faces; /* (face_count x 3): boundary face f of the tet mesh is faces 4f..4f+3 */
  uint32_t *comp;  /* (node_count) connected component */
  uint32_t *adj_ptr, *adj, adj_count; /* as tetmesh's, over the nodes */
} tet10mesh;

TF_LOCAL tf_status tet10mesh_build(tf_mem *m, const tetmesh *t, tet10mesh *q);
TF_LOCAL void tet10mesh_free(tf_mem *m, tet10mesh *q);

/* Lumped node masses, kg, the quadratic tet's HRZ shares of each tet's rho x volume
 * (neohookean_tet10.h: 1/36 per corner, 4/27 per edge node); density (tet_count) per tet; mass
 * (node_count) overwritten. The linear tet's are tetmesh_lumped_mass */
TF_LOCAL void tet10mesh_lumped_mass(const tet10mesh *q, const tetmesh *t, const double *pos,
                                    const double *density, double *mass);
/* a (node_count x dim) field given at the corners: each edge node takes its corners' mean */
TF_LOCAL void tet10mesh_spread(const tet10mesh *q, double *a, int dim);
/* the transpose, for forces: each edge node's value is shared half and half by its corners (the
 * corners' rows of a field a, node_count x dim; the edge nodes' rows are left as they are) */
TF_LOCAL void tet10mesh_gather(const tet10mesh *q, double *a, int dim);
/* the mesh face of a split face, and the corner standing for a node (an edge node: its first) */
static inline uint32_t tet10mesh_parent_face(uint32_t f) { return f / 4; }
static inline uint32_t tet10mesh_corner(const tet10mesh *q, uint32_t node) {
  return node < q->corner_count ? node : q->edges[2 * (size_t)(node - q->corner_count)];
}

#endif
