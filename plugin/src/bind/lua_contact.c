/* SPDX-License-Identifier: MIT
 * Contact in Lua (ABI 1.5): colliders, triangle meshes the host moves every frame.
 *   local c = sim:collider{ vertices = ..., triangles = ... (1-based, flat or nested),
 *                           thickness = 0.001, friction = 0.5, one_sided = false }
 *   c:move(positions)          -- the pose at the end of the next advance (one {x, y, z} per
 * vertex) c:transform(matrix)        -- or a 4x4 affine transform of the first pose (16 numbers,
 * row-major,
 *                              -- or 4 rows of 4)
 *   c:set{ thickness =, friction = }   c:id() (1-based)   c:vert_count()   sim:collider_count()
 *   sim:self_intersections() -- (1.6) { {v, w, t}, ... }: edges through the surface's triangles
 * The collider userdata keeps its simulation alive through a user value; once the simulation is
 * closed (close(), <close>) every method raises "collider's simulation is closed". The library
 * owns the collider itself (freed with the simulation), so a collected collider userdata frees
 * nothing. Sizes go through tfl_len / tfl_checked_array like every other array of the binding,
 * and coordinates must be finite: a NaN is refused here, naming the entry, before the library
 * sees it. */
#include <lauxlib.h>
#include <math.h>
#include <string.h>

#include "bind/lua_args.h"

#define COLLIDER_MT "tauform.collider"

typedef struct lcollider {
  uint32_t id;         /* the library's, from 0 */
  uint32_t vert_count; /* what move() must give */
  double thickness;    /* m: set{} changes one value and passes both */
  double friction;
} lcollider;

/* how far the last row of a transform may be from 0 0 0 1 (a matrix computed in floating point) */
static const double MATRIX_ROW_TOL = 1e-9;

/* raises unless every coordinate of the count 3-vectors is finite, naming the entry as Lua does */
static void check_finite(lua_State *L, int arg, const char *what, const double *x,
                         lua_Integer count) {
  for (lua_Integer i = 0; i < count; ++i)
    for (int k = 0; k < 3; ++k)
      if (!isfinite(x[3 * i + k]))
        luaL_argerror(L, arg,
                      lua_pushfstring(L, "%s: coordinate %d of entry %I is not finite (%s)", what,
                                      k + 1, i + 1, isnan(x[3 * i + k]) ? "NaN" : "inf"));
}

/* field keys of the collider table, and of set{} */
static const char *const DEF_KEYS[] = {"vertices", "triangles", "groups", "thickness",
                                       "friction", "one_sided", NULL};
static const char *const SET_KEYS[] = {"thickness", "friction", NULL};

/* raises on a key of table idx that is not in keys */
static void check_keys(lua_State *L, int idx, int arg, const char *const *keys) {
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    int known = 0;
    for (int k = 0; key && keys[k]; ++k) known |= strcmp(key, keys[k]) == 0;
    if (!known) {
      luaL_Buffer b;
      luaL_buffinit(L, &b);
      for (int k = 0; keys[k]; ++k) {
        if (k) luaL_addstring(&b, ", ");
        luaL_addstring(&b, keys[k]);
      }
      luaL_pushresult(&b);
      if (!key)
        luaL_argerror(L, arg,
                      lua_pushfstring(L, "unexpected %s key (fields: %s)", luaL_typename(L, -3),
                                      lua_tostring(L, -1)));
      luaL_argerror(
          L, arg, lua_pushfstring(L, "unknown field '%s' (fields: %s)", key, lua_tostring(L, -1)));
    }
    lua_pop(L, 1);
  }
}

