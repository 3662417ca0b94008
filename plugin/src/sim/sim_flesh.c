/* SPDX-License-Identifier: MIT
 * Flesh: tets from the host (or from the lattice tetrahedralizer), their rest data, materials,
 * lumped masses and the embedded render surface, as the tet, soft-pin and drag sets on the shared
 * lifecycle of sim.c. Everything after that (the tau step, pins, rigid motion, settle time, wind
 * on the boundary faces) is common code: the tets' boundary faces, components and adjacency stand
 * in for a cloth's mesh (sim.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/vec3.h"
#include "energy/neohookean_tet10.h"
#include "mesh/tet_embed.h"
#include "mesh/tetrahedralize.h"
#include "sim/sim.h"

/* inside-fraction samples per lattice tet: the centroid and the midpoints towards each vertex */
static const int FILL_SAMPLES = 5;
/* a lattice tet barely touching the inside keeps this much, so no vertex is massless */
static const double FILL_MIN = 0.1;

#define FARR(field, count) ((F->field) = mem_array(&s->mem, (count), sizeof *(F->field)))

/* lattice tets straddle the surface: weight each one's mass and stiffness by the fraction of it
 * inside, so the body weighs and resists like the surface's volume, not the lattice's */
static void lattice_fill(tf_sim *s, const tf_flesh_def *def) {
  sim_flesh *F = s->flesh;
  for (uint32_t t = 0; t < F->tet.tet_count; ++t) {
    const uint32_t *v = F->tet.tets + 4 * (size_t)t;
    double c[3] = {0, 0, 0}, p[3];
    for (int k = 0; k < 4; ++k) v3_axpy(c, 0.25, s->model.rest + 3 * (size_t)v[k]);
    int inside = winding_number(def->surface_positions, def->surface_triangles,
                                def->surface_tri_count, c) > 0.5;
    for (int k = 0; k < 4; ++k) {
      v3_add(p, c, s->model.rest + 3 * (size_t)v[k]);
      v3_scale(p, p, 0.5);
      inside += winding_number(def->surface_positions, def->surface_triangles,
                               def->surface_tri_count, p) > 0.5;
    }
    F->fill[t] = fmax(FILL_MIN, (double)inside / FILL_SAMPLES);
  }
}

/* the model's nodes: the corners, and for quadratic tets an edge node at each edge's middle; the
 * simulation's triangles are the boundary faces (split at the edge nodes) */
static tf_status build_nodes(tf_sim *s, const double *pos, uint32_t nv, char *err, size_t errn) {
  sim_flesh *F = s->flesh;
  const tetmesh *t = &F->tet;
  trimesh *m = &s->model.mesh;
  const tet10mesh *q = &F->q10;
  int quad = F->element == TF_TET_QUADRATIC;
  if (quad && tet10mesh_build(&s->mem, t, &F->q10) != TF_OK)
    return snprintf(err, errn, "out of memory adding the edge nodes of %u tets", t->tet_count),
           TF_E_NOMEM;
  F->npt = quad ? 10 : 4;
  F->nodes = quad ? q->nodes : t->tets;
  *m = (trimesh){.vert_count = quad ? q->node_count : nv,
                 .tri_count = quad ? q->face_count : t->face_count,
                 .comp_count = t->comp_count,
                 .tris = quad ? q->faces : t->faces,
                 .comp = quad ? q->comp : t->comp,
                 .adj_ptr = quad ? q->adj_ptr : t->adj_ptr,
                 .adj = quad ? q->adj : t->adj,
                 .adj_count = quad ? q->adj_count : t->adj_count};
  s->model.n = m->vert_count;
  s->model.host_n = nv;
  tf_status st = sim_alloc(s, err, errn);
  if (st != TF_OK) return st;
  memcpy(s->model.rest, pos, sizeof(double) * 3 * (size_t)nv);
  if (F->npt == 10) tet10mesh_spread(&F->q10, s->model.rest, 3);
  return TF_OK;
}

static tf_status build_elements(tf_sim *s, const tf_flesh_def *def, const double *pos, uint32_t nv,
                                uint32_t nt, const uint32_t *perm, char *err, size_t errn);

/* The tets in Morton order of their centroids (perm: new -> the host's index), once the host's
 * order has served the checks' messages: the element loops run over spatial blocks
 * (elements/colour.c), and with the tets stored in that order each block's rest data, slots and
 * corners are contiguous instead of scattered as a mesher numbers them (TetGen's FLESH-20k: 1.62x
 * on two threads against one before). Nothing the host sees is indexed by tet but its materials,
 * which are read through perm. 0 when out of memory */
