/* SPDX-License-Identifier: MIT
 * The multigrid preconditioner on its own: one V-cycle is a symmetric positive definite operator
 * (so PCG stays valid), Dirichlet vertices stay zero, and on a stiff, badly conditioned lin_system
 * it needs a small fraction of block Jacobi's CG iterations. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/trimesh.h"
#include "scenes.h"
#include "solve/amg.h"
#include "solve/pcg.h"
#include "tf_test.h"

typedef struct lin_system {
  tf_mem mem;
  trimesh mesh;
  bsr A;
  uint32_t *row_ptr, *col;
  uint8_t *fixed;
  double *pos; /* (3n) the grid's points; build_shell's bent into a cylinder */
  uint32_t n;
} lin_system;

/* A = K (x) I3 + m I with K the mesh graph Laplacian scaled by k: a membrane-like stiff operator
 * with a small mass term (condition about k / m), stored as the upper triangle like the solver */
static int build_system(lin_system *s, uint32_t cells, double k, double m) {
  static const double O[3] = {0, 0, 0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0};
  scene sc;
  scene_grid(&sc, cells, cells, 1.0, 1.0, O, EX, EY, 1);
  memset(s, 0, sizeof *s);
  mem_init(&s->mem, NULL);
  char err[128];
  if (trimesh_build(&s->mem, &s->mesh, sc.vert_count, sc.tri, sc.tri_count, 0, NULL, err,
                    sizeof err) != TF_OK)
    return 0;
  uint32_t n = s->n = sc.vert_count;
  s->row_ptr = calloc(n + 1, sizeof *s->row_ptr);
  s->col = calloc(s->mesh.adj_count, sizeof *s->col);
  s->A.val = calloc(9 * (size_t)s->mesh.adj_count, sizeof(double));
  s->fixed = calloc(n, 1);
  bsr_init_upper(&s->A, n, s->mesh.adj_ptr, s->mesh.adj, s->row_ptr, s->col,
                 calloc(n, sizeof(uint32_t)));
  /* Laplacian over the triangle edges */
  for (uint32_t e = 0; e < s->mesh.edge_count; ++e) {
    uint32_t a = s->mesh.edges[2 * e], b = s->mesh.edges[2 * e + 1];
    double *ab = s->A.val + 9 * (size_t)bsr_slot(&s->A, a, b);
    double *aa = s->A.val + 9 * (size_t)s->A.diag[a], *bb = s->A.val + 9 * (size_t)s->A.diag[b];
    for (int d = 0; d < 3; ++d) {
      ab[4 * d] -= k;
      aa[4 * d] += k;
      bb[4 * d] += k;
    }
  }
  for (uint32_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) s->A.val[9 * (size_t)s->A.diag[i] + 4 * d] += m;
  for (uint32_t p = 0; p < sc.pin_count; ++p) s->fixed[sc.pins[p]] = 1;
  s->pos = malloc(3 * (size_t)n * sizeof *s->pos);
  memcpy(s->pos, sc.pos, 3 * (size_t)n * sizeof *s->pos);
  scene_free(&sc);
  return 1;
}

/* A = K + m I with K a network of springs of stiffness k along every triangle edge and across
 * every hinge (k d d^T per spring, d its unit direction) on the grid bent into a cylinder of
 * radius 0.4: a curved shell whose rigid motions, rotations included, cost only the mass term.
 * The hinge springs lie outside the edge pattern: the full adjacency */
