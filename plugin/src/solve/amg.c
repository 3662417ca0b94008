/* SPDX-License-Identifier: MIT
 * Smoothed-aggregation AMG for 3x3-block SPD matrices (Vanek, Mandel & Brezina 1996; for cloth
 * see Tamstorf, Jones & McCormick 2015). Levels use full block-CSR storage. The near-null space
 * is the translations, one 3x3 identity per aggregate, normalized (from amg_create's rot_level on,
 * also the three rigid rotations about the aggregate's centre: amg_modes); smoothing the tentative
 * prolongator with damped block Jacobi, P = (I - w D^-1 A) P0 with w = 4 / (3 rho(D^-1 A)),
 * makes the coarse space reproduce smooth fields (and, approximately, rotations). Dirichlet
 * (pinned) vertices are "dead": zero rows and columns, identity diagonal, zero prolongator rows.
 * Set-up computes in double; the V-cycle reads float copies of the matrices and prolongators
 * (round_row: half the memory traffic, and still an SPD preconditioner). */
#include "solve/amg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/morton.h"
#include "core/pool.h"
#include "core/vec3.h"

#define AMG_MAX_LEVELS 16
static const uint32_t COARSEST_NODES = 32;   /* dense Cholesky at or below this many nodes */
static const uint32_t DENSE_MAX_NODES = 600; /* if coarsening stalls above this, no AMG */
static const double MIN_COARSENING = 0.75;   /* stop when a level keeps more than this fraction */
static const int POWER_ITERATIONS = 8;       /* for rho(D^-1 A), from scratch */
static const int POWER_ITERATIONS_WARM =
    2; /* from the last set-up's eigenvector in this step (A drifts slowly) */
static const uint32_t UNSET = UINT32_MAX;
/* the smoother: at most this many row blocks per level (each couples to the others only through
 * the Jacobi part, which costs CG iterations: SWING-128 needed 17 % more with 16 blocks of 512
 * rows), and none smaller than SMOOTH_MIN_ROWS */
enum { SMOOTH_MAX_BLOCKS = 8, SMOOTH_MIN_ROWS = 2048 };

typedef struct pattern {
  uint32_t rows, nnz;
  uint32_t *ptr, *col;
} pattern;

typedef struct level {
  uint32_t n;
  pattern A;
  uint32_t *diag; /* (n) slot of each diagonal block */
  double *Aval;   /* (9 A.nnz) */
  float *Af;      /* (9 A.nnz) the V-cycle's copy, rounded to float (round_row) */
  double *Dinv;   /* (9 n) */
  double *Sinv;   /* (9 n) the smoother's inverted diagonal: Dinv, l1-augmented at block edges */
  double *aug;    /* (9 n) that augmentation (0 away from block edges) */
  /* the smoother's row blocks (level_blocks of them): each row's block, and each block's rows in
   * increasing order (bptr, brow); blocks are compact in space (level_partition) */
  uint16_t *bid;     /* (n) */
  uint8_t *cross;    /* (n) the row couples to another block (the pattern's, fixed) */
  uint32_t *bptr;    /* (level_blocks + 1) */
  uint32_t *brow;    /* (n) */
  double *pos;       /* (3n) a point per row: the rest positions, then aggregates' means */
  uint8_t *dead;     /* (n) */
  double *x, *b, *r; /* (3n) */
  double *ev;        /* (3n) dominant eigenvector of D^-1 A at the last set-up */
  double *xs;        /* (3n) x before the backward sweep: what other row blocks read */
  int ev_warm;       /* ev holds one */
  /* With rotations (amg_create), this level's near-null space B, node by node, in the global
   * rigid modes (t, theta): a translation node i has B_i = w_i [I, -[p_i]x] (level 0: w = 1, p the
   * vertex's current position), a rotation node B_i = [0, L_i]; levels past 0 pair them, node 2a
   * translation and 2a + 1 rotation of the finer level's aggregate a (amg_modes) */
  uint8_t paired;
  uint8_t rot; /* this level's prolongator carries the rotations */
  /* a level past 0 of translation nodes only, with nw and np: the next level carries rotations */
  uint8_t weighted;
  double *nw, *np, *nL; /* (n), (3n), (9n): w_i, p_i, L_i; levels past 0 */
  double *P0;           /* (18n) the tentative prolongator's blocks to its aggregate's two nodes */
  /* towards the next level */
  uint32_t *agg; /* (n) */
  uint32_t *cnt; /* (nagg) live nodes per aggregate */
  uint32_t nc;   /* coarse nodes: nagg, or 2 nagg with rotations */
  uint32_t nagg;
  /* with rotations, per aggregate: sum w^2, the weighted centroid, U^-1 of the rotations' Gram
   * matrix G = U^T U (zero when the rotations are dropped) */
  double *aw, *ac, *aui; /* (nagg), (3 nagg), (9 nagg) */
  pattern P, T;          /* n x nc: the prolongator and A P */
  double *Pval, *Tval;
  float *Pf; /* (9 P.nnz) the V-cycle's copy of Pval, rounded to float */
  /* restriction as a gather: coarse row J sums P's blocks (rslot) times r of rows rrow */
  uint32_t *rptr, *rrow, *rslot; /* (nc + 1), (P.nnz), (P.nnz) */
} level;

static uint32_t level_blocks(const level *l) {
  uint32_t nb = (l->n + SMOOTH_MIN_ROWS - 1) / SMOOTH_MIN_ROWS;
  if (nb > 1 && nb % 2) nb++;
  return nb < SMOOTH_MAX_BLOCKS ? nb : SMOOTH_MAX_BLOCKS;
}

struct amg {
  uint32_t L;
  uint32_t rot_from; /* levels from this one on carry the rotations (amg_create) */
  int turn;          /* and use them at the next full set-up (amg_set_rotations) */
  const double *x;   /* Nullable: the positions of amg_setup's Hessian (vertex order) */
  tf_pool *pool;     /* Nullable: the V-cycle's threads (amg_set_pool) */
  level lv[AMG_MAX_LEVELS];
  /* Level 0 with more than one smoother block keeps the Hessian's rows in its own order: each
   * block (cut from a Morton curve of the rest positions, level_partition) a run of rows, within
   * it the vertices' order (perm0[i'] = the vertex of row i', iperm0 its inverse; both NULL with
   * one block: the mesh's order). A mesh's numbering is often not spatial (TetGen's, a
   * modeller's): in it a block's rows were spread over the whole vector, so two threads' blocks
   * wrote to the same cache lines and every sweep walked the matrix out of order (FLESH-20k's
   * V-cycle 1.19 ms on one thread, 1.07 on two; in runs, 1.05 and 0.65). The sweep meets a
   * block's rows in the order it did, and a single block's level is untouched (reordering it too
   * changed DRAPE-32's aggregates: 3.6 -> 4.4 Newton iterations a step). amg_apply gathers r into
   * this order and scatters z back (r0, z0). */
  uint32_t *perm0, *iperm0; /* (n) */
  double *r0, *z0;          /* (3n) */
  uint32_t *transpose0;     /* level 0: slot (i, j) -> slot (j, i) */
  /* level 0 from the Hessian's pattern (bind_hessian): each full slot's source, an H slot (bit
   * SRC_T: transposed) or none, and per row the H blocks lumped onto its diagonal and their other
   * ends */
  uint32_t *src0;                  /* (lv[0].A.nnz) */
  uint32_t *lptr0, *lump0, *lend0; /* (n + 1), (lumps), (lumps) */
  uint32_t lumps;
  /* per thread of the pool, a column -> slot marker over the widest level (UINT32_MAX between
   * uses) for the set-up's sparse products */
  uint32_t *mark, mark_threads;
  uint32_t nd;    /* dense size 3 n_coarsest */
  double *dense;  /* (nd x nd) Cholesky factor */
  double *built0; /* (9 lv[0].A.nnz) level 0's values at the last full set-up; with reuse only */
  int built;      /* the coarse levels are built0's, and no amg_forget since */
  uint32_t full_setups;
  double reuse; /* amg_set_reuse's fraction; 0: every set-up is full */
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

/* l->agg and l->nagg. A paired level (translation and rotation nodes 2g, 2g + 1, whose rows share
 * one pattern: every prolongator column comes with its partner) aggregates its pairs, so that an
 * aggregate's rotation node stays with its translation node. */
static int aggregate_level(tf_mem *m, level *l) {
  uint32_t n = l->n;
  if (!l->paired) {
    uint32_t *tmp = mem_array(m, n, sizeof *tmp);
    if (!tmp) return 0;
    l->nagg = aggregate(&l->A, l->agg, tmp);
    MEM_FREE_ARRAY(m, tmp, n);
    return 1;
  }
  uint32_t ng = n / 2;
  pattern G = {ng, 0, mem_array(m, (size_t)ng + 1, sizeof(uint32_t)), NULL};
  uint32_t *gagg = mem_array(m, ng ? ng : 1, sizeof *gagg),
           *tmp = mem_array(m, ng ? ng : 1, sizeof *tmp);
  int ok = G.ptr && gagg && tmp;
  for (uint32_t g = 0; ok && g < ng; ++g) {
    G.ptr[g + 1] = G.ptr[g];
    for (uint32_t k = l->A.ptr[2 * g]; k < l->A.ptr[2 * g + 1]; ++k)
      G.ptr[g + 1] += !(l->A.col[k] & 1);
  }
  if (ok) {
    G.nnz = G.ptr[ng];
    G.col = mem_array(m, G.nnz ? G.nnz : 1, sizeof *G.col);
    ok = G.col != NULL;
  }
  for (uint32_t g = 0, q = 0; ok && g < ng; ++g)
    for (uint32_t k = l->A.ptr[2 * g]; k < l->A.ptr[2 * g + 1]; ++k)
      if (!(l->A.col[k] & 1)) G.col[q++] = l->A.col[k] / 2;
  if (ok) {
    l->nagg = aggregate(&G, gagg, tmp);
    for (uint32_t i = 0; i < n; ++i) l->agg[i] = gagg[i / 2];
  }
  if (G.col) MEM_FREE_ARRAY(m, G.col, G.nnz ? G.nnz : 1);
  if (G.ptr) MEM_FREE_ARRAY(m, G.ptr, (size_t)ng + 1);
  MEM_FREE_ARRAY(m, gagg, gagg ? (ng ? ng : 1) : 0);
  MEM_FREE_ARRAY(m, tmp, tmp ? (ng ? ng : 1) : 0);
  return ok;
}

static int level_alloc_numbers(tf_mem *m, level *l) {
  size_t n = l->n;
  l->diag = mem_array(m, n, sizeof *l->diag);
  l->Aval = mem_array(m, 9 * (size_t)l->A.nnz, sizeof *l->Aval);
  l->Af = mem_array(m, 9 * (size_t)l->A.nnz, sizeof *l->Af);
  l->Dinv = mem_array(m, 9 * n, sizeof *l->Dinv);
  l->Sinv = mem_array(m, 9 * n, sizeof *l->Sinv);
  l->aug = mem_array(m, 9 * n, sizeof *l->aug);
  l->bid = mem_array(m, n, sizeof *l->bid);
  l->cross = mem_array(m, n, sizeof *l->cross);
  l->bptr = mem_array(m, (size_t)SMOOTH_MAX_BLOCKS + 1, sizeof *l->bptr);
  l->brow = mem_array(m, n, sizeof *l->brow);
  l->pos = mem_array(m, 3 * n, sizeof *l->pos);
  l->dead = mem_array(m, n, sizeof *l->dead);
  l->x = mem_array(m, 3 * n, sizeof *l->x);
  l->b = mem_array(m, 3 * n, sizeof *l->b);
  l->r = mem_array(m, 3 * n, sizeof *l->r);
  l->ev = mem_array(m, 3 * n, sizeof *l->ev);
  l->xs = mem_array(m, 3 * n, sizeof *l->xs);
  l->ev_warm = 0;
  if (l->paired || l->weighted) {
    l->nw = mem_array(m, n, sizeof *l->nw);
    l->np = mem_array(m, 3 * n, sizeof *l->np);
    l->nL = mem_array(m, 9 * n, sizeof *l->nL);
  }
  if (m->failed) return 0;
  for (uint32_t i = 0; i < l->n; ++i)
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k)
      if (l->A.col[k] == i) l->diag[i] = k;
  return 1;
}

