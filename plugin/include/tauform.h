/* SPDX-License-Identifier: MIT
 * tauform: cloth and flesh simulation with tau damping (Young 2007), as a plugin with a stable C
 * ABI.
 *
 * ABI promise: versions with the same TF_VERSION_MAJOR are ABI compatible. Def and stats structs
 * start with `struct_size` and only ever grow at the end; the library reads min(struct_size, its
 * own size) bytes and defaults the rest. Enum values never change meaning. Functions are only
 * added (at the end of tf_api for the plugin table).
 *
 * Conventions: units are SI (m, kg, s, N). Arrays are flat and state their shape in a comment,
 * e.g. (vert_count x 3). Nothing is process-global: allocator, logger and the last error live in
 * the simulation. Nothing aborts or prints. A call that fails returns a status, records a message
 * (tf_sim_last_error) and leaves the simulation as it was. A tf_sim may be used from one thread at
 * a time; distinct sims are independent.
 */
#ifndef TAUFORM_H
#define TAUFORM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#  if defined(TF_BUILDING_LIBRARY)
#    define TF_API __declspec(dllexport)
#  else
#    define TF_API __declspec(dllimport)
#  endif
#else
#  define TF_API __attribute__((visibility("default")))
#endif

#define TF_VERSION_MAJOR 1
#define TF_VERSION_MINOR 15
#define TF_VERSION_PATCH 1
/* Versions with the same major number are ABI compatible. */
#define TF_VERSION ((TF_VERSION_MAJOR << 16) | (TF_VERSION_MINOR << 8) | TF_VERSION_PATCH)

/* 1.10: the largest thread count a def may ask for (tf_cloth_def.threads) */
#define TF_MAX_THREADS 256

/* Library version, TF_VERSION layout; bindings compare its major byte with the header's. */
TF_API uint32_t tf_version(void);
/* ABI major version of the library (== TF_VERSION_MAJOR of the header it was built with). */
TF_API uint32_t tf_abi_version(void);
/* "MAJOR.MINOR.PATCH" of the library, e.g. "1.5.0" */
TF_API const char *tf_version_string(void);

/* ---------------------------------------------------------------------------------------------
 * Status codes. Values are part of the ABI. */
#define TF_STATUS_MAP(XX)                                  \
  XX(OK, 0, "ok")                                          \
  XX(E_INVALID_ARG, 1, "invalid argument")                 \
  XX(E_NOMEM, 2, "out of memory")                          \
  XX(E_DEF_INIT, 3, "def not initialized")                 \
  XX(E_BAD_MESH, 4, "bad mesh")                            \
  XX(E_NOT_CONVERGED, 5, "solver did not converge")        \
  XX(E_VERSION, 6, "ABI version mismatch")                 \
  XX(E_UNSUPPORTED, 7, "not supported by this simulation") \
  XX(E_IO, 8, "input/output error")                        \
  XX(E_SCRIPT, 9, "rig script error")                      \
  XX(E_CONTACT, 10, "contact could not be resolved")
#define TF_XX_ENUM(name, code, msg) TF_##name = code,
typedef enum tf_status { TF_STATUS_MAP(TF_XX_ENUM) TF_STATUS_COUNT_ } tf_status;
#undef TF_XX_ENUM

/* "TF_E_NOMEM"; "TF_UNKNOWN" for values outside the enum. */
TF_API const char *tf_status_name(tf_status s);
/* "out of memory" */
TF_API const char *tf_status_message(tf_status s);

/* ---------------------------------------------------------------------------------------------
 * Hooks. */

/* All-zero: libc. alloc returns NULL on failure; align is a power of two <= 64. */
typedef struct tf_allocator {
  void *(*alloc)(size_t size, size_t align, void *ud);
  void (*free)(void *ptr, size_t size, void *ud);
  void *ud;
} tf_allocator;

typedef enum tf_log_level {
  TF_LOG_DEBUG = 0,
  TF_LOG_INFO = 1,
  TF_LOG_WARN = 2,
  TF_LOG_ERROR = 3
} tf_log_level;

/* All-zero: silent. Called from the thread that calls into the sim. */
typedef struct tf_logger {
  void (*fn)(tf_log_level level, const char *message, void *ud);
  void *ud;
  tf_log_level min_level; /* messages below are not formatted; default TF_LOG_WARN */
} tf_logger;

/* ---------------------------------------------------------------------------------------------
 * Cloth definition. */

/* 1.7: the cloth's bending energy (plugin/docs/physics.md compares them) */
typedef enum tf_bend_model {
  /* the default: isotropic thin-plate bending, A D/2 [nu (tr S)^2 + (1 - nu) tr S^2] per
   * triangle, S the change of its second fundamental form, from the divergence theorem over its
   * edges with each edge's slope fitted through its two triangles and a vertex beyond each (the
   * rotation-free shell of Onate & Zarate 2000): the same stiffness in every direction on any
   * triangulation, a bending Poisson ratio (TF_PARAM_BEND_POISSON) */
  TF_BEND_SHELL = 0,
  /* the discrete hinge on each interior edge (Bridson et al. 2003, Grinspun et al. 2003), the
   * 1.6 behaviour: cheaper (the shell costs about 1.2x on CLOTH-128 and SWING-128), but stiffer
   * along some mesh directions than others (3x along one diagonal of a regular grid) */
  TF_BEND_HINGE = 1
} tf_bend_model;

/* 1.11: what the cloth is made of (plugin/docs/physics.md, "Spring cloth", compares them) */
typedef enum tf_cloth_model {
  /* the default: a continuum membrane (StVK on each triangle: stretch_stiffness, poisson) and
   * plate bending (bend_model, bend_stiffness): the same material at any mesh resolution */
  TF_CLOTH_MEMBRANE = 0,
  /* Leplatre's mass-spring cloth (the seeds' leplatre2016): linear springs E = k/2 (l - L)^2 in
   * three families built from the mesh, structural (the edges, k = stretch_stiffness), shear (the
   * diagonals of each near-rectangular pair of triangles, k = shear_stiffness) and bend (vertices
   * two edges apart on a near-straight line, k = bend_spring_stiffness). On a square grid a
   * family's k (N/m) is the sheet's modulus along the springs whatever the spacing; its bending
   * is not a plate's: it grows with the fold (second order in the angle) and stiffens as the
   * mesh coarsens. poisson, bend_stiffness, bend_model and bend_poisson do not apply */
  TF_CLOTH_SPRINGS = 1
} tf_cloth_model;

typedef enum tf_integrator {
  /* Young 2007: each step minimizes KE + (tau/dt) PE, every deformation mode critically damped,
   * rigid (ballistic) motion of free pieces untouched; kappa brings controlled oscillation back. */
  TF_INTEGRATOR_TAU = 0,
  /* Baseline for comparison: semi-implicit (symplectic) Euler with the thesis's strain-rate
   * damping stress (phi, psi; Young 2007 ch. 4). Explicit: needs small steps. */
  TF_INTEGRATOR_STRAIN_RATE = 1
} tf_integrator;

/* Newton solver settings (shared by every simulation kind). */
typedef struct tf_solver_settings {
  uint32_t max_newton;  /* Newton iterations per step, default 20 */
  uint32_t max_cg;      /* CG iterations per Newton iteration, default 500 */
  double tolerance;     /* relative, default 1e-3: a step is converged when every vertex's net force
                           (inertia included) is below tolerance x its weight under standard
                           gravity plus its external load, or when the Newton correction is below
                           tolerance x the step's displacement + abs_tolerance x dt */
  double abs_tolerance; /* m/s, default 1e-7 */
} tf_solver_settings;

