/* SPDX-License-Identifier: MIT
 * The tet set: stable Neo-Hookean on each tet (energy/neohookean_tet.c; Smith et al. 2018) with
 * per-tet Lame constants from its material and, for lattice tets, its inside fraction. Its data
 * is the flesh model (sim.h, sim_flesh), built by sim_flesh.c. */
#include "core/vec3.h"
#include "sim/sim.h"

static void tet_eval(const tf_sim *s, const void *data, const elem_args *a, const double *y,
                     double *E, double *grad, bsr *H) {
  (void)s, (void)a;
  const sim_flesh *F = data;
  double lx[12], g[12], h[144];
  for (uint32_t t = 0; t < F->tet.tet_count; ++t) {
    const tet_rest *r = &F->rest[t];
    uint32_t v[4];
    for (int k = 0; k < 4; ++k) {
      v[k] = F->tet.tets[4 * (size_t)t + tet_local_vertex(r, k)];
      v3_copy(lx + 3 * k, y + 3 * (size_t)v[k]);
    }
    *E += tet_energy(r, lx, F->lambda[t], F->mu[t], grad ? g : NULL, H ? h : NULL, 1);
    if (grad)
      for (int k = 0; k < 4; ++k)
        v3_add(grad + 3 * (size_t)v[k], grad + 3 * (size_t)v[k], g + 3 * k);
    if (H) elem_scatter(H, F->slot + 16 * (size_t)t, h, 4);
  }
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
  MEM_FREE_ARRAY(m, F->slot, 16 * (size_t)nt);
  MEM_FREE_ARRAY(m, F->surf_tet, F->surf_n);
  MEM_FREE_ARRAY(m, F->surf_w, 4 * (size_t)F->surf_n);
  MEM_FREE_ARRAY(m, F->surf_tris, 3 * (size_t)F->surf_tri_count);
  tetmesh_free(m, &F->tet);
}

const elem_ops ELEM_TET = {"tet", 0, tet_eval, tet_derive, tet_destroy, sizeof(sim_flesh)};

double sim_flesh_volume(const sim_flesh *F, const double *x) {
  double vol = 0.0;
  for (uint32_t t = 0; t < F->tet.tet_count; ++t) {
    double lx[12];
    for (int k = 0; k < 4; ++k)
      v3_copy(lx + 3 * k,
              x + 3 * (size_t)F->tet.tets[4 * (size_t)t + tet_local_vertex(&F->rest[t], k)]);
    vol += F->rest[t].volume * tet_volume_ratio(&F->rest[t], lx);
  }
  return vol;
}