/* structure of the next level: aggregates, P = pattern(A) x aggregates, T = A P, Ac = P^T T */
static int level_coarsen(tf_mem *m, const amg *a, level *l, level *c) {
  uint32_t n = l->n;
  l->agg = mem_array(m, n, sizeof *l->agg);
  if (!l->agg || !aggregate_level(m, l)) return 0;
  l->rot = (uint32_t)(l - a->lv) >= a->rot_from;
  l->nc = l->rot ? 2 * l->nagg : l->nagg;
  l->cnt = mem_array(m, l->nagg, sizeof *l->cnt);
  if (!l->cnt) return 0;
  if (l->rot) {
    c->paired = 1;
    l->P0 = mem_array(m, 18 * (size_t)n, sizeof *l->P0);
    l->aw = mem_array(m, l->nagg, sizeof *l->aw);
    l->ac = mem_array(m, 3 * (size_t)l->nagg, sizeof *l->ac);
    l->aui = mem_array(m, 9 * (size_t)l->nagg, sizeof *l->aui);
    if (m->failed) return 0;
  }
  /* P: row i reaches the aggregates of its neighbours (with rotations, both their nodes) */
  uint32_t per = l->rot ? 2 : 1;
  size_t np = (size_t)per * l->A.nnz;
  uint64_t *pairs = mem_array(m, np, sizeof *pairs);
  if (!pairs) return 0;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k)
      for (uint32_t e = 0; e < per; ++e)
        pairs[per * (size_t)k + e] = ((uint64_t)i << 32) | (per * l->agg[l->A.col[k]] + e);
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
    for (uint32_t p = l->P.ptr[i]; p < l->P.ptr[i + 1]; ++p)
      for (uint32_t b = l->T.ptr[i]; b < l->T.ptr[i + 1]; ++b)
        pairs[na++] = ((uint64_t)l->P.col[p] << 32) | l->T.col[b];
  c->n = l->nc;
  ok = pattern_from_pairs(m, &c->A, c->n, pairs, na);
  MEM_FREE_ARRAY(m, pairs, cap);
  if (!ok) return 0;
  l->Pval = mem_array(m, 9 * (size_t)l->P.nnz, sizeof *l->Pval);
  l->Pf = mem_array(m, 9 * (size_t)l->P.nnz, sizeof *l->Pf);
  l->Tval = mem_array(m, 9 * (size_t)l->T.nnz, sizeof *l->Tval);
  /* P^T's rows: fine rows in increasing order, as the serial scatter met them */
  l->rptr = mem_array(m, (size_t)l->nc + 1, sizeof *l->rptr);
  l->rrow = mem_array(m, l->P.nnz ? l->P.nnz : 1, sizeof *l->rrow);
  l->rslot = mem_array(m, l->P.nnz ? l->P.nnz : 1, sizeof *l->rslot);
  if (m->failed) return 0;
  for (uint32_t q = 0; q < l->P.nnz; ++q) l->rptr[l->P.col[q] + 1]++;
  for (uint32_t J = 0; J < l->nc; ++J) l->rptr[J + 1] += l->rptr[J];
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t q = l->P.ptr[i]; q < l->P.ptr[i + 1]; ++q) {
      uint32_t at = l->rptr[l->P.col[q]]++;
      l->rrow[at] = i;
      l->rslot[at] = q;
    }
  for (uint32_t J = l->nc; J > 0; --J) l->rptr[J] = l->rptr[J - 1];
  l->rptr[0] = 0;
  return 1;
}

static const uint32_t SRC_T = 0x80000000u, SRC_NONE = UINT32_MAX;

/* the markers for threads threads (level 0 is the widest level, and P's and T's columns are
 * coarse: every index fits) */
static int alloc_marks(tf_mem *m, amg *a, uint32_t threads) {
  size_t count = (size_t)threads * a->lv[0].n;
  uint32_t *mark = mem_array(m, count, sizeof *mark);
  if (!mark) return 0;
  for (size_t k = 0; k < count; ++k) mark[k] = UINT32_MAX;
  MEM_FREE_ARRAY(m, a->mark, (size_t)a->mark_threads * a->lv[0].n);
  a->mark = mark;
  a->mark_threads = threads;
  return 1;
}

/* slot of column j in the sorted row [lo, hi) of col, or UINT32_MAX */
static uint32_t find_col(const uint32_t *col, uint32_t lo, uint32_t hi, uint32_t j) {
  uint32_t end = hi;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (col[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < end && col[lo] == j ? lo : UINT32_MAX;
}

/* where each level-0 block comes from in H (see struct amg): built once, so amg_setup fills
 * level 0 row by row, in parallel, without searching */
static int bind_hessian(tf_mem *m, amg *a, const bsr *H) {
  level *l0 = &a->lv[0];
  uint32_t n = l0->n;
  a->src0 = mem_array(m, l0->A.nnz, sizeof *a->src0);
  a->lptr0 = mem_array(m, (size_t)n + 1, sizeof *a->lptr0);
  if (!a->src0 || !a->lptr0) return 0;
  for (uint32_t q = 0; q < l0->A.nnz; ++q) a->src0[q] = SRC_NONE;
  const uint32_t *ip = a->iperm0;
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t hi = 0; hi < n; ++hi)
      for (uint32_t k = H->row_ptr[hi]; k < H->row_ptr[hi + 1]; ++k) {
        /* H's block (hi, hj) is level 0's (i, j), its rows in level 0's order */
        uint32_t hj = H->col[k], i = ip ? ip[hi] : hi, j = ip ? ip[hj] : hj;
        uint32_t q = find_col(l0->A.col, l0->A.ptr[i], l0->A.ptr[i + 1], j);
        if (q != UINT32_MAX) {
          if (pass == 0) {
            a->src0[q] = k;
            if (j != i) a->src0[a->transpose0[q]] = k | SRC_T;
          }
          continue;
        }
        if (pass == 0) {
          a->lptr0[i + 1]++, a->lptr0[j + 1]++;
        } else { /* lend0: the other end as a vertex, for the fixed flags */
          a->lump0[a->lptr0[i]] = k, a->lend0[a->lptr0[i]++] = hj;
          a->lump0[a->lptr0[j]] = k, a->lend0[a->lptr0[j]++] = hi;
        }
      }
    if (pass == 0) {
      for (uint32_t i = 0; i < n; ++i) a->lptr0[i + 1] += a->lptr0[i];
      a->lumps = a->lptr0[n];
      a->lump0 = mem_array(m, a->lumps ? a->lumps : 1, sizeof *a->lump0);
      a->lend0 = mem_array(m, a->lumps ? a->lumps : 1, sizeof *a->lend0);
      if (!a->lump0 || !a->lend0) return 0;
    }
  }
  for (uint32_t i = n; i > 0; --i) a->lptr0[i] = a->lptr0[i - 1];
  a->lptr0[0] = 0;
  return 1;
}

