/* SPDX-License-Identifier: MIT
 * One tau step (Young 2007 eq. 2.22 generalized to 3D; design note tau-method.md sec. 2.10):
 * minimize  kappa (tau/dt) KE_osc + (1 - kappa) KE + (tau/dt) (PE - f.x)  over velocities, which
 * is the incremental potential
 *     E(y) = |y - yhat|_M^2 / (2 h^2) + PE(y) - f_d . y,   h^2 = tau dt / a,  a = kappa tau/dt + 1
 * - kappa in the carrier frame of the pins. The kinetic terms are measured relative to the carrier
 * velocity (no aether drag), the ballistic (rigid) part of free pieces is advanced exactly and kept
 * out of the minimization (tau damps deformation, never rigid motion), and external forces enter
 * both the ballistic prediction and the potential (a free body falls undeformed, a pinned one sags
 * to the static equilibrium). With the KE_osc weight kappa tau/dt this is backward Euler of the
 * fixed ODE kappa M x'' + ((1 - kappa)/tau) M x' + grad PE = f, so kappa's effect does not depend
 * on dt (the thesis's eq. 5.4 does: its inertia is kappa dt). */
#include <math.h>
#include <string.h>

#include "core/clock.h"
#include "core/vec3.h"
#include "contact/contact.h"
#include "sim/sim.h"

static const double STANDARD_GRAVITY = 9.80665; /* m/s^2 */

/* round-off allowance of the objective comparison, relative to |E_start| + |E_end|: the line search
 * accepts steps the energy cannot resolve (newton.c, 1e-13 of |E| each) and a final
 * sub-tolerance Newton step is taken without a line search */
static const double CHECK_ROUNDOFF = 1e-9;

/* a chunk of y's entries: 1 if one is not finite, plus MOVED if y differs from ystart there */
static const double MOVED = 65536.0; /* > POOL_SUM_CHUNKS: the two counts stay apart in a sum */

static double check_range(void *ctx, uint32_t b, uint32_t e) {
  const tf_sim *s = ctx;
  const double *y = s->work.y;
  double r = 0.0;
  for (uint32_t k = b; k < e; ++k)
    if (!isfinite(y[k])) {
      r = 1.0;
      break;
    }
  if (memcmp(y + b, s->work.ystart + b, (e - b) * sizeof *y)) r += MOVED;
  return r;
}

static const char *check_step(tf_sim *s, const newton_result *res) {
  size_t m = 3 * (size_t)s->model.n;
  /* one pass across the pool; its sum of small integers is exact in any order */
  double found = pool_sum(s->pool, (uint32_t)m, check_range, s);
  int moved = found >= MOVED;
  if (fmod(found, MOVED) != 0.0)
    for (size_t k = 0; k < m; ++k)
      if (!isfinite(s->work.y[k])) {
        s->solver.check_vertex = (uint32_t)(k / 3);
        return "the solver's result is not finite";
      }
  /* evaluated here, not taken from the solver: the check must not trust what it checks */
  double e0 = res->energy_start;
  int from_solver = s->solver.eval == sim_step_eval && isfinite(e0);
  if (!from_solver) e0 = sim_step_eval(s, s->work.xhat, NULL, NULL);
  /* a solve that left its first iterate (ystart) as it was, bit for bit, ends where it started
   * (a step already balanced: a cloth at rest, half the steps of CLOTH-128) */
  double e1 = from_solver && !moved ? e0 : sim_step_eval(s, s->work.y, NULL, NULL);
  s->solver.check_e0 = e0;
  s->solver.check_e1 = e1;
  if (!isfinite(e1) || !isfinite(e0)) return "the step's objective is not finite";
  if (e1 > e0 + CHECK_ROUNDOFF * (fabs(e0) + fabs(e1)) && res->y_unchecked) {
    /* the solve's last, sub-tolerance correction (taken unevaluated) overshot: the iterate before
     * it is converged by the same test and was reached by accepted, decreasing steps. Seen with
     * a budget of 100 Newton iterations on the self-contact pile of test_self_contact.c, a resting
     * step whose correction raised the objective by 5e-7 of it (2.6 s in) */
    sim_copy(s, s->work.y, res->y_unchecked, sizeof(double) * m);
    e1 = sim_step_eval(s, s->work.y, NULL, NULL);
    s->solver.check_e1 = e1;
  }
  if (e1 > e0 + CHECK_ROUNDOFF * (fabs(e0) + fabs(e1)))
    return "the step's objective rose over the solve";
  return NULL;
}

