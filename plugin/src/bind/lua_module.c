/* SPDX-License-Identifier: MIT
 * The Lua module `tauform.so` for stock lua5.4: a thin library beside libtauform.so. Its Lua API
 * references stay undefined and bind to the interpreter's own Lua core at load (Debian's lua5.4
 * exports it), so no second Lua core enters the process; libtauform.so provides the tf_* ABI.
 * (libtauform.so is not the module itself so that it never depends on a Lua library: the rig
 * runner for C hosts, libtauform_rig.so, brings the system's Lua core only where rigs run from C.)
 */
#include "bind/lua_tauform.h"

#define TF_LUA_EXPORT __attribute__((visibility("default")))

TF_LUA_EXPORT int luaopen_tauform(lua_State *L);
TF_LUA_EXPORT int luaopen_tauform_core(lua_State *L);

int luaopen_tauform(lua_State *L) { return tf_luaopen_tauform(L); }
int luaopen_tauform_core(lua_State *L) { return tf_luaopen_core(L); }