/* sim:collider{ vertices, triangles, thickness, friction, one_sided } -> collider */
static int l_collider(lua_State *L) {
  lsim *p = tfl_check_open(L);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  check_keys(L, 2, 2, DEF_KEYS);
  tf_collider_def def;
  tf_collider_def_init(&def);
  if (lua_getfield(L, 2, "vertices") != LUA_TTABLE)
    luaL_argerror(L, 2, "field 'vertices' (a table) is required");
  int vi = lua_gettop(L);
  lua_Integer nv = tfl_vec3_count(L, vi, 2, "vertices");
  if (nv < 3 || nv > TFL_MAX_VERTS)
    luaL_argerror(
        L, 2,
        lua_pushfstring(L, "field 'vertices': need 3 to %I vertices, got %I", TFL_MAX_VERTS, nv));
  if (lua_getfield(L, 2, "triangles") != LUA_TTABLE)
    luaL_argerror(L, 2, "field 'triangles' (a table) is required");
  int ti = lua_gettop(L);
  lua_Integer nt3 = tfl_index_count(L, ti, 2, "triangles", 3);
  if (nt3 < 3) luaL_argerror(L, 2, "field 'triangles': a collider needs at least one triangle");
  /* scratch in Lua-managed memory so a raised error frees it; the library copies both arrays */
  double *pos = tfl_checked_array(L, 2, nv, 3 * sizeof(double), "vertices");
  uint32_t *tri = tfl_checked_array(L, 2, nt3, sizeof(uint32_t), "triangles");
  tfl_read_vec3(L, vi, 2, "vertices", nv, pos);
  check_finite(L, 2, "vertices", pos, nv);
  tfl_read_indices(L, ti, 2, "triangles", nt3, 3, (uint32_t)nv, tri);
  /* a collider's triangles are numbered from its simulation's index_base, which the Lua
   * constructors set to 1 (the library's messages then name them as Lua does) */
  for (lua_Integer k = 0; k < nt3; ++k) tri[k] += 1;
  def.positions = pos;
  def.vert_count = (uint32_t)nv;
  def.triangles = tri;
  def.tri_count = (uint32_t)(nt3 / 3);
  tfl_opt_number_field(L, 2, 2, "thickness", &def.thickness);
  tfl_opt_number_field(L, 2, 2, "friction", &def.friction);
  int t = lua_getfield(L, 2, "one_sided");
  if (t != LUA_TNIL && t != LUA_TBOOLEAN)
    luaL_argerror(L, 2, "field 'one_sided' must be true or false");
  def.one_sided = (uint32_t)lua_toboolean(L, -1);
  lua_pop(L, 1);
  uint32_t id = 0;
  tf_status st = tf_sim_add_collider(p->sim, &def, &id);
  if (st == TF_E_NOMEM) return luaL_error(L, "collider: %s", tf_sim_last_error(p->sim));
  if (st != TF_OK) return luaL_argerror(L, 2, tf_sim_last_error(p->sim));
  lcollider *c = lua_newuserdatauv(L, sizeof *c, 1);
  c->id = id;
  c->vert_count = (uint32_t)nv;
  c->thickness = def.thickness;
  c->friction = def.friction;
  lua_pushvalue(L, 1); /* the simulation lives as long as its colliders are reachable */
  lua_setiuservalue(L, -2, 1);
  luaL_setmetatable(L, COLLIDER_MT);
  return 1;
}

/* sim:self_intersections() -> { {v, w, t}, ... }: the surface's edges (v, w) through its own
 * triangles t, 1-based (tf_sim_self_intersections) */
static int l_self_intersections(lua_State *L) {
  lsim *p = tfl_check_open(L);
  uint32_t n = 0;
  if (tf_sim_self_intersections(p->sim, NULL, 0, &n) != TF_OK)
    return luaL_error(L, "%s", tf_sim_last_error(p->sim));
  uint32_t *t = tfl_checked_array(L, 1, n ? n : 1, 3 * sizeof(uint32_t), "self_intersections");
  if (tf_sim_self_intersections(p->sim, t, n, &n) != TF_OK)
    return luaL_error(L, "%s", tf_sim_last_error(p->sim));
  lua_createtable(L, (int)n, 0);
  for (uint32_t k = 0; k < n; ++k) {
    lua_createtable(L, 3, 0);
    for (int q = 0; q < 3; ++q) lua_pushinteger(L, t[3 * k + q]), lua_rawseti(L, -2, q + 1);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  return 1;
}

static int l_collider_count(lua_State *L) {
  lsim *p = tfl_check_open(L);
  lua_pushinteger(L, tf_sim_collider_count(p->sim));
  return 1;
}

/* argument 1 as a collider of an open simulation, or raise; *out_sim gets the simulation */
static lcollider *check_collider(lua_State *L, tf_sim **out_sim) {
  lcollider *c = luaL_checkudata(L, 1, COLLIDER_MT);
  lua_getiuservalue(L, 1, 1);
  lsim *p = luaL_testudata(L, -1, SIM_MT);
  lua_pop(L, 1);
  luaL_argcheck(L, p && p->sim, 1, "collider's simulation is closed");
  *out_sim = p->sim;
  return c;
}

/* c:move(positions): one {x, y, z} per collider vertex, flat or nested */
static int l_move(lua_State *L) {
  tf_sim *sim;
  lcollider *c = check_collider(L, &sim);
  lua_settop(L, 2);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_Integer count = tfl_vec3_count(L, 2, 2, "positions");
  if (count != (lua_Integer)c->vert_count)
    luaL_argerror(L, 2,
                  lua_pushfstring(L, "positions: %I positions for a collider of %I vertices", count,
                                  (lua_Integer)c->vert_count));
  double *x = tfl_checked_array(L, 2, count, 3 * sizeof(double), "positions");
  tfl_read_vec3(L, 2, 2, "positions", count, x);
  check_finite(L, 2, "positions", x, count);
  tf_status st = tf_sim_move_collider(sim, c->id, x, c->vert_count);
  if (st != TF_OK) return luaL_argerror(L, 2, tf_sim_last_error(sim));
  lua_settop(L, 1);
  return 1;
}

/* the matrix at idx: 16 numbers row-major, or 4 rows of 4 */
static void read_matrix(lua_State *L, int idx, int arg, double m[16]) {
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_Integer len = tfl_len(L, idx, arg, "matrix");
  int nested = len > 0 && lua_geti(L, idx, 1) == LUA_TTABLE;
  if (len > 0) lua_pop(L, 1);
  if (nested ? len != 4 : len != 16)
    luaL_argerror(
        L, arg,
        lua_pushfstring(L, "matrix: expected 16 numbers (row-major) or 4 rows of 4, got %I %s", len,
                        nested ? "rows" : "entries"));
  for (int r = 0; r < 4; ++r)
    for (int k = 0; k < 4; ++k) {
      int isnum = 0;
      if (nested) {
        if (lua_geti(L, idx, r + 1) != LUA_TTABLE || luaL_len(L, -1) != 4)
          luaL_argerror(L, arg, lua_pushfstring(L, "matrix[%d] is not a row of 4 numbers", r + 1));
        lua_geti(L, -1, k + 1);
        m[4 * r + k] = lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 2);
      } else {
        lua_geti(L, idx, 4 * r + k + 1);
        m[4 * r + k] = lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 1);
      }
      if (!isnum || !isfinite(m[4 * r + k]))
        luaL_argerror(
            L, arg,
            lua_pushfstring(L, "matrix: entry (%d, %d) is not a finite number", r + 1, k + 1));
    }
  static const double LAST_ROW[4] = {0, 0, 0, 1};
  for (int k = 0; k < 4; ++k)
    if (fabs(m[12 + k] - LAST_ROW[k]) > MATRIX_ROW_TOL)
      luaL_argerror(L, arg, "matrix: the last row must be 0 0 0 1 (an affine transform)");
}

