/* SPDX-License-Identifier: MIT
 * The simulation object behind the opaque tf_sim: immutable model (rest mesh, topology, rest
 * element data, masses) kept apart from the parameters (settable between frames), the state
 * (positions, velocities, carrier velocity) and the scratch the step uses. Everything the step
 * touches is allocated at create, so advancing allocates nothing. */
#ifndef TF_SIM_SIM_H
#define TF_SIM_SIM_H

#include "core/mem.h"
#include "core/pool.h"
#include "core/vec3.h"
#include "energy/membrane_tri.h"
#include "energy/neohookean_tet.h"
#include "mesh/tet10mesh.h"
#include "mesh/tetmesh.h"
#include "mesh/trimesh.h"
#include "solve/amg.h"
#include "solve/newton.h"
#include "levels/levels.h"
#include "sim/elements/elements.h"

#define SIM_ERR_SIZE 512

typedef struct sim_params {
  tf_integrator integrator;
  double tau, kappa;
  double stretch, poisson;
  double youngs;       /* Pa, flesh base material (material 0) */
  double bend;         /* N m, uniform value (the map overrides per hinge or triangle) */
  double bend_poisson; /* the shell bending's Poisson ratio */
  double shear,
      bend_springs; /* N/m: spring cloth's shear and bend families (stretch: structural) */
  double plastic_yield, plastic_limit, plastic_time; /* plasticity (elements/spring.c) */
  double bend_yield, bend_plastic_limit; /* 1/m: the shell's bending plasticity (shell.c) */
  double gravity[3];
  double pin_stiffness;
  double phi, psi;
  /* aerodynamics: on while air_density > 0 */
  double wind[3], air_density, drag, lift;
  double turbulence, turbulence_scale, turbulence_time, turbulence_seed, gust, gust_period;
  /* contact: thickness m, friction coefficients, ground plane n . x = h (n = 0: no ground) */
  double thickness, friction, ground_normal[3], ground_height, ground_friction;
  double self_contact; /* 1: the surface keeps its own layers apart (contact/self.c), 0: off */
  double tear_strain;  /* an edge breaks past this strain (tear.c); 0: never */
  double time; /* s: the clock (0 at create, advanced per frame), settable so a restored state
                * restores it: time-dependent wind reads it */
  tf_solver_settings solver;
} sim_params;

/* per connected component: pinned follows the pins (pins_refresh_components); the rest is the
 * step's rigid fits and projections */
typedef struct sim_comp {
  int pinned;        /* has at least one hard pin: pure flow, no ballistic subspace */
  double mass;       /* kg */
  double com[3];     /* centre of mass at x_n */
  double inertia[9]; /* about com, at x_n */
  /* carrier fit of the pins */
  double pin_w, pin_c[3], pin_J[9];
  double acc[6]; /* accumulators */
  double K[36]; /* dt^2 x the soft pins' stiffness seen by the rigid modes (rigid_project_sprung) */
  double toi;   /* contact/start.c: the share of its predicted motion the piece may take */
  int touching; /* contact/friction.c: a pair of it is in contact at the step's start */
  int anchored; /* near a collider, the ground or (self-contact) another piece this step: contact
                  * acts on its rigid modes too (their physical inertia joins the minimization,
                  * contact/start.c) */
  double box[6]; /* contact/start.c: the box its vertices sweep over x_n -> x^ this step */
} sim_comp;

/* the piece's rigid motion held in acc (linear, then angular: rigid_momenta) at the point xi,
 * v + w x (xi - com) */
static inline void sim_comp_rigid_at(const sim_comp *c, const double *xi, double out[3]) {
  double r[3], wr[3];
  v3_sub(r, xi, c->com);
  v3_cross(wr, c->acc + 3, r);
  v3_add(out, c->acc, wr);
}

typedef enum sim_kind { SIM_CLOTH = 0, SIM_FLESH = 1 } sim_kind;

