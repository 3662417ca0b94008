/* SPDX-License-Identifier: MIT
 * The energies summed over elements, and the objective of one tau step (design note sec. 2.4,
 * the incremental potential)
 *   E(y) = sum_i m_i/(2 h^2) |y_i - yhat_i|^2 + PE(y) - f . y
 * with PE the sum over the simulation's element sets (sim/elements/: cloth membrane and hinges,
 * flesh tets, soft pins; the step's linearized drag joins the objective only). Hard-pinned
 * vertices are fixed: their gradient rows are zero and PCG skips them. */
#include <string.h>

#include "core/vec3.h"
#include "sim/sim.h"

/* every set's terms (step_only ones too when step is set) into E, grad, H */
static double set_terms(const tf_sim *s, int step, const elem_args *a, const double *y, double *grad,
                        bsr *H) {
  double E = 0.0;
  for (uint32_t k = 0; k < s->set_count; ++k) {
    const elem_set *set = &s->sets[k];
    if (set->ops->step_only && !step) continue;
    set->ops->eval(s, set->data, a, y, &E, grad, H);
  }
  return E;
}

double sim_step_eval(void *ctx, const double *y, double *grad, bsr *H) {
  const tf_sim *s = ctx;
  uint32_t n = s->model.n;
  if (grad) memset(grad, 0, sizeof(double) * 3 * n);
  if (H) bsr_zero(H);
  elem_args args = {s->pins.sub};
  double E = set_terms(s, 1, &args, y, grad, H);
  if (H && !grad) {
    /* Hessian only: add the inertia diagonal, the energy is not needed */
    double c0 = 1.0 / s->work.h2;
    for (uint32_t i = 0; i < n; ++i) {
      if (s->pins.fixed[i]) continue;
      double *blk = H->val + 9 * (size_t)H->diag[i];
      double c = s->model.mass[i] * c0;
      blk[0] += c; blk[4] += c; blk[8] += c;
    }
    return E;
  }
  double inv_h2 = 1.0 / s->work.h2;
  for (uint32_t i = 0; i < n; ++i) {
    if (s->pins.fixed[i]) continue;
    const double *yi = y + 3 * (size_t)i, *fi = s->work.f + 3 * (size_t)i;
    double d[3];
    v3_sub(d, yi, s->work.yhat + 3 * (size_t)i);
    double c = s->model.mass[i] * inv_h2;
    E += 0.5 * c * v3_norm2(d) - v3_dot(fi, yi);
    if (grad) {
      double *gi = grad + 3 * (size_t)i;
      gi[0] += c * d[0] - fi[0];
      gi[1] += c * d[1] - fi[1];
      gi[2] += c * d[2] - fi[2];
    }
    if (H) {
      double *blk = H->val + 9 * (size_t)H->diag[i];
      blk[0] += c; blk[4] += c; blk[8] += c;
    }
  }
  if (grad)
    for (uint32_t i = 0; i < n; ++i)
      if (s->pins.fixed[i]) v3_set(grad + 3 * (size_t)i, 0.0, 0.0, 0.0);
  return E;
}

double sim_potential(const tf_sim *s, const double *x, const double *pin_targets, double *grad) {
  if (grad) memset(grad, 0, sizeof(double) * 3 * s->model.n);
  elem_args args = {pin_targets};
  double E = set_terms(s, 0, &args, x, grad, NULL);
  /* gravity: PE_g = -sum m g . x */
  for (uint32_t i = 0; i < s->model.n; ++i) {
    E -= s->model.mass[i] * v3_dot(s->par.gravity, x + 3 * (size_t)i);
    if (grad) v3_axpy(grad + 3 * (size_t)i, -s->model.mass[i], s->par.gravity);
  }
  return E;
}

static void amg_setup_cb(void *ctx, const bsr *H, const uint8_t *fixed) { amg_setup(ctx, H, fixed); }

newton_problem sim_problem(tf_sim *s, newton_eval_fn eval) {
  sim_solver *sv = &s->solver;
  return (newton_problem){.eval = eval,
                          .ctx = s,
                          .H = &sv->H,
                          .fixed = s->pins.fixed,
                          .mass = s->model.mass,
                          .h2 = s->work.h2,
                          .y_ref = s->work.xhat,
                          .force_ref = s->work.force_ref,
                          .prec_setup = sv->amg ? amg_setup_cb : NULL,
                          .prec = {sv->amg ? amg_apply : NULL, sv->amg},
                          .max_step = NULL,
                          .pairs = NULL};
}
