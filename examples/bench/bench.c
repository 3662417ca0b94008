/* SPDX-License-Identifier: MIT
 * tauform on the performance-anchor scenes CLOTH-N, SWING-N and DRAPE-N
 * (../shared/anchors/README.md): a 2 m x 2 m sheet of (N+1)^2 vertices, vertex (i, j) at index
 * j*(N+1)+i, each quad split along (i,j)-(i+1,j+1), top row j = 0 hard-pinned, 0.3 kg total as
 * 0.3/(N+1)^2 kg per vertex, gravity (0, 0, -9.81), starting at rest, 100 frames at 24 fps. CLOTH
 * hangs vertically in the x-z plane (pure in-plane load); SWING starts horizontal in the x-y plane
 * and falls, swings and settles. DRAPE: the same sheet unpinned, horizontal at z = 0.6, falls onto
 * a sphere of radius 0.5 at the origin (the anchors' triangle mesh icosphere3.obj as a collider)
 * above a ground plane z = -0.8, friction 0.3 on every contact; metrics of drape_metrics.py
 * (vertices inside the sphere, penetration, lowest z) every frame, and the frame-100 positions for
 * drape_metrics.py itself. Only the frames' tf_sim_advance calls are timed (wall and process CPU);
 * the metrics are those of the anchors (edge strain over the three edge families, lowest z, SWING's
 * free-corner z every 10 frames) plus the solver's Newton and CG iterations per step. Prints one
 * `RESULT {json}` line per case (the anchors' bench.py format) and a markdown table.
 *
 *   tauform_bench [--scene cloth|swing|drape] [--n 32] [--tau 1] [--kappa 0] [--substeps 1]
 *                 [--frames 100] [--stretch 5000] [--bend 1e-5] [--all]
 *                 [--collider PATH.obj] [--thickness 0.005] [--collider-thickness 0.01]
 *                 [--friction 0.3] [--positions FILE] [--self]
 */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tauform.h"
#include "kernels.h"
#include "path_offset.h"
#include "memory.h"

/* scene, fixed by the anchors */
static const double SHEET_SIZE = 2.0;    /* m, square side */
static const double SHEET_MASS = 0.3;    /* kg in total */
static const double GRAVITY_Z = -9.81;   /* m/s^2 */
static const double FPS = 24.0;          /* frames per second */
static const unsigned CORNER_EVERY = 10; /* frames between SWING free-corner samples */
static const unsigned ALL_SIZES[] = {32, 64, 128};
/* DRAPE, fixed by the anchors */
static const double DRAPE_Z = 0.6; /* m, the sheet's start height */
static const double SPHERE_R =
    0.5; /* m, the metric's sphere (the mesh's faces reach in to 0.4977) */
static const double GROUND_Z = -0.8;      /* m */
static const double DRAPE_FRICTION = 0.3; /* on every contact */
static const char *const DEFAULT_COLLIDER = "../shared/anchors/meshes/icosphere3.obj";

/* tauform settings, overridable from the command line */
static const double DEFAULT_TAU = 1.0; /* s */
static const double DEFAULT_KAPPA = 0.0;
static const double DEFAULT_STRETCH = 5000.0; /* N/m, 2D Young's modulus */
static const double DEFAULT_POISSON = 0.3;
static const double DEFAULT_BEND = 1e-5; /* N m */
static const unsigned DEFAULT_SUBSTEPS = 1;
static const unsigned DEFAULT_FRAMES = 100;
static const unsigned DEFAULT_N = 32;
static const unsigned MAX_N = 4096; /* (N+1)^2 x 3 doubles must fit comfortably */
/* DRAPE's contact settings: the gap to the sphere is thickness + collider thickness = 15 mm,
 * Blender's default cloth collision distance (distance_min 0.015); the ground's gap is the cloth's
 * thickness alone */
static const double DEFAULT_THICKNESS = 0.005;         /* m, the cloth's */
static const double DEFAULT_COLLIDER_THICKNESS = 0.01; /* m, the sphere's */

typedef enum scene_kind { SCENE_CLOTH = 0, SCENE_SWING = 1, SCENE_DRAPE = 2 } scene_kind;
enum { SCENE_KINDS = 3 };
static const char *const SCENE_NAME[] = {"CLOTH", "SWING", "DRAPE"};
static const char *const SCENE_ID[] = {"cloth", "swing", "drape"};

typedef struct bench_config {
  scene_kind scene;
  unsigned n;
  unsigned frames;
  unsigned substeps;
  double tau, kappa;
  double stretch, poisson, bend;
  unsigned max_newton; /* 0: the library's default */
  double tolerance;    /* 0: the library's default */
  int trace;           /* print one line per frame to stderr */
  /* DRAPE */
  const char *collider; /* OBJ of the sphere */
  double thickness, collider_thickness, friction;
  const char *positions;    /* Nullable: frame-100 positions for drape_metrics.py */
  int self_contact;         /* DRAPE-SELF: self-contact on (the cloth's thickness is its gap) */
  tf_bend_model bend_model; /* default TF_BEND_SHELL */
  unsigned threads;         /* the def's: 0 (default) every core */
  int kernels;              /* after the run: time each phase of a Newton iteration (kernels.c) */
  int springs;              /* TF_CLOTH_SPRINGS with shear and bend_springs (N/m) */
  double shear, bend_springs;
  unsigned path; /* 0: the sheet as given; k: every rest coordinate moved by up to 1e-12 m */
} bench_config;

/* DRAPE's contact numbers, summed or extremal over the frames */
typedef struct drape_stats {
  double contact_s;  /* tf_stats.contact_seconds, summed */
  double self_s;     /* tf_stats.self_seconds (part of contact_s), summed */
  uint64_t ccd_cuts; /* summed */
  uint32_t contacts_last, contacts_max, broad_pairs_max, contact_growths, collider_substeps;
  double min_distance;      /* m, smallest over the run (tf_stats.min_distance) */
  double min_distance_last; /* m, at the end of the last frame */
  unsigned inside_max;      /* most vertices inside r = 0.5 at the end of any frame */
  double penetration_max;   /* m, largest 0.5 - min |x| at the end of any frame */
  unsigned inside;          /* at the last frame */
  double min_dist, penetration;
  unsigned below_ground;
  unsigned sample_count; /* every CORNER_EVERY frames: lowest z, penetration */
  unsigned *sample_frame;
  double *sample_min_z, *sample_pen;
  unsigned sphere_verts, sphere_tris;
} drape_stats;

