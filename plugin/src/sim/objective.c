/* SPDX-License-Identifier: MIT
 * The energies summed over elements, and the objective of one tau step (design note sec. 2.4,
 * the incremental potential)
 *   E(y) = sum_i m_i/(2 h^2) |y_i - yhat_i|^2 + PE(y) - f . y
 * with PE the sum over the simulation's element sets (sim/elements/: cloth membrane and hinges,
 * flesh tets, soft pins; the step's linearized drag joins the objective only). Hard-pinned
 * vertices are fixed: their gradient rows are zero and PCG skips them. */
#include <string.h>

#include "core/vec3.h"
#include "contact/contact.h"
#include "sim/sim.h"

/* every set's terms (step_only ones too when step is set) into E, grad, H */
static double set_terms(const tf_sim *s, int step, const elem_args *a, const double *y,
                        double *grad, bsr *H) {
  double E = 0.0;
  for (uint32_t k = 0; k < s->set_count; ++k) {
    const elem_set *set = &s->sets[k];
    if (set->ops->step_only && !step) continue;
    set->ops->eval(s, set->data, a, y, &E, grad, H);
  }
  return E;
}

/* Pieces in contact keep the physical inertia of their rigid modes: the step's kinetic term
 * |d|^2_M / (2 h^2), d = y - yhat, weighs every mode by 1/h^2 = a/(tau dt), which is right for
 * deformation (tau damps it) but would turn contact's push on the rigid modes into a flow at
 * tau's rate. With P_R the M-orthogonal projection onto the piece's rigid fields (rigid.c), the
 * term c |P_R d|^2_M, c = (1/dt^2 - 1/h^2)/2, makes the rigid modes' weight 1/dt^2: backward
 * Euler of m x'' = F on them, so a sheet slides down a slope with g (sin - mu cos) and lands
 * with its momentum, while its deformation still settles on tau. Its Hessian 2c M P_R is dense
 * over a piece but of rank 6: the solver applies it as an operator (rigid_inertia_mul) */
static void anchored_projection(const tf_sim *s, const double *u, double *out) {
  tf_sim *w = (tf_sim *)s; /* rigid_project uses the pieces' accumulators as scratch */
  rigid_project(w, s->state.x, u, out);
  for (uint32_t i = 0; i < s->model.n; ++i)
    if (!s->work.comp[s->model.mesh.comp[i]].anchored) v3_set(out + 3 * (size_t)i, 0, 0, 0);
}

static double rigid_inertia_c2(const tf_sim *s) {
  return 1.0 / (s->work.dt * s->work.dt) - 1.0 / s->work.h2;
}

static double rigid_inertia(const tf_sim *s, const double *y, double *grad) {
  size_t m = 3 * (size_t)s->model.n;
  double *d = s->work.rig_d, *pd = s->work.rig_p, c2 = rigid_inertia_c2(s), E = 0.0;
  for (size_t k = 0; k < m; ++k) d[k] = y[k] - s->work.yhat[k];
  anchored_projection(s, d, pd);
  for (size_t k = 0; k < m; ++k) {
    double mk = s->model.mass[k / 3];
    E += 0.5 * c2 * mk * d[k] * pd[k];
    if (grad) grad[k] += c2 * mk * pd[k];
  }
  return E;
}

/* y += c2 m_i (v + w x r_i) over the anchored pieces' vertices: anchored_projection and the
 * update in one pass on the pool, where they were a pool pass and two serial ones per CG
 * iteration (DRAPE-SELF-64's main thread ran alone there 3 % of its time on two threads); each
 * entry's arithmetic is the same, so are the bits */
typedef struct inertia_mul_job {
  const tf_sim *s;
  double *y, c2;
  int free; /* some piece is free: the pieces' acc hold the projection (rigid_momenta) */
} inertia_mul_job;

static void inertia_mul_range(void *ctx, uint32_t b, uint32_t e) {
  const inertia_mul_job *j = ctx;
  const tf_sim *s = j->s;
  for (uint32_t i = b; i < e; ++i) {
    const sim_comp *c = &s->work.comp[s->model.mesh.comp[i]];
    double p[3] = {0.0, 0.0, 0.0}, *yi = j->y + 3 * (size_t)i;
    /* a fixed vertex's piece is pinned, never anchored: its rows get nothing (pcg.h) */
    if (j->free && c->anchored && !c->pinned) sim_comp_rigid_at(c, s->state.x + 3 * (size_t)i, p);
    for (int k = 0; k < 3; ++k) yi[k] += j->c2 * s->model.mass[i] * p[k];
  }
}

