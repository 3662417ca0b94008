/* SPDX-License-Identifier: MIT
 * The per-element stretch stiffness the membrane and the structural springs share (elements.h,
 * elem_stiffness): uniform from the parameter, or a per-vertex map's mean over each element. */
#include "sim/elements/elements.h"

tf_status elem_stiffness_init(tf_mem *m, elem_stiffness *st, uint32_t count, const uint32_t *verts,
                              uint32_t stride, uint32_t k, double uniform) {
  *st = (elem_stiffness){.count = count, .verts = verts, .stride = stride, .k = k};
  if (count == 0) return TF_OK;
  st->value = mem_array(m, count, sizeof *st->value);
  if (!st->value) return TF_E_NOMEM;
  elem_stiffness_set(st, uniform, NULL);
  return TF_OK;
}

void elem_stiffness_free(tf_mem *m, elem_stiffness *st) { MEM_FREE_ARRAY(m, st->value, st->count); }

void elem_stiffness_set(elem_stiffness *st, double uniform, const double *per_vertex) {
  for (uint32_t e = 0; e < st->count; ++e)
    st->value[e] = per_vertex
                       ? elem_corner_mean(st->verts + (size_t)st->stride * e, st->k, per_vertex)
                       : uniform;
  st->mapped = per_vertex != NULL;
  st->changed = 1;
}
