/* SPDX-License-Identifier: MIT
 * Smoothed-aggregation AMG for 3x3-block SPD matrices (Vanek, Mandel & Brezina 1996; for cloth
 * see Tamstorf, Jones & McCormick 2015). Levels use full block-CSR storage. The near-null space
 * is the translations, one 3x3 identity per aggregate, normalized; smoothing the tentative
 * prolongator with damped block Jacobi, P = (I - w D^-1 A) P0 with w = 4 / (3 rho(D^-1 A)),
 * makes the coarse space reproduce smooth fields (and, approximately, rotations). Dirichlet
 * (pinned) vertices are "dead": zero rows and columns, identity diagonal, zero prolongator rows. */
#include "solve/amg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec3.h"

#define AMG_MAX_LEVELS 16
static const uint32_t COARSEST_NODES = 32;   /* dense Cholesky at or below this many nodes */
static const uint32_t DENSE_MAX_NODES = 600; /* if coarsening stalls above this, no AMG */
static const double MIN_COARSENING = 0.75;   /* stop when a level keeps more than this fraction */
static const int POWER_ITERATIONS = 8;       /* for rho(D^-1 A), from scratch */
static const int POWER_ITERATIONS_WARM =
    2; /* from the last set-up's eigenvector in this step (A drifts slowly) */
static const uint32_t UNSET = UINT32_MAX;

typedef struct pattern {
  uint32_t rows, nnz;
  uint32_t *ptr, *col;
} pattern;

typedef struct level {
  uint32_t n;
  pattern A;
  uint32_t *diag;    /* (n) slot of each diagonal block */
  double *Aval;      /* (9 A.nnz) */
  double *Dinv;      /* (9 n) */
  uint8_t *dead;     /* (n) */
  double *x, *b, *r; /* (3n) */
  double *ev;        /* (3n) dominant eigenvector of D^-1 A at the last set-up */
  int ev_warm;       /* ev holds one */
  /* towards the next level */
  uint32_t *agg; /* (n) */
  uint32_t *cnt; /* (nc) live nodes per aggregate */
  uint32_t nc;
  pattern P, T; /* n x nc: the prolongator and A P */
  double *Pval, *Tval;
} level;

struct amg {
  uint32_t L;
  level lv[AMG_MAX_LEVELS];
  uint32_t *transpose0; /* level 0: slot (i, j) -> slot (j, i) */
  int64_t *marker;      /* (max n) scratch for sparse products, all -1 between uses */
  uint32_t marker_size;
  uint32_t nd;   /* dense size 3 n_coarsest */
  double *dense; /* (nd x nd) Cholesky factor */
};

/* --- patterns ------------------------------------------------------------------------------ */

static int cmp_u64(const void *pa, const void *pb) {
  uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;
  return x < y ? -1 : (x > y);
}

/* CSR pattern of `rows` rows from (row << 32 | col) pairs, sorted and made unique in place */
static int pattern_from_pairs(tf_mem *m, pattern *p, uint32_t rows, uint64_t *pairs, size_t count) {
  qsort(pairs, count, sizeof *pairs, cmp_u64);
  size_t u = 0;
  for (size_t i = 0; i < count; ++i)
    if (i == 0 || pairs[i] != pairs[i - 1]) pairs[u++] = pairs[i];
  p->rows = rows;
  p->nnz = (uint32_t)u;
  p->ptr = mem_array(m, (size_t)rows + 1, sizeof *p->ptr);
  p->col = mem_array(m, u ? u : 1, sizeof *p->col);
  if (!p->ptr || !p->col) return 0;
  for (size_t i = 0; i < u; ++i) {
    p->ptr[(pairs[i] >> 32) + 1]++;
    p->col[i] = (uint32_t)(pairs[i] & 0xffffffffu);
  }
  for (uint32_t r = 0; r < rows; ++r) p->ptr[r + 1] += p->ptr[r];
  return 1;
}