static int build_shell(lin_system *s, uint32_t cells, double k, double m) {
  if (!build_system(s, cells, 0.0, m)) return 0;
  for (uint32_t i = 0; i < s->n; ++i) {
    double *p = s->pos + 3 * (size_t)i, u = p[0];
    p[0] = 0.4 * sin(u / 0.4), p[2] = 0.4 * (1.0 - cos(u / 0.4));
  }
  for (uint32_t e = 0; e < s->mesh.edge_count + s->mesh.hinge_count; ++e) {
    uint32_t a, b;
    if (e < s->mesh.edge_count)
      a = s->mesh.edges[2 * e], b = s->mesh.edges[2 * e + 1];
    else
      a = s->mesh.hinges[4 * (e - s->mesh.edge_count) + 2],
      b = s->mesh.hinges[4 * (e - s->mesh.edge_count) + 3];
    uint32_t lo = a < b ? a : b, hi = a ^ b ^ lo;
    double d[3], l = 0.0;
    for (int c = 0; c < 3; ++c) d[c] = s->pos[3 * hi + c] - s->pos[3 * lo + c], l += d[c] * d[c];
    l = sqrt(l);
    double *ab = s->A.val + 9 * (size_t)bsr_slot(&s->A, lo, hi);
    double *aa = s->A.val + 9 * (size_t)s->A.diag[lo], *bb = s->A.val + 9 * (size_t)s->A.diag[hi];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        double v = k * d[r] * d[c] / (l * l);
        ab[3 * r + c] -= v, aa[3 * r + c] += v, bb[3 * r + c] += v;
      }
  }
  return 1;
}

static void free_system(lin_system *s) {
  free(s->row_ptr);
  free(s->col);
  free(s->A.val);
  free(s->A.diag);
  free(s->fixed);
  free(s->pos);
  trimesh_free(&s->mem, &s->mesh);
}

static double dot(const double *a, const double *b, size_t n) {
  double r = 0.0;
  for (size_t i = 0; i < n; ++i) r += a[i] * b[i];
  return r;
}

/* two vectors (3n) of uniform values in [-0.5, 0.5), zero on fixed vertices, from seed */
static void random_pair(const lin_system *s, unsigned seed, double *u, double *w) {
  for (size_t k = 0; k < 3 * (size_t)s->n; ++k) {
    seed = seed * 1664525u + 1013904223u;
    u[k] = s->fixed[k / 3] ? 0.0 : (double)(seed >> 8) / (1 << 24) - 0.5;
    seed = seed * 1664525u + 1013904223u;
    w[k] = s->fixed[k / 3] ? 0.0 : (double)(seed >> 8) / (1 << 24) - 0.5;
  }
}

TF_TEST(amg_vcycle_is_spd_and_keeps_dirichlet_zero) {
  lin_system s;
  ENSURE(build_system(&s, 128, 1e4, 1e-2));
  amg *a = amg_create(&s.mem, s.n, s.mesh.adj_ptr, s.mesh.adj, &s.A, NULL, AMG_TRANSLATIONS);
  ENSURE(a && amg_level_count(a) >= 3);
  amg_setup(a, &s.A, s.fixed, NULL);
  size_t m = 3 * (size_t)s.n;
  double *u = malloc(m * sizeof *u), *w = malloc(m * sizeof *w), *mu = malloc(m * sizeof *mu),
         *mw = malloc(m * sizeof *mw);
  random_pair(&s, 1, u, w);
  /* operator complexity: all levels' blocks over the fine level's */
  double blocks = 0.0;
  uint32_t n0, nnz0;
  amg_level_size(a, 0, &n0, &nnz0);
  for (uint32_t k = 0; k < amg_level_count(a); ++k) {
    uint32_t nk, zk;
    amg_level_size(a, k, &nk, &zk);
    TF_NOTE("level %u: %u nodes, %u blocks (%.1f per row)", k, nk, zk, (double)zk / nk);
    blocks += zk;
  }
  TF_NOTE("operator complexity %.2f", blocks / nnz0);
  ENSURE(blocks / nnz0 < 2.5);
  amg_apply(a, u, mu);
  amg_apply(a, w, mw);
  double uw = dot(u, mw, m), wu = dot(w, mu, m);
  TF_NOTE("%u levels; u.Mw = %.12e, w.Mu = %.12e; u.Mu = %.3e", amg_level_count(a), uw, wu,
          dot(u, mu, m));
  ENSURE(fabs(uw - wu) <= 1e-9 * fabs(uw));
  ENSURE(dot(u, mu, m) > 0.0 && dot(w, mw, m) > 0.0);
  for (uint32_t i = 0; i < s.n; ++i)
    if (s.fixed[i]) ENSURE(mu[3 * i] == 0.0 && mu[3 * i + 1] == 0.0 && mu[3 * i + 2] == 0.0);
  free(u);
  free(w);
  free(mu);
  free(mw);
  amg_destroy(&s.mem, a);
  free_system(&s);
  ENSURE(s.mem.live_bytes == 0);
}

