/* SPDX-License-Identifier: MIT
 * Room for contact in the solver: the pair block matrix against a dense product, its reserve and
 * overflow contract, PCG on BSR + pair blocks against a dense solve, and Newton with a step bound
 * (the CCD filter of IPC, Li et al. 2020 alg. 1) that never steps past a wall, while a NULL bound
 * leaves a run bit for bit as it was. */
#include <stdlib.h>
#include <string.h>

#include "solve/newton.h"
#include "solve/pcg.h"
#include "tf_test.h"

/* uniform in [-1, 1) from a 32-bit LCG (Numerical Recipes constants) */
static double rnd(unsigned *seed) {
  *seed = *seed * 1664525u + 1013904223u;
  return (double)(*seed >> 8) / (1 << 23) - 1.0;
}

/* solve the dense N x N system A x = b by Gaussian elimination with partial pivoting (A, b are
 * overwritten); 0 if singular */
static int dense_solve(double *A, double *b, double *x, int N) {
  for (int c = 0; c < N; ++c) {
    int piv = c;
    for (int r = c + 1; r < N; ++r)
      if (fabs(A[r * N + c]) > fabs(A[piv * N + c])) piv = r;
    if (A[piv * N + c] == 0.0) return 0;
    if (piv != c) {
      for (int k = 0; k < N; ++k) {
        double t = A[c * N + k];
        A[c * N + k] = A[piv * N + k];
        A[piv * N + k] = t;
      }
      double t = b[c];
      b[c] = b[piv];
      b[piv] = t;
    }
    for (int r = c + 1; r < N; ++r) {
      double f = A[r * N + c] / A[c * N + c];
      for (int k = c; k < N; ++k) A[r * N + k] -= f * A[c * N + k];
      b[r] -= f * b[c];
    }
  }
  for (int r = N - 1; r >= 0; --r) {
    double v = b[r];
    for (int k = r + 1; k < N; ++k) v -= A[r * N + k] * x[k];
    x[r] = v / A[r * N + r];
  }
  return 1;
}

static double max_abs_diff(const double *a, const double *b, size_t m) {
  double r = 0.0;
  for (size_t k = 0; k < m; ++k) r = fmax(r, fabs(a[k] - b[k]));
  return r;
}

/* FNV-1a over bytes */
static uint64_t hash_bytes(const void *p, size_t n, uint64_t h) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

/* ---- a nonlinear chain for Newton ----------------------------------------------------------
 * E(y) = sum_i m/(2 h2) |y_i - yhat_i|^2 + q/4 |y_i - c_i|^4        (inertia, a convex quartic)
 *      + sum_(i,i+1) k/2 |y_i - y_j - r_ij|^2 + sum_pairs kp/2 |y_i - y_j - r_ij|^2
 * with vertex 0 fixed; every Hessian block is PSD, so the exact Hessian is SPD on the free set. */
enum { CH_N = 10, CH_PAIRS = 3, CH_MAX_BLOCKS = 64 };
static const uint32_t CH_PAIR[CH_PAIRS][2] = {{0, 5}, {7, 2}, {9, 3}}; /* (7, 2): given i > j */

typedef struct chain {
  uint32_t n;
  bsr H;
  uint32_t row_ptr[CH_N + 1], col[CH_MAX_BLOCKS], diag[CH_N];
  double val[9 * CH_MAX_BLOCKS];
  double mass[CH_N], force_ref[CH_N], yhat[3 * CH_N], c[3 * CH_N], y0[3 * CH_N];
  uint8_t fixed[CH_N];
  double h2, k, q, kp; /* s^2, N/m, N/m^3, N/m */
  int pairs_in_energy; /* pair springs on */
  pairmat *pm;         /* pair blocks go here; NULL: into H (its pattern must hold them) */
  double wall;         /* m, floor z for the step bound */
  double lowest;       /* m, lowest free z of any evaluated point */
  uint32_t bound_calls, bound_cuts;
  double bound_min;
  uint32_t evals, grad_evals, hess_evals; /* passes over the "elements", and what they gave */
} chain;

/* adjacency (both triangles, diagonal included, sorted) of the chain plus optional pairs */
static void chain_pattern(chain *ch, int with_pairs) {
  uint8_t a[CH_N][CH_N];
  memset(a, 0, sizeof a);
  for (uint32_t i = 0; i < CH_N; ++i) {
    a[i][i] = 1;
    if (i + 1 < CH_N) a[i][i + 1] = a[i + 1][i] = 1;
  }
  if (with_pairs)
    for (int p = 0; p < CH_PAIRS; ++p)
      a[CH_PAIR[p][0]][CH_PAIR[p][1]] = a[CH_PAIR[p][1]][CH_PAIR[p][0]] = 1;
  uint32_t adj_ptr[CH_N + 1], adj[CH_N * CH_N], k = 0;
  for (uint32_t i = 0; i < CH_N; ++i) {
    adj_ptr[i] = k;
    for (uint32_t j = 0; j < CH_N; ++j)
      if (a[i][j]) adj[k++] = j;
  }
  adj_ptr[CH_N] = k;
  bsr_init_upper(&ch->H, CH_N, adj_ptr, adj, ch->row_ptr, ch->col, ch->diag);
  ch->H.val = ch->val;
}