static void pattern_free(tf_mem *m, pattern *p) {
  MEM_FREE_ARRAY(m, p->ptr, (size_t)p->rows + 1);
  MEM_FREE_ARRAY(m, p->col, p->nnz ? p->nnz : 1);
}

/* greedy aggregation (Vanek et al. sec. 4.1): whole neighbourhoods first, then attach the rest */
static uint32_t aggregate(const pattern *A, uint32_t *agg, uint32_t *tmp) {
  uint32_t n = A->rows, nc = 0;
  for (uint32_t i = 0; i < n; ++i) agg[i] = UNSET;
  for (uint32_t i = 0; i < n; ++i) {
    int free_nbhd = agg[i] == UNSET;
    for (uint32_t k = A->ptr[i]; free_nbhd && k < A->ptr[i + 1]; ++k)
      free_nbhd = agg[A->col[k]] == UNSET;
    if (!free_nbhd) continue;
    for (uint32_t k = A->ptr[i]; k < A->ptr[i + 1]; ++k) agg[A->col[k]] = nc;
    agg[i] = nc++;
  }
  for (uint32_t i = 0; i < n; ++i) {
    tmp[i] = agg[i];
    if (agg[i] != UNSET) continue;
    for (uint32_t k = A->ptr[i]; k < A->ptr[i + 1]; ++k)
      if (agg[A->col[k]] != UNSET) {
        tmp[i] = agg[A->col[k]];
        break;
      }
  }
  for (uint32_t i = 0; i < n; ++i) agg[i] = tmp[i];
  for (uint32_t i = 0; i < n; ++i) {
    if (agg[i] != UNSET) continue;
    for (uint32_t k = A->ptr[i]; k < A->ptr[i + 1]; ++k)
      if (agg[A->col[k]] == UNSET) agg[A->col[k]] = nc;
    agg[i] = nc++;
  }
  return nc;
}

static int level_alloc_numbers(tf_mem *m, level *l) {
  size_t n = l->n;
  l->diag = mem_array(m, n, sizeof *l->diag);
  l->Aval = mem_array(m, 9 * (size_t)l->A.nnz, sizeof *l->Aval);
  l->Dinv = mem_array(m, 9 * n, sizeof *l->Dinv);
  l->dead = mem_array(m, n, sizeof *l->dead);
  l->x = mem_array(m, 3 * n, sizeof *l->x);
  l->b = mem_array(m, 3 * n, sizeof *l->b);
  l->r = mem_array(m, 3 * n, sizeof *l->r);
  l->ev = mem_array(m, 3 * n, sizeof *l->ev);
  l->ev_warm = 0;
  if (m->failed) return 0;
  for (uint32_t i = 0; i < l->n; ++i)
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k)
      if (l->A.col[k] == i) l->diag[i] = k;
  return 1;
}