typedef struct tf_cloth_def {
  uint32_t struct_size; /* first field, always; set by tf_cloth_def_init */

  /* rest mesh (required); copied at create */
  const double *rest_positions; /* (vert_count x 3) m */
  uint32_t vert_count;
  const uint32_t *triangles; /* (tri_count x 3) vertex indices, consistently oriented */
  uint32_t tri_count;
  const double *initial_positions; /* Nullable: (vert_count x 3) m start state; default rest */

  /* mass: vertex_masses, else total_mass, else density; lumped (rho A / 3 per corner) */
  double density;              /* kg/m^2, default 0.1 */
  double total_mass;           /* kg; > 0 overrides density; default 0 */
  const double *vertex_masses; /* Nullable: (vert_count) kg, each > 0; overrides both */

  /* membrane: St.Venant-Kirchhoff on the Green strain (Young 2007 eq. 3.17), plane stress */
  double stretch_stiffness; /* N/m, in (0, 1e9], 2D Young's modulus (E x thickness), default 1000 */
  double poisson;           /* in (-1, 1), default 0.3 */

  /* bending (bend_model below): D of the thin plate, the energy per area of a bend of curvature c
   * is D c^2 / 2 */
  double bend_stiffness; /* N m, in [0, 1e3], flexural rigidity, default 1e-5 */

  double gravity[3]; /* m/s^2, each in [-1e4, 1e4], default {0, 0, -9.81}: Z up */

  /* damping */
  tf_integrator integrator; /* default TF_INTEGRATOR_TAU */
  double tau;   /* s, in (0, 1e6]: time scale of settling (rest time ~ 1/tau), default 0.1 */
  double kappa; /* in [0, 1]: 0 pure tau method, 1 undamped; default 0 */
  /* N s/m, in [0, 1e9], strain-rate damping of TF_INTEGRATOR_STRAIN_RATE; default 0 */
  double phi, psi;

  /* soft pins (weight w < 1) pull with an acceleration pin_stiffness * w/(1-w) * distance */
  double pin_stiffness; /* 1/s^2, in (0, 1e12], default 1000 */

  tf_solver_settings solver;
  tf_allocator allocator; /* optional */
  tf_logger logger;       /* optional */

  /* 1.3: the number of the first vertex, triangle or pin in error messages, 0 (C, default) or 1
   * (hosts in 1-based languages: Lua, Julia, Fortran), for this create and the simulation's calls
   */
  uint32_t index_base;

  /* 1.7: the bending energy, default TF_BEND_SHELL (a def from an older header, whose struct_size
   * ends before this field, keeps TF_BEND_HINGE, the 1.6 behaviour), and the shell's Poisson
   * ratio (TF_PARAM_BEND_POISSON, default 0: woven fabrics) */
  tf_bend_model bend_model;
  double bend_poisson;

  /* 1.10: threads for the per-step loops, the caller's included: 0 (default) every online core
   * but no more than one per ~4000 Hessian blocks (~450 cloth or ~600 flesh vertices: a smaller
   * simulation runs on one thread, faster), or exactly this many, at most 256
   * (tf_stats.threads says how many). Results are bitwise the same for every count (element colouring, fixed-order
   * sums). A def from an older header, whose struct_size ends before this field, runs on 1. The
   * workers live from create to destroy and sleep between advances; a process that forks keeps
   * them in the parent only (create simulations after a fork, or use 1 thread before it). */
  uint32_t threads;

  /* 1.11: the cloth's model, default TF_CLOTH_MEMBRANE; for TF_CLOTH_SPRINGS the stiffness of the
   * shear and bend families (TF_PARAM_SHEAR_STIFFNESS, TF_PARAM_BEND_SPRING_STIFFNESS; the
   * structural family's is stretch_stiffness). Springs need the tau integrator. */
  tf_cloth_model cloth_model;
  double shear_stiffness;       /* N/m, in [0, 1e9], default 400 */
  double bend_spring_stiffness; /* N/m, in [0, 1e9], default 10 */
} tf_cloth_def;

/* Fill every field this header knows about with its default. */
TF_API void tf_cloth_def_init_(tf_cloth_def *def, uint32_t struct_size);
#define tf_cloth_def_init(def) tf_cloth_def_init_((def), (uint32_t)sizeof *(def))

/* ---------------------------------------------------------------------------------------------
 * Flesh definition: a volumetric body of tetrahedra with the stable Neo-Hookean energy
 * (Smith et al. 2018: a tet squashed flat or turned inside out recovers), the same tau damping,
 * kappa, pins and solver as cloth. The host gives tets (tf_tetmesh_load reads TetGen and Gmsh
 * files), or only a closed triangle surface that the library fills with a lattice of tets. A
 * render surface embedded in the tets (barycentric weights computed once) comes back deformed
 * through tf_sim_get_surface_positions. */

/* 1.9: the element each tet becomes (plugin/docs/physics.md, Flesh elements, compares them) */
typedef enum tf_tet_element {
  /* the default, the 1.8 behaviour: the 4-node tet. Cheap, but it locks: a limb bent at 4 tets
   * across is 1.3x too stiff at Poisson 0.3 and 3.4x at 0.49, and the result moves with the tet
   * density */
  TF_TET_LINEAR = 0,
  /* the quadratic (10-node) tet: a node at the middle of each edge, the simulation's own (the
   * host still sees and sets only its vertices; an edge node goes to its edge's middle when the
   * host sets a state, and is pinned when both its corners are). A clamped beam sags within
   * 1.1 % of beam theory at 4 tets across for Poisson 0.3 to 0.49 and moves under 2 % from 2
   * across (one tet across is 16-24 % soft); on the same tets 9-15x the linear tet's cost */
  TF_TET_QUADRATIC = 1
} tf_tet_element;

typedef struct tf_flesh_material {
  double youngs_modulus; /* Pa, > 0 */
  double poisson;        /* in (-1, 0.5): 0.49 is nearly incompressible */
  double density;        /* kg/m^3, > 0 */
} tf_flesh_material;

typedef struct tf_flesh_def {
  uint32_t struct_size; /* first field, always; set by tf_flesh_def_init */

  /* tets at rest; copied at create. Either orientation: each tet is made positive. tets NULL: the
   * tets are built from the surface below (a Kuhn-cube lattice clipped to it) */
  const double *rest_positions; /* (vert_count x 3) m */
  uint32_t vert_count;
  const uint32_t *tets; /* (tet_count x 4) vertex indices */
  uint32_t tet_count;
  const double *initial_positions; /* Nullable: (vert_count x 3) m start state; default rest */

  /* render surface (Nullable): the host's skin at rest, embedded in the tets and returned
   * deformed; without tets, the closed surface to fill with tets, wound outward (counter-clockwise
   * seen from outside; an inward-wound one is rejected) */
  const double *surface_positions; /* (surface_vert_count x 3) m */
  uint32_t surface_vert_count;
  const uint32_t *surface_triangles; /* (surface_tri_count x 3) */
  uint32_t surface_tri_count;
  uint32_t lattice_cells; /* tets from a surface: lattice cubes along its longest side, default 12,
                             2..512 and refused (TF_E_INVALID_ARG, naming the largest that fits)
                             when the lattice could need over 2 GiB (about 1 kB per tet, 6 tets
                             per cube, cubes of the surface's box plus a margin): <= 69 for a
                             cube, more for flat shapes */

  /* material 0 (the base, settable as TF_PARAM_YOUNGS_MODULUS and TF_PARAM_POISSON) */
  double
      youngs_modulus; /* Pa, in (0, 1e12] (TF_PARAM_YOUNGS_MODULUS), default 50e3 (soft tissue) */
  double poisson;     /* default 0.45 */
  double density;     /* kg/m^3, default 1000 */
  /* regions: tet_materials[t] = 0 uses the base material, k > 0 uses materials[k - 1] */
  const uint32_t *tet_materials;      /* Nullable: (tet_count) */
  const tf_flesh_material *materials; /* (material_count) */
  uint32_t material_count;

  double gravity[3];    /* m/s^2, each in [-1e4, 1e4], default {0, 0, -9.81} */
  double tau;           /* s, in (0, 1e6], default 0.1 */
  double kappa;         /* [0, 1], default 0 */
  double pin_stiffness; /* 1/s^2, in (0, 1e12], default 1000 (soft pins, as for cloth) */

  tf_solver_settings solver;
  tf_allocator allocator; /* optional */
  tf_logger logger;       /* optional */

  uint32_t index_base; /* 1.3: 0 or 1, first index in error messages (as for cloth) */

  /* 1.9: the element, default TF_TET_LINEAR */
  tf_tet_element element;

  /* 1.10: threads, as tf_cloth_def.threads (0 = every core; an older def runs on 1) */
  uint32_t threads;
} tf_flesh_def;