TF_TEST(amg_beats_block_jacobi_on_stiff_systems) {
  lin_system s;
  ENSURE(build_system(&s, 64, 1e4, 1e-3)); /* condition ~ 1e7 */
  amg *a = amg_create(&s.mem, s.n, s.mesh.adj_ptr, s.mesh.adj, &s.A, NULL, AMG_TRANSLATIONS);
  ENSURE(a);
  amg_setup(a, &s.A, s.fixed, NULL);
  size_t m = 3 * (size_t)s.n;
  double *b = malloc(m * sizeof *b), *x = malloc(m * sizeof *x), *r = malloc(m * sizeof *r);
  pcg_work wk;
  wk.r = malloc(m * sizeof(double));
  wk.z = malloc(m * sizeof(double));
  wk.p = malloc(m * sizeof(double));
  wk.q = malloc(m * sizeof(double));
  wk.pinv = malloc(3 * m * sizeof(double));
  for (size_t k = 0; k < m; ++k)
    b[k] = s.fixed[k / 3] ? 0.0 : (k % 3 == 2 ? -1.0 : 0.1 * (double)(k % 7)); /* gravity-like */
  pcg_result rj, ra;
  pcg_precond pre = {amg_apply, a};
  pcg_solve(&s.A, b, x, s.fixed, 1e-8, 20000, NULL, &wk, &rj);
  pcg_solve(&s.A, b, x, s.fixed, 1e-8, 20000, &pre, &wk, &ra);
  /* the AMG answer solves the lin_system */
  bsr_mul(&s.A, x, r, s.fixed);
  double res = 0.0, bn = 0.0;
  for (size_t k = 0; k < m; ++k) {
    res += (r[k] - (s.fixed[k / 3] ? 0.0 : b[k])) * (r[k] - (s.fixed[k / 3] ? 0.0 : b[k]));
    bn += b[k] * b[k];
  }
  TF_NOTE(
      "PCG to 1e-8 on a %u-vertex stiff grid: block Jacobi %u iterations, AMG %u; residual %.1e",
      s.n, rj.iterations, ra.iterations, sqrt(res / bn));
  ENSURE(rj.converged && ra.converged);
  ENSURE(ra.iterations * 10 < rj.iterations);
  ENSURE(sqrt(res / bn) < 1e-5);
  free(b);
  free(x);
  free(r);
  free(wk.r);
  free(wk.z);
  free(wk.p);
  free(wk.q);
  free(wk.pinv);
  amg_destroy(&s.mem, a);
  free_system(&s);
}

