/* SPDX-License-Identifier: MIT
 * Embedding a render surface in a tet mesh: each point gets the tet that contains it and its four
 * barycentric weights (summing to 1), computed once at set-up, so the host's high-resolution skin
 * follows the simulation as x_p = sum_k w_k x_tet[k]. A point outside every tet (a skin vertex a
 * little outside a coarse lattice) takes the nearest tet in the barycentric sense, with weights
 * that extrapolate linearly (some negative, still summing to 1). */
#ifndef TF_MESH_TET_EMBED_H
#define TF_MESH_TET_EMBED_H

#include "core/mem.h"

typedef struct tet_embed_stats {
  uint32_t outside;     /* points not inside any tet (within a relative 1e-9) */
  double worst_outside; /* the most negative weight among them (0 if none) */
} tet_embed_stats;

/* tet_of (point_count) and weight (point_count x 4) filled in. Scratch comes from m and is
 * released before returning; TF_E_NOMEM leaves the outputs unspecified. */
TF_LOCAL tf_status tet_embed(tf_mem *m, const double *pos, const uint32_t *tets, uint32_t tet_count,
                             const double *points, uint32_t point_count, uint32_t *tet_of,
                             double *weight, tet_embed_stats *stats);

/* x_p = sum_a w_a x_elem[a] for every embedded point: elements of k nodes (4: the weights are
 * tet_embed's; 10: a quadratic tet's shape functions at them, neohookean_tet10.h) */
TF_LOCAL void tet_embed_apply(const double *x, const uint32_t *elems, int k, const uint32_t *tet_of,
                              const double *weight, uint32_t point_count, double *out);

#endif
