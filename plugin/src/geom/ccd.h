/* SPDX-License-Identifier: MIT
 * Additive continuous collision detection (ACCD; Li, Kaufman and Jiang 2021, "Codimensional
 * Incremental Potential Contact", sec. 5 and supplemental Alg. 1) for point-triangle and
 * edge-edge pairs on linear trajectories x(t) = x0 + t dx, t in [0, 1], each point with its own
 * displacement. The result is a time-of-impact lower bound: over [0, t] the pair's distance d
 * stays above the thickness xi, and at t the remaining gap d - xi is still at least s times the
 * starting gap d0 - xi, so a step to t closes at most (1 - s) of the gap. Pure geometry; no
 * state, no allocation; thread-safe. */
#ifndef TF_GEOM_CCD_H
#define TF_GEOM_CCD_H

#include "core/common.h"

typedef struct geom_ccd_params {
  double s;         /* in (0, 1): fraction of the starting gap d0 - xi that must remain, 0.1 */
  double thickness; /* xi, m, >= 0: the distance that counts as contact (a minimum gap), 0 */
  double tmax;      /* in (0, 1]: search [0, tmax] only (a smaller step is already known), 1 */
  int max_iter;     /* bound on the additive steps; when reached the current, safe, t is
                     * returned (conservative fallback), 50000 */
} geom_ccd_params;

/* Fill p with the defaults above. */
TF_LOCAL void geom_ccd_params_default(geom_ccd_params *p);

/* Time-of-impact lower bound in [0, tmax] for point p against triangle (t0, t1, t2):
 * x0 = (p, t0, t1, t2) at t = 0 (m), dx their displacements over the step (m). Returns tmax
 * when the pair cannot reach the thickness before tmax (*out_hit = 0), otherwise the largest
 * safe t found (*out_hit = 1); 0 when the pair starts at or inside the thickness. Nullable:
 * out_hit. */
TF_LOCAL double geom_ccd_pt(const double x0[12], const double dx[12], const geom_ccd_params *p,
                            int *out_hit);

/* The same for segments (ea0, ea1) and (eb0, eb1): x0 = (ea0, ea1, eb0, eb1). Nullable: out_hit. */
TF_LOCAL double geom_ccd_ee(const double x0[12], const double dx[12], const geom_ccd_params *p,
                            int *out_hit);

#endif
