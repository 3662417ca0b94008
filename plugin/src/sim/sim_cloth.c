/* SPDX-License-Identifier: MIT
 * Cloth: a triangle mesh with the membrane and bending (shell or hinge) sets, or the spring set
 * (tf_cloth_model), then the soft-pin and drag sets; lumped masses from the rest areas (or the
 * host's), on the shared lifecycle of sim.c. */
#include <stdio.h>
#include <string.h>

#include "core/vec3.h"
#include "sim/sim.h"

static void cloth_params(tf_sim *s, const tf_cloth_def *def) {
  sim_params *p = &s->par;
  sim_default_params(p);
  p->integrator = def->integrator;
  p->tau = def->tau;
  p->kappa = def->kappa;
  p->stretch = def->stretch_stiffness;
  p->poisson = def->poisson;
  p->bend = def->bend_stiffness;
  p->bend_poisson = def->bend_poisson;
  p->shear = def->shear_stiffness;
  p->bend_springs = def->bend_spring_stiffness;
  v3_copy(p->gravity, def->gravity);
  p->pin_stiffness = def->pin_stiffness;
  p->phi = def->phi;
  p->psi = def->psi;
  p->solver = def->solver;
}

/* lumped masses: a third of each triangle's mass to each corner; a vertex in no triangle gets the
 * mean vertex mass, so it stays a valid particle; with total_mass everything is then rescaled so
 * the total is what the host asked for */
static void cloth_masses(tf_sim *s, const tf_cloth_def *def) {
  uint32_t n = s->model.n;
  double *mass = s->model.mass;
  if (def->vertex_masses) {
    memcpy(mass, def->vertex_masses, sizeof(double) * n);
    return;
  }
  const trimesh *m = &s->model.mesh;
  double total_area = 0.0;
  for (uint32_t t = 0; t < m->tri_count; ++t) total_area += trimesh_rest_area(m, s->model.rest, t);
  double rho = def->total_mass > 0.0 ? def->total_mass / total_area : def->density;
  for (uint32_t t = 0; t < m->tri_count; ++t) {
    const double a = trimesh_rest_area(m, s->model.rest, t);
    for (int k = 0; k < 3; ++k) mass[m->tris[3 * (size_t)t + k]] += rho * a / 3.0;
  }
  double mean = rho * total_area / n, sum = 0.0;
  for (uint32_t i = 0; i < n; ++i) {
    if (!(mass[i] > 0.0)) mass[i] = mean;
    sum += mass[i];
  }
  if (def->total_mass > 0.0)
    for (uint32_t i = 0; i < n; ++i) mass[i] *= def->total_mass / sum;
}

/* the sets in objective order: membrane and bending (hinge or shell), or the springs; then soft
 * pins and drag. Before the Hessian pattern (sim_alloc): the shell's patches and the bend
 * springs, which widen the mesh adjacency */
static tf_status cloth_add_sets(tf_sim *s, const tf_cloth_def *def) {
  if (def->cloth_model == TF_CLOTH_SPRINGS) {
    if (!(s->spring = sim_add_set(s, &ELEM_SPRING))) return TF_E_NOMEM;
    return elem_spring_families(s, s->spring, def->rest_positions);
  }
  if (!(s->membrane = sim_add_set(s, &ELEM_MEMBRANE))) return TF_E_NOMEM;
  elem_membrane_reserve(s, s->membrane);
  if (def->bend_model == TF_BEND_HINGE) {
    if (!(s->hinge = sim_add_set(s, &ELEM_HINGE))) return TF_E_NOMEM;
    elem_hinge_reserve(s, s->hinge);
    return TF_OK;
  }
  if (!(s->shell = sim_add_set(s, &ELEM_SHELL))) return TF_E_NOMEM;
  return elem_shell_patches(s, s->shell, def->rest_positions);
}

/* after sim_alloc: every set's rest data and Hessian slots */
static tf_status cloth_init_sets(tf_sim *s, const tf_cloth_def *def) {
  tf_status st;
  if (s->membrane && (st = elem_membrane_init(s, s->membrane)) != TF_OK) return st;
  if (s->hinge && (st = elem_hinge_init(s, s->hinge, def->bend_stiffness)) != TF_OK) return st;
  if (s->shell && (st = elem_shell_init(s, s->shell, def->bend_stiffness)) != TF_OK) return st;
  if (s->spring && (st = elem_spring_init(s, s->spring)) != TF_OK) return st;
  if (!sim_add_set(s, &ELEM_PIN) || !(s->drag = sim_add_set(s, &ELEM_DRAG))) return TF_E_NOMEM;
  return elem_drag_init(s, s->drag, 0);
}

/* def's arrays in s's vertex order (sim_vertex_order): a copy into *in (its arrays from s's
 * allocator, freed by cloth_order_free). 0 when out of memory */