static int order_tets(tf_mem *m, tetmesh *T, const double *pos, uint32_t *perm) {
  const uint32_t nt = T->tet_count;
  uint32_t *copy = mem_array(m, 4 * (size_t)nt, sizeof *copy);
  int ok = copy && elem_spatial_order(m, nt, T->tets, 4, NULL, pos, perm);
  if (ok) {
    memcpy(copy, T->tets, sizeof(uint32_t) * 4 * nt);
    for (uint32_t t = 0; t < nt; ++t)
      memcpy(T->tets + 4 * (size_t)t, copy + 4 * (size_t)perm[t], 4 * sizeof(uint32_t));
  }
  MEM_FREE_ARRAY(m, copy, copy ? 4 * (size_t)nt : 0);
  return ok;
}

static tf_status build_model(tf_sim *s, const tf_flesh_def *def, const double *host_pos,
                             const uint32_t *host_tets, uint32_t nv, uint32_t nt, char *err,
                             size_t errn) {
  sim_flesh *F = s->flesh;
  double *pos = NULL;
  uint32_t *tets = NULL, *perm = mem_array(&s->mem, nt ? nt : 1, sizeof *perm);
  tf_status st = TF_E_NOMEM;
  /* a mesher's numbering scattered each block of tets over the whole state: FLESH-20k (TetGen)
   * on two threads against one 1.71x -> 1.78x in Morton order (sim.h, sim_vertex_order) */
  if (!perm || !sim_vertex_order(s, host_pos, nv, host_tets, 4, nt)) {
    snprintf(err, errn, "out of memory ordering %u vertices", nv);
    goto done;
  }
  if (s->model.host_of) { /* the rest positions and tets in that order */
    pos = mem_array(&s->mem, 3 * (size_t)nv, sizeof *pos);
    tets = mem_array(&s->mem, 4 * (size_t)nt, sizeof *tets);
    if (!pos || !tets) {
      snprintf(err, errn, "out of memory ordering %u vertices", nv);
      goto done;
    }
    sim_rows_from_host(s, host_pos, pos, 3);
    sim_indices_from_host(s, host_tets, tets, 4 * (size_t)nt);
  }
  const double *P = pos ? pos : host_pos;
  st = tetmesh_build(&s->mem, &F->tet, P, nv, tets ? tets : host_tets, nt, def->index_base,
                     s->model.host_of, err, errn);
  if (st != TF_OK) goto done;
  if (!order_tets(&s->mem, &F->tet, P, perm)) {
    st = TF_E_NOMEM;
    snprintf(err, errn, "out of memory ordering %u tets", nt);
    goto done;
  }
  st = build_elements(s, def, P, nv, nt, perm, err, errn);
done:
  MEM_FREE_ARRAY(&s->mem, pos, pos ? 3 * (size_t)nv : 0);
  MEM_FREE_ARRAY(&s->mem, tets, tets ? 4 * (size_t)nt : 0);
  MEM_FREE_ARRAY(&s->mem, perm, perm ? (nt ? nt : 1) : 0);
  return st;
}