typedef struct bench_result {
  bench_config cfg;
  bench_memory mem; /* the library's bytes: at the end of set-up (live) and at most over the run */
  long long setup_bytes;
  unsigned verts, edges;
  double setup_s;       /* mesh build + tf_cloth_create + pins */
  double wall_s, cpu_s; /* summed over the frames' advances */
  double median_frame_s;
  uint64_t steps, newton, cg, unconverged;
  unsigned max_newton_per_step;
  int finite;
  double max_strain, mean_strain, min_z, max_abs_y;
  unsigned corner_count;
  unsigned *corner_frame; /* (corner_count) */
  double *corner_z;       /* (corner_count) m */
  drape_stats drape;
} bench_result;

/* edge (a, b) with its rest length */
typedef struct bench_edge {
  uint32_t a, b;
  double rest;
} bench_edge;

static double clock_seconds(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double dist3(const double *p, const double *q) {
  const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
  return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Grid of the anchors on path `path` (path_offset.h: every rest coordinate moved by up to 1e-12
 * m, as the tests' TF_PERTURB_SEED does; a contact run is chaotic in its last bits, so a change to
 * the solver is read over several paths). rest: ((n+1)^2 x 3), tris: (2 n^2 x 3), edges:
 * (2n(n+1) + n^2). */
static void build_sheet(scene_kind scene, unsigned n, unsigned path, double *rest, uint32_t *tris,
                        bench_edge *edges) {
  const unsigned n1 = n + 1;
  const double h = SHEET_SIZE / n;
  for (unsigned j = 0; j < n1; ++j) {
    for (unsigned i = 0; i < n1; ++i) {
      double *p = rest + 3 * (j * n1 + i);
      const double across = -0.5 * SHEET_SIZE + h * i, down = 0.5 * SHEET_SIZE - h * j;
      /* CLOTH hangs in x-z; SWING lies flat in x-y with the pinned row at y = +1; DRAPE lies
       * flat as SWING at z = 0.6 */
      p[0] = across;
      p[1] = scene == SCENE_CLOTH ? 0.0 : down;
      p[2] = scene == SCENE_CLOTH ? down : scene == SCENE_DRAPE ? DRAPE_Z : 0.0;
      for (int k = 0; k < 3; ++k) p[k] += path_offset(path, j * n1 + i, k);
    }
  }
  uint32_t *t = tris;
  for (unsigned j = 0; j < n; ++j) {
    for (unsigned i = 0; i < n; ++i) {
      const uint32_t a = j * n1 + i, b = a + 1, c = a + n1 + 1, d = a + n1;
      t[0] = a;
      t[1] = b;
      t[2] = c;
      t[3] = a;
      t[4] = c;
      t[5] = d;
      t += 6;
    }
  }
  bench_edge *e = edges;
  for (unsigned j = 0; j < n1; ++j) {
    for (unsigned i = 0; i < n1; ++i) {
      const uint32_t a = j * n1 + i;
      if (i < n) *e++ = (bench_edge){a, a + 1, 0.0};
      if (j < n) *e++ = (bench_edge){a, a + n1, 0.0};
      if (i < n && j < n) *e++ = (bench_edge){a, a + n1 + 1, 0.0};
    }
  }
  for (bench_edge *f = edges; f < e; ++f) f->rest = dist3(rest + 3 * f->a, rest + 3 * f->b);
}

/* A triangle mesh from an OBJ's `v` and `f` lines (faces of 3 vertices, 1-based, `f a/t/n` too).
 * Returns 0, or 1 after printing the error; *verts and *tris are malloc'ed, 0-based. */
static int load_obj(const char *path, double **verts, uint32_t *nv, uint32_t **tris, uint32_t *nt) {
  FILE *f = fopen(path, "r");
  *verts = NULL, *tris = NULL, *nv = *nt = 0;
  if (f == NULL) {
    fprintf(stderr, "tauform_bench: cannot open the collider %s (--collider)\n", path);
    return 1;
  }
  size_t vcap = 0, tcap = 0;
  char line[512];
  unsigned lineno = 0;
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
    ++lineno;
    if (line[0] == 'v' && line[1] == ' ') {
      double x, y, z;
      if (sscanf(line + 2, "%lf %lf %lf", &x, &y, &z) != 3)
        rc = 1;
      else {
        if (*nv == vcap) {
          vcap = vcap ? 2 * vcap : 1024;
          double *q = realloc(*verts, sizeof(double) * 3 * vcap);
          if (q == NULL) {
            rc = 1;
            break;
          }
          *verts = q;
        }
        double *p = *verts + 3 * (size_t)(*nv)++;
        p[0] = x, p[1] = y, p[2] = z;
      }
    } else if (line[0] == 'f' && line[1] == ' ') {
      long idx[3];
      char *c = line + 2;
      for (int k = 0; k < 3 && rc == 0; ++k) {
        char *end = NULL;
        idx[k] = strtol(c, &end, 10);
        if (end == c || idx[k] < 1) rc = 1;
        c = end;
        while (*c != '\0' && *c != ' ' && *c != '\t') ++c; /* skip /t/n */
      }
      if (rc == 0) {
        if (*nt == tcap) {
          tcap = tcap ? 2 * tcap : 2048;
          uint32_t *q = realloc(*tris, sizeof(uint32_t) * 3 * tcap);
          if (q == NULL) {
            rc = 1;
            break;
          }
          *tris = q;
        }
        uint32_t *t = *tris + 3 * (size_t)(*nt)++;
        for (int k = 0; k < 3; ++k) t[k] = (uint32_t)(idx[k] - 1);
      }
    }
  }
  fclose(f);
  for (uint32_t k = 0; rc == 0 && k < 3 * *nt; ++k)
    if ((*tris)[k] >= *nv) rc = 1;
  if (rc == 0 && (*nv == 0 || *nt == 0)) rc = 1;
  if (rc != 0) {
    fprintf(stderr, "tauform_bench: %s: not a triangle mesh (line %u)\n", path, lineno);
    free(*verts), free(*tris);
    *verts = NULL, *tris = NULL;
  }
  return rc;
}

/* drape_metrics.py's sphere_stats: vertices with |x| < 0.5, and 0.5 - min |x| */
static void sphere_stats(const double *pos, unsigned nv, unsigned *inside, double *min_dist) {
  *inside = 0;
  *min_dist = INFINITY;
  for (unsigned v = 0; v < nv; ++v) {
    const double *p = pos + 3 * v;
    const double d = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    if (d < SPHERE_R) ++*inside;
    if (d < *min_dist) *min_dist = d;
  }
}

/* Print a failed tauform call with the sim's own message. Returns 1. */
static int report(const tf_sim *sim, const bench_config *cfg, const char *call, unsigned frame,
                  tf_status s) {
  fprintf(stderr, "tauform_bench: %s-%u: %s", SCENE_NAME[cfg->scene], cfg->n, call);
  if (frame > 0) fprintf(stderr, " (frame %u)", frame);
  fprintf(stderr, " failed: %s: %s\n", tf_status_name(s),
          sim != NULL ? tf_sim_last_error(sim) : "");
  return 1;
}

/* Runs one case into *r (whose cfg is set). Returns 0, or 1 after printing the error. */
static int run_case(bench_result *r) {
  const bench_config *cfg = &r->cfg;
  const unsigned n = cfg->n, n1 = n + 1;
  const unsigned nv = n1 * n1, nt = 2 * n * n, ne = 2 * n * n1 + n * n;
  r->verts = nv;
  r->edges = ne;

  int rc = 1;
  tf_sim *sim = NULL;
  double *rest = malloc(sizeof(double) * 3 * nv);
  double *pos = malloc(sizeof(double) * 3 * nv);
  double *masses = malloc(sizeof(double) * nv);
  uint32_t *tris = malloc(sizeof(uint32_t) * 3 * nt);
  uint32_t *pins = malloc(sizeof(uint32_t) * n1);
  bench_edge *edges = malloc(sizeof(bench_edge) * ne);
  double *frame_s = malloc(sizeof(double) * cfg->frames);
  r->corner_frame = malloc(sizeof(unsigned) * (cfg->frames / CORNER_EVERY + 1));
  r->corner_z = malloc(sizeof(double) * (cfg->frames / CORNER_EVERY + 1));
  drape_stats *ds = &r->drape;
  ds->sample_frame = malloc(sizeof(unsigned) * (cfg->frames / CORNER_EVERY + 1));
  ds->sample_min_z = malloc(sizeof(double) * (cfg->frames / CORNER_EVERY + 1));
  ds->sample_pen = malloc(sizeof(double) * (cfg->frames / CORNER_EVERY + 1));
  double *sphere_v = NULL;
  uint32_t *sphere_t = NULL;
  if (ds->sample_frame == NULL || ds->sample_min_z == NULL || ds->sample_pen == NULL) {
    fprintf(stderr, "tauform_bench: out of memory for N = %u\n", n);
    goto done;
  }
  if (rest == NULL || pos == NULL || masses == NULL || tris == NULL || pins == NULL ||
      edges == NULL || frame_s == NULL || r->corner_frame == NULL || r->corner_z == NULL) {
    fprintf(stderr, "tauform_bench: out of memory for N = %u\n", n);
    goto done;
  }

  const double t_setup = clock_seconds(CLOCK_MONOTONIC);
  build_sheet(cfg->scene, n, cfg->path, rest, tris, edges);
  /* the scene's uniform lumped mass; pinned vertices get theirs too (the API needs > 0) */
  for (unsigned v = 0; v < nv; ++v) masses[v] = SHEET_MASS / nv;

  tf_cloth_def def;
  tf_cloth_def_init(&def);
  def.rest_positions = rest;
  def.vert_count = nv;
  def.triangles = tris;
  def.tri_count = nt;
  def.vertex_masses = masses;
  def.stretch_stiffness = cfg->stretch;
  if (cfg->springs) {
    def.cloth_model = TF_CLOTH_SPRINGS;
    def.shear_stiffness = cfg->shear;
    def.bend_spring_stiffness = cfg->bend_springs;
  } else {
    def.poisson = cfg->poisson;
    def.bend_stiffness = cfg->bend;
    def.bend_model = cfg->bend_model;
  }
  def.gravity[0] = 0.0;
  def.gravity[1] = 0.0;
  def.gravity[2] = GRAVITY_Z;
  def.integrator = TF_INTEGRATOR_TAU;
  def.tau = cfg->tau;
  def.kappa = cfg->kappa;
  if (cfg->max_newton > 0) def.solver.max_newton = cfg->max_newton;
  if (cfg->tolerance > 0.0) def.solver.tolerance = cfg->tolerance;
  def.threads = cfg->threads;
  def.allocator = bench_counting_allocator(&r->mem);
  char errbuf[256] = "";
  tf_status s = tf_cloth_create(&def, &sim, errbuf, sizeof errbuf);
  if (s != TF_OK) {
    fprintf(stderr, "tauform_bench: %s-%u: tf_cloth_create failed: %s: %s\n",
            SCENE_NAME[cfg->scene], n, tf_status_name(s), errbuf);
    goto done;
  }
  if (cfg->scene != SCENE_DRAPE) {
    /* the whole top row j = 0, hard; its targets stay at the rest positions */
    for (uint32_t i = 0; i < n1; ++i) pins[i] = i;
    if ((s = tf_sim_set_pins(sim, pins, NULL, n1)) != TF_OK) {
      rc = report(sim, cfg, "tf_sim_set_pins", 0, s);
      goto done;
    }
  } else {
    /* nothing pinned; the sphere (static: never moved), the ground, friction 0.3 on both */
    uint32_t snv, snt, id;
    if (load_obj(cfg->collider, &sphere_v, &snv, &sphere_t, &snt) != 0) goto done;
    ds->sphere_verts = snv;
    ds->sphere_tris = snt;
    tf_collider_def cdef;
    tf_collider_def_init(&cdef);
    cdef.vert_count = snv;
    cdef.positions = sphere_v;
    cdef.tri_count = snt;
    cdef.triangles = sphere_t;
    cdef.thickness = cfg->collider_thickness;
    cdef.friction = cfg->friction;
    cdef.one_sided = 1; /* a closed body with outward faces */
    if ((s = tf_sim_add_collider(sim, &cdef, &id)) != TF_OK) {
      rc = report(sim, cfg, "tf_sim_add_collider", 0, s);
      goto done;
    }
    const double normal[3] = {0.0, 0.0, 1.0}, height = GROUND_Z;
    if ((s = tf_sim_set_param(sim, TF_PARAM_THICKNESS, &cfg->thickness, 1)) != TF_OK ||
        (s = tf_sim_set_param(sim, TF_PARAM_FRICTION, &cfg->friction, 1)) != TF_OK ||
        (s = tf_sim_set_param(sim, TF_PARAM_GROUND_NORMAL, normal, 3)) != TF_OK ||
        (s = tf_sim_set_param(sim, TF_PARAM_GROUND_HEIGHT, &height, 1)) != TF_OK ||
        (s = tf_sim_set_param(sim, TF_PARAM_GROUND_FRICTION, &cfg->friction, 1)) != TF_OK ||
        (cfg->self_contact &&
         (s = tf_sim_set_param(sim, TF_PARAM_SELF_CONTACT, &(double){1.0}, 1)) != TF_OK)) {
      rc = report(sim, cfg, "tf_sim_set_param (contact)", 0, s);
      goto done;
    }
    ds->min_distance = INFINITY;
  }
  r->setup_s = clock_seconds(CLOCK_MONOTONIC) - t_setup;
  r->setup_bytes = r->mem.live;

  const double frame_dt = 1.0 / FPS;
  const uint32_t corner = n * n1 + n; /* free corner (i = N, j = N) */
  r->corner_count = 0;
  for (unsigned frame = 1; frame <= cfg->frames; ++frame) {
    const double w0 = clock_seconds(CLOCK_MONOTONIC), c0 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    s = tf_sim_advance(sim, frame_dt, cfg->substeps);
    const double c1 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID), w1 = clock_seconds(CLOCK_MONOTONIC);
    if (s != TF_OK) {
      rc = report(sim, cfg, "tf_sim_advance", frame, s);
      goto done;
    }
    frame_s[frame - 1] = w1 - w0;
    r->wall_s += w1 - w0;
    r->cpu_s += c1 - c0;

    /* bookkeeping outside the timed region */
    tf_stats st;
    memset(&st, 0, sizeof st);
    st.struct_size = (uint32_t)sizeof st;
    if ((s = tf_sim_get_stats(sim, &st)) != TF_OK) {
      rc = report(sim, cfg, "tf_sim_get_stats", frame, s);
      goto done;
    }
    r->steps += st.steps;
    r->newton += st.newton_iterations;
    r->cg += st.cg_iterations;
    r->unconverged += st.unconverged_steps;
    if (st.max_newton_per_step > r->max_newton_per_step)
      r->max_newton_per_step = st.max_newton_per_step;
    if (cfg->scene == SCENE_DRAPE) {
      /* the sphere metrics at every frame's end (the anchors sample every 10th) */
      if ((s = tf_sim_get_positions(sim, pos, nv)) != TF_OK) {
        rc = report(sim, cfg, "tf_sim_get_positions", frame, s);
        goto done;
      }
      unsigned inside;
      double dmin, zmin = INFINITY;
      sphere_stats(pos, nv, &inside, &dmin);
      for (unsigned v = 0; v < nv; ++v) zmin = fmin(zmin, pos[3 * v + 2]);
      if (inside > ds->inside_max) ds->inside_max = inside;
      if (frame == 1 || SPHERE_R - dmin > ds->penetration_max)
        ds->penetration_max = SPHERE_R - dmin;
      ds->contact_s += st.contact_seconds;
      ds->self_s += st.self_seconds;
      ds->ccd_cuts += st.ccd_cuts;
      ds->contacts_last = st.contacts;
      ds->min_distance_last = st.min_distance;
      if (st.contacts > ds->contacts_max) ds->contacts_max = st.contacts;
      if (st.broad_pairs > ds->broad_pairs_max) ds->broad_pairs_max = st.broad_pairs;
      ds->contact_growths = st.contact_growths;
      ds->collider_substeps += st.collider_substeps;
      if (st.min_distance < ds->min_distance) ds->min_distance = st.min_distance;
      if (frame % CORNER_EVERY == 0) {
        ds->sample_frame[ds->sample_count] = frame;
        ds->sample_min_z[ds->sample_count] = zmin;
        ds->sample_pen[ds->sample_count] = SPHERE_R - dmin;
        ds->sample_count++;
      }
      if (cfg->trace)
        fprintf(stderr,
                "frame %3u  %8.2f ms  newton %3u  cg %5u  contact %6.2f ms  contacts %5u  "
                "pairs %6u (self %6u)  ccd cuts %3u  min dist %.2e m  lowest z %+.4f  penetration "
                "%+.4f\n",
                frame, 1000.0 * (w1 - w0), (unsigned)st.newton_iterations,
                (unsigned)st.cg_iterations, 1000.0 * st.contact_seconds, (unsigned)st.contacts,
                (unsigned)st.broad_pairs, (unsigned)st.self_pairs, (unsigned)st.ccd_cuts,
                st.min_distance, zmin, SPHERE_R - dmin);
    } else if (cfg->trace) {
      if ((s = tf_sim_get_positions(sim, pos, nv)) != TF_OK) {
        rc = report(sim, cfg, "tf_sim_get_positions", frame, s);
        goto done;
      }
      fprintf(stderr, "frame %3u  %8.2f ms  newton %3u  cg %4u  corner %+.5f %+.5f %+.5f\n", frame,
              1000.0 * (w1 - w0), (unsigned)st.newton_iterations, (unsigned)st.cg_iterations,
              pos[3 * corner], pos[3 * corner + 1], pos[3 * corner + 2]);
    }
    if (cfg->scene == SCENE_SWING && frame % CORNER_EVERY == 0) {
      if ((s = tf_sim_get_positions(sim, pos, nv)) != TF_OK) {
        rc = report(sim, cfg, "tf_sim_get_positions", frame, s);
        goto done;
      }
      r->corner_frame[r->corner_count] = frame;
      r->corner_z[r->corner_count] = pos[3 * corner + 2];
      r->corner_count++;
    }
  }
  qsort(frame_s, cfg->frames, sizeof(double), cmp_double);
  r->median_frame_s = frame_s[cfg->frames / 2];

  /* metrics at the last frame */
  if ((s = tf_sim_get_positions(sim, pos, nv)) != TF_OK) {
    rc = report(sim, cfg, "tf_sim_get_positions", 0, s);
    goto done;
  }
  r->finite = 1;
  r->min_z = INFINITY;
  r->max_abs_y = 0.0;
  for (unsigned v = 0; v < 3 * nv; ++v) r->finite &= isfinite(pos[v]) != 0;
  for (unsigned v = 0; v < nv; ++v) {
    if (pos[3 * v + 2] < r->min_z) r->min_z = pos[3 * v + 2];
    if (fabs(pos[3 * v + 1]) > r->max_abs_y) r->max_abs_y = fabs(pos[3 * v + 1]);
  }
  double sum = 0.0;
  r->max_strain = 0.0;
  for (unsigned k = 0; k < ne; ++k) {
    const double strain =
        fabs(dist3(pos + 3 * edges[k].a, pos + 3 * edges[k].b) / edges[k].rest - 1.0);
    sum += strain;
    if (strain > r->max_strain) r->max_strain = strain;
  }
  r->mean_strain = sum / ne;
  if (cfg->scene == SCENE_DRAPE) {
    sphere_stats(pos, nv, &ds->inside, &ds->min_dist);
    ds->penetration = SPHERE_R - ds->min_dist;
    ds->below_ground = 0;
    for (unsigned v = 0; v < nv; ++v) ds->below_ground += pos[3 * v + 2] < GROUND_Z;
    if (cfg->positions != NULL) {
      /* drape_metrics.py --positions: one "x y z" line per vertex, in the anchors' order */
      FILE *f = fopen(cfg->positions, "w");
      int bad = f == NULL;
      for (unsigned v = 0; !bad && v < nv; ++v)
        bad = fprintf(f, "%.17g %.17g %.17g\n", pos[3 * v], pos[3 * v + 1], pos[3 * v + 2]) < 0;
      if (f != NULL && fclose(f) != 0) bad = 1;
      if (bad) {
        fprintf(stderr, "tauform_bench: cannot write %s (--positions)\n", cfg->positions);
        goto done;
      }
    }
  }
  if (cfg->kernels) {
    char title[64];
    snprintf(title, sizeof title, "%s-%u", SCENE_NAME[cfg->scene], n);
    kernels_report(sim, title);
  }
  rc = 0;

done:
  free(sphere_v);
  free(sphere_t);
  tf_sim_destroy(sim);
  free(frame_s);
  free(edges);
  free(pins);
  free(tris);
  free(masses);
  free(pos);
  free(rest);
  return rc;
}

