/* SPDX-License-Identifier: MIT
 * The host's changes between frames, applied after api/ has checked them: a parameter and what
 * follows from it, the per-vertex bending map, and a new state. */
#include <string.h>

#include "contact/contact.h"
#include "sim/sim.h"

/* a plastic parameter's family (0: strain plasticity, 1: bending plasticity, -1: not plastic) and
 * whether it is the plastic limit (1) or the elastic one (0) */
static int plastic_param(tf_param p, int *limit) {
  *limit = p == TF_PARAM_PLASTIC_LIMIT || p == TF_PARAM_BEND_PLASTIC_LIMIT;
  if (p == TF_PARAM_PLASTIC_YIELD || p == TF_PARAM_PLASTIC_LIMIT) return 0;
  if (p == TF_PARAM_BEND_YIELD || p == TF_PARAM_BEND_PLASTIC_LIMIT) return 1;
  return -1;
}

/* every set's limits of that family: uniform, or from a per-vertex map */
static void plastic_set(tf_sim *s, int bend, int limit, double uniform, const double *per_vertex) {
  for (uint32_t k = 0; k < s->set_count; ++k) {
    elem_plastic *p = elem_set_plastic(&s->sets[k], bend);
    if (p) elem_plastic_set(p, limit, uniform, per_vertex);
  }
}

tf_status sim_set_param(tf_sim *s, tf_param param, double *field, const double *values,
                        uint32_t count) {
  /* air: the drag's restoring stiffness gets its storage now, not per step; first, so running
   * out of memory changes nothing */
  if (param == TF_PARAM_AIR_DENSITY && values[0] > 0.0 && elem_drag_enable_air(s, s->drag) != TF_OK)
    return TF_E_NOMEM;
  /* a ground: contact's storage now */
  if (param == TF_PARAM_GROUND_NORMAL &&
      (values[0] != 0.0 || values[1] != 0.0 || values[2] != 0.0) && contact_enable(s) != TF_OK)
    return TF_E_NOMEM;
  if (param == TF_PARAM_SELF_CONTACT && values[0] != 0.0 && contact_enable(s) != TF_OK)
    return TF_E_NOMEM;
  /* tearing: its topology now, not on the step that first tears */
  if (param == TF_PARAM_TEAR_STRAIN && values[0] > 0.0 && tear_enable(s) != TF_OK)
    return TF_E_NOMEM;
  for (uint32_t k = 0; k < count; ++k) field[k] = values[k];
  /* a uniform tear strain replaces its map */
  if (param == TF_PARAM_TEAR_STRAIN && s->tear) s->tear->has_map = 0;
  /* a uniform bending stiffness replaces any per-vertex map */
  if (param == TF_PARAM_BEND_STIFFNESS && s->hinge) elem_hinge_set_bend(s->hinge, values[0]);
  if (param == TF_PARAM_BEND_STIFFNESS && s->shell) elem_shell_set_bend(s->shell, values[0]);
  /* a uniform stretch stiffness replaces its map (the constants derived below) */
  if (param == TF_PARAM_STRETCH_STIFFNESS && s->membrane)
    elem_stiffness_set(&s->membrane->stretch, values[0], NULL);
  if (param == TF_PARAM_STRETCH_STIFFNESS && s->spring)
    elem_stiffness_set(&s->spring->stretch, values[0], NULL);
  /* and a uniform plastic limit or yield replaces its map */
  int limit, bend = plastic_param(param, &limit);
  if (bend >= 0) plastic_set(s, bend, limit, values[0], NULL);
  sim_params_derive(s);
  return TF_OK;
}

void sim_set_bend_map(tf_sim *s, const double *values) {
  /* the uniform value reported by get_param becomes the map's mean over vertices */
  double mean = 0.0;
  for (uint32_t i = 0; i < s->model.n; ++i) mean += values[i] / s->model.n;
  s->par.bend = mean;
  if (s->hinge) elem_hinge_set_bend_map(s->hinge, values);
  if (s->shell) elem_shell_set_bend_map(s->shell, values);
}

void sim_set_stretch_map(tf_sim *s, const double *values) {
  /* get_param reports the map's mean over vertices, as for the other maps */
  double mean = 0.0;
  for (uint32_t i = 0; i < s->model.n; ++i) mean += values[i] / s->model.n;
  s->par.stretch = mean;
  if (s->membrane) elem_stiffness_set(&s->membrane->stretch, mean, values);
  if (s->spring) elem_stiffness_set(&s->spring->stretch, mean, values);
  sim_params_derive(s);
}

void sim_set_plastic_map(tf_sim *s, tf_param param, const double *values) {
  /* the uniform value get_param reports becomes the map's mean over vertices, as for bend (the
   * elements read only their corners, which are the host's vertices) */
  double mean = 0.0;
  for (uint32_t i = 0; i < s->model.host_n; ++i) mean += values[i] / s->model.host_n;
  int limit, bend = plastic_param(param, &limit);
  double *field[2][2] = {{&s->par.plastic_yield, &s->par.plastic_limit},
                         {&s->par.bend_yield, &s->par.bend_plastic_limit}};
  *field[bend][limit] = mean;
  plastic_set(s, bend, limit, mean, values);
}

tf_status sim_set_self_map(tf_sim *s, const double *values) {
  if (contact_enable(s) != TF_OK) return TF_E_NOMEM;
  /* an edge node of quadratic flesh is out only when both its corners are (their mean, 0) */
  for (uint32_t i = 0; i < s->model.n; ++i) s->contact->self_off[i] = values[i] == 0.0;
  s->contact->tangle_check = 1; /* opted-out parts may have crossed each other */
  return TF_OK;
}

void sim_set_state(tf_sim *s, const double *x, const double *v) {
  sim_from_host(s, x, s->state.x, 3);
  if (v)
    sim_from_host(s, v, s->state.v, 3);
  else
    memset(s->state.v, 0, sizeof(double) * 3 * s->model.n);
  /* soft pins keep targets the host has just given (a restart: pins, the cached frame's targets,
   * the state); otherwise (a teleport) they restart at their vertices like hard pins */
  pins_restart(s, s->pins.targets_fresh);
  if (s->contact) /* a new state may start inside a body or crossing itself */
    s->contact->inside_check = s->contact->tangle_check = 1;
}
