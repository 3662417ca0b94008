/* SPDX-License-Identifier: MIT
 * Block-CSR product and lookup. */
#include "solve/bsr.h"

#include <string.h>

void bsr_init_upper(bsr *A, uint32_t n, const uint32_t *adj_ptr, const uint32_t *adj,
                    uint32_t *row_ptr, uint32_t *col, uint32_t *diag) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; ++i) {
    row_ptr[i] = k;
    for (uint32_t a = adj_ptr[i]; a < adj_ptr[i + 1]; ++a)
      if (adj[a] >= i) col[k++] = adj[a];
  }
  row_ptr[n] = k;
  A->n = n;
  A->row_ptr = row_ptr;
  A->col = col;
  A->diag = diag;
  for (uint32_t i = 0; i < n; ++i) diag[i] = bsr_slot(A, i, i);
}

void bsr_zero(bsr *A) { memset(A->val, 0, sizeof(double) * 9 * (size_t)A->row_ptr[A->n]); }

void bsr_mul(const bsr *A, const double *x, double *y, const uint8_t *fixed) {
  memset(y, 0, sizeof(double) * 3 * (size_t)A->n);
  for (uint32_t i = 0; i < A->n; ++i) {
    const double *xi = x + 3 * (size_t)i;
    double *yi = y + 3 * (size_t)i;
    /* diagonal block, then each upper block B_ij adds B x_j to row i and B^T x_i to row j */
    uint32_t k = A->row_ptr[i];
    const double *d = A->val + 9 * (size_t)k;
    double s0 = d[0] * xi[0] + d[1] * xi[1] + d[2] * xi[2];
    double s1 = d[3] * xi[0] + d[4] * xi[1] + d[5] * xi[2];
    double s2 = d[6] * xi[0] + d[7] * xi[1] + d[8] * xi[2];
    for (++k; k < A->row_ptr[i + 1]; ++k) {
      const double *b = A->val + 9 * (size_t)k;
      uint32_t j = A->col[k];
      const double *xj = x + 3 * (size_t)j;
      double *yj = y + 3 * (size_t)j;
      s0 += b[0] * xj[0] + b[1] * xj[1] + b[2] * xj[2];
      s1 += b[3] * xj[0] + b[4] * xj[1] + b[5] * xj[2];
      s2 += b[6] * xj[0] + b[7] * xj[1] + b[8] * xj[2];
      yj[0] += b[0] * xi[0] + b[3] * xi[1] + b[6] * xi[2];
      yj[1] += b[1] * xi[0] + b[4] * xi[1] + b[7] * xi[2];
      yj[2] += b[2] * xi[0] + b[5] * xi[1] + b[8] * xi[2];
    }
    yi[0] += s0;
    yi[1] += s1;
    yi[2] += s2;
  }
  /* fixed rows are zero; fixed columns meet x = 0 there (PCG keeps fixed entries 0) */
  if (fixed)
    for (uint32_t i = 0; i < A->n; ++i)
      if (fixed[i]) y[3 * i] = y[3 * i + 1] = y[3 * i + 2] = 0.0;
}

uint32_t bsr_slot(const bsr *A, uint32_t i, uint32_t j) {
  if (i > j) return UINT32_MAX;
  uint32_t lo = A->row_ptr[i], hi = A->row_ptr[i + 1];
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (A->col[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (lo < A->row_ptr[i + 1] && A->col[lo] == j) ? lo : UINT32_MAX;
}
