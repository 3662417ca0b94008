/* SPDX-License-Identifier: MIT
 * Contact (issue 16): colliders the host moves, an analytic ground, and the simulation's cloth or
 * skin kept apart from both by Incremental Potential Contact (Li et al. 2020; codimensional cloth:
 * Li, Kaufman, Jiang 2021). Inside each tau step, contact is part of the one minimization:
 *   - a barrier set (barrier.c): kappa b(d^2, dhat^2) on every vertex-triangle, triangle-vertex
 *     and edge-edge pair closer than the gap dhat, b(s) = -(s - shat)^2 ln(s / shat);
 *   - a friction set (friction.c): IPC's lagged, smoothed dissipative potential;
 *   - a step bound (ccd.c here, geom/ccd.c below it): the Newton line search never goes past a
 *     step that would bring any pair closer than a fraction of its gap, so no iterate crosses;
 *   - a start (start.c): pieces near a collider lose their ballistic subspace for the step (they
 *     flow like pinned pieces, so contact acts on all their motion), and the first iterate is
 *     made intersection-free against the collider's motion over the step (carried along by it,
 *     or the collider's motion split when the cloth cannot follow).
 * Geometry (distances, CCD, broad phase) is geom/, which never sees a simulation. */
#ifndef TF_CONTACT_CONTACT_H
#define TF_CONTACT_CONTACT_H

#include "geom/broad.h"
#include "solve/pairmat.h"
#include "sim/elements/elements.h"

/* a collider's thickness (m) and friction coefficient: the ranges the API takes and a snapshot
 * may hold */
static const double CONTACT_MAX_THICKNESS = 0.1, CONTACT_MAX_FRICTION = 10.0;

typedef struct tf_sim tf_sim;

/* the barrier's force at half the gap is CONTACT_F_HALF kappa dhat^3: |b'(shat/4)| = 4.3294 shat
 * times |ds/dx| = 2 d = dhat (barrier.c) */
#define CONTACT_F_HALF 4.329442

typedef struct contact_collider {
  uint32_t nv, nt, ne;
  double *rest;                /* (nv x 3) the def's pose, what transforms apply to, m */
  double *prev, *next;         /* (nv x 3) poses at the start and end of the next advance */
  double *x0, *x1;             /* (nv x 3) at the current step's start and end */
  int *tris;                   /* (nt x 3) 0-based */
  int *edges;                  /* (ne x 2) */
  uint32_t *vtri_start, *vtri; /* (nv + 1), (3 nt): each vertex's triangles (untangle.c) */
  double thickness, friction;
  int one_sided;
  broad_cache cache[3]; /* the broad phase's supersets of the PT, TP and EE queries */
} contact_collider;

typedef enum contact_kind {
  CONTACT_PT = 0, /* simulated vertex a, collider triangle b */
  CONTACT_TP = 1, /* collider vertex a, simulated triangle b */
  CONTACT_EE = 2, /* simulated edge a, collider edge b */
  CONTACT_G = 3,  /* simulated vertex a, the ground */
  /* self-contact (self.c): both sides simulated */
  CONTACT_SPT = 4, /* simulated vertex a, simulated triangle b */
  CONTACT_SEE = 5, /* simulated edges a < b */
} contact_kind;

/* a pair between the simulation and itself (no collider) */
static inline int contact_is_self(int kind) { return kind >= CONTACT_SPT; }
/* a pair with a collider on one side */
static inline int contact_has_collider(int kind) { return kind <= CONTACT_EE; }
/* an edge against an edge (else a point against a triangle, or the ground) */
static inline int contact_is_ee(int kind) { return kind == CONTACT_EE || kind == CONTACT_SEE; }

typedef struct contact_pair {
  uint8_t kind;
  uint8_t inside;    /* ground: started below it: a penalty pushes it out, no barrier */
  uint16_t collider; /* index (PT, TP, EE) */
  uint32_t a, b;
  double dhat;  /* m: the pair's gap */
  double kappa; /* barrier stiffness, N/m^3 (energy kappa b, b in m^4) */
  double mu;    /* friction coefficient of the pair */
} contact_pair;

/* a pair in contact at the step's start, with its friction lagged there (IPC sec. 5): normal
 * force magnitude, N; the two tangent directions; the weights w of the stencil's points and the
 * collider's displacement over the step at the contact point. Kept apart from the candidates
 * (every pair that may come within its gap over a segment, many more), which need none of it:
 * with it a candidate took 152 bytes instead of 40 */