/* structure of the next level: aggregates, P = pattern(A) x aggregates, T = A P, Ac = P^T T */
static int level_coarsen(tf_mem *m, level *l, level *c) {
  uint32_t n = l->n;
  uint32_t *tmp = mem_array(m, n, sizeof *tmp);
  l->agg = mem_array(m, n, sizeof *l->agg);
  if (tmp && l->agg) l->nc = aggregate(&l->A, l->agg, tmp);
  MEM_FREE_ARRAY(m, tmp, n);
  if (!l->agg) return 0;
  l->cnt = mem_array(m, l->nc, sizeof *l->cnt);
  if (!l->cnt) return 0;
  /* P: row i reaches the aggregates of its neighbours */
  size_t np = l->A.nnz;
  uint64_t *pairs = mem_array(m, np, sizeof *pairs);
  if (!pairs) return 0;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k)
      pairs[k] = ((uint64_t)i << 32) | l->agg[l->A.col[k]];
  int ok = pattern_from_pairs(m, &l->P, n, pairs, np);
  MEM_FREE_ARRAY(m, pairs, np);
  if (!ok) return 0;
  /* T = A P */
  size_t nt = 0;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k) {
      uint32_t j = l->A.col[k];
      nt += l->P.ptr[j + 1] - l->P.ptr[j];
    }
  pairs = mem_array(m, nt, sizeof *pairs);
  if (!pairs) return 0;
  nt = 0;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k) {
      uint32_t j = l->A.col[k];
      for (uint32_t q = l->P.ptr[j]; q < l->P.ptr[j + 1]; ++q)
        pairs[nt++] = ((uint64_t)i << 32) | l->P.col[q];
    }
  size_t nt_cap = nt;
  ok = pattern_from_pairs(m, &l->T, n, pairs, nt);
  MEM_FREE_ARRAY(m, pairs, nt_cap);
  if (!ok) return 0;
  /* Ac = P^T T, diagonal included */
  size_t na = l->nc;
  for (uint32_t i = 0; i < n; ++i)
    na += (size_t)(l->P.ptr[i + 1] - l->P.ptr[i]) * (l->T.ptr[i + 1] - l->T.ptr[i]);
  pairs = mem_array(m, na, sizeof *pairs);
  if (!pairs) return 0;
  size_t cap = na;
  na = 0;
  for (uint32_t J = 0; J < l->nc; ++J) pairs[na++] = ((uint64_t)J << 32) | J;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t a = l->P.ptr[i]; a < l->P.ptr[i + 1]; ++a)
      for (uint32_t b = l->T.ptr[i]; b < l->T.ptr[i + 1]; ++b)
        pairs[na++] = ((uint64_t)l->P.col[a] << 32) | l->T.col[b];
  c->n = l->nc;
  ok = pattern_from_pairs(m, &c->A, c->n, pairs, na);
  MEM_FREE_ARRAY(m, pairs, cap);
  if (!ok) return 0;
  l->Pval = mem_array(m, 9 * (size_t)l->P.nnz, sizeof *l->Pval);
  l->Tval = mem_array(m, 9 * (size_t)l->T.nnz, sizeof *l->Tval);
  return !m->failed;
}

amg *amg_create(tf_mem *m, uint32_t n, const uint32_t *adj_ptr, const uint32_t *adj) {
  amg *a = mem_alloc(m, sizeof *a);
  if (!a) return NULL;
  level *l0 = &a->lv[0];
  l0->n = n;
  l0->A.rows = n;
  l0->A.nnz = adj_ptr[n];
  l0->A.ptr = mem_array(m, (size_t)n + 1, sizeof *l0->A.ptr);
  l0->A.col = mem_array(m, l0->A.nnz, sizeof *l0->A.col);
  if (!l0->A.ptr || !l0->A.col) goto fail;
  memcpy(l0->A.ptr, adj_ptr, sizeof(uint32_t) * ((size_t)n + 1));
  memcpy(l0->A.col, adj, sizeof(uint32_t) * l0->A.nnz);
  if (!level_alloc_numbers(m, l0)) goto fail;
  a->L = 1;
  while (a->L < AMG_MAX_LEVELS && a->lv[a->L - 1].n > COARSEST_NODES) {
    level *l = &a->lv[a->L - 1], *c = &a->lv[a->L];
    if (!level_coarsen(m, l, c)) goto fail;
    if (!level_alloc_numbers(m, c)) goto fail;
    a->L++;
    if (c->n > MIN_COARSENING * l->n) break; /* not shrinking: solve here densely */
  }
  if (a->lv[a->L - 1].n > DENSE_MAX_NODES) goto fail; /* the mesh does not coarsen */
  /* level 0 transpose map */
  a->transpose0 = mem_array(m, l0->A.nnz, sizeof *a->transpose0);
  if (!a->transpose0) goto fail;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = l0->A.ptr[i]; k < l0->A.ptr[i + 1]; ++k) {
      uint32_t j = l0->A.col[k], lo = l0->A.ptr[j], hi = l0->A.ptr[j + 1];
      while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (l0->A.col[mid] < i)
          lo = mid + 1;
        else
          hi = mid;
      }
      a->transpose0[k] = lo;
    }
  a->marker_size = n;
  a->marker = mem_array(m, n, sizeof *a->marker);
  a->nd = 3 * a->lv[a->L - 1].n;
  a->dense = mem_array(m, (size_t)a->nd * a->nd, sizeof *a->dense);
  if (!a->marker || !a->dense) goto fail;
  for (uint32_t i = 0; i < n; ++i) a->marker[i] = -1;
  return a;