/* flesh: the tets, their materials and the render surface embedded in them */
typedef struct sim_flesh {
  tetmesh tet; /* topology; its boundary faces are the host's triangles */
  tf_tet_element element;
  tet10mesh q10;         /* quadratic: the edge nodes, split faces and adjacency (else empty) */
  const uint32_t *nodes; /* (tet_count x npt): each element's nodes, q10.nodes or tet.tets */
  uint32_t npt;          /* nodes per element: 4 or 10 */
  tet_rest *rest;        /* (tet_count) the rest mesh's */
  double *dm;            /* (tet_count x 9) Dm^-1 Fp^-1 now, what the energy uses: the state's
                          * plastic slice, moved by plasticity (tet.c) */
  double *volume;        /* (tet_count) rest[t].volume and rest[t].swapped, apart: the kernel */
  uint8_t *swapped;      /* reads these and dm, not rest (a step's memory traffic) */
  uint32_t plastic_at;   /* offset of dm in s->state.plastic */
  elem_plastic pl;       /* each tet's elastic and plastic limits (an equivalent strain) */
  uint32_t *mat;         /* (tet_count) material index: 0 = base (the parameters), k > 0 = table */
  double *fill;          /* (tet_count) inside fraction of a lattice tet (1 for the host's tets) */
  double *lambda, *mu;   /* (tet_count) Pa: fill x its material's */
  uint32_t mat_count;    /* table size incl. the base */
  double *mat_lambda, *mat_mu; /* (mat_count) Pa, [0] follows youngs/poisson */
  uint32_t *slot;              /* (tet_count x npt^2) BSR slots */
  elem_colours col;            /* the tets by colour (elements.h) */
  double rest_volume;          /* m^3 */
  /* embedded render surface (may be empty) */
  uint32_t surf_n, surf_tri_count;
  uint32_t *surf_tet;    /* (surf_n) */
  double *surf_w;        /* (surf_n x npt) the element's shape functions at the point */
  uint32_t *surf_tris;   /* (surf_tri_count x 3) */
  uint32_t surf_outside; /* surface points outside every tet (extrapolated) */
  double surf_worst;     /* most negative weight among them */
  int from_surface;      /* the tets were built from the surface by the lattice tetrahedralizer */
} sim_flesh;

/* element t's a-th node in its kernel's order (the rest data's corner order, then the edges) */
static inline uint32_t tet_node(const sim_flesh *F, uint32_t t, uint32_t a) {
  return a >= 4 || !F->swapped[t] || a < 2 ? a : 5 - a; /* as tet_local_vertex */
}

/* The sizes every array below is declared in: vertices, connected pieces, and the number of
 * stored blocks of the Hessian's upper triangle. Element sets size their own data */
typedef struct sim_sizes {
  uint32_t n, comp, hess;
  uint32_t plastic; /* doubles of plastic state, every set's slice (sim_reserve_plastic) */
} sim_sizes;
#define SZ_N(z) ((size_t)(z)->n)
#define SZ_N1(z) ((size_t)(z)->n + 1)
#define SZ_N2(z) (2 * (size_t)(z)->n)
#define SZ_N3(z) (3 * (size_t)(z)->n)
#define SZ_N9(z) (9 * (size_t)(z)->n)
#define SZ_COMP(z) ((size_t)(z)->comp)
#define SZ_COMP9(z) (9 * (size_t)(z)->comp)
#define SZ_HESS(z) ((size_t)(z)->hess)
#define SZ_HESS9(z) (9 * (size_t)(z)->hess)
#define SZ_PLASTIC(z) ((size_t)(z)->plastic)

/* Each part of a simulation is declared once, as a list X(type, field, count), as MuJoCo declares
 * mjData (mjxmacro.h): the struct's fields, their allocation, freeing and copying all expand from
 * the same list (sim_arrays.c), so they cannot drift apart. */

/* model: what create computes from the def and nothing changes after (the parameters aside) */
#define SIM_MODEL_ARRAYS(X)                      \
  X(double, rest, SZ_N3) /* rest positions, m */ \
  X(double, mass, SZ_N)  /* lumped vertex masses, kg */

/* state: what a snapshot saves and a failed advance restores (rollback is one copy of it) */
#define SIM_STATE_ARRAYS(X)                                                                        \
  X(double, x, SZ_N3)          /* positions, m */                                                  \
  X(double, v, SZ_N3)          /* velocities, m/s */                                               \
  X(double, vref, SZ_N3)       /* carrier velocity of the last step (design note sec. 2.6), m/s */ \
  X(double, carrier, SZ_COMP9) /* per piece, that carrier: V, omega, centre (pins.c) */            \
  X(double, afict, SZ_N3)      /* the carrier's changes of velocity, low-passed (pins.c), m/s^2 */ \
  X(double, plastic, SZ_PLASTIC) /* the sets' plastic rest state (sim_reserve_plastic) */

