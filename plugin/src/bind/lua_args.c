/* SPDX-License-Identifier: MIT
 * See lua_args.h. */
#include "bind/lua_args.h"

#include <lauxlib.h>
#include <stdio.h>
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

/* ---- checked sizes ------------------------------------------------------------------------- */

lua_Integer tfl_len(lua_State *L, int idx, int arg, const char *what) {
  idx = lua_absindex(L, idx);
  lua_Integer len = luaL_len(L, idx);
  if (len < 0 || len > TFL_MAX_COUNT)
    luaL_argerror(
        L, arg,
        lua_pushfstring(L, "field '%s': length %I is not in 0..%I", what, len, TFL_MAX_COUNT));
  /* a real table's border has its last entry set; a __len that lies is caught before it sizes
   * anything */
  if (len > 0) {
    int t = lua_geti(L, idx, len);
    lua_pop(L, 1);
    if (t == LUA_TNIL)
      luaL_argerror(
          L, arg, lua_pushfstring(L, "field '%s': length %I but entry %I is nil", what, len, len));
  }
  return len;
}

void *tfl_checked_array(lua_State *L, int arg, lua_Integer count, size_t elem_size,
                        const char *what) {
  /* elem_size may itself be large (a render_sheet frame is 3 * vert_count doubles) */
  if (count < 0 || count > TFL_MAX_COUNT || elem_size == 0 || (size_t)count > SIZE_MAX / elem_size)
    luaL_argerror(L, arg,
                  lua_pushfstring(L, "field '%s': %I entries of %I bytes cannot be allocated", what,
                                  count, (lua_Integer)elem_size));
  size_t n = count ? (size_t)count : 1;
  return lua_newuserdatauv(L, n * elem_size, 0);
}

int tfl_opt_uint_field(lua_State *L, int idx, int arg, const char *prefix, const char *key,
                       uint32_t lo, uint32_t hi, uint32_t *out) {
  double v;
  if (!tfl_opt_number_field(L, idx, arg, key, &v)) return 0;
  /* compare as doubles first: converting NaN or an out-of-range double to an integer is undefined
   */
  if (!(v >= (double)lo && v <= (double)hi) || (double)(uint32_t)v != v) {
    char got[32]; /* %.14g as Lua prints numbers, without the ".0" lua_pushfstring adds to 2^40 */
    snprintf(got, sizeof got, "%.14g", v);
    luaL_argerror(L, arg,
                  lua_pushfstring(L, "%s%s must be a whole number in %I..%I, got %s", prefix, key,
                                  (lua_Integer)lo, (lua_Integer)hi, got));
  }
  *out = (uint32_t)v;
  return 1;
}

/* ---- reading arrays ------------------------------------------------------------------------ */

/* count of 3-vectors in a flat or nested table at idx */
lua_Integer tfl_vec3_count(lua_State *L, int idx, int arg, const char *what) {
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_Integer len = tfl_len(L, idx, arg, what);
  if (len == 0) return 0;
  int t = lua_geti(L, idx, 1);
  lua_pop(L, 1);
  if (t == LUA_TTABLE) return len;
  if (len % 3 != 0)
    luaL_argerror(L, arg,
                  lua_pushfstring(L, "%s: flat array length %I is not a multiple of 3", what, len));
  return len / 3;
}

/* read count 3-vectors (flat or nested) into out; raises naming the entry */
void tfl_read_vec3(lua_State *L, int idx, int arg, const char *what, lua_Integer count,
                   double *out) {
  int t = count ? lua_geti(L, idx, 1) : LUA_TNIL;
  lua_pop(L, 1);
  for (lua_Integer i = 0; i < count; ++i) {
    for (int k = 0; k < 3; ++k) {
      int isnum = 0;
      if (t == LUA_TTABLE) {
        if (lua_geti(L, idx, i + 1) != LUA_TTABLE)
          luaL_argerror(L, arg,
                        lua_pushfstring(L, "%s[%I] is not a table of 3 numbers", what, i + 1));
        lua_geti(L, -1, k + 1);
        out[3 * i + k] = lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 2);
      } else {
        lua_geti(L, idx, 3 * i + k + 1);
        out[3 * i + k] = lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 1);
      }
      if (!isnum)
        luaL_argerror(L, arg,
                      lua_pushfstring(L, "%s: coordinate %d of entry %I is not a number", what,
                                      k + 1, i + 1));
    }
  }
}

/* number of indices in a flat array or a nested one of `width`-tuples */
lua_Integer tfl_index_count(lua_State *L, int idx, int arg, const char *what, int width) {
  lua_Integer len = tfl_len(L, idx, arg, what), total = len;
  if (len > 0) {
    int nested = lua_geti(L, idx, 1) == LUA_TTABLE;
    lua_pop(L, 1);
    total = nested ? width * len : len; /* len <= UINT32_MAX: no overflow */
  }
  if (total % width != 0)
    luaL_argerror(
        L, arg,
        lua_pushfstring(L, "field '%s': flat array length is not a multiple of %d", what, width));
  return total;
}

