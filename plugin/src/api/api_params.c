/* SPDX-License-Identifier: MIT
 * The parameter table (see api_params.h). */
#include "api/api_params.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define OFF(field) offsetof(sim_params, field)

#define C TF_PARAM_FOR_CLOTH
#define F TF_PARAM_FOR_FLESH
#define D1(x) \
  { x, 0, 0 }

/* name, offset, count, lo, hi, lo_open, hi_open, integer, unit, short name, kinds, keyable,
 * default, doc.
 *
 * The bounds are physical (issue 14: a finite but absurd value, gravity 1e200 or air density
 * 1e300, used to be accepted and gave a frozen cloth "converged" with residual 0, or 1e52 m with
 * TF_OK). Each cap is far above anything a shot needs and far below where the step's arithmetic
 * loses meaning (forces ~ m g, rho c A u^2, k x must stay well inside double range, and the
 * objective's terms comparable enough for the line search to resolve a decrease):
 *   tau <= 1e6 s (11.6 days to settle: longer than any shot; the step's h^2 = tau dt / a);
 *   bend <= 1e3 N m (a 4 mm steel plate, D = E t^3 / 12(1 - nu^2) = 1.2e3 N m: not cloth);
 *   |gravity| <= 1e4 m/s^2 per component (1000 g; a centrifuge's range);
 *   stretch <= 1e9 N/m (E t of 5 mm steel, 2e11 Pa x 5e-3 m), and so the spring cloth's shear and
 *     bend families (on a square grid a family's k is the sheet's modulus along it);
 *   pin_stiffness <= 1e12 1/s^2 (a pin rate of 1e6 rad/s; the soft pins are implicit, so this is
 *     only conditioning: M/h^2 + k stays within 1e12 of M/h^2 at 24 fps);
 *   phi, psi <= 1e9 N s/m (the largest stretch damped on a 1 s scale);
 *   |wind| <= 1e3 m/s per component (Mach 3; the quasi-steady drag and lift are subsonic models);
 *   air_density <= 1e4 kg/m^3 (10x water; the drag model is for fluids far lighter than that);
 *   drag, lift <= 100 (measured coefficients stay below ~2.5; 40x for artistic exaggeration);
 *   turbulence <= 1e3 m/s (as the wind);
 *   turbulence_scale, turbulence_time, gust_period >= 1e-4 (m, s): the noise lattice index
 *     x / scale, t / time is cast to int64 (wind.c): with |t| <= 1e9 s and positions below 9e14 m
 *     it stays below 9.2e18; eddies below 0.1 mm are below any cloth element anyway. <= 1e6 (m, s):
 *     a larger eddy or slower change is a constant wind;
 *   gust <= 100 (gusts of 101x the base wind);
 *   youngs_modulus <= 1e12 Pa (diamond, 1.05e12 Pa);
 *   bend_poisson in [-0.9, 0.5]: an isotropic plate's range is (-1, 0.5]; at -1 a twist would
 *     cost 4x a bend and the energy loses its meaning. */