/* pins: per pin slot q (count of them in use), and per vertex (fixed, mark) */
#define SIM_PIN_ARRAYS(X)                                                               \
  X(uint32_t, idx, SZ_N)     /* pinned vertex of slot q */                              \
  X(double, w, SZ_N)         /* weight in (0, 1]: 1 is a hard pin, below a spring */    \
  X(double, prev, SZ_N3)     /* targets at the start of the next advance, m */          \
  X(double, next, SZ_N3)     /* targets at its end, m */                                \
  X(double, sub0, SZ_N3)     /* targets at the current substep's start */               \
  X(double, sub, SZ_N3)      /* and at its end */                                       \
  X(double, vel, SZ_N3)      /* target velocities for the carrier fit, m/s */           \
  X(uint32_t, parent, SZ_N2) /* slots from host: the two pins an edge node's follows */ \
  X(uint32_t, slot_of, SZ_N) /* per vertex: its pin slot, UINT32_MAX if none */         \
  X(uint8_t, fixed, SZ_N)    /* per vertex: hard-pinned */                              \
  X(uint8_t, mark, SZ_N)     /* per vertex: scratch for argument checks, all zero between calls */

/* step scratch, each array with one role (none borrowed from the solver) */
#define SIM_WORK_ARRAYS(X)                                                                        \
  X(sim_comp, comp, SZ_COMP)       /* per connected piece */                                      \
  X(double, f, SZ_N3)              /* external + fictitious force, then its deformable part, N */ \
  X(double, fsoft, SZ_N3)          /* soft pins' pull on free pieces, N */                        \
  X(double, u, SZ_N3)              /* relative velocity and projected fields of the step */       \
  X(double, proj, SZ_N3)           /* rigid projection of u */                                    \
  X(double, vr, SZ_N3)             /* ballistic velocity v_R of free pieces */                    \
  X(double, wn, SZ_N3)             /* deformable part of the old relative velocity */             \
  X(double, xhat, SZ_N3)           /* ballistic prediction x_n + dt (v_ref + v_R) */              \
  X(double, yhat, SZ_N3)           /* inertial target of the step */                              \
  X(double, y, SZ_N3)              /* the step's iterate */                                       \
  X(double, ystart, SZ_N3)         /* the first iterate (contact: first its other candidate) */   \
  X(double, w, SZ_N3)              /* deformable velocity of the result */                        \
  X(double, wr, SZ_N3)             /* its rigid part (removed: momenta stay exact) */             \
  X(double, vref_new, SZ_N3)       /* carrier velocity of this step */                            \
  X(double, carrier_new, SZ_COMP9) /* its parameters per piece (pins.c) */                        \
  X(double, afict_step, SZ_N3)     /* the carrier's fictitious acceleration over this step */     \
  X(double, afict_new, SZ_N3)      /* its filter at the step's end (pins.c) */                    \
  X(double, force_ref, SZ_N)       /* balance scale of each vertex for the solver, N */           \
  X(double, grad, SZ_N3)           /* explicit integrator: gradient of PE at x_n */               \
  X(double, eig_v, SZ_N3)          /* settle: inverse iteration vector */                         \
  X(double, eig_z, SZ_N3)          /* settle: its solve */                                        \
  X(double, eig_mv, SZ_N3)         /* settle: M v and K v */                                      \
  X(double, rig_d, SZ_N3) /* objective: y - yhat, for the rigid inertia of anchored pieces */     \
  X(double, rig_p, SZ_N3) /* objective: its rigid projection */                                   \
  X(double, eterm, SZ_N)  /* objective: each vertex's inertia and load energy, summed in order */