const char STEP_SPLIT[] =
    "a collider moves into cloth that cannot get out of its way within the step";
const char STEP_NOMEM[] = "out of memory growing the contact candidates";

/* The step's vertex loops run across the pool (sim_vertex_for), each a pass over [b, e) of the
 * vertices that reads and writes only their own entries, so every thread count gives the same
 * bits. Serial, they were a third of CLOTH-128's step on two threads (the element loops and the
 * solver are parallel). */
typedef struct tau_pass {
  tf_sim *s;
  double dt, cw; /* the step; yhat's weight on the deformable velocity (6-7) */
} tau_pass;

/* each vertex's balance scale for the solver: its weight under standard gravity plus its
 * external load (contact adds its normal force, contact_lag_friction) */
static void force_ref_pass(void *ctx, uint32_t b, uint32_t e) {
  tf_sim *s = ((const tau_pass *)ctx)->s;
  for (uint32_t i = b; i < e; ++i)
    s->work.force_ref[i] = s->model.mass[i] * STANDARD_GRAVITY + v3_norm(s->work.f + 3 * (size_t)i);
}

static void base_force_ref(tf_sim *s) {
  tau_pass t = {s, 0.0, 0.0};
  sim_vertex_for(s, force_ref_pass, &t);
}

/* 3: f = M (g - a_fict); the soft pins' pull cleared for their loop */
static void gravity_pass(void *ctx, uint32_t b, uint32_t e) {
  tf_sim *s = ((const tau_pass *)ctx)->s;
  for (uint32_t i = b; i < e; ++i) {
    double *fi = s->work.f + 3 * (size_t)i;
    double m = s->model.mass[i];
    for (int k = 0; k < 3; ++k) fi[k] = m * (s->par.gravity[k] - s->work.afict_step[3 * i + k]);
    v3_set(s->work.fsoft + 3 * (size_t)i, 0.0, 0.0, 0.0);
  }
}

/* the drag's reference positions, where the step's velocity would carry x_n */
static void ydrag_pass(void *ctx, uint32_t b, uint32_t e) {
  const tau_pass *t = ctx;
  const double *x = t->s->state.x, *v = t->s->state.v;
  for (size_t k = 3 * (size_t)b; k < 3 * (size_t)e; ++k) t->s->drag->ydrag[k] = x[k] + t->dt * v[k];
}

/* 4: the predicted relative velocity u_n + dt M^-1 (f + f_soft) of a free piece's vertices */
static void predict_pass(void *ctx, uint32_t b, uint32_t e) {
  const tau_pass *t = ctx;
  tf_sim *s = t->s;
  for (size_t k = 3 * (size_t)b; k < 3 * (size_t)e; ++k)
    s->work.u[k] = s->state.v[k] - s->state.vref[k] +
                   t->dt * (s->work.f[k] + s->work.fsoft[k]) / s->model.mass[k / 3];
}

/* the acceleration field f/m, to project */
static void accel_pass(void *ctx, uint32_t b, uint32_t e) {
  tf_sim *s = ((const tau_pass *)ctx)->s;
  for (size_t k = 3 * (size_t)b; k < 3 * (size_t)e; ++k)
    s->work.u[k] = s->work.f[k] / s->model.mass[k / 3];
}

/* 5: f_d = f - M Pi M^-1 f, then u_n = v_n - v_ref for its projection */
static void deform_force_pass(void *ctx, uint32_t b, uint32_t e) {
  tf_sim *s = ((const tau_pass *)ctx)->s;
  for (size_t k = 3 * (size_t)b; k < 3 * (size_t)e; ++k) {
    s->work.f[k] -= s->model.mass[k / 3] * s->work.proj[k];
    s->work.u[k] = s->state.v[k] - s->state.vref[k];
  }
}

/* w_n = u_n - Pi u_n; 6-7: xhat = x + dt (v_ref + v_R), yhat = xhat + cw w_n */
static void targets_pass(void *ctx, uint32_t b, uint32_t e) {
  const tau_pass *t = ctx;
  tf_sim *s = t->s;
  const double *x = s->state.x;
  for (size_t j = 3 * (size_t)b; j < 3 * (size_t)e; ++j) {
    double wn = s->work.u[j] - s->work.proj[j];
    s->work.wn[j] = wn;
    double xh = x[j] + t->dt * (s->work.vref_new[j] + s->work.vr[j]);
    s->work.yhat[j] = xh + t->cw * wn;
    s->work.xhat[j] = xh;
  }
}

