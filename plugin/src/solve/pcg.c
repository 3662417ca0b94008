/* SPDX-License-Identifier: MIT
 * PCG (Saad, Iterative Methods for Sparse Linear Systems, alg. 9.1) on H + pair blocks with
 * inverted 3x3 diagonal blocks of H as preconditioner. A non-positive curvature p^T A p ends the
 * solve with the current iterate, which is still a descent direction for the Newton step (or,
 * at the first direction, with that direction itself). */
#include "solve/pcg.h"

#include <math.h>
#include <string.h>

#include "core/pool.h"
#include "core/vec3.h"

static void apply_prec(const double *pinv, const double *r, double *z, uint32_t n,
                       const uint8_t *fixed) {
  for (uint32_t i = 0; i < n; ++i) {
    if (fixed && fixed[i]) {
      z[3 * i] = z[3 * i + 1] = z[3 * i + 2] = 0.0;
      continue;
    }
    m3_mulv(z + 3 * i, pinv + 9 * (size_t)i, r + 3 * i);
  }
}

/* the vector loops on the matrix's threads (bsr.par); the sums in chunks fixed by the length
 * (pool_sum), so a dot product rounds the same on any number of threads */
typedef struct vec_job {
  const double *a, *b;
  double *x, *y;
  double alpha;
} vec_job;

static double dot_range(void *ctx, uint32_t i0, uint32_t i1) {
  const vec_job *j = ctx;
  double s = 0.0;
  for (uint32_t i = i0; i < i1; ++i) s += j->a[i] * j->b[i];
  return s;
}

static double dot(tf_pool *pool, const double *a, const double *b, size_t n) {
  vec_job j = {a, b, NULL, NULL, 0.0};
  return pool_sum(pool, (uint32_t)n, dot_range, &j);
}

/* x += alpha a, y -= alpha b */
static void step_range(void *ctx, uint32_t i0, uint32_t i1) {
  const vec_job *j = ctx;
  for (uint32_t i = i0; i < i1; ++i) {
    j->x[i] += j->alpha * j->a[i];
    j->y[i] -= j->alpha * j->b[i];
  }
}

/* y = a + alpha y */
static void dir_range(void *ctx, uint32_t i0, uint32_t i1) {
  const vec_job *j = ctx;
  for (uint32_t i = i0; i < i1; ++i) j->y[i] = j->a[i] + j->alpha * j->y[i];
}

/* entries per chunk of the vector loops */
static const uint32_t VEC_GRAIN = 8192;

/* z = M^-1 r with the chosen preconditioner; fixed entries stay zero */
static void precondition(const pcg_precond *pre, const pcg_work *w, const double *r, double *z,
                         uint32_t n, const uint8_t *fixed) {
  if (pre && pre->apply) {
    pre->apply(pre->ctx, r, z);
    if (fixed)
      for (uint32_t i = 0; i < n; ++i)
        if (fixed[i]) z[3 * i] = z[3 * i + 1] = z[3 * i + 2] = 0.0;
  } else {
    apply_prec(w->pinv, r, z, n, fixed);
  }
}

static void iterate(const pcg_operator *op, double *x, const uint8_t *fixed, double rtol,
                    uint32_t max_iter, const pcg_precond *pre, pcg_work *w, pcg_result *out);

void pcg_solve(const bsr *A, const double *b, double *x, const uint8_t *fixed, double rtol,
               uint32_t max_iter, const pcg_precond *pre, pcg_work *w, pcg_result *out) {
  pcg_operator op = {A, NULL, NULL, NULL};
  pcg_solve_op(&op, b, x, fixed, rtol, max_iter, pre, w, out);
}