/* solver: the Hessian (pattern fixed at create), element slots into it, Newton-PCG work */
#define SIM_SOLVER_ARRAYS(X)    \
  X(uint32_t, H.diag, SZ_N)     \
  X(uint32_t, row_ptr, SZ_N1)   \
  X(uint32_t, col, SZ_HESS)     \
  X(double, H.val, SZ_HESS9)    \
  X(double, nw.grad, SZ_N3)     \
  X(double, nw.dir, SZ_N3)      \
  X(double, nw.trial, SZ_N3)    \
  X(double, nw.gtrial, SZ_N3)   \
  X(double, nw.pcg.r, SZ_N3)    \
  X(double, nw.pcg.z, SZ_N3)    \
  X(double, nw.pcg.p, SZ_N3)    \
  X(double, nw.pcg.q, SZ_N3)    \
  X(double, nw.pcg.pinv, SZ_N9) \
  X(double, nw.vtx, SZ_N3)

#define SIM_DECLARE_ARRAY(type, field, count) type *field;

typedef struct sim_model {
  uint32_t n;      /* vertices (nodes): the state's size */
  uint32_t host_n; /* the first host_n are the host's; the rest are quadratic flesh's edge nodes,
                    * the simulation's own (mesh/tet10mesh.h) */
  trimesh mesh;    /* cloth: its own; flesh: a view of the tets' boundary faces, components and
                 * adjacency (no edges or hinges; owned by flesh.tet) */
  /* the simulation's own vertex order (sim_vertex_order): vertex i < host_n is the host's
   * host_of[i], host vertex h is node_of[h] (order_n of each). NULL: the host's order. Everything
   * the host gives or reads passes through them (sim_host_vertex, sim_from_host, sim_to_host) */
  uint32_t *host_of, *node_of;
  uint32_t order_n;
  SIM_MODEL_ARRAYS(SIM_DECLARE_ARRAY)
} sim_model;

typedef struct sim_state {
  SIM_STATE_ARRAYS(SIM_DECLARE_ARRAY)
} sim_state;

typedef struct sim_pins {
  uint32_t count;    /* slots in use */
  uint32_t host;     /* the host's pins, slots 0..host-1; after them quadratic flesh's edge nodes
                      * between two pinned corners (pins_derive) */
  int targets_fresh; /* the host set targets since the last advance or pin set */
  int unfiltered; /* a seam for tests only: the carrier's changes act within their step, as before
                   * their low-pass (pins_fictitious), so a test can measure what it removed */
  SIM_PIN_ARRAYS(SIM_DECLARE_ARRAY)
} sim_pins;

typedef struct sim_work {
  double dt;    /* of the current step, s */
  double time;  /* at its start, s */
  double h2;    /* s^2 */
  int anchored; /* some piece is anchored (sim_comp.anchored) this step */
  SIM_WORK_ARRAYS(SIM_DECLARE_ARRAY)
} sim_work;

typedef struct sim_solver {
  bsr H;
  bsr_par Hpar;            /* H's blocked (threaded) product */
  uint32_t *row_ptr, *col; /* the upper-triangle pattern H points at */
  amg *amg;                /* multigrid preconditioner; NULL: block Jacobi (small meshes) */
  newton_work nw;
  /* the objective the step's solver minimizes: sim_step_eval. A seam for tests only: the step's
   * sanity check evaluates sim_step_eval itself, so a solver given a wrong objective is caught */
  newton_eval_fn eval;
  /* the sanity check of the last step (step_tau): objective at the start iterate and the result */
  double check_e0, check_e1;
  uint32_t check_vertex; /* first non-finite vertex, when that failed */
} sim_solver;

struct tf_sim {
  tf_mem mem;
  tf_pool *pool;    /* the threads of the per-step loops (core/pool.h), 1 thread: inline; from
                     * sim_alloc on */
  uint32_t threads; /* the def's count (0: automatic, sim.c start_threads) */
  sim_kind kind;    /* which configuration of sets; names the parameters that apply */
  tf_logger logger;
  char last_error[SIM_ERR_SIZE];
  uint32_t index_base; /* first vertex or pin number in messages: 0 (C) or 1 (Lua, ...) */
  sim_sizes size;

  sim_model model;
  sim_params par;
  sim_state state;
  sim_state saved; /* the state at the start of the advance in progress */
  sim_pins pins;
  sim_work work;
  sim_solver solver;