TF_API void tf_flesh_def_init_(tf_flesh_def *def, uint32_t struct_size);
#define tf_flesh_def_init(def) tf_flesh_def_init_((def), (uint32_t)sizeof *(def))

/* A tet mesh read from a file: TetGen (path.node with path.ele; the .node, .ele or .face name
 * works, the boundary is recomputed from the tets) or Gmsh .msh (ASCII 2.2 or 4.1, tet elements;
 * other elements are skipped). Errors name the file and line. */
typedef struct tf_tetmesh tf_tetmesh; /* opaque */
typedef struct tf_tetmesh_view {
  uint32_t struct_size; /* set by the caller: sizeof(tf_tetmesh_view) */
  uint32_t vert_count, tet_count;
  const double *positions; /* (vert_count x 3) */
  const uint32_t *tets;    /* (tet_count x 4) as in the file */
  const int32_t
      *regions; /* (tet_count): TetGen's region attribute or Gmsh's physical tag; 0 if none */
} tf_tetmesh_view;
TF_API tf_status tf_tetmesh_load(const char *path, tf_tetmesh **out_mesh, char *errbuf,
                                 size_t errbuf_size);
/* Arrays owned by the mesh, valid until tf_tetmesh_destroy. */
TF_API tf_status tf_tetmesh_get(const tf_tetmesh *mesh, tf_tetmesh_view *out_view);
/* Name of a region (Gmsh $PhysicalNames), NULL if it has none. */
TF_API const char *tf_tetmesh_region_name(const tf_tetmesh *mesh, int32_t region);
TF_API void tf_tetmesh_destroy(tf_tetmesh *mesh); /* NULL is a no-op */

/* ---------------------------------------------------------------------------------------------
 * Simulation. */

typedef struct tf_sim tf_sim; /* opaque */

/* Create a flesh simulation; as tf_cloth_create. */
TF_API tf_status tf_flesh_create(const tf_flesh_def *def, tf_sim **out_sim, char *errbuf,
                                 size_t errbuf_size);
/* Create a cloth simulation. On failure *out_sim is NULL and errbuf (Nullable) gets a message
 * naming what was wrong, e.g. "triangle 12 repeats vertex 7". */
TF_API tf_status tf_cloth_create(const tf_cloth_def *def, tf_sim **out_sim, char *errbuf,
                                 size_t errbuf_size);
/* NULL is a no-op. */
TF_API void tf_sim_destroy(tf_sim *sim);
/* Message of the last failed call on this sim; "" if none. Valid until the next call. */
TF_API const char *tf_sim_last_error(const tf_sim *sim);

/* Parameters settable between frames. Values are taken by the next tf_sim_advance. Every value
 * must be finite and inside a physical range (tf_param_get_info's lo/hi, the same table that checks
 * them, and the def fields at create); a value outside is refused by name, e.g. "gravity must be
 * in [-1e4, 1e4] m/s^2, got 1e+200", and changes nothing. The caps are far above any shot's needs
 * and far below where the arithmetic loses meaning (the reasons: plugin/src/api/api_params.c). */
typedef enum tf_param {
  TF_PARAM_TAU = 0,            /* 1 value, s, (0, 1e6] */
  TF_PARAM_KAPPA = 1,          /* 1 value, [0, 1] */
  TF_PARAM_BEND_STIFFNESS = 2, /* 1 value (all hinges) or hinge-wise via tf_sim_set_param_map, N m,
                                  [0, 1e3] (a 4 mm steel plate); cloth */
  TF_PARAM_GRAVITY = 3,        /* 3 values, m/s^2, each in [-1e4, 1e4] (1000 g) */
  TF_PARAM_STRETCH_STIFFNESS =
      4,                /* 1 value, N/m, (0, 1e9] (5 mm of steel); cloth; a per-vertex map (1.15) */
  TF_PARAM_POISSON = 5, /* 1 value, cloth (-1, 1), flesh (-1, 0.5): base material */
  TF_PARAM_PIN_STIFFNESS = 6, /* 1 value, 1/s^2, (0, 1e12] */
  TF_PARAM_PHI = 7,           /* 1 value, N s/m, [0, 1e9] (strain-rate integrator) */
  TF_PARAM_PSI = 8,           /* 1 value, N s/m, [0, 1e9] (strain-rate integrator) */
  /* aerodynamics (per triangle drag and lift; on while air_density > 0) */
  TF_PARAM_WIND =
      9, /* 3 values, m/s, each in [-1e3, 1e3] (Mach 3): base wind velocity, default 0 */
  TF_PARAM_AIR_DENSITY = 10, /* 1 value, kg/m^3, [0, 1e4]: 0 = no air (default), 1.225 = air */
  TF_PARAM_DRAG = 11,        /* 1 value, [0, 100]: drag coefficient, default 1.2 (flat plate) */
  TF_PARAM_LIFT = 12,        /* 1 value, [0, 100]: lift coefficient, default 0.6 */
  TF_PARAM_TURBULENCE = 13,  /* 1 value, m/s, [0, 1e3]: turbulence amplitude, default 0 */
  TF_PARAM_TURBULENCE_SCALE = 14, /* 1 value, m, [1e-4, 1e6]: size of the eddies, default 1 */
  TF_PARAM_TURBULENCE_TIME = 15,  /* 1 value, s, [1e-4, 1e6]: how fast they change, default 0.5 */
  TF_PARAM_TURBULENCE_SEED = 16,  /* 1 value, integer >= 0: same seed, same wind; default 0 */
  TF_PARAM_GUST = 17, /* 1 value, [0, 100]: gusts up to (1 + gust) x the base wind, default 0 */
  TF_PARAM_GUST_PERIOD = 18,    /* 1 value, s, [1e-4, 1e6]: typical time between gusts, default 3 */
  TF_PARAM_YOUNGS_MODULUS = 19, /* 1 value, Pa, (0, 1e12] (diamond): flesh base material (cloth:
                                     stretch_stiffness) */
  /* 1.3: 1 value, s, |t| <= 1e9: the simulation's clock, 0 at create and advanced by each
   * tf_sim_advance; the wind's turbulence and gusts follow it. Restoring a cached frame with
   * tf_sim_set_state, set it too (read it with tf_sim_get_param when caching), and the wind
   * continues as in the first run */
  TF_PARAM_TIME = 20,
  /* 1.5: contact (colliders: tf_sim_add_collider). The contact gap between the simulation and a
   * collider is the sum of their thicknesses; the barrier acts below it and the distance never
   * reaches 0 */
  TF_PARAM_THICKNESS = 21,     /* 1 value, m, [1e-5, 0.1]: contact thickness of the cloth or skin,
                                     default 0.002 */
  TF_PARAM_FRICTION = 22,      /* 1 value, [0, 10]: friction coefficient of the simulation, default
                                     0.3; a pair's is sqrt(mu_sim mu_other) (Box2D's mixing rule) */
  TF_PARAM_GROUND_NORMAL = 23, /* 3 values, each in [-1, 1]: the ground plane's upward normal
                                     (normalized by the library); 0 0 0 = no ground (default) */
  TF_PARAM_GROUND_HEIGHT = 24, /* 1 value, m, |h| <= 1e4: the plane is n . x = h, default 0 */
  TF_PARAM_GROUND_FRICTION =
      25, /* 1 value, [0, 10]: friction coefficient of the ground, default 0.5 */
  /* 1.6: 1 value, 0 or 1: self-contact, the cloth's or skin's own layers kept one thickness
   * apart (same barrier, CCD and friction as colliders), default 0 (off) */
  TF_PARAM_SELF_CONTACT = 26,
  /* 1.7: 1 value, [-0.9, 0.5]: the bending Poisson ratio of TF_BEND_SHELL (a twist costs
   * 2 (1 - nu) times a bend of the same curvature; woven fabric is near 0), default 0; cloth */
  TF_PARAM_BEND_POISSON = 27,
  /* 1.11: 1 value each, N/m, [0, 1e9]: spring cloth's (TF_CLOTH_SPRINGS) shear and bend
   * families, defaults 400 and 10; cloth */
  TF_PARAM_SHEAR_STIFFNESS = 28,
  TF_PARAM_BEND_SPRING_STIFFNESS = 29,
  /* 1.11: plasticity of spring cloth (Leplatre): past the elastic limit PLASTIC_YIELD (a strain,
   * (0, 10], default 0.1) a spring's rest length moves so that its strain stays at the limit, at
   * most PLASTIC_LIMIT ([0, 0.9] of its original length, default 0: no plasticity) from where it
   * started, approaching that as 1 - exp(-t / PLASTIC_TIME) (s, [0, 1e6], default 0: at once):
   * the same yield for any step or substeps. The rest lengths are state (snapshots, rollback).
   * 1.12: the membrane cloth's triangles and flesh's tets too: a triangle's rest frame yields
   * along its principal stretches as a spring does (its rest area follows), a tet's rest shape
   * flows with its volume kept when its equivalent (von Mises) Hencky strain passes the yield,
   * never further than PLASTIC_LIMIT (as an equivalent strain) from the rest mesh's; cloth, flesh */
  TF_PARAM_PLASTIC_YIELD = 30,
  TF_PARAM_PLASTIC_LIMIT = 31,
  TF_PARAM_PLASTIC_TIME = 32,
  /* 1.11: bending plasticity of the membrane cloth: a shell triangle's rest curvature (or a
   * hinge's rest angle, read as the normal curvature across its edge) yields when its change of
   * curvature passes BEND_YIELD (1/m, (0, 1e6], default 10), moving at most BEND_PLASTIC_LIMIT
   * (1/m, [0, 1e6], default 0: none) from the rest mesh's, at the rate of PLASTIC_TIME: a fold
   * past the yield keeps a crease. State, like the springs'. 1.12: both take per-vertex maps */
  TF_PARAM_BEND_YIELD = 33,
  TF_PARAM_BEND_PLASTIC_LIMIT = 34,
  /* 1.13: tearing of cloth (membrane or springs), 1 value, [0, 10], default 0 (never), keyable,
   * per-vertex map: after each accepted step an interior edge whose strain (length over rest
   * length, less 1) passes the mean of its two vertices' values breaks, and where the broken
   * edges cut a vertex's ring of triangles apart the vertex splits (tf_sim_get_topology) */
  TF_PARAM_TEAR_STRAIN = 35,
  TF_PARAM_COUNT_
} tf_param;