static void result_free(bench_result *r) {
  free(r->corner_frame);
  free(r->corner_z);
  free(r->drape.sample_frame);
  free(r->drape.sample_min_z);
  free(r->drape.sample_pen);
  r->corner_frame = NULL;
  r->corner_z = NULL;
  r->drape.sample_frame = NULL;
  r->drape.sample_min_z = NULL;
  r->drape.sample_pen = NULL;
}

/* JSON has no NaN or infinity: those become null */
static void json_number(double v) {
  if (isfinite(v))
    printf("%.6g", v);
  else
    printf("null");
}

static void print_result_json(const bench_result *r) {
  const bench_config *c = &r->cfg;
  const double per_step = r->steps > 0 ? 1.0 / (double)r->steps : 0.0;
  printf(
      "RESULT {\"system\": \"tauform-%s\", \"threads\": %u, \"scene\": \"%s-%u\", \"n\": %u, "
      "\"path\": %u, \"verts\": %u, "
      "\"edges\": %u, \"integrator\": \"tau\", \"tau\": %g, \"kappa\": %g, \"substeps\": %u, "
      "\"stretch_stiffness\": %g, \"poisson\": %g, \"bend_stiffness\": %g, "
      "\"mass_per_vertex\": %.6g, \"frames\": %u, \"setup_s\": %.4f, \"seconds\": %.6f, "
      "\"ms_per_frame\": %.4f, \"ms_median_frame\": %.4f, \"cpu_ms_per_frame\": %.4f, "
      "\"steps\": %llu, \"newton_per_step\": %.4f, \"cg_per_step\": %.4f, "
      "\"max_newton_per_step\": %u, \"newton_budget\": %u, \"unconverged_steps\": %llu, "
      "\"finite\": %s, \"library_setup_mb\": %.2f, \"library_peak_mb\": %.2f, ",
      tf_version_string(), c->threads, SCENE_NAME[c->scene], c->n, c->n, c->path, r->verts,
      r->edges, c->tau, c->kappa, c->substeps, c->stretch, c->poisson, c->bend,
      SHEET_MASS / r->verts, c->frames, r->setup_s, r->wall_s, 1000.0 * r->wall_s / c->frames,
      1000.0 * r->median_frame_s, 1000.0 * r->cpu_s / c->frames, (unsigned long long)r->steps,
      (double)r->newton * per_step, (double)r->cg * per_step, r->max_newton_per_step,
      c->max_newton ? c->max_newton : 20u, (unsigned long long)r->unconverged,
      r->finite ? "true" : "false", r->setup_bytes / 1e6, r->mem.peak / 1e6);
  printf("\"max_strain\": ");
  json_number(r->finite ? r->max_strain : NAN);
  printf(", \"mean_strain\": ");
  json_number(r->finite ? r->mean_strain : NAN);
  printf(", \"min_z\": ");
  json_number(r->finite ? r->min_z : NAN);
  printf(", \"max_abs_y\": ");
  json_number(r->finite ? r->max_abs_y : NAN);
  if (c->scene == SCENE_SWING) {
    printf(", \"corner_z\": [");
    for (unsigned k = 0; k < r->corner_count; ++k) {
      printf("%s[%u, ", k > 0 ? ", " : "", r->corner_frame[k]);
      json_number(r->corner_z[k]);
      printf("]");
    }
    printf("]");
  }
  if (c->scene == SCENE_DRAPE) {
    const drape_stats *d = &r->drape;
    printf(
        ", \"collider\": \"%s\", \"collider_verts\": %u, \"collider_tris\": %u, \"thickness\": %g, "
        "\"collider_thickness\": %g, \"gap\": %g, \"friction\": %g, \"ground_z\": %g, "
        "\"contact_ms_per_frame\": %.4f, \"contact_share\": %.4f, \"self_broad_ms_per_frame\": "
        "%.4f, \"ccd_cuts\": %llu, "
        "\"contacts\": %u, \"max_contacts\": %u, \"max_broad_pairs\": %u, \"contact_growths\": %u, "
        "\"collider_substeps\": %u, \"min_distance\": ",
        c->collider, d->sphere_verts, d->sphere_tris, c->thickness, c->collider_thickness,
        c->thickness + c->collider_thickness, c->friction, GROUND_Z,
        1000.0 * d->contact_s / c->frames, r->wall_s > 0.0 ? d->contact_s / r->wall_s : 0.0,
        1000.0 * d->self_s / c->frames, (unsigned long long)d->ccd_cuts, d->contacts_last,
        d->contacts_max, d->broad_pairs_max, d->contact_growths, d->collider_substeps);
    json_number(d->min_distance);
    printf(", \"last_min_distance\": ");
    json_number(d->min_distance_last);
    printf(", \"inside\": %u, \"min_dist\": ", r->finite ? d->inside : 0u);
    json_number(r->finite ? d->min_dist : NAN);
    printf(", \"penetration\": ");
    json_number(r->finite ? d->penetration : NAN);
    printf(", \"below_ground\": %u, \"max_inside_any_frame\": %u, \"max_penetration_any_frame\": ",
           d->below_ground, d->inside_max);
    json_number(d->penetration_max);
    printf(", \"samples\": [");
    for (unsigned k = 0; k < d->sample_count; ++k) {
      printf("%s{\"frame\": %u, \"min_z\": ", k > 0 ? ", " : "", d->sample_frame[k]);
      json_number(d->sample_min_z[k]);
      printf(", \"penetration\": ");
      json_number(d->sample_pen[k]);
      printf("}");
    }
    printf("]");
  }
  printf("}\n");
}