typedef struct contact_friction {
  contact_pair p;
  double lambda, T[6], w[4], slip0[3];
} contact_friction;

typedef struct sim_contact {
  contact_collider **col; /* (col_cap) */
  uint32_t col_count, col_cap;
  int *tris;  /* (tri_count x 3) the simulated surface (cloth triangles or skin faces) */
  int *edges; /* (edge_count x 2) its edges */
  uint32_t *vedge_start, *vedge; /* (n + 1), (2 edge_count): each vertex's edge neighbours */
  uint32_t *vtri_start, *vtri;   /* (n + 1), (3 tri_count): each vertex's triangles */
  uint32_t tri_count, edge_count, n;
  broad bp;
  broad_cache self_cache[2]; /* the self queries' supersets (SPT, SEE) */
  broad_pair *buf;           /* broad phase output */
  size_t buf_cap;
  contact_pair *pairs; /* candidates of the current segment */
  size_t pair_count, pair_cap;
  contact_friction *fric; /* pairs in contact at the step's start, with their lagged friction */
  size_t fric_count, fric_cap;
  uint8_t *below;         /* (n) vertices that started the advance below the ground */
  int32_t *inside;        /* (n) one-sided collider the vertex started the advance inside, or -1 */
  uint8_t *inside_frames; /* (n) advances it has started inside, in a row: its spring stiffens
                             4x per frame, so the cloth's own stretch cannot hold it in */
  double *outside;        /* (n x 3) where such a vertex is pushed: its closest surface point, one
                          gap out along the outward normal */
  int inside_check;       /* look for vertices inside one-sided colliders and edges crossing a
                             collider (untangle.c) at the next advance */
  int32_t *col_tangled;   /* (n) on an edge or triangle that crossed collider k at the advance's
                             start: out of that collider's pairs until it comes apart, or -1 */
  int anchoring;          /* contact_anchor's query: no self pairs (start.c) */
  double kappa_scale;     /* IPC's adaptive stiffness: doubled when a pair gets too close */
  double margin;          /* m, added to every pair's gap in a broad query (anchoring only) */
  double *yseg;           /* (n x 3) scratch: the end of a segment (y + dir) */
  /* the candidates were built at cover_x (static, colliders at their step end) with every gap
   * widened by 2 cover_r: they hold every pair closer than its gap at any y with all vertices
   * within cover_r of cover_x, so a Newton segment inside that needs no new broad phase */
  double *cover_x;
  double cover_r;
  int cover_valid;
  uint8_t *anchor;      /* (n) vertices near a collider or the ground this step */
  unsigned char *block; /* a block of the pair loops' per-pair results (blocks.c) */
  /* self-contact's Hessian blocks between vertices the mesh does not couple (solve/pairmat.h):
   * grown while a Hessian is assembled (contact_add_block), from mem; pm_failed: a block was
   * refused for memory since the step began (the step then fails, TF_E_NOMEM) */
  pairmat pm;
  tf_mem *mem;
  int pm_failed;
  uint8_t *self_off; /* (n) 1: the vertex opted out (tf_sim_set_param_map): no self pair joins two
                        opted-out sides */
  uint8_t *tangled;  /* (n) 1: on an edge or triangle that crossed the surface at the advance's
                        start: out of self pairs with other tangled vertices until it comes
                        apart (self.c) */
  uint32_t tangles;  /* edge-triangle crossings found at the advance's start */
  /* which tangled parts may pass through which (sides.c): each tangled vertex's patch (its
   * smallest index through tangled mesh edges), and the sorted pairs of patches a crossing links */
  uint32_t *patch;
  uint64_t *links; /* (n) */
  uint32_t link_count;
  int links_full; /* more distinct links than vertices: every tangled pair is left out */
  /* (n) advances in a row the vertex has been pushed back through the surface it pokes through
   * (0: it is not), and (n x 3) where to: self.c, contact_self_tangles */
  uint8_t *poking;
  double *untangle;
  /* (n x 3) m: the move down the gradient of the crossings' contour length each step of this
   * advance asks of a vertex beyond its predicted motion (untangle.c), zero for the others: set at
   * the advance's start from its state, so not part of a snapshot */
  double *contour;
  int contour_on;   /* contour holds a move (the barrier set and the anchoring look at it) */
  int tangle_check; /* look for the surface's own crossings at the next advance */
  /* (n x 3) scratch: a motion's start and end, each less its mean (self.c) */
  double *xrel0, *xrel;
  uint32_t self_pairs;     /* self candidates of the current segment */
  uint32_t self_pairs_max; /* of the advance in progress: the largest segment's */
  double self_seconds;     /* of the advance in progress: finding self candidates */
  uint32_t
      self_excluded; /* the last build's self candidates dropped: closer than the gap at rest (self.c) */
  /* stats of the advance in progress */
  uint32_t ccd_cuts, broad_pairs, growths, intersecting, substeps_extra, contacts;
  uint32_t blocked_vertex, blocked_collider; /* the hard pin in a collider's way (TF_E_CONTACT) */
  double min_distance, seconds;
} sim_contact;

