/* SPDX-License-Identifier: MIT
 * Projected Newton minimization of a smooth energy over vertex positions: PSD-projected Hessian
 * assembled by the caller, inexact PCG solve, backtracking Armijo line search. Every accepted
 * iterate lowers the energy, so stopping early never breaks the minimizing-movement guarantee
 * (design note tau-method.md sec. 3.3). */
#ifndef TF_SOLVE_NEWTON_H
#define TF_SOLVE_NEWTON_H

#include "solve/pcg.h"

/* Energy at y; when grad != NULL also the gradient (3n, zero on fixed vertices); when H != NULL
 * the projected Hessian values (pattern fixed). Called with grad or H or neither. */
typedef double (*newton_eval_fn)(void *ctx, const double *y, double *grad, bsr *H);

typedef struct newton_problem {
  newton_eval_fn eval;
  void *ctx;
  bsr *H;
  const uint8_t *fixed; /* Nullable (n) */
  const double *mass;   /* (n) masses, with h2 gives H >= M / h2 for the cheap exit bound */
  double h2;            /* s^2 */
  const double *y_ref;  /* (3n) positions the step started from: the displacement scale */
  const double *force_ref; /* (n) N, > 0: a vertex whose net force is below rtol x this is balanced */
  /* Nullable: rebuild the preconditioner from a newly assembled H, then PCG uses prec */
  void (*prec_setup)(void *prec_ctx, const bsr *H, const uint8_t *fixed);
  pcg_precond prec;
} newton_problem;

typedef struct newton_settings {
  uint32_t max_newton, max_cg;
  double rtol;     /* relative: Newton step vs the step's displacement max|y - y_ref|, and net
                      force vs force_ref */
  double atol_pos; /* m */
} newton_settings;

/* Scratch owned by the caller, allocated once; newton_solve uses every array and lends none. */
typedef struct newton_work {
  double *grad, *dir, *trial; /* (3n) each */
  double *gtrial;             /* (3n) gradient at a line-search trial point */
  pcg_work pcg;
} newton_work;

typedef struct newton_result {
  uint32_t iterations, cg_iterations;
  double residual; /* last Newton step / (rtol scale + atol), < 1 when converged */
  int converged;
  double energy;       /* at the last accepted iterate (not re-evaluated after a final sub-tolerance step) */
  double energy_start; /* at the start iterate; NaN if max_newton was 0 */
} newton_result;

/* Minimize from y (updated in place). */
TF_LOCAL void newton_solve(const newton_problem *p, const newton_settings *s, double *y, newton_work *w,
                           newton_result *out);

#endif