/* each of n points' block when a Morton curve of pos is cut into nb runs of equal length (rank k
 * in block k nb / n), into bid; 0 when out of memory */
static int morton_blocks(tf_mem *m, uint32_t n, const double *pos, uint32_t nb, uint16_t *bid) {
  uint32_t *perm = mem_array(m, n ? n : 1, sizeof *perm);
  int ok = perm && morton_order(m, n, pos, perm);
  for (uint32_t k = 0; ok && k < n; ++k) bid[perm[k]] = (uint16_t)((uint64_t)k * nb / n);
  MEM_FREE_ARRAY(m, perm, n ? n : 1);
  return ok;
}

/* The smoother's blocks of a level: its rows along a Morton curve of their points, cut into
 * level_blocks runs of equal length, each block's rows then in increasing order. A mesh's own
 * numbering is often not spatial (TetGen's, a modeller's): blocks by index range coupled nearly
 * every row to another block there (FLESH-20k: 19 % more CG iterations and the l1 terms on most
 * rows); blocks in space couple only along their faces. */
static int level_partition(tf_mem *m, level *l, const uint16_t *given) {
  uint32_t n = l->n, nb = level_blocks(l);
  if (given) /* level 0 in its own order: its blocks are runs of rows (order_level0) */
    memcpy(l->bid, given, n * sizeof *l->bid);
  else if (!morton_blocks(m, n, l->pos, nb, l->bid))
    return 0;
  memset(l->bptr, 0, sizeof(uint32_t) * (SMOOTH_MAX_BLOCKS + 1));
  for (uint32_t i = 0; i < n; ++i) l->bptr[l->bid[i] + 1]++;
  for (uint32_t b = 0; b < nb; ++b) l->bptr[b + 1] += l->bptr[b];
  for (uint32_t i = 0; i < n; ++i) l->brow[l->bptr[l->bid[i]]++] = i;
  for (uint32_t b = nb; b > 0; --b) l->bptr[b] = l->bptr[b - 1];
  l->bptr[0] = 0;
  /* which rows reach across (most do not): only they take the l1 term and the cross pass */
  for (uint32_t i = 0; i < n; ++i) {
    l->cross[i] = 0;
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1] && !l->cross[i]; ++k)
      l->cross[i] = l->bid[l->A.col[k]] != l->bid[i];
  }
  return 1;
}

/* every level's points (the aggregates' means of the finer level's) and smoother blocks */
static int partition_levels(tf_mem *m, amg *a, const uint16_t *blk0) {
  for (uint32_t k = 0; k < a->L; ++k) {
    level *l = &a->lv[k];
    if (k + 1 < a->L) {
      level *c = &a->lv[k + 1];
      uint32_t *count = mem_array(m, c->n ? c->n : 1, sizeof *count);
      if (!count) return 0;
      /* an aggregate's mean; with rotations both its nodes (2a, 2a + 1) sit there */
      uint32_t per = c->n / l->nagg;
      for (uint32_t i = 0; i < l->n; ++i) {
        uint32_t J = per * l->agg[i];
        count[J]++;
        for (int e = 0; e < 3; ++e) c->pos[3 * (size_t)J + e] += l->pos[3 * (size_t)i + e];
      }
      for (uint32_t J = 0; J < c->n; J += per)
        for (int e = 0; e < 3; ++e) {
          c->pos[3 * (size_t)J + e] /= count[J] ? count[J] : 1;
          if (per == 2) c->pos[3 * (size_t)J + 3 + e] = c->pos[3 * (size_t)J + e];
        }
      MEM_FREE_ARRAY(m, count, c->n ? c->n : 1);
    }
    if (!level_partition(m, l, k == 0 ? blk0 : NULL)) return 0;
  }
  return 1;
}

/* Level 0's order, when it has more than one smoother block: the blocks level_partition would
 * cut from a Morton curve of the rest positions, each a contiguous run of rows, within a block the
 * rows in the vertices' order (so a block's sweep meets its rows in the order it always did). perm0,
 * iperm0 and the gather/scatter scratch, level 0's pattern (the adjacency renumbered) and *blk, each
 * row's block (n, freed by the caller); with one block nothing is set, level 0 is the mesh's order */
static int order_level0(tf_mem *m, amg *a, uint32_t n, const uint32_t *adj_ptr, const uint32_t *adj,
                        const double *pos, uint16_t **blk) {
  uint32_t nb = level_blocks(&a->lv[0]);
  if (nb <= 1) return 1;
  a->perm0 = mem_array(m, n, sizeof *a->perm0);
  a->iperm0 = mem_array(m, n, sizeof *a->iperm0);
  a->r0 = mem_array(m, 3 * (size_t)n, sizeof *a->r0);
  a->z0 = mem_array(m, 3 * (size_t)n, sizeof *a->z0);
  *blk = mem_array(m, n, sizeof **blk);
  /* the block of each vertex (as level_partition cuts them), then the vertices block by block,
   * each block's in increasing index */
  uint16_t *vb = *blk; /* first per vertex, then per row */
  if (!a->perm0 || !a->iperm0 || !a->r0 || !a->z0 || !vb || !morton_blocks(m, n, pos, nb, vb))
    return 0;
  uint32_t start[SMOOTH_MAX_BLOCKS + 1] = {0};
  for (uint32_t v = 0; v < n; ++v) start[vb[v] + 1]++;
  for (uint32_t b = 0; b < nb; ++b) start[b + 1] += start[b];
  for (uint32_t v = 0; v < n; ++v) a->perm0[start[vb[v]]++] = v;
  for (uint32_t i = 0; i < n; ++i) a->iperm0[a->perm0[i]] = i;
  for (uint32_t b = 0, i = 0; b < nb; ++b)
    for (; i < start[b]; ++i) vb[i] = (uint16_t)b;
  size_t nnz = adj_ptr[n];
  uint64_t *pairs = mem_array(m, nnz ? nnz : 1, sizeof *pairs);
  if (!pairs) return 0;
  for (uint32_t v = 0; v < n; ++v)
    for (uint32_t k = adj_ptr[v]; k < adj_ptr[v + 1]; ++k)
      pairs[k] = ((uint64_t)a->iperm0[v] << 32) | a->iperm0[adj[k]];
  int ok = pattern_from_pairs(m, &a->lv[0].A, n, pairs, nnz);
  MEM_FREE_ARRAY(m, pairs, nnz ? nnz : 1);
  return ok;
}

