/* SPDX-License-Identifier: MIT
 * See lua_args.h. */
#include "bind/lua_args.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#define MEM_KEY "tauform.memory"

/* ---- counting allocator, one per lua_State (kept in the registry) ------------------------- */

void *tfl_count_alloc(size_t size, size_t align, void *ud) {
  lmem *m = ud;
  size_t rounded = (size + align - 1) / align * align;
  void *p = aligned_alloc(align, rounded);
  if (p) {
    m->live_bytes += (long long)size;
    m->allocations++;
  }
  return p;
}

void tfl_count_free(void *p, size_t size, void *ud) {
  lmem *m = ud;
  m->live_bytes -= (long long)size;
  free(p);
}

lmem *tfl_get_mem(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, MEM_KEY);
  lmem *m = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (!m) {
    m = lua_newuserdatauv(L, sizeof *m, 0);
    memset(m, 0, sizeof *m);
    lua_setfield(L, LUA_REGISTRYINDEX, MEM_KEY);
  }
  return m;
}

/* ---- reading arrays ------------------------------------------------------------------------ */

/* count of 3-vectors in a flat or nested table at idx */
lua_Integer tfl_vec3_count(lua_State *L, int idx, int arg, const char *what) {
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_Integer len = luaL_len(L, idx);
  if (len == 0) return 0;
  int t = lua_geti(L, idx, 1);
  lua_pop(L, 1);
  if (t == LUA_TTABLE) return len;
  if (len % 3 != 0)
    luaL_argerror(L, arg, lua_pushfstring(L, "%s: flat array length %d is not a multiple of 3", what, (int)len));
  return len / 3;
}

/* read count 3-vectors (flat or nested) into out; raises naming the entry */
void tfl_read_vec3(lua_State *L, int idx, int arg, const char *what, lua_Integer count, double *out) {
  int t = count ? lua_geti(L, idx, 1) : LUA_TNIL;
  lua_pop(L, 1);
  for (lua_Integer i = 0; i < count; ++i) {
    for (int k = 0; k < 3; ++k) {
      int isnum = 0;
      if (t == LUA_TTABLE) {
        if (lua_geti(L, idx, i + 1) != LUA_TTABLE)
          luaL_argerror(L, arg, lua_pushfstring(L, "%s[%d] is not a table of 3 numbers", what, (int)(i + 1)));
        lua_geti(L, -1, k + 1);
        out[3 * i + k] = lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 2);
      } else {
        lua_geti(L, idx, 3 * i + k + 1);
        out[3 * i + k] = lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 1);
      }
      if (!isnum)
        luaL_argerror(L, arg, lua_pushfstring(L, "%s: coordinate %d of entry %d is not a number", what, k + 1, (int)(i + 1)));
    }
  }
}

/* 1-based index array (flat, or nested triples when triples != 0) into 0-based out */
lua_Integer tfl_index_count(lua_State *L, int idx, int arg, const char *what, int width) {
  lua_Integer len = luaL_len(L, idx), total = len;
  if (len > 0) {
    int nested = lua_geti(L, idx, 1) == LUA_TTABLE;
    lua_pop(L, 1);
    total = nested ? width * len : len;
  }
  if (total % width != 0)
    luaL_argerror(L, arg, lua_pushfstring(L, "field '%s': flat array length is not a multiple of %d", what, width));
  return total;
}

void tfl_read_indices(lua_State *L, int idx, int arg, const char *what, lua_Integer count, int width,
                         uint32_t limit, uint32_t *out) {
  int nested = 0;
  if (width && count) {
    nested = lua_geti(L, idx, 1) == LUA_TTABLE;
    lua_pop(L, 1);
  }
  for (lua_Integer i = 0; i < count; ++i) {
    int isint = 0;
    lua_Integer v;
    if (nested) {
      if (lua_geti(L, idx, i / width + 1) != LUA_TTABLE)
        luaL_argerror(L, arg, lua_pushfstring(L, "%s[%d] must be a table of %d indices, like the first entry", what,
                                              (int)(i / width + 1), width));
      lua_geti(L, -1, i % width + 1);
      v = lua_tointegerx(L, -1, &isint);
      lua_pop(L, 2);
    } else {
      lua_geti(L, idx, i + 1);
      v = lua_tointegerx(L, -1, &isint);
      lua_pop(L, 1);
    }
    if (!isint) luaL_argerror(L, arg, lua_pushfstring(L, "%s: entry %d is not an integer", what, (int)(i + 1)));
    if (v < 1 || (limit && v > (lua_Integer)limit))
      luaL_argerror(L, arg, lua_pushfstring(L, "%s: index %d out of range 1..%d", what, (int)v, (int)limit));
    out[i] = (uint32_t)(v - 1);
  }
}

/* a numeric field of table idx into *out when present; raises on a non-number */
int tfl_opt_number_field(lua_State *L, int idx, int arg, const char *key, double *out) {
  int t = lua_getfield(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  int isnum = 0;
  double v = lua_tonumberx(L, -1, &isnum);
  lua_pop(L, 1);
  if (!isnum) luaL_argerror(L, arg, lua_pushfstring(L, "field '%s' must be a number, got %s", key, lua_typename(L, t)));
  *out = v;
  return 1;
}

void tfl_opt_vec3_field(lua_State *L, int idx, int arg, const char *key, double out[3]) {
  if (lua_getfield(L, idx, key) != LUA_TNIL) {
    if (!lua_istable(L, -1) || tfl_vec3_count(L, lua_gettop(L), arg, key) != 1)
      luaL_argerror(L, arg, lua_pushfstring(L, "field '%s' must be {x, y, z}", key));
    tfl_read_vec3(L, lua_gettop(L), arg, key, 1, out);
  }
  lua_pop(L, 1);
}

tf_sim *tf_lua_tosim(lua_State *L, int idx) {
  lsim *p = luaL_testudata(L, idx, SIM_MT);
  return p ? p->sim : NULL;
}

lsim *tfl_check_open(lua_State *L) {
  lsim *p = luaL_checkudata(L, 1, SIM_MT);
  luaL_argcheck(L, p->sim != NULL, 1, "simulation is closed");
  return p;
}

/* expected failure: nil, message, status name */
int tfl_push_fail(lua_State *L, tf_sim *sim, tf_status st) {
  luaL_pushfail(L);
  lua_pushstring(L, tf_sim_last_error(sim));
  lua_pushstring(L, tf_status_name(st));
  return 3;
}


lsim *tfl_new_sim(lua_State *L) {
  lsim *p = lua_newuserdatauv(L, sizeof *p, 0);
  memset(p, 0, sizeof *p); /* closed until create succeeds */
  luaL_setmetatable(L, SIM_MT);
  return p;
}

void tfl_read_solver(lua_State *L, int idx, int arg, tf_solver_settings *s) {
  if (lua_getfield(L, idx, "solver") == LUA_TTABLE) {
    int si = lua_gettop(L);
    double v;
    if (tfl_opt_number_field(L, si, arg, "max_newton", &v)) s->max_newton = v >= 1 ? (uint32_t)v : 0;
    if (tfl_opt_number_field(L, si, arg, "max_cg", &v)) s->max_cg = v >= 1 ? (uint32_t)v : 0;
    tfl_opt_number_field(L, si, arg, "tolerance", &s->tolerance);
    tfl_opt_number_field(L, si, arg, "abs_tolerance", &s->abs_tolerance);
  }
  lua_pop(L, 1);
}