TF_TEST(amg_on_the_edge_pattern_lumps_hinge_couplings) {
  /* cloth builds its hierarchy on the triangle adjacency while the Hessian also couples the
   * opposite vertices of every hinge: add such couplings (springs across each hinge, PSD) and check
   * the V-cycle stays symmetric positive definite and about as effective as one built on the full
   * pattern */
  lin_system s;
  ENSURE(build_system(&s, 64, 1e4, 1e-3));
  for (uint32_t h = 0; h < s.mesh.hinge_count; ++h) {
    uint32_t a2 = s.mesh.hinges[4 * h + 2], b2 = s.mesh.hinges[4 * h + 3], lo = a2 < b2 ? a2 : b2,
             hi = a2 ^ b2 ^ lo;
    double *ab = s.A.val + 9 * (size_t)bsr_slot(&s.A, lo, hi);
    double *aa = s.A.val + 9 * (size_t)s.A.diag[lo], *bb = s.A.val + 9 * (size_t)s.A.diag[hi];
    for (int d = 0; d < 3; ++d) ab[4 * d] -= 50.0, aa[4 * d] += 50.0, bb[4 * d] += 50.0;
  }
  uint32_t *eptr, *eadj, ecount;
  ENSURE(trimesh_edge_adjacency(&s.mem, &s.mesh, &eptr, &eadj, &ecount));
  ENSURE(ecount < s.mesh.adj_count);
  amg *narrow = amg_create(&s.mem, s.n, eptr, eadj, &s.A, NULL, AMG_TRANSLATIONS),
      *full = amg_create(&s.mem, s.n, s.mesh.adj_ptr, s.mesh.adj, &s.A, NULL, AMG_TRANSLATIONS);
  ENSURE(narrow && full);
  amg_setup(narrow, &s.A, s.fixed, NULL);
  amg_setup(full, &s.A, s.fixed, NULL);
  size_t m = 3 * (size_t)s.n;
  double *u = malloc(m * sizeof *u), *w = malloc(m * sizeof *w), *mu = malloc(m * sizeof *mu),
         *mw = malloc(m * sizeof *mw);
  unsigned seed = 3;
  for (size_t k = 0; k < m; ++k) {
    seed = seed * 1664525u + 1013904223u;
    u[k] = s.fixed[k / 3] ? 0.0 : (double)(seed >> 8) / (1 << 24) - 0.5;
    seed = seed * 1664525u + 1013904223u;
    w[k] = s.fixed[k / 3] ? 0.0 : (double)(seed >> 8) / (1 << 24) - 0.5;
  }
  amg_apply(narrow, u, mu);
  amg_apply(narrow, w, mw);
  double uw = dot(u, mw, m), wu = dot(w, mu, m);
  ENSURE(fabs(uw - wu) <= 1e-9 * fabs(uw));
  ENSURE(dot(u, mu, m) > 0.0 && dot(w, mw, m) > 0.0);
  pcg_work wk;
  wk.r = malloc(m * sizeof(double));
  wk.z = malloc(m * sizeof(double));
  wk.p = malloc(m * sizeof(double));
  wk.q = malloc(m * sizeof(double));
  wk.pinv = malloc(3 * m * sizeof(double));
  for (size_t k = 0; k < m; ++k)
    u[k] = s.fixed[k / 3] ? 0.0 : (k % 3 == 2 ? -1.0 : 0.1 * (double)(k % 7));
  pcg_result rn, rf;
  pcg_precond pn = {amg_apply, narrow}, pf = {amg_apply, full};
  pcg_solve(&s.A, u, w, s.fixed, 1e-8, 20000, &pn, &wk, &rn);
  pcg_solve(&s.A, u, w, s.fixed, 1e-8, 20000, &pf, &wk, &rf);
  uint32_t n0, z0, n1, z1;
  amg_level_size(narrow, 0, &n0, &z0);
  amg_level_size(full, 0, &n1, &z1);
  TF_NOTE(
      "hinge springs 50 (edges 1e4): PCG to 1e-8 in %u iterations on the edge pattern (%.1f blocks "
      "per row), "
      "%u on the full one (%.1f)",
      rn.iterations, (double)z0 / n0, rf.iterations, (double)z1 / n1);
  ENSURE(rn.converged && rf.converged);
  ENSURE(rn.iterations <= rf.iterations + rf.iterations / 2);
  free(u);
  free(w);
  free(mu);
  free(mw);
  free(wk.r);
  free(wk.z);
  free(wk.p);
  free(wk.q);
  free(wk.pinv);
  MEM_FREE_ARRAY(&s.mem, eptr, (size_t)s.n + 1);
  MEM_FREE_ARRAY(&s.mem, eadj, ecount);
  amg_destroy(&s.mem, narrow);
  amg_destroy(&s.mem, full);
  free_system(&s);
  ENSURE(s.mem.live_bytes == 0);
}

/* with amg_set_reuse(2 %), within a step (no amg_forget between set-ups) a Hessian whose rows each
 * moved by under 2 % keeps the coarse levels: the V-cycle differs from a fresh one's, is still symmetric positive definite
 * and PCG still converges on the new matrix; one row moved by 10 %, or an amg_forget, rebuilds
 * everything (the V-cycle is then a fresh hierarchy's, bit for bit) */