/* 9: the deformable velocity w = (y - xhat)/dt, to project */
static void correction_pass(void *ctx, uint32_t b, uint32_t e) {
  const tau_pass *t = ctx;
  tf_sim *s = t->s;
  for (size_t k = 3 * (size_t)b; k < 3 * (size_t)e; ++k)
    s->work.w[k] = (s->work.y[k] - s->work.xhat[k]) / t->dt;
}

/* 9: v = v_ref + v_R + w without its rigid part, x += dt v; hard pins land on their targets */
static void update_pass(void *ctx, uint32_t b, uint32_t e) {
  const tau_pass *t = ctx;
  tf_sim *s = t->s;
  const double dt = t->dt, *w = s->work.w, *wr = s->work.wr, *vR = s->work.vr;
  double *x = s->state.x, *v = s->state.v;
  for (uint32_t i = b; i < e; ++i) {
    for (int k = 0; k < 3; ++k) {
      size_t j = 3 * (size_t)i + k;
      if (s->pins.fixed[i]) {
        double p_new = s->work.xhat[j];
        v[j] = (p_new - x[j]) / dt;
        x[j] = p_new;
      } else {
        /* a piece in contact keeps the rigid part of its correction: contact's push on its
         * rigid modes (objective.c, rigid inertia) */
        int keep = s->work.comp[s->model.mesh.comp[i]].anchored;
        v[j] = s->work.vref_new[j] + vR[j] + (w[j] - (keep ? 0.0 : wr[j]));
        x[j] += dt * v[j];
      }
    }
  }
}

/* y (in/out) made a first iterate: intersection-free against the colliders' motion, friction
 * lagged (when lag is set), its objective into *E when E is given. contact_start's candidates
 * hold every pair within its gap at x_n and at y: friction's and the objective's (the Newton
 * segments build their own cover, contact_max_step). Friction's terms are the pairs within their
 * gap at x_n, in candidate order: every start's candidates hold the same ones in the same order
 * (by kind, then item), so a second start keeps the first one's, bit for bit */
static tf_status first_iterate(tf_sim *s, double dt, double *y, double *E, int lag) {
  tf_status st = contact_start(s, s->state.x, y);
  if (st != TF_OK) return st;
  if (lag) {
    base_force_ref(s);
    st = contact_lag_friction(s, s->state.x, dt);
    if (st != TF_OK) return st;
  }
  if (E) *E = sim_step_eval(s, y, NULL, NULL);
  return TF_OK;
}

/* the first iterate: y (already a start, of objective ea) or yb made one, whichever is lower, with
 * its candidates (yb's replace y's while it is tried) */
static tf_status keep_lower_start(tf_sim *s, double dt, double *y, double *yb, double ea) {
  double eb;
  if (first_iterate(s, dt, yb, &eb, 0) == TF_OK && eb < ea) {
    memcpy(y, yb, sizeof(double) * 3 * s->model.n);
    return TF_OK;
  }
  return contact_candidates_covering(s, y, NULL);
}

/* Every anchored piece moves less than its contact gap's cloth share (the thickness) a step,
 * relative to its carrier: it may rest or creep on what holds it (whether it touches anything is
 * known only once a start's candidates are in: anchored_touching) */
static int anchored_slow(const tf_sim *s, double dt) {
  double lim = s->par.thickness / dt;
  for (uint32_t i = 0; i < s->model.n; ++i) {
    if (s->pins.fixed[i] || !s->work.comp[s->model.mesh.comp[i]].anchored) continue;
    double d[3];
    v3_sub(d, s->state.v + 3 * (size_t)i, s->work.vref_new + 3 * (size_t)i);
    if (!(v3_norm2(d) <= lim * lim)) return 0;
  }
  return 1;
}

/* every anchored piece has a pair in contact at x_n (friction's lag marks them) */
static int anchored_touching(const tf_sim *s) {
  for (uint32_t q = 0; q < s->model.mesh.comp_count; ++q)
    if (s->work.comp[q].anchored && !s->work.comp[q].touching) return 0;
  return 1;
}

/* to: anchored pieces where they are (x_n moved with their carrier), the others as in from
 * (to == from allowed) */
