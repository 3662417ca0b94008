/* SPDX-License-Identifier: MIT
 * Newton-PCG with inexact forcing eta = min(0.1, sqrt(|g|/|g0|)) (Eisenstat & Walker 1996) and
 * Armijo backtracking (Nocedal & Wright alg. 3.1). Convergence is measured on the Newton step as
 * a displacement, relative to how far this step moves the vertices, plus an absolute floor.
 * An optional step bound starts the backtracking at alpha_max <= 1 instead of 1, the filtered line
 * search of Incremental Potential Contact (Li et al. 2020 alg. 1). */
#include "solve/newton.h"

#include <math.h>
#include <string.h>

#include "core/pool.h"

static const double ARMIJO_C = 1e-4;
static const int MAX_BACKTRACK = 30;
static const double FORCING_MAX = 0.1;
static const double FORCING_MIN = 1e-10;
static const double ENERGY_ROUNDOFF = 1e-13;
/* a direction that failed where the energy cannot resolve a decrease is solved again with the
 * CG tolerance times this, down to NEWTON_RESOLVE_MIN */
static const double NEWTON_RESOLVE = 1e-2;
static const double NEWTON_RESOLVE_MIN = 1e-6;
/* A step at rest (no vertex farther than rest_disp from where the last step ended) exits on the
 * displacement test only once its correction, solved again to this forcing, is below the
 * tolerance too. At eta = 0.1 CG resolves the stiff part of the residual and stops short in the
 * soft mode a resting pile creeps along: the correction it returns is small while the true Newton
 * step is not, the shortfall accumulates, and every 5-6 frames a step catches up (the pile test's
 * largest speed over the last second at 2-10 s: 0.52-1.39 mm/s; with this, 0.28-0.75, decaying).
 * 0.03 does what 0.01 does; tau-step.md sec. 10 has the costs */
static const double NEWTON_REST_ETA = 0.03;

/* The vector loops of an iteration run on the Hessian's pool (H->par), each over at most
 * VEC_CHUNKS fixed slices: what they compute is exact whatever the slicing (a largest value, an
 * element-wise update), so every thread count gives the same bits. Sums stay in one loop in
 * order, as they round by it. */
enum { VEC_CHUNKS = 64, VEC_CHUNK_MIN = 8192 };

typedef enum { VEC_MAX_DIFF, VEC_MAX_ABS, VEC_AXPY, VEC_RESIDUAL } vec_op;

typedef struct vec_job {
  vec_op op;
  const double *a, *b; /* VEC_RESIDUAL: a the gradient */
  double *out, alpha;  /* VEC_AXPY: out = a + alpha b */
  size_t m;            /* items: doubles, or vertices for VEC_RESIDUAL */
  uint32_t chunks;
  const newton_problem *p; /* VEC_RESIDUAL */
  double part[VEC_CHUNKS]; /* each chunk's largest value */
} vec_job;

static void vec_chunks(void *ctx, uint32_t c0, uint32_t c1) {
  vec_job *j = ctx;
  for (uint32_t c = c0; c < c1; ++c) {
    size_t k0 = j->m * c / j->chunks, k1 = j->m * (c + 1) / j->chunks;
    double r = 0.0;
    switch (j->op) {
      case VEC_MAX_DIFF:
        for (size_t k = k0; k < k1; ++k) {
          double d = fabs(j->a[k] - j->b[k]);
          if (d > r) r = d;
        }
        break;
      case VEC_MAX_ABS: /* NaN if any entry is NaN */
        for (size_t k = k0; k < k1 && !isnan(r); ++k)
          r = isnan(j->a[k]) ? NAN : fmax(r, fabs(j->a[k]));
        break;
      case VEC_AXPY:
        for (size_t k = k0; k < k1; ++k) j->out[k] = j->a[k] + j->alpha * j->b[k];
        break;
      case VEC_RESIDUAL: { /* per vertex: |g|^2, |g|^2 / m and |g| / force_ref (0 if fixed) */
        const newton_problem *p = j->p;
        size_t n = j->m;
        for (size_t i = k0; i < k1; ++i) {
          const double *g = j->a + 3 * i;
          double gg = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
          int fixed = p->fixed && p->fixed[i];
          j->out[i] = gg;
          j->out[n + i] = fixed ? 0.0 : gg / p->mass[i];
          j->out[2 * n + i] = fixed ? 0.0 : sqrt(gg) / p->force_ref[i];
        }
        break;
      }
    }
    j->part[c] = r;
  }
}

/* run op over m items on pool (inline below two chunks' worth); the largest of the parts */
static double vec_run(tf_pool *pool, vec_job *j) {
  size_t chunks = j->m / VEC_CHUNK_MIN;
  j->chunks = chunks < 1 ? 1 : chunks > VEC_CHUNKS ? VEC_CHUNKS : (uint32_t)chunks;
  pool_for(pool, j->chunks, 1, vec_chunks, j);
  double r = 0.0;
  for (uint32_t c = 0; c < j->chunks; ++c) {
    if (isnan(j->part[c])) return NAN;
    if (j->part[c] > r) r = j->part[c];
  }
  return r;
}

