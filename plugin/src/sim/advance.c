/* SPDX-License-Identifier: MIT
 * Advancing a frame: substeps with pin targets interpolated across the frame, stats, and the
 * all-or-nothing rule: if the state goes non-finite the frame is rolled back and the call fails,
 * leaving the simulation exactly as it was. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "sim/sim.h"

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int state_finite(const tf_sim *s) {
  for (size_t k = 0; k < 3 * (size_t)s->n; ++k)
    if (!isfinite(s->x[k]) || !isfinite(s->v[k])) return 0;
  return 1;
}

tf_status sim_advance(tf_sim *s, double frame_dt, uint32_t substeps) {
  double t0 = now_seconds();
  size_t bytes = sizeof(double) * 3 * s->n;
  memcpy(s->x_save, s->x, bytes);
  memcpy(s->v_save, s->v, bytes);
  memcpy(s->vref_save, s->vref, bytes);
  tf_stats st = s->stats;
  st.steps = st.newton_iterations = st.cg_iterations = st.max_newton_per_step = st.unconverged_steps = 0;
  st.residual = 0.0;
  double dt = frame_dt / substeps;
  for (uint32_t k = 0; k < substeps; ++k) {
    pins_substep_targets(s, (double)k / substeps, (double)(k + 1) / substeps);
    s->step_time = s->par.time + k * dt;
    if (s->par.integrator == TF_INTEGRATOR_STRAIN_RATE) {
      step_strain_rate(s, dt);
    } else {
      newton_result r;
      step_tau(s, dt, &r);
      st.newton_iterations += r.iterations;
      st.cg_iterations += r.cg_iterations;
      if (r.iterations > st.max_newton_per_step) st.max_newton_per_step = r.iterations;
      if (!r.converged) st.unconverged_steps++;
      st.residual = r.residual;
    }
    st.steps++;
  }
  if (!state_finite(s)) {
    memcpy(s->x, s->x_save, bytes);
    memcpy(s->v, s->v_save, bytes);
    memcpy(s->vref, s->vref_save, bytes);
    return sim_fail(s, TF_E_NOT_CONVERGED,
                    "advance: the state became non-finite (step %.3g s too large for this integrator "
                    "or material?); the frame was rolled back",
                    dt);
  }
  memcpy(s->pin_prev, s->pin_next, sizeof(double) * 3 * s->pin_count);
  s->targets_fresh = 0;
  s->par.time += frame_dt;
  st.total_steps += substeps;
  st.seconds = now_seconds() - t0;
  s->stats = st;
  if (st.unconverged_steps)
    sim_log(s, TF_LOG_WARN, "advance: %u of %u steps hit the Newton budget (%u)", st.unconverged_steps,
            substeps, s->par.solver.max_newton);
  return TF_OK;
}