/* the index at flat position i (0-based) as a lua_Integer; raises unless it is one */
static lua_Integer read_index(lua_State *L, int idx, int arg, const char *what, lua_Integer i,
                              int width, int nested) {
  int isint = 0;
  lua_Integer v;
  if (nested) {
    if (lua_geti(L, idx, i / width + 1) != LUA_TTABLE)
      luaL_argerror(L, arg,
                    lua_pushfstring(L, "%s[%I] must be a table of %d indices, like the first entry",
                                    what, i / width + 1, width));
    lua_geti(L, -1, i % width + 1);
    v = lua_tointegerx(L, -1, &isint);
    lua_pop(L, 2);
    if (!isint)
      luaL_argerror(L, arg,
                    lua_pushfstring(L, "%s[%I][%d] is not an integer", what, i / width + 1,
                                    (int)(i % width) + 1));
  } else {
    lua_geti(L, idx, i + 1);
    v = lua_tointegerx(L, -1, &isint);
    lua_pop(L, 1);
    if (!isint)
      luaL_argerror(L, arg, lua_pushfstring(L, "%s: entry %I is not an integer", what, i + 1));
  }
  return v;
}

void tfl_read_indices(lua_State *L, int idx, int arg, const char *what, lua_Integer count,
                      int width, uint32_t limit, uint32_t *out) {
  int nested = 0;
  if (width && count) {
    nested = lua_geti(L, idx, 1) == LUA_TTABLE;
    lua_pop(L, 1);
  }
  /* without a limit an index still has to fit the ABI's uint32_t once made 0-based */
  lua_Integer hi = limit ? (lua_Integer)limit : TFL_MAX_COUNT;
  for (lua_Integer i = 0; i < count; ++i) {
    lua_Integer v = read_index(L, idx, arg, what, i, width, nested);
    if (v < 1 || v > hi)
      luaL_argerror(L, arg, lua_pushfstring(L, "%s: index %I out of range 1..%I", what, v, hi));
    out[i] = (uint32_t)(v - 1);
  }
}

/* a numeric field of table idx into *out when present; raises on a non-number */
int tfl_opt_enum_field(lua_State *L, int idx, int arg, const char *key, const char *const *names,
                       int *out) {
  int t = lua_getfield(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  const char *name = t == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  for (int k = 0; name && names[k]; ++k)
    if (strcmp(name, names[k]) == 0) {
      lua_pop(L, 1);
      *out = k;
      return 1;
    }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "field '");
  luaL_addstring(&b, key);
  luaL_addstring(&b, "' must be ");
  for (int k = 0; names[k]; ++k) {
    if (k > 0) luaL_addstring(&b, names[k + 1] ? ", " : " or ");
    luaL_addchar(&b, '"');
    luaL_addstring(&b, names[k]);
    luaL_addchar(&b, '"');
  }
  luaL_pushresult(&b);
  return luaL_argerror(L, arg, lua_tostring(L, -1));
}

int tfl_opt_number_field(lua_State *L, int idx, int arg, const char *key, double *out) {
  int t = lua_getfield(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  int isnum = 0;
  double v = lua_tonumberx(L, -1, &isnum);
  lua_pop(L, 1);
  if (!isnum)
    luaL_argerror(
        L, arg, lua_pushfstring(L, "field '%s' must be a number, got %s", key, lua_typename(L, t)));
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
  p->n = tf_sim_vert_count(p->sim); /* tearing adds vertices (tf_sim_get_topology) */
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

/* bounds of the binding, not the library (which takes any uint32_t >= 1): far above the defaults
 * (20 and 500) and any use, low enough that a typo such as 2^40 is an error, not a step that never
 * ends */
static const uint32_t TFL_MAX_NEWTON = 100000;
static const uint32_t TFL_MAX_CG = 10000000;

void tfl_read_solver(lua_State *L, int idx, int arg, tf_solver_settings *s, uint32_t *threads) {
  if (lua_getfield(L, idx, "solver") == LUA_TTABLE) {
    int si = lua_gettop(L);
    /* 0 = every core; the library's bound, checked here too so the message names the field */
    tfl_opt_uint_field(L, si, arg, "solver.", "threads", 0, TF_MAX_THREADS, threads);
    tfl_opt_uint_field(L, si, arg, "solver.", "max_newton", 1, TFL_MAX_NEWTON, &s->max_newton);
    tfl_opt_uint_field(L, si, arg, "solver.", "max_cg", 1, TFL_MAX_CG, &s->max_cg);
    tfl_opt_number_field(L, si, arg, "tolerance", &s->tolerance);
    tfl_opt_number_field(L, si, arg, "abs_tolerance", &s->abs_tolerance);
  }
  lua_pop(L, 1);
}
