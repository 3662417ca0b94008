/* SPDX-License-Identifier: MIT
 * Baseline for comparison: semi-implicit Euler with the thesis's traditional strain-rate damping
 * (Young 2007 sec. 4.2, eqs. 4.3-4.9): elastic forces at x_n give an intermediate velocity, whose
 * strain rate gives the damping stress (phi, psi); both forces then update v and x. Explicit, so
 * stable only below the CFL-like limit of the stiffest element. */
#include <string.h>

#include "core/vec3.h"
#include "energy/membrane_tri.h"
#include "sim/sim.h"

void step_strain_rate(tf_sim *s, double dt) {
  uint32_t n = s->model.n;
  double *x = s->state.x, *v = s->state.v, *g = s->work.grad, *vt = s->work.u, *fd = s->work.f,
         *xt = s->work.y;
  /* elastic + bending + soft pins + gravity at x_n: f = -grad PE (eq. 3.12 forces) */
  sim_potential(s, x, s->pins.sub, g);
  /* intermediate velocity and position (eqs. 4.3, 4.4); hard pins move with their targets */
  for (size_t k = 0; k < 3 * (size_t)n; ++k) vt[k] = v[k] - dt * g[k] / s->model.mass[k / 3];
  for (uint32_t q = 0; q < s->pins.count; ++q) {
    uint32_t i = s->pins.idx[q];
    if (!s->pins.fixed[i]) continue;
    for (int k = 0; k < 3; ++k) vt[3 * i + k] = (s->pins.sub[3 * q + k] - x[3 * i + k]) / dt;
  }
  for (size_t k = 0; k < 3 * (size_t)n; ++k) xt[k] = x[k] + dt * vt[k];
  /* damping force from the strain rate at the intermediate state (eqs. 4.5-4.7) */
  memset(fd, 0, sizeof(double) * 3 * n);
  if (s->membrane && (s->par.phi != 0.0 || s->par.psi != 0.0)) {
    double lx[9], lv[9], lf[9];
    for (uint32_t t = 0; t < s->model.mesh.tri_count; ++t) {
      const uint32_t *tv = s->model.mesh.tris + 3 * t;
      for (int k = 0; k < 3; ++k) {
        v3_copy(lx + 3 * k, xt + 3 * (size_t)tv[k]);
        v3_copy(lv + 3 * k, vt + 3 * (size_t)tv[k]);
      }
      memset(lf, 0, sizeof lf);
      membrane_damping_force(&s->membrane->rest[t], lx, lv, s->par.phi, s->par.psi, lf);
      for (int k = 0; k < 3; ++k)
        v3_add(fd + 3 * (size_t)tv[k], fd + 3 * (size_t)tv[k], lf + 3 * k);
    }
  }
  /* aerodynamics, explicit like the rest of this integrator */
  sim_external_forces(s, x, v, fd); /* the host's and the air's, through the levels */
  /* eqs. 4.8-4.9; hard pins follow their targets */
  for (uint32_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      size_t j = 3 * (size_t)i + k;
      v[j] += dt * (fd[j] - g[j]) / s->model.mass[i];
    }
  for (uint32_t q = 0; q < s->pins.count; ++q) {
    uint32_t i = s->pins.idx[q];
    if (!s->pins.fixed[i]) continue;
    for (int k = 0; k < 3; ++k) v[3 * i + k] = (s->pins.sub[3 * q + k] - x[3 * i + k]) / dt;
  }
  for (size_t k = 0; k < 3 * (size_t)n; ++k) x[k] += dt * v[k];
}
