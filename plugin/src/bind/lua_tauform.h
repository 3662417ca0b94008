/* SPDX-License-Identifier: MIT
 * The Lua binding's entry, shared by the Lua module (plugin/src/bind/lua_module.c) and the rig
 * runner: both link the same binding, each against its own Lua core. */
#ifndef TF_BIND_LUA_TAUFORM_H
#define TF_BIND_LUA_TAUFORM_H

#include <lua.h>

#include "tauform.h"

/* pushes the `tauform.core` table */
int tf_luaopen_core(lua_State *L);
/* registers tauform.core and the embedded pure-Lua modules (lua/tauform/ files, built in) in
 * package.preload, then requires "tauform" and returns it */
int tf_luaopen_tauform(lua_State *L);
/* the simulation of a tauform.sim userdata at idx, NULL if it is not one or is closed */
tf_sim *tf_lua_tosim(lua_State *L, int idx);
/* the sim userdata at idx belongs to a C host: close() from Lua refuses (only collection frees it)
 */
void tf_lua_mark_host_owned(lua_State *L, int idx);
/* tf_luaopen_tauform, but always the built-in pure-Lua modules (never ones found on package.path):
 * the rig runner's state must use the layer it was built with */
int tf_luaopen_tauform_builtin(lua_State *L);

#endif
