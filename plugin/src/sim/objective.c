/* SPDX-License-Identifier: MIT
 * The energies summed over elements, and the objective of one tau step (design note sec. 2.4,
 * the incremental potential)
 *   E(y) = sum_i m_i/(2 h^2) |y_i - yhat_i|^2 + PE(y) - f . y
 * with PE = cloth: membrane (StVK) + hinge bending, flesh: stable Neo-Hookean tets; + soft pins. Hard-pinned vertices are fixed:
 * their gradient rows are zero and PCG skips them. */
#include <string.h>

#include "core/vec3.h"
#include "energy/bend_hinge.h"
#include "energy/membrane_tri.h"
#include "sim/sim.h"

/* scatter an element's (k x k blocks) Hessian into H through its slots (UINT32_MAX: a lower
 * block, whose transpose is stored) */
static void scatter_hessian(bsr *H, const uint32_t *slot, const double *h, int k) {
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) {
      if (slot[k * a + b] == UINT32_MAX) continue;
      double blk[9];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) blk[3 * i + j] = h[(3 * a + i) * 3 * k + 3 * b + j];
      bsr_add_block(H, slot[k * a + b], blk);
    }
}

/* flesh: stable Neo-Hookean on every tet (energy/neohookean_tet.c), PSD-projected Hessians */
static double tet_terms(const tf_sim *s, const double *y, double *grad, bsr *H) {
  const sim_flesh *F = &s->flesh;
  double E = 0.0, lx[12], g[12], h[144];
  for (uint32_t t = 0; t < F->tet.tet_count; ++t) {
    const tet_rest *r = &F->rest[t];
    uint32_t v[4];
    for (int k = 0; k < 4; ++k) {
      v[k] = F->tet.tets[4 * (size_t)t + tet_local_vertex(r, k)];
      v3_copy(lx + 3 * k, y + 3 * (size_t)v[k]);
    }
    E += tet_energy(r, lx, F->lambda[t], F->mu[t], grad ? g : NULL, H ? h : NULL, 1);
    if (grad)
      for (int k = 0; k < 4; ++k) v3_add(grad + 3 * (size_t)v[k], grad + 3 * (size_t)v[k], g + 3 * k);
    if (H) scatter_hessian(H, F->slot + 16 * (size_t)t, h, 4);
  }
  return E;
}

/* cloth: StVK membrane per triangle, PSD-projected Hessians */
static double membrane_terms(const tf_sim *s, const double *y, double *grad, bsr *H) {
  const trimesh *m = &s->model.mesh;
  double E = 0.0, lx[9], g[9], h[81];
  for (uint32_t t = 0; t < m->tri_count; ++t) {
    const uint32_t *v = m->tris + 3 * t;
    for (int k = 0; k < 3; ++k) v3_copy(lx + 3 * k, y + 3 * (size_t)v[k]);
    E += membrane_energy(&s->model.tri[t], lx, s->par.lambda, s->par.mu, grad ? g : NULL, H ? h : NULL, 1);
    if (grad)
      for (int k = 0; k < 3; ++k) v3_add(grad + 3 * (size_t)v[k], grad + 3 * (size_t)v[k], g + 3 * k);
    if (H) scatter_hessian(H, s->solver.tri_slot + 9 * (size_t)t, h, 3);
  }
  return E;
}

/* membrane + bending, or tets (+ soft pins at targets pins, Nullable) into E, grad, H */
static double elastic_terms(const tf_sim *s, const double *y, const double *pins, double *grad, bsr *H) {
  const trimesh *m = &s->model.mesh;
  double E = s->kind == SIM_FLESH ? tet_terms(s, y, grad, H) : membrane_terms(s, y, grad, H);
  double lx[12], g[12], h[144];
  for (uint32_t e = 0; e < m->hinge_count; ++e) {
    double k = s->model.hinge_bend[e] * s->model.hinge_geom[e];
    if (k == 0.0) continue;
    const uint32_t *v = m->hinges + 4 * (size_t)e;
    for (int q = 0; q < 4; ++q) v3_copy(lx + 3 * q, y + 3 * (size_t)v[q]);
    E += hinge_energy_psd(lx, k, s->model.hinge_theta0[e], grad ? g : NULL, H ? h : NULL);
    if (grad)
      for (int q = 0; q < 4; ++q) v3_add(grad + 3 * (size_t)v[q], grad + 3 * (size_t)v[q], g + 3 * q);
    if (H) scatter_hessian(H, s->solver.hinge_slot + 16 * (size_t)e, h, 4);
  }
  /* soft pins: goal springs 1/2 k_i |y_i - p_i|^2, k_i = m_i * pin_stiffness * w / (1 - w) */
  if (pins) {
    for (uint32_t q = 0; q < s->pins.count; ++q) {
      double w = s->pins.w[q];
      if (w >= 1.0) continue;
      uint32_t i = s->pins.idx[q];
      double k = s->model.mass[i] * s->par.pin_stiffness * w / (1.0 - w);
      double d[3];
      v3_sub(d, y + 3 * (size_t)i, pins + 3 * (size_t)q);
      E += 0.5 * k * v3_norm2(d);
      if (grad) v3_axpy(grad + 3 * (size_t)i, k, d);
      if (H) {
        double *blk = H->val + 9 * (size_t)H->diag[i];
        blk[0] += k; blk[4] += k; blk[8] += k;
      }
    }
  }
  return E;
}

