/* SPDX-License-Identifier: MIT
 * The hinge set: discrete-shell bending on each interior edge (energy/bend_hinge.c; Bridson et al.
 * 2003, Grinspun et al. 2003), stiffness k = B x a rest geometric factor per hinge. */
#include "core/vec3.h"
#include "energy/bend_hinge.h"
#include "sim/sim.h"

static double hinge_one(const void *ctx, uint32_t k) {
  const elem_ctx *c = ctx;
  const elem_hinge *e = c->data;
  double stiff = e->bend[k] * e->geom[k];
  if (stiff == 0.0) return 0.0;
  double lx[12], g[12], h[144], *grad = c->grad;
  const uint32_t *v = e->hinges + 4 * (size_t)k;
  for (int q = 0; q < 4; ++q) v3_copy(lx + 3 * q, c->y + 3 * (size_t)v[q]);
  double E = hinge_energy_psd(lx, stiff, e->theta0[k], grad ? g : NULL, c->H ? h : NULL);
  if (grad)
    for (int q = 0; q < 4; ++q) v3_add(grad + 3 * (size_t)v[q], grad + 3 * (size_t)v[q], g + 3 * q);
  if (c->H) elem_scatter(c->H, e->slot + 16 * (size_t)k, h, 4);
  return E;
}

static void hinge_eval(const tf_sim *s, const void *data, const elem_args *a, const double *y,
                       double *E, double *grad, bsr *H) {
  const elem_hinge *e = data;
  elem_ctx c = {s, data, a, y, grad, H};
  *E += elem_colours_run(s, &e->col, hinge_one, &c);
}

static void hinge_destroy(tf_mem *m, void *data) {
  elem_hinge *e = data;
  MEM_FREE_ARRAY(m, e->theta0, e->count);
  MEM_FREE_ARRAY(m, e->geom, e->count);
  MEM_FREE_ARRAY(m, e->bend, e->count);
  MEM_FREE_ARRAY(m, e->slot, 16 * (size_t)e->count);
  elem_colours_free(m, &e->col);
}

const elem_ops ELEM_HINGE = {"hinge", 0, hinge_eval, NULL, hinge_destroy, sizeof(elem_hinge), NULL};

tf_status elem_hinge_init(tf_sim *s, elem_hinge *e, double bend) {
  const trimesh *m = &s->model.mesh;
  e->count = m->hinge_count;
  e->hinges = m->hinges;
  if (!e->count) return TF_OK;
  e->theta0 = mem_array(&s->mem, e->count, sizeof *e->theta0);
  e->geom = mem_array(&s->mem, e->count, sizeof *e->geom);
  e->bend = mem_array(&s->mem, e->count, sizeof *e->bend);
  e->slot = mem_array(&s->mem, 16 * (size_t)e->count, sizeof *e->slot);
  if (!e->theta0 || !e->geom || !e->bend || !e->slot) return TF_E_NOMEM;
  for (uint32_t k = 0; k < e->count; ++k) {
    double lx[12];
    for (int q = 0; q < 4; ++q)
      v3_copy(lx + 3 * q, s->model.rest + 3 * (size_t)e->hinges[4 * (size_t)k + q]);
    e->theta0[k] = hinge_angle(lx);
    e->geom[k] = hinge_rest_stiffness(lx, 1.0);
  }
  elem_hinge_set_bend(e, bend);
  elem_slots(&s->solver.H, e->hinges, e->count, 4, e->slot);
  return elem_colours_build(&s->mem, &e->col, s->model.n, e->count, e->hinges, 4, NULL,
                            s->model.rest);
}

void elem_hinge_set_bend(elem_hinge *e, double bend) {
  for (uint32_t k = 0; k < e->count; ++k) e->bend[k] = bend;
}

void elem_hinge_set_bend_map(elem_hinge *e, const double *per_vertex) {
  /* the hinge's own edge is its first two vertices */
  for (uint32_t k = 0; k < e->count; ++k) {
    const uint32_t *h = e->hinges + 4 * (size_t)k;
    e->bend[k] = 0.5 * (per_vertex[h[0]] + per_vertex[h[1]]);
  }
}
