/* SPDX-License-Identifier: MIT
 * Block-CSR product and lookup. */
#include "solve/bsr.h"

#include <string.h>

#include "core/pool.h"

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

static void zero_blocks(void *ctx, uint32_t b0, uint32_t b1) {
  const bsr *A = ctx;
  uint32_t r1 = b1 * BSR_BLOCK_ROWS < A->n ? b1 * BSR_BLOCK_ROWS : A->n;
  size_t k0 = A->row_ptr[b0 * BSR_BLOCK_ROWS], k1 = A->row_ptr[r1];
  memset(A->val + 9 * k0, 0, sizeof(double) * 9 * (k1 - k0));
}

/* on the pool by the product's row blocks: on CLOTH-128 the values are 23 MB, and one thread's
 * memset of them was the largest serial piece of a step that assembles its Hessian */
void bsr_zero(bsr *A) {
  if (!A->par) {
    memset(A->val, 0, sizeof(double) * 9 * (size_t)A->row_ptr[A->n]);
    return;
  }
  pool_for(A->par->pool, (A->n + BSR_BLOCK_ROWS - 1) / BSR_BLOCK_ROWS, 1, zero_blocks, A);
}

/* row i's diagonal and upper blocks applied to x into s (3), and their transposes to the rows
 * j < jend (the caller's block) */
static inline void row_product(const bsr *A, uint32_t i, const double *x, double *y,
                               uint32_t jend) {
  const double *xi = x + 3 * (size_t)i;
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
    s0 += b[0] * xj[0] + b[1] * xj[1] + b[2] * xj[2];
    s1 += b[3] * xj[0] + b[4] * xj[1] + b[5] * xj[2];
    s2 += b[6] * xj[0] + b[7] * xj[1] + b[8] * xj[2];
    if (j >= jend) continue;
    double *yj = y + 3 * (size_t)j;
    yj[0] += b[0] * xi[0] + b[3] * xi[1] + b[6] * xi[2];
    yj[1] += b[1] * xi[0] + b[4] * xi[1] + b[7] * xi[2];
    yj[2] += b[2] * xi[0] + b[5] * xi[1] + b[8] * xi[2];
  }
  double *yi = y + 3 * (size_t)i;
  yi[0] += s0;
  yi[1] += s1;
  yi[2] += s2;
}

typedef struct mul_job {
  const bsr *A;
  const double *x;
  double *y;
  const uint8_t *fixed;
} mul_job;

static void mul_blocks(void *ctx, uint32_t b0, uint32_t b1) {
  const mul_job *j = ctx;
  const bsr *A = j->A;
  for (uint32_t b = b0; b < b1; ++b) {
    uint32_t r0 = b * BSR_BLOCK_ROWS, r1 = r0 + BSR_BLOCK_ROWS < A->n ? r0 + BSR_BLOCK_ROWS : A->n;
    memset(j->y + 3 * (size_t)r0, 0, sizeof(double) * 3 * (r1 - r0));
    for (uint32_t i = r0; i < r1; ++i) row_product(A, i, j->x, j->y, r1);
  }
}

/* the transposes that crossed into this block's rows, then the fixed rows' zeros */
static void mul_cross(void *ctx, uint32_t b0, uint32_t b1) {
  const mul_job *j = ctx;
  const bsr *A = j->A;
  const bsr_par *p = A->par;
  for (uint32_t b = b0; b < b1; ++b) {
    uint32_t r0 = b * BSR_BLOCK_ROWS, r1 = r0 + BSR_BLOCK_ROWS < A->n ? r0 + BSR_BLOCK_ROWS : A->n;
    for (uint32_t r = r0; r < r1; ++r) {
      double *yr = j->y + 3 * (size_t)r;
      for (uint32_t k = p->xptr[r]; k < p->xptr[r + 1]; ++k) {
        const double *bl = A->val + 9 * (size_t)p->xslot[k], *xi = j->x + 3 * (size_t)p->xrow[k];
        yr[0] += bl[0] * xi[0] + bl[3] * xi[1] + bl[6] * xi[2];
        yr[1] += bl[1] * xi[0] + bl[4] * xi[1] + bl[7] * xi[2];
        yr[2] += bl[2] * xi[0] + bl[5] * xi[1] + bl[8] * xi[2];
      }
      if (j->fixed && j->fixed[r]) yr[0] = yr[1] = yr[2] = 0.0;
    }
  }
}

void bsr_mul(const bsr *A, const double *x, double *y, const uint8_t *fixed) {
  if (A->par) {
    mul_job job = {A, x, y, fixed};
    uint32_t blocks = (A->n + BSR_BLOCK_ROWS - 1) / BSR_BLOCK_ROWS;
    pool_for(A->par->pool, blocks, 1, mul_blocks, &job);
    pool_for(A->par->pool, blocks, 1, mul_cross, &job);
    return;
  }
  memset(y, 0, sizeof(double) * 3 * (size_t)A->n);
  for (uint32_t i = 0; i < A->n; ++i) row_product(A, i, x, y, A->n);
  /* fixed rows are zero; fixed columns meet x = 0 there (PCG keeps fixed entries 0) */
  if (fixed)
    for (uint32_t i = 0; i < A->n; ++i)
      if (fixed[i]) y[3 * i] = y[3 * i + 1] = y[3 * i + 2] = 0.0;
}

int bsr_par_init(tf_mem *m, bsr_par *par, const bsr *A) {
  uint32_t n = A->n;
  par->xptr = mem_array(m, (size_t)n + 1, sizeof *par->xptr);
  if (!par->xptr) return 0;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = A->row_ptr[i] + 1; k < A->row_ptr[i + 1]; ++k)
      if (A->col[k] / BSR_BLOCK_ROWS != i / BSR_BLOCK_ROWS) par->xptr[A->col[k] + 1]++;
  for (uint32_t i = 0; i < n; ++i) par->xptr[i + 1] += par->xptr[i];
  uint32_t total = par->xptr[n];
  par->xslot = mem_array(m, total ? total : 1, sizeof *par->xslot);
  par->xrow = mem_array(m, total ? total : 1, sizeof *par->xrow);
  if (!par->xslot || !par->xrow) return bsr_par_free(m, par, n), 0;
  /* rows in increasing order: each row's cross list comes sorted by source row */
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = A->row_ptr[i] + 1; k < A->row_ptr[i + 1]; ++k) {
      uint32_t j = A->col[k];
      if (j / BSR_BLOCK_ROWS == i / BSR_BLOCK_ROWS) continue;
      par->xslot[par->xptr[j]] = k;
      par->xrow[par->xptr[j]++] = i;
    }
  for (uint32_t i = n; i > 0; --i) par->xptr[i] = par->xptr[i - 1];
  par->xptr[0] = 0;
  return 1;
}

void bsr_par_free(tf_mem *m, bsr_par *par, uint32_t n) {
  uint32_t total = par->xptr ? par->xptr[n] : 0;
  MEM_FREE_ARRAY(m, par->xslot, total ? total : 1);
  MEM_FREE_ARRAY(m, par->xrow, total ? total : 1);
  MEM_FREE_ARRAY(m, par->xptr, (size_t)n + 1);
  par->xslot = par->xrow = par->xptr = NULL;
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
