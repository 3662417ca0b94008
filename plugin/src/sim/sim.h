/* SPDX-License-Identifier: MIT
 * The simulation object behind the opaque tf_sim: immutable model (rest mesh, topology, rest
 * element data, masses) kept apart from the parameters (settable between frames), the state
 * (positions, velocities, carrier velocity) and the scratch the step uses. Everything the step
 * touches is allocated at create, so advancing allocates nothing. */
#ifndef TF_SIM_SIM_H
#define TF_SIM_SIM_H

#include "core/mem.h"
#include "energy/membrane_tri.h"
#include "energy/neohookean_tet.h"
#include "mesh/tetmesh.h"
#include "mesh/trimesh.h"
#include "solve/amg.h"
#include "solve/newton.h"

#define SIM_ERR_SIZE 512

typedef struct sim_params {
  tf_integrator integrator;
  double tau, kappa;
  double stretch, poisson, lambda, mu; /* lambda, mu derived (cloth: plane stress; flesh: 3D) */
  double youngs;                        /* Pa, flesh base material (material 0) */
  double bend;                          /* N m, uniform value (the map overrides per hinge) */
  double gravity[3];
  double pin_stiffness;
  double phi, psi;
  /* aerodynamics: on while air_density > 0 */
  double wind[3], air_density, drag, lift;
  double turbulence, turbulence_scale, turbulence_time, turbulence_seed, gust, gust_period;
  double time; /* s: the clock (0 at create, advanced per frame), settable so a restored state
                * restores it: time-dependent wind reads it */
  tf_solver_settings solver;
} sim_params;

/* per connected component scratch for rigid fits and projections */
typedef struct sim_comp {
  int pinned;       /* has at least one hard pin: pure flow, no ballistic subspace */
  double mass;      /* kg */
  double com[3];    /* centre of mass at x_n */
  double inertia[9];/* about com, at x_n */
  /* carrier fit of the pins */
  double pin_w, pin_c[3], pin_J[9];
  double acc[6]; /* accumulators */
  double K[36];  /* dt^2 x the soft pins' stiffness seen by the rigid modes (rigid_project_sprung) */
} sim_comp;

typedef enum sim_kind { SIM_CLOTH = 0, SIM_FLESH = 1 } sim_kind;

/* flesh: the tets, their materials and the render surface embedded in them */
typedef struct sim_flesh {
  tetmesh tet;            /* topology; its boundary faces are the simulation's triangles */
  tet_rest *rest;         /* (tet_count) */
  uint32_t *mat;          /* (tet_count) material index: 0 = base (the parameters), k > 0 = table */
  double *fill;           /* (tet_count) inside fraction of a lattice tet (1 for the host's tets) */
  double *lambda, *mu;    /* (tet_count) Pa: fill x its material's */
  uint32_t mat_count;     /* table size incl. the base */
  double *mat_lambda, *mat_mu; /* (mat_count) Pa, [0] follows youngs/poisson */
  uint32_t *slot;         /* (tet_count x 16) BSR slots */
  double rest_volume;     /* m^3 */
  /* embedded render surface (may be empty) */
  uint32_t surf_n, surf_tri_count;
  uint32_t *surf_tet;     /* (surf_n) */
  double *surf_w;         /* (surf_n x 4) barycentric weights */
  uint32_t *surf_tris;    /* (surf_tri_count x 3) */
  uint32_t surf_outside;  /* surface points outside every tet (extrapolated) */
  double surf_worst;      /* most negative weight among them */
  int from_surface;       /* the tets were built from the surface by the lattice tetrahedralizer */
} sim_flesh;

struct tf_sim {
  tf_mem mem;
  sim_kind kind;
  sim_flesh flesh; /* kind == SIM_FLESH */
  tf_logger logger;
  char last_error[SIM_ERR_SIZE];
  uint32_t index_base; /* first vertex or pin number in messages: 0 (C) or 1 (Lua, ...) */