static void chain_init(chain *ch, int with_pair_pattern) {
  memset(ch, 0, sizeof *ch);
  ch->n = CH_N;
  ch->h2 = 0.01;
  ch->k = 50.0;
  ch->q = 1e3;
  ch->kp = 500.0;
  ch->wall = -INFINITY;
  ch->lowest = INFINITY;
  ch->bound_min = 1.0;
  chain_pattern(ch, with_pair_pattern);
  for (uint32_t i = 0; i < CH_N; ++i) {
    ch->mass[i] = 0.1 + 0.01 * i;
    ch->force_ref[i] = ch->mass[i] * 9.80665;
    double p[3] = {0.1 * i, 0.02 * sin(1.3 * i), 0.0};
    for (int d = 0; d < 3; ++d) {
      ch->y0[3 * i + d] = ch->c[3 * i + d] = p[d];
      ch->yhat[3 * i + d] = p[d];
    }
    ch->yhat[3 * i + 2] -= ch->h2 * 9.80665 * 10.0; /* a strong pull down: 1 m/s^2 x 10 */
  }
  ch->fixed[0] = 1;
}

static void add_to(chain *ch, uint32_t i, uint32_t j, double s, int pair) {
  /* s I at (i, j): a pair's off-diagonal block into the pairmat if there is one, else into H */
  if (i == j || !pair || ch->pm == NULL) {
    uint32_t lo = i < j ? i : j, hi = i ^ j ^ lo;
    uint32_t slot = bsr_slot(&ch->H, lo, hi);
    for (int d = 0; d < 3; ++d) ch->H.val[9 * (size_t)slot + 4 * d] += s;
  } else {
    double b[9] = {s, 0, 0, 0, s, 0, 0, 0, s};
    pairmat_add(ch->pm, i, j, b);
  }
}

