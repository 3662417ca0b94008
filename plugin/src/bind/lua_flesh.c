/* SPDX-License-Identifier: MIT
 * Flesh in Lua:
 *   tauform.core.flesh{ vertices = ..., tets = ... (1-based quads, flat or nested),
 *                       surface = { vertices = ..., triangles = ... },  -- render skin; alone:
 * filled cells = 12, youngs = 5e4, poisson = 0.45, density = 1000, materials = { {youngs =, poisson
 * =, density =}, ... }, tet_materials = {...}, tau, kappa, gravity, pin_stiffness, solver }
 *   tauform.core.tet_load(path) -> { vertices, tets, regions, region_names } | nil, message, code
 * and the methods sim:surface_positions([out]), sim:rest_positions([out]), sim:surface_count(),
 * sim:info(). All other methods are the cloth's: the same simulation type. */
#include <lauxlib.h>
#include <string.h>

#include "bind/lua_args.h"

/* a mesh table field { vertices, triangles } of table idx: counts, and its arrays in Lua scratch */
static void read_surface(lua_State *L, int idx, tf_flesh_def *def) {
  if (lua_getfield(L, idx, "surface") == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  if (!lua_istable(L, -1))
    luaL_argerror(L, 1, "field 'surface' must be a mesh { vertices = ..., triangles = ... }");
  int si = lua_gettop(L);
  if (lua_getfield(L, si, "vertices") != LUA_TTABLE)
    luaL_argerror(L, 1, "field 'surface.vertices' (a table) is required");
  int vi = lua_gettop(L);
  lua_Integer nv = tfl_vec3_count(L, vi, 1, "surface.vertices");
  if (nv < 1 || nv > TFL_MAX_VERTS)
    luaL_argerror(L, 1,
                  lua_pushfstring(L, "field 'surface.vertices': need 1 to %I vertices, got %I",
                                  TFL_MAX_VERTS, nv));
  double *pos = tfl_checked_array(L, 1, nv, 3 * sizeof(double), "surface.vertices");
  tfl_read_vec3(L, vi, 1, "surface.vertices", nv, pos);
  lua_Integer nt3 = 0;
  uint32_t *tri = NULL;
  if (lua_getfield(L, si, "triangles") == LUA_TTABLE) {
    int ti = lua_gettop(L);
    nt3 = tfl_index_count(L, ti, 1, "surface.triangles", 3);
    tri = tfl_checked_array(L, 1, nt3, sizeof(uint32_t), "surface.triangles");
    tfl_read_indices(L, ti, 1, "surface.triangles", nt3, 3, (uint32_t)nv, tri);
  }
  /* the scratch stays on the stack (alive) until the call returns */
  def->surface_positions = pos;
  def->surface_vert_count = (uint32_t)nv;
  def->surface_triangles = tri;
  def->surface_tri_count = (uint32_t)(nt3 / 3);
}

static void read_material(lua_State *L, int idx, double *E, double *nu, double *rho) {
  tfl_opt_number_field(L, idx, 1, "youngs", E);
  tfl_opt_number_field(L, idx, 1, "poisson", nu);
  tfl_opt_number_field(L, idx, 1, "density", rho);
}

static int l_flesh(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  tf_flesh_def def;
  tf_flesh_def_init(&def);
  def.index_base = 1; /* messages name vertices, triangles and tets as Lua numbers them */
  lua_Integer nv = 0;
  if (lua_getfield(L, 1, "tets") != LUA_TNIL) {
    if (!lua_istable(L, -1))
      luaL_argerror(L, 1, "field 'tets' must be a table of 1-based vertex quads");
    int ti = lua_gettop(L);
    if (lua_getfield(L, 1, "vertices") != LUA_TTABLE)
      luaL_argerror(L, 1, "field 'vertices' (a table) is required with 'tets'");
    int vi = lua_gettop(L);
    nv = tfl_vec3_count(L, vi, 1, "vertices");
    if (nv < 4 || nv > TFL_MAX_VERTS)
      luaL_argerror(
          L, 1,
          lua_pushfstring(L, "field 'vertices': need 4 to %I vertices, got %I", TFL_MAX_VERTS, nv));
    lua_Integer nt4 = tfl_index_count(L, ti, 1, "tets", 4);
    double *pos = tfl_checked_array(L, 1, nv, 3 * sizeof(double), "vertices");
    uint32_t *tets = tfl_checked_array(L, 1, nt4, sizeof(uint32_t), "tets");
    tfl_read_vec3(L, vi, 1, "vertices", nv, pos);
    tfl_read_indices(L, ti, 1, "tets", nt4, 4, (uint32_t)nv, tets);
    def.rest_positions = pos;
    def.vert_count = (uint32_t)nv;
    def.tets = tets;
    def.tet_count = (uint32_t)(nt4 / 4);
  } else {
    lua_pop(L, 1);
  }
  read_surface(L, 1, &def);
  /* the library's range (tf_flesh_def.lattice_cells), checked here before the cast */
  tfl_opt_uint_field(L, 1, 1, "", "cells", 2, 512, &def.lattice_cells);
  static const char *const ELEMENTS[] = {"linear", "quadratic", NULL}; /* tf_tet_element order */
  int element;
  if (tfl_opt_enum_field(L, 1, 1, "element", ELEMENTS, &element))
    def.element = (tf_tet_element)element;
  read_material(L, 1, &def.youngs_modulus, &def.poisson, &def.density);
  /* region materials: materials[k] for tets whose tet_materials entry is k (0: the base) */
  if (lua_getfield(L, 1, "materials") == LUA_TTABLE) {
    int mi = lua_gettop(L);
    lua_Integer count = tfl_len(L, mi, 1, "materials");
    tf_flesh_material *mats = tfl_checked_array(L, 1, count, sizeof *mats, "materials");
    for (lua_Integer k = 0; k < count; ++k) {
      if (lua_geti(L, mi, k + 1) != LUA_TTABLE)
        luaL_argerror(
            L, 1,
            lua_pushfstring(L, "materials[%I] must be { youngs =, poisson =, density = }", k + 1));
      static const char *const keys[] = {"youngs", "poisson", "density"};
      for (int f = 0; f < 3; ++f) {
        int t = lua_getfield(L, -1, keys[f]);
        int ok = t == LUA_TNIL || lua_isnumber(L, -1); /* a numeric string converts, as elsewhere */
        lua_pop(L, 1);
        if (!ok)
          luaL_argerror(L, 1,
                        lua_pushfstring(L, "materials[%I].%s must be a number, got %s", k + 1,
                                        keys[f], lua_typename(L, t)));
      }
      mats[k].youngs_modulus = def.youngs_modulus, mats[k].poisson = def.poisson,
      mats[k].density = def.density;
      read_material(L, lua_gettop(L), &mats[k].youngs_modulus, &mats[k].poisson, &mats[k].density);
      lua_pop(L, 1);
    }
    def.materials = mats;
    def.material_count = (uint32_t)count;
  } else {
    lua_pop(L, 1);
  }
  if (lua_getfield(L, 1, "tet_materials") == LUA_TTABLE) {
    int mi = lua_gettop(L);
    lua_Integer count = tfl_len(L, mi, 1, "tet_materials");
    if (count != (lua_Integer)def.tet_count)
      luaL_argerror(L, 1, "field 'tet_materials' must have one entry per tet");
    uint32_t *tm = tfl_checked_array(L, 1, count, sizeof *tm, "tet_materials");
    for (lua_Integer k = 0; k < count; ++k) {
      lua_geti(L, mi, k + 1);
      int isint = 0;
      lua_Integer m = lua_tointegerx(L, -1, &isint);
      lua_pop(L, 1);
      if (!isint || m < 0)
        luaL_argerror(L, 1, lua_pushfstring(L, "tet_materials[%I] must be an integer >= 0", k + 1));
      if (m > (lua_Integer)def.material_count)
        luaL_argerror(
            L, 1,
            lua_pushfstring(
                L, "tet_materials[%I] = %I but there are %I materials (0 is the base material)",
                k + 1, m, (lua_Integer)def.material_count));
      tm[k] = (uint32_t)m;
    }
    def.tet_materials = tm;
  } else {
    lua_pop(L, 1);
  }
  tfl_opt_number_field(L, 1, 1, "tau", &def.tau);
  tfl_opt_number_field(L, 1, 1, "kappa", &def.kappa);
  tfl_opt_number_field(L, 1, 1, "pin_stiffness", &def.pin_stiffness);
  tfl_opt_vec3_field(L, 1, 1, "gravity", def.gravity);
  tfl_read_solver(L, 1, 1, &def.solver, &def.threads);
  def.allocator.alloc = tfl_count_alloc;
  def.allocator.free = tfl_count_free;
  def.allocator.ud = tfl_get_mem(L);
  lsim *p = tfl_new_sim(L);
  char err[512];
  tf_status st = tf_flesh_create(&def, &p->sim, err, sizeof err);
  if (st == TF_E_NOMEM) return luaL_error(L, "tauform.flesh: %s", err);
  if (st != TF_OK) return luaL_argerror(L, 1, err);
  p->n = tf_sim_vert_count(p->sim);
  p->flesh = 1;
  return 1;
}

/* fill table arg 2 (reused) or a new one with count 3-vectors, flat */
static int push_flat(lua_State *L, const double *buf, uint32_t count) {
  for (uint32_t k = 0; k < 3 * count; ++k) {
    lua_pushnumber(L, buf[k]);
    lua_rawseti(L, -3, (lua_Integer)k + 1);
  }
  lua_pop(L, 1); /* the scratch */
  return 1;
}

static void out_table(lua_State *L, uint32_t count) {
  if (lua_isnoneornil(L, 2))
    lua_createtable(L, (int)(3 * count), 0);
  else
    luaL_checktype(L, 2, LUA_TTABLE), lua_pushvalue(L, 2);
}

static int l_surface_positions(lua_State *L) {
  lsim *p = tfl_check_open(L);
  uint32_t m = tf_sim_surface_vert_count(p->sim);
  if (m == 0) return luaL_error(L, "surface_positions: this simulation has no embedded surface");
  lua_settop(L, 2);
  out_table(L, m);
  double *buf = lua_newuserdatauv(L, sizeof(double) * 3 * m, 0);
  tf_sim_get_surface_positions(p->sim, buf, m);
  return push_flat(L, buf, m);
}

static int l_rest_positions(lua_State *L) {
  lsim *p = tfl_check_open(L);
  lua_settop(L, 2);
  out_table(L, p->n);
  double *buf = lua_newuserdatauv(L, sizeof(double) * 3 * p->n, 0);
  tf_sim_get_rest_positions(p->sim, buf, p->n);
  return push_flat(L, buf, p->n);
}

static int l_surface_count(lua_State *L) {
  lsim *p = tfl_check_open(L);
  lua_pushinteger(L, tf_sim_surface_vert_count(p->sim));
  return 1;
}

static int l_info(lua_State *L) {
  lsim *p = tfl_check_open(L);
  tf_flesh_info in;
  memset(&in, 0, sizeof in);
  in.struct_size = sizeof in;
  tf_status st = tf_sim_flesh_info(p->sim, &in);
  if (st != TF_OK) return luaL_error(L, "info: %s", tf_sim_last_error(p->sim));
  lua_createtable(L, 0, 14);
  lua_pushinteger(L, in.tet_count), lua_setfield(L, -2, "tets");
  lua_pushinteger(L, in.vert_count), lua_setfield(L, -2, "vertices");
  lua_pushinteger(L, in.boundary_face_count), lua_setfield(L, -2, "boundary_faces");
  lua_pushnumber(L, in.min_dihedral_deg), lua_setfield(L, -2, "min_dihedral");
  lua_pushnumber(L, in.max_dihedral_deg), lua_setfield(L, -2, "max_dihedral");
  lua_pushinteger(L, in.inverted_rest), lua_setfield(L, -2, "inverted_rest");
  lua_pushinteger(L, in.inverted_now), lua_setfield(L, -2, "inverted");
  lua_pushnumber(L, in.rest_volume), lua_setfield(L, -2, "rest_volume");
  lua_pushnumber(L, in.volume), lua_setfield(L, -2, "volume");
  lua_pushnumber(L, in.mass), lua_setfield(L, -2, "mass");
  lua_pushinteger(L, in.surface_outside), lua_setfield(L, -2, "surface_outside");
  lua_pushnumber(L, in.surface_worst_weight), lua_setfield(L, -2, "surface_worst_weight");
  lua_pushinteger(L, in.node_count), lua_setfield(L, -2, "nodes");
  lua_pushstring(L, in.element == TF_TET_QUADRATIC ? "quadratic" : "linear");
  lua_setfield(L, -2, "element");
  return 1;
}

/* tet_load(path) -> { vertices = flat, tets = flat 1-based, regions = per tet, region_names = {
 * [tag] = name } } */
static int l_tet_load(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  tf_tetmesh *m = NULL;
  char err[512];
  tf_status st = tf_tetmesh_load(path, &m, err, sizeof err);
  if (st != TF_OK) {
    luaL_pushfail(L);
    lua_pushstring(L, err);
    lua_pushstring(L, tf_status_name(st));
    return 3;
  }
  tf_tetmesh_view v;
  memset(&v, 0, sizeof v);
  v.struct_size = sizeof v;
  tf_tetmesh_get(m, &v);
  lua_createtable(L, 0, 4);
  lua_createtable(L, (int)(3 * v.vert_count), 0);
  for (uint32_t k = 0; k < 3 * v.vert_count; ++k)
    lua_pushnumber(L, v.positions[k]), lua_rawseti(L, -2, k + 1);
  lua_setfield(L, -2, "vertices");
  lua_createtable(L, (int)(4 * v.tet_count), 0);
  for (uint32_t k = 0; k < 4 * v.tet_count; ++k)
    lua_pushinteger(L, (lua_Integer)v.tets[k] + 1), lua_rawseti(L, -2, k + 1);
  lua_setfield(L, -2, "tets");
  lua_createtable(L, (int)v.tet_count, 0);
  lua_newtable(L);
  for (uint32_t t = 0; t < v.tet_count; ++t) {
    lua_pushinteger(L, v.regions[t]), lua_rawseti(L, -3, t + 1);
    const char *name = tf_tetmesh_region_name(m, v.regions[t]);
    if (name) lua_pushstring(L, name), lua_rawseti(L, -2, v.regions[t]);
  }
  lua_setfield(L, -3, "region_names");
  lua_setfield(L, -2, "regions");
  tf_tetmesh_destroy(m);
  return 1;
}

const luaL_Reg TFL_FLESH_METHODS[] = {{"surface_positions", l_surface_positions},
                                      {"rest_positions", l_rest_positions},
                                      {"surface_count", l_surface_count},
                                      {"info", l_info},
                                      {NULL, NULL}};

const luaL_Reg TFL_FLESH_LIB[] = {{"flesh", l_flesh}, {"tet_load", l_tet_load}, {NULL, NULL}};
