/* SPDX-License-Identifier: MIT
 * Creating and destroying a simulation: copy and precompute the model (cloth: rest frames, hinge
 * rest angles and stiffness factors, lumped masses; flesh in sim_flesh.c), size every scratch
 * array once, and map each element's Hessian blocks to their BSR slots so assembly is a plain
 * scatter. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/vec3.h"
#include "energy/bend_hinge.h"
#include "sim/sim.h"

static const uint32_t AMG_MIN_VERTICES = 400;

tf_status sim_fail(tf_sim *s, tf_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->last_error, sizeof s->last_error, fmt, ap);
  va_end(ap);
  if (s->logger.fn && TF_LOG_ERROR >= s->logger.min_level) s->logger.fn(TF_LOG_ERROR, s->last_error, s->logger.ud);
  return st;
}

void sim_log(tf_sim *s, tf_log_level level, const char *fmt, ...) {
  if (!s->logger.fn || level < s->logger.min_level) return;
  char buf[SIM_ERR_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  s->logger.fn(level, buf, s->logger.ud);
}

void sim_params_derive(tf_sim *s) {
  if (s->kind == SIM_FLESH) sim_flesh_derive(s);
  else membrane_lame(s->par.stretch, s->par.poisson, &s->par.lambda, &s->par.mu);
}

void sim_destroy(tf_sim *s) {
  if (!s) return;
  tf_mem mem;
  amg_destroy(&s->mem, s->solver.amg);
  sim_arrays_free(s);
  if (s->kind == SIM_FLESH) sim_flesh_free(s); /* owns the topology the mesh view points into */
  else trimesh_free(&s->mem, &s->model.mesh);
  mem = s->mem;
  mem_free(&mem, s, sizeof *s);
}

void sim_default_params(sim_params *p) {
  /* aerodynamics off (no air) until the host gives an air density; plausible cloth coefficients */
  p->air_density = 0.0;
  p->drag = 1.2;
  p->lift = 0.6;
  p->turbulence_scale = 1.0;
  p->turbulence_time = 0.5;
  p->gust_period = 3.0;
}

tf_sim *sim_new(const tf_allocator *a, tf_logger logger, sim_kind kind, char *err, size_t errn) {
  tf_mem mem;
  mem_init(&mem, a);
  tf_sim *s = mem_alloc(&mem, sizeof *s);
  if (!s) return snprintf(err, errn, "out of memory allocating the simulation"), NULL;
  s->mem = mem;
  s->logger = logger;
  s->kind = kind;
  s->stats.struct_size = sizeof s->stats;
  return s;
}

tf_status sim_alloc(tf_sim *s, char *err, size_t errn) {
  const trimesh *m = &s->model.mesh;
  uint32_t n = s->model.n;
  /* Hessian pattern: the upper triangle of the mesh adjacency (diagonal included) */
  s->size = (sim_sizes){.n = n, .tri = m->tri_count, .hinge = m->hinge_count ? m->hinge_count : 1,
                        .comp = m->comp_count, .hess = (m->adj_count + n) / 2};
  tf_status st = sim_arrays_alloc(s, err, errn);
  if (st != TF_OK) return st;
  sim_solver *sv = &s->solver;
  bsr_init_upper(&sv->H, n, m->adj_ptr, m->adj, sv->row_ptr, sv->col, sv->H.diag);
  return TF_OK;
}

tf_status sim_finish(tf_sim *s, const double *initial_positions, char *err, size_t errn) {
  uint32_t n = s->model.n, nt = s->model.mesh.tri_count;
  for (uint32_t t = 0; t < nt; ++t)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        s->solver.tri_slot[9 * (size_t)t + 3 * a + b] = bsr_slot(&s->solver.H, s->model.mesh.tris[3 * t + a], s->model.mesh.tris[3 * t + b]);
  for (uint32_t e = 0; e < s->model.mesh.hinge_count; ++e)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        s->solver.hinge_slot[16 * (size_t)e + 4 * a + b] =
            bsr_slot(&s->solver.H, s->model.mesh.hinges[4 * e + a], s->model.mesh.hinges[4 * e + b]);
  /* multigrid pays off once block Jacobi needs hundreds of CG iterations */
  if (n >= AMG_MIN_VERTICES) {
    /* cloth: the hierarchy on the triangle adjacency; the hinge couplings (weak: bending is orders
     * below stretching) are lumped by amg_setup, so level 0 keeps ~7 blocks per row, not ~13 */
    uint32_t *eptr = NULL, *eadj = NULL, ecount = 0;
    if (s->kind == SIM_CLOTH && s->model.mesh.hinge_count && !trimesh_edge_adjacency(&s->mem, &s->model.mesh, &eptr, &eadj, &ecount))
      return snprintf(err, errn, "out of memory building the multigrid hierarchy (%u vertices)", n), TF_E_NOMEM;
    s->solver.amg = amg_create(&s->mem, n, eptr ? eptr : s->model.mesh.adj_ptr, eadj ? eadj : s->model.mesh.adj);
    MEM_FREE_ARRAY(&s->mem, eptr, eptr ? (size_t)n + 1 : 0);
    MEM_FREE_ARRAY(&s->mem, eadj, ecount);
    if (!s->solver.amg && s->mem.failed)
      return snprintf(err, errn, "out of memory building the multigrid hierarchy (%u vertices)", n), TF_E_NOMEM;
    s->mem.failed = 0; /* a mesh that does not coarsen just keeps block Jacobi */
  }
  memcpy(s->state.x, initial_positions ? initial_positions : s->model.rest, sizeof(double) * 3 * n);
  pins_refresh_components(s);
  return TF_OK;
}

