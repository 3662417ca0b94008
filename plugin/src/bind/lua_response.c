/* SPDX-License-Identifier: MIT
 * The response and external forces from Lua (1.14; tauform.h, levels/levels.h):
 *   sim:response_levels()            -> { size_0, ..., size_L } m per level (0: the vertices)
 *   sim:set_response(percent [, v])  percentages per level from level 0 (1-based list), for every
 *                                    vertex or the 1-based vertices v; returns sim
 *   sim:response(vertex)             -> the percentages a force at vertex is shared by
 *   sim:set_forces(forces | nil)     N per vertex (flat or nested), nil removes them; returns sim
 *   sim:masses()                     -> { m_1, ..., m_n } kg, the lumped vertex masses
 * Bad input raises with the library's message (which names the level, vertex or value). */
#include <string.h>

#include "bind/lua_args.h"

#define RESPONSE_MAX_LEVELS 16 /* levels/levels.h's LEVELS_MAX */

static int l_response_levels(lua_State *L) {
  lsim *p = tfl_check_open(L);
  double size[RESPONSE_MAX_LEVELS];
  uint32_t count = tf_sim_response_levels(p->sim, size, RESPONSE_MAX_LEVELS);
  lua_createtable(L, (int)count, 0);
  for (uint32_t k = 0; k < count; ++k) lua_pushnumber(L, size[k]), lua_rawseti(L, -2, k + 1);
  return 1;
}

static int l_set_response(lua_State *L) {
  lsim *p = tfl_check_open(L);
  lua_settop(L, 3);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_Integer count = tfl_len(L, 2, 2, "percent");
  luaL_argcheck(L, count >= 1 && count <= RESPONSE_MAX_LEVELS, 2,
                "one percentage per level, from level 0 (see sim:response_levels())");
  double pct[RESPONSE_MAX_LEVELS];
  for (lua_Integer k = 0; k < count; ++k) {
    lua_geti(L, 2, k + 1);
    int isnum = 0;
    pct[k] = lua_tonumberx(L, -1, &isnum);
    lua_pop(L, 1);
    if (!isnum)
      return luaL_argerror(L, 2, lua_pushfstring(L, "percent[%I] is not a number", k + 1));
  }
  uint32_t *v = NULL, vc = 0;
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_Integer c = tfl_len(L, 3, 3, "vertices");
    v = tfl_checked_array(L, 3, c, sizeof(uint32_t), "vertices");
    tfl_read_indices(L, 3, 3, "vertices", c, 0, p->n, v);
    vc = (uint32_t)c;
  }
  tf_status st = tf_sim_set_response(p->sim, pct, (uint32_t)count, v, vc);
  if (st != TF_OK) return luaL_argerror(L, 2, tf_sim_last_error(p->sim));
  lua_settop(L, 1);
  return 1;
}

static int l_response(lua_State *L) {
  lsim *p = tfl_check_open(L);
  lua_Integer i = luaL_checkinteger(L, 2);
  luaL_argcheck(L, i >= 1 && i <= (lua_Integer)p->n, 2, "vertex out of range");
  double pct[RESPONSE_MAX_LEVELS];
  uint32_t count = tf_sim_response_levels(p->sim, NULL, 0);
  if (tf_sim_get_response(p->sim, (uint32_t)(i - 1), pct, RESPONSE_MAX_LEVELS) != TF_OK)
    return luaL_error(L, "sim:response: %s", tf_sim_last_error(p->sim));
  lua_createtable(L, (int)count, 0);
  for (uint32_t k = 0; k < count; ++k) lua_pushnumber(L, pct[k]), lua_rawseti(L, -2, k + 1);
  return 1;
}

static int l_set_forces(lua_State *L) {
  lsim *p = tfl_check_open(L);
  lua_settop(L, 2);
  if (lua_isnil(L, 2)) {
    tf_sim_set_forces(p->sim, NULL, 0);
    lua_settop(L, 1);
    return 1;
  }
  lua_Integer count = tfl_vec3_count(L, 2, 2, "forces");
  luaL_argcheck(L, count == (lua_Integer)p->n, 2, "one force per vertex");
  double *f = tfl_checked_array(L, 2, count, 3 * sizeof(double), "forces");
  tfl_read_vec3(L, 2, 2, "forces", count, f);
  tf_status st = tf_sim_set_forces(p->sim, f, (uint32_t)count);
  if (st != TF_OK) return luaL_argerror(L, 2, tf_sim_last_error(p->sim));
  lua_settop(L, 1);
  return 1;
}

static int l_masses(lua_State *L) {
  lsim *p = tfl_check_open(L);
  double *m = tfl_checked_array(L, 1, p->n, sizeof(double), "masses");
  if (tf_sim_get_masses(p->sim, m, p->n) != TF_OK)
    return luaL_error(L, "sim:masses: %s", tf_sim_last_error(p->sim));
  lua_createtable(L, (int)p->n, 0);
  for (uint32_t i = 0; i < p->n; ++i) lua_pushnumber(L, m[i]), lua_rawseti(L, -2, i + 1);
  return 1;
}

const luaL_Reg TFL_RESPONSE_METHODS[] = {{"response_levels", l_response_levels},
                                         {"set_response", l_set_response},
                                         {"response", l_response},
                                         {"set_forces", l_set_forces},
                                         {"masses", l_masses},
                                         {NULL, NULL}};