static void start_where_anchored(const tf_sim *s, double dt, const double *from, double *to) {
  const double *x = s->state.x;
  for (uint32_t i = 0; i < s->model.n; ++i) {
    size_t j = 3 * (size_t)i;
    if (!s->work.comp[s->model.mesh.comp[i]].anchored) {
      v3_copy(to + j, from + j);
      continue;
    }
    v3_copy(to + j, x + j);
    v3_axpy(to + j, dt, s->work.vref_new + j);
  }
}

/* Without contact the step starts from xhat, zero deformable velocity: exact for the steady part,
 * and the deformation is what the minimization finds. A sheet that is still swinging or falling
 * into its folds keeps deforming much as it did the step before, so xhat + dt w_n (the last step's
 * deformable velocity continued) is often nearer the minimizer; it can also be farther (a rotating
 * membrane continued along its tangent is stretched), so the step starts from the lower objective
 * of the two. Tried only when some vertex deforms faster than SIM_REST_SPEED: a cloth at rest
 * starts from xhat at the cost of one pass over w_n. The minimizer is the same; SWING-64 3.43 ->
 * 3.07 Newton iterations a step (tau-step.md sec. 7). */
static void moving_start(tf_sim *s, double dt) {
  uint32_t n = s->model.n;
  double wmax = 0.0;
  for (size_t j = 0; j < 3 * (size_t)n; ++j)
    if (fabs(s->work.wn[j]) > wmax) wmax = fabs(s->work.wn[j]);
  if (!(wmax > SIM_REST_SPEED)) return;
  double *y = s->work.y, *yb = s->work.ystart;
  for (uint32_t i = 0; i < n; ++i) {
    size_t j = 3 * (size_t)i;
    v3_copy(yb + j, y + j);
    if (!s->pins.fixed[i]) v3_axpy(yb + j, dt, s->work.wn + j);
  }
  double ea = sim_step_eval(s, y, NULL, NULL), eb = sim_step_eval(s, yb, NULL, NULL);
  if (eb < ea) memcpy(y, yb, sizeof(double) * 3 * n);
}

/* to: from, with each anchored piece moved on by its last step's motion relative to the carrier */
static void start_creeping(const tf_sim *s, double dt, const double *from, double *to) {
  for (uint32_t i = 0; i < s->model.n; ++i) {
    size_t j = 3 * (size_t)i;
    v3_copy(to + j, from + j);
    if (!s->work.comp[s->model.mesh.comp[i]].anchored || s->pins.fixed[i]) continue;
    double d[3];
    v3_sub(d, s->state.v + j, s->work.vref_new + j);
    v3_axpy(to + j, dt, d);
  }
}

/* the anchored pieces' last motion relative to the carrier moves some vertex farther in a step
 * than the Newton tolerance would allow a start at y (rtol x its distance from xhat, plus the
 * absolute floor): below it, where the piece lies is already as good a start as the tolerance can
 * tell, and a second start would only cost its contact work (DRAPE-32 at tolerance 1e-2: +15 %
 * with the second start always tried, +8 % with this test) */
static int creep_beyond_tolerance(const tf_sim *s, double dt, const double *y) {
  double creep = 0.0, disp = 0.0;
  for (uint32_t i = 0; i < s->model.n; ++i) {
    size_t j = 3 * (size_t)i;
    for (int a = 0; a < 3; ++a) {
      double dy = fabs(y[j + a] - s->work.xhat[j + a]);
      if (dy > disp) disp = dy;
    }
    if (!s->work.comp[s->model.mesh.comp[i]].anchored || s->pins.fixed[i]) continue;
    for (int a = 0; a < 3; ++a) {
      double d = fabs(dt * (s->state.v[j + a] - s->work.vref_new[j + a]));
      if (d > creep) creep = d;
    }
  }
  return creep > s->par.solver.tolerance * disp + s->par.solver.abs_tolerance * dt;
}

