/* SPDX-License-Identifier: MIT
 * Simulation entry points: parameters, pins, advancing, state and read-back. Each call checks
 * all of its input before changing anything, so a failed call leaves the simulation as it was. */
#include <math.h>
#include <string.h>

#include "api/api_common.h"
#include "api/api_params.h"
#include "core/vec3.h"

#define SIM_ARG(sim)                     \
  do {                                   \
    if (!(sim)) return TF_E_INVALID_ARG; \
  } while (0)
/* the host's vertices: quadratic flesh's edge nodes are the simulation's own (sim.h) */
#define COUNT_MATCH(sim, fn, count)                                            \
  FAIL_IF(sim, (count) != (sim)->model.host_n, TF_E_INVALID_ARG,               \
          fn ": vert_count is %u but the simulation has %u vertices", (count), \
          (sim)->model.host_n)

void tf_sim_destroy(tf_sim *sim) { sim_destroy(sim); }

const char *tf_sim_last_error(const tf_sim *sim) { return sim ? sim->last_error : "sim is NULL"; }

/* parameters that only one kind of simulation has; 0 with a message for the other kind */
static int param_fits_kind(const tf_sim *sim, tf_param param, const char **why) {
  int flesh = sim->kind == SIM_FLESH, spring_cloth = sim->spring != NULL;
  switch (param) {
    case TF_PARAM_BEND_YIELD:
    case TF_PARAM_BEND_PLASTIC_LIMIT:
      *why = "a parameter of the membrane cloth's bending (cloth_model membrane)";
      return sim->shell != NULL || sim->hinge != NULL;
    case TF_PARAM_TEAR_STRAIN:
      *why = "a cloth parameter (flesh does not tear)";
      return !flesh;
    case TF_PARAM_SHEAR_STIFFNESS:
    case TF_PARAM_BEND_SPRING_STIFFNESS:
      *why = "a parameter of spring cloth (cloth_model TF_CLOTH_SPRINGS)";
      return spring_cloth;
    case TF_PARAM_POISSON:
      *why = "not a parameter of spring cloth (its springs have shear_stiffness)";
      return !spring_cloth;
    case TF_PARAM_YOUNGS_MODULUS:
      *why = "a flesh parameter (cloth has stretch_stiffness)";
      return flesh;
    case TF_PARAM_STRETCH_STIFFNESS:
      *why = "a cloth parameter (flesh has youngs_modulus)";
      return !flesh;
    case TF_PARAM_BEND_STIFFNESS:
    case TF_PARAM_BEND_POISSON:
      *why = spring_cloth ? "not a parameter of spring cloth (its bend springs have "
                            "bend_spring_stiffness)"
                          : "a cloth parameter (flesh bends through its tets)";
      return !flesh && !spring_cloth;
    case TF_PARAM_PHI:
    case TF_PARAM_PSI:
      *why = "a parameter of the cloth's strain-rate integrator";
      return !flesh;
    default:
      return 1;
  }
}

/* the whole check of tf_sim_set_param: range, kind, and flesh's stricter Poisson range */
static tf_status sim_param_check(tf_sim *sim, const char *fn, tf_param param, const double *values,
                                 uint32_t count) {
  char err[SIM_ERR_SIZE];
  if (!param_check(param, values, count, err, sizeof err))
    return sim_fail(sim, TF_E_INVALID_ARG, "%s%s", fn, err);
  const char *why = "";
  if (!param_fits_kind(sim, param, &why))
    return sim_fail(sim, TF_E_UNSUPPORTED, "%s%s is %s", fn, param_find(param)->name, why);
  if (sim->kind == SIM_FLESH && param == TF_PARAM_POISSON && !(values[0] < 0.5))
    return sim_fail(
        sim, TF_E_INVALID_ARG,
        "%spoisson of a solid must be below 0.5 (0.49 is nearly incompressible), got %g", fn,
        values[0]);
  return TF_OK;
}