fail:
  amg_destroy(m, a);
  return NULL;
}

void amg_destroy(tf_mem *m, amg *a) {
  if (!a) return;
  for (uint32_t k = 0; k < AMG_MAX_LEVELS; ++k) {
    level *l = &a->lv[k];
    if (!l->A.ptr && !l->diag) continue;
    size_t n = l->n;
    pattern_free(m, &l->A);
    MEM_FREE_ARRAY(m, l->diag, n);
    MEM_FREE_ARRAY(m, l->Aval, 9 * (size_t)l->A.nnz);
    MEM_FREE_ARRAY(m, l->Dinv, 9 * n);
    MEM_FREE_ARRAY(m, l->dead, n);
    MEM_FREE_ARRAY(m, l->x, 3 * n);
    MEM_FREE_ARRAY(m, l->b, 3 * n);
    MEM_FREE_ARRAY(m, l->r, 3 * n);
    MEM_FREE_ARRAY(m, l->ev, 3 * n);
    MEM_FREE_ARRAY(m, l->agg, n);
    MEM_FREE_ARRAY(m, l->cnt, l->nc);
    if (l->P.ptr) {
      MEM_FREE_ARRAY(m, l->Pval, 9 * (size_t)l->P.nnz);
      pattern_free(m, &l->P);
    }
    if (l->T.ptr) {
      MEM_FREE_ARRAY(m, l->Tval, 9 * (size_t)l->T.nnz);
      pattern_free(m, &l->T);
    }
  }
  MEM_FREE_ARRAY(m, a->transpose0, a->lv[0].A.nnz);
  MEM_FREE_ARRAY(m, a->marker, a->marker_size);
  MEM_FREE_ARRAY(m, a->dense, (size_t)a->nd * a->nd);
  mem_free(m, a, sizeof *a);
}

uint32_t amg_level_count(const amg *a) { return a->L; }

void amg_forget(amg *a) {
  for (uint32_t k = 0; k < a->L; ++k) a->lv[k].ev_warm = 0;
}

void amg_level_size(const amg *a, uint32_t k, uint32_t *n, uint32_t *nnz) {
  *n = k < a->L ? a->lv[k].n : 0;
  *nnz = k < a->L ? a->lv[k].A.nnz : 0;
}

/* --- numbers ------------------------------------------------------------------------------- */

static void m3_mul(double *r, const double *A, const double *B) {
  double t[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      t[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
  memcpy(r, t, sizeof t);
}

/* r += A^T B */
static void m3_tmul_add(double *r, const double *A, const double *B) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r[3 * i + j] += A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

/* r += A B */
static void m3_mul_add(double *r, const double *A, const double *B) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r[3 * i + j] += A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* dead rows and columns zero, identity on their diagonal; inverted diagonal blocks */
static void level_finish(level *l) {
  for (uint32_t i = 0; i < l->n; ++i)
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k)
      if (l->dead[i] || l->dead[l->A.col[k]])
        memset(l->Aval + 9 * (size_t)k, 0, 9 * sizeof(double));
  for (uint32_t i = 0; i < l->n; ++i) {
    double *d = l->Aval + 9 * (size_t)l->diag[i];
    if (l->dead[i]) d[0] = d[4] = d[8] = 1.0;
    double *di = l->Dinv + 9 * (size_t)i;
    if (!m3_inverse(di, d, 1e-300)) {
      memset(di, 0, 9 * sizeof *di);
      for (int k = 0; k < 3; ++k) di[4 * k] = d[4 * k] > 0.0 ? 1.0 / d[4 * k] : 0.0;
    }
  }
}

/* y = A x on a level */
static void level_mul(const level *l, const double *x, double *y) {
  for (uint32_t i = 0; i < l->n; ++i) {
    double s[3] = {0, 0, 0};
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k)
      m3_mulv_add(s, l->Aval + 9 * (size_t)k, x + 3 * (size_t)l->A.col[k]);
    v3_copy(y + 3 * (size_t)i, s);
  }
}

