/* SPDX-License-Identifier: MIT
 * Regression tests for what the fuzzers found outside the parsers (issue 14), run by
 * tf_fuzz_findings under ctest and, in the sanitizer build, by .ci/fuzz (UBSan with
 * float-cast-overflow). */
#include <math.h>
#include <string.h>

#include "tauform.h"
#include "tf_test.h"

/* Turbulence with a tiny turbulence_scale: position / scale was inf (or beyond int64) and its
 * lattice index a float-to-integer conversion out of range (UBSan). Now such scales are refused by
 * the parameter table's bounds, and at the smallest accepted scale and time a sheet far from the
 * origin (position / scale ~ 1e13) still gets a finite wind and its frame succeeds. */
TF_TEST(fuzz_wind_turbulence_tiny_scale) {
  const double far = 1e9;
  double pos[12] = {far, far, 0, far + 1, far, 0, far, far + 1, 0, far + 1, far + 1, 0};
  uint32_t tris[6] = {0, 1, 3, 0, 3, 2};
  tf_cloth_def d;
  tf_cloth_def_init(&d);
  d.rest_positions = pos, d.vert_count = 4, d.triangles = tris, d.tri_count = 2;
  tf_sim *sim = NULL;
  char err[256];
  ENSURE_MSG(tf_cloth_create(&d, &sim, err, sizeof err) == TF_OK, "%s", err);
  const double air = 1.225, turb = 2.0, tiny[3] = {1e-300, 5e-324, 1e-30};
  ENSURE(tf_sim_set_param(sim, TF_PARAM_AIR_DENSITY, &air, 1) == TF_OK);
  ENSURE(tf_sim_set_param(sim, TF_PARAM_TURBULENCE, &turb, 1) == TF_OK);
  for (int k = 0; k < 3; ++k) {
    ENSURE(tf_sim_set_param(sim, TF_PARAM_TURBULENCE_SCALE, &tiny[k], 1) == TF_E_INVALID_ARG);
    ENSURE_MSG(strstr(tf_sim_last_error(sim), "turbulence_scale"), "%s", tf_sim_last_error(sim));
  }
  tf_param_info in = {.struct_size = sizeof in};
  ENSURE(tf_param_get_info(TF_PARAM_TURBULENCE_SCALE, &in) == TF_OK);
  ENSURE(tf_sim_set_param(sim, TF_PARAM_TURBULENCE_SCALE, &in.lo, 1) == TF_OK);
  ENSURE(tf_param_get_info(TF_PARAM_TURBULENCE_TIME, &in) == TF_OK);
  ENSURE(tf_sim_set_param(sim, TF_PARAM_TURBULENCE_TIME, &in.lo, 1) == TF_OK);
  for (int frame = 0; frame < 3; ++frame) {
    ENSURE_MSG(tf_sim_advance(sim, 1.0 / 24.0, 2) == TF_OK, "%s", tf_sim_last_error(sim));
    double x[12];
    ENSURE(tf_sim_get_positions(sim, x, 4) == TF_OK);
    for (int i = 0; i < 12; ++i) ENSURE(isfinite(x[i]));
  }
  tf_sim_destroy(sim);
}