/* Set a parameter from `count` values (see tf_param for the count each takes). */
TF_API tf_status tf_sim_set_param(tf_sim *sim, tf_param param, const double *values,
                                  uint32_t count);
/* Check values for a parameter without a simulation: TF_OK, or TF_E_INVALID_ARG with the message
 * tf_sim_set_param would give in errbuf (Nullable). Lets a host validate a batch before applying.
 */
TF_API tf_status tf_param_check(tf_param param, const double *values, uint32_t count, char *errbuf,
                                size_t errbuf_size);
/* tf_param_check for this simulation: also refuses a parameter its kind does not have
 * (TF_E_UNSUPPORTED, e.g. stretch_stiffness on flesh) and flesh's poisson >= 0.5. Changes nothing;
 * the message goes to tf_sim_last_error. */
TF_API tf_status tf_sim_check_param(tf_sim *sim, tf_param param, const double *values,
                                    uint32_t count);
/* 1.4: what a parameter is, read from the library's one parameter table, so that a host or a
 * binding names, checks and documents parameters with no copy of its own. */
#define TF_PARAM_FOR_CLOTH 1u
#define TF_PARAM_FOR_FLESH 2u
typedef struct tf_param_info {
  uint32_t struct_size;      /* set by the caller: sizeof(tf_param_info) */
  const char *name;          /* C name, e.g. "stretch_stiffness" (static storage) */
  const char *short_name;    /* the Lua and rig name, e.g. "stretch" */
  const char *unit;          /* SI, "" for a pure number */
  const char *doc;           /* one line: what it does */
  uint32_t count;            /* values it takes: 1 or 3 */
  uint32_t kinds;            /* TF_PARAM_FOR_CLOTH | TF_PARAM_FOR_FLESH: simulations that have it */
  double lo, hi;             /* admissible range, -inf / inf where unbounded */
  uint32_t lo_open, hi_open; /* 1: the bound itself is excluded */
  uint32_t integer;          /* 1: whole numbers only */
  uint32_t keyable;          /* 1: may change every frame (rigs key it) */
  double default_values[3];  /* the def's default (flesh's where only flesh has it) */
} tf_param_info;
/* Fill *out (out->struct_size set by the caller) for param: TF_E_INVALID_ARG for an unknown id,
 * TF_E_DEF_INIT for struct_size 0. Iterate 0 .. TF_PARAM_COUNT_ - 1 to list every parameter. */
TF_API tf_status tf_param_get_info(tf_param param, tf_param_info *out);
/* Read a parameter into out_values (capacity `count`). */
TF_API tf_status tf_sim_get_param(const tf_sim *sim, tf_param param, double *out_values,
                                  uint32_t count);
/* Per-vertex map of a parameter. values: (vert_count). Supported:
 * - TF_PARAM_STRETCH_STIFFNESS (1.15, cloth): each triangle's (spring cloth: each structural
 *   spring's) stiffness is the mean of its vertices', so pieces of one mesh keep their own fabric
 *   (a shirt and a jacket in one simulation, where self-contact keeps them apart); get_param
 *   reports the map's mean, a uniform tf_sim_set_param replaces the map; snapshots carry it;
 * - TF_PARAM_BEND_STIFFNESS (cloth): the per-hinge value is the mean of its two edge vertices;
 * - TF_PARAM_PLASTIC_YIELD and TF_PARAM_PLASTIC_LIMIT (1.11 spring cloth, 1.12 every kind), and
 *   TF_PARAM_BEND_YIELD and TF_PARAM_BEND_PLASTIC_LIMIT (1.12, membrane cloth): each element's
 *   value is the mean of its vertices' (a spring's or a hinge's edge's two ends, a triangle's or
 *   a tet's corners), so a vertex group makes a stiff collar or a soft elbow; get_param then
 *   reports the map's mean. A uniform tf_sim_set_param replaces the map;
 * - TF_PARAM_SELF_CONTACT (1.6): 1 the vertex takes part in self-contact, 0 it opts out: no self
 *   pair joins two opted-out parts (a collar sewn onto itself), which still collide with the
 *   rest. The uniform value stays the on/off switch; the map is kept when it is keyed. */