tf_status tf_sim_set_param(tf_sim *sim, tf_param param, const double *values, uint32_t count) {
  SIM_ARG(sim);
  tf_status st = sim_param_check(sim, "tf_sim_set_param: ", param, values, count);
  if (st != TF_OK) return st;
  const param_desc *d = param_find(param);
  if (sim_set_param(sim, param, param_ptr(&sim->par, d), values, d->count) != TF_OK)
    return sim_fail(sim, TF_E_NOMEM, "tf_sim_set_param: out of memory for %s", d->name);
  return TF_OK;
}

tf_status tf_sim_check_param(tf_sim *sim, tf_param param, const double *values, uint32_t count) {
  SIM_ARG(sim);
  return sim_param_check(sim, "", param, values, count);
}

tf_status tf_param_check(tf_param param, const double *values, uint32_t count, char *errbuf,
                         size_t errbuf_size) {
  char local[SIM_ERR_SIZE];
  return param_check(param, values, count, errbuf && errbuf_size ? errbuf : local,
                     errbuf && errbuf_size ? errbuf_size : sizeof local)
             ? TF_OK
             : TF_E_INVALID_ARG;
}

tf_status tf_sim_get_param(const tf_sim *sim, tf_param param, double *out, uint32_t count) {
  const param_desc *d = param_find(param);
  if (!sim || !out || !d || count < d->count) return TF_E_INVALID_ARG;
  const double *src = param_ptr((sim_params *)&sim->par, d);
  for (uint32_t k = 0; k < d->count; ++k) out[k] = src[k];
  return TF_OK;
}

tf_status tf_sim_set_param_map(tf_sim *sim, tf_param param, const double *values,
                               uint32_t vert_count) {
  SIM_ARG(sim);
  const int plastic = param == TF_PARAM_PLASTIC_YIELD || param == TF_PARAM_PLASTIC_LIMIT ||
                      param == TF_PARAM_BEND_YIELD || param == TF_PARAM_BEND_PLASTIC_LIMIT;
  const int tear = param == TF_PARAM_TEAR_STRAIN;
  const int stretch = param == TF_PARAM_STRETCH_STIFFNESS;
  FAIL_IF(sim,
          param != TF_PARAM_BEND_STIFFNESS && param != TF_PARAM_SELF_CONTACT && !plastic && !tear &&
              !stretch,
          TF_E_UNSUPPORTED,
          "tf_sim_set_param_map: only stretch_stiffness, bend_stiffness, self_contact, "
          "plastic_yield, plastic_limit, bend_yield, bend_plastic_limit and tear_strain have a "
          "per-vertex map (got %d)",
          (int)param);
  FAIL_IF(sim, stretch && sim->kind != SIM_CLOTH, TF_E_UNSUPPORTED,
          "tf_sim_set_param_map: stretch_stiffness is a cloth parameter (flesh: youngs_modulus, "
          "one per material)");
  const char *why = "";
  FAIL_IF(sim, (plastic || tear) && !param_fits_kind(sim, param, &why), TF_E_UNSUPPORTED,
          "tf_sim_set_param_map: %s is %s", param_find(param)->name, why);
  FAIL_IF(sim, param == TF_PARAM_BEND_STIFFNESS && sim->kind != SIM_CLOTH, TF_E_UNSUPPORTED,
          "tf_sim_set_param_map: bend_stiffness is a cloth parameter");
  FAIL_IF(sim, param == TF_PARAM_BEND_STIFFNESS && sim->spring, TF_E_UNSUPPORTED,
          "tf_sim_set_param_map: bend_stiffness is not a parameter of spring cloth (its bend "
          "springs have bend_spring_stiffness)");
  FAIL_IF(sim, !values, TF_E_INVALID_ARG, "tf_sim_set_param_map: values is NULL");
  COUNT_MATCH(sim, "tf_sim_set_param_map", vert_count);
  /* each value against the parameter table's range, as a uniform value would be */
  for (uint32_t i = 0; i < vert_count; ++i) {
    char err[SIM_ERR_SIZE - 64];
    if (!param_check(param, values + i, 1, err, sizeof err))
      return sim_fail(sim, TF_E_INVALID_ARG, "tf_sim_set_param_map: vertex %u: %s",
                      i + sim->index_base, err);
  }
  /* in the simulation's vertex order, quadratic flesh's edge nodes from their corners */
  double *all = sim->work.grad; /* the step's scratch, free between advances */
  sim_from_host(sim, values, all, 1);
  if (param == TF_PARAM_SELF_CONTACT)
    return sim_set_self_map(sim, all) == TF_OK
               ? TF_OK
               : sim_fail(sim, TF_E_NOMEM, "tf_sim_set_param_map: out of memory");
  if (plastic) {
    sim_set_plastic_map(sim, param, all);
    return TF_OK;
  }
  if (stretch) {
    sim_set_stretch_map(sim, all);
    return TF_OK;
  }
  if (tear)
    return tear_set_map(sim, all) == TF_OK
               ? TF_OK
               : sim_fail(sim, TF_E_NOMEM, "tf_sim_set_param_map: out of memory");
  sim_set_bend_map(sim, all);
  return TF_OK;
}

