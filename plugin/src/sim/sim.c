/* SPDX-License-Identifier: MIT
 * The lifecycle every configuration shares: a new simulation, its arrays (sim_arrays.c) and the
 * Hessian pattern from the mesh adjacency, its element sets (sim/elements/), the multigrid, and
 * destruction. What is cloth or flesh lives in sim_cloth.c and sim_flesh.c, which call this file;
 * it never calls them. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/vec3.h"
#include "contact/contact.h"
#include "mesh/vertex_order.h"
#include "sim/sim.h"

static const uint32_t AMG_MIN_VERTICES = 400;
/* cloth of at least this many vertices: the multigrid's levels past the first carry the rigid
 * rotations (amg_create), used while no contact is active (step_tau.c; tau-step.md section 7) */
static const uint32_t AMG_ROTATION_VERTICES = 3000;
static const double SIM_FLESH_AMG_REUSE = 0.02; /* flesh: amg_set_reuse, below */

tf_status sim_fail(tf_sim *s, tf_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->last_error, sizeof s->last_error, fmt, ap);
  va_end(ap);
  if (s->logger.fn && TF_LOG_ERROR >= s->logger.min_level)
    s->logger.fn(TF_LOG_ERROR, s->last_error, s->logger.ud);
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
  for (uint32_t k = 0; k < s->set_count; ++k)
    if (s->sets[k].ops->derive) s->sets[k].ops->derive(s, s->sets[k].data);
}

void *sim_add_set(tf_sim *s, const elem_ops *ops) {
  if (s->set_count == SIM_MAX_SETS) return NULL;
  void *data = ops->data_size ? mem_alloc(&s->mem, ops->data_size) : NULL;
  if (ops->data_size && !data) return NULL;
  s->sets[s->set_count++] = (elem_set){ops, data};
  return ops->data_size ? data : (void *)ops; /* non-NULL: added */
}

void sim_sets_post_step(tf_sim *s, double dt) {
  for (uint32_t k = 0; k < s->set_count; ++k)
    if (s->sets[k].ops->post_step) s->sets[k].ops->post_step(s, s->sets[k].data, dt);
}

int sim_plastic_live(const tf_sim *s) {
  for (uint32_t k = 0; k < s->set_count; ++k) {
    if (!s->sets[k].ops->plastic) continue;
    for (int bend = 0; bend < 2; ++bend) {
      const elem_plastic *p = s->sets[k].ops->plastic(s->sets[k].data, bend);
      if (p && p->on) return 1;
    }
  }
  return 0;
}

uint32_t sim_reserve_plastic(tf_sim *s, uint32_t count) {
  uint32_t at = s->plastic_count;
  s->plastic_count += count;
  return at;
}

void sim_destroy(tf_sim *s) {
  if (!s) return;
  tf_mem mem;
  tear_free(&s->mem, s->tear);
  levels_free(&s->mem, s->levels);
  amg_destroy(&s->mem, s->solver.amg);
  if (s->solver.Hpar.xptr) bsr_par_free(&s->mem, &s->solver.Hpar, s->solver.H.n);
  pool_destroy(&s->mem, s->pool);
  sim_arrays_free(s);
  MEM_FREE_ARRAY(&s->mem, s->model.host_of, s->model.order_n);
  MEM_FREE_ARRAY(&s->mem, s->model.node_of, s->model.order_n);
  /* sets last to first: flesh's tet set owns the topology the mesh view points into */
  for (uint32_t k = s->set_count; k-- > 0;) {
    const elem_set *set = &s->sets[k];
    if (set->ops->destroy) set->ops->destroy(&s->mem, set->data);
    if (set->data) mem_free(&s->mem, set->data, set->ops->data_size);
  }
  if (s->owns_mesh) trimesh_free(&s->mem, &s->model.mesh);
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
  p->thickness = 0.002;
  p->friction = 0.3;
  p->ground_friction = 0.5;
  /* plasticity off (no plastic limit), with the elastic limit it takes when turned on */
  p->plastic_yield = 0.1;
  p->bend_yield = 10.0;
}

tf_sim *sim_new(const tf_allocator *a, tf_logger logger, sim_kind kind, uint32_t threads, char *err,
                size_t errn) {
  tf_mem mem;
  mem_init(&mem, a);
  tf_sim *s = mem_alloc(&mem, sizeof *s);
  if (!s) return snprintf(err, errn, "out of memory allocating the simulation"), NULL;
  s->mem = mem;
  s->threads = threads;
  s->logger = logger;
  s->kind = kind;
  s->stats.struct_size = sizeof s->stats;
  sim_default_params(&s->par); /* before the sets, which take their plastic limits from them */
  return s;
}