static void print_table_header(scene_kind scene) {
  if (scene == SCENE_DRAPE) {
    printf(
        "\n| Case | Scene (verts) | Settings | ms/frame wall | CPU ms/frame | contact share | "
        "Newton/step | "
        "CG/step | max strain | inside sphere (any frame) | penetration [mm] (any frame) | min "
        "contact "
        "distance [mm] | contacts | CCD cuts | library memory, set-up / peak [MB] | lowest z [m] | "
        "lowest z [m] at frames 10, 20, ... |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    return;
  }
  printf(
      "\n| Case | Scene (verts) | Settings | ms/frame wall | CPU ms/frame | Newton/step | "
      "CG/step | max strain | mean strain | lowest z [m] |%s\n",
      scene == SCENE_SWING ? " free-corner z [m] at frames 10, 20, ... |" : "");
  printf("|---|---|---|---|---|---|---|---|---|---|%s\n", scene == SCENE_SWING ? "---|" : "");
}

static void print_table_row(const bench_result *r) {
  const bench_config *c = &r->cfg;
  const double per_step = r->steps > 0 ? 1.0 / (double)r->steps : 0.0;
  if (c->scene == SCENE_DRAPE) {
    const drape_stats *d = &r->drape;
    printf(
        "| drape%s-tauform-N%u | DRAPE%s-%u (%u) | tau %g s, kappa %g, %u substep%s/frame, stretch "
        "%g "
        "N/m, "
        "bend %g N m, gap %g + %g m, mu %g | **%.2f** | %.2f | %.0f %% | %.2f | %.1f | %.3g | %u "
        "(%u) | "
        "%.1f (%.1f) | %.2f | %u | %llu | %.1f / %.1f | %.3f |",
        c->self_contact ? "-self" : "", c->n, c->self_contact ? "-SELF" : "", c->n, r->verts,
        c->tau, c->kappa, c->substeps, c->substeps == 1 ? "" : "s", c->stretch, c->bend,
        c->thickness, c->collider_thickness, c->friction, 1000.0 * r->wall_s / c->frames,
        1000.0 * r->cpu_s / c->frames, r->wall_s > 0.0 ? 100.0 * d->contact_s / r->wall_s : 0.0,
        (double)r->newton * per_step, (double)r->cg * per_step, r->finite ? r->max_strain : NAN,
        d->inside, d->inside_max, 1000.0 * d->penetration, 1000.0 * d->penetration_max,
        1000.0 * d->min_distance, d->contacts_last, (unsigned long long)d->ccd_cuts,
        r->setup_bytes / 1e6, r->mem.peak / 1e6, r->finite ? r->min_z : NAN);
    printf(" ");
    for (unsigned k = 0; k < d->sample_count; ++k)
      printf("%s%.3f", k > 0 ? " " : "", d->sample_min_z[k]);
    printf(" |\n");
    return;
  }
  printf(
      "| %s-tauform%s-N%u | %s-%u (%u) | tau %g s, kappa %g, %u substep%s/frame, stretch %g N/m, "
      "%s %g %s | **%.2f** | %.2f | %.2f | %.1f | %.3g | %.3g | %.5f |",
      SCENE_ID[c->scene], c->springs ? "-springs" : "", c->n, SCENE_NAME[c->scene], c->n, r->verts,
      c->tau, c->kappa, c->substeps, c->substeps == 1 ? "" : "s", c->stretch,
      c->springs ? "springs: shear" : "bend", c->springs ? c->shear : c->bend,
      c->springs ? "N/m" : "N m", 1000.0 * r->wall_s / c->frames, 1000.0 * r->cpu_s / c->frames,
      (double)r->newton * per_step, (double)r->cg * per_step, r->finite ? r->max_strain : NAN,
      r->finite ? r->mean_strain : NAN, r->finite ? r->min_z : NAN);
  if (c->scene == SCENE_SWING) {
    printf(" ");
    for (unsigned k = 0; k < r->corner_count; ++k)
      printf("%s%.3f", k > 0 ? " " : "", r->corner_z[k]);
    printf(" |");
  }
  printf("\n");
}

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: tauform_bench [--scene cloth|swing|drape] [--n N] [--tau S] [--kappa K]\n"
      "                     [--substeps S] [--frames F] [--stretch N_PER_M] [--bend N_M]\n"
      "                     [--newton N] [--tolerance T] [--threads T] [--trace] [--all]\n"
      "                     [--kernels] [--collider PATH.obj] [--thickness M] "
      "[--collider-thickness M]\n"
      "                     [--friction MU] [--positions FILE] [--self] [--bend-model M]\n"
      "                     [--springs SHEAR,BEND] [--path K]\n"
      "  --scene     CLOTH-N (hanging, default), SWING-N (falls from horizontal) or DRAPE-N\n"
      "              (falls onto a sphere above a ground plane)\n"
      "  --n         quads per side (default %u)\n"
      "  --tau       tau in s, > 0 (default %g)\n"
      "  --kappa     kappa in [0, 1] (default %g)\n"
      "  --substeps  solver steps per frame (default %u)\n"
      "  --frames    frames at 24 fps (default %u)\n"
      "  --stretch   stretch stiffness, N/m (default %g)\n"
      "  --bend      bend stiffness, N m (default %g)\n"
      "  --bend-model shell (default) or hinge: the bending energy (tf_bend_model)\n"
      "  --springs SHEAR,BEND  spring cloth (TF_CLOTH_SPRINGS): structural springs of --stretch,\n"
      "              shear and bend springs of these N/m (instead of membrane and bending)\n"
      "  --newton    Newton iteration budget per step (default: the library's, 20)\n"
      "  --tolerance Newton tolerance, relative (default: the library's, 1e-3)\n"
      "  --threads   threads of the simulation (default 0: every core; results are the same)\n"
      "  --path      K > 0: every rest coordinate moved by up to 1e-12 m, a neighbouring path\n"
      "              of the same scene (contact runs are chaotic: read a change over several)\n"
      "  --trace     one line per frame on stderr: ms, Newton and CG iterations, the free\n"
      "              corner's x y z\n"
      "              (DRAPE: contact ms, contacts, pairs, CCD cuts, distances)\n"
      "  --all       CLOTH and SWING for N = 32, 64, 128\n"
      "  --kernels   after the run, time each phase of a Newton iteration on its end state\n"
      "              beside the bytes it must move and a streaming loop's bandwidth\n"
      "DRAPE only:\n"
      "  --self      DRAPE-SELF-N: self-contact on (its gap is the cloth's thickness)\n"
      "  --collider  the sphere's OBJ (default %s)\n"
      "  --thickness the cloth's contact thickness, m (default %g)\n"
      "  --collider-thickness  the sphere's, m (default %g); the gap is the sum\n"
      "  --friction  friction coefficient of the cloth, the sphere and the ground (default %g)\n"
      "  --positions write the frame-100 positions, one \"x y z\" line per vertex, for\n"
      "              drape_metrics.py --n N --positions FILE\n",
      DEFAULT_N, DEFAULT_TAU, DEFAULT_KAPPA, DEFAULT_SUBSTEPS, DEFAULT_FRAMES, DEFAULT_STRETCH,
      DEFAULT_BEND, DEFAULT_COLLIDER, DEFAULT_THICKNESS, DEFAULT_COLLIDER_THICKNESS,
      DRAPE_FRICTION);
}