amg *amg_create(tf_mem *m, uint32_t n, const uint32_t *adj_ptr, const uint32_t *adj, const bsr *H,
                const double *pos, uint32_t rot_level) {
  amg *a = mem_alloc(m, sizeof *a);
  if (!a) return NULL;
  a->rot_from = rot_level < 2 ? rot_level : AMG_TRANSLATIONS;
  a->turn = 1;
  uint16_t *blk0 = NULL; /* level 0's row blocks when it has its own order */
  level *l0 = &a->lv[0];
  l0->n = n;
  l0->A.rows = n;
  l0->A.nnz = adj_ptr[n];
  if (pos && !order_level0(m, a, n, adj_ptr, adj, pos, &blk0)) goto fail;
  if (!a->perm0) {
    l0->A.ptr = mem_array(m, (size_t)n + 1, sizeof *l0->A.ptr);
    l0->A.col = mem_array(m, l0->A.nnz, sizeof *l0->A.col);
    if (!l0->A.ptr || !l0->A.col) goto fail;
    memcpy(l0->A.ptr, adj_ptr, sizeof(uint32_t) * ((size_t)n + 1));
    memcpy(l0->A.col, adj, sizeof(uint32_t) * l0->A.nnz);
  }
  if (!level_alloc_numbers(m, l0)) goto fail;
  a->L = 1;
  while (a->L < AMG_MAX_LEVELS && a->lv[a->L - 1].n > COARSEST_NODES) {
    level *l = &a->lv[a->L - 1], *c = &a->lv[a->L];
    if (!level_coarsen(m, a, l, c)) goto fail;
    c->weighted = !c->paired && a->L >= a->rot_from;
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
      uint32_t j = l0->A.col[k];
      a->transpose0[k] = find_col(l0->A.col, l0->A.ptr[j], l0->A.ptr[j + 1], i);
    }
  if (!bind_hessian(m, a, H)) goto fail;
  if (pos) /* level 0's points in its order */
    for (uint32_t i = 0; i < n; ++i)
      v3_copy(l0->pos + 3 * (size_t)i, pos + 3 * (size_t)(a->perm0 ? a->perm0[i] : i));
  if (!partition_levels(m, a, blk0)) goto fail;
  MEM_FREE_ARRAY(m, blk0, blk0 ? n : 0);
  blk0 = NULL;
  if (!alloc_marks(m, a, 1)) goto fail;
  a->nd = 3 * a->lv[a->L - 1].n;
  a->dense = mem_array(m, (size_t)a->nd * a->nd, sizeof *a->dense);
  if (!a->dense) goto fail;
  return a;
fail:
  MEM_FREE_ARRAY(m, blk0, blk0 ? n : 0);
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
    MEM_FREE_ARRAY(m, l->Af, 9 * (size_t)l->A.nnz);
    MEM_FREE_ARRAY(m, l->Dinv, 9 * n);
    MEM_FREE_ARRAY(m, l->Sinv, 9 * n);
    MEM_FREE_ARRAY(m, l->aug, 9 * n);
    MEM_FREE_ARRAY(m, l->bid, n);
    MEM_FREE_ARRAY(m, l->cross, n);
    MEM_FREE_ARRAY(m, l->bptr, (size_t)SMOOTH_MAX_BLOCKS + 1);
    MEM_FREE_ARRAY(m, l->brow, n);
    MEM_FREE_ARRAY(m, l->pos, 3 * n);
    MEM_FREE_ARRAY(m, l->dead, n);
    MEM_FREE_ARRAY(m, l->x, 3 * n);
    MEM_FREE_ARRAY(m, l->b, 3 * n);
    MEM_FREE_ARRAY(m, l->r, 3 * n);
    MEM_FREE_ARRAY(m, l->ev, 3 * n);
    MEM_FREE_ARRAY(m, l->xs, 3 * n);
    if (l->rptr) {
      MEM_FREE_ARRAY(m, l->rrow, l->P.nnz ? l->P.nnz : 1);
      MEM_FREE_ARRAY(m, l->rslot, l->P.nnz ? l->P.nnz : 1);
      MEM_FREE_ARRAY(m, l->rptr, (size_t)l->nc + 1);
    }
    MEM_FREE_ARRAY(m, l->agg, n);
    MEM_FREE_ARRAY(m, l->cnt, l->nagg);
    if (l->P0) {
      MEM_FREE_ARRAY(m, l->P0, 18 * n);
      MEM_FREE_ARRAY(m, l->aw, l->nagg);
      MEM_FREE_ARRAY(m, l->ac, 3 * (size_t)l->nagg);
      MEM_FREE_ARRAY(m, l->aui, 9 * (size_t)l->nagg);
    }
    if (l->nw) {
      MEM_FREE_ARRAY(m, l->nw, n);
      MEM_FREE_ARRAY(m, l->np, 3 * n);
      MEM_FREE_ARRAY(m, l->nL, 9 * n);
    }
    if (l->P.ptr) {
      MEM_FREE_ARRAY(m, l->Pval, 9 * (size_t)l->P.nnz);
      MEM_FREE_ARRAY(m, l->Pf, 9 * (size_t)l->P.nnz);
      pattern_free(m, &l->P);
    }
    if (l->T.ptr) {
      MEM_FREE_ARRAY(m, l->Tval, 9 * (size_t)l->T.nnz);
      pattern_free(m, &l->T);
    }
  }
  MEM_FREE_ARRAY(m, a->transpose0, a->lv[0].A.nnz);
  if (a->perm0) {
    size_t n0 = a->lv[0].n;
    MEM_FREE_ARRAY(m, a->perm0, n0);
    MEM_FREE_ARRAY(m, a->iperm0, n0);
    MEM_FREE_ARRAY(m, a->r0, 3 * n0);
    MEM_FREE_ARRAY(m, a->z0, 3 * n0);
  }
  if (a->built0) MEM_FREE_ARRAY(m, a->built0, 9 * (size_t)a->lv[0].A.nnz);
  MEM_FREE_ARRAY(m, a->mark, (size_t)a->mark_threads * a->lv[0].n);
  MEM_FREE_ARRAY(m, a->src0, a->lv[0].A.nnz);
  MEM_FREE_ARRAY(m, a->lptr0, a->lptr0 ? (size_t)a->lv[0].n + 1 : 0);
  MEM_FREE_ARRAY(m, a->lump0, a->lumps ? a->lumps : 1);
  MEM_FREE_ARRAY(m, a->lend0, a->lumps ? a->lumps : 1);
  MEM_FREE_ARRAY(m, a->dense, (size_t)a->nd * a->nd);
  mem_free(m, a, sizeof *a);
}

uint32_t amg_level_count(const amg *a) { return a->L; }

uint32_t amg_full_setups(const amg *a) { return a->full_setups; }

void amg_set_rotations(amg *a, int on) {
  if (on != a->turn) a->built = 0;
  a->turn = on;
}

int amg_set_reuse(tf_mem *m, amg *a, double fraction) {
  if (fraction > 0.0 && !a->built0) {
    a->built0 = mem_array(m, 9 * (size_t)a->lv[0].A.nnz, sizeof *a->built0);
    if (!a->built0) return 0;
  }
  a->reuse = fraction;
  a->built = 0;
  return 1;
}

void amg_forget(amg *a) {
  a->built = 0;
  for (uint32_t k = 0; k < a->L; ++k) a->lv[k].ev_warm = 0;
}

void amg_level_size(const amg *a, uint32_t k, uint32_t *n, uint32_t *nnz) {
  *n = k < a->L ? a->lv[k].n : 0;
  *nnz = k < a->L ? a->lv[k].A.nnz : 0;
}

/* --- numbers ------------------------------------------------------------------------------- */

