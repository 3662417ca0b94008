/* SPDX-License-Identifier: MIT
 * The step's sanity check (issue 14): an accepted step must be finite and must not raise its
 * objective above the start iterate's, the one guarantee of a minimization. A solver that
 * minimizes something else, or returns garbage while saying "converged", fails the advance
 * loudly: rolled back, TF_E_NOT_CONVERGED naming the frame, substep and what failed, stats with
 * residual inf. The solver is handed a broken objective through the test seam solve_eval; the
 * check evaluates the true one (sim_step_eval). */
#include <stdlib.h>
#include <string.h>

#include "scenes.h"
#include "sim/sim.h"
#include "tf_test.h"

static const double O[3] = {0, 0, 0}, EX[3] = {1, 0, 0}, EY[3] = {0, 1, 0};

/* the step's objective upside down: energy and gradient negated, the (PSD) Hessian kept, so
 * Newton's steps go uphill on the true objective and its line search accepts them */
static double negated_eval(void *ctx, const double *y, double *grad, bsr *H) {
  double E = sim_step_eval(ctx, y, grad, H);
  if (grad)
    for (size_t k = 0; k < 3 * (size_t)((tf_sim *)ctx)->model.n; ++k) grad[k] = -grad[k];
  return -E;
}

/* a Hessian scaled by 1e-300 (a broken assembly): Newton's step is ~1e297 m, where the true
 * objective overflows, and an energy that calls overflow "lowest" has the line search accept it */
static double huge_step_eval(void *ctx, const double *y, double *grad, bsr *H) {
  double E = sim_step_eval(ctx, y, grad, H);
  if (H)
    for (size_t k = 0; k < 9 * (size_t)H->row_ptr[H->n]; ++k) H->val[k] *= 1e-300;
  return isfinite(E) ? E : -INFINITY;
}

/* a NaN in the Hessian at vertex 7: the solve's direction is NaN, which the solver's step-size
 * test (max |d| <= tol, where NaN compared false and was skipped) used to take as converged */
static double nan_hessian_eval(void *ctx, const double *y, double *grad, bsr *H) {
  double E = sim_step_eval(ctx, y, grad, H);
  if (H) H->val[9 * (size_t)H->diag[7]] = NAN;
  return E;
}

typedef struct snap {
  double x[49 * 3], v[49 * 3];
} snap;

static void take(tf_sim *sim, snap *s) {
  tf_sim_get_positions(sim, s->x, 49);
  tf_sim_get_velocities(sim, s->v, 49);
}

static tf_sim *swinging_sheet(scene *sc) {
  scene_grid(sc, 6, 6, 1.0, 1.0, O, EX, EY, 1);
  tf_cloth_def def;
  scene_def(sc, &def);
  tf_sim *sim = NULL;
  if (tf_cloth_create(&def, &sim, NULL, 0) != TF_OK) return NULL;
  if (tf_sim_set_pins(sim, sc->pins, NULL, sc->pin_count) != TF_OK)
    return tf_sim_destroy(sim), NULL;
  return sim;
}

static void check_fails(int *tf_failed_, newton_eval_fn eval, const char *what) {
  scene sc;
  tf_sim *sim = swinging_sheet(&sc);
  ENSURE(sim);
  for (int f = 0; f < 3; ++f) ENSURE(tf_sim_advance(sim, 1.0 / 24, 2) == TF_OK);
  snap before, after;
  take(sim, &before);
  double t0 = 0.0, t1 = 0.0;
  tf_sim_get_param(sim, TF_PARAM_TIME, &t0, 1);
  sim->solver.eval = eval;
  tf_status st = tf_sim_advance(sim, 1.0 / 24, 2);
  const char *msg = tf_sim_last_error(sim);
  ENSURE_MSG(st == TF_E_NOT_CONVERGED, "status %d", (int)st);
  ENSURE_MSG(
      strstr(msg, "frame 3, substep 0 of 2") && strstr(msg, what) && strstr(msg, "rolled back"),
      "%s", msg);
  tf_stats stats;
  memset(&stats, 0, sizeof stats);
  stats.struct_size = sizeof stats;
  ENSURE(tf_sim_get_stats(sim, &stats) == TF_OK);
  ENSURE(isinf(stats.residual) && stats.unconverged_steps == 1 && stats.steps == 1 &&
         stats.total_steps == 6);
  /* rolled back: positions, velocities and the clock as before the call */
  take(sim, &after);
  tf_sim_get_param(sim, TF_PARAM_TIME, &t1, 1);
  ENSURE(memcmp(&before, &after, sizeof before) == 0 && t0 == t1);
  /* with the true objective the same frame succeeds */
  sim->solver.eval = NULL;
  ENSURE(tf_sim_advance(sim, 1.0 / 24, 2) == TF_OK);
  ENSURE(tf_sim_get_stats(sim, &stats) == TF_OK);
  ENSURE(stats.residual <= 1.0 && stats.total_steps == 8);
  tf_sim_destroy(sim);
  scene_free(&sc);
}

TF_TEST(sanity_unminimized_objective_fails_loudly) {
  check_fails(tf_failed_, negated_eval, "the step's objective rose over the solve");
}

TF_TEST(sanity_overflowing_result_fails_loudly) {
  check_fails(tf_failed_, huge_step_eval, "the step's objective is not finite");
}

TF_TEST(sanity_nan_direction_is_not_converged) {
  /* the solver stops at its last (finite) iterate and says it did not converge; the step is
   * still a valid descent, so the advance succeeds and the stats carry the failure */
  scene sc;
  tf_sim *sim = swinging_sheet(&sc);
  ENSURE(sim);
  sim->solver.eval = nan_hessian_eval;
  tf_stats stats;
  memset(&stats, 0, sizeof stats);
  stats.struct_size = sizeof stats;
  for (int f = 0; f < 3; ++f) ENSURE(tf_sim_advance(sim, 1.0 / 24, 2) == TF_OK);
  ENSURE(tf_sim_get_stats(sim, &stats) == TF_OK);
  ENSURE_MSG(stats.unconverged_steps == 2, "%u unconverged, %u newton, %u cg, residual %g",
             stats.unconverged_steps, stats.newton_iterations, stats.cg_iterations, stats.residual);
  tf_sim_destroy(sim);
  scene_free(&sc);
}
