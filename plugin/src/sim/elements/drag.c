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

typedef struct drag_force_ctx {
  tf_sim *s;
  elem_drag *e;
  const double *x, *v;
  double t;
  double *f;
} drag_force_ctx;

static double drag_force_one(const void *ctx, uint32_t tr) {
  const drag_force_ctx *c = ctx;
  elem_drag *e = c->e;
  aero_coeffs k = {c->s->par.air_density, c->s->par.drag, c->s->par.lift, e->closed};
  double lx[9], lv[9], cen[3], w[3], ft[3];
  const uint32_t *tv = e->tris + 3 * (size_t)tr;
  for (int q = 0; q < 3; ++q) {
    v3_copy(lx + 3 * q, c->x + 3 * (size_t)tv[q]);
    v3_copy(lv + 3 * q, c->v + 3 * (size_t)tv[q]);
  }
  for (int a = 0; a < 3; ++a) cen[a] = (lx[a] + lx[3 + a] + lx[6 + a]) / 3.0;
  wind_at(&c->s->par, cen, c->t, w);
  double cd = 0.0;
  aero_triangle(lx, lv, w, &k, ft, &cd, e->nrm + 3 * (size_t)tr);
  e->c[tr] = cd;
  if (e->P) aero_restoring_stiffness(lx, lv, w, &k, e->P + 81 * (size_t)tr);
  for (int q = 0; q < 3; ++q) v3_axpy(c->f + 3 * (size_t)tv[q], 1.0 / 3.0, ft);
  return 0.0;
}

void elem_drag_forces(tf_sim *s, elem_drag *e, const double *x, const double *v, double t,
                      double *f) {
  drag_force_ctx c = {s, e, x, v, t, f};
  elem_colours_run(s, &e->col, drag_force_one, &c, 1);
}

static double drag_one(const void *ctx, uint32_t t) {
  const elem_ctx *ec = ctx;
  const elem_drag *e = ec->data;
  const double *y = ec->y, *x = ec->s->state.x;
  double *grad = ec->grad;
  double c = e->c[t], inv_dt = 1.0 / ec->s->work.dt, E = 0.0;
  if (c == 0.0 && !e->P) return 0.0;
  const uint32_t *tv = e->tris + 3 * (size_t)t;
  const double *nt = e->nrm + 3 * (size_t)t;
  const uint32_t *slot = e->slot + 9 * (size_t)t;
  double d = 0.0;
  for (int q = 0; q < 3; ++q) {
    double dy[3];
    v3_sub(dy, y + 3 * (size_t)tv[q], e->ydrag + 3 * (size_t)tv[q]);
    d += v3_dot(nt, dy) / 3.0;
  }
  E += 0.5 * c * inv_dt * d * d;
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
      E += 0.5 * dx[r] * Pdx[r];
    }
    if (grad)
      for (int q = 0; q < 3; ++q)
        v3_add(grad + 3 * (size_t)tv[q], grad + 3 * (size_t)tv[q], Pdx + 3 * q);
    if (ec->H) elem_scatter(ec->H, slot, P, 3);
  }
  if (ec->H) {
    double blk[9], w = c * inv_dt / 9.0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) blk[3 * i + j] = w * nt[i] * nt[j];
    for (int q = 0; q < 9; ++q)
      if (slot[q] != UINT32_MAX) bsr_add_block(ec->H, slot[q], blk);
  }
  return E;
}

static void drag_eval(const tf_sim *s, const void *data, const elem_args *a, const double *y,
                      double *E, double *grad, bsr *H) {
  const elem_drag *e = data;
  if (!e->on) return;
  elem_ctx c = {s, data, a, y, grad, H};
  *E += elem_colours_run(s, &e->col, drag_one, &c, grad || H);
}

static void drag_destroy(tf_mem *m, void *data) {
  elem_drag *e = data;
  MEM_FREE_ARRAY(m, e->c, e->count);
  MEM_FREE_ARRAY(m, e->nrm, 3 * (size_t)e->count);
  MEM_FREE_ARRAY(m, e->P, 81 * (size_t)e->count);
  MEM_FREE_ARRAY(m, e->ydrag, 3 * (size_t)e->n);
  MEM_FREE_ARRAY(m, e->slot, 9 * (size_t)e->count);
  elem_colours_free(m, &e->col);
}

const elem_ops ELEM_DRAG = {"drag", 1,   drag_eval, NULL, drag_destroy, sizeof(elem_drag),
                            NULL,   NULL};

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
  if (elem_colours_build(&s->mem, &e->col, s->model.n, e->count, e->tris, 3, NULL, s->model.rest) !=
      TF_OK)
    return TF_E_NOMEM;
  if (s->par.air_density > 0.0) return elem_drag_enable_air(s, e);
  return TF_OK;
}

tf_status elem_drag_enable_air(tf_sim *s, elem_drag *e) {
  if (e->P) return TF_OK;
  e->P = mem_array(&s->mem, 81 * (size_t)e->count, sizeof *e->P);
  return e->P ? TF_OK : TF_E_NOMEM;
}