tf_status tf_sim_set_pins(tf_sim *sim, const uint32_t *indices, const double *weights,
                          uint32_t count) {
  SIM_ARG(sim);
  FAIL_IF(sim, count > 0 && !indices, TF_E_INVALID_ARG, "tf_sim_set_pins: indices is NULL");
  FAIL_IF(sim, count > sim->model.host_n, TF_E_INVALID_ARG,
          "tf_sim_set_pins: %u pins for %u vertices", count, sim->model.host_n);
  /* validate first; duplicates are found with the per-vertex mark array, cleared again below */
  uint32_t marked = 0;
  const uint32_t b = sim->index_base;
  tf_status st = TF_OK;
  for (uint32_t q = 0; q < count; ++q) {
    uint32_t i = indices[q];
    if (i >= sim->model.host_n) {
      st = sim_fail(sim, TF_E_INVALID_ARG, "tf_sim_set_pins: indices[%u] = %u out of range %u..%u",
                    q + b, i + b, b, sim->model.host_n - 1 + b);
      break;
    }
    if (weights && !(weights[q] > 0.0 && weights[q] <= 1.0)) {
      st = sim_fail(sim, TF_E_INVALID_ARG, "tf_sim_set_pins: weights[%u] = %g must be in (0, 1]",
                    q + b, weights[q]);
      break;
    }
    if (sim->pins.mark[i]) {
      st = sim_fail(sim, TF_E_INVALID_ARG,
                    "tf_sim_set_pins: vertex %u is pinned twice (indices[%u])", i + b, q + b);
      break;
    }
    sim->pins.mark[i] = 1;
    marked = q + 1;
  }
  for (uint32_t q = 0; q < marked; ++q) sim->pins.mark[indices[q]] = 0;
  if (st != TF_OK) return st;
  /* commit: targets start at the vertices' current positions */
  pins_set(sim, indices, weights, count);
  return TF_OK;
}

tf_status tf_sim_set_pin_targets(tf_sim *sim, const double *targets, uint32_t count) {
  SIM_ARG(sim);
  FAIL_IF(sim, count != sim->pins.host, TF_E_INVALID_ARG,
          "tf_sim_set_pin_targets: count is %u but %u vertices are pinned", count, sim->pins.host);
  FAIL_IF(sim, count > 0 && !targets, TF_E_INVALID_ARG, "tf_sim_set_pin_targets: targets is NULL");
  for (uint32_t q = 0; q < count; ++q)
    FAIL_IF(sim, !api_all_finite(targets + 3 * (size_t)q, 3), TF_E_INVALID_ARG,
            "tf_sim_set_pin_targets: target %u (vertex %u) is not finite", q + sim->index_base,
            sim_host_vertex(sim, sim->pins.idx[q]) + sim->index_base);
  pins_set_targets(sim, targets);
  return TF_OK;
}

tf_status tf_sim_get_pin_targets(const tf_sim *sim, double *out, uint32_t count) {
  if (!sim) return TF_E_INVALID_ARG;
  if (count != sim->pins.host || (count && !out))
    return sim_fail((tf_sim *)sim, TF_E_INVALID_ARG,
                    "tf_sim_get_pin_targets: count is %u but %u vertices are pinned", count,
                    sim->pins.host);
  memcpy(out, sim->pins.next, sizeof(double) * 3 * count);
  return TF_OK;
}