TF_TEST(amg_keeps_coarse_levels_while_rows_barely_move) {
  lin_system s;
  ENSURE(build_system(&s, 64, 1e4, 1e-2));
  amg *a = amg_create(&s.mem, s.n, s.mesh.adj_ptr, s.mesh.adj, &s.A, NULL, AMG_TRANSLATIONS);
  amg *b = amg_create(&s.mem, s.n, s.mesh.adj_ptr, s.mesh.adj, &s.A, NULL,
                      AMG_TRANSLATIONS); /* always full */
  ENSURE(a && b && amg_level_count(a) >= 3);
  ENSURE(amg_set_reuse(&s.mem, a, 0.02));
  size_t m = 3 * (size_t)s.n, nv = 9 * (size_t)s.mesh.adj_count;
  double *r = malloc(m * sizeof *r), *z = malloc(m * sizeof *z), *zf = malloc(m * sizeof *zf),
         *zw = malloc(m * sizeof *zw), *w = malloc(m * sizeof *w), *a0 = malloc(nv * sizeof *a0);
  random_pair(&s, 7, r, w);
  memcpy(a0, s.A.val, nv * sizeof *a0);
  pcg_work pw = {.r = malloc(m * sizeof(double)),
                 .z = malloc(m * sizeof(double)),
                 .p = malloc(m * sizeof(double)),
                 .q = malloc(m * sizeof(double)),
                 .pinv = malloc(9 * (size_t)s.n * sizeof(double))};
  const pcg_precond pa = {amg_apply, a}, pb = {amg_apply, b};
  pcg_result kept, fresh;
  /* 1. set up at A0, then every value 1.5 % larger: a keeps its coarse levels, b (no reuse, the
   * default) rebuilds */
  amg_setup(a, &s.A, s.fixed, NULL);
  amg_setup(b, &s.A, s.fixed, NULL);
  for (size_t k = 0; k < nv; ++k) s.A.val[k] = 1.015 * a0[k];
  amg_setup(a, &s.A, s.fixed, NULL);
  amg_setup(b, &s.A, s.fixed, NULL);
  amg_apply(a, r, z);
  amg_apply(a, w, zw);
  amg_apply(b, r, zf);
  double rw = dot(r, zw, m), wr = dot(w, z, m);
  ENSURE_MSG(amg_full_setups(a) == 1 && memcmp(z, zf, m * sizeof *z) != 0,
             "the coarse levels were rebuilt");
  ENSURE_MSG(amg_full_setups(b) == 2, "set-ups are full by default");
  ENSURE(fabs(rw - wr) <= 1e-9 * fabs(rw) && dot(r, z, m) > 0.0);
  pcg_solve(&s.A, r, z, s.fixed, 1e-8, 500, &pa, &pw, &kept);
  pcg_solve(&s.A, r, z, s.fixed, 1e-8, 500, &pb, &pw, &fresh);
  TF_NOTE("PCG to 1e-8: %u iterations with the kept coarse levels, %u fresh", kept.iterations,
          fresh.iterations);
  ENSURE(kept.converged && fresh.converged && kept.iterations <= fresh.iterations + 3);
  /* 2. one row's diagonal 10 % larger (no amg_forget): rebuilt */
  uint32_t full = amg_full_setups(a);
  for (int d = 0; d < 3; ++d) s.A.val[9 * (size_t)s.A.diag[s.n / 2 + 3] + 4 * d] *= 1.1;
  amg_setup(a, &s.A, s.fixed, NULL);
  ENSURE_MSG(amg_full_setups(a) == full + 1, "one row moved 10 %%: not rebuilt");
  /* 3. a change of 0.1 %: kept; the same after amg_forget: rebuilt */
  for (size_t k = 0; k < nv; ++k) s.A.val[k] = 1.001 * s.A.val[k];
  amg_setup(a, &s.A, s.fixed, NULL);
  ENSURE(amg_full_setups(a) == full + 1);
  amg_forget(a);
  amg_setup(a, &s.A, s.fixed, NULL);
  ENSURE_MSG(amg_full_setups(a) == full + 2, "amg_forget: not rebuilt");
  free(pw.r), free(pw.z), free(pw.p), free(pw.q), free(pw.pinv);
  free(r), free(z), free(zf), free(zw), free(w), free(a0);
  amg_destroy(&s.mem, a);
  amg_destroy(&s.mem, b);
  free_system(&s);
  ENSURE(s.mem.live_bytes == 0);
}

/* The rigid rotations in the near-null space (amg_create's rot_level): on a curved spring shell,
 * whose rotations cost only the mass term, the V-cycle stays symmetric positive definite with
 * Dirichlet rows zero, and PCG needs fewer iterations when the rotations are carried from level 0
 * or from level 1 than with translations only; amg_set_rotations(0) gives the translation-only
 * V-cycle bit for bit; every level freed */
