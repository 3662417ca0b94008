/* SPDX-License-Identifier: MIT
 * Element sets: the potential energy of a simulation is a sum over sets, each a group of elements
 * of one kind with its own data and one kernel giving energy, gradient and projected Hessian
 * (the way ipc-toolkit's potentials and MuJoCo's passive forces are assembled by one generic
 * loop). Cloth is {membrane, hinge, soft pins, drag}, flesh {tet, soft pins, drag}; a new energy
 * (a barrier, friction, another bending or tet element) is a new set, not a new branch in the
 * objective. Every kernel adds into the caller's E, grad and H; none allocates. */
#ifndef TF_SIM_ELEMENTS_H
#define TF_SIM_ELEMENTS_H

#include <math.h>

#include "energy/bend_shell.h"
#include "energy/membrane_tri.h"
#include "mesh/springs.h"
#include "core/mem.h"
#include "solve/bsr.h"

typedef struct tf_sim tf_sim;

/* what a kernel needs besides the positions */
typedef struct elem_args {
  const double *pins; /* (pins.count x 3) soft-pin targets; NULL: no soft-pin springs */
} elem_args;

typedef struct elem_ops {
  const char *name;
  /* 1: part of the step's objective only, not of the potential energy (the linearized drag) */
  int step_only;
  /* the set's energy at y added into *E (each element's term in turn, so the sum's rounding is
   * that of one running total), its gradient into grad (3n) and its projected Hessian into H
   * (the fixed pattern); grad and H Nullable. A call with H and no grad wants the Hessian only
   * (sim_step_eval): a set may skip its energy there */
  void (*eval)(const tf_sim *s, const void *data, const elem_args *a, const double *y, double *E,
               double *grad, bsr *H);
  /* Nullable: the parameters changed (Lame constants from the moduli, ...) */
  void (*derive)(tf_sim *s, void *data);
  /* Nullable: release data's arrays (not data itself) through m */
  void (*destroy)(tf_mem *m, void *data);
  size_t data_size; /* bytes of data, allocated zeroed by sim_add_set */
  /* Nullable: after each accepted step of dt seconds, at its new positions (s->state.x): update
   * history the set keeps in the state (plastic rest shapes, sim_reserve_plastic) */
  void (*post_step)(tf_sim *s, void *data, double dt);
  /* Nullable: the set's per-element plastic limits, of its strain (bend 0: plastic_yield,
   * plastic_limit) or of its bending (bend 1: bend_yield, bend_plastic_limit); NULL for none */
  struct elem_plastic *(*plastic)(void *data, int bend);
} elem_ops;

typedef struct elem_set {
  const elem_ops *ops;
  void *data;
} elem_set;

#define SIM_MAX_SETS 8

/* scatter an element's Hessian (k x k blocks of 3x3, row-major 3k x 3k) through its slots
 * (UINT32_MAX: a lower block, whose transpose is stored) */
static inline void elem_scatter(bsr *H, const uint32_t *slot, const double *h, int k) {
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) {
      if (slot[k * a + b] == UINT32_MAX) continue;
      double blk[9];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) blk[3 * i + j] = h[(3 * a + i) * 3 * k + 3 * b + j];
      bsr_add_block(H, slot[k * a + b], blk);
    }
}

/* colour.c: the elements of a set cut into blocks and the blocks grouped into colours whose
 * blocks share no vertex, so one colour's kernels run on every thread of the simulation's pool
 * without locks and each vertex receives its terms in the same order whatever the thread count
 * (results are bitwise the same on 1 or 64 threads). Built at set-up; energy holds each
 * element's last term. */
typedef struct elem_colours {
  uint32_t count;         /* colours */
  uint32_t blocks;        /* blocks of consecutive elements (colour.c) */
  uint32_t elems;         /* elements */
  uint32_t *ptr;          /* (count + 1) into order */
  uint32_t *order;        /* (blocks) block indices, colour by colour, increasing within one */
  uint32_t *perm;         /* (elems) the elements in block order: block b is perm[256 b ..] */
  double *energy;         /* (elems) scratch: each element's energy in the last run */
  struct elem_deps *deps; /* which blocks wait for which (colour.c); NULL with one colour */
} elem_colours;

/* one element's terms at the run's y: its energy returned, its gradient and Hessian added into
 * the run's arrays (ctx: the set's eval context) */
typedef double (*elem_kernel)(const void *ctx, uint32_t e);

/* colour elements whose vertices are verts[stride e ..] (width[e] of them, or stride when width
 * is NULL), over nv vertices; pos (nv x 3, Nullable) the rest positions for a spatial blocking
 * when the elements' own order colours poorly */
/* the elements (elems of stride vertex indices; width Nullable: each one's count of them) along a
 * Morton curve of their centroids, ties by index: perm (elems). 0 when out of memory */