/* rho(D^-1 A) by power iteration from a fixed start (deterministic) */
static double spectral_radius(level *l) {
  double *v = l->ev, *w = l->r;
  int iterations = l->ev_warm ? POWER_ITERATIONS_WARM : POWER_ITERATIONS;
  if (!l->ev_warm)
    for (uint32_t i = 0; i < 3 * l->n; ++i) v[i] = 1.0 + 0.37 * sin(1.7 * i);
  for (uint32_t i = 0; i < 3 * l->n; ++i)
    if (l->dead[i / 3]) v[i] = 0.0;
  l->ev_warm = 1;
  double lam = 1.0;
  for (int it = 0; it < iterations; ++it) {
    level_mul(l, v, w);
    double nv = 0.0, nw = 0.0;
    for (uint32_t i = 0; i < l->n; ++i) {
      double t[3];
      m3_mulv(t, l->Dinv + 9 * (size_t)i, w + 3 * (size_t)i);
      v3_copy(w + 3 * (size_t)i, t);
    }
    for (uint32_t i = 0; i < 3 * l->n; ++i) {
      nv += v[i] * v[i];
      nw += w[i] * w[i];
    }
    if (!(nv > 0.0) || !(nw > 0.0)) {
      l->ev_warm = 0;
      return 1.0;
    }
    lam = sqrt(nw / nv);
    double s = 1.0 / sqrt(nw);
    for (uint32_t i = 0; i < 3 * l->n; ++i) v[i] = w[i] * s;
  }
  return lam;
}