TF_API tf_status tf_sim_set_param_map(tf_sim *sim, tf_param param, const double *values,
                                      uint32_t vert_count);

/* Replace the pin set. indices: (count) distinct vertices; weights: Nullable (count) in (0, 1],
 * 1 = hard (follows its target exactly, and carries its piece: a piece with hard pins has no
 * ballistic motion of its own), < 1 = soft goal spring (part of the potential; a piece with only
 * soft pins stays free). count 0 removes all pins. Targets start at the pinned vertices' current
 * positions. */
TF_API tf_status tf_sim_set_pins(tf_sim *sim, const uint32_t *indices, const double *weights,
                                 uint32_t count);
/* Pin targets for the end of the next tf_sim_advance; substeps interpolate linearly from the
 * previous targets so a moving pin does not jerk. targets: (count x 3) m, count = pin count. */
TF_API tf_status tf_sim_set_pin_targets(tf_sim *sim, const double *targets, uint32_t count);

#define TF_MAX_SUBSTEPS 10000
/* Advance by frame_dt seconds in `substeps` equal steps (1 to TF_MAX_SUBSTEPS). Every substep is
 * checked: its result must be finite and must not raise the step's objective above its value at
 * the start (each step is a minimization; tau-step.md sec. 7). On failure the whole frame is rolled
 * back (state and clock as before the call), TF_E_NOT_CONVERGED is returned, tf_sim_last_error
 * names the frame (advances completed since create, from index_base), the substep and what failed,
 * and tf_sim_get_stats reports that advance's steps with residual inf. */
TF_API tf_status tf_sim_advance(tf_sim *sim, double frame_dt, uint32_t substeps);

/* Overwrite the state (a teleport, or a start from a modelled pose). positions (vert_count x 3)
 * m; velocities Nullable (vert_count x 3) m/s, NULL = zero. Hard pins' targets restart at their
 * vertices' new positions and the pins' carrier motion at their given velocities, with no change
 * of its velocity still acting (1.8: the carrier's changes act over (1 - kappa) tau); soft pins
 * keep targets set since the last advance or tf_sim_set_pins (their vertices hang off them), else
 * restart at their vertices too (a teleport moves them along). A render-farm restart that
 * continues the original run exactly is a snapshot (tf_sim_save_state / tf_sim_load_state): this
 * call with the cached frame's positions, velocities, targets and clock continues it only while
 * the hard pins were not changing speed. */
TF_API tf_status tf_sim_set_state(tf_sim *sim, const double *positions, const double *velocities,
                                  uint32_t vert_count);

/* 1.8: state snapshots. Everything that decides the next step (positions, velocities, the pins,
 * their targets and carrier history, the clock, every parameter and per-vertex map, contact's
 * colliders' poses and adaptive state) as one position-independent byte buffer: keep it in
 * memory, or write it to disk and load it into another process. A run saved at frame k and
 * loaded into a simulation created from the same def (the same colliders added) continues bit
 * for bit as the uninterrupted run. tf_sim_state_size: the bytes a snapshot takes now (0 for
 * NULL; it changes with the pin count and the colliders). tf_sim_save_state writes it into buf
 * (size at least that, else TF_E_INVALID_ARG and nothing written). tf_sim_load_state refuses,
 * by name and leaving the simulation unchanged, a buffer that is not a snapshot, truncated or
 * damaged (checksum), from another library version, another kind, mesh or collider set. */
TF_API size_t tf_sim_state_size(const tf_sim *sim);
TF_API tf_status tf_sim_save_state(tf_sim *sim, void *buf, size_t size);
TF_API tf_status tf_sim_load_state(tf_sim *sim, const void *buf, size_t size);

TF_API uint32_t tf_sim_vert_count(const tf_sim *sim);
/* Read into caller arrays of (vert_count x 3). */
TF_API tf_status tf_sim_get_positions(const tf_sim *sim, double *out_positions,
                                      uint32_t vert_count);
TF_API tf_status tf_sim_get_positions_f(const tf_sim *sim, float *out_positions,
                                        uint32_t vert_count);
TF_API tf_status tf_sim_get_velocities(const tf_sim *sim, double *out_velocities,
                                       uint32_t vert_count);
/* Area-weighted unit vertex normals. */
TF_API tf_status tf_sim_get_normals(const tf_sim *sim, double *out_normals, uint32_t vert_count);
/* Net force on every vertex at the current positions: -grad(PE) + gravity (+ soft pin pulls), N.
 * At a static equilibrium this is zero on every unpinned vertex. */
TF_API tf_status tf_sim_get_forces(const tf_sim *sim, double *out_forces, uint32_t vert_count);
/* Potential energy (elastic + bending + soft pins - gravity work), J. */
TF_API tf_status tf_sim_get_energy(const tf_sim *sim, double *out_energy);
/* Rest positions (vert_count x 3), e.g. to choose vertices to pin in a generated tet mesh. */
TF_API tf_status tf_sim_get_rest_positions(const tf_sim *sim, double *out_positions,
                                           uint32_t vert_count);
/* 1.14: each vertex's lumped mass, kg (vert_count) */
TF_API tf_status tf_sim_get_masses(const tf_sim *sim, double *out_masses, uint32_t vert_count);
/* The triangles the simulation's vertices carry (tri_count x 3, 0-based): a cloth's own mesh, or a
 * flesh body's tet boundary (outward), e.g. to display or cache a body without a render surface. */
TF_API uint32_t tf_sim_tri_count(const tf_sim *sim);
TF_API tf_status tf_sim_get_triangles(const tf_sim *sim, uint32_t *out_triangles,
                                      uint32_t tri_count);

/* 1.13: the mesh as tearing (TF_PARAM_TEAR_STRAIN) left it. A tear splits vertices: the vertex
 * count grows (the old vertices keep their indices, copies are appended), the triangles keep
 * their count and order but some now name a copy, and every per-vertex array a host reads or
 * writes (positions, pins, maps) takes the new count. After each tf_sim_advance compare serial
 * (or read changed) and, when it moved, read tf_sim_vert_count, tf_sim_get_triangles and
 * tf_sim_get_vertex_origins (each vertex's vertex of the mesh the simulation was created with:
 * UVs and attributes carry over). */
typedef struct tf_topology {
  uint32_t struct_size;         /* set by the caller: sizeof(tf_topology) */
  uint32_t vert_count;          /* vertices now */
  uint32_t tri_count;           /* triangles (never changes) */
  uint32_t torn_edges;          /* edges broken since create */
  uint64_t serial;              /* splits since create: changes whenever the vertices do */
  uint32_t changed;             /* 1: the last tf_sim_advance changed the mesh */
  uint32_t original_vert_count; /* the def's vert_count */
} tf_topology;
TF_API tf_status tf_sim_get_topology(const tf_sim *sim, tf_topology *out);
/* (vert_count): the original vertex of each vertex, 0-based (as tf_sim_get_triangles) */
TF_API tf_status tf_sim_get_vertex_origins(const tf_sim *sim, uint32_t *out_origins,
                                           uint32_t vert_count);
/* (vert_count): the vertex each vertex was split from, 0-based (itself for the mesh's own;
 * always a lower index), so a host holding per-vertex data from before a split extends it */
TF_API tf_status tf_sim_get_vertex_parents(const tf_sim *sim, uint32_t *out_parents,
                                           uint32_t vert_count);