static inline void m3_mul(double *restrict r, const double *restrict A, const double *restrict B) {
  double t[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      t[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
  memcpy(r, t, sizeof t);
}

/* r += A^T B */
static inline void m3_tmul_add(double *restrict r, const double *restrict A,
                               const double *restrict B) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r[3 * i + j] += A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

/* r += A B */
static inline void m3_mul_add(double *restrict r, const double *restrict A,
                              const double *restrict B) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r[3 * i + j] += A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* invert d (3x3) into di, or its diagonal when singular */
static void invert_diag_block(double *di, const double *d) {
  if (!m3_inverse(di, d, 1e-300)) {
    memset(di, 0, 9 * sizeof *di);
    for (int k = 0; k < 3; ++k) di[4 * k] = d[4 * k] > 0.0 ? 1.0 / d[4 * k] : 0.0;
  }
}

/* |B| = (B B^T)^(1/2), the 3x3 block's left polar factor, added into out */
static void add_block_abs(double *out, const double *B) {
  double M[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      M[3 * i + j] =
          B[3 * i] * B[3 * j] + B[3 * i + 1] * B[3 * j + 1] + B[3 * i + 2] * B[3 * j + 2];
  /* sqrt(M) without eigenvectors (a Jacobi eigensolve per coupling was a quarter of FLESH-20k's
   * time): M's eigenvalues in closed form (Smith 1961), s_i their square roots, and
   * sqrt(M) = (-M^2 + (I1^2 - I2) M + I1 I3 I) / (I1 I2 - I3) with I1, I2, I3 the invariants of
   * the s_i (Hoger & Carlson 1984); a rank-one M = l u u^T has sqrt(M) = M / sqrt(l) */
  double tr = M[0] + M[4] + M[8];
  if (!(tr > 0.0)) return;
  double e[3], p1 = M[1] * M[1] + M[2] * M[2] + M[5] * M[5], q = tr / 3.0;
  if (p1 <= 1e-30 * tr * tr) {
    e[0] = M[0], e[1] = M[4], e[2] = M[8];
  } else {
    double d0 = M[0] - q, d1 = M[4] - q, d2 = M[8] - q;
    double p = sqrt((d0 * d0 + d1 * d1 + d2 * d2 + 2.0 * p1) / 6.0);
    double b[9] = {d0 / p,   M[1] / p, M[2] / p, M[3] / p, d1 / p,
                   M[5] / p, M[6] / p, M[7] / p, d2 / p};
    double r = 0.5 * m3_det(b), phi = acos(fmax(-1.0, fmin(1.0, r))) / 3.0;
    e[0] = q + 2.0 * p * cos(phi);
    e[2] = q + 2.0 * p * cos(phi + 2.0 * TF_PI / 3.0);
    e[1] = 3.0 * q - e[0] - e[2];
  }
  double s0 = sqrt(fmax(e[0], 0.0)), s1 = sqrt(fmax(e[1], 0.0)), s2 = sqrt(fmax(e[2], 0.0));
  double I1 = s0 + s1 + s2, I2 = s0 * s1 + s0 * s2 + s1 * s2, I3 = s0 * s1 * s2;
  double den = I1 * I2 - I3;
  if (!(den > 1e-12 * I1 * I1 * I1)) {
    double c = 1.0 / sqrt(tr);
    for (int k = 0; k < 9; ++k) out[k] += c * M[k];
    return;
  }
  double M2[9], a = (I1 * I1 - I2) / den, c0 = I1 * I3 / den;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      M2[3 * i + j] = M[3 * i] * M[j] + M[3 * i + 1] * M[3 + j] + M[3 * i + 2] * M[6 + j];
  for (int k = 0; k < 9; ++k) out[k] += -M2[k] / den + a * M[k] + (k % 4 == 0 ? c0 : 0.0);
}

/* The V-cycle reads its matrices and prolongators rounded to float. Its sweeps move each level's
 * matrix once and run at memory speed (CLOTH-256's V-cycle at 55 % of a STREAM triad,
 * results/2026-11-26-size), and a preconditioner need not be exact: PCG solves the Hessian in
 * double precision, and the V-cycle B only has to stay symmetric positive definite. With A~ the
 * rounded matrix (its diagonal blocks kept in double), M the forward sweep's matrix built from it
 * (smoother_row's l1 terms take the rounded blocks), P~ the rounded prolongator and B_c the next
 * level's V-cycle on the Galerkin product of the double-precision A and P (the dense Cholesky at
 * the bottom), the V-cycle is
 *   B = M^-T (M + M^T - A~) M^-1 + (I - M^-T A~) P~ B_c P~^T (I - A~ M^-1),
 * symmetric positive definite when A~ is symmetric and M + M^T - A~ >= D (smoother_row), whatever
 * the rounding does to A~'s own eigenvalues. Level 0 is symmetric block for block (its blocks are
 * the Hessian's, copied or transposed); a coarse level's Galerkin product sums its two triangles
 * in different orders and is symmetric to the last bits, in double as in float (measured in
 * amg_vcycle_is_spd_and_keeps_dirichlet_zero: u.Bw and w.Bu agree to 6e-15 in double, 1.2e-14
 * with the floats). A dead row's or column's block is zero. */
static void round_row(level *l, uint32_t i) {
  for (size_t e = 9 * (size_t)l->A.ptr[i]; e < 9 * (size_t)l->A.ptr[i + 1]; ++e)
    l->Af[e] = (float)l->Aval[e];
}

/* The smoother's diagonal, after the l1 Gauss-Seidel of Baker, Falgout, Kolev & Yang 2011
 * ("Multigrid smoothers for ultraparallel computing") in block form: a row coupled to other blocks
 * adds half of sum_j |A_ij| over those couplings to its diagonal block. With M the sweep's matrix,
 * M + M^T - A = D + 2 Aug - C, C the cross-block couplings; since [P -B; -B^T Q] >= 0 for
 * P = (B B^T)^(1/2), Q = (B^T B)^(1/2), each coupling is dominated by its two ends' terms, so
 * M + M^T - A >= D > 0: the sweep converges and the V-cycle stays SPD for any split. Plain hybrid
 * Gauss-Seidel made the quadratic-tet beam's preconditioner indefinite (the solve stopped at 3 % of
 * the sag); the scalar l1 norm (|A_ij|_F I) made SWING-128 need 4x the CG iterations, because it
 * stiffens a membrane's soft out-of-plane direction by its in-plane coupling, which the polar
 * factor keeps in-plane. In the in-place sweep the added diagonal acts on the row's old value:
 * (D_i + Aug_i) x_i = b_i - sum_{j != i} A_ij x_j + Aug_i x_i,old, i.e. x_old + M^-1 (b - A x_old).
 * A level of one block has no such rows: Sinv = Dinv, plain Gauss-Seidel. */
static void smoother_row(level *l, uint32_t i, uint32_t nb) {
  double *si = l->Sinv + 9 * (size_t)i, *ai = l->aug + 9 * (size_t)i;
  memcpy(si, l->Dinv + 9 * (size_t)i, 9 * sizeof *si);
  memset(ai, 0, 9 * sizeof *ai);
  if (nb < 2 || l->dead[i] || !l->cross[i]) return;
  int any = 0;
  for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k) {
    uint32_t c = l->A.col[k];
    if (l->bid[c] == l->bid[i]) continue;
    double b[9];
    for (int e = 0; e < 9; ++e) b[e] = l->Af[9 * (size_t)k + e];
    add_block_abs(ai, b);
    any = 1;
  }
  if (!any) return;
  double d[9];
  for (int e = 0; e < 9; ++e) {
    ai[e] *= 0.5;
    d[e] = l->Aval[9 * (size_t)l->diag[i] + e] + ai[e];
  }
  invert_diag_block(si, d);
}

/* rows [i0, i1): dead rows and columns zero, identity on their diagonal; inverted diagonal
 * blocks; the smoother's diagonal */
static void finish_rows(void *ctx, uint32_t i0, uint32_t i1) {
  level *l = ctx;
  uint32_t nb = level_blocks(l);
  for (uint32_t i = i0; i < i1; ++i) {
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k)
      if (l->dead[i] || l->dead[l->A.col[k]])
        memset(l->Aval + 9 * (size_t)k, 0, 9 * sizeof(double));
    double *d = l->Aval + 9 * (size_t)l->diag[i];
    if (l->dead[i]) d[0] = d[4] = d[8] = 1.0;
    invert_diag_block(l->Dinv + 9 * (size_t)i, d);
  }
  for (uint32_t i = i0; i < i1; ++i) {
    round_row(l, i);
    smoother_row(l, i, nb);
  }
}

/* rows per chunk of the set-up's row loops */
static const uint32_t SETUP_GRAIN = 256;

/* the grain of a loop over the coarse rows of l's next level whose work is spread over l's rows
 * (a coarse row gathers from the fine rows of its aggregate): chunks of about grain fine rows, so
 * a coarse level a tenth the size still splits over the threads (as one chunk it ran on the
 * calling thread alone: FLESH-20k's restriction and Galerkin product) */
static uint32_t coarse_grain(const level *l, uint32_t nc, uint32_t grain) {
  uint64_t g = (uint64_t)grain * nc / (l->n ? l->n : 1);
  return g < 1 ? 1 : (uint32_t)g;
}

static void level_finish(tf_pool *pool, level *l) {
  pool_for(pool, l->n, SETUP_GRAIN, finish_rows, l);
}

/* the power iteration's pass over rows: w = D^-1 A v, and its partial |v|^2, |w|^2 */
typedef struct power_job {
  const level *l;
  const double *v;
  double *w;
  double scale; /* for the normalization pass */
} power_job;

static void power_rows(void *ctx, uint32_t i0, uint32_t i1) {
  const power_job *j = ctx;
  const level *l = j->l;
  for (uint32_t i = i0; i < i1; ++i) {
    double s[3] = {0, 0, 0};
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k)
      m3_mulv_add(s, l->Aval + 9 * (size_t)k, j->v + 3 * (size_t)l->A.col[k]);
    m3_mulv(j->w + 3 * (size_t)i, l->Dinv + 9 * (size_t)i, s);
  }
}

static double norm2_v(void *ctx, uint32_t k0, uint32_t k1) {
  const power_job *j = ctx;
  double s = 0.0;
  for (uint32_t k = k0; k < k1; ++k) s += j->v[k] * j->v[k];
  return s;
}

static double norm2_w(void *ctx, uint32_t k0, uint32_t k1) {
  const power_job *j = ctx;
  double s = 0.0;
  for (uint32_t k = k0; k < k1; ++k) s += j->w[k] * j->w[k];
  return s;
}

/* rho(D^-1 A) by power iteration from a fixed start (deterministic) */
static double spectral_radius(tf_pool *pool, level *l) {
  double *v = l->ev, *w = l->r;
  int iterations = l->ev_warm ? POWER_ITERATIONS_WARM : POWER_ITERATIONS;
  if (!l->ev_warm)
    for (uint32_t i = 0; i < 3 * l->n; ++i) /* a pair's nodes start as one node would */
      v[i] = 1.0 + 0.37 * sin(1.7 * (l->paired ? 3 * (i / 6) + i % 3 : i));
  for (uint32_t i = 0; i < 3 * l->n; ++i)
    if (l->dead[i / 3]) v[i] = 0.0;
  l->ev_warm = 1;
  double lam = 1.0;
  power_job j = {l, v, w, 0.0};
  for (int it = 0; it < iterations; ++it) {
    pool_for(pool, l->n, SETUP_GRAIN, power_rows, &j);
    double nv = pool_sum(pool, 3 * l->n, norm2_v, &j), nw = pool_sum(pool, 3 * l->n, norm2_w, &j);
    if (!(nv > 0.0) || !(nw > 0.0)) {
      l->ev_warm = 0;
      return 1.0;
    }
    lam = sqrt(nw / nv);
    double sc = 1.0 / sqrt(nw);
    for (uint32_t i = 0; i < 3 * l->n; ++i) v[i] = w[i] * sc;
  }
  return lam;
}

/* --- rotations in the near-null space ------------------------------------------------------- */

/* the point of translation node i of level k: at level 0 the vertex's position in the Hessian
 * amg_setup was given (the rest position without one) */
static const double *node_point(const amg *a, const level *l, uint32_t k, uint32_t i) {
  if (k > 0) return l->np + 3 * (size_t)i;
  if (!a->x) return l->pos + 3 * (size_t)i;
  return a->x + 3 * (size_t)(a->perm0 ? a->perm0[i] : i);
}

/* [r]x, the cross-product matrix: [r]x v = r x v */
static void m3_cross(double *m, const double *r) {
  m[0] = 0.0, m[1] = -r[2], m[2] = r[1];
  m[3] = r[2], m[4] = 0.0, m[5] = -r[0];
  m[6] = -r[1], m[7] = r[0], m[8] = 0.0;
}

/* G = U^T U, U upper triangular, and U^-1 into ui; 0 (ui zero) when a pivot falls below
 * 1e-6 tr(G): the aggregate is (nearly) a line or a point, and a rotation about it moves nothing */