static tf_pool *vec_pool(const newton_problem *p) { return p->H->par ? p->H->par->pool : NULL; }

static double max_abs_diff(const newton_problem *p, const double *a, const double *b, size_t m) {
  vec_job j = {.op = VEC_MAX_DIFF, .a = a, .b = b, .m = m};
  return vec_run(vec_pool(p), &j);
}

/* NaN if any entry is NaN: a comparison with NaN is false, so a plain max would skip it and a
 * NaN direction would pass as "below tolerance" */
static double max_abs(const newton_problem *p, const double *a, size_t m) {
  vec_job j = {.op = VEC_MAX_ABS, .a = a, .m = m};
  return vec_run(vec_pool(p), &j);
}

/* out = a + alpha b */
static void axpy(const newton_problem *p, double *out, const double *a, double alpha,
                 const double *b, size_t m) {
  vec_job j = {.op = VEC_AXPY, .a = a, .b = b, .out = out, .alpha = alpha, .m = m};
  vec_run(vec_pool(p), &j);
}

/* Armijo backtracking from y along w->dir, starting at alpha = amax; the accepted point is left in
 * w->trial and its energy in *E. The first trial's gradient comes with its energy (into
 * w->gtrial; *graded = 1 when that trial is the one accepted): an accepted full step is the next
 * iteration's point, whose gradient would otherwise cost a second pass over the elements. Where
 * the energy cannot resolve the decrease (*flat = 1), a step is accepted if it lowers the gradient
 * norm instead (the quadratic regime near a minimum). Returns 1 when a step was accepted. */
static int line_search(const newton_problem *p, newton_work *w, const double *y, size_t m,
                       double E0, double g2, double gd, double amax, double *E_out, int *flat,
                       int *graded) {
  /* below this the energy cannot resolve a decrease (round-off of a sum of O(|E|) terms) */
  double resolvable = ENERGY_ROUNDOFF * (fabs(E0) + fabs(gd));
  double alpha = amax;
  *graded = 0;
  for (int bt = 0; bt < MAX_BACKTRACK; ++bt) {
    axpy(p, w->trial, y, alpha, w->dir, m);
    /* an evaluation's energy does not depend on what else it is asked for */
    double E = p->eval(p->ctx, w->trial, bt == 0 ? w->gtrial : NULL, NULL);
    if (E <= E0 + ARMIJO_C * alpha * gd) return *graded = bt == 0, *E_out = E, 1;
    if (-alpha * gd <= resolvable) {
      *flat = 1;
      if (bt != 0) p->eval(p->ctx, w->trial, w->gtrial, NULL);
      double t2 = 0.0;
      for (size_t k = 0; k < m; ++k) t2 += w->gtrial[k] * w->gtrial[k];
      if (!(t2 < g2)) return 0;
      *graded = 1;
      *E_out = E;
      return 1;
    }
    alpha *= 0.5;
  }
  return 0;
}