tf_status tf_sim_settle_tau(tf_sim *sim, double settle_time, double dt, double *out_tau,
                            double *out_lambda) {
  SIM_ARG(sim);
  FAIL_IF(sim, !out_tau, TF_E_INVALID_ARG, "tf_sim_settle_tau: out_tau is NULL");
  FAIL_IF(sim, !(settle_time > 0.0) || !api_finite(settle_time), TF_E_INVALID_ARG,
          "tf_sim_settle_tau: settle_time must be > 0 s, got %g", settle_time);
  FAIL_IF(sim, !(dt > 0.0) || !api_finite(dt) || !(dt < settle_time), TF_E_INVALID_ARG,
          "tf_sim_settle_tau: dt must be > 0 s and below settle_time, got %g", dt);
  double lambda = 0.0;
  tf_status st = sim_settle_tau(sim, settle_time, dt, out_tau, &lambda);
  if (st == TF_OK && out_lambda) *out_lambda = lambda;
  return st;
}

tf_status tf_sim_advance(tf_sim *sim, double frame_dt, uint32_t substeps) {
  SIM_ARG(sim);
  FAIL_IF(sim, !(frame_dt > 0.0) || !api_finite(frame_dt), TF_E_INVALID_ARG,
          "tf_sim_advance: frame_dt must be a finite time > 0 s, got %g", frame_dt);
  FAIL_IF(sim, substeps < 1 || substeps > TF_MAX_SUBSTEPS, TF_E_INVALID_ARG,
          "tf_sim_advance: substeps must be in [1, %u], got %u", TF_MAX_SUBSTEPS, substeps);
  FAIL_IF(sim, !(frame_dt / substeps > 0.0), TF_E_INVALID_ARG,
          "tf_sim_advance: frame_dt / substeps underflows (%g s / %u)", frame_dt, substeps);
  return sim_advance(sim, frame_dt, substeps);
}

tf_status tf_sim_set_state(tf_sim *sim, const double *positions, const double *velocities,
                           uint32_t vert_count) {
  SIM_ARG(sim);
  FAIL_IF(sim, !positions, TF_E_INVALID_ARG, "tf_sim_set_state: positions is NULL");
  COUNT_MATCH(sim, "tf_sim_set_state", vert_count);
  for (uint32_t i = 0; i < vert_count; ++i) {
    FAIL_IF(sim, !api_all_finite(positions + 3 * (size_t)i, 3), TF_E_INVALID_ARG,
            "tf_sim_set_state: position of vertex %u is not finite", i + sim->index_base);
    FAIL_IF(sim, velocities && !api_all_finite(velocities + 3 * (size_t)i, 3), TF_E_INVALID_ARG,
            "tf_sim_set_state: velocity of vertex %u is not finite", i + sim->index_base);
  }
  sim_set_state(sim, positions, velocities);
  return TF_OK;
}

size_t tf_sim_state_size(const tf_sim *sim) { return sim ? sim_snapshot_size(sim) : 0; }

tf_status tf_sim_save_state(tf_sim *sim, void *buf, size_t size) {
  SIM_ARG(sim);
  size_t need = sim_snapshot_size(sim);
  FAIL_IF(sim, !buf, TF_E_INVALID_ARG, "tf_sim_save_state: buf is NULL");
  FAIL_IF(sim, size < need, TF_E_INVALID_ARG,
          "tf_sim_save_state: the buffer holds %zu bytes, the state needs %zu (tf_sim_state_size)",
          size, need);
  sim_snapshot_save(sim, buf);
  return TF_OK;
}

