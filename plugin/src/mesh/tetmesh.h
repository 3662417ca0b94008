/* SPDX-License-Identifier: MIT
 * Tetrahedral-mesh topology for flesh: validated tets re-oriented to positive rest volume, the
 * boundary surface (faces used by one tet, wound outward), connected components, the vertex
 * adjacency that fixes the Newton Hessian's sparsity, and a quality report. Immutable after
 * tetmesh_build. */
#ifndef TF_MESH_TETMESH_H
#define TF_MESH_TETMESH_H

#include "core/mem.h"

typedef struct tetmesh {
  uint32_t vert_count, tet_count, face_count, comp_count;
  uint32_t *tets;  /* (tet_count x 4), positively oriented at rest */
  uint32_t *faces; /* (face_count x 3) boundary triangles, counter-clockwise seen from outside */
  uint32_t *comp;  /* (vert_count) connected component of each vertex */
  uint32_t *adj_ptr, *adj; /* symmetric CSR adjacency incl. the diagonal, rows sorted */
  uint32_t adj_count;
} tetmesh;

typedef struct tetmesh_quality {
  double min_dihedral, max_dihedral; /* degrees, over all tets */
  double min_volume, max_volume;     /* m^3, signed: <= 0 means flat or inverted */
  uint32_t inverted;                 /* tets with volume <= 0 */
} tetmesh_quality;

/* Validate and build from rest positions: indices in range, four distinct vertices, no flat rest
 * tet, no face shared by more than two tets. Errors name the first offending tet, numbering tets
 * and vertices from base (0 or 1: the host's language), vertex v as names[v] when names is not
 * NULL (the host's numbers of renumbered vertices). */
TF_LOCAL tf_status tetmesh_build(tf_mem *m, tetmesh *t, const double *pos, uint32_t vert_count,
                                 const uint32_t *tets, uint32_t tet_count, uint32_t base,
                                 const uint32_t *names, char *err, size_t err_size);
/* the symmetric CSR adjacency (rows sorted, the diagonal included) of count elements of k vertices
 * each: the sparsity of their Hessian. *adj_ptr (vert_count + 1) and *adj (*adj_count) from m */
TF_LOCAL tf_status mesh_adjacency(tf_mem *m, const uint32_t *elems, uint32_t count, int k,
                                  uint32_t vert_count, uint32_t **adj_ptr, uint32_t **adj,
                                  uint32_t *adj_count);
TF_LOCAL void tetmesh_free(tf_mem *m, tetmesh *t);
/* Lumped vertex masses, kg: each tet's rho * volume split equally over its four corners (the
 * row sums of the linear-tet consistent mass matrix). mass (vert_count) is overwritten. density
 * (tet_count, kg/m^3) per tet, or Nullable with uniform_density used for all. */
TF_LOCAL void tetmesh_lumped_mass(const tetmesh *t, const double *pos, const double *density,
                                  double uniform_density, double *mass);
/* the signed volume of tet t (4 vertex indices) at positions pos, m^3 */
TF_LOCAL double tetmesh_volume(const double *pos, const uint32_t *t);
/* Dihedral angles and signed volumes of tets (as given, not re-oriented) at positions pos. */
TF_LOCAL void tetmesh_measure(const double *pos, const uint32_t *tets, uint32_t tet_count,
                              tetmesh_quality *q);

#endif
