/* SPDX-License-Identifier: MIT
 * Tetrahedral meshes from the two formats artists' meshers write: TetGen .node/.ele and Gmsh .msh
 * (ASCII, versions 2.2 and 4.1; linear tets, other element types skipped). Indices come back
 * 0-based and compact; a malformed file gives TF_E_BAD_MESH with "path:line: what" in err, an
 * unreadable one TF_E_IO, an allocation failure TF_E_NOMEM ("path:line: out of memory for ...").
 * Memory follows the data read, never a header's counts. Nothing is kept on failure. */
#ifndef TF_MESH_TETMESH_IO_H
#define TF_MESH_TETMESH_IO_H

#include "core/mem.h"

#define TETMESH_MAX_NAMES 64
#define TETMESH_NAME_SIZE 64

typedef struct tetmesh_region_name {
  int32_t region;
  char name[TETMESH_NAME_SIZE];
} tetmesh_region_name;

typedef struct tetmesh_data {
  uint32_t vert_count, tet_count;
  double *pos;     /* (vert_count x 3) */
  uint32_t *tets;  /* (tet_count x 4), as written in the file (orientation is not changed) */
  int32_t *region; /* (tet_count): TetGen's first element attribute, Gmsh's physical tag (2.2; in
                      4.1 the volume entity's first physical tag, else its entity tag); 0 if none */
  uint32_t name_count; /* Gmsh $PhysicalNames of dimension 3: the material regions by name */
  tetmesh_region_name names[TETMESH_MAX_NAMES];
} tetmesh_data;

/* node_path: the .node file; ele_path: the .ele file. */
TF_LOCAL tf_status tetmesh_load_tetgen(tf_mem *m, const char *node_path, const char *ele_path,
                                       tetmesh_data *out, char *err, size_t err_size);
TF_LOCAL tf_status tetmesh_load_gmsh(tf_mem *m, const char *path, tetmesh_data *out, char *err,
                                     size_t err_size);
/* The same parsers over bytes in memory (the fuzz targets; names are used in messages). */
TF_LOCAL tf_status tetmesh_load_tetgen_mem(tf_mem *m, const char *node_name, const void *node_data,
                                           size_t node_size, const char *ele_name,
                                           const void *ele_data, size_t ele_size, tetmesh_data *out,
                                           char *err, size_t err_size);
TF_LOCAL tf_status tetmesh_load_gmsh_mem(tf_mem *m, const char *name, const void *data, size_t size,
                                         tetmesh_data *out, char *err, size_t err_size);
TF_LOCAL void tetmesh_data_free(tf_mem *m, tetmesh_data *d);

#endif
