/* SPDX-License-Identifier: MIT
 * Advancing a frame: substeps with pin targets interpolated across the frame, stats, and the
 * all-or-nothing rule: if a substep fails its sanity check (non-finite, or its objective not
 * minimized) the frame is rolled back and the call fails, leaving the state exactly as it was. */
#include <math.h>
#include <string.h>

#include "contact/contact.h"
#include "core/clock.h"
#include "sim/sim.h"

/* halvings of one substep's collider motion before giving up: 2^-12 of a substep */
static const uint32_t MAX_SPLITS = 12;

/* 1 if an entry of x or v in [b, e) is not finite */
static double nonfinite_range(void *ctx, uint32_t b, uint32_t e) {
  const tf_sim *s = ctx;
  for (uint32_t k = b; k < e; ++k)
    if (!isfinite(s->state.x[k]) || !isfinite(s->state.v[k])) return 1.0;
  return 0.0;
}

/* first vertex whose position or velocity is not finite, or UINT32_MAX (looked for across the
 * pool, found serially) */
static uint32_t first_nonfinite(const tf_sim *s) {
  if (pool_sum(s->pool, 3 * s->model.n, nonfinite_range, (void *)s) == 0.0) return UINT32_MAX;
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
  if (s->tear) s->tear->changed = 0;
  tf_stats st = s->stats;
  st.steps = st.newton_iterations = st.cg_iterations = st.max_newton_per_step =
      st.unconverged_steps = 0;
  st.residual = 0.0;
  double dt = frame_dt / substeps;
  if (s->contact) contact_begin_advance(s);
  uint32_t splits = 0;
  /* each substep in pieces [lo, hi] of it: one piece, unless a collider moves into cloth that
   * cannot follow it within the step (STEP_SPLIT): then its motion is halved until it can */
  double lo = 0.0, hi = 1.0;
  for (uint32_t k = 0; k < substeps;) {
    pins_substep_targets(s, (k + lo) / substeps, (k + hi) / substeps);
    contact_collider_poses(s, (k + lo) / substeps, (k + hi) / substeps);
    s->work.time = s->par.time + k * dt + lo * dt;
    const char *bad = NULL;
    int unconverged = 0;
    if (s->par.integrator == TF_INTEGRATOR_STRAIN_RATE) {
      step_strain_rate(s, dt);
    } else {
      newton_result r;
      memset(&r, 0, sizeof r);
      bad = step_tau(s, dt * (hi - lo), &r);
      if (bad == STEP_SPLIT && splits < MAX_SPLITS) {
        splits++;
        s->contact->substeps_extra++;
        hi = lo + 0.5 * (hi - lo);
        continue;
      }
      st.newton_iterations += r.iterations;
      st.cg_iterations += r.cg_iterations;
      if (r.iterations > st.max_newton_per_step) st.max_newton_per_step = r.iterations;
      unconverged = !r.converged;
      st.unconverged_steps += (uint32_t)unconverged;
      st.residual = r.residual;
    }
    st.steps++;
    uint32_t vbad = bad ? s->solver.check_vertex : first_nonfinite(s);
    if (!bad && vbad == UINT32_MAX && s->tear && tear_after_step(s) != TF_OK) bad = STEP_NOMEM;
    if (!bad && vbad == UINT32_MAX) {
      if (hi < 1.0) {
        lo = hi, hi = 1.0; /* the rest of a split substep */
      } else {
        lo = 0.0, hi = 1.0, splits = 0, ++k;
      }
      continue;
    }
    sim_state_copy(s, &s->state, &s->saved);
    st.residual = INFINITY;
    st.unconverged_steps += (uint32_t)!unconverged; /* the failed step counts as unconverged */
    st.seconds = now_seconds() - t0;
    s->stats = st;
    unsigned long long frame = (unsigned long long)s->frames + s->index_base;
    if (bad == STEP_NOMEM)
      return sim_fail(s, TF_E_NOMEM,
                      "advance: frame %llu, substep %u of %u: %s; the frame was rolled back", frame,
                      k + s->index_base, substeps, bad);
    if (bad == STEP_SPLIT)
      return sim_fail(
          s, TF_E_CONTACT,
          "advance: frame %llu, substep %u of %u (t = %.6g s): collider %u moves into hard-pinned "
          "vertex %u, which cannot get out of its way (its motion was split %u times); move the "
          "pin "
          "or the collider; the frame was rolled back",
          frame, k + s->index_base, substeps, s->work.time, s->contact->blocked_collider,
          sim_host_vertex(s, s->contact->blocked_vertex) + s->index_base, splits);
    if (!bad)
      return sim_fail(
          s, TF_E_NOT_CONVERGED,
          "advance: frame %llu, substep %u of %u (t = %.6g s): the state became non-finite at "
          "vertex %u (step %.3g s too large for this integrator or material?); the frame was "
          "rolled back",
          frame, k + s->index_base, substeps, s->work.time,
          sim_host_vertex(s, vbad) + s->index_base, dt);
    if (strstr(bad, "objective"))
      return sim_fail(
          s, TF_E_NOT_CONVERGED,
          "advance: frame %llu, substep %u of %u (t = %.6g s): %s (from %.17g to %.17g J, a "
          "minimization must not raise it); the frame was rolled back",
          frame, k + s->index_base, substeps, s->work.time, bad, s->solver.check_e0,
          s->solver.check_e1);
    return sim_fail(
        s, TF_E_NOT_CONVERGED,
        "advance: frame %llu, substep %u of %u (t = %.6g s): %s at vertex %u; the frame was "
        "rolled back",
        frame, k + s->index_base, substeps, s->work.time, bad,
        sim_host_vertex(s, vbad) + s->index_base);
  }
  memcpy(s->pins.prev, s->pins.next, sizeof(double) * 3 * s->pins.count);
  s->pins.targets_fresh = 0;
  s->par.time += frame_dt;
  s->frames++;
  st.total_steps += substeps;
  if (s->contact) {
    sim_contact *c = s->contact;
    contact_end_advance(s);
    st.contacts = c->contacts;
    st.broad_pairs = c->broad_pairs;
    st.ccd_cuts = c->ccd_cuts;
    st.intersecting = c->intersecting;
    st.contact_growths = c->growths;
    st.collider_substeps = c->substeps_extra;
    st.min_distance = c->min_distance;
    st.contact_seconds = c->seconds;
    st.self_pairs = c->self_pairs_max;
    st.self_excluded = c->self_excluded;
    st.self_seconds = c->self_seconds;
  } else {
    st.min_distance = INFINITY;
  }
  st.seconds = now_seconds() - t0;
  s->stats = st;
  if (st.unconverged_steps)
    sim_log(s, TF_LOG_WARN, "advance: %u of %u steps hit the Newton budget (%u)",
            st.unconverged_steps, substeps, s->par.solver.max_newton);
  return TF_OK;
}