/* sides.c: the patches of the tangled vertices (after they are marked), a crossing of an edge
 * at edge_vertex through a triangle at tri_vertex, the links made ready for lookups, and whether
 * a and b are tangled vertices of linked patches (a self pair joining them is left out) */
void contact_sides_patches(sim_contact *c);
void contact_sides_link(sim_contact *c, uint32_t edge_vertex, uint32_t tri_vertex);
void contact_sides_finish(sim_contact *c);
int contact_sides_linked(const sim_contact *c, uint32_t a, uint32_t b);

/* a pair's gap, stiffness and friction; mass: what its simulated side carries (self pairs: the
 * lighter side's), kg. The barrier's force at half the gap balances KAPPA_LOAD times its weight */
TF_LOCAL void contact_pair_init(const tf_sim *s, contact_pair *p, double mass, double dhat,
                                double mu);
/* a candidate farther than infl at x0 (colliders at x0 when they move, else x1) by more than its
 * points can close over x0 -> x1 (x1 Nullable: static): the distance changes at most by the
 * largest relative displacement of its two sides (a self pair) or by the simulated side's plus
 * the collider's. The broad phase's boxes hold many such pairs (a sheet's in-plane neighbours
 * while it deforms fast; with the anchoring margin DRAPE-32 had 131k candidates at the impact) */
TF_LOCAL int contact_cannot_close(const tf_sim *s, const contact_pair *p, const double *x0,
                                  const double *x1, int colliders_move, double infl);
/* the mass a side of a pair carries, kg: a surface vertex's (points 1), an edge's mean (2) or a
 * triangle's mean (3) */
TF_LOCAL double contact_side_mass(const tf_sim *s, int points, uint32_t item);
/* a candidate into the pairs (grows them rarely); 0 when out of memory */
TF_LOCAL int contact_push_pair(tf_sim *s, contact_pair p);
/* room for one more pair in contact at the fric list's end (grows rarely); NULL when out of memory */
TF_LOCAL contact_friction *contact_push_friction(tf_sim *s);
/* a broad query through the cache k (Nullable) into the contact's buffer, grown once if the
 * candidates do not fit */
typedef tf_status (*broad_query)(broad *, broad_cache *, const broad_mesh *, const broad_mesh *,
                                 double, broad_pair *, size_t, size_t *);
TF_LOCAL tf_status contact_query(tf_sim *s, broad_query q, broad_cache *k, const broad_mesh *a,
                                 const broad_mesh *b, double infl, size_t *count);
/* self.c: self-contact is on */
TF_LOCAL int contact_self_on(const tf_sim *s);
/* the self candidates of x0 -> x1 (x1 Nullable) into the pairs, inflated by the gap plus margin;
 * TF_E_NOMEM */
TF_LOCAL tf_status contact_self_candidates(tf_sim *s, const broad_mesh *sweep);
/* at an advance's start: the surface's edges that cross its own triangles (a garment modelled
 * through itself): their vertices are marked tangled, counted in intersecting */
TF_LOCAL void contact_self_tangles(tf_sim *s);
/* edges (v, w) of the surface at x that cross its triangles t sharing no vertex with them: the
 * count; the first cap as (v, w, t) into out (Nullable when cap is 0); their vertices into mark
 * (Nullable). Uses the broad phase's buffers */
TF_LOCAL uint32_t contact_self_crossings(tf_sim *s, const double *x, uint32_t *out, uint32_t cap,
                                         uint8_t *mark);