/* ---------------------------------------------------------------------------------------------
 * 1.14: external forces and the response (Palazzi 1993, ch. 4: multilevel force distribution).
 * A force on one spot of a body acts there: within a step it spreads only as far as the material
 * carries it. The response shares each external force among levels of a hierarchy over the body:
 * level 0 is the vertices (a local dent), each next level a grid of patches twice as large over
 * the rest shape, the last the body as one rigid piece. A level's share of the forces on a patch
 * (their total force and torque) is spread back over the patch as a rigid push, by mass, with the
 * torque as a rotation: the total force and torque on the body are exactly those given, whatever
 * the percentages; 100 % on level 0 is the simulation without the response, bit for bit. Shared:
 * the host's forces (tf_sim_set_forces) and the air's (wind). Not shared: gravity and the pins'
 * carrier force (already rigid pushes), the pins and contact (inside the step's minimization,
 * which spreads them over the body already). The response changes where a force acts, never the
 * rest shape or how fast the body comes to rest (tau). */
/* Levels of the response: their count, and each level's size into out_sizes (Nullable, the
 * first min(count, capacity)): 0 for level 0 (the vertices), a grid level's patch spacing in
 * metres, the rest shape's longest side for the last (rigid) level. Fixed by the rest shape: a
 * finer mesh of the same shape has more levels below the same coarse ones. 0 for NULL. */
TF_API uint32_t tf_sim_response_levels(const tf_sim *sim, double *out_sizes, uint32_t capacity);
/* The response's percentages per level (count of them, 1 .. tf_sim_response_levels, level 0
 * first; the levels after them get 0), each in [0, 100], summing to 100 (within 1e-6). For the
 * forces applied at the given vertices (Nullable: every vertex; vertex_count of them), so a
 * vertex group answers globally while the rest stays local. Keyable: takes effect at the next
 * advance. Bad input is refused by name (TF_E_INVALID_ARG) and changes nothing. */
TF_API tf_status tf_sim_set_response(tf_sim *sim, const double *percent, uint32_t count,
                                     const uint32_t *vertices, uint32_t vertex_count);
/* The percentages a force at `vertex` is shared by, into out_percent (capacity count, at least
 * 1): the first min(count, levels). */
TF_API tf_status tf_sim_get_response(const tf_sim *sim, uint32_t vertex, double *out_percent,
                                     uint32_t count);
/* External forces on the vertices, N, (vert_count x 3), each component finite and within 1e9 N,
 * held for every substep until replaced; NULL with vert_count 0 removes them. A rig's pokes and
 * region pushes come through here. Shared among the levels by the response. */
TF_API tf_status tf_sim_set_forces(tf_sim *sim, const double *forces, uint32_t vert_count);

/* ---------------------------------------------------------------------------------------------
 * 1.5: colliders. A collider is a triangle mesh the host moves every frame (a skinned body is a
 * deforming mesh: give all its positions; a rigid one can be given a matrix). Within an advance it
 * moves linearly from its last pose to the new one. The simulation's cloth or skin never crosses
 * it: a barrier keeps them apart (Incremental Potential Contact, Li et al. 2020) and continuous
 * collision detection filters every step. Colliders belong to the simulation (freed with it). */
typedef struct tf_collider_def {
  uint32_t struct_size; /* first field, always; set by tf_collider_def_init */
  uint32_t vert_count;
  const double *positions; /* (vert_count x 3), m: the first pose, and the pose
                                tf_sim_transform_collider transforms */
  uint32_t tri_count;
  const uint32_t *triangles; /* (tri_count x 3), numbered from the simulation's index_base */
  double thickness;          /* m, [0, 0.1], default 0.001: added to the simulation's thickness */
  double friction;           /* [0, 10], default 0.5 */
  uint32_t one_sided;        /* 1: a closed surface with outward normals: vertices found inside
                                it are pushed out (see tf_stats.intersecting); default 0 */
} tf_collider_def;
TF_API void tf_collider_def_init_(tf_collider_def *def, uint32_t struct_size);
#define tf_collider_def_init(def) tf_collider_def_init_((def), (uint32_t)sizeof *(def))
/* Add a collider at its def's pose; *out_id numbers it from 0. The def's arrays are copied. */
TF_API tf_status tf_sim_add_collider(tf_sim *sim, const tf_collider_def *def, uint32_t *out_id);
/* The collider's pose at the end of the next advance: positions (vert_count x 3), m. */
TF_API tf_status tf_sim_move_collider(tf_sim *sim, uint32_t id, const double *positions,
                                      uint32_t vert_count);
/* The same from a rigid (or any affine) transform of the def's positions: matrix (16) row-major,
 * p' = M p with the translation in matrix[3], matrix[7], matrix[11]; the last row 0 0 0 1. */
TF_API tf_status tf_sim_transform_collider(tf_sim *sim, uint32_t id, const double matrix[16]);
/* Change a collider's thickness (m) and friction, as in its def (keyable). */
TF_API tf_status tf_sim_set_collider(tf_sim *sim, uint32_t id, double thickness, double friction);
/* 1.6: the surface's own crossings in the current state: edges (v, w) through triangles t that
 * share no vertex with them (a garment modelled through itself). *out_count gets the count; the
 * first capacity crossings go to out_triples as (v, w, t) (Nullable when capacity is 0), numbered
 * from index_base (t: the triangle's index in the def, or tf_sim_get_triangles for flesh). With
 * self-contact on, such vertices are left out of it until they come apart (not pushed apart). */
TF_API tf_status tf_sim_self_intersections(tf_sim *sim, uint32_t *out_triples, uint32_t capacity,
                                           uint32_t *out_count);
/* Colliders added so far. */
TF_API uint32_t tf_sim_collider_count(const tf_sim *sim);

/* Flesh: the embedded render surface (0 vertices if none) and its deformed positions. */
TF_API uint32_t tf_sim_surface_vert_count(const tf_sim *sim);
TF_API tf_status tf_sim_get_surface_positions(const tf_sim *sim, double *out_positions,
                                              uint32_t surface_vert_count);

/* Flesh: what the tet mesh is and how the body is doing. */
typedef struct tf_flesh_info {
  uint32_t struct_size; /* set by the caller: sizeof(tf_flesh_info) */
  uint32_t tet_count, vert_count, boundary_face_count;
  double min_dihedral_deg, max_dihedral_deg; /* at rest */
  uint32_t inverted_rest;      /* tets flat or inverted at rest (0 for a usable mesh) */
  uint32_t inverted_now;       /* tets inverted in the current shape */
  double rest_volume, volume;  /* m^3: at rest, now */
  double mass;                 /* kg */
  uint32_t surface_outside;    /* render-surface points outside every tet (extrapolated) */
  double surface_worst_weight; /* their most negative barycentric weight (0 if none) */
  /* 1.9: the simulation's nodes: vert_count, plus one per edge for TF_TET_QUADRATIC */
  uint32_t node_count;
  tf_tet_element element;
} tf_flesh_info;
TF_API tf_status tf_sim_flesh_info(const tf_sim *sim, tf_flesh_info *out_info);

/* Per-advance statistics (the last tf_sim_advance). */
typedef struct tf_stats {
  uint32_t struct_size;       /* set by the caller: sizeof(tf_stats) */
  uint32_t steps;             /* substeps taken */
  uint32_t newton_iterations; /* summed over substeps */
  uint32_t cg_iterations;     /* summed over substeps and Newton iterations */
  uint32_t max_newton_per_step;
  uint32_t unconverged_steps; /* steps that hit max_newton or whose solve broke down (the iterate
                                  still lowered the energy), plus a step that failed its check */
  double residual;            /* last step: convergence measure / tolerance, <= 1 when converged;
                                  inf when the advance failed and was rolled back */
  double seconds;             /* wall time of the advance */
  uint64_t total_steps;       /* since create */
  /* 1.5: contact, over the last advance */
  uint32_t contacts;          /* contact pairs below the gap at the end of the advance */
  uint32_t broad_pairs;       /* candidate pairs of the broad phase, largest over the substeps */
  uint32_t ccd_cuts;          /* Newton steps shortened by the CCD filter */
  uint32_t intersecting;      /* vertices inside a one-sided collider or below the ground at the
                                  start of the advance (pushed out over the next frames), and
                                  (1.6) vertices of the surface's own crossings, left out of
                                  self-contact (tf_sim_self_intersections) */
  uint32_t contact_growths;   /* times the contact storage grew (allocations) since create */
  uint32_t collider_substeps; /* extra substeps taken because a collider moved too fast to follow */
  double min_distance;        /* m, smallest contact distance at the end of a substep; inf: none */
  double contact_seconds;     /* wall time in broad phase, distances and CCD */
  /* 1.6: self-contact (TF_PARAM_SELF_CONTACT), over the last advance */
  uint32_t self_pairs;    /* self candidate pairs, largest over the substeps (in broad_pairs) */
  uint32_t self_excluded; /* self candidates left out: closer than the gap in the rest shape */
  double self_seconds;    /* wall time finding self candidates (part of contact_seconds) */
  /* 1.10 */
  uint32_t threads; /* the simulation's threads (tf_cloth_def.threads resolved: 0 = every core) */
} tf_stats;
TF_API tf_status tf_sim_get_stats(const tf_sim *sim, tf_stats *out_stats);