/* the tets' rest data, materials, slots and colours, tet t being the host's perm[t] */
static tf_status build_elements(tf_sim *s, const tf_flesh_def *def, const double *pos, uint32_t nv,
                                uint32_t nt, const uint32_t *perm, char *err, size_t errn) {
  sim_flesh *F = s->flesh;
  tf_status st;
  F->element = def->element;
  /* each tet's rest shape is state: plasticity moves it (elements/tet.c) */
  F->plastic_at = sim_reserve_plastic(s, 9 * F->tet.tet_count);
  if ((st = build_nodes(s, pos, nv, err, errn)) != TF_OK) return st;
  if (!sim_add_set(s, &ELEM_PIN) || !(s->drag = sim_add_set(s, &ELEM_DRAG)) ||
      elem_drag_init(s, s->drag, 1) != TF_OK)
    return snprintf(err, errn, "out of memory creating the flesh's elements (%u tets)", nt),
           TF_E_NOMEM;

  const uint32_t npt = F->npt;
  F->mat_count = 1 + (def->tets ? def->material_count : 0);
  FARR(rest, nt);
  FARR(volume, nt);
  FARR(swapped, nt);
  FARR(mat, nt);
  FARR(fill, nt);
  FARR(lambda, nt);
  FARR(mu, nt);
  FARR(mat_lambda, F->mat_count);
  FARR(mat_mu, F->mat_count);
  FARR(slot, (size_t)npt * npt * nt);
  double *density = mem_array(&s->mem, nt, sizeof *density);
  F->dm = s->state.plastic + F->plastic_at;
  if (elem_plastic_init(&s->mem, &F->pl, nt, F->nodes, npt, 4, s->par.plastic_yield,
                        s->par.plastic_limit) != TF_OK ||
      s->mem.failed) {
    MEM_FREE_ARRAY(&s->mem, density, nt);
    return snprintf(err, errn, "out of memory allocating %u tets", nt), TF_E_NOMEM;
  }
  for (uint32_t k = 1; k < F->mat_count; ++k)
    tet_lame(def->materials[k - 1].youngs_modulus, def->materials[k - 1].poisson, &F->mat_lambda[k],
             &F->mat_mu[k]);
  F->rest_volume = 0.0;
  for (uint32_t t = 0; t < nt; ++t) {
    const uint32_t *v = F->tet.tets + 4 * (size_t)t;
    tet_rest_init(&F->rest[t], s->model.rest + 3 * (size_t)v[0], s->model.rest + 3 * (size_t)v[1],
                  s->model.rest + 3 * (size_t)v[2], s->model.rest + 3 * (size_t)v[3]);
    F->rest_volume += F->rest[t].volume;
    memcpy(F->dm + 9 * (size_t)t, F->rest[t].dm_inv, sizeof F->rest[t].dm_inv);
    F->volume[t] = F->rest[t].volume;
    F->swapped[t] = (uint8_t)F->rest[t].swapped;
    F->mat[t] = def->tets && def->tet_materials ? def->tet_materials[perm[t]] : 0;
    F->fill[t] = 1.0;
    density[t] = F->mat[t] ? def->materials[F->mat[t] - 1].density : def->density;
    const uint32_t *nd = F->nodes + (size_t)npt * t;
    for (uint32_t a = 0; a < npt; ++a)
      for (uint32_t b = 0; b < npt; ++b)
        F->slot[(size_t)npt * npt * t + npt * a + b] =
            bsr_slot(&s->solver.H, nd[tet_node(F, t, a)], nd[tet_node(F, t, b)]);
  }
  if (elem_colours_build(&s->mem, &F->col, s->model.n, nt, F->nodes, npt, NULL, s->model.rest) !=
      TF_OK) {
    MEM_FREE_ARRAY(&s->mem, density, nt);
    return snprintf(err, errn, "out of memory allocating %u tets", nt), TF_E_NOMEM;
  }
  if (!def->tets) {
    lattice_fill(s, def);
    for (uint32_t t = 0; t < nt; ++t) density[t] *= F->fill[t];
  }
  /* a linear tet's mass a quarter to each corner (the row sums of its consistent mass); a
   * quadratic one's by the HRZ rule (neohookean_tet10.h) */
  if (F->npt == 10)
    tet10mesh_lumped_mass(&F->q10, &F->tet, s->model.rest, density, s->model.mass);
  else
    tetmesh_lumped_mass(&F->tet, s->model.rest, density, 0.0, s->model.mass);
  MEM_FREE_ARRAY(&s->mem, density, nt);
  for (uint32_t i = 0; i < s->model.n; ++i)
    if (!(s->model.mass[i] > 0.0))
      return snprintf(err, errn, "vertex %u is in no tet: every vertex needs mass",
                      sim_host_vertex(s, i) + s->index_base),
             TF_E_BAD_MESH;
  if (!def->tets) {
    /* what is left of the lattice's excess: scale to the surface's own volume */
    double want = def->density * enclosed_volume(def->surface_positions, def->surface_triangles,
                                                 def->surface_tri_count);
    double have = 0.0;
    for (uint32_t i = 0; i < s->model.n; ++i) have += s->model.mass[i];
    if (want > 0.0)
      for (uint32_t i = 0; i < s->model.n; ++i) s->model.mass[i] *= want / have;
  }
  return TF_OK;
}

/* each skin point's tet and its weights: the barycentric coordinates, or for a quadratic tet its
 * ten shape functions at them, so the skin follows the element's curved shape */