/* c:transform(matrix): the first pose transformed, as the pose at the end of the next advance */
static int l_transform(lua_State *L) {
  tf_sim *sim;
  lcollider *c = check_collider(L, &sim);
  lua_settop(L, 2);
  double m[16];
  read_matrix(L, 2, 2, m);
  tf_status st = tf_sim_transform_collider(sim, c->id, m);
  if (st != TF_OK) return luaL_argerror(L, 2, tf_sim_last_error(sim));
  lua_settop(L, 1);
  return 1;
}

/* c:set{ thickness =, friction = }: a value left out keeps its current one */
static int l_collider_set(lua_State *L) {
  tf_sim *sim;
  lcollider *c = check_collider(L, &sim);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  check_keys(L, 2, 2, SET_KEYS);
  double thickness = c->thickness, friction = c->friction;
  tfl_opt_number_field(L, 2, 2, "thickness", &thickness);
  tfl_opt_number_field(L, 2, 2, "friction", &friction);
  tf_status st = tf_sim_set_collider(sim, c->id, thickness, friction);
  if (st != TF_OK) return luaL_argerror(L, 2, tf_sim_last_error(sim));
  c->thickness = thickness, c->friction = friction;
  lua_settop(L, 1);
  return 1;
}

static int l_id(lua_State *L) {
  lcollider *c = luaL_checkudata(L, 1, COLLIDER_MT);
  lua_pushinteger(L, (lua_Integer)c->id + 1);
  return 1;
}

static int l_collider_vert_count(lua_State *L) {
  lcollider *c = luaL_checkudata(L, 1, COLLIDER_MT);
  lua_pushinteger(L, c->vert_count);
  return 1;
}

static int l_collider_tostring(lua_State *L) {
  lcollider *c = luaL_checkudata(L, 1, COLLIDER_MT);
  lua_getiuservalue(L, 1, 1);
  lsim *p = luaL_testudata(L, -1, SIM_MT);
  lua_pushfstring(L, "tauform.collider %I (%I vertices%s)", (lua_Integer)c->id + 1,
                  (lua_Integer)c->vert_count, p && p->sim ? "" : ", simulation closed");
  return 1;
}

static const luaL_Reg COLLIDER_METHODS[] = {{"move", l_move},
                                            {"transform", l_transform},
                                            {"set", l_collider_set},
                                            {"id", l_id},
                                            {"vert_count", l_collider_vert_count},
                                            {NULL, NULL}};

const luaL_Reg TFL_CONTACT_METHODS[] = {{"collider", l_collider},
                                        {"collider_count", l_collider_count},
                                        {"self_intersections", l_self_intersections},
                                        {NULL, NULL}};

void tfl_open_contact(lua_State *L) {
  if (luaL_newmetatable(L, COLLIDER_MT)) {
    luaL_newlib(L, COLLIDER_METHODS);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, l_collider_tostring), lua_setfield(L, -2, "__tostring");
  }
  lua_pop(L, 1);
}