static const param_desc PARAMS[TF_PARAM_COUNT_] = {
    [TF_PARAM_TAU] = {"tau", OFF(tau), 1, 0, 1e6, 1, 0, 0, "s", "tau", C | F, 1, D1(0.1),
                      "time scale of settling: every mode comes to rest in about tau (Young 2007)"},
    [TF_PARAM_KAPPA] = {"kappa", OFF(kappa), 1, 0, 1, 0, 0, 0, "", "kappa", C | F, 1, D1(0),
                        "share of momentum kept: 0 pure tau (no bounce), 1 undamped"},
    [TF_PARAM_BEND_STIFFNESS] = {"bend_stiffness", OFF(bend), 1, 0, 1e3, 0, 0, 0, "N m", "bend", C,
                                 1, D1(1e-5), "flexural rigidity of the cloth"},
    [TF_PARAM_GRAVITY] = {"gravity",
                          OFF(gravity),
                          3,
                          -1e4,
                          1e4,
                          0,
                          0,
                          0,
                          "m/s^2",
                          "gravity",
                          C | F,
                          1,
                          {0, 0, -9.81},
                          "gravity acceleration"},
    [TF_PARAM_STRETCH_STIFFNESS] = {"stretch_stiffness", OFF(stretch), 1, 0, 1e9, 1, 0, 0, "N/m",
                                    "stretch", C, 1, D1(1000),
                                    "2D Young's modulus of the membrane (E x thickness)"},
    [TF_PARAM_POISSON] = {"poisson", OFF(poisson), 1, -1, 1, 1, 1, 0, "", "poisson", C | F, 1,
                          D1(0.3),
                          "Poisson ratio (cloth default 0.3; flesh below 0.5, default 0.45)"},
    [TF_PARAM_PIN_STIFFNESS] = {"pin_stiffness", OFF(pin_stiffness), 1, 0, 1e12, 1, 0, 0, "1/s^2",
                                "pin_stiffness", C | F, 1, D1(1000),
                                "soft pins pull with pin_stiffness w/(1-w) x distance"},
    [TF_PARAM_PHI] = {"phi", OFF(phi), 1, 0, 1e9, 0, 0, 0, "N s/m", "phi", C, 1, D1(0),
                      "volumetric strain-rate damping (strain-rate integrator only)"},
    [TF_PARAM_PSI] = {"psi", OFF(psi), 1, 0, 1e9, 0, 0, 0, "N s/m", "psi", C, 1, D1(0),
                      "shear strain-rate damping (strain-rate integrator only)"},
    [TF_PARAM_WIND] = {"wind",
                       OFF(wind),
                       3,
                       -1e3,
                       1e3,
                       0,
                       0,
                       0,
                       "m/s",
                       "wind",
                       C | F,
                       1,
                       {0, 0, 0},
                       "base wind velocity"},
    [TF_PARAM_AIR_DENSITY] = {"air_density", OFF(air_density), 1, 0, 1e4, 0, 0, 0, "kg/m^3",
                              "air_density", C | F, 1, D1(0),
                              "0 = no air; 1.225 = air at sea level"},
    [TF_PARAM_DRAG] = {"drag", OFF(drag), 1, 0, 100, 0, 0, 0, "", "drag", C | F, 1, D1(1.2),
                       "drag coefficient (1.2: flat plate)"},
    [TF_PARAM_LIFT] = {"lift", OFF(lift), 1, 0, 100, 0, 0, 0, "", "lift", C | F, 1, D1(0.6),
                       "lift coefficient"},
    [TF_PARAM_TURBULENCE] = {"turbulence", OFF(turbulence), 1, 0, 1e3, 0, 0, 0, "m/s", "turbulence",
                             C | F, 1, D1(0), "turbulence amplitude"},
    [TF_PARAM_TURBULENCE_SCALE] = {"turbulence_scale", OFF(turbulence_scale), 1, 1e-4, 1e6, 0, 0, 0,
                                   "m", "turbulence_scale", C | F, 1, D1(1), "size of the eddies"},
    [TF_PARAM_TURBULENCE_TIME] = {"turbulence_time", OFF(turbulence_time), 1, 1e-4, 1e6, 0, 0, 0,
                                  "s", "turbulence_time", C | F, 1, D1(0.5),
                                  "how fast the eddies change"},
    [TF_PARAM_TURBULENCE_SEED] = {"turbulence_seed", OFF(turbulence_seed), 1, 0, 4294967295.0, 0, 0,
                                  1, "", "turbulence_seed", C | F, 1, D1(0),
                                  "same seed, same wind"},
    [TF_PARAM_GUST] = {"gust", OFF(gust), 1, 0, 100, 0, 0, 0, "", "gust", C | F, 1, D1(0),
                       "gusts up to (1 + gust) x the base wind"},
    [TF_PARAM_GUST_PERIOD] = {"gust_period", OFF(gust_period), 1, 1e-4, 1e6, 0, 0, 0, "s",
                              "gust_period", C | F, 1, D1(3), "typical time between gusts"},
    [TF_PARAM_YOUNGS_MODULUS] = {"youngs_modulus", OFF(youngs), 1, 0, 1e12, 1, 0, 0, "Pa", "youngs",
                                 F, 1, D1(50e3), "Young's modulus of the flesh base material"},
    /* the noise needs |t| in range */
    [TF_PARAM_TIME] = {"time", OFF(time), 1, -1e9, 1e9, 0, 0, 0, "s", "time", C | F, 0, D1(0),
                       "the simulation's clock, which turbulence and gusts follow"},
    /* contact: 0.1 m is a mattress, not a garment; below 1e-5 m the barrier's gap is below what
     * the CCD's floating point resolves on a metre-sized scene */
    [TF_PARAM_THICKNESS] =
        {"thickness", OFF(thickness), 1, 1e-5, 0.1, 0, 0, 0, "m", "thickness", C | F, 1, D1(0.002),
         "contact thickness of the cloth or skin (the gap to a collider adds the collider's)"},
    [TF_PARAM_FRICTION] = {"friction", OFF(friction), 1, 0, 10, 0, 0, 0, "", "friction", C | F, 1,
                           D1(0.3),
                           "friction coefficient; a contact's is sqrt(mine x the other's)"},
    [TF_PARAM_GROUND_NORMAL] = {"ground_normal",
                                OFF(ground_normal),
                                3,
                                -1,
                                1,
                                0,
                                0,
                                0,
                                "",
                                "ground_normal",
                                C | F,
                                1,
                                {0, 0, 0},
                                "upward normal of the ground plane (normalized); 0 0 0: no ground"},
    [TF_PARAM_GROUND_HEIGHT] = {"ground_height", OFF(ground_height), 1, -1e4, 1e4, 0, 0, 0, "m",
                                "ground_height", C | F, 1, D1(0),
                                "the ground is the plane normal . x = height"},
    [TF_PARAM_GROUND_FRICTION] = {"ground_friction", OFF(ground_friction), 1, 0, 10, 0, 0, 0, "",
                                  "ground_friction", C | F, 1, D1(0.5),
                                  "friction coefficient of the ground"},
    [TF_PARAM_SELF_CONTACT] = {"self_contact", OFF(self_contact), 1, 0, 1, 0, 0, 1, "",
                               "self_contact", C | F, 1, D1(0),
                               "1: the surface's own layers never pass through each other"},
    [TF_PARAM_BEND_POISSON] = {"bend_poisson", OFF(bend_poisson), 1, -0.9, 0.5, 0, 0, 0, "",
                               "bend_poisson", C, 1, D1(0),
                               "bending Poisson ratio of the shell bending (a twist costs 2 (1 - "
                               "nu) x a bend); 0 for woven fabric"},
    [TF_PARAM_SHEAR_STIFFNESS] = {"shear_stiffness", OFF(shear), 1, 0, 1e9, 0, 0, 0, "N/m", "shear",
                                  C, 1, D1(400),
                                  "spring cloth: stiffness of the shear springs (the diagonals)"},
    [TF_PARAM_BEND_SPRING_STIFFNESS] = {"bend_spring_stiffness", OFF(bend_springs), 1, 0, 1e9, 0, 0,
                                        0, "N/m", "bend_springs", C, 1, D1(10),
                                        "spring cloth: stiffness of the bend (skip-one) springs"},
    [TF_PARAM_PLASTIC_YIELD] = {"plastic_yield", OFF(plastic_yield), 1, 0, 10, 1, 0, 0, "",
                                "plastic_yield", C | F, 1, D1(0.1),
                                "elastic limit: the strain past which the rest shape yields (a "
                                "spring's or a triangle's stretch, a tet's equivalent strain)"},
    [TF_PARAM_PLASTIC_LIMIT] = {"plastic_limit", OFF(plastic_limit), 1, 0, 0.9, 0, 0, 0, "",
                                "plastic_limit", C | F, 1, D1(0),
                                "plastic limit: how far the rest shape may move from the rest "
                                "mesh's, as a strain; 0 = no plasticity"},
    [TF_PARAM_PLASTIC_TIME] = {"plastic_time", OFF(plastic_time), 1, 0, 1e6, 0, 0, 0, "s",
                               "plastic_time", C | F, 1, D1(0),
                               "time scale of every yield (1 - exp(-t/T)); 0 = at once"},
    [TF_PARAM_BEND_YIELD] = {"bend_yield", OFF(bend_yield), 1, 0, 1e6, 1, 0, 0, "1/m", "bend_yield",
                             C, 1, D1(10),
                             "bending: the change of curvature past which the rest "
                             "curvature yields (a crease forms)"},
    [TF_PARAM_BEND_PLASTIC_LIMIT] = {"bend_plastic_limit", OFF(bend_plastic_limit), 1, 0, 1e6, 0, 0,
                                     0, "1/m", "bend_plastic_limit", C, 1, D1(0),
                                     "bending: how far the rest curvature may move from the "
                                     "rest mesh's; 0 = elastic"},
    [TF_PARAM_TEAR_STRAIN] = {"tear_strain", OFF(tear_strain), 1, 0, 10, 0, 0, 0, "", "tear_strain",
                              C, 1, D1(0),
                              "tearing: the strain past which an edge breaks and the cloth splits "
                              "there; 0 = never"},
};

