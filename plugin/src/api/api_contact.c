/* SPDX-License-Identifier: MIT
 * Collider entry points: every argument checked (a message naming the collider, the vertex or
 * the triangle, numbered from index_base) before anything changes; the work is contact/'s. */
#include <math.h>
#include <string.h>

#include "api/api_common.h"
#include "contact/contact.h"
#include "core/vec3.h"

void tf_collider_def_init_(tf_collider_def *def, uint32_t struct_size) {
  static const tf_collider_def defaults = {
      .struct_size = sizeof(tf_collider_def), .thickness = 0.001, .friction = 0.5, .one_sided = 0};
  api_def_init(def, &defaults, sizeof defaults, struct_size);
}

static tf_status check_props(tf_sim *sim, const char *fn, double thickness, double friction) {
  FAIL_IF(sim, !(thickness >= 0.0 && thickness <= CONTACT_MAX_THICKNESS), TF_E_INVALID_ARG,
          "%s: thickness must be in [0, %g] m, got %g", fn, CONTACT_MAX_THICKNESS, thickness);
  FAIL_IF(sim, !(friction >= 0.0 && friction <= CONTACT_MAX_FRICTION), TF_E_INVALID_ARG,
          "%s: friction must be in [0, %g], got %g", fn, CONTACT_MAX_FRICTION, friction);
  return TF_OK;
}

static tf_status check_positions(tf_sim *sim, const char *fn, const double *p, uint32_t count) {
  FAIL_IF(sim, !p, TF_E_INVALID_ARG, "%s: positions is NULL", fn);
  for (uint32_t i = 0; i < count; ++i)
    FAIL_IF(sim, !api_all_finite(p + 3 * (size_t)i, 3), TF_E_INVALID_ARG,
            "%s: position of collider vertex %u is not finite", fn, i + sim->index_base);
  return TF_OK;
}

tf_status tf_sim_add_collider(tf_sim *sim, const tf_collider_def *def, uint32_t *out_id) {
  const char *fn = "tf_sim_add_collider";
  if (!sim) return TF_E_INVALID_ARG;
  FAIL_IF(sim, !def || !out_id, TF_E_INVALID_ARG, "%s: %s is NULL", fn, def ? "out_id" : "def");
  FAIL_IF(sim, def->struct_size == 0, TF_E_DEF_INIT,
          "%s: def not initialized (tf_collider_def_init)", fn);
  tf_collider_def d;
  tf_collider_def_init(&d);
  memcpy(&d, def, def->struct_size < sizeof d ? def->struct_size : sizeof d);
  FAIL_IF(sim, sim->par.integrator != TF_INTEGRATOR_TAU, TF_E_UNSUPPORTED,
          "%s: contact needs the tau integrator (the strain-rate baseline has none)", fn);
  FAIL_IF(sim, d.vert_count < 3 || d.tri_count < 1, TF_E_BAD_MESH,
          "%s: %u vertices and %u triangles (a collider "
          "needs at least one triangle)",
          fn, d.vert_count, d.tri_count);
  FAIL_IF(sim, d.vert_count > (1u << 30) || d.tri_count > (1u << 30), TF_E_BAD_MESH,
          "%s: %u vertices, %u triangles: too many", fn, d.vert_count, d.tri_count);
  FAIL_IF(sim, sim->contact && sim->contact->col_count >= 65535, TF_E_INVALID_ARG,
          "%s: 65535 colliders at most", fn);
  tf_status st = check_positions(sim, fn, d.positions, d.vert_count);
  if (st != TF_OK) return st;
  FAIL_IF(sim, !d.triangles, TF_E_INVALID_ARG, "%s: triangles is NULL", fn);
  const uint32_t b = sim->index_base;
  for (uint32_t t = 0; t < d.tri_count; ++t) {
    const uint32_t *v = d.triangles + 3 * (size_t)t;
    for (int k = 0; k < 3; ++k)
      FAIL_IF(sim, v[k] < b || v[k] - b >= d.vert_count, TF_E_BAD_MESH,
              "%s: triangle %u: vertex %u out of range %u..%u", fn, t + b, v[k], b,
              d.vert_count - 1 + b);
    FAIL_IF(sim, v[0] == v[1] || v[1] == v[2] || v[0] == v[2], TF_E_BAD_MESH,
            "%s: triangle %u repeats a vertex (%u %u %u)", fn, t + b, v[0], v[1], v[2]);
    double e1[3], e2[3], n[3];
    const double *p0 = d.positions + 3 * (size_t)(v[0] - b);
    v3_sub(e1, d.positions + 3 * (size_t)(v[1] - b), p0);
    v3_sub(e2, d.positions + 3 * (size_t)(v[2] - b), p0);
    v3_cross(n, e1, e2);
    double scale = v3_norm2(e1) + v3_norm2(e2);
    FAIL_IF(sim, !(v3_norm(n) > 1e-12 * scale), TF_E_BAD_MESH,
            "%s: triangle %u has no area (degenerate)", fn, t + b);
  }
  if ((st = check_props(sim, fn, d.thickness, d.friction)) != TF_OK) return st;
  if (contact_enable(sim) != TF_OK || contact_add_collider(sim, &d, out_id) != TF_OK)
    return sim_fail(sim, TF_E_NOMEM, "%s: out of memory (%u vertices, %u triangles)", fn,
                    d.vert_count, d.tri_count);
  return TF_OK;
}