/* Current pin targets (those of the next tf_sim_advance). out_targets: (count x 3), count = pin
 * count. */
TF_API tf_status tf_sim_get_pin_targets(const tf_sim *sim, double *out_targets, uint32_t count);

/* ---------------------------------------------------------------------------------------------
 * Rig scripts from C. A rig is a Lua file (see lua/tauform/rig.lua) that builds a simulation and
 * animates its parameters and pins over frames. The library runs it in a Lua state of its own
 * (Lua 5.4, through libtauform_rig.so next to this library, loaded on the first tf_rig_load), so
 * a host that knows no Lua can drive rigs. */

typedef struct tf_rig tf_rig; /* opaque */

typedef struct tf_rig_def {
  uint32_t struct_size; /* first field, always; set by tf_rig_def_init */
  const char *path;     /* rig file; or NULL with source set */
  const char *source;   /* Nullable: rig source text instead of a file */
  const char *name;     /* Nullable: name for source text in messages, default "rig" */
} tf_rig_def;

TF_API void tf_rig_def_init_(tf_rig_def *def, uint32_t struct_size);
#define tf_rig_def_init(def) tf_rig_def_init_((def), (uint32_t)sizeof *(def))
/* Load a rig and create its simulation at the rig's first frame (that frame's parameters, pinned
 * vertices at their targets): read it, then tf_rig_apply(frame) and advance for each later frame.
 * On failure errbuf (Nullable) gets the message, with file:line for errors in the script. */
TF_API tf_status tf_rig_load(const tf_rig_def *def, tf_rig **out_rig, char *errbuf,
                             size_t errbuf_size);
TF_API void tf_rig_destroy(tf_rig *rig); /* NULL is a no-op; destroys the rig's simulation */
/* The rig's simulation (owned by the rig): read positions etc. through the tf_sim_* calls. A rig
 * is Lua, so its simulation's messages number vertices and pins from 1 (index_base 1). */
TF_API tf_sim *tf_rig_sim(tf_rig *rig);
/* Set every parameter and pin target the rig defines for `frame` (call before advancing to it).
 * A script error returns TF_E_SCRIPT with "file:line: message" in tf_rig_last_error and leaves
 * the simulation's parameters and pin targets as they were. */
TF_API tf_status tf_rig_apply(tf_rig *rig, double frame);
/* The rig's frame range, frame rate and substeps. All outputs Nullable. */
TF_API tf_status tf_rig_timing(const tf_rig *rig, double *out_first, double *out_last,
                               double *out_fps, uint32_t *out_substeps);
TF_API const char *tf_rig_last_error(const tf_rig *rig);

/* Settle time as a knob: the tau with which the slowest deformation mode of the pinned cloth,
 * about its static equilibrium under the current gravity and pin targets, decays by 100x in
 * settle_time seconds when stepped with steps of dt seconds (frame time / substeps), for kappa = 0
 * (with kappa > 0 the mode oscillates and settles later). Does not change the simulation: set
 * TF_PARAM_TAU to the result. out_lambda Nullable: that mode's
 * eigenvalue of M^-1 K (1/s^2). Recompute when pins, stiffness or loads change much. */
TF_API tf_status tf_sim_settle_tau(tf_sim *sim, double settle_time, double dt, double *out_tau,
                                   double *out_lambda);

/* What a recorded settling achieved: from distances-to-rest d(t) (any norm, e.g. |x - x_rest|),
 * the time after which d stays below 1 % of d(t_0), the decay rate of the tail (log-linear fit
 * between 10 % and 1 %) and the tau that rate means for a mode of eigenvalue lambda stepped at dt
 * (lambda 0: not computed). */
typedef struct tf_settle_report {
  double settle_time; /* s, relative to times[0]; < 0 if d never stays below 1 % */
  double rate;        /* 1/s, of the tail; 0 if too few samples in it */
  double tau;         /* s, effective: (exp(rate dt) - 1) / (dt lambda) */
} tf_settle_report;
TF_API tf_status tf_measure_settle(const double *times, const double *distances, uint32_t count,
                                   double lambda, double dt, tf_settle_report *out);

/* ---------------------------------------------------------------------------------------------
 * Pictures: a small software rasterizer writes PNG previews of a simulation (shaded two-sided
 * triangles, optional wireframe, pins marked), so a headless farm job leaves something to look at.
 */

typedef struct tf_render_def {
  uint32_t struct_size;   /* first field, always; set by tf_render_def_init */
  uint32_t width, height; /* px, default 800 x 600 */
  double view[3]; /* direction from the mesh towards the camera when it frames the mesh, default {1,
                     -1.5, 0.8} */
  double eye[3];  /* m; with target: a fixed camera instead of framing (used when eye != target) */
  double target[3]; /* m */
  double up[3];     /* default {0, 0, 1}: Z up */
  double fov_deg;   /* vertical field of view, default 35 */
  int wireframe;    /* default 1 */
  int show_pins;    /* default 1 */
} tf_render_def;

TF_API void tf_render_def_init_(tf_render_def *def, uint32_t struct_size);
#define tf_render_def_init(def) tf_render_def_init_((def), (uint32_t)sizeof *(def))
/* Render the simulation's current shape to a PNG file. def Nullable (defaults). A flesh
 * simulation with an embedded surface that has triangles shows that surface (pins not marked),
 * otherwise the boundary of its tets. */
TF_API tf_status tf_sim_render_png(tf_sim *sim, const tf_render_def *def, const char *path);
/* A contact sheet: the simulation's mesh at several recorded shapes (frames[k]: (vert_count x 3)
 * m), `columns` per row, all framed by one camera, as one PNG (each tile width x height). */
TF_API tf_status tf_sim_render_sheet_png(tf_sim *sim, const tf_render_def *def,
                                         const double *const *frames, uint32_t frame_count,
                                         uint32_t columns, const char *path);

/* ---------------------------------------------------------------------------------------------
 * Traditional damping (Young 2007 sec. 4.2.1): strain-rate damping parameters (phi, psi) that
 * critically damp waves of wavelength `wavelength` (m) in a material with Lame parameters lambda,
 * mu (N/m) and density rho (kg/m^2), eqs. 4.25 and 4.28. Reproduces the thesis's Table 4.2.
 * TF_E_UNSUPPORTED (with phi = 0) when lambda < 2 mu: both waves cannot be critically damped. */
TF_API tf_status tf_critical_damping(double lambda, double mu, double rho, double wavelength,
                                     double *out_phi, double *out_psi);

/* ---------------------------------------------------------------------------------------------
 * Plugin entry point: a host dlopen()s the library, dlsym()s "tf_get_api" and calls it with the
 * ABI major it was compiled against. Returns NULL if the library cannot serve that major. The
 * table only grows at the end; check struct_size before using a newer member. */