/* contact before the minimization (contact/start.c): anchor the pieces that may touch, make
 * the first iterate intersection-free against the colliders' motion, freeze friction, and the
 * candidates at y0 for the first evaluation. NULL, or STEP_SPLIT / a failure.
 * An anchored piece has two natural first iterates: the ballistic prediction xhat (right for a
 * piece still in flight) and where it is, x_n moved with its carrier (right for a piece resting
 * or sliding on a body: xhat has dropped it by dt^2 g into the barrier, and from there Newton
 * spends its iterations climbing back; every sticking contact starts far into its sliding zone,
 * where friction's model is weakest). The step starts from the one of lower objective: the
 * minimizer is the same, only the path to it is shorter (DRAPE-32 at rest: 19 Newton iterations
 * per step, most at the budget, from xhat; 12.6 from the better of the two). Pieces resting or
 * creeping on their contacts (slow, and touching something at x_n) start where they are without
 * trying xhat, which drops them by dt^2 g into the barrier: on DRAPE-64 it lost every step once
 * the sheet had landed, from 7 m/s down, and trying it was two thirds of a resting step's contact
 * work. A slow piece in the air (released at rest above something) still tries both.
 * A piece that rests on its contacts may still be settling: at tau = 1 s a sheet draped on a
 * sphere creeps 20-40 um a step at 1.7 s (its soft bending modes decay on tau). When that creep is
 * more than the Newton tolerance allows, where it lies is not a converged start, and Newton takes
 * the creep's soft mode in several iterations of 50-110 CG (DRAPE-64 at the default tolerance:
 * 1 and 6 Newton iterations on alternate resting frames). Such a step also tries the piece moved
 * on by its last step's motion and starts from the lower objective (DRAPE-64 resting frames 137
 * -> 83 ms on two threads; tau-step.md sec. 9). */
static const char *contact_prepare(tf_sim *s, double dt) {
  uint32_t nc = s->model.mesh.comp_count, n = s->model.n;
  s->work.anchored = 0;
  for (uint32_t c = 0; c < nc; ++c) s->work.comp[c].anchored = 0;
  if (!contact_active(s)) return NULL;
  double t0 = now_seconds();
  const double *x = s->state.x;
  contact_anchor(s, x, s->work.xhat);
  for (uint32_t c = 0; c < nc; ++c) s->work.anchored |= s->work.comp[c].anchored;
  double *y = s->work.y, *yb = s->work.ystart;
  double ea = 0.0;
  tf_status st = TF_OK;
  int resting = s->work.anchored && anchored_slow(s, dt);
  if (resting) { /* the second start below alone, if every anchored piece lies on something */
    start_where_anchored(s, dt, y, y);
    int creeping = creep_beyond_tolerance(s, dt, y);
    st = first_iterate(s, dt, y, creeping ? &ea : NULL, 1);
    resting = st == TF_OK && anchored_touching(s);
    if (!resting) memcpy(y, s->work.xhat, sizeof(double) * 3 * n); /* a piece in the air */
    if (resting && creeping) { /* and where its last step's motion would take it */
      start_creeping(s, dt, y, yb);
      st = keep_lower_start(s, dt, y, yb, ea);
    }
  }
  if (!resting) st = first_iterate(s, dt, y, s->work.anchored ? &ea : NULL, 1);
  if (st == TF_OK && s->work.anchored && !resting) {
    start_where_anchored(s, dt, y, yb);
    st = keep_lower_start(s, dt, y, yb, ea);
  }
  s->contact->seconds += now_seconds() - t0;
  if (st == TF_E_CONTACT) return STEP_SPLIT;
  if (st != TF_OK) return STEP_NOMEM;
  return NULL;
}