#undef C
#undef F
#undef D1

const param_desc *param_find(tf_param p) {
  return (unsigned)p < TF_PARAM_COUNT_ ? &PARAMS[p] : NULL;
}

double *param_ptr(sim_params *sp, const param_desc *d) {
  return (double *)((char *)sp + d->offset);
}

tf_status tf_param_get_info(tf_param p, tf_param_info *out) {
  const param_desc *d = param_find(p);
  if (!d || !out) return TF_E_INVALID_ARG;
  if (out->struct_size == 0) return TF_E_DEF_INIT;
  tf_param_info info = {.struct_size = out->struct_size,
                        .name = d->name,
                        .short_name = d->short_name,
                        .unit = d->unit,
                        .doc = d->doc,
                        .count = d->count,
                        .kinds = d->kinds,
                        .lo = d->lo,
                        .hi = d->hi,
                        .lo_open = (uint32_t)d->lo_open,
                        .hi_open = (uint32_t)d->hi_open,
                        .integer = (uint32_t)d->integer,
                        .keyable = (uint32_t)d->keyable,
                        .default_values = {d->def[0], d->def[1], d->def[2]}};
  memcpy(out, &info, out->struct_size < sizeof info ? out->struct_size : sizeof info);
  return TF_OK;
}

/* a bound as written in the table: powers of ten from 1e3 up as "1e3", else %g */
static void fmt_bound(char *buf, size_t n, double x) {
  double a = fabs(x), e = a > 0.0 ? round(log10(a)) : 0.0;
  if (a >= 1e3 && a < 1e300 && pow(10.0, e) == a)
    snprintf(buf, n, "%s1e%d", x < 0 ? "-" : "", (int)e);
  else
    snprintf(buf, n, "%g", x);
}

