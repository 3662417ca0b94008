/* SPDX-License-Identifier: MIT
 * The parameter table (see api_params.h). */
#include "api/api_params.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

#define OFF(field) offsetof(sim_params, field)
#define NO_HI INFINITY
#define NO_LO (-INFINITY)

static const param_desc PARAMS[TF_PARAM_COUNT_] = {
    [TF_PARAM_TAU] = {"tau", OFF(tau), 1, 0, NO_HI, 1, 0, 0, "s"},
    [TF_PARAM_KAPPA] = {"kappa", OFF(kappa), 1, 0, 1, 0, 0, 0, ""},
    [TF_PARAM_BEND_STIFFNESS] = {"bend_stiffness", OFF(bend), 1, 0, NO_HI, 0, 0, 0, "N m"},
    [TF_PARAM_GRAVITY] = {"gravity", OFF(gravity), 3, NO_LO, NO_HI, 0, 0, 0, "m/s^2"},
    [TF_PARAM_STRETCH_STIFFNESS] = {"stretch_stiffness", OFF(stretch), 1, 0, NO_HI, 1, 0, 0, "N/m"},
    [TF_PARAM_POISSON] = {"poisson", OFF(poisson), 1, -1, 1, 1, 1, 0, ""},
    [TF_PARAM_PIN_STIFFNESS] = {"pin_stiffness", OFF(pin_stiffness), 1, 0, NO_HI, 1, 0, 0, "1/s^2"},
    [TF_PARAM_PHI] = {"phi", OFF(phi), 1, 0, NO_HI, 0, 0, 0, "N s/m"},
    [TF_PARAM_PSI] = {"psi", OFF(psi), 1, 0, NO_HI, 0, 0, 0, "N s/m"},
    [TF_PARAM_WIND] = {"wind", OFF(wind), 3, NO_LO, NO_HI, 0, 0, 0, "m/s"},
    [TF_PARAM_AIR_DENSITY] = {"air_density", OFF(air_density), 1, 0, NO_HI, 0, 0, 0, "kg/m^3"},
    [TF_PARAM_DRAG] = {"drag", OFF(drag), 1, 0, NO_HI, 0, 0, 0, ""},
    [TF_PARAM_LIFT] = {"lift", OFF(lift), 1, 0, NO_HI, 0, 0, 0, ""},
    [TF_PARAM_TURBULENCE] = {"turbulence", OFF(turbulence), 1, 0, NO_HI, 0, 0, 0, "m/s"},
    [TF_PARAM_TURBULENCE_SCALE] = {"turbulence_scale", OFF(turbulence_scale), 1, 0, NO_HI, 1, 0, 0, "m"},
    [TF_PARAM_TURBULENCE_TIME] = {"turbulence_time", OFF(turbulence_time), 1, 0, NO_HI, 1, 0, 0, "s"},
    [TF_PARAM_TURBULENCE_SEED] = {"turbulence_seed", OFF(turbulence_seed), 1, 0, 4294967295.0, 0, 0, 1, ""},
    [TF_PARAM_GUST] = {"gust", OFF(gust), 1, 0, NO_HI, 0, 0, 0, ""},
    [TF_PARAM_GUST_PERIOD] = {"gust_period", OFF(gust_period), 1, 0, NO_HI, 1, 0, 0, "s"},
    [TF_PARAM_YOUNGS_MODULUS] = {"youngs_modulus", OFF(youngs), 1, 0, NO_HI, 1, 0, 0, "Pa"},
    [TF_PARAM_TIME] = {"time", OFF(time), 1, -1e9, 1e9, 0, 0, 0, "s"}, /* the noise needs |t| in range */
};

const param_desc *param_find(tf_param p) { return (unsigned)p < TF_PARAM_COUNT_ ? &PARAMS[p] : NULL; }

double *param_ptr(sim_params *sp, const param_desc *d) { return (double *)((char *)sp + d->offset); }

int param_check(tf_param p, const double *v, uint32_t count, char *err, size_t n) {
  const param_desc *d = param_find(p);
  if (!d) return snprintf(err, n, "unknown parameter id %d", (int)p), 0;
  if (!v) return snprintf(err, n, "%s: values is NULL", d->name), 0;
  if (count != d->count)
    return snprintf(err, n, "%s takes %u value%s, got %u", d->name, d->count, d->count > 1 ? "s" : "", count), 0;
  for (uint32_t k = 0; k < count; ++k) {
    double x = v[k];
    if (!isfinite(x)) return snprintf(err, n, "%s must be finite, got %g", d->name, x), 0;
    int below = d->lo_open ? !(x > d->lo) : !(x >= d->lo);
    int above = d->hi_open ? !(x < d->hi) : !(x <= d->hi);
    if (below || above) {
      const char *u = d->unit[0] ? " " : "";
      if (isinf(d->hi))
        return snprintf(err, n, "%s must be %s %g%s%s, got %g", d->name, d->lo_open ? ">" : ">=", d->lo, u, d->unit, x), 0;
      return snprintf(err, n, "%s must be in %c%g, %g%c, got %g", d->name, d->lo_open ? '(' : '[', d->lo, d->hi,
                      d->hi_open ? ')' : ']', x), 0;
    }
    if (d->integer && x != floor(x)) return snprintf(err, n, "%s must be a whole number, got %g", d->name, x), 0;
  }
  return 1;
}