static void spring(chain *ch, const double *y, uint32_t i, uint32_t j, double k, int pair,
                   double *E, double *g, bsr *H) {
  double r[3];
  for (int d = 0; d < 3; ++d)
    r[d] = y[3 * i + d] - y[3 * j + d] - (ch->y0[3 * i + d] - ch->y0[3 * j + d]);
  *E += 0.5 * k * (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  if (g)
    for (int d = 0; d < 3; ++d) {
      g[3 * i + d] += k * r[d];
      g[3 * j + d] -= k * r[d];
    }
  if (H) {
    add_to(ch, i, i, k, pair);
    add_to(ch, j, j, k, pair);
    add_to(ch, i, j, -k, pair);
  }
}

static double chain_eval(void *ctx, const double *y, double *g, bsr *H) {
  chain *ch = ctx;
  size_t m = 3 * (size_t)ch->n;
  double E = 0.0;
  ch->evals++, ch->grad_evals += g != NULL, ch->hess_evals += H != NULL;
  if (g) memset(g, 0, m * sizeof *g);
  if (H) {
    bsr_zero(H);
    if (ch->pm) pairmat_clear(ch->pm);
  }
  for (uint32_t i = 0; i < ch->n; ++i) {
    const double *yi = y + 3 * i, *hi = ch->yhat + 3 * i, *ci = ch->c + 3 * i;
    double a = ch->mass[i] / ch->h2, dc[3], dd = 0.0;
    for (int d = 0; d < 3; ++d) {
      dc[d] = yi[d] - ci[d];
      dd += dc[d] * dc[d];
      E += 0.5 * a * (yi[d] - hi[d]) * (yi[d] - hi[d]);
    }
    E += 0.25 * ch->q * dd * dd;
    if (!ch->fixed[i] && yi[2] < ch->lowest) ch->lowest = yi[2];
    if (g)
      for (int d = 0; d < 3; ++d) g[3 * i + d] += a * (yi[d] - hi[d]) + ch->q * dd * dc[d];
    if (H) {
      double *b = H->val + 9 * (size_t)H->diag[i];
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
          b[3 * r + c] += ch->q * (2.0 * dc[r] * dc[c] + (r == c ? dd : 0.0)) + (r == c ? a : 0.0);
    }
  }
  for (uint32_t i = 0; i + 1 < ch->n; ++i) spring(ch, y, i, i + 1, ch->k, 0, &E, g, H);
  if (ch->pairs_in_energy)
    for (int p = 0; p < CH_PAIRS; ++p)
      spring(ch, y, CH_PAIR[p][0], CH_PAIR[p][1], ch->kp, 1, &E, g, H);
  if (g)
    for (uint32_t i = 0; i < ch->n; ++i)
      if (ch->fixed[i]) g[3 * i] = g[3 * i + 1] = g[3 * i + 2] = 0.0;
  return E;
}

typedef struct work_arrays {
  newton_work w;
  double buf[10 * 3 * CH_N], pinv[9 * CH_N];
} work_arrays;

static void work_init(work_arrays *a) {
  size_t m = 3 * CH_N;
  memset(a, 0, sizeof *a);
  double *b = a->buf;
  a->w.grad = b;
  a->w.dir = b + m;
  a->w.trial = b + 2 * m;
  a->w.gtrial = b + 3 * m;
  a->w.pcg.r = b + 4 * m;
  a->w.pcg.z = b + 5 * m;
  a->w.pcg.p = b + 6 * m;
  a->w.pcg.q = b + 7 * m;
  a->w.pcg.pinv = a->pinv;
  a->w.vtx = b + 8 * m;
}

static newton_problem chain_problem(chain *ch) {
  newton_problem p;
  memset(&p, 0, sizeof p);
  p.eval = chain_eval;
  p.ctx = ch;
  p.H = &ch->H;
  p.fixed = ch->fixed;
  p.mass = ch->mass;
  p.h2 = ch->h2;
  p.y_ref = ch->y0;
  p.force_ref = ch->force_ref;
  return p;
}

static const newton_settings CHAIN_SETTINGS = {30, 200, 1e-8, 1e-12};

/* one Newton solve of the chain from y0; returns the hash of y and the result counters */
static uint64_t chain_solve(chain *ch, const newton_problem *p, const newton_settings *ns,
                            double *y, newton_work *w, newton_result *res) {
  memcpy(y, ch->y0, sizeof ch->y0);
  newton_solve(p, ns, y, w, res);
  uint64_t h = hash_bytes(y, sizeof ch->y0, 1469598103934665603ull);
  h = hash_bytes(&res->iterations, sizeof res->iterations, h);
  h = hash_bytes(&res->cg_iterations, sizeof res->cg_iterations, h);
  return hash_bytes(&res->energy, sizeof res->energy, h);
}

static uint64_t chain_run(chain *ch, const newton_problem *p, const newton_settings *ns, double *y,
                          newton_result *res) {
  work_arrays wa;
  work_init(&wa);
  return chain_solve(ch, p, ns, y, &wa.w, res);
}

/* ---- pairmat */

enum { PM_N = 7, PM_ADDS = 16 };

TF_TEST(solve_pairs_mul_add_matches_dense) {
  /* random blocks at random (i, j), i > j included and pairs repeated, against the dense
   * P[i][j] += B, P[j][i] += B^T with fixed rows and columns zeroed */
  enum { N = 3 * PM_N };
  tf_mem mem;
  mem_init(&mem, NULL);
  pairmat pm;
  memset(&pm, 0, sizeof pm);
  ENSURE(pairmat_reserve(&mem, &pm, PM_ADDS));
  static double P[N * N];
  memset(P, 0, sizeof P);
  unsigned seed = 11;
  int lower = 0;
  for (int a = 0; a < PM_ADDS; ++a) {
    uint32_t i = (uint32_t)(a * 5 + 1) % PM_N, j = (uint32_t)(a * 3 + 2 + a / 7) % PM_N;
    if (i == j) j = (j + 1) % PM_N;
    lower += i > j;
    double B[9];
    for (int k = 0; k < 9; ++k) B[k] = rnd(&seed);
    ENSURE(pairmat_add(&pm, i, j, B));
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        P[(3 * i + r) * N + 3 * j + c] += B[3 * r + c];
        P[(3 * j + c) * N + 3 * i + r] += B[3 * r + c];
      }
  }
  ENSURE(lower >= 3 && pm.count == PM_ADDS && pm.overflow == 0);
  for (uint32_t k = 0; k < pm.count; ++k) ENSURE(pm.blk[k].i < pm.blk[k].j);
  double x[N], y0[N], y[N], ref[N];
  for (int k = 0; k < N; ++k) x[k] = rnd(&seed), y0[k] = rnd(&seed);
  for (int pass = 0; pass < 2; ++pass) {
    uint8_t fixed[PM_N] = {0, 0, 1, 0, 0, 1, 0};
    const uint8_t *fx = pass ? fixed : NULL;
    for (int r = 0; r < N; ++r) {
      ref[r] = y0[r];
      for (int c = 0; c < N; ++c)
        if (!fx || (!fx[r / 3] && !fx[c / 3])) ref[r] += P[r * N + c] * x[c];
    }
    memcpy(y, y0, sizeof y);
    pairmat_mul_add(&pm, x, y, fx);
    ENSURE_MSG(max_abs_diff(y, ref, N) <= 1e-13, "pass %d: %.3g", pass, max_abs_diff(y, ref, N));
    if (fx)
      for (int k = 0; k < N; ++k)
        if (fx[k / 3]) ENSURE(y[k] == y0[k]);
  }
  pairmat_free(&mem, &pm);
  ENSURE(mem.live_bytes == 0 && pm.blk == NULL && pm.capacity == 0);
}

/* an allocator that fails while *ud is non-zero */
static void *failing_alloc(size_t size, size_t align, void *ud) {
  if (*(int *)ud) return NULL;
  return aligned_alloc(align, (size + align - 1) / align * align);
}
static void plain_free(void *p, size_t size, void *ud) {
  (void)size;
  (void)ud;
  free(p);
}

/* memory whose allocations fail while *fail is set */
static tf_mem failing_mem(int *fail) {
  tf_allocator al = {failing_alloc, plain_free, fail};
  tf_mem m;
  mem_init(&m, &al);
  return m;
}

