/* SPDX-License-Identifier: MIT
 * The hinge set: discrete-shell bending on each interior edge (energy/bend_hinge.c; Bridson et al.
 * 2003, Grinspun et al. 2003), stiffness k = B x a rest geometric factor per hinge. */
#include <math.h>

#include "core/vec3.h"
#include "energy/bend_hinge.h"
#include "sim/sim.h"

static double hinge_one(const void *ctx, uint32_t k) {
  const elem_ctx *c = ctx;
  const elem_hinge *e = c->data;
  double stiff = e->bend[k] * e->geom[k];
  if (stiff == 0.0) return 0.0;
  double lx[12], g[12], h[144], *grad = c->grad;
  const uint32_t *v = e->hinges + 4 * (size_t)k;
  for (int q = 0; q < 4; ++q) v3_copy(lx + 3 * q, c->y + 3 * (size_t)v[q]);
  double E = hinge_energy_psd(lx, stiff, e->theta[k], grad ? g : NULL, c->H ? h : NULL);
  if (grad)
    for (int q = 0; q < 4; ++q) v3_add(grad + 3 * (size_t)v[q], grad + 3 * (size_t)v[q], g + 3 * q);
  if (c->H) elem_scatter(c->H, e->slot + 16 * (size_t)k, h, 4);
  return E;
}

static void hinge_eval(const tf_sim *s, const void *data, const elem_args *a, const double *y,
                       double *E, double *grad, bsr *H) {
  const elem_hinge *e = data;
  elem_ctx c = {s, data, a, y, grad, H};
  *E += elem_colours_run(s, &e->col, hinge_one, &c, grad || H);
}

/* Bending plasticity on hinges, the shell's rule (shell.c) in one dimension: a hinge's angle
 * stands for the normal curvature across its edge, per_angle x (theta - theta_rest); past
 * bend_yield the rest angle moves so that it stays at the yield, never further than
 * bend_plastic_limit (as a curvature) from the rest mesh's, at the rate of plastic_time. The
 * hinge's stiffness differs with the direction of the mesh (physics.md, Bending), and so does
 * where it yields. */
static void hinge_post_step(tf_sim *s, void *data, double dt) {
  elem_hinge *e = data;
  if (!e->pl.on) return;
  const double rate = elem_plastic_rate(s->par.plastic_time, dt);
  for (uint32_t k = 0; k < e->count; ++k) {
    const double c = e->per_angle[k], ky = e->pl.yield[k], kp = e->pl.limit[k];
    if (!(c > 0.0) || kp == 0.0) continue;
    double lx[12];
    const uint32_t *v = e->hinges + 4 * (size_t)k;
    for (int q = 0; q < 4; ++q) v3_copy(lx + 3 * q, s->state.x + 3 * (size_t)v[q]);
    const double th = hinge_angle(lx), d = remainder(th - e->theta[k], 2.0 * TF_PI);
    if (!(fabs(d) * c > ky)) continue;
    double target = th - copysign(ky / c, d), off = remainder(target - e->theta0[k], 2.0 * TF_PI);
    off = fmin(fmax(off, -kp / c), kp / c);
    e->theta[k] += rate * (e->theta0[k] + off - e->theta[k]);
  }
}

static void hinge_destroy(tf_mem *m, void *data) {
  elem_hinge *e = data;
  MEM_FREE_ARRAY(m, e->theta0, e->count);
  MEM_FREE_ARRAY(m, e->per_angle, e->count);
  MEM_FREE_ARRAY(m, e->geom, e->count);
  MEM_FREE_ARRAY(m, e->bend, e->count);
  MEM_FREE_ARRAY(m, e->slot, 16 * (size_t)e->count);
  elem_plastic_free(m, &e->pl);
  elem_colours_free(m, &e->col);
}

static elem_plastic *hinge_plastic(void *data, int bend) {
  return bend ? &((elem_hinge *)data)->pl : NULL;
}

const elem_ops ELEM_HINGE = {
    "hinge",      0, hinge_eval, NULL, hinge_destroy, sizeof(elem_hinge), hinge_post_step,
    hinge_plastic};

tf_status elem_hinge_init(tf_sim *s, elem_hinge *e, double bend) {
  const trimesh *m = &s->model.mesh;
  e->count = m->hinge_count;
  e->hinges = m->hinges;
  if (!e->count) return TF_OK;
  e->theta0 = mem_array(&s->mem, e->count, sizeof *e->theta0);
  e->per_angle = mem_array(&s->mem, e->count, sizeof *e->per_angle);
  e->theta = s->state.plastic + e->plastic_at;
  e->geom = mem_array(&s->mem, e->count, sizeof *e->geom);
  e->bend = mem_array(&s->mem, e->count, sizeof *e->bend);
  e->slot = mem_array(&s->mem, 16 * (size_t)e->count, sizeof *e->slot);
  if (!e->theta0 || !e->per_angle || !e->geom || !e->bend || !e->slot ||
      elem_plastic_init(&s->mem, &e->pl, e->count, e->hinges, 4, 2, s->par.bend_yield,
                        s->par.bend_plastic_limit) != TF_OK)
    return TF_E_NOMEM;
  for (uint32_t k = 0; k < e->count; ++k) {
    double lx[12];
    for (int q = 0; q < 4; ++q)
      v3_copy(lx + 3 * q, s->model.rest + 3 * (size_t)e->hinges[4 * (size_t)k + q]);
    e->theta0[k] = e->theta[k] = hinge_angle(lx);
    e->geom[k] = hinge_rest_stiffness(lx, 1.0);
    /* a cylinder of curvature c across the edge turns the normal by c (h_A + h_B) / 2 between
     * the two flat triangles (their normals are those of the chords to the far vertices, at half
     * their heights h = 2 A / |e|): per_angle = |e| / (A_A + A_B), the normal curvature across
     * the edge */
    double ed[3], a[3], b[3], na[3], nb[3];
    v3_sub(ed, lx + 3, lx);
    v3_sub(a, lx + 6, lx);
    v3_sub(b, lx + 9, lx);
    v3_cross(na, ed, a);
    v3_cross(nb, ed, b);
    const double areas = 0.5 * (v3_norm(na) + v3_norm(nb));
    e->per_angle[k] = areas > 0.0 ? v3_norm(ed) / areas : 0.0;
  }
  elem_hinge_set_bend(e, bend);
  elem_slots(&s->solver.H, e->hinges, e->count, 4, e->slot);
  return elem_colours_build(&s->mem, &e->col, s->model.n, e->count, e->hinges, 4, NULL,
                            s->model.rest);
}

void elem_hinge_set_bend(elem_hinge *e, double bend) {
  for (uint32_t k = 0; k < e->count; ++k) e->bend[k] = bend;
}

void elem_hinge_set_bend_map(elem_hinge *e, const double *per_vertex) {
  /* the hinge's own edge is its first two vertices */
  for (uint32_t k = 0; k < e->count; ++k) {
    const uint32_t *h = e->hinges + 4 * (size_t)k;
    e->bend[k] = 0.5 * (per_vertex[h[0]] + per_vertex[h[1]]);
  }
}

void elem_hinge_reserve(tf_sim *s, elem_hinge *e) {
  e->plastic_at = sim_reserve_plastic(s, s->model.mesh.hinge_count);
}
