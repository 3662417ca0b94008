/* SPDX-License-Identifier: MIT
 * Block-CSR product and lookup. */
#include "solve/bsr.h"

#include <string.h>

void bsr_zero(bsr *A) { memset(A->val, 0, sizeof(double) * 9 * (size_t)A->row_ptr[A->n]); }

void bsr_mul(const bsr *A, const double *x, double *y, const uint8_t *fixed) {
  for (uint32_t i = 0; i < A->n; ++i) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    if (!fixed || !fixed[i]) {
      for (uint32_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; ++k) {
        const double *b = A->val + 9 * (size_t)k;
        const double *xj = x + 3 * (size_t)A->col[k];
        s0 += b[0] * xj[0] + b[1] * xj[1] + b[2] * xj[2];
        s1 += b[3] * xj[0] + b[4] * xj[1] + b[5] * xj[2];
        s2 += b[6] * xj[0] + b[7] * xj[1] + b[8] * xj[2];
      }
    }
    /* fixed columns: x is zero there by construction (PCG keeps fixed entries 0) */
    y[3 * i] = s0;
    y[3 * i + 1] = s1;
    y[3 * i + 2] = s2;
  }
}

uint32_t bsr_slot(const bsr *A, uint32_t i, uint32_t j) {
  uint32_t lo = A->row_ptr[i], hi = A->row_ptr[i + 1];
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (A->col[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return (lo < A->row_ptr[i + 1] && A->col[lo] == j) ? lo : UINT32_MAX;
}
