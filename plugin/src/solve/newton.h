/* SPDX-License-Identifier: MIT
 * Projected Newton minimization of a smooth energy over vertex positions: PSD-projected Hessian
 * assembled by the caller, inexact PCG solve, backtracking Armijo line search. Every accepted
 * iterate lowers the energy, so stopping early never breaks the minimizing-movement guarantee
 * (design note tau-method.md sec. 3.3).
 *
 * Room for Incremental Potential Contact (Li et al. 2020, "Incremental Potential Contact",
 * SIGGRAPH; alg. 1): the Hessian may carry pair blocks outside the mesh pattern (pairs), and a
 * step bound (max_step, the continuous-collision-detection filter of alg. 1) caps the line
 * search so that no iterate, trial point included, crosses a contact. Both are Nullable; without
 * them the solve is the one above, bit for bit. */
#ifndef TF_SOLVE_NEWTON_H
#define TF_SOLVE_NEWTON_H

#include "solve/pcg.h"

/* Energy (J) at y (m, 3n); when grad != NULL also the gradient (N, 3n, zero on fixed vertices);
 * when H != NULL the projected Hessian values (N/m, pattern fixed) and, if the problem has pairs,
 * the pair blocks (pairmat_clear, then pairmat_add; their diagonal blocks into H). Called with
 * grad or H or neither. */
typedef double (*newton_eval_fn)(void *ctx, const double *y, double *grad, bsr *H);

/* The largest fraction alpha in (0, 1] of the Newton direction dir (m, 3n) such that every point
 * of y + [0, alpha] dir is safe (no contact crossed): IPC's collision-free step size (Li et al.
 * 2020 alg. 1; ipc-toolkit's compute_collision_free_stepsize). Called once per Newton iteration
 * that steps, before the line search, with the eval's ctx. A value >= 1 (or +inf) does not cut;
 * 0, a negative value or NaN means no safe step: the solve stops there, not converged. */
typedef double (*newton_max_step_fn)(void *ctx, const double *y, const double *dir);

typedef struct newton_problem {
  newton_eval_fn eval;
  void *ctx;
  bsr *H;
  const uint8_t *fixed; /* Nullable (n) */
  const double *mass;   /* (n) masses, with h2 gives H >= M / h2 for the cheap exit bound */
  double h2;            /* s^2 */
  const double *y_ref;  /* (3n) positions the step started from: the displacement scale */
  /* Nullable (3n): where the last step ended; a step whose iterate lies within rest_disp (m) of
   * it in every coordinate is at rest, and its displacement exit is confirmed (newton.c) */
  const double *y_prev;
  double rest_disp;
  const double
      *force_ref; /* (n) N, > 0: a vertex whose net force is below rtol x this is balanced */
  /* Nullable: rebuild the preconditioner from a newly assembled H, then PCG uses prec */
  void (*prec_setup)(void *prec_ctx, const bsr *H, const uint8_t *fixed, const double *x);
  pcg_precond prec;
  newton_max_step_fn max_step; /* Nullable: no bound, every line search starts at alpha = 1 */
  /* Nullable: off-diagonal pair blocks, filled by eval with H; the linear solve uses H + pairs
   * (the preconditioner H alone, see pcg.h). The caller reserves their capacity beforehand. */
  const pairmat *pairs;
  /* Nullable: a low-rank part of the Hessian applied as y += E x (pcg_operator.extra), ctx */
  void (*extra)(void *ctx, const double *x, double *y);
} newton_problem;

typedef struct newton_settings {
  uint32_t max_newton, max_cg;
  double rtol;     /* relative: Newton step vs the step's displacement max|y - y_ref|, and net
                      force vs force_ref */
  double atol_pos; /* m */
} newton_settings;

/* Scratch owned by the caller, allocated once (3n doubles each, pinv 9n); newton_solve borrows no
 * other array, and the contents are free for the caller's use after it returns. */
typedef struct newton_work {
  double *grad, *dir, *trial; /* (3n) each */
  double *gtrial;             /* (3n) gradient at a line-search trial point */
  pcg_work pcg;
  int start_hessian; /* the last solve's first iterate needed its Hessian (0 at set-up): the
                        next one's comes with its gradient. Speed only: results are the same */
  double *vtx;       /* (3n) per-vertex residual terms, computed on the Hessian's pool */
} newton_work;

typedef struct newton_result {
  uint32_t iterations, cg_iterations;
  double residual; /* last Newton step / (rtol scale + atol), < 1 when converged */
  int converged;
  double
      energy; /* at the last accepted iterate (not re-evaluated after a final sub-tolerance step) */
  double energy_start;   /* at the start iterate; NaN if max_newton was 0 */
  uint32_t step_cuts;    /* iterations whose step bound was < 1 (0 without max_step) */
  double min_step_bound; /* smallest max_step value seen, 1 if none was below 1 (NaN if one was) */
  /* the iterate before the last update when that was a sub-tolerance correction taken without
   * evaluating the energy (NULL otherwise): a caller that finds the energy risen can go back to
   * it. Valid until the next solve on the same work */
  const double *y_unchecked;
} newton_result;

/* Minimize from y (m, 3n, updated in place). Allocates nothing; not thread-safe on one w. */
TF_LOCAL void newton_solve(const newton_problem *p, const newton_settings *s, double *y,
                           newton_work *w, newton_result *out);

#endif
