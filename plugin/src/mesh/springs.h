/* SPDX-License-Identifier: MIT
 * The three spring families of Leplatre's mass-spring cloth (the seeds' leplatre2016 lecture),
 * built from a triangle mesh at rest:
 *   structural: every mesh edge, except a quad's diagonal;
 *   shear:      a quad's two diagonals, where a quad is two triangles whose shared edge is opposite
 *               a right angle (within SPRINGS_RIGHT_TOL) in both: the triangulated grid's cells;
 *   bend:       vertices two structural edges apart along a nearly straight line (the angle at the
 *               middle vertex at least SPRINGS_STRAIGHT_DEG): on a grid, the skip-one springs.
 * On a triangulated grid these are exactly the lecture's layout; on an irregular mesh every edge
 * is structural (its triangles already hold their shape), shear springs appear only where two
 * triangles make a near-rectangle, and bend springs only along near-straight edge paths. */
#ifndef TF_MESH_SPRINGS_H
#define TF_MESH_SPRINGS_H

#include "mesh/trimesh.h"

enum { SPRING_STRUCTURAL = 0, SPRING_SHEAR = 1, SPRING_BEND = 2, SPRING_FAMILIES = 3 };

#define SPRINGS_RIGHT_TOL_DEG 15.0
#define SPRINGS_STRAIGHT_DEG 150.0

typedef struct springs {
  uint32_t count;                      /* all springs, family by family */
  uint32_t first[SPRING_FAMILIES + 1]; /* springs first[f] .. first[f + 1] - 1 are family f */
  uint32_t *pairs;                     /* (count x 2) vertex pairs, a < b */
} springs;

/* From the built mesh t and its rest positions (t->vert_count x 3). TF_E_NOMEM when out of
 * memory (nothing left allocated). */
TF_LOCAL tf_status springs_build(tf_mem *m, const trimesh *t, const double *rest, springs *out);
TF_LOCAL void springs_free(tf_mem *m, springs *s);

#endif
