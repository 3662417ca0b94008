/* SPDX-License-Identifier: MIT
 * Growable list of off-diagonal 3x3 blocks (i, j), i != j, for couplings the mesh does not have:
 * contact pairs (Incremental Potential Contact, Li et al. 2020), whose set changes every Newton
 * iteration while the elastic pattern in bsr stays fixed. The operator a solve sees is
 * A = H (bsr) + P (this list); the diagonal blocks of a pair's Hessian go into H's diagonal, so P
 * holds off-diagonal blocks only.
 *
 * Each pair is stored once, as the upper block (i < j; a block given for i > j is transposed), and
 * the product applies it and its transpose, like bsr. Repeated pairs are allowed and sum. Two ways
 * to fill it: pairmat_add into what pairmat_reserve made room for (it refuses and counts a block
 * past the capacity, never writes past the end, never allocates), or pairmat_push, which doubles
 * the storage when it is full. Self-contact pushes: a bound reserved before assembly has to cover
 * every candidate (12 blocks each), while a step's Hessian holds the few within their gap (the
 * DRAPE-SELF-64 run reserved 2.1 million blocks, 168 MB, and used at most 264). */
#ifndef TF_SOLVE_PAIRMAT_H
#define TF_SOLVE_PAIRMAT_H

#include "core/mem.h"

typedef struct pairmat_block {
  uint32_t i, j; /* i < j */
  double b[9];   /* row-major block (i, j); (j, i) is its transpose */
} pairmat_block;

/* All-zero is an empty matrix with no storage. */
typedef struct pairmat {
  pairmat_block *blk; /* (capacity) */
  uint32_t count, capacity;
  uint32_t overflow;   /* pairmat_add calls refused for capacity since the last clear */
  uint32_t grow_count; /* reallocations by pairmat_reserve since the matrix was zeroed */
} pairmat;

/* Make room for at least capacity blocks, keeping the stored ones. Grows geometrically (doubling
 * from the current capacity) so that a slowly rising candidate count reallocates rarely. Returns 1
 * on success; on out of memory 0, with pm unchanged and m->failed set. */
TF_LOCAL int pairmat_reserve(tf_mem *m, pairmat *pm, uint32_t capacity);
/* Forget every block and the overflow count; keeps the storage. */
TF_LOCAL void pairmat_clear(pairmat *pm);
/* Add the 3x3 block blk (row-major) at (i, j) and its transpose at (j, i). Returns 1 if stored;
 * 0 for i == j (diagonal blocks belong in the bsr) or when the capacity is full (a programming
 * error of whoever reserved: counted in overflow, nothing is written). Never allocates. */
TF_LOCAL int pairmat_add(pairmat *pm, uint32_t i, uint32_t j, const double blk[9]);
/* pairmat_add, growing the storage (doubling, pairmat_reserve) when it is full: rare, and counted
 * in grow_count. Returns 0 for i == j, or when out of memory (then m->failed is set, the block is
 * counted in overflow and nothing is stored). */
TF_LOCAL int pairmat_push(tf_mem *m, pairmat *pm, uint32_t i, uint32_t j, const double blk[9]);
/* y += P x (both 3n), skipping rows and columns of fixed vertices (fixed Nullable): a block with a
 * fixed end adds nothing, matching bsr_mul's Dirichlet convention. */
TF_LOCAL void pairmat_mul_add(const pairmat *pm, const double *x, double *y, const uint8_t *fixed);
/* Release the storage and zero pm. */
TF_LOCAL void pairmat_free(tf_mem *m, pairmat *pm);

#endif
