/* SPDX-License-Identifier: MIT
 * Cloth entry points: def defaults, validation of everything a host can get wrong (with a message
 * naming it), and creation. Validation happens before anything is allocated. */
#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "api/api_common.h"
#include "api/api_params.h"
#include "mesh/trimesh.h"

#define ERR(...) (snprintf(err, errn, __VA_ARGS__))

int api_all_finite(const double *a, size_t count) {
  for (size_t k = 0; k < count; ++k)
    if (!api_finite(a[k])) return 0;
  return 1;
}

void tf_cloth_def_init_(tf_cloth_def *def, uint32_t struct_size) {
  if (!def) return;
  tf_cloth_def d;
  memset(&d, 0, sizeof d);
  d.struct_size = (uint32_t)sizeof d;
  d.density = 0.1;
  d.stretch_stiffness = 1000.0;
  d.poisson = 0.3;
  d.bend_stiffness = 1e-5;
  /* isotropic: the lab's cantilever on any mesh (plugin/docs/physics.md, "Bending") */
  d.bend_model = TF_BEND_SHELL;
  d.gravity[2] = -9.81;
  d.integrator = TF_INTEGRATOR_TAU;
  d.tau = 0.1;
  d.kappa = 0.0;
  d.pin_stiffness = 1000.0;
  d.solver.max_newton = 20;
  d.solver.max_cg = 500;
  d.solver.tolerance = 1e-3;
  d.solver.abs_tolerance = 1e-7;
  d.logger.min_level = TF_LOG_WARN;
  d.cloth_model = TF_CLOTH_MEMBRANE;
  d.shear_stiffness = 400.0;
  d.bend_spring_stiffness = 10.0;
  api_def_init(def, &d, sizeof d, struct_size);
}

void api_def_init(void *def, const void *defaults, size_t full_size, uint32_t struct_size) {
  size_t n = struct_size < full_size ? struct_size : full_size;
  memcpy(def, defaults, n);
  uint32_t recorded = (uint32_t)n;
  if (n >= sizeof recorded) memcpy(def, &recorded, sizeof recorded);
}

size_t api_def_take(const char *fn, const char *init, const void *def, void *d, size_t full_size,
                    char *err, size_t errn, tf_status *st) {
  if (!def) return ERR("%s: def is NULL", fn), *st = TF_E_INVALID_ARG, 0;
  uint32_t size; /* every def starts with its struct_size */
  memcpy(&size, def, sizeof size);
  if (size == 0)
    return ERR("%s: def.struct_size is 0: initialize the def with %s", fn, init),
           *st = TF_E_DEF_INIT, 0;
  size_t n = size < full_size ? size : full_size;
  memcpy(d, def, n);
  return n;
}

int api_check_solver(const tf_solver_settings *s, char *err, size_t errn) {
  if (s->max_newton < 1) return ERR("solver.max_newton must be >= 1"), 0;
  if (s->max_cg < 1) return ERR("solver.max_cg must be >= 1"), 0;
  if (!(s->tolerance > 0.0 && s->tolerance < 1.0))
    return ERR("solver.tolerance must be in (0, 1), got %g", s->tolerance), 0;
  if (!(s->abs_tolerance >= 0.0) || !api_finite(s->abs_tolerance))
    return ERR("solver.abs_tolerance must be >= 0, got %g", s->abs_tolerance), 0;
  return 1;
}

int api_check_threads(uint32_t threads, char *err, size_t errn) {
  if (threads > POOL_MAX_THREADS)
    return ERR("threads must be 0 (every core) or 1 .. %d, got %u", POOL_MAX_THREADS, threads), 0;
  return 1;
}