/* Hessian blocks per thread when the count is automatic (threads = 0): below this a loop's share
 * is a few microseconds and waking a worker costs more than it saves (a 441-vertex cloth took
 * 2.15 s on 2 threads against 1.97 on 1, and a fuzzer's 8-vertex body 9x as long) */
static const uint32_t AUTO_BLOCKS_PER_THREAD = 4000;

/* the pool: the def's count, or when it is 0 every core up to one per AUTO_BLOCKS_PER_THREAD */
static tf_status start_threads(tf_sim *s, char *err, size_t errn) {
  uint32_t t = pool_resolve_threads(s->threads);
  if (s->threads == 0) {
    uint32_t by_size = s->size.hess / AUTO_BLOCKS_PER_THREAD;
    t = by_size < 1 ? 1 : by_size < t ? by_size : t;
  }
  s->pool = pool_create(&s->mem, t);
  if (!s->pool) return snprintf(err, errn, "out of memory starting %u threads", t), TF_E_NOMEM;
  s->stats.threads = pool_threads(s->pool);
  return TF_OK;
}

tf_status sim_alloc(tf_sim *s, char *err, size_t errn) {
  const trimesh *m = &s->model.mesh;
  uint32_t n = s->model.n;
  if (!s->model.host_n) s->model.host_n = n; /* all vertices are the host's unless set before */
  /* Hessian pattern: the upper triangle of the mesh adjacency (diagonal included) */
  s->size = (sim_sizes){
      .n = n, .comp = m->comp_count, .hess = (m->adj_count + n) / 2, .plastic = s->plastic_count};
  tf_status st = sim_arrays_alloc(s, err, errn);
  if (st == TF_OK) st = start_threads(s, err, errn);
  if (st != TF_OK) return st;
  sim_solver *sv = &s->solver;
  bsr_init_upper(&sv->H, n, m->adj_ptr, m->adj, sv->row_ptr, sv->col, sv->H.diag);
  if (!bsr_par_init(&s->mem, &sv->Hpar, &sv->H))
    return snprintf(err, errn, "out of memory allocating the Hessian (%u vertices)", n), TF_E_NOMEM;
  sv->Hpar.pool = s->pool;
  sim_rebind(s);
  return TF_OK;
}

void sim_rebind(tf_sim *s) {
  s->solver.H.par = &s->solver.Hpar;
  if (s->contact) contact_rebind(s->contact, &s->mem);
}

tf_status sim_finish(tf_sim *s, const double *initial_positions, char *err, size_t errn) {
  uint32_t n = s->model.n;
  /* multigrid pays off once block Jacobi needs hundreds of CG iterations */
  if (n >= AMG_MIN_VERTICES) {
    /* cloth: the hierarchy on the triangle adjacency; the hinge couplings (weak: bending is orders
     * below stretching) are lumped by amg_setup, so level 0 keeps ~7 blocks per row, not ~13.
     * Spring cloth keeps them all: its shear springs join a quad's opposite corners (a hinge
     * coupling) as stiffly as the edges (lumped, SWING-64 took 45x the CG iterations) */
    uint32_t *eptr = NULL, *eadj = NULL, ecount = 0;
    if (s->model.mesh.hinge_count && !s->spring &&
        !trimesh_edge_adjacency(&s->mem, &s->model.mesh, &eptr, &eadj, &ecount))
      return snprintf(err, errn, "out of memory building the multigrid hierarchy (%u vertices)", n),
             TF_E_NOMEM;
    s->solver.amg =
        amg_create(&s->mem, n, eptr ? eptr : s->model.mesh.adj_ptr, eadj ? eadj : s->model.mesh.adj,
                   &s->solver.H, s->model.rest,
                   s->kind == SIM_CLOTH && n >= AMG_ROTATION_VERTICES ? 1 : AMG_TRANSLATIONS);
    /* flesh keeps its coarse levels within a step while each Hessian row moves by under 2 %
     * (amg_set_reuse): a sagging block's rows change by 0.5-2 % an iteration, and the prolongator
     * and Galerkin products were 15 % of FLESH-20k (one thread 8.9 -> 7.4 ms/frame; 7.9 at
     * 0.5 %). Not cloth: a membrane's rows are ruled by stretching, while the soft modes the
     * coarse levels must carry (bending, buckling) change far more than the rows do. At 2 %
     * SWING-64 gained 9 % but DRAPE-128 lost 28 % (6.63 Newton iterations a step against 5.63) */
    if (s->solver.amg &&
        ((s->kind == SIM_FLESH && !amg_set_reuse(&s->mem, s->solver.amg, SIM_FLESH_AMG_REUSE)) ||
         !amg_set_pool(&s->mem, s->solver.amg, s->pool))) {
      amg_destroy(&s->mem, s->solver.amg);
      s->solver.amg = NULL;
    }
    MEM_FREE_ARRAY(&s->mem, eptr, eptr ? (size_t)n + 1 : 0);
    MEM_FREE_ARRAY(&s->mem, eadj, ecount);
    if (!s->solver.amg && s->mem.failed)
      return snprintf(err, errn, "out of memory building the multigrid hierarchy (%u vertices)", n),
             TF_E_NOMEM;
    s->mem.failed = 0; /* a mesh that does not coarsen just keeps block Jacobi */
  }
  memcpy(s->state.x, initial_positions ? initial_positions : s->model.rest, sizeof(double) * 3 * n);
  pins_refresh_components(s);
  return TF_OK;
}

