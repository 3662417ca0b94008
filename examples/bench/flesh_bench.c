/* SPDX-License-Identifier: MIT
 * tauform on the performance-anchor scene FLESH (../shared/anchors/README.md): the unit cube
 * [-0.5, 0.5]^2 x [0, 1] m tetrahedralized by tetgen (the anchors' cube5k.1 / cube20k.1 files),
 * 1000 kg/m^3, every node with z = 0 hard-pinned, gravity (0, 0, -9.81), starting at rest in the
 * rest shape, 100 frames at 24 fps. The material matches the anchors' Bullet FEM (E 100 kPa,
 * nu 0.4; the analytic uniaxial self-weight sag is 49 mm). Only the frames' tf_sim_advance calls
 * are timed (wall and process CPU); the metrics are the anchors' (edge strain over the unique tet
 * edges, top sag = 1 m - mean z of the top-face nodes, volume ratio) plus Newton and CG iterations.
 *
 *   tauform_flesh_bench [--mesh PATH.node] [--tau 0.1] [--kappa 0] [--substeps 1] [--frames 100]
 *                       [--youngs 1e5] [--poisson 0.4] [--element quadratic|linear] [--threads 0]
 *                       [--lattice CELLS] [--kernels]
 * PATH defaults to ../shared/anchors/meshes/cube5k.1.node (the anchors next to the checkout).
 * --lattice: the same cube as CELLS^3 Kuhn cubes of 6 tets each instead of a file (any size, for
 * the cost-per-size curve); --kernels: after the run, each phase of a Newton iteration timed beside
 * the bytes it must move (kernels.c).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels.h"
#include "memory.h"
#include "tauform.h"

static const double DENSITY = 1000.0; /* kg/m^3 */
static const double GRAVITY_Z = -9.81;
static const double FPS = 24.0;
static const double TOP_Z = 1.0; /* m: the top face */
static const double FACE_EPS = 1e-9;

typedef struct edge {
  uint32_t a, b;
} edge;