static tf_status validate_def(const tf_cloth_def *d, char *err, size_t errn) {
  if (d->index_base > 1)
    return ERR("index_base must be 0 or 1, got %u", d->index_base), TF_E_INVALID_ARG;
  const uint32_t b = d->index_base;
  tf_status st =
      trimesh_validate(d->rest_positions, d->vert_count, d->triangles, d->tri_count, b, err, errn);
  if (st != TF_OK) return st;
  uint32_t n = d->vert_count;
  if (d->initial_positions)
    for (uint32_t i = 0; i < n; ++i)
      if (!api_all_finite(d->initial_positions + 3 * (size_t)i, 3))
        return ERR("initial_positions: vertex %u is not finite", i + b), TF_E_INVALID_ARG;
  if (d->vertex_masses) {
    for (uint32_t i = 0; i < n; ++i)
      if (!(d->vertex_masses[i] > 0.0) || !api_finite(d->vertex_masses[i]))
        return ERR("vertex_masses[%u] must be > 0 kg, got %g", i + b, d->vertex_masses[i]),
               TF_E_INVALID_ARG;
  } else if (d->total_mass > 0.0) {
    if (!api_finite(d->total_mass)) return ERR("total_mass must be finite"), TF_E_INVALID_ARG;
  } else if (!(d->density > 0.0) || !api_finite(d->density)) {
    return ERR("density must be > 0 kg/m^2 (or give total_mass or vertex_masses), got %g",
               d->density),
           TF_E_INVALID_ARG;
  }
  if (!(d->total_mass >= 0.0))
    return ERR("total_mass must be >= 0 kg, got %g", d->total_mass), TF_E_INVALID_ARG;
  struct {
    tf_param p;
    const double *v;
    uint32_t c;
  } ps[] = {{TF_PARAM_TAU, &d->tau, 1},
            {TF_PARAM_KAPPA, &d->kappa, 1},
            {TF_PARAM_BEND_STIFFNESS, &d->bend_stiffness, 1},
            {TF_PARAM_GRAVITY, d->gravity, 3},
            {TF_PARAM_STRETCH_STIFFNESS, &d->stretch_stiffness, 1},
            {TF_PARAM_POISSON, &d->poisson, 1},
            {TF_PARAM_PIN_STIFFNESS, &d->pin_stiffness, 1},
            {TF_PARAM_PHI, &d->phi, 1},
            {TF_PARAM_PSI, &d->psi, 1},
            {TF_PARAM_BEND_POISSON, &d->bend_poisson, 1},
            {TF_PARAM_SHEAR_STIFFNESS, &d->shear_stiffness, 1},
            {TF_PARAM_BEND_SPRING_STIFFNESS, &d->bend_spring_stiffness, 1}};
  for (size_t k = 0; k < sizeof ps / sizeof ps[0]; ++k)
    if (!param_check(ps[k].p, ps[k].v, ps[k].c, err, errn)) return TF_E_INVALID_ARG;
  if (d->bend_model != TF_BEND_SHELL && d->bend_model != TF_BEND_HINGE)
    return ERR("bend_model %d is not a tf_bend_model", (int)d->bend_model), TF_E_INVALID_ARG;
  if (d->integrator != TF_INTEGRATOR_TAU && d->integrator != TF_INTEGRATOR_STRAIN_RATE)
    return ERR("integrator %d is not a tf_integrator", (int)d->integrator), TF_E_INVALID_ARG;
  if (d->cloth_model != TF_CLOTH_MEMBRANE && d->cloth_model != TF_CLOTH_SPRINGS)
    return ERR("cloth_model %d is not a tf_cloth_model", (int)d->cloth_model), TF_E_INVALID_ARG;
  /* a field of the other model set away from its default is a mistake, not a setting to ignore */
  tf_cloth_def dflt;
  tf_cloth_def_init(&dflt);
  if (d->cloth_model == TF_CLOTH_SPRINGS) {
    const char *set = d->poisson != dflt.poisson                 ? "poisson"
                      : d->bend_stiffness != dflt.bend_stiffness ? "bend_stiffness"
                      : d->bend_poisson != dflt.bend_poisson     ? "bend_poisson"
                      : d->bend_model != dflt.bend_model         ? "bend_model"
                                                                 : NULL;
    if (set)
      return ERR("%s does not apply to spring cloth (cloth_model TF_CLOTH_SPRINGS: stretch, shear "
                 "and bend_spring stiffness)",
                 set),
             TF_E_INVALID_ARG;
  } else if (d->shear_stiffness != dflt.shear_stiffness ||
             d->bend_spring_stiffness != dflt.bend_spring_stiffness) {
    return ERR("%s applies to spring cloth only (cloth_model TF_CLOTH_SPRINGS)",
               d->shear_stiffness != dflt.shear_stiffness ? "shear_stiffness"
                                                          : "bend_spring_stiffness"),
           TF_E_INVALID_ARG;
  }
  /* the strain-rate baseline damps the membrane's strain rate (Young 2007 ch. 4): springs have
   * none */
  if (d->cloth_model == TF_CLOTH_SPRINGS && d->integrator != TF_INTEGRATOR_TAU)
    return ERR("cloth_model TF_CLOTH_SPRINGS needs the tau integrator (the strain-rate integrator "
               "damps a membrane)"),
           TF_E_INVALID_ARG;
  if (!api_check_solver(&d->solver, err, errn)) return TF_E_INVALID_ARG;
  if (!api_check_threads(d->threads, err, errn)) return TF_E_INVALID_ARG;
  if ((d->allocator.alloc == NULL) != (d->allocator.free == NULL))
    return ERR("allocator: give both alloc and free, or neither"), TF_E_INVALID_ARG;
  return TF_OK;
}

tf_status tf_cloth_create(const tf_cloth_def *def, tf_sim **out_sim, char *errbuf,
                          size_t errbuf_size) {
  char local[SIM_ERR_SIZE];
  char *err = errbuf && errbuf_size ? errbuf : local;
  size_t errn = errbuf && errbuf_size ? errbuf_size : sizeof local;
  err[0] = '\0';
  if (out_sim) *out_sim = NULL;
  if (!out_sim) return ERR("tf_cloth_create: out_sim is NULL"), TF_E_INVALID_ARG;
  /* read the fields the host knows, default the rest */
  tf_cloth_def d;
  tf_cloth_def_init(&d);
  tf_status st;
  size_t n =
      api_def_take("tf_cloth_create", "tf_cloth_def_init", def, &d, sizeof d, err, errn, &st);
  if (!n) return st;
  /* a host built against a header before 1.7 keeps the bending it was built with */
  if (n < offsetof(tf_cloth_def, bend_model) + sizeof d.bend_model) d.bend_model = TF_BEND_HINGE;
  /* and the one thread it ran on */
  if (n < offsetof(tf_cloth_def, threads) + sizeof d.threads) d.threads = 1;
  /* cloth_model sits in what was 1.10's tail padding: only a def that reaches the 1.11 fields
   * after it says which model it wants */
  if (n < offsetof(tf_cloth_def, bend_spring_stiffness) + sizeof d.bend_spring_stiffness)
    d.cloth_model = TF_CLOTH_MEMBRANE;
  d.struct_size = sizeof d;
  st = validate_def(&d, err, errn);
  if (st != TF_OK) return st;
  return sim_create_cloth(&d, out_sim, err, errn);
}
