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

#define ARR(field, count) ((s->field) = mem_array(&s->mem, (count), sizeof *(s->field)))

static void sim_free_arrays(tf_sim *s) {
  uint32_t n = s->n, nt = s->mesh.tri_count, nh = s->mesh.hinge_count ? s->mesh.hinge_count : 1;
  uint32_t nc = s->mesh.comp_count;
  size_t n3 = 3 * (size_t)n;
  tf_mem *m = &s->mem;
  MEM_FREE_ARRAY(m, s->rest, n3);
  MEM_FREE_ARRAY(m, s->mass, n);
  if (s->tri) MEM_FREE_ARRAY(m, s->tri, nt);
  MEM_FREE_ARRAY(m, s->hinge_theta0, nh);
  MEM_FREE_ARRAY(m, s->hinge_geom, nh);
  MEM_FREE_ARRAY(m, s->hinge_bend, nh);
  MEM_FREE_ARRAY(m, s->x, n3);
  MEM_FREE_ARRAY(m, s->v, n3);
  MEM_FREE_ARRAY(m, s->vref, n3);
  MEM_FREE_ARRAY(m, s->pin_idx, n);
  MEM_FREE_ARRAY(m, s->pin_w, n);
  MEM_FREE_ARRAY(m, s->pin_prev, n3);
  MEM_FREE_ARRAY(m, s->pin_next, n3);
  MEM_FREE_ARRAY(m, s->fixed, n);
  MEM_FREE_ARRAY(m, s->mark, n);
  MEM_FREE_ARRAY(m, s->pin_sub, n3);
  MEM_FREE_ARRAY(m, s->pin_sub0, n3);
  MEM_FREE_ARRAY(m, s->pin_vel, n3);
  MEM_FREE_ARRAY(m, s->fsoft, n3);
  MEM_FREE_ARRAY(m, s->comp, nc);
  MEM_FREE_ARRAY(m, s->f, n3);
  MEM_FREE_ARRAY(m, s->xhat, n3);
  MEM_FREE_ARRAY(m, s->yhat, n3);
  MEM_FREE_ARRAY(m, s->y, n3);
  MEM_FREE_ARRAY(m, s->tmp, n3);
  MEM_FREE_ARRAY(m, s->vref_new, n3);
  MEM_FREE_ARRAY(m, s->force_ref, n);
  MEM_FREE_ARRAY(m, s->wn, n3);
  MEM_FREE_ARRAY(m, s->aero_c, nt);
  MEM_FREE_ARRAY(m, s->aero_n, 3 * (size_t)nt);
  MEM_FREE_ARRAY(m, s->aero_P, 81 * (size_t)nt);
  MEM_FREE_ARRAY(m, s->ydrag, n3);
  MEM_FREE_ARRAY(m, s->H.diag, n);
  MEM_FREE_ARRAY(m, s->hess_row_ptr, (size_t)n + 1);
  MEM_FREE_ARRAY(m, s->hess_col, s->hess_count);
  MEM_FREE_ARRAY(m, s->H.val, 9 * (size_t)s->hess_count);
  MEM_FREE_ARRAY(m, s->nw.grad, n3);
  MEM_FREE_ARRAY(m, s->nw.dir, n3);
  MEM_FREE_ARRAY(m, s->nw.trial, n3);
  MEM_FREE_ARRAY(m, s->nw.gtrial, n3);
  MEM_FREE_ARRAY(m, s->nw.pcg.r, n3);
  MEM_FREE_ARRAY(m, s->nw.pcg.z, n3);
  MEM_FREE_ARRAY(m, s->nw.pcg.p, n3);
  MEM_FREE_ARRAY(m, s->nw.pcg.q, n3);
  MEM_FREE_ARRAY(m, s->nw.pcg.pinv, 9 * (size_t)n);
  MEM_FREE_ARRAY(m, s->tri_slot, 9 * (size_t)nt);
  MEM_FREE_ARRAY(m, s->hinge_slot, 16 * (size_t)nh);
  MEM_FREE_ARRAY(m, s->x_save, n3);
  MEM_FREE_ARRAY(m, s->v_save, n3);
  MEM_FREE_ARRAY(m, s->vref_save, n3);
}

