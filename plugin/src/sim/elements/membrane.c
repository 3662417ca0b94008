/* SPDX-License-Identifier: MIT
 * The membrane set: StVK on each cloth triangle against its rest frame (energy/membrane_tri.c),
 * Hessians PSD-projected per element. */
#include "core/vec3.h"
#include "sim/sim.h"

static double membrane_one(const void *ctx, uint32_t t) {
  const elem_ctx *c = ctx;
  const elem_membrane *e = c->data;
  double lx[9], g[9], h[81], *grad = c->grad;
  const uint32_t *v = e->tris + 3 * (size_t)t;
  for (int k = 0; k < 3; ++k) v3_copy(lx + 3 * k, c->y + 3 * (size_t)v[k]);
  double E =
      membrane_energy(&e->rest[t], lx, e->lambda, e->mu, grad ? g : NULL, c->H ? h : NULL, 1);
  if (grad)
    for (int k = 0; k < 3; ++k) v3_add(grad + 3 * (size_t)v[k], grad + 3 * (size_t)v[k], g + 3 * k);
  if (c->H) elem_scatter(c->H, e->slot + 9 * (size_t)t, h, 3);
  return E;
}

static void membrane_eval(const tf_sim *s, const void *data, const elem_args *a, const double *y,
                          double *E, double *grad, bsr *H) {
  const elem_membrane *e = data;
  elem_ctx c = {s, data, a, y, grad, H};
  *E += elem_colours_run(s, &e->col, membrane_one, &c);
}

static void membrane_derive(tf_sim *s, void *data) {
  elem_membrane *e = data;
  membrane_lame(s->par.stretch, s->par.poisson, &e->lambda, &e->mu);
}

static void membrane_destroy(tf_mem *m, void *data) {
  elem_membrane *e = data;
  MEM_FREE_ARRAY(m, e->rest, e->count);
  MEM_FREE_ARRAY(m, e->slot, 9 * (size_t)e->count);
  elem_colours_free(m, &e->col);
}

const elem_ops ELEM_MEMBRANE = {
    "membrane", 0, membrane_eval, membrane_derive, membrane_destroy, sizeof(elem_membrane), NULL};

tf_status elem_membrane_init(tf_sim *s, elem_membrane *e) {
  const trimesh *m = &s->model.mesh;
  e->count = m->tri_count;
  e->tris = m->tris;
  e->rest = mem_array(&s->mem, e->count, sizeof *e->rest);
  e->slot = mem_array(&s->mem, 9 * (size_t)e->count, sizeof *e->slot);
  if (!e->rest || !e->slot) return TF_E_NOMEM;
  const double *r = s->model.rest;
  e->area = 0.0;
  for (uint32_t t = 0; t < e->count; ++t) {
    const uint32_t *tv = e->tris + 3 * (size_t)t;
    membrane_rest_init(&e->rest[t], r + 3 * (size_t)tv[0], r + 3 * (size_t)tv[1],
                       r + 3 * (size_t)tv[2]);
    e->area += e->rest[t].area;
  }
  elem_slots(&s->solver.H, e->tris, e->count, 3, e->slot);
  return elem_colours_build(&s->mem, &e->col, s->model.n, e->count, e->tris, 3, NULL,
                            s->model.rest);
}
