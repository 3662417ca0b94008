/* SPDX-License-Identifier: MIT
 * Preconditioned conjugate gradients on a 3x3-block SPD matrix with a block-Jacobi
 * preconditioner; fixed (Dirichlet) vertices are held at zero. Work arrays come from the caller
 * so a solve allocates nothing.
 *
 * The matrix is an operator A = H + P: H the elastic Hessian in bsr (fixed pattern), P the
 * off-diagonal blocks of contact pairs (pairmat, Nullable), whose diagonal blocks the caller has
 * already added to H's diagonal. The preconditioners see H only, and stay SPD: with K = H_el + C
 * (C the PSD-projected pair Hessian, Li et al. 2020 sec. 4.3), H = H_el + blockdiag(C) is SPD plus
 * PSD (a diagonal block of a PSD matrix is a principal submatrix, so PSD); block Jacobi uses the
 * diagonal blocks of H, which are exactly those of K (positive definite as principal submatrices
 * of the SPD K); the AMG (amg.h) is built on H's pattern and ignores P. Leaving P out of the
 * preconditioner weakens it for stiff contact, never the validity of PCG. */
#ifndef TF_SOLVE_PCG_H
#define TF_SOLVE_PCG_H

#include "solve/bsr.h"
#include "solve/pairmat.h"

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

typedef struct pcg_work {
  double *r, *z, *p, *q; /* (3n) each */
  double *pinv;          /* (9n) inverted diagonal blocks */
  /* where the last solve stopped, for pcg_resume: r^T z now, one iteration before and at the
   * start, the iterations done; resumable when it stopped on its tolerance or its budget (a
   * breakdown or b = 0 ends a resumed solve as it ended the first: last) */
  double rz, rz_old, rz0;
  uint32_t it;
  int resumable;
  pcg_result last;
} pcg_work;

/* A = H + pairs, SPD on the free vertices. pairs Nullable: NULL or empty is H alone, computed
 * exactly as before pairs existed (bit for bit). */
typedef struct pcg_operator {
  const bsr *H;
  const pairmat *pairs;
  /* Nullable: y += E x for a low-rank SPD part E outside any block pattern (the rigid modes'
   * inertia of pieces in contact, sim/objective.c). It must add nothing to the rows of fixed
   * vertices (E's rows and columns there are zero): PCG keeps those rows zero and no longer
   * zeroes them again after it, a serial pass once a CG iteration */
  void (*extra)(void *ctx, const double *x, double *y);
  void *extra_ctx;
} pcg_operator;

/* Solve A x = b (A = op->H + op->pairs) from x = 0 until sqrt(r^T M^-1 r) <= rtol
 * sqrt(b^T M^-1 b), M built from op->H alone. fixed and pre Nullable (pre NULL or pre->apply
 * NULL: block Jacobi on op->H's diagonal blocks). Units: b and x as the caller's system. */
TF_LOCAL void pcg_solve_op(const pcg_operator *op, const double *b, double *x, const uint8_t *fixed,
                           double rtol, uint32_t max_iter, const pcg_precond *pre, pcg_work *w,
                           pcg_result *out);
/* The last pcg_solve_op on w carried on to a tighter rtol, from where it stopped: the same x, bit
 * for bit, as pcg_solve_op with this rtol on the same operator, right side and preconditioner
 * (CG's iterates do not depend on the tolerance it stops at), at the cost of the further
 * iterations only (out->iterations counts those; max_iter bounds the total, as a fresh solve's).
 * The caller keeps the operator, the preconditioner, x and w unchanged in between. */
TF_LOCAL void pcg_resume(const pcg_operator *op, double *x, const uint8_t *fixed, double rtol,
                         uint32_t max_iter, const pcg_precond *pre, pcg_work *w, pcg_result *out);
/* pcg_solve_op with no pair blocks: A = H. */
TF_LOCAL void pcg_solve(const bsr *A, const double *b, double *x, const uint8_t *fixed, double rtol,
                        uint32_t max_iter, const pcg_precond *pre, pcg_work *w, pcg_result *out);

#endif