static int parse_double(const char *s, double *out) {
  char *end = NULL;
  const double v = strtod(s, &end);
  if (end == s || *end != '\0' || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

static int parse_unsigned(const char *s, unsigned *out) {
  char *end = NULL;
  const unsigned long v = strtoul(s, &end, 10);
  if (end == s || *end != '\0' || s[0] == '-' || v > UINT_MAX) return -1;
  *out = (unsigned)v;
  return 0;
}

int main(int argc, char **argv) {
  bench_config cfg = {SCENE_CLOTH,
                      DEFAULT_N,
                      DEFAULT_FRAMES,
                      DEFAULT_SUBSTEPS,
                      DEFAULT_TAU,
                      DEFAULT_KAPPA,
                      DEFAULT_STRETCH,
                      DEFAULT_POISSON,
                      DEFAULT_BEND,
                      0,
                      0.0,
                      0,
                      DEFAULT_COLLIDER,
                      DEFAULT_THICKNESS,
                      DEFAULT_COLLIDER_THICKNESS,
                      DRAPE_FRICTION,
                      NULL,
                      0,
                      TF_BEND_SHELL,
                      0,
                      0,
                      0,
                      0.0,
                      0.0,
                      0};
  int all = 0;
  for (int k = 1; k < argc; ++k) {
    const char *a = argv[k];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    }
    if (strcmp(a, "--trace") == 0) {
      cfg.trace = 1;
      continue;
    }
    if (strcmp(a, "--all") == 0) {
      all = 1;
      continue;
    }
    if (strcmp(a, "--self") == 0) {
      cfg.self_contact = 1;
      continue;
    }
    if (strcmp(a, "--kernels") == 0) {
      cfg.kernels = 1;
      continue;
    }
    if (k + 1 >= argc) {
      fprintf(stderr, "tauform_bench: %s needs a value\n", a);
      usage(stderr);
      return 2;
    }
    const char *v = argv[++k];
    int bad = 0;
    if (strcmp(a, "--scene") == 0) {
      if (strcmp(v, "cloth") == 0)
        cfg.scene = SCENE_CLOTH;
      else if (strcmp(v, "swing") == 0)
        cfg.scene = SCENE_SWING;
      else if (strcmp(v, "drape") == 0)
        cfg.scene = SCENE_DRAPE;
      else
        bad = 1;
    } else if (strcmp(a, "--n") == 0) {
      bad = parse_unsigned(v, &cfg.n) != 0 || cfg.n < 1 || cfg.n > MAX_N;
    } else if (strcmp(a, "--tau") == 0) {
      bad = parse_double(v, &cfg.tau) != 0 || !(cfg.tau > 0.0);
    } else if (strcmp(a, "--kappa") == 0) {
      bad = parse_double(v, &cfg.kappa) != 0 || cfg.kappa < 0.0 || cfg.kappa > 1.0;
    } else if (strcmp(a, "--substeps") == 0) {
      bad = parse_unsigned(v, &cfg.substeps) != 0 || cfg.substeps == 0;
    } else if (strcmp(a, "--frames") == 0) {
      bad = parse_unsigned(v, &cfg.frames) != 0 || cfg.frames == 0;
    } else if (strcmp(a, "--stretch") == 0) {
      bad = parse_double(v, &cfg.stretch) != 0 || !(cfg.stretch > 0.0);
    } else if (strcmp(a, "--bend") == 0) {
      bad = parse_double(v, &cfg.bend) != 0 || cfg.bend < 0.0;
    } else if (strcmp(a, "--springs") == 0) {
      /* SHEAR,BEND: spring cloth with these shear and bend_springs stiffnesses, N/m */
      cfg.springs = 1;
      bad = sscanf(v, "%lf,%lf", &cfg.shear, &cfg.bend_springs) != 2 || !(cfg.shear >= 0.0) ||
            !(cfg.bend_springs >= 0.0);
    } else if (strcmp(a, "--bend-model") == 0) {
      bad = strcmp(v, "shell") != 0 && strcmp(v, "hinge") != 0;
      cfg.bend_model = strcmp(v, "hinge") == 0 ? TF_BEND_HINGE : TF_BEND_SHELL;
    } else if (strcmp(a, "--tolerance") == 0) {
      bad = parse_double(v, &cfg.tolerance) != 0 || !(cfg.tolerance > 0.0);
    } else if (strcmp(a, "--threads") == 0) {
      bad = parse_unsigned(v, &cfg.threads) != 0;
    } else if (strcmp(a, "--path") == 0) {
      bad = parse_unsigned(v, &cfg.path) != 0;
    } else if (strcmp(a, "--newton") == 0) {
      bad = parse_unsigned(v, &cfg.max_newton) != 0 || cfg.max_newton == 0;
    } else if (strcmp(a, "--collider") == 0) {
      cfg.collider = v;
    } else if (strcmp(a, "--positions") == 0) {
      cfg.positions = v;
    } else if (strcmp(a, "--thickness") == 0) {
      bad = parse_double(v, &cfg.thickness) != 0 || !(cfg.thickness > 0.0);
    } else if (strcmp(a, "--collider-thickness") == 0) {
      bad = parse_double(v, &cfg.collider_thickness) != 0 || cfg.collider_thickness < 0.0;
    } else if (strcmp(a, "--friction") == 0) {
      bad = parse_double(v, &cfg.friction) != 0 || cfg.friction < 0.0;
    } else {
      fprintf(stderr, "tauform_bench: unknown option %s\n", a);
      usage(stderr);
      return 2;
    }
    if (bad) {
      fprintf(stderr, "tauform_bench: bad value '%s' for %s\n", v, a);
      return 2;
    }
  }

  /* the header and the library must agree on the ABI (same major) */
  if (tf_abi_version() != TF_VERSION_MAJOR) {
    fprintf(stderr, "tauform_bench: built against ABI %d, loaded library has ABI %u\n",
            TF_VERSION_MAJOR, (unsigned)tf_abi_version());
    return 1;
  }

  enum { MAX_CASES = 2 * sizeof ALL_SIZES / sizeof ALL_SIZES[0] };
  bench_result results[MAX_CASES];
  memset(results, 0, sizeof results);
  unsigned count = 0;
  if (all) {
    for (unsigned s = 0; s < 2; ++s) {
      for (unsigned k = 0; k < sizeof ALL_SIZES / sizeof ALL_SIZES[0]; ++k) {
        results[count].cfg = cfg;
        results[count].cfg.scene = (scene_kind)s;
        results[count].cfg.n = ALL_SIZES[k];
        count++;
      }
    }
  } else {
    results[count++].cfg = cfg;
  }

  printf(
      "tauform %s: integrator tau, tau %g s, kappa %g, %u substep%s/frame, stretch %g N/m, "
      "poisson %g, bend %g N m, %g kg total, gravity %g m/s^2, %u frames at %g fps\n",
      tf_version_string(), cfg.tau, cfg.kappa, cfg.substeps, cfg.substeps == 1 ? "" : "s",
      cfg.stretch, cfg.poisson, cfg.bend, SHEET_MASS, GRAVITY_Z, cfg.frames, FPS);
  if (cfg.scene == SCENE_DRAPE && !all)
    printf(
        "DRAPE contact: collider %s, thickness %g m (cloth) + %g m (sphere) = gap %g m, ground z "
        "%g "
        "(gap %g m), friction %g on every contact\n",
        cfg.collider, cfg.thickness, cfg.collider_thickness, cfg.thickness + cfg.collider_thickness,
        GROUND_Z, cfg.thickness, cfg.friction);
  fflush(stdout);

  int rc = 0;
  unsigned done = 0;
  for (; done < count; ++done) {
    bench_result *r = &results[done];
    fprintf(stderr, "tauform_bench: %s-%u ...\n", SCENE_NAME[r->cfg.scene], r->cfg.n);
    if (run_case(r) != 0) {
      rc = 1;
      break;
    }
    print_result_json(r);
    fflush(stdout);
  }

  /* tables of the cases that ran, one per scene kind */
  for (unsigned s = 0; s < SCENE_KINDS; ++s) {
    int header = 0;
    for (unsigned k = 0; k < done; ++k) {
      if (results[k].cfg.scene != (scene_kind)s) continue;
      if (!header) print_table_header((scene_kind)s);
      header = 1;
      print_table_row(&results[k]);
    }
  }
  for (unsigned k = 0; k < count; ++k) result_free(&results[k]);
  return rc;
}