static int rotation_factor(const double *g, double *u, double *ui) {
  memset(u, 0, 9 * sizeof *u);
  memset(ui, 0, 9 * sizeof *ui);
  double tol = 1e-6 * (g[0] + g[4] + g[8]);
  if (!(tol > 0.0)) return 0;
  double d0 = g[0];
  if (!(d0 > tol)) return 0;
  u[0] = sqrt(d0), u[1] = g[1] / u[0], u[2] = g[2] / u[0];
  double d1 = g[4] - u[1] * u[1];
  if (!(d1 > tol)) return 0;
  u[4] = sqrt(d1), u[5] = (g[5] - u[1] * u[2]) / u[4];
  double d2 = g[8] - u[2] * u[2] - u[5] * u[5];
  if (!(d2 > tol)) return 0;
  u[8] = sqrt(d2);
  ui[0] = 1.0 / u[0], ui[4] = 1.0 / u[4], ui[8] = 1.0 / u[8];
  ui[1] = -u[1] * ui[0] * ui[4];
  ui[5] = -u[5] * ui[4] * ui[8];
  ui[2] = (u[1] * u[5] - u[2] * u[4]) * ui[0] * ui[4] * ui[8];
  return 1;
}

/* The tentative prolongator with the rigid modes (Vanek, Mandel & Brezina 1996, sec. 3: the
 * near-null space B restricted to each aggregate, orthonormalized: B_a = Q_a R_a, P0's blocks are
 * Q_a, the coarse level's B is R_a). With B's translation part centred on the aggregate's weighted
 * centroid C the Gram matrix is block diagonal, diag(W I, G), W = sum w_i^2,
 * G = sum_T w_i^2 [r_i]x^T [r_i]x + sum_R L_i^T L_i (r_i = p_i - C), so Q's blocks are
 * w_i / sqrt(W) I and -w_i [r_i]x U^-1 (translation nodes), L_i U^-1 (rotation nodes), G = U^T U,
 * and the coarse B is w = sqrt(W) at C (translation node 2a) and L = U (rotation node 2a + 1).
 * The membrane's and shell's energies are invariant under rotations, but a prolongator carrying
 * only translations can show them only through its smoothing: bending, a fourth-order operator,
 * left CG to grow with the mesh (results/2026-11-26-size). Dead nodes (Dirichlet, or an
 * aggregate with no live node, or a rotation dropped by rotation_factor) take no part. */
static void amg_modes(amg *a, uint32_t k) {
  level *l = &a->lv[k], *c = &a->lv[k + 1];
  uint32_t na = l->nagg;
  memset(l->aw, 0, na * sizeof *l->aw);
  memset(l->ac, 0, 3 * (size_t)na * sizeof *l->ac);
  memset(l->aui, 0, 9 * (size_t)na * sizeof *l->aui);
  for (uint32_t i = 0; i < l->n; ++i) {
    if (l->dead[i] || (l->paired && (i & 1))) continue;
    uint32_t g = l->agg[i];
    double w2 = l->nw ? l->nw[i] * l->nw[i] : 1.0;
    l->aw[g] += w2;
    v3_axpy(l->ac + 3 * (size_t)g, w2, node_point(a, l, k, i));
  }
  for (uint32_t g = 0; g < na; ++g)
    if (l->aw[g] > 0.0) v3_scale(l->ac + 3 * (size_t)g, l->ac + 3 * (size_t)g, 1.0 / l->aw[g]);
  double *G = l->aui; /* the Gram matrices first, then their factors' inverses */
  for (uint32_t i = 0; i < l->n; ++i) {
    if (l->dead[i]) continue;
    double *gm = G + 9 * (size_t)l->agg[i];
    if (l->paired && (i & 1)) {
      m3_tmul_add(gm, l->nL + 9 * (size_t)i, l->nL + 9 * (size_t)i);
      continue;
    }
    double r[3], w2 = l->nw ? l->nw[i] * l->nw[i] : 1.0;
    v3_sub(r, node_point(a, l, k, i), l->ac + 3 * (size_t)l->agg[i]);
    double rr = v3_norm2(r);
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q) gm[3 * p + q] += w2 * ((p == q ? rr : 0.0) - r[p] * r[q]);
  }
  for (uint32_t g = 0; g < na; ++g) {
    double gm[9], *ui = l->aui + 9 * (size_t)g;
    memcpy(gm, ui, sizeof gm);
    int live = l->aw[g] > 0.0,
        turns = live && rotation_factor(gm, c->nL + 9 * (2 * (size_t)g + 1), ui);
    if (!turns) memset(ui, 0, 9 * sizeof *ui);
    c->dead[2 * g] = !live;
    c->dead[2 * g + 1] = !turns;
    c->nw[2 * g] = sqrt(l->aw[g]), c->nw[2 * g + 1] = 0.0;
    v3_copy(c->np + 3 * (2 * (size_t)g), l->ac + 3 * (size_t)g);
    v3_copy(c->np + 3 * (2 * (size_t)g + 1), l->ac + 3 * (size_t)g);
    memset(c->nL + 9 * (2 * (size_t)g), 0, 9 * sizeof *c->nL);
  }
  for (uint32_t i = 0; i < l->n; ++i) {
    double *pt = l->P0 + 18 * (size_t)i, *pr = pt + 9;
    memset(pt, 0, 18 * sizeof *pt);
    if (l->dead[i]) continue;
    uint32_t g = l->agg[i];
    const double *ui = l->aui + 9 * (size_t)g;
    if (l->paired && (i & 1)) {
      m3_mul(pr, l->nL + 9 * (size_t)i, ui);
      continue;
    }
    double w = l->nw ? l->nw[i] : 1.0, r[3], x[9];
    pt[0] = pt[4] = pt[8] = w / sqrt(l->aw[g]);
    v3_sub(r, node_point(a, l, k, i), l->ac + 3 * (size_t)g);
    v3_scale(r, r, -w);
    m3_cross(x, r);
    m3_mul(pr, x, ui);
  }
}

/* a translation-only prolongator's coarse near-null space, for a next level that carries the
 * rotations: the R factor sqrt(live count) and the live nodes' mean point */
static void translation_modes(amg *a, uint32_t k) {
  level *l = &a->lv[k], *c = &a->lv[k + 1];
  memset(c->nw, 0, c->n * sizeof *c->nw);
  memset(c->np, 0, 3 * (size_t)c->n * sizeof *c->np);
  for (uint32_t i = 0; i < l->n; ++i)
    if (!l->dead[i]) v3_axpy(c->np + 3 * (size_t)l->agg[i], 1.0, node_point(a, l, k, i));
  for (uint32_t J = 0; J < c->n; ++J)
    if (l->cnt[J]) {
      c->nw[J] = sqrt((double)l->cnt[J]);
      v3_scale(c->np + 3 * (size_t)J, c->np + 3 * (size_t)J, 1.0 / l->cnt[J]);
    }
}

typedef struct galerkin_job {
  amg *a;
  level *l, *c;
  double omega;
} galerkin_job;

/* this thread's marker */
static uint32_t *thread_mark(const amg *a) {
  return a->mark + (size_t)pool_thread_index() * a->lv[0].n;
}

/* row i of pattern p: its values zeroed, and each column's slot marked in mk (the marker of
 * find-free sparse products) */
static void row_open(uint32_t *mk, const pattern *p, double *val, uint32_t i) {
  memset(val + 9 * (size_t)p->ptr[i], 0, sizeof(double) * 9 * (p->ptr[i + 1] - p->ptr[i]));
  for (uint32_t q = p->ptr[i]; q < p->ptr[i + 1]; ++q) mk[p->col[q]] = q;
}

/* the marks of row i cleared for the next row */
static void row_close(uint32_t *mk, const pattern *p, uint32_t i) {
  for (uint32_t q = p->ptr[i]; q < p->ptr[i + 1]; ++q) mk[p->col[q]] = UINT32_MAX;
}

/* P = P0 - omega D^-1 A P0, row by row. Translations only: P0's block is 1 / sqrt(count) I into
 * the aggregate's column (with a level built for the rotations but amg_set_rotations off, its
 * translation node 2a); with the rotations, P0's two blocks per row from amg_modes */
static void prolongator_rows(void *ctx, uint32_t i0, uint32_t i1) {
  const galerkin_job *g = ctx;
  level *l = g->l;
  uint32_t *mk = thread_mark(g->a), per = l->rot ? 2 : 1;
  int rot = l->rot && g->a->turn;
  for (uint32_t i = i0; i < i1; ++i) {
    row_open(mk, &l->P, l->Pval, i);
    if (l->dead[i]) {
      row_close(mk, &l->P, i);
      continue;
    }
    double *pi = l->Pval + 9 * (size_t)mk[per * l->agg[i]];
    if (rot) {
      const double *q0 = l->P0 + 18 * (size_t)i;
      double *pr = l->Pval + 9 * (size_t)mk[2 * l->agg[i] + 1];
      for (int e = 0; e < 9; ++e) pi[e] += q0[e], pr[e] += q0[9 + e];
    } else {
      double ci = 1.0 / sqrt((double)l->cnt[l->agg[i]]);
      pi[0] += ci;
      pi[4] += ci;
      pi[8] += ci;
    }
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k) {
      uint32_t j = l->A.col[k];
      if (l->dead[j]) continue;
      double t[9];
      m3_mul(t, l->Dinv + 9 * (size_t)i, l->Aval + 9 * (size_t)k);
      double *pj = l->Pval + 9 * (size_t)mk[per * l->agg[j]];
      if (rot) {
        const double *qj = l->P0 + 18 * (size_t)j;
        for (int e = 0; e < 9; ++e) t[e] *= -g->omega;
        m3_mul_add(pj, t, qj);
        m3_mul_add(l->Pval + 9 * (size_t)mk[2 * l->agg[j] + 1], t, qj + 9);
      } else {
        double cj = -g->omega / sqrt((double)l->cnt[l->agg[j]]);
        for (int e = 0; e < 9; ++e) pj[e] += cj * t[e];
      }
    }
    row_close(mk, &l->P, i);
  }
  for (size_t e = 9 * (size_t)l->P.ptr[i0]; e < 9 * (size_t)l->P.ptr[i1]; ++e)
    l->Pf[e] = (float)l->Pval[e]; /* the V-cycle's copy (round_row) */
}

