/* SPDX-License-Identifier: MIT
 * The tet set: stable Neo-Hookean on each tet (Smith et al. 2018) as a linear element
 * (energy/neohookean_tet.c) or a quadratic one (energy/neohookean_tet10.c), with per-tet Lame
 * constants from its material and, for lattice tets, its inside fraction. Its data is the flesh
 * model (sim.h, sim_flesh), built by sim_flesh.c. */
#include "core/vec3.h"
#include "energy/neohookean_tet10.h"
#include "sim/sim.h"

/* element t's nodes' positions in its kernel's order */
static void gather(const sim_flesh *F, uint32_t t, const double *y, double *lx) {
  const uint32_t *nd = F->nodes + (size_t)F->npt * t;
  for (uint32_t k = 0; k < F->npt; ++k) v3_copy(lx + 3 * k, y + 3 * (size_t)nd[tet_node(F, t, k)]);
}

static double tet_one(const void *ctx, uint32_t t) {
  const elem_ctx *c = ctx;
  const sim_flesh *F = c->data;
  const uint32_t npt = F->npt;
  double lx[3 * TET10_NODES], g[3 * TET10_NODES], h[9 * TET10_NODES * TET10_NODES];
  const tet_rest *r = &F->rest[t];
  gather(F, t, c->y, lx);
  double *gp = c->grad ? g : NULL, *hp = c->H ? h : NULL;
  double E = npt == 4 ? tet_energy(r, lx, F->lambda[t], F->mu[t], gp, hp, 1)
                      : tet10_energy(r, lx, F->lambda[t], F->mu[t], gp, hp, 1);
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
  *E += elem_colours_run(s, &F->col, tet_one, &c);
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

static void tet_destroy(tf_mem *m, void *data) {
  sim_flesh *F = data;
  uint32_t nt = F->tet.tet_count;
  MEM_FREE_ARRAY(m, F->rest, nt);
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
  elem_colours_free(m, &F->col);
  tet10mesh_free(m, &F->q10);
  tetmesh_free(m, &F->tet);
}

const elem_ops ELEM_TET = {"tet", 0, tet_eval, tet_derive, tet_destroy, sizeof(sim_flesh), NULL};

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