static void level_galerkin(amg *a, level *l, level *c) {
  uint32_t n = l->n;
  int64_t *mk = a->marker;
  /* live nodes per aggregate: the tentative prolongator's column scale 1/sqrt(count) */
  memset(l->cnt, 0, sizeof(uint32_t) * l->nc);
  for (uint32_t i = 0; i < n; ++i)
    if (!l->dead[i]) l->cnt[l->agg[i]]++;
  double omega = 4.0 / (3.0 * spectral_radius(l));
  /* P = P0 - omega D^-1 A P0 */
  memset(l->Pval, 0, sizeof(double) * 9 * l->P.nnz);
  for (uint32_t i = 0; i < n; ++i) {
    if (l->dead[i]) continue;
    for (uint32_t q = l->P.ptr[i]; q < l->P.ptr[i + 1]; ++q) mk[l->P.col[q]] = q;
    double *pi = l->Pval + 9 * (size_t)mk[l->agg[i]];
    double ci = 1.0 / sqrt((double)l->cnt[l->agg[i]]);
    pi[0] += ci;
    pi[4] += ci;
    pi[8] += ci;
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k) {
      uint32_t j = l->A.col[k];
      if (l->dead[j]) continue;
      double cj = -omega / sqrt((double)l->cnt[l->agg[j]]), t[9];
      m3_mul(t, l->Dinv + 9 * (size_t)i, l->Aval + 9 * (size_t)k);
      double *pj = l->Pval + 9 * (size_t)mk[l->agg[j]];
      for (int e = 0; e < 9; ++e) pj[e] += cj * t[e];
    }
    for (uint32_t q = l->P.ptr[i]; q < l->P.ptr[i + 1]; ++q) mk[l->P.col[q]] = -1;
  }
  /* T = A P */
  memset(l->Tval, 0, sizeof(double) * 9 * l->T.nnz);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t q = l->T.ptr[i]; q < l->T.ptr[i + 1]; ++q) mk[l->T.col[q]] = q;
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k) {
      uint32_t j = l->A.col[k];
      for (uint32_t q = l->P.ptr[j]; q < l->P.ptr[j + 1]; ++q)
        m3_mul_add(l->Tval + 9 * (size_t)mk[l->P.col[q]], l->Aval + 9 * (size_t)k,
                   l->Pval + 9 * (size_t)q);
    }
    for (uint32_t q = l->T.ptr[i]; q < l->T.ptr[i + 1]; ++q) mk[l->T.col[q]] = -1;
  }
  /* Ac = P^T T */
  memset(c->Aval, 0, sizeof(double) * 9 * c->A.nnz);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t p = l->P.ptr[i]; p < l->P.ptr[i + 1]; ++p) {
      uint32_t J = l->P.col[p];
      for (uint32_t q = c->A.ptr[J]; q < c->A.ptr[J + 1]; ++q) mk[c->A.col[q]] = q;
      for (uint32_t t = l->T.ptr[i]; t < l->T.ptr[i + 1]; ++t)
        m3_tmul_add(c->Aval + 9 * (size_t)mk[l->T.col[t]], l->Pval + 9 * (size_t)p,
                    l->Tval + 9 * (size_t)t);
      for (uint32_t q = c->A.ptr[J]; q < c->A.ptr[J + 1]; ++q) mk[c->A.col[q]] = -1;
    }
  for (uint32_t J = 0; J < c->n; ++J) c->dead[J] = l->cnt[J] == 0;
  level_finish(c);
}

/* Cholesky of the coarsest level, densely; a non-positive pivot (round-off on a singular
 * direction) is replaced by a tiny positive one */
static void dense_factor(amg *a) {
  level *l = &a->lv[a->L - 1];
  uint32_t nd = a->nd;
  double *D = a->dense;
  memset(D, 0, sizeof(double) * nd * nd);
  double dmax = 0.0;
  for (uint32_t i = 0; i < l->n; ++i)
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k) {
      uint32_t j = l->A.col[k];
      const double *b = l->Aval + 9 * (size_t)k;
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s) D[(size_t)(3 * i + r) * nd + 3 * j + s] = b[3 * r + s];
    }
  for (uint32_t i = 0; i < nd; ++i) dmax = fmax(dmax, D[(size_t)i * nd + i]);
  for (uint32_t j = 0; j < nd; ++j) {
    double *rj = D + (size_t)j * nd;
    double s = rj[j];
    for (uint32_t k = 0; k < j; ++k) s -= rj[k] * rj[k];
    s = s > 1e-14 * dmax ? sqrt(s) : sqrt(1e-14 * dmax + 1e-300);
    rj[j] = s;
    for (uint32_t i = j + 1; i < nd; ++i) {
      double *ri = D + (size_t)i * nd;
      double t = ri[j];
      for (uint32_t k = 0; k < j; ++k) t -= ri[k] * rj[k];
      ri[j] = t / s;
    }
  }
}

static void dense_solve(const amg *a, const double *b, double *x) {
  uint32_t nd = a->nd;
  const double *D = a->dense;
  for (uint32_t i = 0; i < nd; ++i) {
    double s = b[i];
    for (uint32_t k = 0; k < i; ++k) s -= D[(size_t)i * nd + k] * x[k];
    x[i] = s / D[(size_t)i * nd + i];
  }
  for (uint32_t i = nd; i-- > 0;) {
    double s = x[i];
    for (uint32_t k = i + 1; k < nd; ++k) s -= D[(size_t)k * nd + i] * x[k];
    x[i] = s / D[(size_t)i * nd + i];
  }
}