/* T = A P, row by row */
static void ap_rows(void *ctx, uint32_t i0, uint32_t i1) {
  const galerkin_job *g = ctx;
  level *l = g->l;
  uint32_t *mk = thread_mark(g->a);
  for (uint32_t i = i0; i < i1; ++i) {
    row_open(mk, &l->T, l->Tval, i);
    for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k) {
      uint32_t j = l->A.col[k];
      for (uint32_t q = l->P.ptr[j]; q < l->P.ptr[j + 1]; ++q)
        m3_mul_add(l->Tval + 9 * (size_t)mk[l->P.col[q]], l->Aval + 9 * (size_t)k,
                   l->Pval + 9 * (size_t)q);
    }
    row_close(mk, &l->T, i);
  }
}

/* Ac = P^T T, coarse row by coarse row: row J gathers from the fine rows its restriction list
 * names, in increasing order (the order the serial scatter added them in) */
static void ptap_rows(void *ctx, uint32_t J0, uint32_t J1) {
  const galerkin_job *g = ctx;
  level *l = g->l, *c = g->c;
  uint32_t *mk = thread_mark(g->a);
  for (uint32_t J = J0; J < J1; ++J) {
    row_open(mk, &c->A, c->Aval, J);
    for (uint32_t r = l->rptr[J]; r < l->rptr[J + 1]; ++r) {
      uint32_t i = l->rrow[r], p = l->rslot[r];
      for (uint32_t t = l->T.ptr[i]; t < l->T.ptr[i + 1]; ++t)
        m3_tmul_add(c->Aval + 9 * (size_t)mk[l->T.col[t]], l->Pval + 9 * (size_t)p,
                    l->Tval + 9 * (size_t)t);
    }
    row_close(mk, &c->A, J);
    if (!l->rot)
      c->dead[J] = l->cnt[J] == 0;
    else if (!g->a->turn) /* rotations off: their nodes dead; on, amg_modes sets them */
      c->dead[J] = (J & 1) || l->cnt[J / 2] == 0;
  }
}

static void level_galerkin(amg *a, level *l, level *c) {
  uint32_t n = l->n;
  /* live nodes per aggregate: the tentative prolongator's column scale 1/sqrt(count) */
  memset(l->cnt, 0, sizeof(uint32_t) * l->nagg);
  for (uint32_t i = 0; i < n; ++i)
    if (!l->dead[i]) l->cnt[l->agg[i]]++;
  galerkin_job g = {a, l, c, 4.0 / (3.0 * spectral_radius(a->pool, l))};
  if (a->turn && l->rot) /* off, the next levels' near-null space goes unused */
    amg_modes(a, (uint32_t)(l - a->lv));
  else if (a->turn && c->nw)
    translation_modes(a, (uint32_t)(l - a->lv));
  pool_for(a->pool, n, SETUP_GRAIN, prolongator_rows, &g);
  pool_for(a->pool, n, SETUP_GRAIN, ap_rows, &g);
  pool_for(a->pool, c->n, coarse_grain(l, c->n, SETUP_GRAIN), ptap_rows, &g);
  level_finish(a->pool, c);
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

typedef struct level0_job {
  amg *a;
  const bsr *H;
  const uint8_t *fixed;
} level0_job;

/* level 0's rows from H through the binding: each block copied (or transposed) from its source,
 * and the blocks outside level 0's pattern lumped onto their ends' diagonals */
static void level0_rows(void *ctx, uint32_t i0, uint32_t i1) {
  const level0_job *j = ctx;
  amg *a = j->a;
  level *l0 = &a->lv[0];
  const uint8_t *fixed = j->fixed;
  for (uint32_t i = i0; i < i1; ++i) {
    const uint32_t v = a->perm0 ? a->perm0[i] : i; /* the row's vertex */
    l0->dead[i] = fixed ? fixed[v] : 0;
    for (uint32_t q = l0->A.ptr[i]; q < l0->A.ptr[i + 1]; ++q) {
      double *d = l0->Aval + 9 * (size_t)q;
      uint32_t src = a->src0[q];
      if (src == SRC_NONE) {
        memset(d, 0, 9 * sizeof *d);
        continue;
      }
      const double *b = j->H->val + 9 * (size_t)(src & ~SRC_T);
      if (src & SRC_T) {
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) d[3 * c + r] = b[3 * r + c];
      } else {
        memcpy(d, b, 9 * sizeof *d);
      }
    }
    double *di = l0->Aval + 9 * (size_t)l0->diag[i];
    for (uint32_t e = a->lptr0[i]; e < a->lptr0[i + 1]; ++e) {
      if (fixed && (fixed[v] || fixed[a->lend0[e]]))
        continue; /* a Dirichlet end: the coupling is not in the system */
      const double *b = j->H->val + 9 * (size_t)a->lump0[e];
      double nb = 0.0;
      for (int k = 0; k < 9; ++k) nb += b[k] * b[k];
      nb = sqrt(nb);
      di[0] += nb, di[4] += nb, di[8] += nb;
    }
  }
}

/* how many rows of level 0 in [i0, i1) moved by more than a->reuse since the last full set-up
 * (Frobenius norms, row by row: a large change of a few rows is invisible in the whole matrix's
 * norm); a count, so the pool's sum is exact for any thread count */
static double moved_rows(void *ctx, uint32_t i0, uint32_t i1) {
  const amg *a = ctx;
  const level *l0 = &a->lv[0];
  double moved = 0.0;
  for (uint32_t i = i0; i < i1; ++i) {
    double d2 = 0.0, o2 = 0.0;
    for (size_t k = 9 * (size_t)l0->A.ptr[i]; k < 9 * (size_t)l0->A.ptr[i + 1]; ++k) {
      double d = l0->Aval[k] - a->built0[k];
      d2 += d * d, o2 += a->built0[k] * a->built0[k];
    }
    moved += !(d2 <= a->reuse * a->reuse * o2);
  }
  return moved;
}

/* level 0's rows [i0, i1) into built0 */
static void keep_rows(void *ctx, uint32_t i0, uint32_t i1) {
  amg *a = ctx;
  const level *l0 = &a->lv[0];
  size_t k0 = 9 * (size_t)l0->A.ptr[i0], k1 = 9 * (size_t)l0->A.ptr[i1];
  memcpy(a->built0 + k0, l0->Aval + k0, (k1 - k0) * sizeof *a->built0);
}

void amg_setup(amg *a, const bsr *H, const uint8_t *fixed, const double *x) {
  /* level 0: the upper-triangle Hessian in full storage. A block outside level 0's (sparser)
   * pattern, e.g. the coupling of a bending hinge's opposite vertices, is lumped onto both
   * diagonals as |B|_F I: [0 B; B^T 0] <= |B| I, so the preconditioner stays SPD and above the
   * Hessian it drops. Row by row on the pool; every coarser level the same (level_galerkin) */
  level0_job j = {a, H, fixed};
  pool_for(a->pool, a->lv[0].n, SETUP_GRAIN, level0_rows, &j);
  level_finish(a->pool, &a->lv[0]);
  if (a->reuse > 0.0 && a->built && pool_sum(a->pool, a->lv[0].n, moved_rows, a) == 0.0)
    return; /* amg_set_reuse: the coarse levels still serve */
  a->x = x;
  for (uint32_t k = 0; k + 1 < a->L; ++k) level_galerkin(a, &a->lv[k], &a->lv[k + 1]);
  a->x = NULL;
  dense_factor(a);
  a->full_setups++;
  if (a->reuse > 0.0) {
    pool_for(a->pool, a->lv[0].n, SETUP_GRAIN, keep_rows, a);
    a->built = 1;
  }
}

/* The smoothers are Gauss-Seidel within row blocks (their number fixed by n, their rows placed
 * in space by level_partition) and Jacobi across them (the hybrid Gauss-Seidel of parallel AMG
 * codes, e.g. hypre's BoomerAMG): a block reads its own rows' current values and other blocks'
 * values from before the sweep, so the blocks run in any order on any number of threads with one
 * result. The backward sweep is the forward one's adjoint (D + Aug + U_in against
 * D + Aug + L_in, the l1 diagonal of smoother_row), which keeps the V-cycle symmetric and positive
 * definite for PCG. A level of one block is plain Gauss-Seidel. */

typedef struct vcycle_job {
  const level *l, *c;
  const double *b;
  double *x;
} vcycle_job;

