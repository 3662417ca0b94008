/* SPDX-License-Identifier: MIT
 * Rig scripts through the C ABI (tf_rig_*), as a host that knows no Lua uses them: parameters
 * keyed by the rig reach the simulation, a script error comes back as TF_E_SCRIPT with file:line
 * and leaves the simulation as it was, and the host keeps running. Linked against the shared
 * library, so the rig runner is found next to it as in a real host. */
#include <string.h>

#include "tf_test.h"
#include "tauform.h"

static const char RIG[] =
    "local tauform = require 'tauform'\n"
    "local m = tauform.mesh.grid{ nx = 6, ny = 6, origin = {0, 0, 1}, u = {1, 0, 0}, v = {0, 0, "
    "-1} }\n"
    "return {\n"
    "  mesh = m, fps = 24, frames = {1, 30}, substeps = 2,\n"
    "  tau = tauform.key{ {1, 0.5, interp = 'linear'}, {11, 1.5} },\n"
    "  pins = { { group = 'row0', translate = tauform.key{ {1, {0, 0, 0}, interp = 'linear'}, {11, "
    "{0, 1, 0}} } } },\n"
    "  frame = function(f, sim)\n"
    "    if f == 7 then error('the rig fails at frame 7') end\n"
    "  end,\n"
    "}\n";

static tf_rig *load(const char *source, const char *name, char *err, size_t n, tf_status *st) {
  tf_rig_def def;
  tf_rig_def_init(&def);
  def.source = source;
  def.name = name;
  tf_rig *rig = NULL;
  *st = tf_rig_load(&def, &rig, err, n);
  return rig;
}

TF_TEST(rig_c_host_applies_keys) {
  char err[1024];
  tf_status st;
  tf_rig *rig = load(RIG, "keys.lua", err, sizeof err, &st);
  ENSURE_MSG(st == TF_OK, "%s", err);
  double first, last, fps;
  uint32_t sub;
  ENSURE(tf_rig_timing(rig, &first, &last, &fps, &sub) == TF_OK);
  ENSURE(first == 1 && last == 30 && fps == 24 && sub == 2);
  tf_sim *sim = tf_rig_sim(rig);
  ENSURE(sim && tf_sim_vert_count(sim) == 49);
  ENSURE(tf_rig_apply(rig, 6) == TF_OK);
  double tau = 0, t[7 * 3];
  tf_sim_get_param(sim, TF_PARAM_TAU, &tau, 1);
  ENSURE_NEAR(tau, 1.0, 1e-12);
  ENSURE(tf_sim_get_pin_targets(sim, t, 7) == TF_OK);
  ENSURE_NEAR(t[1], 0.5, 1e-12); /* row0 moved half way at frame 6 */
  ENSURE(tf_sim_advance(sim, 1.0 / 24, 2) == TF_OK);
  tf_rig_destroy(rig);
  tf_rig_destroy(NULL);
}

TF_TEST(rig_c_host_script_error_keeps_sim) {
  char err[1024];
  tf_status st;
  tf_rig *rig = load(RIG, "keys.lua", err, sizeof err, &st);
  ENSURE_MSG(st == TF_OK, "%s", err);
  tf_sim *sim = tf_rig_sim(rig);
  ENSURE(tf_rig_apply(rig, 6) == TF_OK);
  double tau6, t6[21], tau, t[21];
  tf_sim_get_param(sim, TF_PARAM_TAU, &tau6, 1);
  tf_sim_get_pin_targets(sim, t6, 7);
  /* frame 7's hook raises: file:line, status, and the frame-6 values stay */
  ENSURE(tf_rig_apply(rig, 7) == TF_E_SCRIPT);
  TF_NOTE("rig error: %s", tf_rig_last_error(rig));
  ENSURE(strstr(tf_rig_last_error(rig), "keys.lua:8: the rig fails at frame 7"));
  tf_sim_get_param(sim, TF_PARAM_TAU, &tau, 1);
  tf_sim_get_pin_targets(sim, t, 7);
  ENSURE(tau == tau6 && memcmp(t, t6, sizeof t) == 0);
  /* the host keeps running */
  ENSURE(tf_sim_advance(sim, 1.0 / 24, 2) == TF_OK);
  ENSURE(tf_rig_apply(rig, 8) == TF_OK);
  ENSURE(strcmp(tf_rig_last_error(rig), "") == 0);
  tf_rig_destroy(rig);
}

TF_TEST(rig_c_host_load_errors) {
  char err[1024];
  tf_status st;
  tf_rig *rig = load("return {\n mesh = 3,\n", "broken.lua", err, sizeof err, &st);
  ENSURE(rig == NULL && st == TF_E_SCRIPT);
  TF_NOTE("syntax error: %s", err);
  ENSURE(strstr(err, "broken.lua:3:"));
  rig = load("return { mesh = 3 }", "bad_mesh.lua", err, sizeof err, &st);
  ENSURE(rig == NULL && st == TF_E_SCRIPT);
  ENSURE(strstr(err, "bad_mesh.lua: field 'mesh' must be"));
  tf_rig_def def;
  tf_rig_def_init(&def);
  def.path = "/nonexistent/rig.lua";
  ENSURE(tf_rig_load(&def, &rig, err, sizeof err) == TF_E_SCRIPT);
  ENSURE(strstr(err, "/nonexistent/rig.lua"));
  def.path = NULL;
  ENSURE(tf_rig_load(&def, &rig, err, sizeof err) == TF_E_INVALID_ARG);
  def.struct_size = 0;
  ENSURE(tf_rig_load(&def, &rig, err, sizeof err) == TF_E_DEF_INIT);
}

TF_TEST(rig_c_host_owns_its_simulation) {
  /* a rig cannot close the host's simulation; a failed apply restores keyed wind too */
  static const char SRC[] =
      "local tauform = require 'tauform'\n"
      "return { mesh = tauform.mesh.grid{ nx = 4, ny = 4 }, frames = {1, 20},\n"
      "  wind = { velocity = tauform.key{ {1, {0, 0, 0}, interp = 'linear'}, {11, {10, 10, 10}} } "
      "},\n"
      "  pins = { { group = 'row0' } },\n"
      "  frame = function(f, sim) if f == 5 then sim:close() end end }\n";
  char err[1024];
  tf_status st;
  tf_rig *rig = load(SRC, "owner.lua", err, sizeof err, &st);
  ENSURE_MSG(st == TF_OK, "%s", err);
  tf_sim *sim = tf_rig_sim(rig);
  ENSURE(tf_rig_apply(rig, 4) == TF_OK);
  double w4[3], w[3];
  tf_sim_get_param(sim, TF_PARAM_WIND, w4, 3);
  ENSURE(tf_rig_apply(rig, 5) == TF_E_SCRIPT);
  TF_NOTE("rig error: %s", tf_rig_last_error(rig));
  ENSURE(strstr(tf_rig_last_error(rig), "belongs to the host"));
  tf_sim_get_param(sim, TF_PARAM_WIND, w, 3);
  ENSURE(memcmp(w, w4, sizeof w) == 0);
  ENSURE(tf_sim_advance(sim, 1.0 / 24, 1) == TF_OK); /* still alive */
  tf_rig_destroy(rig);
}