TF_TEST(solve_pairs_reserve_and_overflow) {
  int fail = 0;
  tf_mem mem = failing_mem(&fail);
  pairmat pm;
  memset(&pm, 0, sizeof pm);
  double B[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  /* no storage: every add is refused and counted, nothing written */
  ENSURE(pairmat_add(&pm, 0, 1, B) == 0 && pm.overflow == 1 && pm.count == 0);
  ENSURE(pairmat_reserve(&mem, &pm, 0) && mem.alloc_count == 0);
  ENSURE(pairmat_reserve(&mem, &pm, 5));
  ENSURE(pm.capacity >= 5 && pm.grow_count == 1 && mem.alloc_count == 1);
  uint32_t cap = pm.capacity;
  /* fill to capacity (diagonal blocks refused without counting), then one too many */
  ENSURE(pairmat_add(&pm, 3, 3, B) == 0 && pm.count == 0);
  for (uint32_t k = 0; k < cap; ++k) ENSURE(pairmat_add(&pm, k % 4, 4 + k % 3, B));
  uint64_t allocs = mem.alloc_count;
  ENSURE(pairmat_add(&pm, 1, 2, B) == 0 && pairmat_add(&pm, 2, 1, B) == 0);
  ENSURE(pm.count == cap && pm.overflow == 3 && mem.alloc_count == allocs);
  /* a smaller reserve is a no-op; a larger one at least doubles and keeps the blocks */
  ENSURE(pairmat_reserve(&mem, &pm, cap) && mem.alloc_count == allocs && pm.grow_count == 1);
  pairmat_block last = pm.blk[cap - 1];
  ENSURE(pairmat_reserve(&mem, &pm, cap + 1));
  ENSURE(pm.capacity >= 2 * cap && pm.grow_count == 2 && pm.count == cap);
  ENSURE(memcmp(&pm.blk[cap - 1], &last, sizeof last) == 0);
  ENSURE(pairmat_add(&pm, 1, 2, B) && pm.count == cap + 1);
  /* out of memory: 0, the matrix unchanged and still usable */
  fail = 1;
  pairmat before = pm;
  ENSURE(pairmat_reserve(&mem, &pm, 10 * pm.capacity) == 0 && mem.failed);
  ENSURE(memcmp(&before, &pm, sizeof pm) == 0);
  fail = 0;
  /* clear keeps the storage and forgets the overflow */
  pairmat_clear(&pm);
  ENSURE(pm.count == 0 && pm.overflow == 0 && pm.capacity == before.capacity);
  pairmat_free(&mem, &pm);
  ENSURE(mem.live_bytes == 0);
}

/* pairmat_push grows as it goes (self-contact's blocks: contact_add_block): from no storage, every
 * block kept in order with its transpose rule, the storage doubled rarely; out of memory refuses
 * and counts the block and leaves the matrix as it was */
TF_TEST(solve_pairs_push_grows_and_keeps_order) {
  int fail = 0;
  tf_mem mem = failing_mem(&fail);
  pairmat pm;
  memset(&pm, 0, sizeof pm);
  double B[9];
  for (uint32_t k = 0; k < 1000; ++k) {
    for (int r = 0; r < 9; ++r) B[r] = k + 0.1 * r;
    ENSURE(pairmat_push(&mem, &pm, k % 7 + 1, k % 5 + 9, B));
  }
  ENSURE(pairmat_push(&mem, &pm, 3, 3, B) == 0 && pm.overflow == 0); /* a diagonal block */
  ENSURE_MSG(pm.count == 1000 && pm.capacity >= 1000 && pm.grow_count <= 5 &&
                 mem.alloc_count == pm.grow_count,
             "count %u capacity %u growths %u allocations %llu", pm.count, pm.capacity,
             pm.grow_count, (unsigned long long)mem.alloc_count);
  for (uint32_t k = 0; k < 1000; ++k) /* in order, each as given (i < j here) */
    ENSURE(pm.blk[k].i == k % 7 + 1 && pm.blk[k].j == k % 5 + 9 && pm.blk[k].b[8] == k + 0.8);
  ENSURE(pairmat_push(&mem, &pm, 12, 2, B) && pm.blk[1000].i == 2 && pm.blk[1000].b[1] == B[3]);
  while (pm.count < pm.capacity) ENSURE(pairmat_push(&mem, &pm, 0, 1, B));
  fail = 1;
  pairmat before = pm;
  ENSURE(pairmat_push(&mem, &pm, 0, 1, B) == 0 && mem.failed && pm.overflow == 1);
  before.overflow = 1;
  ENSURE(memcmp(&before, &pm, sizeof pm) == 0);
  fail = 0;
  pairmat_free(&mem, &pm);
  ENSURE(mem.live_bytes == 0);
}

/* ---- PCG on H + pairs */

/* S = G G^T + shift I for a random 6x6 G: a PSD element Hessian of two vertices */
static void random_psd6(unsigned *seed, double scale, double shift, double S[36]) {
  double G[36];
  for (int k = 0; k < 36; ++k) G[k] = scale * rnd(seed);
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 6; ++c) {
      double v = r == c ? shift : 0.0;
      for (int k = 0; k < 6; ++k) v += G[6 * r + k] * G[6 * c + k];
      S[6 * r + c] = v;
    }
}