static int cloth_order_def(tf_sim *s, const tf_cloth_def *def, tf_cloth_def *in) {
  tf_mem *m = &s->mem;
  const uint32_t n = def->vert_count, nt = def->tri_count;
  *in = *def;
  double *rest = mem_array(m, 3 * (size_t)n, sizeof *rest);
  uint32_t *tris = mem_array(m, 3 * (size_t)nt, sizeof *tris);
  double *x0 = def->initial_positions ? mem_array(m, 3 * (size_t)n, sizeof *x0) : NULL;
  double *mass = def->vertex_masses ? mem_array(m, n, sizeof *mass) : NULL;
  in->rest_positions = rest, in->triangles = tris, in->initial_positions = x0;
  in->vertex_masses = mass;
  if (!rest || !tris || (def->initial_positions && !x0) || (def->vertex_masses && !mass)) return 0;
  sim_rows_from_host(s, def->rest_positions, rest, 3);
  if (x0) sim_rows_from_host(s, def->initial_positions, x0, 3);
  if (mass) sim_rows_from_host(s, def->vertex_masses, mass, 1);
  sim_indices_from_host(s, def->triangles, tris, 3 * (size_t)nt);
  return 1;
}

static void cloth_order_free(tf_mem *m, const tf_cloth_def *in) {
  const size_t n = in->vert_count;
  mem_free(m, (void *)in->rest_positions, in->rest_positions ? sizeof(double) * 3 * n : 0);
  mem_free(m, (void *)in->triangles, in->triangles ? sizeof(uint32_t) * 3 * in->tri_count : 0);
  mem_free(m, (void *)in->initial_positions, in->initial_positions ? sizeof(double) * 3 * n : 0);
  mem_free(m, (void *)in->vertex_masses, in->vertex_masses ? sizeof(double) * n : 0);
}

/* the cloth on def's mesh, its arrays in the simulation's vertex order */
static tf_status cloth_build(tf_sim *s, const tf_cloth_def *def, char *err, size_t errn) {
  uint32_t n = def->vert_count;
  s->model.n = n;
  tf_status st = trimesh_build(&s->mem, &s->model.mesh, n, def->triangles, def->tri_count,
                               def->index_base, s->model.host_of, err, errn);
  if (st != TF_OK) return st;
  s->owns_mesh = 1;
  if ((st = cloth_add_sets(s, def)) != TF_OK)
    return snprintf(err, errn, "out of memory creating the cloth's elements (%u triangles)",
                    def->tri_count),
           st;
  if ((st = sim_alloc(s, err, errn)) != TF_OK) return st;
  cloth_params(s, def);
  memcpy(s->model.rest, def->rest_positions, sizeof(double) * 3 * (size_t)n);
  if ((st = cloth_init_sets(s, def)) != TF_OK)
    return snprintf(err, errn, "out of memory creating the cloth's elements (%u triangles)",
                    def->tri_count),
           st;
  sim_params_derive(s);
  cloth_masses(s, def);
  return sim_finish(s, def->initial_positions, err, errn);
}

/* keep: NULL for a host's def (its arrays in its order: the simulation picks its own,
 * sim_vertex_order); a rebuild's order otherwise, def's arrays already in it (tear.c) */
static tf_status cloth_create(const tf_cloth_def *def, const uint32_t *keep, int rebuild,
                              tf_sim **out, char *err, size_t errn) {
  tf_sim *s = sim_new(&def->allocator, def->logger, SIM_CLOTH, def->threads, err, errn);
  if (!s) return TF_E_NOMEM;
  s->index_base = def->index_base;
  /* the settings tearing rebuilds from (tear.c), without the host's arrays */
  s->cloth_def = *def;
  s->cloth_def.rest_positions = NULL, s->cloth_def.triangles = NULL;
  s->cloth_def.initial_positions = NULL, s->cloth_def.vertex_masses = NULL;
  const uint32_t n = def->vert_count;
  int ordered =
      rebuild ? sim_keep_vertex_order(s, keep, n)
              : sim_vertex_order(s, def->rest_positions, n, def->triangles, 3, def->tri_count);
  tf_cloth_def in = *def;
  const int copy = ordered && !rebuild && s->model.host_of;
  if (copy) ordered = cloth_order_def(s, def, &in);
  tf_status st = ordered ? cloth_build(s, &in, err, errn) : TF_E_NOMEM;
  if (!ordered) snprintf(err, errn, "out of memory ordering %u vertices", n);
  if (copy) cloth_order_free(&s->mem, &in);
  if (st != TF_OK) return sim_destroy(s), st;
  *out = s;
  return TF_OK;
}

tf_status sim_create_cloth(const tf_cloth_def *def, tf_sim **out, char *err, size_t errn) {
  return cloth_create(def, NULL, 0, out, err, errn);
}

tf_status sim_rebuild_cloth(const tf_cloth_def *def, const uint32_t *host_of, tf_sim **out,
                            char *err, size_t errn) {
  return cloth_create(def, host_of, 1, out, err, errn);
}
