/* SPDX-License-Identifier: MIT
 * The spring set: Leplatre's mass-spring cloth (mesh/springs.h builds its structural, shear and
 * bend families from the triangle mesh; energy/spring.c is each spring), one stiffness per family
 * from the parameters (stretch_stiffness, shear_stiffness, bend_spring_stiffness), rest lengths
 * from the rest mesh, moved by plasticity (spring_post_step). Its energy joins the potential
 * energy like the membrane's, so the tau step damps it the same way. */
#include <math.h>

#include "core/vec3.h"
#include "energy/spring.h"
#include "sim/sim.h"

static inline int spring_family(const springs *sp, uint32_t e) {
  return e < sp->first[SPRING_SHEAR]  ? SPRING_STRUCTURAL
         : e < sp->first[SPRING_BEND] ? SPRING_SHEAR
                                      : SPRING_BEND;
}

static double spring_one(const void *ctx, uint32_t e) {
  const elem_ctx *c = ctx;
  const elem_spring *sp = c->data;
  const int f = spring_family(&sp->sp, e);
  const double k = f == SPRING_STRUCTURAL ? sp->stretch.value[e] : sp->k[f];
  if (k == 0.0) return 0.0;
  double lx[6], g[6], h[36], *grad = c->grad;
  const uint32_t *v = sp->sp.pairs + 2 * (size_t)e;
  v3_copy(lx, c->y + 3 * (size_t)v[0]);
  v3_copy(lx + 3, c->y + 3 * (size_t)v[1]);
  double E = spring_energy(lx, k, sp->rest[e], grad ? g : NULL, c->H ? h : NULL);
  if (grad)
    for (int q = 0; q < 2; ++q) v3_add(grad + 3 * (size_t)v[q], grad + 3 * (size_t)v[q], g + 3 * q);
  if (c->H) elem_scatter(c->H, sp->slot + 4 * (size_t)e, h, 2);
  return E;
}

static void spring_eval(const tf_sim *s, const void *data, const elem_args *a, const double *y,
                        double *E, double *grad, bsr *H) {
  const elem_spring *sp = data;
  elem_ctx c = {s, data, a, y, grad, H};
  *E += elem_colours_run(s, &sp->col, spring_one, &c, grad || H);
}

static void spring_derive(tf_sim *s, void *data) {
  elem_spring *sp = data;
  sp->k[SPRING_STRUCTURAL] = s->par.stretch; /* each structural spring's: sp->stretch */
  sp->k[SPRING_SHEAR] = s->par.shear;
  sp->k[SPRING_BEND] = s->par.bend_springs;
}

/* Leplatre's plasticity (the seeds' lecture): past the elastic limit y (a strain) the rest length
 * moves so that the strain stays at the limit, L* = l / (1 +- y), but never further than the
 * plastic limit p from the rest mesh's L0. With a flow time T (plastic_time) the rest length
 * approaches L* as 1 - exp(-t / T), exactly so for any split of t into steps, so how fast a
 * sheet yields does not depend on the step or the substeps; T = 0 is the lecture's instant rule.
 * A spring within its elastic limit is not touched: below it the run is bit for bit the one
 * without plasticity. Explicit, after each accepted step, at its converged positions. */
static void spring_post_step(tf_sim *s, void *data, double dt) {
  elem_spring *sp = data;
  if (!sp->pl.on) return;
  const double rate = elem_plastic_rate(s->par.plastic_time, dt);
  for (uint32_t e = 0; e < sp->sp.count; ++e) {
    const double y = sp->pl.yield[e], p = sp->pl.limit[e];
    if (p == 0.0) continue;
    const uint32_t *v = sp->sp.pairs + 2 * (size_t)e;
    const double l = v3_dist(s->state.x + 3 * (size_t)v[0], s->state.x + 3 * (size_t)v[1]);
    const double L = sp->rest[e];
    double target;
    if (l > L * (1.0 + y))
      target = l / (1.0 + y);
    else if (l < L * (1.0 - y))
      target = l / (1.0 - y);
    else
      continue;
    const double L0 = sp->rest0[e];
    target = fmin(fmax(target, L0 * (1.0 - p)), L0 * (1.0 + p));
    sp->rest[e] = L + rate * (target - L);
  }
}

static void spring_destroy(tf_mem *m, void *data) {
  elem_spring *sp = data;
  uint32_t count = sp->sp.count;
  MEM_FREE_ARRAY(m, sp->rest0, count);
  elem_plastic_free(m, &sp->pl);
  elem_stiffness_free(m, &sp->stretch);
  MEM_FREE_ARRAY(m, sp->slot, 4 * (size_t)count);
  elem_colours_free(m, &sp->col);
  springs_free(m, &sp->sp);
}

static elem_plastic *spring_plastic(void *data, int bend) {
  return bend ? NULL : &((elem_spring *)data)->pl;
}

const elem_ops ELEM_SPRING = {"spring",         0,
                              spring_eval,      spring_derive,
                              spring_destroy,   sizeof(elem_spring),
                              spring_post_step, spring_plastic};

tf_status elem_spring_families(tf_sim *s, elem_spring *sp, const double *rest) {
  trimesh *m = &s->model.mesh;
  tf_status st = springs_build(&s->mem, m, rest, &sp->sp);
  if (st != TF_OK) return st;
  /* the rest lengths are state: plasticity moves them (spring_post_step) */
  sp->plastic_at = sim_reserve_plastic(s, sp->sp.count);
  /* the bend springs join vertices no triangle or hinge joins: widen the Hessian's pattern */
  const uint32_t nb = sp->sp.first[SPRING_FAMILIES] - sp->sp.first[SPRING_BEND];
  if (nb == 0) return TF_OK;
  int *size = mem_array(&s->mem, nb, sizeof *size);
  if (!size) return TF_E_NOMEM;
  for (uint32_t k = 0; k < nb; ++k) size[k] = 2;
  st = trimesh_add_couplings(&s->mem, m, sp->sp.pairs + 2 * (size_t)sp->sp.first[SPRING_BEND], nb,
                             2, size)
           ? TF_OK
           : TF_E_NOMEM;
  MEM_FREE_ARRAY(&s->mem, size, nb);
  return st;
}

tf_status elem_spring_init(tf_sim *s, elem_spring *sp) {
  const uint32_t count = sp->sp.count;
  if (count == 0) return TF_OK;
  sp->rest = s->state.plastic + sp->plastic_at;
  sp->rest0 = mem_array(&s->mem, count, sizeof *sp->rest0);
  sp->slot = mem_array(&s->mem, 4 * (size_t)count, sizeof *sp->slot);
  if (!sp->rest0 || !sp->slot ||
      elem_plastic_init(&s->mem, &sp->pl, count, sp->sp.pairs, 2, 2, s->par.plastic_yield,
                        s->par.plastic_limit) != TF_OK ||
      elem_stiffness_init(&s->mem, &sp->stretch, sp->sp.first[SPRING_SHEAR], sp->sp.pairs, 2, 2,
                          s->par.stretch) != TF_OK)
    return TF_E_NOMEM;
  for (uint32_t e = 0; e < count; ++e) {
    const uint32_t *v = sp->sp.pairs + 2 * (size_t)e;
    sp->rest0[e] = v3_dist(s->model.rest + 3 * (size_t)v[0], s->model.rest + 3 * (size_t)v[1]);
    sp->rest[e] = sp->rest0[e];
  }
  elem_slots(&s->solver.H, sp->sp.pairs, count, 2, sp->slot);
  return elem_colours_build(&s->mem, &sp->col, s->model.n, count, sp->sp.pairs, 2, NULL,
                            s->model.rest);
}