/* the 3x3 block (a, b), a, b in {0, 1}, of a 6x6 matrix */
static void block_of(const double S[36], int a, int b, double B[9]) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) B[3 * r + c] = S[6 * (3 * a + r) + 3 * b + c];
}

static void add_dense6(double *K, int N, uint32_t i, uint32_t j, const double S[36]) {
  uint32_t v[2] = {i, j};
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
          K[(3 * v[a] + r) * N + 3 * v[b] + c] += S[6 * (3 * a + r) + 3 * b + c];
}

TF_TEST(solve_pairs_pcg_matches_dense_solve) {
  /* K = chain of PSD element Hessians + 0.5 I (in bsr) + strong PSD pair Hessians between
   * vertices the chain does not couple (diagonal blocks into H, off-diagonal into pairs); vertex
   * 4 fixed, so the pair (4, 9) must drop out */
  enum { N = 3 * CH_N, NP = 5 };
  static const uint32_t PAIRS[NP][2] = {{0, 6}, {9, 2}, {3, 8}, {5, 1}, {4, 9}};
  chain ch;
  chain_init(&ch, 0);
  ch.fixed[0] = 0;
  ch.fixed[4] = 1;
  bsr_zero(&ch.H);
  static double K[N * N], Kc[N * N];
  memset(K, 0, sizeof K);
  unsigned seed = 5;
  double S[36], B[9];
  for (uint32_t i = 0; i < CH_N; ++i)
    for (int d = 0; d < 3; ++d) {
      ch.H.val[9 * (size_t)ch.H.diag[i] + 4 * d] += 0.5;
      K[(3 * i + d) * N + 3 * i + d] += 0.5;
    }
  for (uint32_t i = 0; i + 1 < CH_N; ++i) {
    random_psd6(&seed, 1.0, 0.0, S);
    add_dense6(K, N, i, i + 1, S);
    block_of(S, 0, 0, B);
    bsr_add_block(&ch.H, ch.H.diag[i], B);
    block_of(S, 1, 1, B);
    bsr_add_block(&ch.H, ch.H.diag[i + 1], B);
    block_of(S, 0, 1, B);
    bsr_add_block(&ch.H, bsr_slot(&ch.H, i, i + 1), B);
  }
  tf_mem mem;
  mem_init(&mem, NULL);
  pairmat pm;
  memset(&pm, 0, sizeof pm);
  ENSURE(pairmat_reserve(&mem, &pm, NP));
  for (int q = 0; q < NP; ++q) {
    uint32_t i = PAIRS[q][0], j = PAIRS[q][1];
    random_psd6(&seed, 3.0, 0.0, S);
    add_dense6(K, N, i, j, S);
    block_of(S, 0, 0, B);
    bsr_add_block(&ch.H, ch.H.diag[i], B);
    block_of(S, 1, 1, B);
    bsr_add_block(&ch.H, ch.H.diag[j], B);
    block_of(S, 0, 1, B);
    ENSURE(pairmat_add(&pm, i, j, B));
  }
  double b[N], x[N], xd[N], xn[N], bd[N];
  for (int k = 0; k < N; ++k) b[k] = ch.fixed[k / 3] ? 0.0 : rnd(&seed);
  /* dense reference: fixed rows and columns replaced by the identity, b = 0 there */
  memcpy(Kc, K, sizeof K);
  for (int r = 0; r < N; ++r)
    for (int c = 0; c < N; ++c)
      if (ch.fixed[r / 3] || ch.fixed[c / 3]) Kc[r * N + c] = r == c ? 1.0 : 0.0;
  memcpy(bd, b, sizeof b);
  ENSURE(dense_solve(Kc, bd, xd, N));
  work_arrays wa;
  work_init(&wa);
  pcg_operator op = {.H = &ch.H, .pairs = &pm};
  pcg_result pr, pn;
  pcg_solve_op(&op, b, x, ch.fixed, 1e-13, 1000, NULL, &wa.w.pcg, &pr);
  pcg_solve(&ch.H, b, xn, ch.fixed, 1e-13, 1000, NULL, &wa.w.pcg, &pn);
  double scale = 0.0;
  for (int k = 0; k < N; ++k) scale = fmax(scale, fabs(xd[k]));
  double err = max_abs_diff(x, xd, N), err_nopairs = max_abs_diff(xn, xd, N);
  TF_NOTE("PCG with pairs: %u iterations, error %.2e of %.2e; without the pair blocks %.2e",
          pr.iterations, err, scale, err_nopairs);
  ENSURE(pr.converged);
  ENSURE(err <= 1e-9 * scale);
  ENSURE(err_nopairs > 1e-2 * scale); /* the pair blocks matter: the test can tell */
  for (int k = 0; k < N; ++k)
    if (ch.fixed[k / 3]) ENSURE(x[k] == 0.0);
  /* pcg_resume: a solve stopped at 1e-3 (its tolerance) or after 3 iterations (its budget), then
   * carried on to 1e-10, is a fresh 1e-10 solve bit for bit, and costs only the rest */
  double xf[N], xr[N];
  pcg_result fr, r1, r2;
  pcg_solve_op(&op, b, xf, ch.fixed, 1e-10, 1000, NULL, &wa.w.pcg, &fr);
  for (int budget = 0; budget < 2; ++budget) {
    pcg_solve_op(&op, b, xr, ch.fixed, budget ? 1e-10 : 1e-3, budget ? 3 : 1000, NULL, &wa.w.pcg,
                 &r1);
    pcg_resume(&op, xr, ch.fixed, 1e-10, 1000, NULL, &wa.w.pcg, &r2);
    TF_NOTE("stopped by its %s after %u iterations, resumed for %u more; fresh %u",
            budget ? "budget" : "tolerance", r1.iterations, r2.iterations, fr.iterations);
    ENSURE(r1.iterations > 0 && r1.iterations < fr.iterations);
    ENSURE(r1.iterations + r2.iterations == fr.iterations);
    ENSURE(r2.converged && r2.rel_residual == fr.rel_residual);
    ENSURE(memcmp(xr, xf, sizeof xf) == 0);
  }
  pairmat_free(&mem, &pm);
}

