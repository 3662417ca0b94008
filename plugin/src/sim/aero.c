/* SPDX-License-Identifier: MIT
 * Aerodynamic forces on the cloth, or on a flesh body's boundary faces (energy/aero_tri.c per triangle, wind from sim/wind.c at each
 * triangle's centroid). In the tau step the drag is linearly implicit (design note sec. 2.5): its
 * value at the step's start joins the external force, and its normal-normal derivative damps the
 * change of velocity, E += c_t / (2 dt) (n_t . (ybar_t - ybar_drag_t))^2, which keeps it stable at
 * any tau (an explicit drag diverges once tau c / m > 1). The drag also follows the cloth's
 * orientation (a follower load); the restoring part of that dependence is implicit too,
 * E += (y - x_n)^T P_t (y - x_n) / 2, so element-scale tilts do not overshoot from step to step.
 * Lift and the rest of the follower load stay explicit. */
#include <string.h>

#include "core/vec3.h"
#include "energy/aero_tri.h"
#include "sim/sim.h"

void aero_forces(tf_sim *s, const double *x, const double *v, double t, double *f) {
  const trimesh *m = &s->model.mesh;
  /* flesh: its boundary faces, outward, are a closed body's: only the windward ones push */
  aero_coeffs k = {s->par.air_density, s->par.drag, s->par.lift, s->kind == SIM_FLESH};
  double lx[9], lv[9], c[3], w[3], ft[3];
  for (uint32_t tr = 0; tr < m->tri_count; ++tr) {
    const uint32_t *tv = m->tris + 3 * tr;
    for (int q = 0; q < 3; ++q) {
      v3_copy(lx + 3 * q, x + 3 * (size_t)tv[q]);
      v3_copy(lv + 3 * q, v + 3 * (size_t)tv[q]);
    }
    for (int a = 0; a < 3; ++a) c[a] = (lx[a] + lx[3 + a] + lx[6 + a]) / 3.0;
    wind_at(&s->par, c, t, w);
    double cd = 0.0;
    aero_triangle(lx, lv, w, &k, ft, &cd, s->work.aero_n + 3 * (size_t)tr);
    s->work.aero_c[tr] = cd;
    if (s->work.aero_P) aero_restoring_stiffness(lx, lv, w, &k, s->work.aero_P + 81 * (size_t)tr);
    for (int q = 0; q < 3; ++q) v3_axpy(f + 3 * (size_t)tv[q], 1.0 / 3.0, ft);
  }
}
