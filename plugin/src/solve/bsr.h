/* SPDX-License-Identifier: MIT
 * 3x3 block-sparse symmetric matrix in block-CSR form, upper triangle only (column >= row, the
 * diagonal block first in each row): the product reads each stored block once and applies it and
 * its transpose, half the memory traffic of storing both triangles. The pattern is fixed at
 * set-up; only the values change per Newton iteration. */
#ifndef TF_SOLVE_BSR_H
#define TF_SOLVE_BSR_H

#include "core/common.h"
#include "core/mem.h"

typedef struct tf_pool tf_pool;

/* Threading of the product (bsr_par_init): rows cut into blocks of BSR_BLOCK_ROWS, fixed by n.
 * A block's rows apply their stored blocks and, within the block, their transposes (each block
 * read once, as serially); a transpose that lands in a later block is applied by that block's
 * row in a second pass, from the cross list. Each row's terms then come in one fixed order,
 * whatever the thread count. */
typedef struct bsr_par {
  tf_pool *pool;   /* Nullable: inline, same order */
  uint32_t *xptr;  /* (n + 1) per row j: its cross entries */
  uint32_t *xslot; /* (xptr[n]) slot of a stored block (i, j) whose row i is in an earlier block */
  uint32_t *xrow;  /* (xptr[n]) that row i */
} bsr_par;

typedef struct bsr {
  uint32_t n;              /* block rows */
  const uint32_t *row_ptr; /* (n + 1) */
  const uint32_t *col;     /* (row_ptr[n]) sorted per row, all >= the row */
  uint32_t *diag;          /* (n) index of the diagonal block of each row */
  double *val;             /* (row_ptr[n] x 9) row-major blocks */
  const bsr_par *par;      /* Nullable: the blocked product (threads); NULL: one serial sweep */
} bsr;

/* rows per block: a block's transposes that land in later blocks are read twice (mul_cross), about
 * one grid row's worth per block on a cloth grid, so larger blocks cost less; 1024 leaves 16
 * blocks on CLOTH-128 and 4 on FLESH-20k */
#define BSR_BLOCK_ROWS 1024u

/* the cross lists of A's pattern (allocated through m; par->pool set by the caller) */
TF_LOCAL int bsr_par_init(tf_mem *m, bsr_par *par, const bsr *A);
TF_LOCAL void bsr_par_free(tf_mem *m, bsr_par *par, uint32_t n);

/* Upper-triangle pattern of a symmetric adjacency (rows sorted, diagonal included): fills row_ptr
 * (n + 1), col ((adj_ptr[n] + n) / 2) and diag (n), and points A at them. */
TF_LOCAL void bsr_init_upper(bsr *A, uint32_t n, const uint32_t *adj_ptr, const uint32_t *adj,
                             uint32_t *row_ptr, uint32_t *col, uint32_t *diag);
TF_LOCAL void bsr_zero(bsr *A);
/* y = A x, skipping (zeroing) rows and columns of fixed vertices; fixed Nullable */
TF_LOCAL void bsr_mul(const bsr *A, const double *x, double *y, const uint8_t *fixed);
/* block slot of (i, j) for i <= j, UINT32_MAX if i > j or not in the pattern */
TF_LOCAL uint32_t bsr_slot(const bsr *A, uint32_t i, uint32_t j);
/* add a 3x3 block (row-major) at slot s */
static inline void bsr_add_block(bsr *A, uint32_t s, const double *b) {
  double *v = A->val + 9 * (size_t)s;
  for (int k = 0; k < 9; ++k) v[k] += b[k];
}

#endif