/* ---- Newton with a step bound */

static const double WALL_SAFETY = 0.9; /* fraction of the distance to the wall a step may cover */

/* the largest fraction of dir keeping every free vertex above z = wall, times WALL_SAFETY */
static double chain_max_step(void *ctx, const double *y, const double *dir) {
  chain *ch = ctx;
  double a = INFINITY;
  for (uint32_t i = 0; i < ch->n; ++i)
    if (!ch->fixed[i] && dir[3 * i + 2] < 0.0)
      a = fmin(a, WALL_SAFETY * (y[3 * i + 2] - ch->wall) / -dir[3 * i + 2]);
  ch->bound_calls++;
  if (a < 1.0) ch->bound_cuts++;
  ch->bound_min = fmin(ch->bound_min, a);
  return a;
}

static double return_one(void *ctx, const double *y, const double *dir) {
  (void)y;
  (void)dir;
  ((chain *)ctx)->bound_calls++;
  return 1.0;
}

static double return_two(void *ctx, const double *y, const double *dir) {
  (void)ctx;
  (void)y;
  (void)dir;
  return 2.0;
}

/* recorded from the solver before the step bound existed (commit 2b23eb0, Release, x86-64) */
static const uint64_t CHAIN_HASH = 0x88687a40aaad136bull;

TF_TEST(solve_pairs_newton_null_bound_bit_identical) {
  chain ch;
  chain_init(&ch, 0);
  newton_problem p = chain_problem(&ch);
  double y0[3 * CH_N], y1[3 * CH_N], y2[3 * CH_N];
  newton_result r0, r1, r2;
  uint64_t h0 = chain_run(&ch, &p, &CHAIN_SETTINGS, y0, &r0);
  p.max_step = return_one;
  uint64_t h1 = chain_run(&ch, &p, &CHAIN_SETTINGS, y1, &r1);
  p.max_step = return_two;
  uint64_t h2 = chain_run(&ch, &p, &CHAIN_SETTINGS, y2, &r2);
  TF_NOTE("hashes %016llx %016llx %016llx; %u iterations, %u bound calls", (unsigned long long)h0,
          (unsigned long long)h1, (unsigned long long)h2, r0.iterations, ch.bound_calls);
  ENSURE(r0.converged && r0.iterations > 2);
  ENSURE(h0 == CHAIN_HASH);
  ENSURE(h1 == h0 && h2 == h0);
  ENSURE(memcmp(y0, y1, sizeof y0) == 0 && memcmp(y0, y2, sizeof y0) == 0);
  ENSURE(ch.bound_calls > 0);
  ENSURE(r0.step_cuts == 0 && r1.step_cuts == 0 && r2.step_cuts == 0);
  ENSURE(r0.min_step_bound == 1.0 && r1.min_step_bound == 1.0 && r2.min_step_bound == 1.0);
}

/* a Newton iteration's gradient comes with the line search's energy at the full step, and a
 * first iterate's Hessian with its gradient once a solve has needed it there: fewer passes over
 * the elements, the same iterates bit for bit (the hash above) */
TF_TEST(newton_fuses_gradient_and_hessian_passes) {
  chain ch;
  chain_init(&ch, 0);
  newton_problem p = chain_problem(&ch);
  double y[3 * CH_N];
  work_arrays wa;
  work_init(&wa);
  newton_result r[2];
  uint32_t evals[2], grads[2], hess[2];
  for (int k = 0; k < 2; ++k) { /* the same solve twice on one work: the second fuses its start */
    ch.evals = ch.grad_evals = ch.hess_evals = 0;
    uint64_t h = chain_solve(&ch, &p, &CHAIN_SETTINGS, y, &wa.w, &r[k]);
    ENSURE_MSG(h == CHAIN_HASH, "solve %d: hash %016llx", k, (unsigned long long)h);
    evals[k] = ch.evals, grads[k] = ch.grad_evals, hess[k] = ch.hess_evals;
  }
  TF_NOTE("%u iterations: %u / %u passes (%u / %u with a gradient, %u / %u with a Hessian)",
          r[0].iterations, evals[0], evals[1], grads[0], grads[1], hess[0], hess[1]);
  /* unfused, every iteration starts with a gradient pass, all but the last add a Hessian pass
   * and a line search of at least one trial: 3 it - 2 passes at least */
  uint32_t it = r[0].iterations;
  ENSURE(r[0].converged && r[1].converged && it > 2);
  ENSURE_MSG(evals[0] < 3 * it - 2, "%u passes for %u iterations", evals[0], it);
  ENSURE(evals[1] == evals[0] - 1 && hess[1] == hess[0] && grads[1] == grads[0]);
}

