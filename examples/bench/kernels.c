/* SPDX-License-Identifier: MIT
 * See kernels.h. Each phase is the library's own function on the simulation's own data and threads:
 * the step objective (energy; energy and gradient; energy, gradient and Hessian), the multigrid
 * set-up, the Hessian product and one V-cycle. The bytes are a lower bound: what the phase must
 * read or write at least once (every stored Hessian block, each vector once), not what the cache
 * hierarchy really moves; a phase near 100 % of the streaming loop is bandwidth bound, one far
 * below it is bound by arithmetic or latency. */
#include "kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/pool.h"
#include "sim/sim.h"
#include "solve/amg.h"
#include "solve/bsr.h"
#include "solve/pcg.h"

static const double MIN_SECONDS = 0.25; /* per phase: repeat until this much time has passed */
static const uint32_t MIN_REPS = 3;
/* the streaming loop's arrays: far beyond any cache this code meets (3 x 128 MiB) */
static const uint32_t STREAM_LEN = 16u << 20;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct stream_ctx {
  double *a;
  const double *b, *c;
} stream_ctx;

static void triad_rows(void *ctx, uint32_t begin, uint32_t end) {
  stream_ctx *s = ctx;
  for (uint32_t i = begin; i < end; ++i) s->a[i] = s->b[i] + 3.0 * s->c[i];
}

/* STREAM's triad a = b + 3 c on the simulation's threads: GB/s counting 24 bytes per item (the
 * write-allocate read of a not counted, as STREAM reports). 0 when out of memory. */
static double stream_gbs(tf_pool *pool) {
  double *a = malloc(sizeof(double) * STREAM_LEN), *b = malloc(sizeof(double) * STREAM_LEN),
         *c = malloc(sizeof(double) * STREAM_LEN);
  double best = 0.0;
  if (a != NULL && b != NULL && c != NULL) {
    for (uint32_t i = 0; i < STREAM_LEN; ++i) a[i] = 0.0, b[i] = 1.0, c[i] = 2.0;
    stream_ctx s = {a, b, c};
    uint32_t grain = STREAM_LEN / (8 * pool_threads(pool));
    for (int rep = 0; rep < 5; ++rep) {
      double t0 = now();
      pool_for(pool, STREAM_LEN, grain, triad_rows, &s);
      double gbs = 24.0 * STREAM_LEN / (now() - t0) / 1e9;
      if (gbs > best) best = gbs;
    }
  }
  free(a), free(b), free(c);
  return best;
}

typedef enum phase { ENERGY, GRADIENT, HESSIAN, MG_SETUP, PRODUCT, VCYCLE, PHASES } phase;
static const char *const PHASE_NAME[PHASES] = {
    "energy (line search)", "energy + gradient",    "energy + gradient + Hessian",
    "multigrid set-up",     "Hessian product (CG)", "V-cycle (CG preconditioner)"};

typedef struct bench_data {
  tf_sim *s;
  const double *y;
  double *grad, *r, *z;
} bench_data;

static void run_phase(bench_data *d, phase p) {
  tf_sim *s = d->s;
  switch (p) {
    case ENERGY:
      sim_step_eval(s, d->y, NULL, NULL);
      break;
    case GRADIENT:
      sim_step_eval(s, d->y, d->grad, NULL);
      break;
    case HESSIAN:
      sim_step_eval(s, d->y, d->grad, &s->solver.H);
      break;
    case MG_SETUP:
      amg_setup(s->solver.amg, &s->solver.H, s->pins.fixed, s->state.x);
      break;
    case PRODUCT:
      bsr_mul(&s->solver.H, d->r, d->z, s->pins.fixed);
      break;
    case VCYCLE:
      amg_apply(s->solver.amg, d->r, d->z);
      break;
    case PHASES:
      break;
  }
}

/* the least traffic of each phase, bytes: per vertex its position, mass, inertial target and force
 * (the objective's own arrays), per stored 3x3 block its 72 bytes and 4-byte column; the set-up
 * writes every level's matrix and its float copy (36 bytes a block), which the V-cycle reads in
 * the forward and the backward sweep (the prolongators not counted) */
static double phase_bytes(const tf_sim *s, phase p) {
  const double n = s->model.n, nnz = s->solver.H.row_ptr[s->model.n];
  const double objective = n * (24.0 + 8.0 + 24.0 + 24.0);
  double levels = 0.0, levels_float = 0.0, level_vectors = 0.0;
  if (s->solver.amg != NULL)
    for (uint32_t l = 0; l < amg_level_count(s->solver.amg); ++l) {
      uint32_t ln, lnnz;
      amg_level_size(s->solver.amg, l, &ln, &lnnz);
      levels += (76.0 + 36.0) * lnnz;
      levels_float += 40.0 * lnnz;
      level_vectors += 3.0 * 24.0 * ln;
    }
  switch (p) {
    case ENERGY:
      return objective;
    case GRADIENT:
      return objective + 2.0 * 24.0 * n;
    case HESSIAN:
      return objective + 2.0 * 24.0 * n + 3.0 * 72.0 * nnz;
    case MG_SETUP:
      return 76.0 * nnz + levels;
    case PRODUCT:
      return 76.0 * nnz + 8.0 * n + 3.0 * 24.0 * n;
    case VCYCLE:
      return 2.0 * (levels_float + level_vectors);
    case PHASES:
      break;
  }
  return 0.0;
}