static tf_status embed_surface(tf_sim *s, const tf_flesh_def *def, char *err, size_t errn) {
  sim_flesh *F = s->flesh;
  if (!def->surface_positions || def->surface_vert_count == 0) return TF_OK;
  F->surf_n = def->surface_vert_count;
  F->surf_tri_count = def->surface_triangles ? def->surface_tri_count : 0;
  FARR(surf_tet, F->surf_n);
  FARR(surf_w, (size_t)F->npt * F->surf_n);
  FARR(surf_tris, 3 * (size_t)F->surf_tri_count);
  double *bary = F->npt == 4 ? F->surf_w : mem_array(&s->mem, 4 * (size_t)F->surf_n, sizeof *bary);
  if (s->mem.failed) {
    if (bary && bary != F->surf_w) MEM_FREE_ARRAY(&s->mem, bary, 4 * (size_t)F->surf_n);
    return snprintf(err, errn, "out of memory embedding the surface"), TF_E_NOMEM;
  }
  if (F->surf_tri_count)
    memcpy(F->surf_tris, def->surface_triangles, sizeof(uint32_t) * 3 * F->surf_tri_count);
  tet_embed_stats es;
  tf_status st = tet_embed(&s->mem, s->model.rest, F->tet.tets, F->tet.tet_count,
                           def->surface_positions, F->surf_n, F->surf_tet, bary, &es);
  if (st == TF_OK && F->npt == 10)
    for (uint32_t p = 0; p < F->surf_n; ++p)
      tet10_shape(bary + 4 * (size_t)p, F->surf_w + 10 * (size_t)p);
  if (bary != F->surf_w) MEM_FREE_ARRAY(&s->mem, bary, 4 * (size_t)F->surf_n);
  if (st != TF_OK) return snprintf(err, errn, "out of memory embedding the surface"), st;
  F->surf_outside = es.outside;
  F->surf_worst = es.worst_outside;
  if (es.outside)
    sim_log(s, TF_LOG_WARN,
            "flesh: %u of %u surface points lie outside the tets (worst weight %.3g): extrapolated",
            es.outside, F->surf_n, es.worst_outside);
  return TF_OK;
}

/* the host's start positions (its vertices) as the simulation's: in its order, edge nodes at
 * their middles */
static double *initial_nodes(tf_sim *s, const double *host) {
  if (!host) return NULL;
  double *x = mem_array(&s->mem, 3 * (size_t)s->model.n, sizeof *x);
  if (x) sim_from_host(s, host, x, 3);
  return x;
}

tf_status sim_create_flesh(const tf_flesh_def *def, tf_sim **out, char *err, size_t errn) {
  tf_sim *s = sim_new(&def->allocator, def->logger, SIM_FLESH, def->threads, err, errn);
  if (!s) return TF_E_NOMEM;
  s->index_base = def->index_base;
  if (!(s->flesh = sim_add_set(s, &ELEM_TET)))
    return snprintf(err, errn, "out of memory creating the flesh's tets"), sim_destroy(s),
           TF_E_NOMEM;
  tetmesh_data gen;
  memset(&gen, 0, sizeof gen);
  const double *pos = def->rest_positions;
  const uint32_t *tets = def->tets;
  uint32_t nv = def->vert_count, nt = def->tet_count;
  tf_status st = TF_OK;
  if (!tets) {
    st = tetrahedralize_surface(&s->mem, def->surface_positions, def->surface_vert_count,
                                def->surface_triangles, def->surface_tri_count,
                                (int)def->lattice_cells, &gen, err, errn);
    s->flesh->from_surface = 1;
    pos = gen.pos, tets = gen.tets, nv = gen.vert_count, nt = gen.tet_count;
  }
  if (st == TF_OK) st = build_model(s, def, pos, tets, nv, nt, err, errn);
  if (st == TF_OK) st = embed_surface(s, def, err, errn);
  tetmesh_data_free(&s->mem, &gen);
  if (st != TF_OK) return sim_destroy(s), st;

  sim_params *p = &s->par;
  sim_default_params(p);
  p->integrator = TF_INTEGRATOR_TAU;
  p->tau = def->tau;
  p->kappa = def->kappa;
  p->youngs = def->youngs_modulus;
  p->poisson = def->poisson;
  v3_copy(p->gravity, def->gravity);
  p->pin_stiffness = def->pin_stiffness;
  p->solver = def->solver;
  sim_params_derive(s);

  const double *host_x = def->tets ? def->initial_positions : NULL;
  double *x0 = initial_nodes(s, host_x);
  if (host_x && !x0)
    return snprintf(err, errn, "out of memory for the initial positions"), sim_destroy(s),
           TF_E_NOMEM;
  st = sim_finish(s, x0, err, errn);
  if (x0) MEM_FREE_ARRAY(&s->mem, x0, 3 * (size_t)s->model.n);
  if (st != TF_OK) return sim_destroy(s), st;
  *out = s;
  return TF_OK;
}