TF_TEST(solve_pairs_newton_bound_never_crosses_wall) {
  /* the chain's minimum lies below z = wall: unbounded Newton goes there, bounded Newton stays
   * above at every evaluated point (trial points included) and reports each cut */
  chain ch;
  chain_init(&ch, 0);
  newton_problem p = chain_problem(&ch);
  newton_settings ns = CHAIN_SETTINGS;
  ns.max_newton = 8;
  double y[3 * CH_N];
  newton_result free_run, r;
  chain_run(&ch, &p, &CHAIN_SETTINGS, y, &free_run);
  double free_lowest = INFINITY; /* of the minimum, not of the trial points */
  for (uint32_t i = 1; i < CH_N; ++i) free_lowest = fmin(free_lowest, y[3 * i + 2]);
  chain_init(&ch, 0);
  ch.wall = 0.5 * free_lowest;
  p.max_step = chain_max_step;
  chain_run(&ch, &p, &ns, y, &r);
  TF_NOTE(
      "unbounded: converged %d, lowest z %.4f m; wall %.4f m: lowest %.6f m, %u iterations, %u "
      "cuts, min bound %.3g",
      free_run.converged, free_lowest, ch.wall, ch.lowest, r.iterations, r.step_cuts,
      r.min_step_bound);
  ENSURE(free_run.converged && free_lowest < 0.0);
  ENSURE(ch.lowest > ch.wall);
  ENSURE(r.step_cuts >= 1 && r.step_cuts == ch.bound_cuts && r.step_cuts <= r.iterations);
  ENSURE(r.min_step_bound == ch.bound_min && r.min_step_bound < 1.0 && r.min_step_bound > 0.0);
  ENSURE(!r.converged); /* nothing holds the chain at the wall: no balance there */
  ENSURE(r.energy < r.energy_start);
}

/* one vertex, E = k/2 |y - t|^2, the target a hair past the wall z = 0 */
typedef struct point {
  bsr H;
  uint32_t row_ptr[2], col[1], diag[1];
  double val[9], t[3], k, highest;
} point;

static double point_eval(void *ctx, const double *y, double *g, bsr *H) {
  point *pt = ctx;
  double E = 0.0;
  for (int d = 0; d < 3; ++d) {
    E += 0.5 * pt->k * (y[d] - pt->t[d]) * (y[d] - pt->t[d]);
    if (g) g[d] = pt->k * (y[d] - pt->t[d]);
  }
  if (H) {
    bsr_zero(H);
    for (int d = 0; d < 3; ++d) H->val[4 * d] = pt->k;
  }
  pt->highest = fmax(pt->highest, y[2]);
  return E;
}

static double point_max_step(void *ctx, const double *y, const double *dir) {
  (void)ctx;
  return dir[2] > 0.0 ? 0.5 * -y[2] / dir[2] : 1.0;
}

TF_TEST(solve_pairs_newton_subtolerance_step_respects_bound) {
  /* the whole correction (2e-9 m) is below the tolerance (1e-6 m) while the force is not balanced
   * (a stiff spring): the shortcut would take it and cross the wall */
  point pt;
  memset(&pt, 0, sizeof pt);
  pt.row_ptr[1] = 1;
  pt.H.n = 1;
  pt.H.row_ptr = pt.row_ptr;
  pt.H.col = pt.col;
  pt.H.diag = pt.diag;
  pt.H.val = pt.val;
  pt.k = 1e4;
  pt.t[2] = 1e-9;
  const double y0[3] = {0.0, 0.0, -1e-9}, mass = 1.0, force_ref = 1e-3;
  newton_problem p;
  memset(&p, 0, sizeof p);
  p.eval = point_eval;
  p.ctx = &pt;
  p.H = &pt.H;
  p.mass = &mass;
  p.h2 = 1.0;
  p.y_ref = y0;
  p.force_ref = &force_ref;
  newton_settings ns = {10, 10, 1e-3, 1e-6};
  double y[3], buf[9 * 3], pinv[9];
  newton_work w = {buf,
                   buf + 3,
                   buf + 6,
                   buf + 9,
                   {.r = buf + 12, .z = buf + 15, .p = buf + 18, .q = buf + 21, .pinv = pinv},
                   0,
                   buf + 24};
  newton_result r;
  /* without the bound: one sub-tolerance step, converged, past the wall */
  memcpy(y, y0, sizeof y);
  pt.highest = -INFINITY;
  newton_solve(&p, &ns, y, &w, &r);
  ENSURE(r.converged && r.iterations == 1 && y[2] > 0.0);
  /* with it: every point stays below, and no convergence is claimed at the wall */
  p.max_step = point_max_step;
  memcpy(y, y0, sizeof y);
  pt.highest = -INFINITY;
  newton_solve(&p, &ns, y, &w, &r);
  TF_NOTE("bounded: highest z %.3g m, %u iterations, %u cuts, min bound %.3g, converged %d",
          pt.highest, r.iterations, r.step_cuts, r.min_step_bound, r.converged);
  ENSURE(pt.highest < 0.0 && y[2] < 0.0 && y[2] > y0[2]);
  ENSURE(!r.converged);
  ENSURE(r.step_cuts == r.iterations && r.iterations == ns.max_newton);
  ENSURE(r.min_step_bound > 0.0 && r.min_step_bound < 1.0);
}