/* r -= m x and r += m x for a float block (round_row) */
static inline void m3f_mulv_sub(double *r, const float *m, const double *x) {
  r[0] -= m[0] * x[0] + m[1] * x[1] + m[2] * x[2];
  r[1] -= m[3] * x[0] + m[4] * x[1] + m[5] * x[2];
  r[2] -= m[6] * x[0] + m[7] * x[1] + m[8] * x[2];
}
static inline void m3f_mulv_add(double *r, const float *m, const double *x) {
  r[0] += m[0] * x[0] + m[1] * x[1] + m[2] * x[2];
  r[1] += m[3] * x[0] + m[4] * x[1] + m[5] * x[2];
  r[2] += m[6] * x[0] + m[7] * x[1] + m[8] * x[2];
}

/* Pre-smoothing: one forward sweep from x = 0 per block, which also leaves the block's part of
 * the residual r = b - A x. From zero, row i sees only its final lower neighbours in the block,
 * so the sweep reads the lower half of each row; the residual's upper part -sum_{j > i} A_ij x_j
 * is scattered from row i's lower blocks (A_ji = A_ij^T) while they are still in cache, once x_i
 * is known. Half a pass over the matrix instead of a full sweep plus a product; the terms across
 * blocks follow in gs_forward_cross. */
static void gs_forward_blocks(void *ctx, uint32_t b0, uint32_t b1) {
  const vcycle_job *j = ctx;
  const level *l = j->l;
  double *x = j->x, *r = l->r;
  for (uint32_t blk = b0; blk < b1; ++blk) {
    for (uint32_t q = l->bptr[blk]; q < l->bptr[blk + 1]; ++q) {
      uint32_t i = l->brow[q];
      double *xi = x + 3 * (size_t)i, *ri = r + 3 * (size_t)i;
      if (l->dead[i]) {
        v3_set(xi, 0.0, 0.0, 0.0);
        v3_set(ri, 0.0, 0.0, 0.0); /* its prolongator row is zero: nothing to restrict */
        continue;
      }
      uint32_t k0 = l->A.ptr[i], kd = l->diag[i];
      uint16_t b = l->bid[i];
      double s[3];
      v3_copy(s, j->b + 3 * (size_t)i);
      for (uint32_t k = k0; k < kd; ++k) { /* the block's own lower neighbours: already swept */
        if (l->bid[l->A.col[k]] != b) continue;
        m3f_mulv_sub(s, l->Af + 9 * (size_t)k, x + 3 * (size_t)l->A.col[k]);
      }
      m3_mulv(xi, l->Sinv + 9 * (size_t)i, s);
      /* r_i = s - D_i x_i: zero up to round-off, exact when D_i was singular and not inverted */
      const double *d = l->Aval + 9 * (size_t)kd;
      ri[0] = s[0] - (d[0] * xi[0] + d[1] * xi[1] + d[2] * xi[2]);
      ri[1] = s[1] - (d[3] * xi[0] + d[4] * xi[1] + d[5] * xi[2]);
      ri[2] = s[2] - (d[6] * xi[0] + d[7] * xi[1] + d[8] * xi[2]);
      for (uint32_t k = k0; k < kd; ++k) {
        if (l->bid[l->A.col[k]] != b) continue;
        const float *m = l->Af + 9 * (size_t)k;
        double *rj = r + 3 * (size_t)l->A.col[k];
        rj[0] -= m[0] * xi[0] + m[3] * xi[1] + m[6] * xi[2];
        rj[1] -= m[1] * xi[0] + m[4] * xi[1] + m[7] * xi[2];
        rj[2] -= m[2] * xi[0] + m[5] * xi[1] + m[8] * xi[2];
      }
    }
  }
}

/* the residual's terms from other blocks' x (each row's neighbours outside its block) */
static void gs_forward_cross(void *ctx, uint32_t b0, uint32_t b1) {
  const vcycle_job *j = ctx;
  const level *l = j->l;
  for (uint32_t blk = b0; blk < b1; ++blk) {
    for (uint32_t q = l->bptr[blk]; q < l->bptr[blk + 1]; ++q) {
      uint32_t i = l->brow[q];
      if (l->dead[i] || !l->cross[i]) continue;
      double *ri = l->r + 3 * (size_t)i;
      for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k)
        if (l->bid[l->A.col[k]] != blk)
          m3f_mulv_sub(ri, l->Af + 9 * (size_t)k, j->x + 3 * (size_t)l->A.col[k]);
    }
  }
}

/* bc = P^T r, coarse row by coarse row */
static void restrict_rows(void *ctx, uint32_t J0, uint32_t J1) {
  const vcycle_job *j = ctx;
  const level *l = j->l;
  for (uint32_t J = J0; J < J1; ++J) {
    double *bc = j->c->b + 3 * (size_t)J;
    v3_set(bc, 0.0, 0.0, 0.0);
    for (uint32_t k = l->rptr[J]; k < l->rptr[J + 1]; ++k) {
      const float *p = l->Pf + 9 * (size_t)l->rslot[k];
      const double *ri = l->r + 3 * (size_t)l->rrow[k];
      bc[0] += p[0] * ri[0] + p[3] * ri[1] + p[6] * ri[2];
      bc[1] += p[1] * ri[0] + p[4] * ri[1] + p[7] * ri[2];
      bc[2] += p[2] * ri[0] + p[5] * ri[1] + p[8] * ri[2];
    }
  }
}

/* x += P xc, and the result kept in xs for the backward sweep's reads across blocks */
static void prolong_rows(void *ctx, uint32_t i0, uint32_t i1) {
  const vcycle_job *j = ctx;
  const level *l = j->l;
  for (uint32_t i = i0; i < i1; ++i) {
    double *xi = j->x + 3 * (size_t)i;
    for (uint32_t q = l->P.ptr[i]; q < l->P.ptr[i + 1]; ++q)
      m3f_mulv_add(xi, l->Pf + 9 * (size_t)q, j->c->x + 3 * (size_t)l->P.col[q]);
    v3_copy(l->xs + 3 * (size_t)i, xi);
  }
}

/* post-smoothing: one backward sweep per block on A x = b; dead rows stay zero */
static void gs_backward_blocks(void *ctx, uint32_t b0, uint32_t b1) {
  const vcycle_job *j = ctx;
  const level *l = j->l;
  double *x = j->x;
  for (uint32_t blk = b0; blk < b1; ++blk) {
    for (uint32_t q = l->bptr[blk + 1]; q-- > l->bptr[blk];) {
      uint32_t i = l->brow[q];
      if (l->dead[i]) continue;
      double r[3];
      v3_copy(r, j->b + 3 * (size_t)i);
      for (uint32_t k = l->A.ptr[i]; k < l->A.ptr[i + 1]; ++k) {
        uint32_t c = l->A.col[k];
        if (c == i) continue;
        m3f_mulv_sub(r, l->Af + 9 * (size_t)k, (l->bid[c] == blk ? x : l->xs) + 3 * (size_t)c);
      }
      m3_mulv_add(r, l->aug + 9 * (size_t)i, l->xs + 3 * (size_t)i); /* the l1 diagonal */
      m3_mulv(x + 3 * (size_t)i, l->Sinv + 9 * (size_t)i, r);
    }
  }
}

/* rows per chunk of the row-wise loops (restriction, prolongation) */
static const uint32_t AMG_ROW_GRAIN = 256;

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
  vcycle_job j = {l, c, b, x};
  uint32_t nb = level_blocks(l);
  pool_for(a->pool, nb, 1, gs_forward_blocks, &j);
  if (nb > 1) pool_for(a->pool, nb, 1, gs_forward_cross, &j);
  pool_for(a->pool, c->n, coarse_grain(l, c->n, AMG_ROW_GRAIN), restrict_rows, &j);
  vcycle(a, k + 1, c->b, c->x);
  pool_for(a->pool, l->n, AMG_ROW_GRAIN, prolong_rows, &j);
  pool_for(a->pool, nb, 1, gs_backward_blocks, &j);
}

int amg_set_pool(tf_mem *m, amg *a, tf_pool *pool) {
  if (pool_threads(pool) > a->mark_threads && !alloc_marks(m, a, pool_threads(pool))) return 0;
  a->pool = pool;
  return 1;
}

typedef struct order_job {
  const amg *a;
  const double *r;
  double *z;
} order_job;

/* r into level 0's order */
static void gather_rows(void *ctx, uint32_t i0, uint32_t i1) {
  const order_job *j = ctx;
  for (uint32_t i = i0; i < i1; ++i)
    v3_copy(j->a->r0 + 3 * (size_t)i, j->r + 3 * (size_t)j->a->perm0[i]);
}

/* z back into the vertices' order */
static void scatter_rows(void *ctx, uint32_t i0, uint32_t i1) {
  const order_job *j = ctx;
  for (uint32_t i = i0; i < i1; ++i)
    v3_copy(j->z + 3 * (size_t)j->a->perm0[i], j->a->z0 + 3 * (size_t)i);
}

void amg_apply(void *ctx, const double *r, double *z) {
  amg *a = ctx;
  if (!a->perm0) {
    vcycle(a, 0, r, z);
    return;
  }
  order_job j = {a, r, z};
  pool_for(a->pool, a->lv[0].n, AMG_ROW_GRAIN, gather_rows, &j);
  vcycle(a, 0, a->r0, a->z0);
  pool_for(a->pool, a->lv[0].n, AMG_ROW_GRAIN, scatter_rows, &j);
}