int param_check(tf_param p, const double *v, uint32_t count, char *err, size_t n) {
  const param_desc *d = param_find(p);
  if (!d) return snprintf(err, n, "unknown parameter id %d", (int)p), 0;
  if (!v) return snprintf(err, n, "%s: values is NULL", d->name), 0;
  if (count != d->count)
    return snprintf(err, n, "%s takes %u value%s, got %u", d->name, d->count,
                    d->count > 1 ? "s" : "", count),
           0;
  for (uint32_t k = 0; k < count; ++k) {
    double x = v[k];
    if (!isfinite(x)) return snprintf(err, n, "%s must be finite, got %g", d->name, x), 0;
    int below = d->lo_open ? !(x > d->lo) : !(x >= d->lo);
    int above = d->hi_open ? !(x < d->hi) : !(x <= d->hi);
    if (below || above) {
      const char *u = d->unit[0] ? " " : "";
      char lo[32], hi[32];
      fmt_bound(lo, sizeof lo, d->lo);
      fmt_bound(hi, sizeof hi, d->hi);
      /* a magnitude given a wrong sign is told its sign ("tau must be > 0 s"); the range is given
       * when it is exceeded, and for a bounded interval (kappa, poisson) or a two-sided one */
      if (isinf(d->hi) || (below && d->lo == 0.0 && d->hi > 1.0))
        return snprintf(err, n, "%s must be %s %s%s%s, got %g", d->name,
                        d->lo_open ? ">" : ">=", lo, u, d->unit, x),
               0;
      return snprintf(err, n, "%s must be in %c%s, %s%c%s%s, got %g", d->name,
                      d->lo_open ? '(' : '[', lo, hi, d->hi_open ? ')' : ']', u, d->unit, x),
             0;
    }
    if (d->integer && x != floor(x))
      return snprintf(err, n, "%s must be a whole number, got %g", d->name, x), 0;
  }
  return 1;
}