void amg_setup(amg *a, const bsr *H, const uint8_t *fixed) {
  level *l0 = &a->lv[0];
  /* level 0: expand the upper-triangle Hessian into full storage. A block outside level 0's
   * (sparser) pattern, e.g. the coupling of a bending hinge's opposite vertices, is lumped onto
   * both diagonals as |B|_F I: [0 B; B^T 0] <= |B| I, so the preconditioner stays SPD and above
   * the Hessian it drops. */
  memset(l0->Aval, 0, 9 * sizeof(double) * l0->A.nnz);
  for (uint32_t i = 0; i < l0->n; ++i) {
    l0->dead[i] = fixed ? fixed[i] : 0;
    uint32_t q = l0->diag[i], qend = l0->A.ptr[i + 1];
    for (uint32_t k = H->row_ptr[i]; k < H->row_ptr[i + 1]; ++k) {
      uint32_t j = H->col[k];
      const double *b = H->val + 9 * (size_t)k;
      while (q < qend && l0->A.col[q] < j) ++q;
      if (q < qend && l0->A.col[q] == j) {
        double *d = l0->Aval + 9 * (size_t)q;
        for (int e = 0; e < 9; ++e) d[e] += b[e];
        if (j != i) {
          double *t = l0->Aval + 9 * (size_t)a->transpose0[q];
          for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) t[3 * c + r] += b[3 * r + c];
        }
        continue;
      }
      if (fixed && (fixed[i] || fixed[j]))
        continue; /* a Dirichlet end: the coupling is not in the system */
      double nb = 0.0;
      for (int e = 0; e < 9; ++e) nb += b[e] * b[e];
      nb = sqrt(nb);
      double *di = l0->Aval + 9 * (size_t)l0->diag[i], *dj = l0->Aval + 9 * (size_t)l0->diag[j];
      for (int e = 0; e < 9; e += 4) di[e] += nb, dj[e] += nb;
    }
  }
  level_finish(l0);
  for (uint32_t k = 0; k + 1 < a->L; ++k) level_galerkin(a, &a->lv[k], &a->lv[k + 1]);
  dense_factor(a);
}

/* post-smoothing: one backward Gauss-Seidel sweep on A x = b; dead rows stay zero */
static void gauss_seidel_backward(const level *l, const double *b, double *x) {
  for (uint32_t s = 0; s < l->n; ++s) {
    uint32_t i = l->n - 1 - s;
    if (l->dead[i]) continue;
    double r[3];
    v3_copy(r, b + 3 * (size_t)i);
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k) {
      uint32_t j = l->A.col[k];
      if (j == i) continue;
      const double *m = l->Aval + 9 * (size_t)k, *xj = x + 3 * (size_t)j;
      r[0] -= m[0] * xj[0] + m[1] * xj[1] + m[2] * xj[2];
      r[1] -= m[3] * xj[0] + m[4] * xj[1] + m[5] * xj[2];
      r[2] -= m[6] * xj[0] + m[7] * xj[1] + m[8] * xj[2];
    }
    m3_mulv(x + 3 * (size_t)i, l->Dinv + 9 * (size_t)i, r);
  }
}

/* Pre-smoothing: one forward Gauss-Seidel sweep from x = 0, which also leaves the residual
 * r = b - A x. From zero, row i sees only its final lower neighbours (j < i), so the sweep reads
 * the lower half of each row; the residual's upper part -sum_{j > i} A_ij x_j is scattered from
 * row i's lower blocks (A_ji = A_ij^T) while they are still in cache, once x_i is known. Half a
 * pass over the matrix instead of a full sweep plus a product. */