TF_LOCAL int elem_spatial_order(tf_mem *m, uint32_t elems, const uint32_t *verts, uint32_t stride,
                                const uint32_t *width, const double *pos, uint32_t *perm);
TF_LOCAL tf_status elem_colours_build(tf_mem *m, elem_colours *c, uint32_t nv, uint32_t elems,
                                      const uint32_t *verts, uint32_t stride, const uint32_t *width,
                                      const double *pos);
TF_LOCAL void elem_colours_free(tf_mem *m, elem_colours *c);
/* fn on every element; returns the sum of the elements' energies in element order. scatter: fn
 * adds into arrays elements share (a gradient, a Hessian, forces), so a block runs after the
 * blocks of lower colours it shares a vertex with; otherwise every block at once */
TF_LOCAL double elem_colours_run(const tf_sim *s, const elem_colours *c, elem_kernel fn,
                                 const void *ctx, int scatter);

/* plasticity's flow over one step of dt: the share of the way to its target a plastic rest shape
 * moves, 1 - exp(-dt / T) with T the plastic_time (so any split of a time into steps compounds
 * to the same), or 1 (at once) when T = 0; the spring, shell and hinge post_steps use it */
static inline double elem_plastic_rate(double T, double dt) {
  return T > 0.0 ? -expm1(-dt / T) : 1.0;
}

/* plastic.c: a plastic set's elastic limit (yield) and plastic limit per element, each the
 * parameter's uniform value or the mean of a per-vertex map over the element's first k vertices
 * (a spring's or hinge edge's two ends, a triangle's or tet's corners), so a vertex group can
 * make a stiff collar or a soft elbow (issue 23). Sized by the set at init, set by sim_set.c */
typedef struct elem_plastic {
  uint32_t count;        /* elements */
  const uint32_t *verts; /* element e's vertices start at verts[stride e] */
  uint32_t stride, k;
  double *yield; /* (count) the elastic limit */
  double *limit; /* (count) the plastic limit; 0: elastic */
  int on;        /* some element has a plastic limit */
} elem_plastic;

/* the arrays for count elements and every value uniform: the parameters' */
TF_LOCAL tf_status elem_plastic_init(tf_mem *m, elem_plastic *p, uint32_t count,
                                     const uint32_t *verts, uint32_t stride, uint32_t k,
                                     double yield, double limit);
TF_LOCAL void elem_plastic_free(tf_mem *m, elem_plastic *p);
/* the plastic limit (limit = 1) or the elastic limit (0) of every element: uniform, or with
 * per_vertex (Nullable, one per vertex) the mean of its vertices' */
TF_LOCAL void elem_plastic_set(elem_plastic *p, int limit, double uniform,
                               const double *per_vertex);
/* on from the plastic limits (after they were loaded) */
TF_LOCAL void elem_plastic_refresh(elem_plastic *p);

/* the mean of a per-vertex map over an element's k vertices v (a vertex group's value carried
 * to the elements it touches: plastic limits, stretch stiffness, bending rigidity) */
static inline double elem_corner_mean(const uint32_t *v, uint32_t k, const double *per_vertex) {
  double sum = 0.0;
  for (uint32_t q = 0; q < k; ++q) sum += per_vertex[v[q]];
  return sum / k;
}

/* stiffness.c: a set's stretch stiffness per element, N/m: the parameter's uniform value, or after
 * a per-vertex map (tf_sim_set_param_map of stretch_stiffness) the mean of the element's k
 * vertices' (a triangle's corners, a structural spring's ends). Pieces of one mesh get their own
 * fabric: a shirt and a jacket in one simulation, so self-contact keeps them apart (tau-step.md,
 * Between simulations). Sized at init; the values are state a snapshot carries (a keyable map) */
typedef struct elem_stiffness {
  uint32_t count;        /* elements */
  const uint32_t *verts; /* element e's vertices start at verts[stride e] */
  uint32_t stride, k;
  double *value; /* (count) N/m */
  int mapped;    /* the values came from a map; a uniform value replaces it (sim_set_param) */
  int changed;   /* values set since the set last derived its constants from them */
} elem_stiffness;
TF_LOCAL tf_status elem_stiffness_init(tf_mem *m, elem_stiffness *st, uint32_t count,
                                       const uint32_t *verts, uint32_t stride, uint32_t k,
                                       double uniform);
TF_LOCAL void elem_stiffness_free(tf_mem *m, elem_stiffness *st);
/* every element's value: uniform (mapped 0), or with per_vertex (one per vertex) the mean of its
 * vertices' (mapped 1) */
TF_LOCAL void elem_stiffness_set(elem_stiffness *st, double uniform, const double *per_vertex);

/* a set's plastic limits of its strain (bend 0) or its bending (1); NULL for none */
static inline elem_plastic *elem_set_plastic(const elem_set *set, int bend) {
  return set->ops->plastic ? set->ops->plastic(set->data, bend) : NULL;
}

