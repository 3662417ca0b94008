/* SPDX-License-Identifier: MIT
 * tauform on the performance-anchor scenes CLOTH-N and SWING-N (../shared/anchors/README.md):
 * a 2 m x 2 m sheet of (N+1)^2 vertices, vertex (i, j) at index j*(N+1)+i, each quad split along
 * (i,j)-(i+1,j+1), top row j = 0 hard-pinned, 0.3 kg total as 0.3/(N+1)^2 kg per vertex, gravity
 * (0, 0, -9.81), starting at rest, 100 frames at 24 fps. CLOTH hangs vertically in the x-z plane
 * (pure in-plane load); SWING starts horizontal in the x-y plane and falls, swings and settles.
 * Only the frames' tf_sim_advance calls are timed (wall and process CPU); the metrics are those
 * of the anchors (edge strain over the three edge families, lowest z, SWING's free-corner z every
 * 10 frames) plus the solver's Newton and CG iterations per step. Prints one `RESULT {json}` line
 * per case (the anchors' bench.py format) and a markdown table.
 *
 *   tauform_bench [--scene cloth|swing] [--n 32] [--tau 1] [--kappa 0] [--substeps 1]
 *                 [--frames 100] [--stretch 5000] [--bend 1e-5] [--all]
 */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tauform.h"

/* scene, fixed by the anchors */
static const double SHEET_SIZE = 2.0;     /* m, square side */
static const double SHEET_MASS = 0.3;     /* kg in total */
static const double GRAVITY_Z = -9.81;    /* m/s^2 */
static const double FPS = 24.0;           /* frames per second */
static const unsigned CORNER_EVERY = 10;  /* frames between SWING free-corner samples */
static const unsigned ALL_SIZES[] = {32, 64, 128};

/* tauform settings, overridable from the command line */
static const double DEFAULT_TAU = 1.0;           /* s */
static const double DEFAULT_KAPPA = 0.0;
static const double DEFAULT_STRETCH = 5000.0;    /* N/m, 2D Young's modulus */
static const double DEFAULT_POISSON = 0.3;
static const double DEFAULT_BEND = 1e-5;         /* N m */
static const unsigned DEFAULT_SUBSTEPS = 1;
static const unsigned DEFAULT_FRAMES = 100;
static const unsigned DEFAULT_N = 32;
static const unsigned MAX_N = 4096;              /* (N+1)^2 x 3 doubles must fit comfortably */

typedef enum scene_kind { SCENE_CLOTH = 0, SCENE_SWING = 1 } scene_kind;
static const char *const SCENE_NAME[] = {"CLOTH", "SWING"};
static const char *const SCENE_ID[] = {"cloth", "swing"};

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
} bench_config;