  /* the potential energy: a list of element sets (sim/elements/), and typed views of the ones
   * other code reads (NULL when the configuration has none) */
  elem_set sets[SIM_MAX_SETS];
  uint32_t set_count;
  uint32_t plastic_count; /* plastic state reserved so far (sim_reserve_plastic), doubles */
  elem_membrane *membrane;
  elem_hinge *hinge;   /* the cloth's bending: one of hinge and shell (tf_bend_model) */
  elem_spring *spring; /* spring cloth (TF_CLOTH_SPRINGS): instead of membrane and bending */
  elem_shell *shell;
  sim_flesh *flesh;
  elem_drag *drag;
  struct sim_contact *contact; /* NULL until a collider or the ground exists (contact/) */
  struct sim_tear *tear;       /* NULL until tear_strain is first set (tear.c) */
  struct sim_levels *levels;   /* NULL until the host first sets forces or a response (levels/) */
  tf_cloth_def cloth_def;      /* cloth: the create's settings without its arrays, which tearing
                                * rebuilds the simulation from (tear.c) */
  int owns_mesh;               /* cloth owns its trimesh; flesh's is a view of its tets' boundary */

  uint64_t frames; /* advances completed since create: named in failure messages */
  tf_stats stats;
};

/* sim_arrays.c: every array of the lists above, through s->mem. TF_E_NOMEM with a message */
TF_LOCAL tf_status sim_arrays_alloc(tf_sim *s, char *err, size_t n);
TF_LOCAL void sim_arrays_free(tf_sim *s);
TF_LOCAL void sim_state_copy(const tf_sim *s, sim_state *dst, const sim_state *src);
/* memcpy across the pool (the state's arrays, the step's copies of positions) */
TF_LOCAL void sim_copy(const tf_sim *s, void *dst, const void *src, size_t bytes);

/* sim.c: the lifecycle every configuration shares. sim_cloth.c and sim_flesh.c call it; it calls
 * neither (the sets' ops stand in for every kind-specific step) */
/* threads: the def's (0 = automatic), for the simulation's pool (started by sim_alloc) */
TF_LOCAL tf_sim *sim_new(const tf_allocator *a, tf_logger logger, sim_kind kind, uint32_t threads,
                         char *err, size_t n);
/* every array, and the Hessian pattern from mesh.adj; s->model.n and s->model.mesh set.
 * TF_E_NOMEM with a message */
TF_LOCAL tf_status sim_alloc(tf_sim *s, char *err, size_t n);
/* append a set with ops->data_size zeroed bytes of data; NULL when out of memory or full */
TF_LOCAL void *sim_add_set(tf_sim *s, const elem_ops *ops);
/* before sim_alloc: count doubles of the state's plastic array for a set (saved, rolled back and
 * snapshotted with the positions); returns the slice's offset */
TF_LOCAL uint32_t sim_reserve_plastic(tf_sim *s, uint32_t count);

/* m/s: a step slower than this everywhere is at rest (newton.c's confirmed exit); ten times the
 * creep the self-contact issue allows at rest, so a catch-up step is caught too. A piece whose
 * deformation is slower than this starts its step from xhat alone (step_tau.c, moving_start) */
#define SIM_REST_SPEED 1e-2

/* vertices per chunk of a vertex loop across the pool: a chunk's work (microseconds) outweighs
 * claiming it, and a mesh of fewer vertices runs inline */
#define SIM_VERTEX_GRAIN 1024u
/* fn over the vertices [0, n) in chunks, across the pool; each vertex's work must touch only its
 * own entries (then every thread count gives the same bits) */
static inline void sim_vertex_for(const tf_sim *s, pool_fn fn, void *ctx) {
  pool_for(s->pool, s->model.n, SIM_VERTEX_GRAIN, fn, ctx);
}
/* some set's plasticity is on: its post_step may move plastic rest shapes (elements.h) */
TF_LOCAL int sim_plastic_live(const tf_sim *s);
/* every set's post_step after an accepted step of dt (step_tau) */
TF_LOCAL void sim_sets_post_step(tf_sim *s, double dt);
/* the multigrid hierarchy, the initial positions (NULL: rest) and the pieces */
TF_LOCAL tf_status sim_finish(tf_sim *s, const double *initial_positions, char *err, size_t n);
TF_LOCAL void sim_default_params(sim_params *p);
TF_LOCAL void sim_destroy(tf_sim *s);
/* the simulation's pointers into its own struct (the Hessian's threaded product, the broad
 * phase's allocator), set again after the struct moved (tear.c swaps two in place) */