/* the arguments every set's kernel gets, gathered once per eval */
typedef struct elem_ctx {
  const tf_sim *s;
  const void *data;
  const elem_args *a;
  const double *y;
  double *grad; /* Nullable */
  bsr *H;       /* Nullable */
} elem_ctx;

/* slots[k*k per element] of each element's vertex pairs (elems: k vertices each) */
TF_LOCAL void elem_slots(const bsr *H, const uint32_t *elems, uint32_t count, int k,
                         uint32_t *slot);

/* membrane.c: StVK membrane on each cloth triangle (energy/membrane_tri.c) */
typedef struct elem_membrane {
  uint32_t count;
  const uint32_t *tris; /* the mesh's (count x 3) */
  membrane_rest *rest;  /* (count) rest frame and area now: the state's plastic slice */
  membrane_rest *rest0; /* (count) the rest mesh's */
  uint32_t plastic_at;  /* offset of rest in s->state.plastic */
  elem_plastic pl;      /* each triangle's elastic and plastic limits (a strain) */
  uint32_t *slot;       /* (count x 9) */
  elem_colours col;
  elem_stiffness stretch; /* each triangle's 2D Young's modulus, N/m */
  double *lame;           /* (count x 2) Pa m: its plane-stress lambda and mu (stretch, poisson) */
  double lame_poisson;    /* the poisson ratio lame was derived with */
  double area;            /* m^2, total rest area */
} elem_membrane;
extern const elem_ops ELEM_MEMBRANE;
/* before sim_alloc: the rest frames' slice of the plastic state */
TF_LOCAL void elem_membrane_reserve(tf_sim *s, elem_membrane *e);
TF_LOCAL tf_status elem_membrane_init(tf_sim *s, elem_membrane *e);

/* hinge.c: discrete-shell bending on each interior edge (energy/bend_hinge.c) */
typedef struct elem_hinge {
  uint32_t count;
  const uint32_t *hinges; /* the mesh's (count x 4) */
  double *theta0;         /* (count) rest dihedral angle of the rest mesh */
  double *theta;          /* (count) rest angle now: the state's plastic slice (bend plasticity) */
  double *per_angle;      /* (count) 1/m per radian: the normal curvature across the edge a
                           * hinge angle stands for, |e| / (A_A + A_B) at rest */
  uint32_t plastic_at;    /* offset of theta in s->state.plastic */
  elem_plastic pl;        /* each hinge's bend yield and bend plastic limit, 1/m */
  double *geom;           /* (count) k = B x geom */
  double *bend;           /* (count) flexural rigidity per hinge, N m */
  uint32_t *slot;         /* (count x 16) */
  elem_colours col;
} elem_hinge;
extern const elem_ops ELEM_HINGE;
TF_LOCAL tf_status elem_hinge_init(tf_sim *s, elem_hinge *e, double bend);
/* before sim_alloc: the rest angles' slice of the plastic state */
TF_LOCAL void elem_hinge_reserve(tf_sim *s, elem_hinge *e);
/* every hinge's rigidity: a uniform value, or the mean of its edge's two vertices' map values */
TF_LOCAL void elem_hinge_set_bend(elem_hinge *e, double bend);
TF_LOCAL void elem_hinge_set_bend_map(elem_hinge *e, const double *per_vertex);

/* spring.c: Leplatre's mass-spring cloth, the alternative to membrane + bending
 * (tf_cloth_model TF_CLOTH_SPRINGS) */
typedef struct elem_spring {
  springs sp;          /* the pairs, family by family (mesh/springs.h) */
  double *rest;        /* (sp.count) rest lengths, m: the state's plastic slice */
  double *rest0;       /* (sp.count) rest lengths of the rest mesh, m */
  uint32_t plastic_at; /* offset of rest in s->state.plastic */
  elem_plastic pl;     /* each spring's elastic and plastic limits (a strain) */
  uint32_t *slot;      /* (sp.count x 4) */
  elem_colours col;
  double k[SPRING_FAMILIES]; /* N/m per family, from the parameters */
  elem_stiffness stretch;    /* the structural springs' own (the first sp.first[SPRING_SHEAR]) */
} elem_spring;
extern const elem_ops ELEM_SPRING;
/* before sim_alloc: the families from the rest positions, and the bend springs' couplings added to
 * the mesh adjacency (the Hessian's pattern) */
TF_LOCAL tf_status elem_spring_families(tf_sim *s, elem_spring *sp, const double *rest);
/* after sim_alloc: rest lengths, Hessian slots, colours, the plastic parameters' values */
TF_LOCAL tf_status elem_spring_init(tf_sim *s, elem_spring *sp);

