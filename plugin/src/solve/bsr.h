/* SPDX-License-Identifier: MIT
 * 3x3 block-sparse symmetric matrix in block-CSR form, upper triangle only (column >= row, the
 * diagonal block first in each row): the product reads each stored block once and applies it and
 * its transpose, half the memory traffic of storing both triangles. The pattern is fixed at
 * set-up; only the values change per Newton iteration. */
#ifndef TF_SOLVE_BSR_H
#define TF_SOLVE_BSR_H

#include "core/common.h"

typedef struct bsr {
  uint32_t n;              /* block rows */
  const uint32_t *row_ptr; /* (n + 1) */
  const uint32_t *col;     /* (row_ptr[n]) sorted per row, all >= the row */
  uint32_t *diag;          /* (n) index of the diagonal block of each row */
  double *val;             /* (row_ptr[n] x 9) row-major blocks */
} bsr;

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