TF_LOCAL void sim_rebind(tf_sim *s);

/* tear.c: tearing of cloth (TF_PARAM_TEAR_STRAIN) */
typedef struct sim_tear {
  uint32_t n, tris; /* the arrays' sizes: vertices and triangles now */
  uint32_t n0;      /* vertices at create */
  uint32_t *origin; /* (n) each vertex's vertex at create */
  uint32_t *parent; /* (n) the vertex it was split from (itself for the mesh's own): lower */
  uint32_t *nbr;    /* (tris x 3) the triangle across the edge opposite corner k, or UINT32_MAX */
  uint8_t *cut;     /* (tris x 3) that edge broke */
  double *map;      /* (n) per-vertex tear strain, when has_map (else the uniform parameter) */
  int has_map;
  uint64_t serial; /* splits since create */
  uint32_t torn;   /* edges broken since create */
  int changed;     /* the last advance split the mesh */
} sim_tear;
/* tearing's data (topology, rest lengths) for the current mesh; TF_E_NOMEM */
TF_LOCAL tf_status tear_enable(tf_sim *s);
TF_LOCAL void tear_free(tf_mem *m, sim_tear *t);
/* after each accepted step: break the edges past their strain and, when vertices split, rebuild
 * the simulation on the split mesh in place (s keeps its address). TF_OK (torn or not), or
 * TF_E_NOMEM with a message, the simulation then as before the split */