tf_status tf_sim_load_state(tf_sim *sim, const void *buf, size_t size) {
  SIM_ARG(sim);
  FAIL_IF(sim, !buf, TF_E_INVALID_ARG, "tf_sim_load_state: buf is NULL");
  /* the snapshot's parameters against the same table tf_sim_set_param checks with */
  sim_params par;
  tf_status st = sim_snapshot_check(sim, buf, size, &par);
  if (st != TF_OK) return st;
  uint32_t kind = sim->kind == SIM_FLESH ? TF_PARAM_FOR_FLESH : TF_PARAM_FOR_CLOTH;
  char err[256];
  for (int p = 0; p < TF_PARAM_COUNT_; ++p) {
    const param_desc *d = param_find((tf_param)p);
    if (!(d->kinds & kind)) continue;
    FAIL_IF(sim, !param_check((tf_param)p, param_ptr(&par, d), d->count, err, sizeof err),
            TF_E_INVALID_ARG, "tf_sim_load_state: the snapshot's %s", err);
  }
  FAIL_IF(sim, !api_check_solver(&par.solver, err, sizeof err), TF_E_INVALID_ARG,
          "tf_sim_load_state: the snapshot's %s", err);
  return sim_snapshot_load(sim, buf);
}

uint32_t tf_sim_vert_count(const tf_sim *sim) { return sim ? sim->model.host_n : 0; }

#define READ_ARGS(fn)                                                                            \
  if (!sim) return TF_E_INVALID_ARG;                                                             \
  if (!out || vert_count != sim->model.host_n)                                                   \
  return sim_fail((tf_sim *)sim, TF_E_INVALID_ARG, fn ": %s (vert_count %u, simulation has %u)", \
                  out ? "wrong vert_count" : "output array is NULL", vert_count,                 \
                  sim->model.host_n)

tf_status tf_sim_get_positions(const tf_sim *sim, double *out, uint32_t vert_count) {
  READ_ARGS("tf_sim_get_positions");
  sim_to_host(sim, sim->state.x, out, 3);
  return TF_OK;
}

tf_status tf_sim_get_positions_f(const tf_sim *sim, float *out, uint32_t vert_count) {
  READ_ARGS("tf_sim_get_positions_f");
  for (uint32_t i = 0; i < vert_count; ++i)
    for (int k = 0; k < 3; ++k)
      out[3 * (size_t)sim_host_vertex(sim, i) + k] = (float)sim->state.x[3 * (size_t)i + k];
  return TF_OK;
}

tf_status tf_sim_get_velocities(const tf_sim *sim, double *out, uint32_t vert_count) {
  READ_ARGS("tf_sim_get_velocities");
  sim_to_host(sim, sim->state.v, out, 3);
  return TF_OK;
}

tf_status tf_sim_get_normals(const tf_sim *sim, double *out, uint32_t vert_count) {
  READ_ARGS("tf_sim_get_normals");
  memset(out, 0, sizeof(double) * 3 * vert_count);
  uint32_t nt;
  const uint32_t *tris = sim_host_triangles(sim, &nt);
  /* area weighting comes free: the cross product's length is twice the area */
  for (uint32_t t = 0; t < nt; ++t) {
    const uint32_t *v = tris + 3 * (size_t)t;
    double e1[3], e2[3], nrm[3];
    v3_sub(e1, sim->state.x + 3 * (size_t)v[1], sim->state.x + 3 * (size_t)v[0]);
    v3_sub(e2, sim->state.x + 3 * (size_t)v[2], sim->state.x + 3 * (size_t)v[0]);
    v3_cross(nrm, e1, e2);
    for (int k = 0; k < 3; ++k) {
      double *o = out + 3 * (size_t)sim_host_vertex(sim, v[k]);
      v3_add(o, o, nrm);
    }
  }
  for (uint32_t i = 0; i < vert_count; ++i) {
    double l = v3_norm(out + 3 * (size_t)i);
    if (l > 0.0) v3_scale(out + 3 * (size_t)i, out + 3 * (size_t)i, 1.0 / l);
  }
  return TF_OK;
}

tf_status tf_sim_get_forces(const tf_sim *sim, double *out, uint32_t vert_count) {
  READ_ARGS("tf_sim_get_forces");
  /* quadratic flesh: each edge node's force shared by its corners (the transpose of placing it
   * at their middle), into the step's gradient scratch, free between advances */
  double *g =
      sim->model.n == sim->model.host_n && !sim->model.host_of ? out : ((tf_sim *)sim)->work.grad;
  sim_potential(sim, sim->state.x, sim->pins.next, g);
  if (g != out) {
    if (sim->model.n != sim->model.host_n) tet10mesh_gather(&sim->flesh->q10, g, 3);
    sim_to_host(sim, g, out, 3);
  }
  for (size_t k = 0; k < 3 * (size_t)vert_count; ++k) out[k] = -out[k];
  return TF_OK;
}

