/* SPDX-License-Identifier: MIT
 * The membrane set: StVK on each cloth triangle against its rest frame (energy/membrane_tri.c),
 * Hessians PSD-projected per element. Each triangle's rest frame and area are state, moved by
 * in-plane plasticity (energy/plastic_flow.c). */
#include <assert.h>

#include "core/vec3.h"
#include "energy/plastic_flow.h"
#include "sim/sim.h"

/* the rest data is state: five doubles per triangle in the plastic array */
static_assert(sizeof(membrane_rest) == 5 * sizeof(double), "membrane_rest is five doubles");

static double membrane_one(const void *ctx, uint32_t t) {
  const elem_ctx *c = ctx;
  const elem_membrane *e = c->data;
  double lx[9], g[9], h[81], *grad = c->grad;
  const uint32_t *v = e->tris + 3 * (size_t)t;
  for (int k = 0; k < 3; ++k) v3_copy(lx + 3 * k, c->y + 3 * (size_t)v[k]);
  const double *lame = e->lame + 2 * (size_t)t;
  double E =
      membrane_energy(&e->rest[t], lx, lame[0], lame[1], grad ? g : NULL, c->H ? h : NULL, 1);
  if (grad)
    for (int k = 0; k < 3; ++k) v3_add(grad + 3 * (size_t)v[k], grad + 3 * (size_t)v[k], g + 3 * k);
  if (c->H) elem_scatter(c->H, e->slot + 9 * (size_t)t, h, 3);
  return E;
}

static void membrane_eval(const tf_sim *s, const void *data, const elem_args *a, const double *y,
                          double *E, double *grad, bsr *H) {
  const elem_membrane *e = data;
  elem_ctx c = {s, data, a, y, grad, H};
  *E += elem_colours_run(s, &e->col, membrane_one, &c, grad || H);
}

/* each triangle's Lame constants from its stretch stiffness (set by sim_set_param or a map),
 * when it or the poisson ratio changed: the parameters are derived on every tf_sim_set_param (a
 * rig keys several a frame), and this is a pass over the triangles */
static void membrane_derive(tf_sim *s, void *data) {
  elem_membrane *e = data;
  elem_stiffness *st = &e->stretch;
  if (!st->changed && e->lame_poisson == s->par.poisson) return;
  for (uint32_t t = 0; t < e->count; ++t)
    membrane_lame(st->value[t], s->par.poisson, &e->lame[2 * (size_t)t],
                  &e->lame[2 * (size_t)t + 1]);
  e->lame_poisson = s->par.poisson;
  st->changed = 0;
}

/* In-plane plasticity (issue 23): past the elastic limit a triangle's rest frame yields along
 * its principal stretches as Leplatre's springs do, within the plastic limit, at the rate of
 * plastic_time (energy/plastic_flow.h); explicit, after each accepted step. A triangle inside its
 * elastic limit is not touched: below it the run is bit for bit the one without plasticity. */
static void membrane_post_step(tf_sim *s, void *data, double dt) {
  elem_membrane *e = data;
  if (!e->pl.on) return;
  const double rate = elem_plastic_rate(s->par.plastic_time, dt);
  for (uint32_t t = 0; t < e->count; ++t) {
    const double y = e->pl.yield[t], p = e->pl.limit[t];
    if (p == 0.0) continue;
    const uint32_t *v = e->tris + 3 * (size_t)t;
    const double *x0 = s->state.x + 3 * (size_t)v[0];
    double Ds[2][3], Fe[6];
    v3_sub(Ds[0], s->state.x + 3 * (size_t)v[1], x0);
    v3_sub(Ds[1], s->state.x + 3 * (size_t)v[2], x0);
    const double *dm = e->rest[t].dm_inv;
    for (int i = 0; i < 3; ++i)
      for (int a = 0; a < 2; ++a) Fe[2 * i + a] = Ds[0][i] * dm[a] + Ds[1][i] * dm[2 + a];
    plastic_flow_tri(Fe, e->rest0[t].dm_inv, e->rest0[t].area, y, p, rate, e->rest[t].dm_inv,
                     &e->rest[t].area);
  }
}

static void membrane_destroy(tf_mem *m, void *data) {
  elem_membrane *e = data;
  MEM_FREE_ARRAY(m, e->rest0, e->count);
  MEM_FREE_ARRAY(m, e->slot, 9 * (size_t)e->count);
  MEM_FREE_ARRAY(m, e->lame, 2 * (size_t)e->count);
  elem_stiffness_free(m, &e->stretch);
  elem_plastic_free(m, &e->pl);
  elem_colours_free(m, &e->col);
}

static elem_plastic *membrane_plastic(void *data, int bend) {
  return bend ? NULL : &((elem_membrane *)data)->pl;
}

const elem_ops ELEM_MEMBRANE = {"membrane",         0,
                                membrane_eval,      membrane_derive,
                                membrane_destroy,   sizeof(elem_membrane),
                                membrane_post_step, membrane_plastic};

void elem_membrane_reserve(tf_sim *s, elem_membrane *e) {
  e->plastic_at = sim_reserve_plastic(s, 5 * s->model.mesh.tri_count);
}

tf_status elem_membrane_init(tf_sim *s, elem_membrane *e) {
  const trimesh *m = &s->model.mesh;
  e->count = m->tri_count;
  e->tris = m->tris;
  e->rest = (membrane_rest *)(s->state.plastic + e->plastic_at);
  e->rest0 = mem_array(&s->mem, e->count, sizeof *e->rest0);
  e->slot = mem_array(&s->mem, 9 * (size_t)e->count, sizeof *e->slot);
  e->lame = mem_array(&s->mem, 2 * (size_t)e->count, sizeof *e->lame);
  if (!e->rest0 || !e->slot || !e->lame ||
      elem_plastic_init(&s->mem, &e->pl, e->count, e->tris, 3, 3, s->par.plastic_yield,
                        s->par.plastic_limit) != TF_OK ||
      elem_stiffness_init(&s->mem, &e->stretch, e->count, e->tris, 3, 3, s->par.stretch) != TF_OK)
    return TF_E_NOMEM;
  const double *r = s->model.rest;
  e->area = 0.0;
  for (uint32_t t = 0; t < e->count; ++t) {
    const uint32_t *tv = e->tris + 3 * (size_t)t;
    membrane_rest_init(&e->rest0[t], r + 3 * (size_t)tv[0], r + 3 * (size_t)tv[1],
                       r + 3 * (size_t)tv[2]);
    e->rest[t] = e->rest0[t];
    e->area += e->rest0[t].area;
  }
  elem_slots(&s->solver.H, e->tris, e->count, 3, e->slot);
  return elem_colours_build(&s->mem, &e->col, s->model.n, e->count, e->tris, 3, NULL,
                            s->model.rest);
}
