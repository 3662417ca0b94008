/* SPDX-License-Identifier: MIT
 * Advancing a frame: substeps with pin targets interpolated across the frame, stats, and the
 * all-or-nothing rule: if a substep fails its sanity check (non-finite, or its objective not
 * minimized) the frame is rolled back and the call fails, leaving the state exactly as it was. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "sim/sim.h"

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* first vertex whose position or velocity is not finite, or UINT32_MAX */
static uint32_t first_nonfinite(const tf_sim *s) {
  for (size_t k = 0; k < 3 * (size_t)s->model.n; ++k)
    if (!isfinite(s->state.x[k]) || !isfinite(s->state.v[k])) return (uint32_t)(k / 3);
  return UINT32_MAX;
}

/* Every substep is checked (step_tau's sanity check, then a finite state) before the next one
 * starts, so no diverging or unminimized state is ever reported as success: the frame is rolled
 * back, the call fails naming the frame, substep and what failed, and the stats say so
 * (residual inf, the failed step counted unconverged) */
tf_status sim_advance(tf_sim *s, double frame_dt, uint32_t substeps) {
  double t0 = now_seconds();
  sim_state_copy(s, &s->saved, &s->state);
  tf_stats st = s->stats;
  st.steps = st.newton_iterations = st.cg_iterations = st.max_newton_per_step = st.unconverged_steps = 0;
  st.residual = 0.0;
  double dt = frame_dt / substeps;
  for (uint32_t k = 0; k < substeps; ++k) {
    pins_substep_targets(s, (double)k / substeps, (double)(k + 1) / substeps);
    s->work.time = s->par.time + k * dt;
    const char *bad = NULL;
    int unconverged = 0;
    if (s->par.integrator == TF_INTEGRATOR_STRAIN_RATE) {
      step_strain_rate(s, dt);
    } else {
      newton_result r;
      bad = step_tau(s, dt, &r);
      st.newton_iterations += r.iterations;
      st.cg_iterations += r.cg_iterations;
      if (r.iterations > st.max_newton_per_step) st.max_newton_per_step = r.iterations;
      unconverged = !r.converged;
      st.unconverged_steps += (uint32_t)unconverged;
      st.residual = r.residual;
    }
    st.steps++;
    uint32_t vbad = bad ? s->solver.check_vertex : first_nonfinite(s);
    if (!bad && vbad == UINT32_MAX) continue;
    sim_state_copy(s, &s->state, &s->saved);
    st.residual = INFINITY;
    st.unconverged_steps += (uint32_t)!unconverged; /* the failed step counts as unconverged */
    st.seconds = now_seconds() - t0;
    s->stats = st;
    unsigned long long frame = (unsigned long long)s->frames + s->index_base;
    if (!bad)
      return sim_fail(s, TF_E_NOT_CONVERGED,
                      "advance: frame %llu, substep %u of %u (t = %.6g s): the state became non-finite at "
                      "vertex %u (step %.3g s too large for this integrator or material?); the frame was "
                      "rolled back",
                      frame, k + s->index_base, substeps, s->work.time, vbad + s->index_base, dt);
    if (strstr(bad, "objective"))
      return sim_fail(s, TF_E_NOT_CONVERGED,
                      "advance: frame %llu, substep %u of %u (t = %.6g s): %s (from %.17g to %.17g J, a "
                      "minimization must not raise it); the frame was rolled back",
                      frame, k + s->index_base, substeps, s->work.time, bad, s->solver.check_e0, s->solver.check_e1);
    return sim_fail(s, TF_E_NOT_CONVERGED,
                    "advance: frame %llu, substep %u of %u (t = %.6g s): %s at vertex %u; the frame was "
                    "rolled back",
                    frame, k + s->index_base, substeps, s->work.time, bad, vbad + s->index_base);
  }
  memcpy(s->pins.prev, s->pins.next, sizeof(double) * 3 * s->pins.count);
  s->pins.targets_fresh = 0;
  s->par.time += frame_dt;
  s->frames++;
  st.total_steps += substeps;
  st.seconds = now_seconds() - t0;
  s->stats = st;
  if (st.unconverged_steps)
    sim_log(s, TF_LOG_WARN, "advance: %u of %u steps hit the Newton budget (%u)", st.unconverged_steps,
            substeps, s->par.solver.max_newton);
  return TF_OK;
}
