/* SPDX-License-Identifier: MIT
 * The drag set: aerodynamic forces on the cloth, or on a flesh body's boundary faces
 * (energy/aero_tri.c per triangle, wind from sim/wind.c at each triangle's centroid). In the tau
 * step the drag is linearly implicit (design note sec. 2.5): its value at the step's start joins
 * the external force (elem_drag_forces), and its normal-normal derivative damps the change of
 * velocity, *E += c_t / (2 dt) (n_t . (ybar_t - ybar_drag_t))^2, which keeps it stable at any tau
 * (an explicit drag diverges once tau c / m > 1). The drag also follows the cloth's orientation
 * (a follower load); the restoring part of that dependence is implicit too,
 * *E += (y - x_n)^T P_t (y - x_n) / 2, so element-scale tilts do not overshoot from step to step.
 * Lift and the rest of the follower load stay explicit. The terms belong to the step's objective
 * only (step_only): they are not a potential energy. */
#include "core/vec3.h"
#include "energy/aero_tri.h"
#include "sim/sim.h"

void elem_drag_forces(tf_sim *s, elem_drag *e, const double *x, const double *v, double t,
                      double *f) {
  aero_coeffs k = {s->par.air_density, s->par.drag, s->par.lift, e->closed};
  double lx[9], lv[9], c[3], w[3], ft[3];
  for (uint32_t tr = 0; tr < e->count; ++tr) {
    const uint32_t *tv = e->tris + 3 * (size_t)tr;
    for (int q = 0; q < 3; ++q) {
      v3_copy(lx + 3 * q, x + 3 * (size_t)tv[q]);
      v3_copy(lv + 3 * q, v + 3 * (size_t)tv[q]);
    }
    for (int a = 0; a < 3; ++a) c[a] = (lx[a] + lx[3 + a] + lx[6 + a]) / 3.0;
    wind_at(&s->par, c, t, w);
    double cd = 0.0;
    aero_triangle(lx, lv, w, &k, ft, &cd, e->nrm + 3 * (size_t)tr);
    e->c[tr] = cd;
    if (e->P) aero_restoring_stiffness(lx, lv, w, &k, e->P + 81 * (size_t)tr);
    for (int q = 0; q < 3; ++q) v3_axpy(f + 3 * (size_t)tv[q], 1.0 / 3.0, ft);
  }
}

static void drag_eval(const tf_sim *s, const void *data, const elem_args *a, const double *y,
                      double *E, double *grad, bsr *H) {
  (void)a;
  const elem_drag *e = data;
  if (!e->on) return;
  const double *x = s->state.x;
  double inv_dt = 1.0 / s->work.dt;
  for (uint32_t t = 0; t < e->count; ++t) {
    double c = e->c[t];
    if (c == 0.0 && !e->P) continue;
    const uint32_t *tv = e->tris + 3 * (size_t)t;
    const double *nt = e->nrm + 3 * (size_t)t;
    const uint32_t *slot = e->slot + 9 * (size_t)t;
    double d = 0.0;
    for (int q = 0; q < 3; ++q) {
      double dy[3];
      v3_sub(dy, y + 3 * (size_t)tv[q], e->ydrag + 3 * (size_t)tv[q]);
      d += v3_dot(nt, dy) / 3.0;
    }
    *E += 0.5 * c * inv_dt * d * d;
    if (grad)
      for (int q = 0; q < 3; ++q) v3_axpy(grad + 3 * (size_t)tv[q], c * inv_dt * d / 3.0, nt);
    if (e->P) {
      /* restoring follower stiffness about the step's start: 1/2 dx^T P dx */
      const double *P = e->P + 81 * (size_t)t;
      double dx[9], Pdx[9];
      for (int q = 0; q < 3; ++q) v3_sub(dx + 3 * q, y + 3 * (size_t)tv[q], x + 3 * (size_t)tv[q]);
      for (int r = 0; r < 9; ++r) {
        Pdx[r] = 0.0;
        for (int cc = 0; cc < 9; ++cc) Pdx[r] += P[9 * r + cc] * dx[cc];
        *E += 0.5 * dx[r] * Pdx[r];
      }
      if (grad)
        for (int q = 0; q < 3; ++q)
          v3_add(grad + 3 * (size_t)tv[q], grad + 3 * (size_t)tv[q], Pdx + 3 * q);
      if (H) elem_scatter(H, slot, P, 3);
    }
    if (H) {
      double blk[9], w = c * inv_dt / 9.0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) blk[3 * i + j] = w * nt[i] * nt[j];
      for (int q = 0; q < 9; ++q)
        if (slot[q] != UINT32_MAX) bsr_add_block(H, slot[q], blk);
    }
  }
}

static void drag_destroy(tf_mem *m, void *data) {
  elem_drag *e = data;
  MEM_FREE_ARRAY(m, e->c, e->count);
  MEM_FREE_ARRAY(m, e->nrm, 3 * (size_t)e->count);
  MEM_FREE_ARRAY(m, e->P, 81 * (size_t)e->count);
  MEM_FREE_ARRAY(m, e->ydrag, 3 * (size_t)e->n);
  MEM_FREE_ARRAY(m, e->slot, 9 * (size_t)e->count);
}

const elem_ops ELEM_DRAG = {"drag", 1, drag_eval, NULL, drag_destroy, sizeof(elem_drag)};

tf_status elem_drag_init(tf_sim *s, elem_drag *e, int closed) {
  const trimesh *m = &s->model.mesh;
  e->count = m->tri_count;
  e->tris = m->tris;
  e->closed = closed;
  e->n = s->model.n;
  e->c = mem_array(&s->mem, e->count, sizeof *e->c);
  e->nrm = mem_array(&s->mem, 3 * (size_t)e->count, sizeof *e->nrm);
  e->ydrag = mem_array(&s->mem, 3 * (size_t)e->n, sizeof *e->ydrag);
  e->slot = mem_array(&s->mem, 9 * (size_t)e->count, sizeof *e->slot);
  if (!e->c || !e->nrm || !e->ydrag || !e->slot) return TF_E_NOMEM;
  elem_slots(&s->solver.H, e->tris, e->count, 3, e->slot);
  if (s->par.air_density > 0.0) return elem_drag_enable_air(s, e);
  return TF_OK;
}

tf_status elem_drag_enable_air(tf_sim *s, elem_drag *e) {
  if (e->P) return TF_OK;
  e->P = mem_array(&s->mem, 81 * (size_t)e->count, sizeof *e->P);
  return e->P ? TF_OK : TF_E_NOMEM;
}