void sim_rigid_inertia_mul(void *ctx, const double *x, double *y) {
  tf_sim *s = ctx; /* rigid_momenta uses the pieces' accumulators as scratch */
  if (!s->work.anchored) return;
  inertia_mul_job j = {s, y, rigid_inertia_c2(s), rigid_momenta(s, s->state.x, x)};
  sim_vertex_for(s, inertia_mul_range, &j);
}

static void zero_pass(void *ctx, uint32_t begin, uint32_t end) {
  memset((double *)ctx + 3 * (size_t)begin, 0, sizeof(double) * 3 * (end - begin));
}

/* the step's inertia and load per vertex (on the pool): m/(2 h^2) |y - yhat|^2 - f . y into
 * eterm (summed by the caller in vertex order, so the energy rounds as one loop's would), its
 * gradient, and m/h^2 on the Hessian's diagonal; a fixed vertex's gradient row zeroed */
typedef struct inertia_job {
  const tf_sim *s;
  const double *y;
  double *grad;
  bsr *H;
  int energy;
} inertia_job;

static void inertia_pass(void *ctx, uint32_t begin, uint32_t end) {
  const inertia_job *j = ctx;
  const tf_sim *s = j->s;
  double inv_h2 = 1.0 / s->work.h2;
  for (uint32_t i = begin; i < end; ++i) {
    if (s->pins.fixed[i]) {
      if (j->grad) v3_set(j->grad + 3 * (size_t)i, 0.0, 0.0, 0.0);
      continue;
    }
    double c = s->model.mass[i] * inv_h2;
    if (j->energy) {
      const double *yi = j->y + 3 * (size_t)i, *fi = s->work.f + 3 * (size_t)i;
      double d[3];
      v3_sub(d, yi, s->work.yhat + 3 * (size_t)i);
      s->work.eterm[i] = 0.5 * c * v3_norm2(d) - v3_dot(fi, yi);
      if (j->grad) {
        double *gi = j->grad + 3 * (size_t)i;
        gi[0] += c * d[0] - fi[0];
        gi[1] += c * d[1] - fi[1];
        gi[2] += c * d[2] - fi[2];
      }
    }
    if (j->H) {
      double *blk = j->H->val + 9 * (size_t)j->H->diag[i];
      blk[0] += c;
      blk[4] += c;
      blk[8] += c;
    }
  }
}

double sim_step_eval(void *ctx, const double *y, double *grad, bsr *H) {
  const tf_sim *s = ctx;
  uint32_t n = s->model.n;
  if (grad) sim_vertex_for(s, zero_pass, grad);
  if (H) bsr_zero(H);
  elem_args args = {s->pins.sub};
  double E = set_terms(s, 1, &args, y, grad, H);
  /* Hessian only: the inertia diagonal, the energy is not needed */
  int energy = !(H && !grad);
  if (energy && s->work.anchored) E += rigid_inertia(s, y, grad);
  inertia_job j = {s, y, grad, H, energy};
  sim_vertex_for(s, inertia_pass, &j);
  if (energy)
    for (uint32_t i = 0; i < n; ++i)
      if (!s->pins.fixed[i]) E += s->work.eterm[i];
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

static void amg_setup_cb(void *ctx, const bsr *H, const uint8_t *fixed, const double *x) {
  amg_setup(ctx, H, fixed, x);
}

newton_problem sim_problem(tf_sim *s, newton_eval_fn eval) {
  sim_solver *sv = &s->solver;
  return (newton_problem){.eval = eval,
                          .ctx = s,
                          .H = &sv->H,
                          .fixed = s->pins.fixed,
                          .mass = s->model.mass,
                          .h2 = s->work.h2,
                          .y_ref = s->work.xhat,
                          .y_prev = s->state.x,
                          .rest_disp = SIM_REST_SPEED * s->work.dt,
                          .force_ref = s->work.force_ref,
                          .prec_setup = sv->amg ? amg_setup_cb : NULL,
                          .prec = {sv->amg ? amg_apply : NULL, sv->amg},
                          .max_step = contact_active(s) ? contact_max_step : NULL,
                          .pairs = contact_self_on(s) ? &s->contact->pm : NULL,
                          .extra = s->work.anchored ? sim_rigid_inertia_mul : NULL};
}
