/* SPDX-License-Identifier: MIT
 * Fuzz target: the OBJ reader and its companion .groups file, which are Lua
 * (lua/tauform/mesh.lua, loaded from the source tree into an embedded Lua 5.4; only its public
 * load_obj is called). The input is the .obj text, a NUL byte, then the .groups text. A Lua error
 * is a refused file; a result must have integer triangle indices in range and finite vertices. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <unistd.h>

#include "fuzz_common.h"

#ifndef TAUFORM_SOURCE_DIR
#  error "TAUFORM_SOURCE_DIR: the checkout, for lua/tauform/mesh.lua"
#endif

/* checks a load_obj result on the stack top; returns an error string or nil */
/* checks a load_obj result (the first argument); returns an error string or nil. Vertices and
 * triangles may be flat arrays (x1, y1, z1, x2, ...) or arrays of triples. */
static const char CHECK[] =
    "local r = ...\n"
    "if type(r) ~= 'table' or type(r.vertices) ~= 'table' or type(r.triangles) ~= 'table' then "
    "return 'not a mesh table' end\n"
    "local function flat(a) if type(a[1]) ~= 'table' then return a end\n"
    "  local f = {} for _, t in ipairs(a) do for k = 1, 3 do f[#f + 1] = t[k] end end return f "
    "end\n"
    "local v, t = flat(r.vertices), flat(r.triangles)\n"
    "if #v % 3 ~= 0 or #t % 3 ~= 0 then return 'not triples' end\n"
    "local nv = #v // 3\n"
    "for i, c in ipairs(v) do\n"
    "  if type(c) ~= 'number' or c ~= c or c == math.huge or c == -math.huge then return "
    "'coordinate ' .. i .. ' not finite: ' .. tostring(c) end end\n"
    "for k, i in ipairs(t) do\n"
    "  if math.type(i) ~= 'integer' or i < 1 or i > nv then return 'triangle index ' .. k .. ' is "
    "' .. tostring(i) end end\n"
    "for name, ids in pairs(r.groups or {}) do\n"
    "  for _, i in ipairs(ids) do\n"
    "    if math.type(i) ~= 'integer' or i < 1 or i > nv then return 'group ' .. tostring(name) .. "
    "' index ' .. tostring(i) end end end\n"
    "return nil\n";

static lua_State *L;
static char obj_path[256], groups_path[256];

static void write_file(const char *path, const uint8_t *p, size_t n) {
  FILE *f = fopen(path, "wb");
  FUZZ_CHECK(f, "cannot write %s", path);
  if (n) fwrite(p, 1, n, f);
  fclose(f);
}

static void cleanup(void) {
  unlink(obj_path);
  unlink(groups_path);
}

static void setup(void) {
  L = luaL_newstate();
  luaL_openlibs(L);
  FUZZ_CHECK(luaL_dofile(L, TAUFORM_SOURCE_DIR "/lua/tauform/mesh.lua") == LUA_OK, "%s",
             lua_tostring(L, -1));
  lua_setglobal(L, "mesh");
  FUZZ_CHECK(luaL_loadstring(L, CHECK) == LUA_OK, "%s", lua_tostring(L, -1));
  lua_setglobal(L, "check");
  const char *dir = getenv("TMPDIR");
  snprintf(obj_path, sizeof obj_path, "%s/tf_fuzz_obj_%d.obj", dir && *dir ? dir : "/tmp",
           (int)getpid());
  snprintf(groups_path, sizeof groups_path, "%s/tf_fuzz_obj_%d.groups", dir && *dir ? dir : "/tmp",
           (int)getpid());
  atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!L) setup();
  const uint8_t *nul = memchr(data, 0, size);
  size_t obj_n = nul ? (size_t)(nul - data) : size;
  write_file(obj_path, data, obj_n);
  write_file(groups_path, nul ? nul + 1 : data + size, nul ? size - obj_n - 1 : 0);
  int top = lua_gettop(L);
  lua_getglobal(L, "mesh");
  lua_getfield(L, -1, "load_obj");
  lua_pushstring(L, obj_path);
  lua_createtable(L, 0, 1);
  lua_pushstring(L, groups_path);
  lua_setfield(L, -2, "groups");
  if (lua_pcall(L, 2, 1, 0) == LUA_OK) {
    lua_getglobal(L, "check");
    lua_pushvalue(L, -2);
    FUZZ_CHECK(lua_pcall(L, 1, 1, 0) == LUA_OK, "check raised %s", lua_tostring(L, -1));
    FUZZ_CHECK(lua_isnil(L, -1), "load_obj returned a bad mesh: %s", lua_tostring(L, -1));
  } else {
    FUZZ_CHECK(lua_type(L, -1) == LUA_TSTRING, "load_obj raised a non-string error");
  }
  lua_settop(L, top);
  lua_gc(L, LUA_GCSTEP, 0);
  return 0;
}