void kernels_report(tf_sim *s, const char *scene) {
  const uint32_t n = s->model.n;
  bench_data d = {s, NULL, malloc(sizeof(double) * 3 * n), malloc(sizeof(double) * 3 * n),
                  malloc(sizeof(double) * 3 * n)};
  double *y = malloc(sizeof(double) * 3 * n);
  if (d.grad == NULL || d.r == NULL || d.z == NULL || y == NULL) {
    fprintf(stderr, "kernels: out of memory\n");
    free(d.grad), free(d.r), free(d.z), free(y);
    return;
  }
  memcpy(y, s->state.x, sizeof(double) * 3 * n);
  d.y = y;
  /* a residual-like right-hand side: the objective's gradient at the current state */
  sim_step_eval(s, y, d.r, &s->solver.H);
  const double bw = stream_gbs(s->pool);
  printf(
      "\n%s: %u vertices, %u stored Hessian blocks, %u thread(s), %s; streaming loop (triad) "
      "%.1f GB/s\n\n",
      scene, n, s->solver.H.row_ptr[n], pool_threads(s->pool),
      s->solver.amg ? "multigrid" : "block Jacobi", bw);
  printf(
      "| Phase | ms per call | ns per vertex | bytes per vertex (least) | GB/s | of the "
      "streaming loop |\n|---|---|---|---|---|---|\n");
  for (phase p = 0; p < PHASES; ++p) {
    if ((p == MG_SETUP || p == VCYCLE) && s->solver.amg == NULL) continue;
    if (p == PRODUCT || p == VCYCLE) run_phase(&d, p); /* warm */
    uint32_t reps = 0;
    double t0 = now(), t = 0.0;
    do {
      run_phase(&d, p);
      ++reps;
      t = now() - t0;
    } while (t < MIN_SECONDS || reps < MIN_REPS);
    const double per = t / reps, bytes = phase_bytes(s, p), gbs = bytes / per / 1e9;
    printf("| %s | %.3f | %.1f | %.0f | %.2f | %.0f %% |\n", PHASE_NAME[p], 1e3 * per,
           1e9 * per / n, bytes / n, gbs, bw > 0.0 ? 100.0 * gbs / bw : 0.0);
  }
  /* the preconditioner's quality apart from its cost: CG iterations to a tight tolerance on the
   * same system, a count that a multigrid keeps flat in the mesh size when it works */
  pcg_work w = {.r = malloc(sizeof(double) * 3 * n),
                .z = malloc(sizeof(double) * 3 * n),
                .p = malloc(sizeof(double) * 3 * n),
                .q = malloc(sizeof(double) * 3 * n),
                .pinv = malloc(sizeof(double) * 9 * n)};
  if (w.r && w.z && w.p && w.q && w.pinv) {
    /* Newton's own solves stop at a forcing of 0.1 and below (newton.c): the counts there say
     * what a Newton iteration pays, the count to 1e-6 how good the preconditioner is at all. One
     * solve per preconditioner, carried on to each tighter tolerance (pcg_resume: the same
     * iterates as a fresh solve to it); the counts are cumulative */
    static const double RTOL[] = {1e-1, 1e-2, 1e-3, 1e-6};
    enum { NTOL = sizeof RTOL / sizeof RTOL[0] };
    const pcg_operator op = {&s->solver.H, NULL, NULL, NULL};
    const pcg_precond pre[2] = {{amg_apply, s->solver.amg}, {NULL, NULL}};
    uint32_t count[2][NTOL] = {{0}};
    if (s->solver.amg != NULL) amg_setup(s->solver.amg, &s->solver.H, s->pins.fixed, s->state.x);
    for (int m = s->solver.amg != NULL ? 0 : 1; m < 2; ++m)
      for (int t = 0; t < NTOL; ++t) {
        pcg_result res = {0};
        if (t == 0)
          pcg_solve_op(&op, d.r, d.z, s->pins.fixed, RTOL[t], 10000, &pre[m], &w, &res);
        else
          pcg_resume(&op, d.z, s->pins.fixed, RTOL[t], 10000, &pre[m], &w, &res);
        count[m][t] = (t ? count[m][t - 1] : 0) + res.iterations;
      }
    printf("\n| CG iterations on this Hessian, to | V-cycle | block Jacobi |\n|---|---|---|\n");
    for (int t = 0; t < NTOL; ++t) {
      if (s->solver.amg != NULL)
        printf("| %g | %u | %u |\n", RTOL[t], count[0][t], count[1][t]);
      else
        printf("| %g | | %u |\n", RTOL[t], count[1][t]);
    }
    printf("\n");
  }
  free(w.r), free(w.z), free(w.p), free(w.q), free(w.pinv);
  free(d.grad), free(d.r), free(d.z), free(y);
}