const uint32_t *sim_host_triangles(const tf_sim *s, uint32_t *count) {
  if (s->flesh) return *count = s->flesh->tet.face_count, s->flesh->tet.faces;
  return *count = s->model.mesh.tri_count, s->model.mesh.tris;
}

static int order_alloc(tf_sim *s, uint32_t n) {
  s->model.order_n = n;
  s->model.host_of = mem_array(&s->mem, n, sizeof(uint32_t));
  s->model.node_of = mem_array(&s->mem, n, sizeof(uint32_t));
  return s->model.host_of && s->model.node_of;
}

static void order_invert(tf_sim *s) {
  for (uint32_t i = 0; i < s->model.order_n; ++i) s->model.node_of[s->model.host_of[i]] = i;
}

int sim_vertex_order(tf_sim *s, const double *pos, uint32_t nv, const uint32_t *elems, uint32_t k,
                     uint32_t count) {
  int reordered = 0;
  if (!order_alloc(s, nv) ||
      !vertex_order(&s->mem, pos, nv, elems, k, count, s->model.host_of, &reordered))
    return 0;
  if (reordered) {
    order_invert(s);
  } else {
    MEM_FREE_ARRAY(&s->mem, s->model.host_of, nv);
    MEM_FREE_ARRAY(&s->mem, s->model.node_of, nv);
    s->model.host_of = s->model.node_of = NULL, s->model.order_n = 0;
  }
  return 1;
}

int sim_keep_vertex_order(tf_sim *s, const uint32_t *host_of, uint32_t n) {
  if (!host_of) return 1;
  if (!order_alloc(s, n)) return 0;
  memcpy(s->model.host_of, host_of, sizeof(uint32_t) * n);
  order_invert(s);
  return 1;
}

/* rows of dim between the host's order and the simulation's (to_host: scattered back); the
 * order's length, which is host_n once the model is built and is known before it */
static void order_rows(const tf_sim *s, const double *from, double *to, int dim, int to_host) {
  const uint32_t *h = s->model.host_of;
  const size_t row = sizeof(double) * (size_t)dim;
  if (!h) {
    memcpy(to, from, row * s->model.host_n);
    return;
  }
  for (uint32_t i = 0; i < s->model.order_n; ++i)
    memcpy(to + (size_t)dim * (to_host ? h[i] : i), from + (size_t)dim * (to_host ? i : h[i]), row);
}

void sim_rows_from_host(const tf_sim *s, const double *host, double *all, int dim) {
  order_rows(s, host, all, dim, 0);
}

void sim_indices_from_host(const tf_sim *s, const uint32_t *host, uint32_t *out, size_t count) {
  for (size_t k = 0; k < count; ++k) out[k] = sim_vertex(s, host[k]);
}

void sim_from_host(const tf_sim *s, const double *host, double *all, int dim) {
  sim_rows_from_host(s, host, all, dim);
  if (s->model.n != s->model.host_n) tet10mesh_spread(&s->flesh->q10, all, dim);
}

void sim_to_host(const tf_sim *s, const double *all, double *host, int dim) {
  order_rows(s, all, host, dim, 1);
}