  /* model. For flesh, mesh is a view of the tets' boundary faces, components and adjacency
   * (no edges or hinges; owned by flesh.tet) */
  trimesh mesh;
  uint32_t n;             /* vertices */
  double *rest;           /* (n x 3) */
  double *mass;           /* (n) kg */
  membrane_rest *tri;     /* (tri_count) */
  double *hinge_theta0;   /* (hinge_count) rest dihedral angle */
  double *hinge_geom;     /* (hinge_count) k = B * hinge_geom */
  double *hinge_bend;     /* (hinge_count) flexural rigidity per hinge, N m */
  sim_params par;

  /* state */
  double *x, *v;   /* (n x 3) */
  double *vref;    /* (n x 3) carrier velocity of the last step (sec. 2.6 of the design note) */

  /* pins */
  uint32_t pin_count;
  uint32_t *pin_idx;     /* (n) capacity */
  double *pin_w;         /* (n) */
  double *pin_prev;      /* (n x 3): targets at the start of the next advance */
  double *pin_next;      /* (n x 3): targets at its end */
  uint8_t *fixed;        /* (n) hard-pinned */
  uint8_t *mark;         /* (n) scratch for argument checks, all zero between calls */
  int targets_fresh;     /* the host set targets since the last advance or pin set */
  double *pin_sub;       /* (n x 3) targets at the end of the current substep */
  double *pin_sub0;      /* (n x 3) targets at its start */
  double *pin_vel;       /* (n x 3) scratch: pin velocities for the carrier fit */
  double *fsoft;         /* (n x 3) scratch: soft-pin pull on free pieces */

  /* components */
  sim_comp *comp;        /* (comp_count) */

  /* step scratch */
  double *f;      /* (n x 3) external + fictitious force */
  double *xhat;   /* (n x 3) */
  double *yhat;   /* (n x 3) */
  double *y;      /* (n x 3) */
  double *tmp;    /* (n x 3) */
  double *vref_new; /* (n x 3) */
  double *force_ref; /* (n) N: the balance scale of each vertex for the solver */
  double *wn;     /* (n x 3) deformable part of the old relative velocity */
  double *aero_c; /* (tri_count) drag damping coefficient of each triangle, N s/m (0: none) */
  double *aero_n; /* (tri_count x 3) its unit normal */
  double *aero_P; /* (tri_count x 81) implicit restoring stiffness of the drag; allocated with air */
  double *ydrag;  /* (n x 3) x_n + dt v_n: where the linearized drag is zero */
  int aero_on;    /* the current step has aerodynamic damping terms */
  double step_dt; /* of the current step */
  double step_time; /* s, at the current step's start */
  double h2;      /* of the current step */
  bsr H;
  uint32_t *hess_row_ptr, *hess_col; /* upper-triangle pattern of H */
  uint32_t hess_count;
  amg *amg; /* multigrid preconditioner; NULL: block Jacobi (small meshes) */
  newton_work nw;
  uint32_t *tri_slot;   /* (tri_count x 9) BSR slots of each triangle's blocks */
  uint32_t *hinge_slot; /* (hinge_count x 16) */

  /* the objective the step's solver minimizes: sim_step_eval. A seam for tests only: the step's
   * sanity check evaluates sim_step_eval itself, so a solver given a wrong objective is caught */
  newton_eval_fn solve_eval;
  /* the sanity check of the last step (step_tau): objective at the start iterate and the result */
  double check_e0, check_e1;
  uint32_t check_vertex; /* first non-finite vertex, when that failed */
  uint64_t frames;       /* advances completed since create: named in failure messages */

  /* rollback copy for failed advances */
  double *x_save, *v_save, *vref_save;

  tf_stats stats;
};

/* sim.c: creation steps shared by every kind */
TF_LOCAL tf_sim *sim_new(const tf_allocator *a, tf_logger logger, sim_kind kind, char *err, size_t n);
/* every per-vertex and per-triangle array, and the Hessian pattern from mesh.adj; s->n and
 * s->mesh set. TF_E_NOMEM with a message */
