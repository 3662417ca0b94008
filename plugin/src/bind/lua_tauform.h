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

#endif