static double clock_seconds(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_edge(const void *p, const void *q) {
  const edge *x = p, *y = q;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  return (x->b > y->b) - (x->b < y->b);
}

static double dist3(const double *p, const double *q) {
  double d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* the unique edges of the tets, sorted */
static edge *unique_edges(const uint32_t *tets, uint32_t tet_count, uint32_t *out_count) {
  static const int PAIRS[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  edge *e = malloc(sizeof *e * 6 * (size_t)tet_count);
  if (!e) return NULL;
  for (uint32_t t = 0; t < tet_count; ++t)
    for (int k = 0; k < 6; ++k) {
      uint32_t a = tets[4 * t + PAIRS[k][0]], b = tets[4 * t + PAIRS[k][1]];
      e[6 * t + k] = (edge){a < b ? a : b, a < b ? b : a};
    }
  qsort(e, 6 * (size_t)tet_count, sizeof *e, cmp_edge);
  uint32_t m = 0;
  for (size_t k = 0; k < 6 * (size_t)tet_count; ++k)
    if (m == 0 || cmp_edge(&e[m - 1], &e[k]) != 0) e[m++] = e[k];
  *out_count = m;
  return e;
}

/* the cube [-0.5, 0.5]^2 x [0, 1] as cells^3 lattice cubes, each cut into Kuhn's six tets around
 * its main diagonal (corner bits: x 1, y 2, z 4), into v; the arrays are the caller's to free */
static int lattice_cube(unsigned cells, tf_tetmesh_view *v, double **pos, uint32_t **tets) {
  static const int KUHN[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7},
                                 {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
  const unsigned c1 = cells + 1;
  *pos = malloc(sizeof(double) * 3 * c1 * c1 * c1);
  *tets = malloc(sizeof(uint32_t) * 24 * cells * cells * cells);
  if (*pos == NULL || *tets == NULL) return 0;
  for (unsigned k = 0; k < c1; ++k)
    for (unsigned j = 0; j < c1; ++j)
      for (unsigned i = 0; i < c1; ++i) {
        double *p = *pos + 3 * ((size_t)(k * c1 + j) * c1 + i);
        p[0] = -0.5 + (double)i / cells, p[1] = -0.5 + (double)j / cells;
        p[2] = (double)k / cells;
      }
  uint32_t *t = *tets;
  for (unsigned k = 0; k < cells; ++k)
    for (unsigned j = 0; j < cells; ++j)
      for (unsigned i = 0; i < cells; ++i)
        for (int q = 0; q < 6; ++q)
          for (int r = 0; r < 4; ++r) {
            const int b = KUHN[q][r];
            *t++ = ((k + (b >> 2)) * c1 + j + ((b >> 1) & 1)) * c1 + i + (b & 1);
          }
  v->positions = *pos;
  v->vert_count = c1 * c1 * c1;
  v->tets = *tets;
  v->tet_count = 6 * cells * cells * cells;
  return 1;
}

static int parse_double(const char *s, double *out) {
  char *end;
  *out = strtod(s, &end);
  return end != s && *end == '\0' && isfinite(*out);
}

int main(int argc, char **argv) {
  const char *mesh = "../shared/anchors/meshes/cube5k.1.node";
  double tau = 0.1, kappa = 0.0, youngs = 1e5, poisson = 0.4, substeps = 1, frames = 100;
  tf_tet_element element = TF_TET_LINEAR; /* the library's default */
  double threads = 0.0;                   /* the def's: 0 every core */
  double lattice = 0.0;                   /* cells per side; 0: the mesh file */
  int kernels = 0;
  for (int k = 1; k < argc; ++k) {
    const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
    double *num = strcmp(a, "--tau") == 0        ? &tau
                  : strcmp(a, "--kappa") == 0    ? &kappa
                  : strcmp(a, "--youngs") == 0   ? &youngs
                  : strcmp(a, "--poisson") == 0  ? &poisson
                  : strcmp(a, "--substeps") == 0 ? &substeps
                  : strcmp(a, "--frames") == 0   ? &frames
                  : strcmp(a, "--threads") == 0  ? &threads
                  : strcmp(a, "--lattice") == 0  ? &lattice
                                                 : NULL;
    if (strcmp(a, "--kernels") == 0) {
      kernels = 1;
      continue;
    }
    if (strcmp(a, "--mesh") == 0 && v) {
      mesh = v;
    } else if (strcmp(a, "--element") == 0 && v &&
               (strcmp(v, "linear") == 0 || strcmp(v, "quadratic") == 0)) {
      element = strcmp(v, "linear") == 0 ? TF_TET_LINEAR : TF_TET_QUADRATIC;
    } else if (num && v && parse_double(v, num)) {
    } else {
      fprintf(stderr,
              "usage: tauform_flesh_bench [--mesh PATH.node] [--tau S] [--kappa K] [--substeps N] "
              "[--frames N] [--youngs PA] [--poisson NU] [--element quadratic|linear] "
              "[--threads T] [--lattice CELLS] [--kernels]\n");
      return 2;
    }
    ++k;
  }
  if (substeps < 1 || frames < 1)
    return fprintf(stderr, "tauform_flesh_bench: substeps and frames must be >= 1\n"), 2;
  if (lattice != 0.0 && !(lattice >= 1.0 && lattice <= 200.0 && lattice == (unsigned)lattice))
    return fprintf(stderr, "tauform_flesh_bench: --lattice takes 1..200 cells\n"), 2;
  char err[1024];
  tf_tetmesh *tm = NULL;
  tf_tetmesh_view v;
  memset(&v, 0, sizeof v);
  v.struct_size = sizeof v;
  double *lattice_pos = NULL;
  uint32_t *lattice_tets = NULL;
  char lattice_name[32];
  if (lattice != 0.0) {
    if (!lattice_cube((unsigned)lattice, &v, &lattice_pos, &lattice_tets))
      return fprintf(stderr, "tauform_flesh_bench: out of memory for the lattice\n"), 1;
    snprintf(lattice_name, sizeof lattice_name, "lattice %u^3", (unsigned)lattice);
    mesh = lattice_name;
  } else {
    if (tf_tetmesh_load(mesh, &tm, err, sizeof err) != TF_OK)
      return fprintf(stderr, "tauform_flesh_bench: %s\n", err), 1;
    tf_tetmesh_get(tm, &v);
  }
  double t0 = clock_seconds(CLOCK_MONOTONIC);
  tf_flesh_def def;
  tf_flesh_def_init(&def);
  def.rest_positions = v.positions;
  def.vert_count = v.vert_count;
  def.tets = v.tets;
  def.tet_count = v.tet_count;
  def.youngs_modulus = youngs;
  def.poisson = poisson;
  def.density = DENSITY;
  def.gravity[2] = GRAVITY_Z;
  def.tau = tau;
  def.kappa = kappa;
  def.element = element;
  def.threads = (uint32_t)threads;
  bench_memory mem = {0, 0};
  def.allocator = bench_counting_allocator(&mem);
  tf_sim *sim = NULL;
  if (tf_flesh_create(&def, &sim, err, sizeof err) != TF_OK)
    return fprintf(stderr, "tauform_flesh_bench: %s\n", err), 1;
  uint32_t n = v.vert_count, pins = 0, top = 0;
  uint32_t *pin = malloc(sizeof *pin * n);
  for (uint32_t i = 0; i < n; ++i) {
    if (fabs(v.positions[3 * i + 2]) < FACE_EPS) pin[pins++] = i;
    if (fabs(v.positions[3 * i + 2] - TOP_Z) < FACE_EPS) ++top;
  }
  tf_sim_set_pins(sim, pin, NULL, pins);
  double setup = clock_seconds(CLOCK_MONOTONIC) - t0;
  const long long setup_bytes = mem.live;
  printf(
      "tauform %s FLESH: %s, %u nodes, %u tets, %u pinned; tau %g s, kappa %g, %g substep(s), E %g "
      "Pa, nu %g, "
      "%g kg/m^3, %g frames at %g fps\n",
      tf_version_string(), mesh, n, v.tet_count, pins, tau, kappa, substeps, youngs, poisson,
      DENSITY, frames, FPS);
  double wall = 0, cpu = 0;
  uint64_t newton = 0, cg = 0, unconverged = 0;
  for (unsigned f = 0; f < (unsigned)frames; ++f) {
    double w0 = clock_seconds(CLOCK_MONOTONIC), c0 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    tf_status st = tf_sim_advance(sim, 1.0 / FPS, (uint32_t)substeps);
    wall += clock_seconds(CLOCK_MONOTONIC) - w0;
    cpu += clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (st != TF_OK)
      return fprintf(stderr, "tauform_flesh_bench: frame %u: %s\n", f + 1, tf_sim_last_error(sim)),
             1;
    tf_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    tf_sim_get_stats(sim, &s);
    newton += s.newton_iterations, cg += s.cg_iterations, unconverged += s.unconverged_steps;
  }
  /* metrics at the end of the last frame */
  double *x = malloc(sizeof(double) * 3 * n);
  tf_sim_get_positions(sim, x, n);
  uint32_t ne = 0;
  edge *e = unique_edges(v.tets, v.tet_count, &ne);
  double max_strain = 0, sum_strain = 0, top_z = 0;
  for (uint32_t k = 0; k < ne; ++k) {
    double rest = dist3(v.positions + 3 * e[k].a, v.positions + 3 * e[k].b);
    double s = fabs(dist3(x + 3 * e[k].a, x + 3 * e[k].b) / rest - 1.0);
    max_strain = fmax(max_strain, s);
    sum_strain += s;
  }
  for (uint32_t i = 0; i < n; ++i)
    if (fabs(v.positions[3 * i + 2] - TOP_Z) < FACE_EPS) top_z += x[3 * i + 2] / top;
  tf_flesh_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  tf_sim_flesh_info(sim, &info);
  double steps = frames * substeps;
  double sag_mm = 1e3 * (TOP_Z - top_z), vol = info.volume / info.rest_volume;
  printf(
      "RESULT {\"system\": \"tauform-%s\", \"threads\": %u, \"scene\": \"FLESH-%uk\", "
      "\"verts\": %u, \"tets\": %u, "
      "\"edges\": %u, \"element\": \"%s\", \"nodes\": %u, "
      "\"tau\": %g, \"kappa\": %g, \"substeps\": %g, \"setup_s\": %.4f, \"ms_per_frame\": %.3f, "
      "\"cpu_ms_per_frame\": %.3f, \"newton_per_step\": %.2f, \"cg_per_newton\": %.1f, "
      "\"unconverged_steps\": %llu, "
      "\"max_strain\": %.4g, \"mean_strain\": %.4g, \"top_sag_mm\": %.2f, \"volume_ratio\": %.5f, "
      "\"inverted\": %u, \"library_setup_mb\": %.2f, \"library_peak_mb\": %.2f}\n",
      tf_version_string(), (uint32_t)threads, (v.tet_count + 500) / 1000, n, v.tet_count, ne,
      element == TF_TET_QUADRATIC ? "quadratic" : "linear", info.node_count, tau, kappa, substeps,
      setup, 1e3 * wall / frames, 1e3 * cpu / frames, newton / steps,
      newton ? (double)cg / newton : 0.0, (unsigned long long)unconverged, max_strain,
      sum_strain / ne, sag_mm, vol, info.inverted_now, setup_bytes / 1e6, mem.peak / 1e6);
  printf(
      "\n| Case | Scene (verts/tets) | Settings | ms/frame wall | CPU ms/frame | Newton/step | max "
      "strain | mean strain | "
      "top sag [mm] | volume ratio |\n|---|---|---|---|---|---|---|---|---|---|\n");
  printf(
      "| flesh-tauform-%uk | FLESH (%u/%u) | tau %g s, kappa %g, %g substep(s), E %g kPa, nu %g | "
      "**%.2f** | %.2f | "
      "%.2f | %.3g | %.3g | %.1f | %.4f |\n",
      (v.tet_count + 500) / 1000, n, v.tet_count, tau, kappa, substeps, youngs / 1e3, poisson,
      1e3 * wall / frames, 1e3 * cpu / frames, newton / steps, max_strain, sum_strain / ne, sag_mm,
      vol);
  if (kernels) {
    char title[64];
    snprintf(title, sizeof title, "FLESH-%uk %s", (v.tet_count + 500) / 1000,
             element == TF_TET_QUADRATIC ? "quadratic" : "linear");
    kernels_report(sim, title);
  }
  free(e), free(x), free(pin);
  tf_sim_destroy(sim);
  tf_tetmesh_destroy(tm);
  free(lattice_pos), free(lattice_tets);
  return 0;
}