/* untangle.c: the gradient of the length of the contour along which the surface at x crosses
 * itself, from the contour point where edge (v, w) crosses triangle t, added to grad (n x 3, m):
 * intersection contour minimization (Volino & Magnenat-Thalmann 2006) */
TF_LOCAL void contact_contour_gradient(const tf_sim *s, const double *x, uint32_t v, uint32_t w,
                                       uint32_t t, double *grad);
/* at an advance's start: the surface's edges through colliders' triangles and colliders' edges
 * through its triangles, their cloth vertices marked (col_tangled) and counted in intersecting,
 * their contour's gradient over the surface's vertices added to c->xrel0; the count */
TF_LOCAL uint32_t contact_collider_tangles(tf_sim *s);
/* from the contour's gradient in c->xrel0: the move each step of the advance asks of a vertex
 * (c->contour), the largest half its mean edge length; none for pushed, inside or pinned ones */
TF_LOCAL void contact_contour_moves(tf_sim *s, const double *x);
/* each vertex's triangles of a mesh of n vertices and nt triangles, allocated; TF_E_NOMEM */
TF_LOCAL tf_status contact_vertex_tris(tf_mem *m, uint32_t n, const int *tris, uint32_t nt,
                                       uint32_t **start, uint32_t **list);
/* a 3x3 block (i <= j) of a pair's Hessian: into H where the mesh couples i and j, else into the
 * contact's pair blocks (self-contact couples vertices far apart on the mesh), which grow when
 * full (counted in growths; out of memory sets pm_failed). Called on the evaluating thread only */
TF_LOCAL void contact_add_block(sim_contact *c, bsr *H, uint32_t i, uint32_t j,
                                const double blk[9]);

/* blocks.c: a loop over the candidates whose per-pair part (compute: reads pair k and the
 * positions, writes out, at most CONTACT_BLOCK_BYTES) runs on the simulation's threads, a block
 * at a time, and whose accumulating part (take) runs on the caller's thread in pair order, so its
 * results do not depend on the thread count. take returns 0 to stop the loop (then this returns
 * 0, else 1). Allocates nothing; not reentrant (one block buffer) */
#define CONTACT_BLOCK_BYTES 160
typedef void (*contact_pair_fn)(void *ctx, size_t k, void *out);
typedef int (*contact_take_fn)(void *ctx, size_t k, void *out);
TF_LOCAL int contact_pairs_run(const tf_sim *s, size_t count, size_t out_size,
                               contact_pair_fn compute, contact_take_fn take, void *ctx);
TF_LOCAL tf_status contact_blocks_init(tf_sim *s, sim_contact *c);
TF_LOCAL void contact_blocks_free(tf_mem *m, sim_contact *c);

/* the contact sets */
extern const elem_ops ELEM_BARRIER;
extern const elem_ops ELEM_FRICTION;

/* contact.c */
/* contact's sets (barrier, friction) and storage, once, at set-up time: a first collider or the
 * ground. TF_E_NOMEM (the simulation stays usable without contact) */
TF_LOCAL tf_status contact_enable(tf_sim *s);
TF_LOCAL tf_status contact_init(tf_sim *s, sim_contact *c);
TF_LOCAL void contact_free(tf_mem *m, sim_contact *c);
/* the simulation's record moved (tearing swaps it in place): what keeps its memory follows */
TF_LOCAL void contact_rebind(sim_contact *c, tf_mem *m);
/* contact is on: a collider exists or the ground is set */
TF_LOCAL int contact_active(const tf_sim *s);
TF_LOCAL int contact_ground_on(const tf_sim *s);
/* the ground's unit normal and height (contact_ground_on) */
TF_LOCAL void contact_ground(const tf_sim *s, double n[3], double *h);
/* a checked def (api_contact.c): copies it; TF_E_NOMEM */
TF_LOCAL tf_status contact_add_collider(tf_sim *s, const tf_collider_def *d, uint32_t *out_id);
/* at the start of an advance: vertices below the ground (pushed out, not barred) */
TF_LOCAL void contact_begin_advance(tf_sim *s);
/* the colliders' poses at frame fractions f0, f1 of the advance in progress */
TF_LOCAL void contact_collider_poses(tf_sim *s, double f0, double f1);
/* after an advance: next becomes prev */
TF_LOCAL void contact_end_advance(tf_sim *s);
/* candidates for the motion x0 -> x1 (x1 Nullable: static), colliders at their step end pose
 * (x0 -> x1 of each collider when moving), everything within the gap along the way */