/* linearized drag of the step: sum_t c_t / (2 dt) (n_t . (ybar_t - ybar_drag_t))^2 */
static double drag_terms(const tf_sim *s, const double *y, double *grad, bsr *H) {
  const trimesh *m = &s->model.mesh;
  double E = 0.0, inv_dt = 1.0 / s->work.dt;
  for (uint32_t t = 0; t < m->tri_count; ++t) {
    double c = s->work.aero_c[t];
    if (c == 0.0 && !s->work.aero_P) continue;
    const uint32_t *tv = m->tris + 3 * t;
    const double *nt = s->work.aero_n + 3 * (size_t)t;
    double d = 0.0;
    for (int q = 0; q < 3; ++q) {
      double dy[3];
      v3_sub(dy, y + 3 * (size_t)tv[q], s->work.ydrag + 3 * (size_t)tv[q]);
      d += v3_dot(nt, dy) / 3.0;
    }
    E += 0.5 * c * inv_dt * d * d;
    if (grad)
      for (int q = 0; q < 3; ++q) v3_axpy(grad + 3 * (size_t)tv[q], c * inv_dt * d / 3.0, nt);
    if (s->work.aero_P) {
      /* restoring follower stiffness about the step's start: 1/2 dx^T P dx */
      const double *P = s->work.aero_P + 81 * (size_t)t;
      double dx[9], Pdx[9];
      for (int q = 0; q < 3; ++q) v3_sub(dx + 3 * q, y + 3 * (size_t)tv[q], s->state.x + 3 * (size_t)tv[q]);
      for (int r = 0; r < 9; ++r) {
        Pdx[r] = 0.0;
        for (int cc = 0; cc < 9; ++cc) Pdx[r] += P[9 * r + cc] * dx[cc];
        E += 0.5 * dx[r] * Pdx[r];
      }
      if (grad)
        for (int q = 0; q < 3; ++q) v3_add(grad + 3 * (size_t)tv[q], grad + 3 * (size_t)tv[q], Pdx + 3 * q);
      if (H) scatter_hessian(H, s->solver.tri_slot + 9 * (size_t)t, P, 3);
    }
    if (H) {
      double blk[9], w = c * inv_dt / 9.0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) blk[3 * i + j] = w * nt[i] * nt[j];
      const uint32_t *slot = s->solver.tri_slot + 9 * (size_t)t;
      for (int a = 0; a < 9; ++a)
        if (slot[a] != UINT32_MAX) bsr_add_block(H, slot[a], blk);
    }
  }
  return E;
}

double sim_step_eval(void *ctx, const double *y, double *grad, bsr *H) {
  const tf_sim *s = ctx;
  uint32_t n = s->model.n;
  if (grad) memset(grad, 0, sizeof(double) * 3 * n);
  if (H) bsr_zero(H);
  double E = elastic_terms(s, y, s->pins.sub, grad, H);
  if (s->work.aero_on) E += drag_terms(s, y, grad, H);
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
  double E = elastic_terms(s, x, pin_targets, grad, NULL);
  /* gravity: PE_g = -sum m g . x */
  for (uint32_t i = 0; i < s->model.n; ++i) {
    E -= s->model.mass[i] * v3_dot(s->par.gravity, x + 3 * (size_t)i);
    if (grad) v3_axpy(grad + 3 * (size_t)i, -s->model.mass[i], s->par.gravity);
  }
  return E;
}
