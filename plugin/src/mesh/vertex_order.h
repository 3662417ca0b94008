/* SPDX-License-Identifier: MIT
 * An order of a mesh's vertices that keeps neighbours close in memory: the Morton curve of their
 * rest positions (core/morton.h), used when the host's own order is far less local (a modeller's
 * or a mesher's numbering), the host's kept when it is already as good (a grid row by row). */
#ifndef TF_MESH_VERTEX_ORDER_H
#define TF_MESH_VERTEX_ORDER_H

#include "core/mem.h"

/* The host's order is kept when the mean index distance |i - j| over the elements' edges is at
 * most VERTEX_ORDER_KEEP times the curve's: grids are within 1.01x of it, TetGen's cube of 4426
 * vertices is 6.6x, a shuffled 257 x 257 sheet 128x (results/2026-12-03-vertex-order). */
#define VERTEX_ORDER_KEEP 2.0

/* count elements of k vertices each (elems, k x count) over nv vertices at pos (nv x 3): order
 * (nv) the curve's (order[i] the host's vertex placed at i) and *reordered = 1, or *reordered = 0
 * when the host's order is kept (also for an index out of range or a position not finite, which
 * the mesh's own checks then report). 0 when out of memory */
TF_LOCAL int vertex_order(tf_mem *m, const double *pos, uint32_t nv, const uint32_t *elems,
                          uint32_t k, uint32_t count, uint32_t *order, int *reordered);

#endif
