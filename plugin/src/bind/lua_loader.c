/* SPDX-License-Identifier: MIT
 * `require "tauform"` from C: the binding goes into package.preload as tauform.core, and each
 * embedded pure-Lua module whose name is not already preloaded (or found on package.path, so a
 * development checkout's lua/ wins) gets a loader for its built-in source. */
#include <lauxlib.h>
#include <lua.h>
#include <string.h>

#include "bind/lua_embedded.h"
#include "bind/lua_tauform.h"

static int load_embedded(lua_State *L) {
  const tf_lua_source *s = &tf_lua_sources[lua_tointeger(L, lua_upvalueindex(1))];
  if (luaL_loadbufferx(L, (const char *)s->src, s->len, s->chunkname, "t") != LUA_OK)
    return lua_error(L);
  lua_pushstring(L, s->module);
  lua_call(L, 1, 1);
  return 1;
}

/* is `name` loadable from package.path? */
static int on_path(lua_State *L, const char *name) {
  int found = 0;
  if (lua_getglobal(L, "package") == LUA_TTABLE) {
    lua_getfield(L, -1, "searchpath");
    lua_getfield(L, -2, "path");
    if (lua_isfunction(L, -2) && lua_isstring(L, -1)) {
      lua_pushstring(L, name);
      lua_insert(L, -2);
      lua_call(L, 2, 1);
      found = lua_isstring(L, -1);
      lua_pop(L, 1);
    } else {
      lua_pop(L, 2);
    }
  }
  lua_pop(L, 1);
  return found;
}

static int open_tauform(lua_State *L, int builtin_only) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, tf_luaopen_core);
  lua_setfield(L, -2, "tauform.core");
  size_t root = tf_lua_source_count;
  for (size_t i = 0; i < tf_lua_source_count; ++i) {
    const char *name = tf_lua_sources[i].module;
    if (strcmp(name, "tauform") == 0) root = i;
    if (lua_getfield(L, -1, name) != LUA_TNIL || (!builtin_only && on_path(L, name))) {
      lua_pop(L, 1);
      continue;
    }
    lua_pop(L, 1);
    lua_pushinteger(L, (lua_Integer)i);
    lua_pushcclosure(L, load_embedded, 1);
    lua_setfield(L, -2, name);
  }
  lua_pop(L, 1);
  if (root == tf_lua_source_count)
    return luaL_error(L, "tauform: built without lua/tauform/init.lua");
  /* run the embedded init as module "tauform" */
  lua_pushinteger(L, (lua_Integer)root);
  lua_pushcclosure(L, load_embedded, 1);
  lua_call(L, 0, 1);
  return 1;
}

int tf_luaopen_tauform(lua_State *L) { return open_tauform(L, 0); }
int tf_luaopen_tauform_builtin(lua_State *L) { return open_tauform(L, 1); }