TF_LOCAL tf_status contact_candidates(tf_sim *s, const double *x0, const double *x1,
                                      int colliders_move);
/* candidates holding every pair closer than its gap anywhere on y -> y + dir (dir Nullable: at y),
 * colliders at rest at their step end: reused when the last build covers the segment */
TF_LOCAL tf_status contact_candidates_covering(tf_sim *s, const double *y, const double *dir);
/* the smallest distance of the candidates at y, m (inf when none) and the pairs below the gap */
TF_LOCAL double contact_min_distance(const tf_sim *s, const double *y, uint32_t *out_active);

/* barrier.c: IPC's barrier on squared distances s < shat: value, first and second derivative */
TF_LOCAL double barrier_b(double s, double shat, double *db, double *d2b);
/* squared distance of a pair at y (colliders at x1) and its gradient / Hessian over the 12 stencil
 * coordinates; the stencil's simulated vertices (-1: a collider point) into v */
TF_LOCAL double contact_pair_distance2(const tf_sim *s, const contact_pair *p, const double *y,
                                       double *grad, double *hess, int v[4], double xs[12]);

/* the stencil's positions only (not the ground), colliders at their step end, or at pose cx */
TF_LOCAL void contact_pair_stencil(const tf_sim *s, const contact_pair *p, const double *y,
                                   int v[4], double xs[12]);
TF_LOCAL void contact_pair_stencil_at(const tf_sim *s, const contact_pair *p, const double *y,
                                      const double *cx, int v[4], double xs[12]);
/* a lower bound on a stencil's distance: how far apart its two sides' boxes are on the axis that
 * separates them most (negative when they overlap); kind says where the sides split */
TF_LOCAL double contact_stencil_gap(const double xs[12], int kind);
/* the same with the colliders at pose cx (NULL for the ground) */
TF_LOCAL double contact_pair_distance2_at(const tf_sim *s, const contact_pair *p, const double *y,
                                          const double *cx, double *grad, double *hess, int v[4],
                                          double xs[12]);
/* start.c: the pair's contact point at xn (colliders at their step-start pose): the simulated
 * stencil points' weights, the collider's displacement there over the step, the unit normal */
TF_LOCAL void contact_pair_frame(const tf_sim *s, const contact_pair *p, const double *xn,
                                 double w[4], double disp[3], double nrm[3]);

/* barycentric weights of the point of triangle (a, b, c) closest to p */
TF_LOCAL void contact_closest_tri(const double p[3], const double a[3], const double b[3],
                                  const double c[3], double w[3]);
/* the stencil's simulated vertices (1, 2, 3 or, for self pairs, 4) and their stencil slots */
TF_LOCAL int contact_pair_vertices(const tf_sim *s, const contact_pair *p, uint32_t out[4]);

/* ccd.c: CCD of a pair over y0 -> y0 + d (colliders x0 -> x1 when colliders_move, else at x1):
 * the safe fraction, *hit when it comes within thickness */
TF_LOCAL double contact_pair_toi(const tf_sim *s, const contact_pair *p, const double *y0,
                                 const double *d, int colliders_move, double thickness, int *hit);
/* ccd.c: the largest safe fraction of y -> y + dir (newton_problem.max_step) */
TF_LOCAL double contact_max_step(void *ctx, const double *y, const double *dir);

/* start.c: before the step's minimization. Sets pieces' anchored flags from the candidates of
 * x_n -> xhat; returns 1 when a piece became anchored (the prediction must be redone) */
TF_LOCAL int contact_anchor(tf_sim *s, const double *xn, const double *xhat);
/* a first iterate y0 (in/out, from xhat) that no collider crosses over the step; TF_OK, or
 * TF_E_CONTACT when the collider's motion must be split (the cloth cannot follow). The
 * candidates it leaves hold every pair within its gap at x_n (contact_lag_friction's) */
TF_LOCAL tf_status contact_start(tf_sim *s, const double *xn, double *y0);
/* friction's lagged normal forces and tangents at the step's start; each vertex's share of the
 * normal forces joins its balance scale (work.force_ref) */
TF_LOCAL tf_status contact_lag_friction(tf_sim *s, const double *xn, double dt);
/* after a step: adaptive stiffness and stats */
TF_LOCAL void contact_after_step(tf_sim *s, const double *x);

#endif