static contact_collider *find(tf_sim *sim, const char *fn, uint32_t id) {
  if (!sim->contact || id >= sim->contact->col_count) {
    sim_fail(sim, TF_E_INVALID_ARG, "%s: no collider %u (%u added)", fn, id,
             sim->contact ? sim->contact->col_count : 0);
    return NULL;
  }
  return sim->contact->col[id];
}

tf_status tf_sim_move_collider(tf_sim *sim, uint32_t id, const double *positions,
                               uint32_t vert_count) {
  const char *fn = "tf_sim_move_collider";
  if (!sim) return TF_E_INVALID_ARG;
  contact_collider *c = find(sim, fn, id);
  if (!c) return TF_E_INVALID_ARG;
  FAIL_IF(sim, vert_count != c->nv, TF_E_INVALID_ARG, "%s: collider %u has %u vertices, got %u", fn,
          id, c->nv, vert_count);
  tf_status st = check_positions(sim, fn, positions, vert_count);
  if (st != TF_OK) return st;
  memcpy(c->next, positions, 3 * (size_t)c->nv * sizeof *c->next);
  return TF_OK;
}

tf_status tf_sim_transform_collider(tf_sim *sim, uint32_t id, const double matrix[16]) {
  const char *fn = "tf_sim_transform_collider";
  if (!sim) return TF_E_INVALID_ARG;
  contact_collider *c = find(sim, fn, id);
  if (!c) return TF_E_INVALID_ARG;
  FAIL_IF(sim, !matrix, TF_E_INVALID_ARG, "%s: matrix is NULL", fn);
  FAIL_IF(sim, !api_all_finite(matrix, 16), TF_E_INVALID_ARG,
          "%s: the matrix has a non-finite entry", fn);
  FAIL_IF(sim, matrix[12] != 0.0 || matrix[13] != 0.0 || matrix[14] != 0.0 || matrix[15] != 1.0,
          TF_E_INVALID_ARG,
          "%s: the matrix's last row must be 0 0 0 1 (row-major, translation in [3], [7], [11]), "
          "got %g %g %g %g",
          fn, matrix[12], matrix[13], matrix[14], matrix[15]);
  for (uint32_t i = 0; i < c->nv; ++i) {
    const double *p = c->rest + 3 * (size_t)i;
    for (int r = 0; r < 3; ++r)
      c->next[3 * (size_t)i + r] = matrix[4 * r] * p[0] + matrix[4 * r + 1] * p[1] +
                                   matrix[4 * r + 2] * p[2] + matrix[4 * r + 3];
  }
  return TF_OK;
}

tf_status tf_sim_set_collider(tf_sim *sim, uint32_t id, double thickness, double friction) {
  const char *fn = "tf_sim_set_collider";
  if (!sim) return TF_E_INVALID_ARG;
  contact_collider *c = find(sim, fn, id);
  if (!c) return TF_E_INVALID_ARG;
  tf_status st = check_props(sim, fn, thickness, friction);
  if (st != TF_OK) return st;
  c->thickness = thickness;
  c->friction = friction;
  return TF_OK;
}

tf_status tf_sim_self_intersections(tf_sim *sim, uint32_t *out_triples, uint32_t capacity,
                                    uint32_t *out_count) {
  const char *fn = "tf_sim_self_intersections";
  if (!sim) return TF_E_INVALID_ARG;
  FAIL_IF(sim, !out_count, TF_E_INVALID_ARG, "%s: out_count is NULL", fn);
  FAIL_IF(sim, capacity > 0 && !out_triples, TF_E_INVALID_ARG, "%s: out_triples is NULL", fn);
  if (contact_enable(sim) != TF_OK) return sim_fail(sim, TF_E_NOMEM, "%s: out of memory", fn);
  uint32_t n = contact_self_crossings(sim, sim->state.x, out_triples, capacity, NULL);
  /* quadratic flesh crosses on its split faces: name the host's face and a corner of each node */
  if (sim->flesh && sim->flesh->npt == 10)
    for (uint32_t k = 0; k < (n < capacity ? n : capacity); ++k) {
      uint32_t *c = out_triples + 3 * (size_t)k;
      c[0] = tet10mesh_corner(&sim->flesh->q10, c[0]);
      c[1] = tet10mesh_corner(&sim->flesh->q10, c[1]);
      c[2] = tet10mesh_parent_face(c[2]);
    }
  for (uint32_t k = 0; k < (n < capacity ? n : capacity); ++k) {
    uint32_t *c = out_triples + 3 * (size_t)k;
    c[0] = sim_host_vertex(sim, c[0]) + sim->index_base;
    c[1] = sim_host_vertex(sim, c[1]) + sim->index_base;
    c[2] += sim->index_base;
  }
  *out_count = n;
  return TF_OK;
}

uint32_t tf_sim_collider_count(const tf_sim *sim) {
  return sim && sim->contact ? sim->contact->col_count : 0;
}
