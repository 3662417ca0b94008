/* SPDX-License-Identifier: MIT
 * The tet set: stable Neo-Hookean on each tet (Smith et al. 2018) as a linear element
 * (energy/neohookean_tet.c) or a quadratic one (energy/neohookean_tet10.c), with per-tet Lame
 * constants from its material and, for lattice tets, its inside fraction. Its data is the flesh
 * model (sim.h, sim_flesh), built by sim_flesh.c. */
#include <string.h>

#include "core/vec3.h"
#include "energy/neohookean_tet10.h"
#include "energy/plastic_flow.h"
#include "sim/sim.h"

/* element t's nodes' positions in its kernel's order */
static void gather(const sim_flesh *F, uint32_t t, const double *y, double *lx) {
  const uint32_t *nd = F->nodes + (size_t)F->npt * t;
  for (uint32_t k = 0; k < F->npt; ++k) v3_copy(lx + 3 * k, y + 3 * (size_t)nd[tet_node(F, t, k)]);
}

/* tet t's rest data as plasticity left it: Dm^-1 Fp^-1 in place of Dm^-1, the volume kept (det
 * Fp = 1) */
static inline tet_rest plastic_rest(const sim_flesh *F, uint32_t t) {
  tet_rest r;
  memcpy(r.dm_inv, F->dm + 9 * (size_t)t, sizeof r.dm_inv);
  r.volume = F->volume[t];
  r.swapped = F->swapped[t];
  return r;
}

static double tet_one(const void *ctx, uint32_t t) {
  const elem_ctx *c = ctx;
  const sim_flesh *F = c->data;
  const uint32_t npt = F->npt;
  double lx[3 * TET10_NODES], g[3 * TET10_NODES], h[9 * TET10_NODES * TET10_NODES];
  tet_rest r = plastic_rest(F, t);
  gather(F, t, c->y, lx);
  double *gp = c->grad ? g : NULL, *hp = c->H ? h : NULL;
  double E = npt == 4 ? tet_energy(&r, lx, F->lambda[t], F->mu[t], gp, hp, 1)
                      : tet10_energy(&r, lx, F->lambda[t], F->mu[t], gp, hp, 1);
  const uint32_t *nd = F->nodes + (size_t)npt * t;
  if (c->grad)
    for (uint32_t k = 0; k < npt; ++k) {
      double *gi = c->grad + 3 * (size_t)nd[tet_node(F, t, k)];
      v3_add(gi, gi, g + 3 * k);
    }
  if (c->H) elem_scatter(c->H, F->slot + (size_t)npt * npt * t, h, (int)npt);
  return E;
}

static void tet_eval(const tf_sim *s, const void *data, const elem_args *a, const double *y,
                     double *E, double *grad, bsr *H) {
  const sim_flesh *F = data;
  elem_ctx c = {s, data, a, y, grad, H};
  *E += elem_colours_run(s, &F->col, tet_one, &c, grad || H);
}

/* material 0 follows the parameters (youngs, poisson); each tet is fill x its material's */
static void tet_derive(tf_sim *s, void *data) {
  sim_flesh *F = data;
  if (!F->mat_lambda) return;
  tet_lame(s->par.youngs, s->par.poisson, &F->mat_lambda[0], &F->mat_mu[0]);
  for (uint32_t t = 0; t < F->tet.tet_count; ++t) {
    F->lambda[t] = F->fill[t] * F->mat_lambda[F->mat[t]];
    F->mu[t] = F->fill[t] * F->mat_mu[F->mat[t]];
  }
}

/* Flesh plasticity (issue 23): past the elastic limit a tet's rest shape flows, volume kept, as
 * clay does (von Mises on the Hencky strain at its centroid, energy/plastic_flow.h), within the
 * plastic limit and at the rate of plastic_time; a dent stays. Explicit, after each accepted
 * step; a tet inside its elastic limit is not touched, so below it the run is bit for bit the one
 * without plasticity. */
static void tet_post_step(tf_sim *s, void *data, double dt) {
  sim_flesh *F = data;
  if (!F->pl.on) return;
  const double rate = elem_plastic_rate(s->par.plastic_time, dt);
  double lx[3 * TET10_NODES], Fe[9];
  for (uint32_t t = 0; t < F->tet.tet_count; ++t) {
    const double y = F->pl.yield[t], p = F->pl.limit[t];
    if (p == 0.0) continue;
    const tet_rest r = plastic_rest(F, t);
    gather(F, t, s->state.x, lx);
    if (F->npt == 4)
      tet_deformation_gradient(&r, lx, Fe);
    else
      tet10_centroid_gradient(&r, lx, Fe);
    plastic_flow_tet(Fe, F->rest[t].dm_inv, y, p, rate, F->dm + 9 * (size_t)t);
  }
}

static elem_plastic *tet_plastic(void *data, int bend) {
  return bend ? NULL : &((sim_flesh *)data)->pl;
}

static void tet_destroy(tf_mem *m, void *data) {
  sim_flesh *F = data;
  uint32_t nt = F->tet.tet_count;
  MEM_FREE_ARRAY(m, F->rest, nt);
  MEM_FREE_ARRAY(m, F->volume, nt);
  MEM_FREE_ARRAY(m, F->swapped, nt);
  MEM_FREE_ARRAY(m, F->mat, nt);
  MEM_FREE_ARRAY(m, F->fill, nt);
  MEM_FREE_ARRAY(m, F->lambda, nt);
  MEM_FREE_ARRAY(m, F->mu, nt);
  MEM_FREE_ARRAY(m, F->mat_lambda, F->mat_count);
  MEM_FREE_ARRAY(m, F->mat_mu, F->mat_count);
  MEM_FREE_ARRAY(m, F->slot, (size_t)F->npt * F->npt * nt);
  MEM_FREE_ARRAY(m, F->surf_tet, F->surf_n);
  MEM_FREE_ARRAY(m, F->surf_w, (size_t)F->npt * F->surf_n);
  MEM_FREE_ARRAY(m, F->surf_tris, 3 * (size_t)F->surf_tri_count);
  elem_plastic_free(m, &F->pl);
  elem_colours_free(m, &F->col);
  tet10mesh_free(m, &F->q10);
  tetmesh_free(m, &F->tet);
}

const elem_ops ELEM_TET = {
    "tet", 0, tet_eval, tet_derive, tet_destroy, sizeof(sim_flesh), tet_post_step, tet_plastic};

double sim_flesh_volume(const sim_flesh *F, const double *x) {
  double vol = 0.0, lx[3 * TET10_NODES];
  for (uint32_t t = 0; t < F->tet.tet_count; ++t) {
    gather(F, t, x, lx);
    const tet_rest *r = &F->rest[t];
    vol += r->volume * (F->npt == 4 ? tet_volume_ratio(r, lx) : tet10_volume_ratio(r, lx));
  }
  return vol;
}

uint32_t sim_flesh_inverted(const sim_flesh *F, const double *x) {
  uint32_t count = 0;
  double lx[3 * TET10_NODES];
  for (uint32_t t = 0; t < F->tet.tet_count; ++t) {
    gather(F, t, x, lx);
    const tet_rest *r = &F->rest[t];
    count += !((F->npt == 4 ? tet_volume_ratio(r, lx) : tet10_min_volume_ratio(r, lx)) > 0.0);
  }
  return count;
}
