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

tf_status sim_create_cloth(const tf_cloth_def *def, tf_sim **out, char *err, size_t errn) {
  tf_sim *s = sim_new(&def->allocator, def->logger, SIM_CLOTH, def->threads, err, errn);
  if (!s) return TF_E_NOMEM;
  s->index_base = def->index_base;
  /* the settings tearing rebuilds from (tear.c), without the host's arrays */
  s->cloth_def = *def;
  s->cloth_def.rest_positions = NULL, s->cloth_def.triangles = NULL;
  s->cloth_def.initial_positions = NULL, s->cloth_def.vertex_masses = NULL;
  uint32_t n = def->vert_count;
  s->model.n = n;
  tf_status st = trimesh_build(&s->mem, &s->model.mesh, n, def->triangles, def->tri_count,
                               def->index_base, err, errn);
  if (st != TF_OK) return sim_destroy(s), st;
  s->owns_mesh = 1;
  if ((st = cloth_add_sets(s, def)) != TF_OK)
    return snprintf(err, errn, "out of memory creating the cloth's elements (%u triangles)",
                    def->tri_count),
           sim_destroy(s), st;
  if ((st = sim_alloc(s, err, errn)) != TF_OK) return sim_destroy(s), st;
  cloth_params(s, def);
  memcpy(s->model.rest, def->rest_positions, sizeof(double) * 3 * (size_t)n);
  if ((st = cloth_init_sets(s, def)) != TF_OK)
    return snprintf(err, errn, "out of memory creating the cloth's elements (%u triangles)",
                    def->tri_count),
           sim_destroy(s), st;
  sim_params_derive(s);
  cloth_masses(s, def);
  if ((st = sim_finish(s, def->initial_positions, err, errn)) != TF_OK) return sim_destroy(s), st;
  *out = s;
  return TF_OK;
}