typedef struct tf_api {
  uint32_t struct_size;
  uint32_t version;
  uint32_t (*version_fn)(void);
  const char *(*status_name)(tf_status s);
  void (*cloth_def_init_)(tf_cloth_def *def, uint32_t struct_size);
  tf_status (*cloth_create)(const tf_cloth_def *def, tf_sim **out_sim, char *errbuf,
                            size_t errbuf_size);
  void (*sim_destroy)(tf_sim *sim);
  const char *(*sim_last_error)(const tf_sim *sim);
  tf_status (*sim_set_param)(tf_sim *sim, tf_param param, const double *values, uint32_t count);
  tf_status (*sim_get_param)(const tf_sim *sim, tf_param param, double *out_values, uint32_t count);
  tf_status (*sim_set_param_map)(tf_sim *sim, tf_param param, const double *values,
                                 uint32_t vert_count);
  tf_status (*sim_set_pins)(tf_sim *sim, const uint32_t *indices, const double *weights,
                            uint32_t count);
  tf_status (*sim_set_pin_targets)(tf_sim *sim, const double *targets, uint32_t count);
  tf_status (*sim_advance)(tf_sim *sim, double frame_dt, uint32_t substeps);
  tf_status (*sim_set_state)(tf_sim *sim, const double *positions, const double *velocities,
                             uint32_t vert_count);
  uint32_t (*sim_vert_count)(const tf_sim *sim);
  tf_status (*sim_get_positions)(const tf_sim *sim, double *out_positions, uint32_t vert_count);
  tf_status (*sim_get_positions_f)(const tf_sim *sim, float *out_positions, uint32_t vert_count);
  tf_status (*sim_get_velocities)(const tf_sim *sim, double *out_velocities, uint32_t vert_count);
  tf_status (*sim_get_normals)(const tf_sim *sim, double *out_normals, uint32_t vert_count);
  tf_status (*sim_get_forces)(const tf_sim *sim, double *out_forces, uint32_t vert_count);
  tf_status (*sim_get_energy)(const tf_sim *sim, double *out_energy);
  tf_status (*sim_get_stats)(const tf_sim *sim, tf_stats *out_stats);
  tf_status (*critical_damping)(double lambda, double mu, double rho, double wavelength,
                                double *out_phi, double *out_psi);
  const char *(*status_message)(tf_status s);
  const char *(*version_string)(void);
  tf_status (*sim_get_pin_targets)(const tf_sim *sim, double *out_targets, uint32_t count);
  void (*rig_def_init_)(tf_rig_def *def, uint32_t struct_size);
  tf_status (*rig_load)(const tf_rig_def *def, tf_rig **out_rig, char *errbuf, size_t errbuf_size);
  void (*rig_destroy)(tf_rig *rig);
  tf_sim *(*rig_sim)(tf_rig *rig);
  tf_status (*rig_apply)(tf_rig *rig, double frame);
  tf_status (*rig_timing)(const tf_rig *rig, double *out_first, double *out_last, double *out_fps,
                          uint32_t *out_substeps);
  const char *(*rig_last_error)(const tf_rig *rig);
  void (*render_def_init_)(tf_render_def *def, uint32_t struct_size);
  tf_status (*sim_render_png)(tf_sim *sim, const tf_render_def *def, const char *path);
  tf_status (*sim_render_sheet_png)(tf_sim *sim, const tf_render_def *def,
                                    const double *const *frames, uint32_t frame_count,
                                    uint32_t columns, const char *path);
  tf_status (*sim_settle_tau)(tf_sim *sim, double settle_time, double dt, double *out_tau,
                              double *out_lambda);
  tf_status (*measure_settle)(const double *times, const double *distances, uint32_t count,
                              double lambda, double dt, tf_settle_report *out);
  tf_status (*param_check)(tf_param param, const double *values, uint32_t count, char *errbuf,
                           size_t errbuf_size);
  void (*flesh_def_init_)(tf_flesh_def *def, uint32_t struct_size);
  tf_status (*flesh_create)(const tf_flesh_def *def, tf_sim **out_sim, char *errbuf,
                            size_t errbuf_size);
  tf_status (*tetmesh_load)(const char *path, tf_tetmesh **out_mesh, char *errbuf,
                            size_t errbuf_size);
  tf_status (*tetmesh_get)(const tf_tetmesh *mesh, tf_tetmesh_view *out_view);
  const char *(*tetmesh_region_name)(const tf_tetmesh *mesh, int32_t region);
  void (*tetmesh_destroy)(tf_tetmesh *mesh);
  tf_status (*sim_get_rest_positions)(const tf_sim *sim, double *out_positions,
                                      uint32_t vert_count);
  uint32_t (*sim_surface_vert_count)(const tf_sim *sim);
  tf_status (*sim_get_surface_positions)(const tf_sim *sim, double *out_positions,
                                         uint32_t surface_vert_count);
  tf_status (*sim_flesh_info)(const tf_sim *sim, tf_flesh_info *out_info);
  tf_status (*sim_check_param)(tf_sim *sim, tf_param param, const double *values, uint32_t count);
  /* 1.2 */
  uint32_t (*sim_tri_count)(const tf_sim *sim);
  tf_status (*sim_get_triangles)(const tf_sim *sim, uint32_t *out_triangles, uint32_t tri_count);
  /* 1.4 */
  tf_status (*param_get_info)(tf_param param, tf_param_info *out);
  /* 1.5 */
  void (*collider_def_init_)(tf_collider_def *def, uint32_t struct_size);
  tf_status (*sim_add_collider)(tf_sim *sim, const tf_collider_def *def, uint32_t *out_id);
  tf_status (*sim_move_collider)(tf_sim *sim, uint32_t id, const double *positions,
                                 uint32_t vert_count);
  tf_status (*sim_transform_collider)(tf_sim *sim, uint32_t id, const double matrix[16]);
  tf_status (*sim_set_collider)(tf_sim *sim, uint32_t id, double thickness, double friction);
  uint32_t (*sim_collider_count)(const tf_sim *sim);
  /* 1.6 */
  tf_status (*sim_self_intersections)(tf_sim *sim, uint32_t *out_triples, uint32_t capacity,
                                      uint32_t *out_count);
  /* 1.8 */
  size_t (*sim_state_size)(const tf_sim *sim);
  tf_status (*sim_save_state)(tf_sim *sim, void *buf, size_t size);
  tf_status (*sim_load_state)(tf_sim *sim, const void *buf, size_t size);
  /* 1.13 */
  tf_status (*sim_get_topology)(const tf_sim *sim, tf_topology *out);
  tf_status (*sim_get_vertex_origins)(const tf_sim *sim, uint32_t *out_origins,
                                      uint32_t vert_count);
  tf_status (*sim_get_vertex_parents)(const tf_sim *sim, uint32_t *out_parents,
                                      uint32_t vert_count);
  /* 1.14 */
  uint32_t (*sim_response_levels)(const tf_sim *sim, double *out_sizes, uint32_t capacity);
  tf_status (*sim_set_response)(tf_sim *sim, const double *percent, uint32_t count,
                                const uint32_t *vertices, uint32_t vertex_count);
  tf_status (*sim_get_response)(const tf_sim *sim, uint32_t vertex, double *out_percent,
                                uint32_t count);
  tf_status (*sim_set_forces)(tf_sim *sim, const double *forces, uint32_t vert_count);
  tf_status (*sim_get_masses)(const tf_sim *sim, double *out_masses, uint32_t vert_count);
} tf_api;

TF_API const tf_api *tf_get_api(uint32_t abi_major);

#ifdef __cplusplus
}
#endif

#endif /* TAUFORM_H */