const char *step_tau(tf_sim *s, double dt, newton_result *res) {
  uint32_t n = s->model.n;
  const double tau = s->par.tau, kappa = s->par.kappa;
  double *x = s->state.x, *v = s->state.v;

  /* 1-2: carrier velocity from the pins' motion over this substep; fictitious acceleration, its
   * changes of velocity low-passed (pins.c) */
  pins_carrier(s, dt, s->work.vref_new);
  pins_fictitious(s, dt, s->work.vref_new, s->work.afict_step);

  /* 3: forces f = M g - M a_ref */
  tau_pass t = {s, dt, 0.0};
  sim_vertex_for(s, gravity_pass, &t);

  /* the host's forces and the aerodynamics at (x_n, v_n), through the levels: their value joins
   * f, the drag's derivative the objective (elements/drag.c) */
  s->drag->on = wind_active(&s->par);
  s->work.dt = dt;
  sim_external_forces(s, x, v, s->work.f);
  if (s->drag->on) sim_vertex_for(s, ydrag_pass, &t);

  /* 4-5: relative velocity u_n, ballistic part v_R = Pi(u_n + dt M^-1 f) of free pieces, the
   * deformable part f_d = f - M Pi M^-1 f, and w_n = u_n - Pi u_n */
  rigid_update_frames(s, x);
  /* soft pins on free pieces: their springs break the rigid invariance of PE, so they act on the
   * ballistic part too. Implicitly (backward Euler, rigid_project_sprung): their pull at x_n
   * towards the end-of-step targets plus the stiffness the rigid modes see over the step. The
   * explicit pull alone diverged once dt sqrt(k_R/M_R) > 2 (tau-step.md sec. 4: w = 0.999 at
   * 48 steps/s reached 6e11 m in 48 frames with every step's minimization converged, because the
   * rigid part of the minimizer, where the spring acted implicitly, is discarded in 9) */
  for (uint32_t q = 0; q < s->pins.count; ++q) {
    uint32_t i = s->pins.idx[q];
    double w = s->pins.w[q];
    if (w >= 1.0 || s->work.comp[s->model.mesh.comp[i]].pinned) continue;
    double k = s->model.mass[i] * s->par.pin_stiffness * w / (1.0 - w), d[3];
    v3_sub(d, x + 3 * (size_t)i, s->pins.sub + 3 * (size_t)q);
    v3_axpy(s->work.fsoft + 3 * (size_t)i, -k, d);
  }
  double *u = s->work.u, *proj = s->work.proj, *vR = s->work.vr;
  sim_vertex_for(s, predict_pass, &t);
  rigid_project_sprung(s, x, u, dt, vR);
  /* f_d: project the acceleration field f/m */
  sim_vertex_for(s, accel_pass, &t);
  rigid_project(s, x, u, proj);
  sim_vertex_for(s, deform_force_pass, &t);
  rigid_project(s, x, u, proj);

  /* 6-7: targets. xhat = x + dt (v_ref + v_R), yhat = xhat + dt (kappa tau/dt) w_n / a */
  double a = kappa * tau / dt + 1.0 - kappa;
  s->work.h2 = tau * dt / a;
  t.cw = kappa * tau / a;
  sim_vertex_for(s, targets_pass, &t);
  for (uint32_t q = 0; q < s->pins.count; ++q) {
    uint32_t i = s->pins.idx[q];
    if (s->pins.fixed[i]) {
      v3_copy(s->work.xhat + 3 * (size_t)i, s->pins.sub + 3 * (size_t)q);
      v3_copy(s->work.yhat + 3 * (size_t)i, s->pins.sub + 3 * (size_t)q);
    }
  }

  /* 8: minimize from y = xhat: zero deformable velocity, exact for the steady part (starting
   * from the previous deformable velocity instead stretches a rotating membrane and starts much
   * higher; moving_start tries it and keeps the lower objective). A vertex is balanced when its
   * net force is small against its weight under standard gravity plus its external load */
  base_force_ref(s);
  sim_copy(s, s->work.y, s->work.xhat, sizeof(double) * 3 * n);
  const char *why = contact_prepare(s, dt);
  if (why) return why;
  if (!contact_active(s)) moving_start(s, dt);
  sim_copy(s, s->work.ystart, s->work.y, sizeof(double) * 3 * n); /* for check_step */
  if (s->solver.amg) {
    amg_forget(s->solver.amg); /* warm starts within this step only: no history across steps */
    /* the coarse rotations cost contact scenes Newton iterations (tau-step.md section 7) */
    amg_set_rotations(s->solver.amg, !contact_active(s));
  }
  if (!s->solver.eval) s->solver.eval = sim_step_eval;
  newton_problem p = sim_problem(s, s->solver.eval);
  newton_settings ns = {s->par.solver.max_newton, s->par.solver.max_cg, s->par.solver.tolerance,
                        s->par.solver.abs_tolerance * dt};
  if (s->contact) s->contact->pm_failed = 0;
  newton_solve(&p, &ns, s->work.y, &s->solver.nw, res);
  /* a pair block refused for memory: the solves saw part of the contact Hessian */
  if (s->contact && s->contact->pm_failed) return STEP_NOMEM;
  const char *bad = check_step(s, res);
  if (bad) return bad;

  /* 9: w = (y - xhat)/dt without its rigid part (keeps momenta exact); v = v_ref + v_R + w */
  sim_vertex_for(s, correction_pass, &t);
  rigid_project(s, x, s->work.w, s->work.wr);
  sim_vertex_for(s, update_pass, &t);
  pins_commit_step(s);
  if (contact_active(s)) contact_after_step(s, x);
  sim_sets_post_step(s, dt);
  return NULL;
}