/* shell.c: isotropic bending of each triangle, its curvature by the divergence theorem from
 * quadratic-exact gradients at its edges (energy/bend_shell.c) */
typedef struct elem_shell {
  uint32_t count;      /* triangles with a patch */
  uint32_t skipped;    /* triangles with none that fits a quadratic: no bending on them */
  uint32_t cap;        /* the arrays' length: the mesh's triangles */
  uint32_t *patch;     /* (count x SHELL_MAX_PATCH) the triangle, then rest[k].np - 3 more */
  uint32_t *tri;       /* (count) the mesh triangle of each patch */
  shell_rest *rest;    /* (count) */
  double *bend;        /* (count) flexural rigidity per triangle, N m */
  double *b0;          /* (count x 3) rest curvature (uu, vv, uv), 1/m: the state's plastic slice
                     * (rest[k].b0 is the rest mesh's), moved by bend plasticity */
  uint32_t plastic_at; /* offset of b0 in s->state.plastic */
  elem_plastic pl;     /* each triangle's bend yield and bend plastic limit, 1/m */
  /* Newton's matrix: the Gauss-Newton Hessian of the same energy on a narrower stencil, the
   * triangle's own six-vertex quadratic (shell.c says why) */
  uint32_t *hpatch;  /* (count x SHELL_MAX_PATCH) its vertices, hrest[k].np of them */
  shell_rest *hrest; /* (count) */
  uint32_t *slot;    /* hpatch's blocks, hrest[k].np^2 of them from slot_at[k], packed */
  uint32_t *slot_at; /* (count + 1) where each triangle's slots start */
  /* the mesh's neighbourhoods, kept for the pins: per mesh triangle */
  uint32_t *flaps, *nbr; /* (tri x 3) vertex and triangle across each edge (trimesh_tri_flaps) */
  uint32_t *six;         /* (tri x 6) its six-vertex patch, six[0] UINT32_MAX when none */
  uint8_t *held;         /* (tri) its three corners are hard-pinned */
  uint8_t *clamp;        /* (count) edges whose neighbour is held (bits), or shell.c's flags */
  elem_colours col;      /* over patch and hpatch together */
} elem_shell;
extern const elem_ops ELEM_SHELL;
/* choose every triangle's patch from the rest positions and widen the mesh adjacency to hold
 * them: before the Hessian pattern is built (sim_alloc) */
TF_LOCAL tf_status elem_shell_patches(tf_sim *s, elem_shell *e, const double *rest);
/* after sim_alloc: the rigidities and the Hessian slots */
TF_LOCAL tf_status elem_shell_init(tf_sim *s, elem_shell *e, double bend);
TF_LOCAL void elem_shell_set_bend(elem_shell *e, double bend);
/* the hard pins changed: a held triangle (three hard-pinned corners) bends no more and gives its
 * neighbours the slope at their common edge (a clamp acts at its last pinned row) */
TF_LOCAL void elem_shell_pins_changed(tf_sim *s, elem_shell *e);
TF_LOCAL void elem_shell_set_bend_map(elem_shell *e, const double *per_vertex);

/* tet.c: stable Neo-Hookean on each tet (energy/neohookean_tet.c); data is sim_flesh (sim.h) */
extern const elem_ops ELEM_TET;

/* pin.c: soft pins as goal springs 1/2 k |y - p|^2; no data (reads s->pins) */
extern const elem_ops ELEM_PIN;

/* drag.c: aerodynamics on the mesh's triangles (cloth or flesh skin) */
typedef struct elem_drag {
  uint32_t count;
  const uint32_t *tris; /* the mesh's (count x 3) */
  int closed;           /* a closed body's outward faces: only the windward ones push */
  int on;               /* the current step has drag terms (set by the step) */
  double *c;            /* (count) drag damping coefficient, N s/m (0: none) */
  double *nrm;          /* (count x 3) unit normal */
  double *P;            /* (count x 81) implicit restoring stiffness; NULL until there is air */
  double *ydrag;        /* (n x 3) x_n + dt v_n: where the linearized drag is zero */
  uint32_t *slot;       /* (count x 9) */
  uint32_t n;           /* vertices (ydrag's size) */
  elem_colours col;
} elem_drag;
extern const elem_ops ELEM_DRAG;
TF_LOCAL tf_status elem_drag_init(tf_sim *s, elem_drag *e, int closed);
/* the restoring stiffness storage, allocated when air is first set (not per step) */
TF_LOCAL tf_status elem_drag_enable_air(tf_sim *s, elem_drag *e);
/* drag and lift on every triangle at (x, v) and time t: per-vertex forces added to f; the drag
 * damping (c, nrm) and restoring stiffness (P) of each triangle stored for the step */
TF_LOCAL void elem_drag_forces(tf_sim *s, elem_drag *e, const double *x, const double *v, double t,
                               double *f);

#endif
