/* SPDX-License-Identifier: MIT
 * A tet mesh for a closed triangle surface, since artists have surfaces, not tets: a regular
 * lattice of cubes, each cut into Kuhn's six tets (the cut is the same in every cube, so the tets
 * conform across faces and none is inverted; dihedral angles 45-90 degrees). A cube is kept if a
 * corner is inside the surface (generalized winding number > 1/2, Jacobson et al. 2013) or the cube
 * intersects a surface triangle, so the whole surface lies in the lattice and can be embedded
 * with non-negative weights. */
#ifndef TF_MESH_TETRAHEDRALIZE_H
#define TF_MESH_TETRAHEDRALIZE_H

#include "mesh/tetmesh_io.h"

/* cells: lattice cubes along the surface's longest bounding-box axis (2..512). The result is a
 * tetmesh_data (region 0), released with tetmesh_data_free. */
TF_LOCAL tf_status tetrahedralize_surface(tf_mem *m, const double *pos, uint32_t vert_count,
                                          const uint32_t *tris, uint32_t tri_count, int cells,
                                          tetmesh_data *out, char *err, size_t err_size);

/* The lattice for `cells` along the longest side of the points' bounding box: cells per axis (with
 * one cell of margin each side), its corner and cell size. 0 if the box has no extent or one that
 * does not fit a double (the cell counts would not be integers). */
TF_LOCAL int tetrahedralize_lattice(const double *pos, uint32_t vert_count, int cells, int dim[3],
                                    double origin[3], double *h);
/* Memory a flesh simulation built on that lattice needs at most (every cell kept: 6 tets each),
 * in bytes. Measured: 900-985 bytes per tet live after tf_flesh_create (cube at 8-32 cells, tets,
 * topology, masses, multigrid), rounded up. */
#define TETRAHEDRALIZE_BYTES_PER_TET 1000.0
TF_LOCAL double tetrahedralize_bytes(const int dim[3]);

/* Generalized winding number of the surface at p: 1 inside a closed, outward-wound surface, 0
 * outside. */
TF_LOCAL double winding_number(const double *pos, const uint32_t *tris, uint32_t tri_count,
                               const double p[3]);
/* Signed volume a closed triangle surface encloses (divergence theorem): positive when wound
 * outward. Measured from the first corner, so a body far from the origin loses no digits. */
TF_LOCAL double enclosed_volume(const double *pos, const uint32_t *tris, uint32_t tri_count);

#endif
