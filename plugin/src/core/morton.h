/* SPDX-License-Identifier: MIT
 * Points ordered along a Morton (Z-order) curve: 10 bits per axis over their bounding box, ties
 * by coordinates (then by index: only coincident points). Points near in the order are near in
 * space, so cutting the order into runs gives compact blocks (the threaded loops' element blocks
 * and the smoother's row blocks), and numbering a mesh's vertices in it keeps each element's
 * data close together (mesh/vertex_order.c). */
#ifndef TF_CORE_MORTON_H
#define TF_CORE_MORTON_H

#include "core/mem.h"

/* perm (n): the point indices in curve order; pos (n x 3). 0 when out of memory. */
TF_LOCAL int morton_order(tf_mem *m, uint32_t n, const double *pos, uint32_t *perm);

#endif