void newton_solve(const newton_problem *p, const newton_settings *s, double *y, newton_work *w,
                  newton_result *out) {
  uint32_t n = p->H->n;
  size_t m = 3 * (size_t)n;
  double mmin = INFINITY;
  for (uint32_t i = 0; i < n; ++i)
    if ((!p->fixed || !p->fixed[i]) && p->mass[i] < mmin) mmin = p->mass[i];
  memset(out, 0, sizeof *out);
  out->energy_start = NAN;
  out->min_step_bound = 1.0;
  pcg_operator op = {p->H, p->pairs, p->extra, p->ctx};
  double gnorm0 = -1.0;
  int graded = 0; /* w->grad already holds the gradient at y (the line search's) */
  for (uint32_t it = 0; it < s->max_newton; ++it) {
    /* gradient first: a balanced state exits without assembling the Hessian. A first iterate
     * gets its Hessian in the same pass when the last solve's did not exit there (it is then
     * likely to be needed: the element loop runs once, not twice) */
    int hessed = it == 0 && w->start_hessian;
    double E0 = graded ? out->energy : p->eval(p->ctx, y, w->grad, hessed ? p->H : NULL);
    out->energy = E0;
    if (it == 0) out->energy_start = E0;
    out->iterations = it + 1;
    double tol = s->rtol * max_abs_diff(p, y, p->y_ref, m) + s->atol_pos;
    /* cheap exits before any linear solve: (a) every vertex's net force (the residual of the
     * step's optimality condition, inertia included) is below rtol of its reference force;
     * (b) H >= M/h2 bounds the Newton step by h2 |g|_{M^-1} / sqrt(m_min) */
    double gm = 0.0, g2 = 0.0, fres = 0.0;
    /* the per-vertex terms on the pool, their sums in vertex order */
    vec_job res = {.op = VEC_RESIDUAL, .a = w->grad, .out = w->vtx, .m = n, .p = p};
    vec_run(vec_pool(p), &res);
    for (uint32_t i = 0; i < n; ++i) g2 += w->vtx[i];
    for (uint32_t i = 0; i < n; ++i) {
      if (p->fixed && p->fixed[i]) continue;
      gm += w->vtx[n + i];
      if (w->vtx[2 * (size_t)n + i] > fres) fres = w->vtx[2 * (size_t)n + i];
    }
    /* a non-finite energy or gradient cannot be balanced: stop, not converged (NaN would
     * slip through every comparison below: the largest residual skips it) */
    if (!isfinite(E0) || !isfinite(g2)) return;
    double bound = isfinite(mmin) ? p->h2 * sqrt(gm / mmin) : 0.0;
    if (fres <= s->rtol || bound <= tol) {
      if (it == 0) w->start_hessian = 0;
      out->converged = 1;
      out->residual = fmin(fres / s->rtol, bound / tol);
      return;
    }
    if (it == 0) w->start_hessian = 1;
    if (!hessed) p->eval(p->ctx, y, NULL, p->H);
    if (p->prec_setup) p->prec_setup(p->prec.ctx, p->H, p->fixed, y);
    double gnorm = sqrt(g2);
    if (gnorm0 < 0.0) gnorm0 = gnorm;
    double eta = fmin(FORCING_MAX, sqrt(gnorm / gnorm0));
    if (eta < FORCING_MIN) eta = FORCING_MIN;
    /* H d = -g; solved again more accurately when the energy cannot tell a step's decrease and
     * the inexact direction does not lower the net force (near a static solution, where an eta of
     * 0.1 leaves a direction good to one digit: the static solve of a shell-bending sheet stalled
     * at a net force 5e-7 of its weight) */
    int accepted = 0, first = 1;
    for (double next;; eta = next, first = 0) {
      next = fmax(eta * NEWTON_RESOLVE, FORCING_MIN);
      pcg_result pr;
      if (first) {
        for (size_t k = 0; k < m; ++k) w->trial[k] = -w->grad[k];
        pcg_solve_op(&op, w->trial, w->dir, p->fixed, eta, s->max_cg, &p->prec, &w->pcg, &pr);
      } else { /* the same system to a smaller eta: CG goes on from where it stopped */
        pcg_resume(&op, w->dir, p->fixed, eta, s->max_cg, &p->prec, &w->pcg, &pr);
      }
      out->cg_iterations += pr.iterations;
      double dmax = max_abs(p, w->dir, m);
      double gd = 0.0;
      for (size_t k = 0; k < m; ++k) gd += w->grad[k] * w->dir[k];
      out->residual = dmax / tol;
      /* a broken solve (NaN in H or the preconditioner): keep the last iterate, not converged */
      if (isnan(pr.rel_residual) || !isfinite(dmax) || !isfinite(gd)) return;
      /* the step bound (the CCD filter of IPC alg. 1): no point of y + [0, amax] dir crosses a
       * contact; no safe step at all (0, negative, NaN) leaves the last iterate, not converged */
      double amax = 1.0;
      if (p->max_step) {
        double b = p->max_step(p->ctx, y, w->dir);
        if (!(b >= out->min_step_bound)) out->min_step_bound = b; /* NaN sticks */
        if (!(b >= 1.0)) out->step_cuts++;
        if (!(b > 0.0)) return;
        if (b < 1.0) amax = b;
      }
      if (dmax <= tol && amax == 1.0 && eta > NEWTON_REST_ETA && p->y_prev &&
          max_abs_diff(p, y, p->y_prev, m) <= p->rest_disp) {
        next = NEWTON_REST_ETA; /* at rest: confirm with a correction CG has resolved further */
        continue;
      }
      if (dmax <= tol && amax == 1.0) {
        /* the remaining correction is below tolerance: take it and stop, keeping the iterate
         * before it (the correction's energy is not evaluated: on a non-convex objective a
         * projected model can overshoot, and the caller's check then goes back) */
        memcpy(w->trial, y, m * sizeof *y);
        axpy(p, y, y, 1.0, w->dir, m);
        out->converged = 1;
        out->y_unchecked = w->trial;
        return;
      }
      /* a cut sub-tolerance correction is not taken unchecked: the full step y + dir would cross
       * a contact, so the quadratic model behind the shortcut (and the tolerance, which measures
       * the distance to that model's minimum) does not hold there: the barrier it expands grows
       * without bound before the wall, far from its second-order model. The step amax dir goes
       * through the line search (its first trial), and convergence is left to the next
       * iteration's own tests at the new iterate: a net force below rtol, or a sub-tolerance step
       * the bound does not cut */
      if (!(gd < 0.0)) return; /* no descent direction: keep the last iterate */
      int flat = 0;
      accepted = line_search(p, w, y, m, E0, g2, gd, amax, &out->energy, &flat, &graded);
      if (accepted || !flat || eta <= NEWTON_RESOLVE_MIN) break;
    }
    if (!accepted) return; /* no progress possible: the last iterate stands, not converged */
    memcpy(y, w->trial, m * sizeof *y);
    if (graded) { /* the accepted trial's gradient is the next iteration's */
      double *g = w->grad;
      w->grad = w->gtrial, w->gtrial = g;
    }
  }
}