TF_TEST(solve_pairs_newton_pairs_match_wide_pattern) {
  /* stiff springs between vertices the chain does not couple: their off-diagonal blocks in a
   * pairmat must give the Newton run that a bsr pattern holding them gives */
  chain wide, narrow;
  chain_init(&wide, 1);
  chain_init(&narrow, 0);
  wide.pairs_in_energy = narrow.pairs_in_energy = 1;
  tf_mem mem;
  mem_init(&mem, NULL);
  pairmat pm;
  memset(&pm, 0, sizeof pm);
  ENSURE(pairmat_reserve(&mem, &pm, CH_PAIRS));
  narrow.pm = &pm;
  newton_problem pw = chain_problem(&wide), pn = chain_problem(&narrow);
  pn.pairs = &pm;
  double yw[3 * CH_N], yn[3 * CH_N], yx[3 * CH_N];
  newton_result rw, rn, rx;
  chain_run(&wide, &pw, &CHAIN_SETTINGS, yw, &rw);
  uint64_t allocs = mem.alloc_count;
  chain_run(&narrow, &pn, &CHAIN_SETTINGS, yn, &rn);
  ENSURE_MSG(mem.alloc_count == allocs && pm.overflow == 0 && pm.count == CH_PAIRS,
             "%llu %llu %u %u", (unsigned long long)mem.alloc_count, (unsigned long long)allocs,
             pm.overflow, pm.count);
  /* the same energy with the pair blocks left out of the linear solve: slower */
  pn.pairs = NULL;
  chain_run(&narrow, &pn, &CHAIN_SETTINGS, yx, &rx);
  double err = max_abs_diff(yw, yn, 3 * CH_N);
  TF_NOTE(
      "wide pattern %u iterations (%u CG), pairmat %u (%u CG), diff %.2e m; pairs ignored %u "
      "iterations",
      rw.iterations, rw.cg_iterations, rn.iterations, rn.cg_iterations, err, rx.iterations);
  ENSURE(rw.converged && rn.converged);
  ENSURE(rn.iterations == rw.iterations);
  ENSURE(err <= 1e-9);
  ENSURE(!rx.converged || rx.iterations > rw.iterations);
  pairmat_free(&mem, &pm);
  ENSURE(mem.live_bytes == 0);
}

/* PCG on a matrix that is not positive definite along its first direction: two vertices with
 * identity diagonal blocks coupled by 2 I (eigenvalues 3 and -1) and b = (e1, -e1), so
 * p0 = M^-1 b = b and p0^T A p0 = -2. x = 0 would read as a converged zero correction with the
 * residual untouched (found by a Newton loop that stopped early, issue 16's notes); the solve
 * returns p0, a descent direction (b^T x > 0), not converged */
TF_TEST(pcg_negative_curvature_at_first_direction) {
  const uint32_t adj_ptr[3] = {0, 2, 4}, adj[4] = {0, 1, 0, 1};
  uint32_t row_ptr[3], col[3], diag[2];
  double val[27] = {0};
  bsr A;
  memset(&A, 0, sizeof A);
  A.val = val;
  bsr_init_upper(&A, 2, adj_ptr, adj, row_ptr, col, diag);
  for (int d = 0; d < 3; ++d) {
    A.val[9 * (size_t)A.diag[0] + 4 * d] = 1.0;
    A.val[9 * (size_t)A.diag[1] + 4 * d] = 1.0;
    A.val[9 * (size_t)bsr_slot(&A, 0, 1) + 4 * d] = 2.0;
  }
  double b[6] = {1, 0, 0, -1, 0, 0}, x[6], r[6], z[6], p[6], q[6], pinv[18];
  pcg_work w = {.r = r, .z = z, .p = p, .q = q, .pinv = pinv};
  pcg_result res;
  pcg_solve(&A, b, x, NULL, 1e-8, 100, NULL, &w, &res);
  double bx = 0.0;
  for (int k = 0; k < 6; ++k) bx += b[k] * x[k];
  TF_NOTE("negative curvature at the first direction: %u iterations, converged %d, b.x = %g",
          res.iterations, res.converged, bx);
  ENSURE(!res.converged && res.iterations == 0 && bx > 0.0);
  ENSURE(memcmp(x, b, sizeof x) == 0);
}