typedef struct bench_result {
  bench_config cfg;
  unsigned verts, edges;
  double setup_s;          /* mesh build + tf_cloth_create + pins */
  double wall_s, cpu_s;    /* summed over the frames' advances */
  double median_frame_s;
  uint64_t steps, newton, cg, unconverged;
  unsigned max_newton_per_step;
  int finite;
  double max_strain, mean_strain, min_z, max_abs_y;
  unsigned corner_count;
  unsigned *corner_frame; /* (corner_count) */
  double *corner_z;       /* (corner_count) m */
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

/* Grid of the anchors. rest: ((n+1)^2 x 3), tris: (2 n^2 x 3), edges: (2n(n+1) + n^2). */
static void build_sheet(scene_kind scene, unsigned n, double *rest, uint32_t *tris,
                        bench_edge *edges) {
  const unsigned n1 = n + 1;
  const double h = SHEET_SIZE / n;
  for (unsigned j = 0; j < n1; ++j) {
    for (unsigned i = 0; i < n1; ++i) {
      double *p = rest + 3 * (j * n1 + i);
      const double across = -0.5 * SHEET_SIZE + h * i, down = 0.5 * SHEET_SIZE - h * j;
      /* CLOTH hangs in x-z; SWING lies flat in x-y with the pinned row at y = +1 */
      p[0] = across;
      p[1] = scene == SCENE_SWING ? down : 0.0;
      p[2] = scene == SCENE_SWING ? 0.0 : down;
    }
  }
  uint32_t *t = tris;
  for (unsigned j = 0; j < n; ++j) {
    for (unsigned i = 0; i < n; ++i) {
      const uint32_t a = j * n1 + i, b = a + 1, c = a + n1 + 1, d = a + n1;
      t[0] = a; t[1] = b; t[2] = c;
      t[3] = a; t[4] = c; t[5] = d;
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

/* Print a failed tauform call with the sim's own message. Returns 1. */
static int report(const tf_sim *sim, const bench_config *cfg, const char *call, unsigned frame,
                  tf_status s) {
  fprintf(stderr, "tauform_bench: %s-%u: %s", SCENE_NAME[cfg->scene], cfg->n, call);
  if (frame > 0) fprintf(stderr, " (frame %u)", frame);
  fprintf(stderr, " failed: %s: %s\n", tf_status_name(s), sim != NULL ? tf_sim_last_error(sim) : "");
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
  if (rest == NULL || pos == NULL || masses == NULL || tris == NULL || pins == NULL ||
      edges == NULL || frame_s == NULL || r->corner_frame == NULL || r->corner_z == NULL) {
    fprintf(stderr, "tauform_bench: out of memory for N = %u\n", n);
    goto done;
  }

  const double t_setup = clock_seconds(CLOCK_MONOTONIC);
  build_sheet(cfg->scene, n, rest, tris, edges);
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
  def.poisson = cfg->poisson;
  def.bend_stiffness = cfg->bend;
  def.gravity[0] = 0.0;
  def.gravity[1] = 0.0;
  def.gravity[2] = GRAVITY_Z;
  def.integrator = TF_INTEGRATOR_TAU;
  def.tau = cfg->tau;
  def.kappa = cfg->kappa;
  if (cfg->max_newton > 0) def.solver.max_newton = cfg->max_newton;
  if (cfg->tolerance > 0.0) def.solver.tolerance = cfg->tolerance;
  char errbuf[256] = "";
  tf_status s = tf_cloth_create(&def, &sim, errbuf, sizeof errbuf);
  if (s != TF_OK) {
    fprintf(stderr, "tauform_bench: %s-%u: tf_cloth_create failed: %s: %s\n",
            SCENE_NAME[cfg->scene], n, tf_status_name(s), errbuf);
    goto done;
  }
  /* the whole top row j = 0, hard; its targets stay at the rest positions */
  for (uint32_t i = 0; i < n1; ++i) pins[i] = i;
  if ((s = tf_sim_set_pins(sim, pins, NULL, n1)) != TF_OK) {
    rc = report(sim, cfg, "tf_sim_set_pins", 0, s);
    goto done;
  }
  r->setup_s = clock_seconds(CLOCK_MONOTONIC) - t_setup;

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
    if (st.max_newton_per_step > r->max_newton_per_step) r->max_newton_per_step = st.max_newton_per_step;
    if (cfg->trace) {
      if ((s = tf_sim_get_positions(sim, pos, nv)) != TF_OK) {
        rc = report(sim, cfg, "tf_sim_get_positions", frame, s);
        goto done;
      }
      fprintf(stderr, "frame %3u  %8.2f ms  newton %3u  cg %4u  corner z %+.5f\n", frame,
              1000.0 * (w1 - w0), (unsigned)st.newton_iterations, (unsigned)st.cg_iterations,
              pos[3 * corner + 2]);
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
    const double strain = fabs(dist3(pos + 3 * edges[k].a, pos + 3 * edges[k].b) / edges[k].rest - 1.0);
    sum += strain;
    if (strain > r->max_strain) r->max_strain = strain;
  }
  r->mean_strain = sum / ne;
  rc = 0;

done:
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
  r->corner_frame = NULL;
  r->corner_z = NULL;
}

/* JSON has no NaN or infinity: those become null */
static void json_number(double v) {
  if (isfinite(v)) printf("%.6g", v);
  else printf("null");
}

static void print_result_json(const bench_result *r) {
  const bench_config *c = &r->cfg;
  const double per_step = r->steps > 0 ? 1.0 / (double)r->steps : 0.0;
  printf("RESULT {\"system\": \"tauform-%s\", \"scene\": \"%s-%u\", \"n\": %u, \"verts\": %u, "
         "\"edges\": %u, \"integrator\": \"tau\", \"tau\": %g, \"kappa\": %g, \"substeps\": %u, "
         "\"stretch_stiffness\": %g, \"poisson\": %g, \"bend_stiffness\": %g, "
         "\"mass_per_vertex\": %.6g, \"frames\": %u, \"setup_s\": %.4f, \"seconds\": %.6f, "
         "\"ms_per_frame\": %.4f, \"ms_median_frame\": %.4f, \"cpu_ms_per_frame\": %.4f, "
         "\"steps\": %llu, \"newton_per_step\": %.4f, \"cg_per_step\": %.4f, "
         "\"max_newton_per_step\": %u, \"newton_budget\": %u, \"unconverged_steps\": %llu, \"finite\": %s, ",
         tf_version_string(), SCENE_NAME[c->scene], c->n, c->n, r->verts, r->edges, c->tau,
         c->kappa, c->substeps, c->stretch, c->poisson, c->bend, SHEET_MASS / r->verts, c->frames,
         r->setup_s, r->wall_s, 1000.0 * r->wall_s / c->frames, 1000.0 * r->median_frame_s,
         1000.0 * r->cpu_s / c->frames, (unsigned long long)r->steps, (double)r->newton * per_step,
         (double)r->cg * per_step, r->max_newton_per_step, c->max_newton ? c->max_newton : 20u,
         (unsigned long long)r->unconverged,
         r->finite ? "true" : "false");
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
  printf("}\n");
}

static void print_table_header(scene_kind scene) {
  printf("\n| Case | Scene (verts) | Settings | ms/frame wall | CPU ms/frame | Newton/step | "
         "CG/step | max strain | mean strain | lowest z [m] |%s\n",
         scene == SCENE_SWING ? " free-corner z [m] at frames 10, 20, ... |" : "");
  printf("|---|---|---|---|---|---|---|---|---|---|%s\n", scene == SCENE_SWING ? "---|" : "");
}

static void print_table_row(const bench_result *r) {
  const bench_config *c = &r->cfg;
  const double per_step = r->steps > 0 ? 1.0 / (double)r->steps : 0.0;
  printf("| %s-tauform-N%u | %s-%u (%u) | tau %g s, kappa %g, %u substep%s/frame, stretch %g N/m, "
         "bend %g N m | **%.2f** | %.2f | %.2f | %.1f | %.3g | %.3g | %.5f |",
         SCENE_ID[c->scene], c->n, SCENE_NAME[c->scene], c->n, r->verts, c->tau, c->kappa,
         c->substeps, c->substeps == 1 ? "" : "s", c->stretch, c->bend, 1000.0 * r->wall_s / c->frames,
         1000.0 * r->cpu_s / c->frames, (double)r->newton * per_step, (double)r->cg * per_step,
         r->finite ? r->max_strain : NAN, r->finite ? r->mean_strain : NAN,
         r->finite ? r->min_z : NAN);
  if (c->scene == SCENE_SWING) {
    printf(" ");
    for (unsigned k = 0; k < r->corner_count; ++k) printf("%s%.3f", k > 0 ? " " : "", r->corner_z[k]);
    printf(" |");
  }
  printf("\n");
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: tauform_bench [--scene cloth|swing] [--n N] [--tau S] [--kappa K]\n"
          "                     [--substeps S] [--frames F] [--stretch N_PER_M] [--bend N_M]\n"
          "                     [--newton N] [--tolerance T] [--trace] [--all]\n"
          "  --scene     CLOTH-N (hanging, default) or SWING-N (falls from horizontal)\n"
          "  --n         quads per side (default %u)\n"
          "  --tau       tau in s, > 0 (default %g)\n"
          "  --kappa     kappa in [0, 1] (default %g)\n"
          "  --substeps  solver steps per frame (default %u)\n"
          "  --frames    frames at 24 fps (default %u)\n"
          "  --stretch   stretch stiffness, N/m (default %g)\n"
          "  --bend      bend stiffness, N m (default %g)\n"
          "  --newton    Newton iteration budget per step (default: the library's, 20)\n"
          "  --tolerance Newton tolerance, relative (default: the library's, 1e-3)\n"
          "  --trace     one line per frame on stderr: ms, Newton and CG iterations, corner z\n"
          "  --all       CLOTH and SWING for N = 32, 64, 128\n",
          DEFAULT_N, DEFAULT_TAU, DEFAULT_KAPPA, DEFAULT_SUBSTEPS, DEFAULT_FRAMES, DEFAULT_STRETCH,
          DEFAULT_BEND);
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
  bench_config cfg = {SCENE_CLOTH, DEFAULT_N, DEFAULT_FRAMES, DEFAULT_SUBSTEPS, DEFAULT_TAU,
                      DEFAULT_KAPPA, DEFAULT_STRETCH, DEFAULT_POISSON, DEFAULT_BEND, 0, 0.0, 0};
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
    if (k + 1 >= argc) {
      fprintf(stderr, "tauform_bench: %s needs a value\n", a);
      usage(stderr);
      return 2;
    }
    const char *v = argv[++k];
    int bad = 0;
    if (strcmp(a, "--scene") == 0) {
      if (strcmp(v, "cloth") == 0) cfg.scene = SCENE_CLOTH;
      else if (strcmp(v, "swing") == 0) cfg.scene = SCENE_SWING;
      else bad = 1;
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
    } else if (strcmp(a, "--tolerance") == 0) {
      bad = parse_double(v, &cfg.tolerance) != 0 || !(cfg.tolerance > 0.0);
    } else if (strcmp(a, "--newton") == 0) {
      bad = parse_unsigned(v, &cfg.max_newton) != 0 || cfg.max_newton == 0;
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

  printf("tauform %s: integrator tau, tau %g s, kappa %g, %u substep%s/frame, stretch %g N/m, "
         "poisson %g, bend %g N m, %g kg total, gravity %g m/s^2, %u frames at %g fps\n",
         tf_version_string(), cfg.tau, cfg.kappa, cfg.substeps, cfg.substeps == 1 ? "" : "s",
         cfg.stretch, cfg.poisson, cfg.bend, SHEET_MASS, GRAVITY_Z, cfg.frames, FPS);
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
  for (unsigned s = 0; s < 2; ++s) {
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