static void gauss_seidel_forward_from_zero(const level *l, const double *b, double *x, double *r) {
  for (uint32_t i = 0; i < l->n; ++i) {
    double *xi = x + 3 * (size_t)i, *ri = r + 3 * (size_t)i;
    if (l->dead[i]) {
      v3_set(xi, 0.0, 0.0, 0.0);
      v3_set(ri, 0.0, 0.0, 0.0); /* its prolongator row is zero: nothing to restrict */
      continue;
    }
    uint32_t k0 = l->A.ptr[i], kd = l->diag[i];
    double s[3];
    v3_copy(s, b + 3 * (size_t)i);
    for (uint32_t k = k0; k < kd; ++k) {
      const double *m = l->Aval + 9 * (size_t)k, *xj = x + 3 * (size_t)l->A.col[k];
      s[0] -= m[0] * xj[0] + m[1] * xj[1] + m[2] * xj[2];
      s[1] -= m[3] * xj[0] + m[4] * xj[1] + m[5] * xj[2];
      s[2] -= m[6] * xj[0] + m[7] * xj[1] + m[8] * xj[2];
    }
    m3_mulv(xi, l->Dinv + 9 * (size_t)i, s);
    /* r_i = s - D_i x_i: zero up to round-off, exact when D_i was singular and not inverted */
    const double *d = l->Aval + 9 * (size_t)kd;
    ri[0] = s[0] - (d[0] * xi[0] + d[1] * xi[1] + d[2] * xi[2]);
    ri[1] = s[1] - (d[3] * xi[0] + d[4] * xi[1] + d[5] * xi[2]);
    ri[2] = s[2] - (d[6] * xi[0] + d[7] * xi[1] + d[8] * xi[2]);
    for (uint32_t k = k0; k < kd; ++k) {
      const double *m = l->Aval + 9 * (size_t)k;
      double *rj = r + 3 * (size_t)l->A.col[k];
      rj[0] -= m[0] * xi[0] + m[3] * xi[1] + m[6] * xi[2];
      rj[1] -= m[1] * xi[0] + m[4] * xi[1] + m[7] * xi[2];
      rj[2] -= m[2] * xi[0] + m[5] * xi[1] + m[8] * xi[2];
    }
  }
}

/* x = V-cycle(b) on level k */
static void vcycle(amg *a, uint32_t k, const double *b, double *x) {
  level *l = &a->lv[k];
  if (k + 1 == a->L) {
    dense_solve(a, b, x);
    for (uint32_t i = 0; i < l->n; ++i)
      if (l->dead[i]) v3_set(x + 3 * (size_t)i, 0, 0, 0);
    return;
  }
  level *c = &a->lv[k + 1];
  gauss_seidel_forward_from_zero(l, b, x, l->r);
  /* restrict the residual: bc = P^T r */
  memset(c->b, 0, sizeof(double) * 3 * c->n);
  for (uint32_t i = 0; i < l->n; ++i) {
    const double *ri = l->r + 3 * (size_t)i;
    for (uint32_t q = l->P.ptr[i]; q < l->P.ptr[i + 1]; ++q) {
      const double *p = l->Pval + 9 * (size_t)q;
      double *bc = c->b + 3 * (size_t)l->P.col[q];
      bc[0] += p[0] * ri[0] + p[3] * ri[1] + p[6] * ri[2];
      bc[1] += p[1] * ri[0] + p[4] * ri[1] + p[7] * ri[2];
      bc[2] += p[2] * ri[0] + p[5] * ri[1] + p[8] * ri[2];
    }
  }
  vcycle(a, k + 1, c->b, c->x);
  /* prolongate the correction: x += P xc */
  for (uint32_t i = 0; i < l->n; ++i)
    for (uint32_t q = l->P.ptr[i]; q < l->P.ptr[i + 1]; ++q)
      m3_mulv_add(x + 3 * (size_t)i, l->Pval + 9 * (size_t)q, c->x + 3 * (size_t)l->P.col[q]);
  gauss_seidel_backward(l, b, x);
}

void amg_apply(void *ctx, const double *r, double *z) {
  amg *a = ctx;
  vcycle(a, 0, r, z);
}