void sim_destroy(tf_sim *s) {
  if (!s) return;
  tf_mem mem;
  amg_destroy(&s->mem, s->amg);
  sim_free_arrays(s);
  if (s->kind == SIM_FLESH) sim_flesh_free(s); /* owns the topology the mesh view points into */
  else trimesh_free(&s->mem, &s->mesh);
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
  uint32_t n = s->n, nt = s->mesh.tri_count, nh = s->mesh.hinge_count ? s->mesh.hinge_count : 1;
  uint32_t nc = s->mesh.comp_count;
  size_t n3 = 3 * (size_t)n;
  ARR(rest, n3); ARR(mass, n);
  if (s->kind == SIM_CLOTH) ARR(tri, nt);
  ARR(hinge_theta0, nh); ARR(hinge_geom, nh); ARR(hinge_bend, nh);
  ARR(x, n3); ARR(v, n3); ARR(vref, n3);
  ARR(pin_idx, n); ARR(pin_w, n); ARR(pin_prev, n3); ARR(pin_next, n3); ARR(fixed, n); ARR(mark, n);
  ARR(pin_sub, n3); ARR(pin_sub0, n3); ARR(pin_vel, n3); ARR(fsoft, n3); ARR(comp, nc);
  ARR(f, n3); ARR(xhat, n3); ARR(yhat, n3); ARR(y, n3); ARR(tmp, n3); ARR(vref_new, n3); ARR(force_ref, n); ARR(wn, n3); ARR(aero_c, nt); ARR(aero_n, 3 * (size_t)nt); ARR(ydrag, n3);
  /* Hessian pattern: the upper triangle of the mesh adjacency (diagonal included) */
  s->hess_count = (s->mesh.adj_count + n) / 2;
  ARR(H.diag, n); ARR(hess_row_ptr, (size_t)n + 1); ARR(hess_col, s->hess_count);
  ARR(H.val, 9 * (size_t)s->hess_count);
  ARR(nw.grad, n3); ARR(nw.dir, n3); ARR(nw.trial, n3);
  ARR(nw.gtrial, n3);
  ARR(nw.pcg.r, n3); ARR(nw.pcg.z, n3); ARR(nw.pcg.p, n3); ARR(nw.pcg.q, n3); ARR(nw.pcg.pinv, 9 * (size_t)n);
  ARR(tri_slot, 9 * (size_t)nt); ARR(hinge_slot, 16 * (size_t)nh);
  ARR(x_save, n3); ARR(v_save, n3); ARR(vref_save, n3);
  if (s->mem.failed) return snprintf(err, errn, "out of memory allocating simulation arrays (%u vertices)", n), TF_E_NOMEM;
  bsr_init_upper(&s->H, n, s->mesh.adj_ptr, s->mesh.adj, s->hess_row_ptr, s->hess_col, s->H.diag);
  return TF_OK;
}

