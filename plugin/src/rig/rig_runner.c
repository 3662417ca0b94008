/* SPDX-License-Identifier: MIT
 * The rig runner behind tf_rig_*: a Lua 5.4 state of its own per rig, with the same binding and
 * pure-Lua layer as the Lua module, so a rig gives the same frames here as under lua5.4. Script
 * errors come back as "file:line: message"; a failed apply restores the parameters and pin targets
 * it may have set. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/lua_tauform.h"
#include "rig/rig_entry.h"

#define RUNNER_ERR_SIZE 1024

struct tf_rig_impl {
  lua_State *L;
  int rig_ref, sim_ref;
  tf_sim *sim;
  double first, last, fps;
  uint32_t substeps, pin_count;
  double *pin_save; /* (pin_count x 3) targets before an apply */
  char err[RUNNER_ERR_SIZE];
};

/* loads the rig (from a file or source text) and creates its simulation */
static const char LOAD_CHUNK[] =
    "local tauform, path, source, name = ...\n"
    "local spec = path\n"
    "if source then\n"
    "  local f, err = load(source, '@' .. name, 't')\n"
    "  if not f then error(err, 0) end\n"
    "  spec = f()\n"
    "end\n"
    "local rig = tauform.rig.load(spec, { name = source and name or nil })\n"
    "local sim = rig:create()\n"
    "return rig, sim, rig.frames[1], rig.frames[2], rig.fps, rig.substeps, rig.pin_count or 0\n";

static const char APPLY_CHUNK[] = "local rig, sim, frame = ...\nrig:apply(sim, frame)\n";

/* luaL_openlibs + require "tauform" (built-in modules only), run under lua_pcall */
static int open_state(lua_State *L) {
  luaL_openlibs(L);
  luaL_requiref(L, "tauform", tf_luaopen_tauform_builtin, 0);
  return 1;
}

static void runner_destroy(tf_rig_impl *r) {
  if (!r) return;
  if (r->L) lua_close(r->L); /* collects the simulation userdata: tf_sim_destroy */
  free(r->pin_save);
  free(r);
}

static tf_status runner_load(const tf_rig_def *def, tf_rig_impl **out, char *err, size_t n) {
  tf_rig_impl *r = calloc(1, sizeof *r);
  if (!r) return snprintf(err, n, "tf_rig_load: out of memory"), TF_E_NOMEM;
  r->rig_ref = r->sim_ref = LUA_NOREF;
  lua_State *L = r->L = luaL_newstate();
  if (!L) {
    free(r);
    return snprintf(err, n, "tf_rig_load: out of memory creating the Lua state"), TF_E_NOMEM;
  }
  /* standard libraries and the built-in tauform layer, protected: an error here must not abort */
  lua_pushcfunction(L, open_state);
  if (lua_pcall(L, 0, 1, 0) != LUA_OK ||
      luaL_loadbufferx(L, LOAD_CHUNK, sizeof LOAD_CHUNK - 1, "=tf_rig_load", "t") != LUA_OK) {
    snprintf(err, n, "tf_rig_load: %s", lua_tostring(L, -1));
    runner_destroy(r);
    return TF_E_SCRIPT;
  }
  lua_insert(L, -2); /* chunk, tauform */
  lua_pushstring(L, def->source ? NULL : def->path);
  lua_pushstring(L, def->source);
  lua_pushstring(L, def->name ? def->name : "rig");
  if (lua_pcall(L, 4, 7, 0) != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    snprintf(err, n, "%s", msg ? msg : "rig error (not a string)");
    runner_destroy(r);
    return TF_E_SCRIPT;
  }
  r->pin_count = (uint32_t)lua_tointeger(L, -1);
  r->substeps = (uint32_t)lua_tointeger(L, -2);
  r->fps = lua_tonumber(L, -3);
  r->last = lua_tonumber(L, -4);
  r->first = lua_tonumber(L, -5);
  r->sim = tf_lua_tosim(L, -6);
  if (r->sim) tf_lua_mark_host_owned(L, -6);
  lua_pop(L, 5);
  r->sim_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  r->rig_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  r->pin_save = calloc(3 * (size_t)(r->pin_count ? r->pin_count : 1), sizeof *r->pin_save);
  if (!r->sim || !r->pin_save) {
    runner_destroy(r);
    return snprintf(err, n, "tf_rig_load: the rig did not create a simulation"), TF_E_SCRIPT;
  }
  *out = r;
  return TF_OK;
}

static tf_status runner_apply(tf_rig_impl *r, double frame) {
  lua_State *L = r->L;
  /* what a failing script may have changed: every parameter and the pin targets */
  double params[TF_PARAM_COUNT_][3];
  for (int p = 0; p < TF_PARAM_COUNT_; ++p) tf_sim_get_param(r->sim, (tf_param)p, params[p], 3);
  int have_pins = tf_sim_get_pin_targets(r->sim, r->pin_save, r->pin_count) == TF_OK;
  luaL_loadbufferx(L, APPLY_CHUNK, sizeof APPLY_CHUNK - 1, "=tf_rig_apply", "t");
  lua_rawgeti(L, LUA_REGISTRYINDEX, r->rig_ref);
  lua_rawgeti(L, LUA_REGISTRYINDEX, r->sim_ref);
  lua_pushnumber(L, frame);
  if (lua_pcall(L, 3, 0, 0) == LUA_OK) return TF_OK;
  const char *msg = lua_tostring(L, -1);
  snprintf(r->err, sizeof r->err, "%s", msg ? msg : "rig error (not a string)");
  lua_pop(L, 1);
  for (int p = 0; p < TF_PARAM_COUNT_; ++p) {
    uint32_t count = (p == TF_PARAM_GRAVITY || p == TF_PARAM_WIND) ? 3u : 1u;
    /* bend: only if it changed, so a per-vertex map set before survives */
    double now[3];
    tf_sim_get_param(r->sim, (tf_param)p, now, 3);
    if (memcmp(now, params[p], count * sizeof(double)) != 0)
      tf_sim_set_param(r->sim, (tf_param)p, params[p], count);
  }
  if (have_pins) tf_sim_set_pin_targets(r->sim, r->pin_save, r->pin_count);
  return TF_E_SCRIPT;
}

static tf_sim *runner_sim(tf_rig_impl *r) { return r->sim; }

static void runner_timing(const tf_rig_impl *r, double *first, double *last, double *fps,
                          uint32_t *substeps) {
  *first = r->first;
  *last = r->last;
  *fps = r->fps;
  *substeps = r->substeps;
}

static const char *runner_last_error(const tf_rig_impl *r) { return r->err; }

static const tf_rig_vtable VTABLE = {TF_RIG_ENTRY_VERSION, TF_VERSION,       runner_load,
                                     runner_destroy,       runner_sim,       runner_apply,
                                     runner_timing,        runner_last_error};

__attribute__((visibility("default"))) const tf_rig_vtable *tauform_rig_entry(void);
const tf_rig_vtable *tauform_rig_entry(void) { return &VTABLE; }