tf_status tf_sim_get_energy(const tf_sim *sim, double *out_energy) {
  if (!sim || !out_energy) return TF_E_INVALID_ARG;
  *out_energy = sim_potential(sim, sim->state.x, sim->pins.next, NULL);
  return TF_OK;
}

tf_status tf_sim_get_stats(const tf_sim *sim, tf_stats *out) {
  if (!sim || !out) return TF_E_INVALID_ARG;
  if (out->struct_size == 0) return TF_E_DEF_INIT;
  tf_stats st = sim->stats;
  size_t n = out->struct_size < sizeof st ? out->struct_size : sizeof st;
  uint32_t size = out->struct_size;
  memcpy(out, &st, n);
  out->struct_size = size;
  return TF_OK;
}

tf_status tf_sim_get_rest_positions(const tf_sim *sim, double *out, uint32_t vert_count) {
  READ_ARGS("tf_sim_get_rest_positions");
  sim_to_host(sim, sim->model.rest, out, 3);
  return TF_OK;
}

tf_status tf_sim_get_masses(const tf_sim *sim, double *out, uint32_t vert_count) {
  READ_ARGS("tf_sim_get_masses");
  sim_to_host(sim, sim->model.mass, out, 1);
  return TF_OK;
}

uint32_t tf_sim_tri_count(const tf_sim *sim) {
  uint32_t nt = 0;
  if (sim) sim_host_triangles(sim, &nt);
  return nt;
}

tf_status tf_sim_get_topology(const tf_sim *sim, tf_topology *out) {
  if (!sim || !out) return TF_E_INVALID_ARG;
  if (out->struct_size == 0) return TF_E_DEF_INIT;
  tf_topology t = {.struct_size = out->struct_size < sizeof t ? out->struct_size : sizeof t};
  uint32_t nt;
  sim_host_triangles(sim, &nt);
  t.vert_count = sim->model.host_n;
  t.tri_count = nt;
  t.original_vert_count = sim->tear ? sim->tear->n0 : sim->model.host_n;
  if (sim->tear) {
    t.torn_edges = sim->tear->torn;
    t.serial = sim->tear->serial;
    t.changed = (uint32_t)sim->tear->changed;
  }
  memcpy(out, &t, t.struct_size);
  return TF_OK;
}

tf_status tf_sim_get_vertex_origins(const tf_sim *sim, uint32_t *out, uint32_t vert_count) {
  READ_ARGS("tf_sim_get_vertex_origins");
  /* a torn cloth keeps its vertices' places and appends the copies (tear.c): the order's prefix
   * names the origins and parents too */
  for (uint32_t i = 0; i < vert_count; ++i)
    out[sim_host_vertex(sim, i)] = sim_host_vertex(sim, sim->tear ? sim->tear->origin[i] : i);
  return TF_OK;
}

tf_status tf_sim_get_vertex_parents(const tf_sim *sim, uint32_t *out, uint32_t vert_count) {
  READ_ARGS("tf_sim_get_vertex_parents");
  for (uint32_t i = 0; i < vert_count; ++i)
    out[sim_host_vertex(sim, i)] = sim_host_vertex(sim, sim->tear ? sim->tear->parent[i] : i);
  return TF_OK;
}

tf_status tf_sim_get_triangles(const tf_sim *sim, uint32_t *out, uint32_t tri_count) {
  if (!sim) return TF_E_INVALID_ARG;
  uint32_t nt;
  const uint32_t *tris = sim_host_triangles(sim, &nt);
  if (!out || tri_count != nt)
    return sim_fail((tf_sim *)sim, TF_E_INVALID_ARG,
                    "tf_sim_get_triangles: %s (tri_count %u, simulation has %u)",
                    out ? "wrong tri_count" : "output array is NULL", tri_count, nt);
  for (size_t k = 0; k < 3 * (size_t)tri_count; ++k) out[k] = sim_host_vertex(sim, tris[k]);
  return TF_OK;
}