TF_LOCAL tf_status tear_after_step(tf_sim *s);
/* a per-vertex tear strain map (values: n, the simulation's order) */
TF_LOCAL tf_status tear_set_map(tf_sim *s, const double *values);
TF_LOCAL tf_status sim_fail(tf_sim *s, tf_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
TF_LOCAL void sim_params_derive(tf_sim *s);
TF_LOCAL void sim_log(tf_sim *s, tf_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* sim_cloth.c, sim_flesh.c: the two configurations */
TF_LOCAL tf_status sim_create_cloth(const tf_cloth_def *def, tf_sim **out, char *err, size_t n);
/* cloth on a def whose arrays are already in the order host_of gives (n of them; NULL: the
 * host's): a torn cloth's rebuild (tear.c) */
TF_LOCAL tf_status sim_rebuild_cloth(const tf_cloth_def *def, const uint32_t *host_of, tf_sim **out,
                                     char *err, size_t n);
TF_LOCAL tf_status sim_create_flesh(const tf_flesh_def *def, tf_sim **out, char *err, size_t n);
/* the host's triangles over its vertices: cloth's own, flesh's tet boundary (not quadratic
 * flesh's split faces, sim.c) */
TF_LOCAL const uint32_t *sim_host_triangles(const tf_sim *s, uint32_t *count);
/* a host's (host_n x dim) field as the simulation's (n x dim), in its vertex order: quadratic
 * flesh's edge nodes at their corners' mean (sim_rows_from_host leaves them alone); host and all
 * must not overlap */
TF_LOCAL void sim_from_host(const tf_sim *s, const double *host, double *all, int dim);
TF_LOCAL void sim_rows_from_host(const tf_sim *s, const double *host, double *all, int dim);
/* host vertex indices (count) as the simulation's: a def's elements, once ordered */
TF_LOCAL void sim_indices_from_host(const tf_sim *s, const uint32_t *host, uint32_t *out,
                                    size_t count);
/* the simulation's first host_n rows (of dim) as the host's (host_n x dim), in its order */
TF_LOCAL void sim_to_host(const tf_sim *s, const double *all, double *host, int dim);
/* The vertices in a local order (mesh/vertex_order.h) when the host's is far less local: a
 * Morton curve of pos (host order, nv x 3) judged on count elements of k vertices (host
 * indices). A mesher's numbering scatters an element's corners over the whole state, gradient and
 * Hessian: a shuffled CLOTH-128 ran 1.5x slower than the same sheet row by row, and two threads
 * shared cache lines (results/2026-12-03-vertex-order). 0 when out of memory */
TF_LOCAL int sim_vertex_order(tf_sim *s, const double *pos, uint32_t nv, const uint32_t *elems,
                              uint32_t k, uint32_t count);
/* a given order (host_of: n; NULL: the host's): a torn cloth's rebuild keeps its vertices where
 * they were and appends the copies (tear.c). 0 when out of memory */
TF_LOCAL int sim_keep_vertex_order(tf_sim *s, const uint32_t *host_of, uint32_t n);
/* the host's number of vertex i (an edge node keeps its own), and the simulation's of host
 * vertex h < host_n */
static inline uint32_t sim_host_vertex(const tf_sim *s, uint32_t i) {
  return s->model.host_of && i < s->model.order_n ? s->model.host_of[i] : i;
}
static inline uint32_t sim_vertex(const tf_sim *s, uint32_t h) {
  return s->model.node_of ? s->model.node_of[h] : h;
}
/* elements/tet.c: sum of the tets' current volumes, m^3 */
TF_LOCAL double sim_flesh_volume(const sim_flesh *F, const double *x);
/* elements/tet.c: tets inverted at x (for a quadratic one: at one of its quadrature points) */
TF_LOCAL uint32_t sim_flesh_inverted(const sim_flesh *F, const double *x);

/* sim_set.c: the host's changes between frames, after api/ has checked them (these only fail
 * when out of memory, and then change nothing) */
/* a parameter's new values into its field of s->par (count of them), with what follows from it:
 * storage for the air model, a uniform bending stiffness over any map, derived constants */
TF_LOCAL tf_status sim_set_param(tf_sim *s, tf_param param, double *field, const double *values,
                                 uint32_t count);
/* The per-vertex maps below take n values in the simulation's order (sim_from_host of the
 * host's). Per-vertex bending stiffness: each hinge takes its edge's mean; par.bend the map's
 * mean */
TF_LOCAL void sim_set_bend_map(tf_sim *s, const double *values);
/* per-vertex self-contact: 0 opts a vertex out (contact/self.c); TF_E_NOMEM */
TF_LOCAL tf_status sim_set_self_map(tf_sim *s, const double *values);
/* spring cloth: TF_PARAM_PLASTIC_YIELD or _LIMIT per vertex (a spring takes its ends' mean) */
TF_LOCAL void sim_set_plastic_map(tf_sim *s, tf_param param, const double *values);
/* cloth: each triangle's (structural spring's) stretch stiffness the mean of its vertices' */
TF_LOCAL void sim_set_stretch_map(tf_sim *s, const double *values);
/* positions and velocities (host_n x 3; v NULL: zero), and the pins restarted from them */
TF_LOCAL void sim_set_state(tf_sim *s, const double *x, const double *v);

/* snapshot.c: the state as a byte buffer (tf_sim_save_state); load checks it all first and
 * changes nothing when it refuses (TF_E_INVALID_ARG with a message) or runs out of memory */
TF_LOCAL size_t sim_snapshot_size(const tf_sim *s);
/* the buffer's header, sizes and checksum against s, and its parameters into par (Nullable) for
 * api/ to check against the parameter table; TF_E_INVALID_ARG with a message */
TF_LOCAL tf_status sim_snapshot_check(tf_sim *s, const void *buf, size_t size, sim_params *par);
TF_LOCAL void sim_snapshot_save(const tf_sim *s, void *buf);
/* a buffer sim_snapshot_check accepted (api/ checks its parameters in between) */
TF_LOCAL tf_status sim_snapshot_load(tf_sim *s, const void *buf);

/* objective.c: objective of the tau step and plain potential energy */
TF_LOCAL double sim_step_eval(void *ctx, const double *y, double *grad, bsr *H);
TF_LOCAL double sim_potential(const tf_sim *s, const double *x, const double *pin_targets,
                              double *grad);
/* the step's minimization for the solver: eval over y from xhat, its Hessian, preconditioner, and
 * (with contact) the CCD step bound */
TF_LOCAL newton_problem sim_problem(tf_sim *s, newton_eval_fn eval);
/* y += the rigid-inertia Hessian of anchored pieces times x (newton_problem.extra) */
TF_LOCAL void sim_rigid_inertia_mul(void *ctx, const double *x, double *y);

/* rigid.c */
TF_LOCAL void rigid_update_frames(tf_sim *s, const double *x);
TF_LOCAL void rigid_project(tf_sim *s, const double *x, const double *u, double *out);
/* rigid_project's first half: each free piece's (V, omega) of u into its acc; 0 when no piece
 * is free (every projection is zero) */
TF_LOCAL int rigid_momenta(tf_sim *s, const double *x, const double *u);
/* the ballistic velocity of free pieces with their soft pins' springs implicit (backward Euler):
 * out = J xi, (M_R + dt^2 K_R) xi = J^T M u, K_R = sum over soft pins k J_i^T J_i (J_i xi the
 * pinned vertex's rigid velocity). Without soft pins this is rigid_project */
TF_LOCAL void rigid_project_sprung(tf_sim *s, const double *x, const double *u, double dt,
                                   double *out);

/* pins.c */
TF_LOCAL void pins_substep_targets(tf_sim *s, double s0, double s1);
TF_LOCAL void pins_carrier(tf_sim *s, double dt, double *vref_out);
/* the carrier's fictitious acceleration at each vertex for a step of dt from x_n (state.x), given
 * this step's carrier vref_new (pins_carrier): its motion through the last step's carrier field
 * exactly, its changes of velocity low-passed with time constant (1 - kappa) tau; the filter's
 * state at the step's end into work.afict_new (the state is untouched: a step may be retried) */
TF_LOCAL void pins_fictitious(tf_sim *s, double dt, const double *vref_new, double *acc_out);
/* a step succeeded: its carrier and filter become the state's */
TF_LOCAL void pins_commit_step(tf_sim *s);
TF_LOCAL void pins_refresh_components(tf_sim *s);
/* after the state or the pin set changed: targets at the pinned vertices (soft pins keep the host's
 * targets when keep_soft_targets), carrier from the hard pins' velocities */
TF_LOCAL void pins_restart(tf_sim *s, int keep_soft_targets);
/* a checked pin set (distinct vertices, weights in (0, 1], NULL: all 1): targets at the vertices */
TF_LOCAL void pins_set(tf_sim *s, const uint32_t *indices, const double *weights, uint32_t count);
/* quadratic flesh: after the host's pins, a pin at each edge node whose two corners are pinned,
 * with their mean weight and always their mean target, so a clamped face stays whole */
TF_LOCAL void pins_derive(tf_sim *s);
/* the end-of-frame targets of the next advance (pins.host x 3, finite) */
TF_LOCAL void pins_set_targets(tf_sim *s, const double *targets);

/* forces.c: f += the host's external forces and the air's (when wind_active) at (x, v), shared
 * among the levels by the response (levels/); with every share on level 0 exactly the forces
 * added as they come */
TF_LOCAL void sim_external_forces(tf_sim *s, const double *x, const double *v, double *f);

/* wind.c */
TF_LOCAL int wind_active(const sim_params *p);
TF_LOCAL void wind_at(const sim_params *p, const double x[3], double t, double out[3]);

/* settle.c: tau making the slowest mode decay 100x in settle_time at step dt */
TF_LOCAL tf_status sim_settle_tau(tf_sim *s, double settle_time, double dt, double *out_tau,
                                  double *out_lambda);

/* step_tau.c, step_strain_rate.c */
/* NULL, or what failed the step's sanity check (s->check_*: the numbers): the step's result must
 * be finite and must not raise its objective above the start iterate's (a minimization's only
 * guarantee, newton.h). On failure the state may be garbage: the caller rolls back */
TF_LOCAL const char *step_tau(tf_sim *s, double dt, newton_result *res);
/* what step_tau returns when a collider moves into cloth that cannot follow within the step (a
 * hard pin in its way): the caller splits the step's collider motion and tries again; or when
 * contact storage could not grow. Compared by address */
extern TF_LOCAL const char STEP_SPLIT[];
extern TF_LOCAL const char STEP_NOMEM[];
TF_LOCAL void step_strain_rate(tf_sim *s, double dt);

/* advance.c */
TF_LOCAL tf_status sim_advance(tf_sim *s, double frame_dt, uint32_t substeps);

#endif