tf_status sim_finish(tf_sim *s, const double *initial_positions, char *err, size_t errn) {
  uint32_t n = s->n, nt = s->mesh.tri_count;
  for (uint32_t t = 0; t < nt; ++t)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        s->tri_slot[9 * (size_t)t + 3 * a + b] = bsr_slot(&s->H, s->mesh.tris[3 * t + a], s->mesh.tris[3 * t + b]);
  for (uint32_t e = 0; e < s->mesh.hinge_count; ++e)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        s->hinge_slot[16 * (size_t)e + 4 * a + b] =
            bsr_slot(&s->H, s->mesh.hinges[4 * e + a], s->mesh.hinges[4 * e + b]);
  /* multigrid pays off once block Jacobi needs hundreds of CG iterations */
  if (n >= AMG_MIN_VERTICES) {
    /* cloth: the hierarchy on the triangle adjacency; the hinge couplings (weak: bending is orders
     * below stretching) are lumped by amg_setup, so level 0 keeps ~7 blocks per row, not ~13 */
    uint32_t *eptr = NULL, *eadj = NULL, ecount = 0;
    if (s->kind == SIM_CLOTH && s->mesh.hinge_count && !trimesh_edge_adjacency(&s->mem, &s->mesh, &eptr, &eadj, &ecount))
      return snprintf(err, errn, "out of memory building the multigrid hierarchy (%u vertices)", n), TF_E_NOMEM;
    s->amg = amg_create(&s->mem, n, eptr ? eptr : s->mesh.adj_ptr, eadj ? eadj : s->mesh.adj);
    MEM_FREE_ARRAY(&s->mem, eptr, eptr ? (size_t)n + 1 : 0);
    MEM_FREE_ARRAY(&s->mem, eadj, ecount);
    if (!s->amg && s->mem.failed)
      return snprintf(err, errn, "out of memory building the multigrid hierarchy (%u vertices)", n), TF_E_NOMEM;
    s->mem.failed = 0; /* a mesh that does not coarsen just keeps block Jacobi */
  }
  memcpy(s->x, initial_positions ? initial_positions : s->rest, sizeof(double) * 3 * n);
  pins_refresh_components(s);
  return TF_OK;
}

tf_status sim_create_cloth(const tf_cloth_def *def, tf_sim **out, char *err, size_t errn) {
  tf_sim *s = sim_new(&def->allocator, def->logger, SIM_CLOTH, err, errn);
  if (!s) return TF_E_NOMEM;
  s->index_base = def->index_base;
  uint32_t n = def->vert_count, nt = def->tri_count;
  s->n = n;
  tf_status st = trimesh_build(&s->mem, &s->mesh, n, def->triangles, nt, def->index_base, err, errn);
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
  memcpy(s->rest, def->rest_positions, sizeof(double) * 3 * (size_t)n);
  double total_area = 0.0;
  for (uint32_t t = 0; t < nt; ++t) {
    const uint32_t *tv = s->mesh.tris + 3 * t;
    membrane_rest_init(&s->tri[t], s->rest + 3 * (size_t)tv[0], s->rest + 3 * (size_t)tv[1],
                       s->rest + 3 * (size_t)tv[2]);
    total_area += s->tri[t].area;
  }
  if (def->vertex_masses) {
    memcpy(s->mass, def->vertex_masses, sizeof(double) * n);
  } else {
    double rho = def->total_mass > 0.0 ? def->total_mass / total_area : def->density;
    for (uint32_t t = 0; t < nt; ++t)
      for (int k = 0; k < 3; ++k) s->mass[s->mesh.tris[3 * t + k]] += rho * s->tri[t].area / 3.0;
    /* a vertex in no triangle gets the mean vertex mass, so it stays a valid particle; with
     * total_mass everything is then rescaled so the total is what the host asked for */
    double mean = rho * total_area / n, sum = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
      if (!(s->mass[i] > 0.0)) s->mass[i] = mean;
      sum += s->mass[i];
    }
    if (def->total_mass > 0.0)
      for (uint32_t i = 0; i < n; ++i) s->mass[i] *= def->total_mass / sum;
  }

  /* hinges: rest angle and geometric stiffness factor (k = B * factor) */
  for (uint32_t e = 0; e < s->mesh.hinge_count; ++e) {
    double lx[12];
    for (int q = 0; q < 4; ++q) v3_copy(lx + 3 * q, s->rest + 3 * (size_t)s->mesh.hinges[4 * e + q]);
    s->hinge_theta0[e] = hinge_angle(lx);
    s->hinge_geom[e] = hinge_rest_stiffness(lx, 1.0);
    s->hinge_bend[e] = p->bend;
  }

  st = sim_finish(s, def->initial_positions, err, errn);
  if (st != TF_OK) return sim_destroy(s), st;
  *out = s;
  return TF_OK;
}