TF_TEST(amg_rotations_in_the_near_null_space) {
  lin_system s;
  ENSURE(build_shell(&s, 64, 1e4, 1e-2));
  size_t m = 3 * (size_t)s.n;
  double *u = malloc(m * sizeof *u), *w = malloc(m * sizeof *w), *mu = malloc(m * sizeof *mu),
         *mw = malloc(m * sizeof *mw), *b = malloc(m * sizeof *b), *x = malloc(m * sizeof *x);
  pcg_work wk = {.r = malloc(m * sizeof(double)),
                 .z = malloc(m * sizeof(double)),
                 .p = malloc(m * sizeof(double)),
                 .q = malloc(m * sizeof(double)),
                 .pinv = malloc(3 * m * sizeof(double))};
  random_pair(&s, 5, u, w);
  for (size_t k = 0; k < m; ++k)
    b[k] = s.fixed[k / 3] ? 0.0 : (k % 3 == 2 ? -1.0 : 0.1 * (double)(k % 7));
  uint32_t its[3];
  for (uint32_t rot = 0; rot < 3; ++rot) { /* none, from level 0, from level 1 */
    uint32_t level = rot == 0 ? AMG_TRANSLATIONS : rot - 1;
    amg *a = amg_create(&s.mem, s.n, s.mesh.adj_ptr, s.mesh.adj, &s.A, s.pos, level);
    ENSURE(a && amg_level_count(a) >= 3);
    amg_setup(a, &s.A, s.fixed, s.pos);
    amg_apply(a, u, mu);
    amg_apply(a, w, mw);
    double uw = dot(u, mw, m), wu = dot(w, mu, m);
    ENSURE(fabs(uw - wu) <= 1e-9 * fabs(uw));
    ENSURE(dot(u, mu, m) > 0.0 && dot(w, mw, m) > 0.0);
    for (uint32_t i = 0; i < s.n; ++i)
      if (s.fixed[i]) ENSURE(mu[3 * i] == 0.0 && mu[3 * i + 1] == 0.0 && mu[3 * i + 2] == 0.0);
    pcg_result r;
    pcg_precond pre = {amg_apply, a};
    pcg_solve(&s.A, b, x, s.fixed, 1e-8, 2000, &pre, &wk, &r);
    ENSURE(r.converged);
    its[rot] = r.iterations;
    uint32_t n1, z1;
    amg_level_size(a, 1, &n1, &z1);
    TF_NOTE("rotations %s: level 1 %u nodes, PCG to 1e-8 in %u iterations",
            rot == 0   ? "none"
            : rot == 1 ? "from level 0"
                       : "from level 1",
            n1, r.iterations);
    amg_destroy(&s.mem, a);
  }
  ENSURE(its[1] * 4 < its[0] * 3 && its[2] * 4 < its[0] * 3);
  /* turned off (contact steps), a hierarchy built for the rotations is the translation-only one,
   * bit for bit */
  amg *t = amg_create(&s.mem, s.n, s.mesh.adj_ptr, s.mesh.adj, &s.A, s.pos, AMG_TRANSLATIONS),
      *r = amg_create(&s.mem, s.n, s.mesh.adj_ptr, s.mesh.adj, &s.A, s.pos, 1);
  ENSURE(t && r);
  amg_set_rotations(r, 0);
  amg_setup(t, &s.A, s.fixed, s.pos);
  amg_setup(r, &s.A, s.fixed, s.pos);
  amg_apply(t, u, mu);
  amg_apply(r, u, mw);
  ENSURE_MSG(memcmp(mu, mw, m * sizeof *mu) == 0,
             "rotations off: not the translation-only V-cycle");
  amg_set_rotations(r, 1);
  amg_setup(r, &s.A, s.fixed, s.pos);
  amg_apply(r, u, mw);
  ENSURE(memcmp(mu, mw, m * sizeof *mu) != 0);
  amg_destroy(&s.mem, t);
  amg_destroy(&s.mem, r);
  free(u), free(w), free(mu), free(mw), free(b), free(x);
  free(wk.r), free(wk.z), free(wk.p), free(wk.q), free(wk.pinv);
  free_system(&s);
  ENSURE(s.mem.live_bytes == 0);
}