TF_LOCAL tf_status sim_alloc(tf_sim *s, char *err, size_t n);
/* element slots of the mesh's triangles and hinges, and the multigrid hierarchy */
TF_LOCAL tf_status sim_finish(tf_sim *s, const double *initial_positions, char *err, size_t n);
TF_LOCAL void sim_default_params(sim_params *p);
TF_LOCAL tf_status sim_create_cloth(const tf_cloth_def *def, tf_sim **out, char *err, size_t n);
TF_LOCAL void sim_destroy(tf_sim *s);
TF_LOCAL tf_status sim_fail(tf_sim *s, tf_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
TF_LOCAL void sim_params_derive(tf_sim *s);
TF_LOCAL void sim_log(tf_sim *s, tf_log_level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* sim_flesh.c */
TF_LOCAL tf_status sim_create_flesh(const tf_flesh_def *def, tf_sim **out, char *err, size_t n);
TF_LOCAL void sim_flesh_free(tf_sim *s);
/* material 0 from the parameters (youngs, poisson) */
TF_LOCAL void sim_flesh_derive(tf_sim *s);
/* sum of the tets' current volumes, m^3 */
TF_LOCAL double sim_flesh_volume(const tf_sim *s, const double *x);

/* objective.c: objective of the tau step and plain potential energy */
TF_LOCAL double sim_step_eval(void *ctx, const double *y, double *grad, bsr *H);
TF_LOCAL double sim_potential(const tf_sim *s, const double *x, const double *pin_targets, double *grad);

/* rigid.c */
TF_LOCAL void rigid_update_frames(tf_sim *s, const double *x);
TF_LOCAL void rigid_project(tf_sim *s, const double *x, const double *u, double *out);
/* the ballistic velocity of free pieces with their soft pins' springs implicit (backward Euler):
 * out = J xi, (M_R + dt^2 K_R) xi = J^T M u, K_R = sum over soft pins k J_i^T J_i (J_i xi the
 * pinned vertex's rigid velocity). Without soft pins this is rigid_project */
TF_LOCAL void rigid_project_sprung(tf_sim *s, const double *x, const double *u, double dt, double *out);

/* pins.c */
TF_LOCAL void pins_substep_targets(tf_sim *s, double s0, double s1);
TF_LOCAL void pins_carrier(tf_sim *s, double dt, double *vref_out);
TF_LOCAL void pins_refresh_components(tf_sim *s);
/* after the state or the pin set changed: targets at the pinned vertices (soft pins keep the host's
 * targets when keep_soft_targets), carrier from the hard pins' velocities */
TF_LOCAL void pins_restart(tf_sim *s, int keep_soft_targets);

/* wind.c */
TF_LOCAL int wind_active(const sim_params *p);
TF_LOCAL void wind_at(const sim_params *p, const double x[3], double t, double out[3]);
/* aero.c: drag and lift on every triangle at (x, v) and time t: per-vertex forces added to f;
 * per-triangle drag damping (c, n) stored for the step's implicit term */
TF_LOCAL void aero_forces(tf_sim *s, const double *x, const double *v, double t, double *f);

/* settle.c: tau making the slowest mode decay 100x in settle_time at step dt */
TF_LOCAL tf_status sim_settle_tau(tf_sim *s, double settle_time, double dt, double *out_tau, double *out_lambda);

/* step_tau.c, step_strain_rate.c */
/* NULL, or what failed the step's sanity check (s->check_*: the numbers): the step's result must
 * be finite and must not raise its objective above the start iterate's (a minimization's only
 * guarantee, newton.h). On failure the state may be garbage: the caller rolls back */
TF_LOCAL const char *step_tau(tf_sim *s, double dt, newton_result *res);
TF_LOCAL void step_strain_rate(tf_sim *s, double dt);

/* advance.c */
TF_LOCAL tf_status sim_advance(tf_sim *s, double frame_dt, uint32_t substeps);

#endif