tf_status sim_create_cloth(const tf_cloth_def *def, tf_sim **out, char *err, size_t errn) {
  tf_sim *s = sim_new(&def->allocator, def->logger, SIM_CLOTH, err, errn);
  if (!s) return TF_E_NOMEM;
  s->index_base = def->index_base;
  uint32_t n = def->vert_count, nt = def->tri_count;
  s->model.n = n;
  tf_status st = trimesh_build(&s->mem, &s->model.mesh, n, def->triangles, nt, def->index_base, err, errn);
  if (st != TF_OK) {
    tf_mem m2 = s->mem;
    mem_free(&m2, s, sizeof *s);
    return st;
  }
  st = sim_alloc(s, err, errn);
  if (st != TF_OK) return sim_destroy(s), st;

  /* parameters */
  sim_params *p = &s->par;
  sim_default_params(p);
  p->integrator = def->integrator;
  p->tau = def->tau;
  p->kappa = def->kappa;
  p->stretch = def->stretch_stiffness;
  p->poisson = def->poisson;
  p->bend = def->bend_stiffness;
  v3_copy(p->gravity, def->gravity);
  p->pin_stiffness = def->pin_stiffness;
  p->phi = def->phi;
  p->psi = def->psi;
  p->solver = def->solver;
  sim_params_derive(s);

  /* model: rest copy, rest frames, lumped masses */
  memcpy(s->model.rest, def->rest_positions, sizeof(double) * 3 * (size_t)n);
  double total_area = 0.0;
  for (uint32_t t = 0; t < nt; ++t) {
    const uint32_t *tv = s->model.mesh.tris + 3 * t;
    membrane_rest_init(&s->model.tri[t], s->model.rest + 3 * (size_t)tv[0], s->model.rest + 3 * (size_t)tv[1],
                       s->model.rest + 3 * (size_t)tv[2]);
    total_area += s->model.tri[t].area;
  }
  if (def->vertex_masses) {
    memcpy(s->model.mass, def->vertex_masses, sizeof(double) * n);
  } else {
    double rho = def->total_mass > 0.0 ? def->total_mass / total_area : def->density;
    for (uint32_t t = 0; t < nt; ++t)
      for (int k = 0; k < 3; ++k) s->model.mass[s->model.mesh.tris[3 * t + k]] += rho * s->model.tri[t].area / 3.0;
    /* a vertex in no triangle gets the mean vertex mass, so it stays a valid particle; with
     * total_mass everything is then rescaled so the total is what the host asked for */
    double mean = rho * total_area / n, sum = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
      if (!(s->model.mass[i] > 0.0)) s->model.mass[i] = mean;
      sum += s->model.mass[i];
    }
    if (def->total_mass > 0.0)
      for (uint32_t i = 0; i < n; ++i) s->model.mass[i] *= def->total_mass / sum;
  }

  /* hinges: rest angle and geometric stiffness factor (k = B * factor) */
  for (uint32_t e = 0; e < s->model.mesh.hinge_count; ++e) {
    double lx[12];
    for (int q = 0; q < 4; ++q) v3_copy(lx + 3 * q, s->model.rest + 3 * (size_t)s->model.mesh.hinges[4 * e + q]);
    s->model.hinge_theta0[e] = hinge_angle(lx);
    s->model.hinge_geom[e] = hinge_rest_stiffness(lx, 1.0);
    s->model.hinge_bend[e] = p->bend;
  }

  st = sim_finish(s, def->initial_positions, err, errn);
  if (st != TF_OK) return sim_destroy(s), st;
  *out = s;
  return TF_OK;
}
