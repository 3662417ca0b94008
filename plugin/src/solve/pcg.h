/* SPDX-License-Identifier: MIT
 * Preconditioned conjugate gradients on a 3x3-block SPD matrix with a block-Jacobi
 * preconditioner; fixed (Dirichlet) vertices are held at zero. Work arrays come from the caller
 * so a solve allocates nothing. */
#ifndef TF_SOLVE_PCG_H
#define TF_SOLVE_PCG_H

#include "solve/bsr.h"

typedef struct pcg_work {
  double *r, *z, *p, *q; /* (3n) each */
  double *pinv;          /* (9n) inverted diagonal blocks */
} pcg_work;

/* z = M^-1 r for an SPD preconditioner M; apply NULL: block Jacobi */
typedef struct pcg_precond {
  void (*apply)(void *ctx, const double *r, double *z);
  void *ctx;
} pcg_precond;

typedef struct pcg_result {
  uint32_t iterations;
  double rel_residual; /* sqrt(r^T z / r0^T z0) at exit; NaN: the solve broke down (NaN in A, b or
                        * the preconditioner, or r0^T z0 < 0), x is not a solution */
  int converged;
} pcg_result;

/* Solve A x = b from x = 0 until sqrt(r^T M^-1 r) <= rtol sqrt(b^T M^-1 b). fixed and pre
 * Nullable (pre NULL or pre->apply NULL: block Jacobi). */
TF_LOCAL void pcg_solve(const bsr *A, const double *b, double *x, const uint8_t *fixed, double rtol,
                        uint32_t max_iter, const pcg_precond *pre, pcg_work *w, pcg_result *out);

#endif
