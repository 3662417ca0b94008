/* SPDX-License-Identifier: MIT
 * The per-element yield and plastic limits every plastic set shares (elements.h, elem_plastic):
 * the springs', the membrane's and the tets' strain plasticity, the shell's and the hinges'
 * bending plasticity. */
#include "sim/elements/elements.h"

tf_status elem_plastic_init(tf_mem *m, elem_plastic *p, uint32_t count, const uint32_t *verts,
                            uint32_t stride, uint32_t k, double yield, double limit) {
  *p = (elem_plastic){.count = count, .verts = verts, .stride = stride, .k = k};
  if (count == 0) return TF_OK;
  p->yield = mem_array(m, count, sizeof *p->yield);
  p->limit = mem_array(m, count, sizeof *p->limit);
  if (!p->yield || !p->limit) return TF_E_NOMEM;
  elem_plastic_set(p, 0, yield, NULL);
  elem_plastic_set(p, 1, limit, NULL);
  return TF_OK;
}

void elem_plastic_free(tf_mem *m, elem_plastic *p) {
  MEM_FREE_ARRAY(m, p->yield, p->count);
  MEM_FREE_ARRAY(m, p->limit, p->count);
}

void elem_plastic_set(elem_plastic *p, int limit, double uniform, const double *per_vertex) {
  double *dst = limit ? p->limit : p->yield;
  for (uint32_t e = 0; e < p->count; ++e) {
    if (!per_vertex) {
      dst[e] = uniform;
      continue;
    }
    dst[e] = elem_corner_mean(p->verts + (size_t)p->stride * e, p->k, per_vertex);
  }
  elem_plastic_refresh(p);
}

void elem_plastic_refresh(elem_plastic *p) {
  p->on = 0;
  for (uint32_t e = 0; e < p->count && !p->on; ++e) p->on = p->limit[e] > 0.0;
}