void pcg_solve_op(const pcg_operator *op, const double *b, double *x, const uint8_t *fixed,
                  double rtol, uint32_t max_iter, const pcg_precond *pre, pcg_work *w,
                  pcg_result *out) {
  const bsr *A = op->H;
  uint32_t n = A->n;
  size_t m = 3 * (size_t)n;
  /* block-Jacobi: invert each diagonal block (fall back to its diagonal if singular) */
  for (uint32_t i = 0; i < n && !(pre && pre->apply); ++i) {
    const double *d = A->val + 9 * (size_t)A->diag[i];
    double *pi = w->pinv + 9 * (size_t)i;
    if (!m3_inverse(pi, d, 1e-300)) {
      memset(pi, 0, 9 * sizeof *pi);
      for (int k = 0; k < 3; ++k) pi[4 * k] = d[4 * k] > 0.0 ? 1.0 / d[4 * k] : 1.0;
    }
  }
  memset(x, 0, m * sizeof *x);
  for (size_t k = 0; k < m; ++k) w->r[k] = (fixed && fixed[k / 3]) ? 0.0 : b[k];
  precondition(pre, w, w->r, w->z, n, fixed);
  memcpy(w->p, w->z, m * sizeof *x);
  tf_pool *pool = A->par ? A->par->pool : NULL;
  double rz = dot(pool, w->r, w->z, m);
  double rz0 = rz;
  out->iterations = 0;
  out->converged = 0;
  out->rel_residual = 0.0;
  w->resumable = 0;
  if (!(rz0 > 0.0)) {
    /* b = 0 is solved by x = 0; a NaN (or a preconditioner that is not positive) is not: say
     * so with a NaN residual rather than "converged" with x = 0 */
    out->converged = rz0 == 0.0;
    out->rel_residual = rz0 == 0.0 ? 0.0 : NAN;
    w->last = *out;
    return;
  }
  w->rz = rz, w->rz_old = 0.0, w->rz0 = rz0, w->it = 0;
  iterate(op, x, fixed, rtol, max_iter, pre, w, out);
}

/* CG from the state in w (w->it iterations done: the next direction is z + beta p, beta =
 * rz / rz_old, unless none is done) until rtol or max_iter in all */
static void iterate(const pcg_operator *op, double *x, const uint8_t *fixed, double rtol,
                    uint32_t max_iter, const pcg_precond *pre, pcg_work *w, pcg_result *out) {
  const bsr *A = op->H;
  const pairmat *pairs = op->pairs && op->pairs->count ? op->pairs : NULL;
  uint32_t n = A->n, start = w->it, it = w->it;
  size_t m = 3 * (size_t)n;
  tf_pool *pool = A->par ? A->par->pool : NULL;
  double rz = w->rz, rz0 = w->rz0, tol2 = rtol * rtol * rz0;
  w->resumable = 0;
  out->converged = 0;
  if (it > 0 && rz <= tol2) { /* the first solve went as far already */
    out->converged = 1;
    w->resumable = 1;
  }
  while (it < max_iter && !out->converged) {
    if (it > 0) {
      vec_job dir = {w->z, NULL, NULL, w->p, rz / w->rz_old};
      pool_for(pool, (uint32_t)m, VEC_GRAIN, dir_range, &dir);
    }
    /* q = (H + P) p; P's blocks with a fixed end add nothing, so fixed rows stay zero */
    bsr_mul(A, w->p, w->q, fixed);
    if (pairs) pairmat_mul_add(pairs, w->p, w->q, fixed);
    if (op->extra) op->extra(op->extra_ctx, w->p, w->q); /* adds nothing to fixed rows */
    double pq = dot(pool, w->p, w->q, m);
    if (!(pq > 0.0)) {
      /* not positive definite along p: keep x; a NaN in A is a breakdown, not a solution. At the
       * first direction x is still 0, which a Newton loop would read as a correction below its
       * tolerance, "converged" with a net force left: return the preconditioned steepest descent
       * p = M^-1 b instead (Nocedal & Wright, alg. 7.1, Newton-CG with negative curvature at its
       * first iterate), a descent direction for the line search */
      if (isnan(pq))
        rz = NAN;
      else if (it == 0)
        memcpy(x, w->p, m * sizeof *x);
      break;
    }
    vec_job step = {w->p, w->q, x, w->r, rz / pq};
    pool_for(pool, (uint32_t)m, VEC_GRAIN, step_range, &step);
    ++it;
    precondition(pre, w, w->r, w->z, n, fixed);
    w->rz_old = rz;
    rz = dot(pool, w->r, w->z, m);
    if (rz <= tol2) {
      out->converged = 1;
      w->resumable = 1;
    }
  }
  if (it == max_iter && !out->converged) w->resumable = 1; /* a larger budget would go on */
  w->rz = rz, w->it = it;
  out->iterations = it - start;
  out->rel_residual = isnan(rz) ? NAN : sqrt(fmax(rz, 0.0) / rz0);
  w->last = *out;
}

void pcg_resume(const pcg_operator *op, double *x, const uint8_t *fixed, double rtol,
                uint32_t max_iter, const pcg_precond *pre, pcg_work *w, pcg_result *out) {
  if (!w->resumable) { /* it stopped on a breakdown or b = 0: a fresh solve stops there again */
    *out = w->last;
    out->iterations = 0;
    return;
  }
  iterate(op, x, fixed, rtol, max_iter, pre, w, out);
}
