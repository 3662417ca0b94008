/* SPDX-License-Identifier: MIT
 * Lua 5.4 binding of the C ABI: `tauform.core`, a simulation userdata with methods, plus the
 * library functions. Misuse raises "bad argument #n to 'name' (...)"; expected run-time
 * failures return nil, message, status name. Arrays come in as flat {x1, y1, z1, x2, ...} or
 * nested {{x, y, z}, ...} tables; vertex indices are 1-based as everywhere in Lua. All native
 * memory goes through a counting allocator whose total `tauform.core.native_bytes()` reports,
 * so tests can see that close and garbage collection release a simulation exactly once.
 *
 * This file only calls the public tf_* API: it is linked into the Lua module (against the
 * interpreter's Lua) and into the rig runner (against the library's private Lua). */
#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bind/lua_args.h"
#include "bind/lua_tauform.h"
#include "tauform.h"

/* ---- simulation userdata --------------------------------------------------------------------- */

static const char *const INTEGRATORS[] = {"tau", "strain_rate", NULL};

static int l_cloth(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  tf_cloth_def def;
  tf_cloth_def_init(&def);
  def.index_base = 1; /* messages name vertices, triangles and pins as Lua numbers them */
  /* mesh */
  if (lua_getfield(L, 1, "vertices") != LUA_TTABLE)
    luaL_argerror(L, 1, "field 'vertices' (a table) is required");
  int vi = lua_gettop(L);
  lua_Integer nv = tfl_vec3_count(L, vi, 1, "vertices");
  if (lua_getfield(L, 1, "triangles") != LUA_TTABLE)
    luaL_argerror(L, 1, "field 'triangles' (a table) is required");
  int ti = lua_gettop(L);
  lua_Integer nt3 = tfl_index_count(L, ti, 1, "triangles", 3);
  if (nv < 3 || nv > TFL_MAX_VERTS)
    luaL_argerror(
        L, 1,
        lua_pushfstring(L, "field 'vertices': need 3 to %I vertices, got %I", TFL_MAX_VERTS, nv));
  /* scratch in Lua-managed memory so a raised error frees it */
  double *pos = tfl_checked_array(L, 1, nv, 3 * sizeof(double), "vertices");
  uint32_t *tri = tfl_checked_array(L, 1, nt3, sizeof(uint32_t), "triangles");
  tfl_read_vec3(L, vi, 1, "vertices", nv, pos);
  tfl_read_indices(L, ti, 1, "triangles", nt3, 3, (uint32_t)nv, tri);
  def.rest_positions = pos;
  def.vert_count = (uint32_t)nv;
  def.triangles = tri;
  def.tri_count = (uint32_t)(nt3 / 3);
  double *masses = NULL;
  int mt = lua_getfield(L, 1, "masses");
  if (mt != LUA_TNIL && mt != LUA_TTABLE)
    luaL_argerror(L, 1, "field 'masses' must be a table of one mass per vertex");
  if (mt == LUA_TTABLE) {
    int mi = lua_gettop(L);
    if (tfl_len(L, mi, 1, "masses") != nv)
      luaL_argerror(L, 1, "field 'masses' must have one entry per vertex");
    masses = tfl_checked_array(L, 1, nv, sizeof(double), "masses");
    for (lua_Integer i = 0; i < nv; ++i) {
      lua_geti(L, mi, i + 1);
      int isnum = 0;
      masses[i] = lua_tonumberx(L, -1, &isnum);
      if (!isnum) luaL_argerror(L, 1, lua_pushfstring(L, "masses[%I] is not a number", i + 1));
      lua_pop(L, 1);
    }
    def.vertex_masses = masses;
  }
  tfl_opt_number_field(L, 1, 1, "density", &def.density);
  tfl_opt_number_field(L, 1, 1, "total_mass", &def.total_mass);
  tfl_opt_number_field(L, 1, 1, "stretch", &def.stretch_stiffness);
  tfl_opt_number_field(L, 1, 1, "poisson", &def.poisson);
  tfl_opt_number_field(L, 1, 1, "bend", &def.bend_stiffness);
  tfl_opt_number_field(L, 1, 1, "bend_poisson", &def.bend_poisson);
  static const char *const BEND_MODELS[] = {"shell", "hinge", NULL};       /* tf_bend_model order */
  static const char *const CLOTH_MODELS[] = {"membrane", "springs", NULL}; /* tf_cloth_model */
  int choice;
  if (tfl_opt_enum_field(L, 1, 1, "bend_model", BEND_MODELS, &choice))
    def.bend_model = (tf_bend_model)choice;
  if (tfl_opt_enum_field(L, 1, 1, "cloth_model", CLOTH_MODELS, &choice))
    def.cloth_model = (tf_cloth_model)choice;
  tfl_opt_number_field(L, 1, 1, "shear", &def.shear_stiffness);
  tfl_opt_number_field(L, 1, 1, "bend_springs", &def.bend_spring_stiffness);
  tfl_opt_number_field(L, 1, 1, "tau", &def.tau);
  tfl_opt_number_field(L, 1, 1, "kappa", &def.kappa);
  tfl_opt_number_field(L, 1, 1, "phi", &def.phi);
  tfl_opt_number_field(L, 1, 1, "psi", &def.psi);
  tfl_opt_number_field(L, 1, 1, "pin_stiffness", &def.pin_stiffness);
  tfl_opt_vec3_field(L, 1, 1, "gravity", def.gravity);
  if (tfl_opt_enum_field(L, 1, 1, "integrator", INTEGRATORS, &choice))
    def.integrator = (tf_integrator)choice;
  tfl_read_solver(L, 1, 1, &def.solver, &def.threads);
  lmem *mem = tfl_get_mem(L);
  def.allocator.alloc = tfl_count_alloc;
  def.allocator.free = tfl_count_free;
  def.allocator.ud = mem;
  lsim *p = tfl_new_sim(L);
  p->n = (uint32_t)nv;
  char err[512];
  tf_status st = tf_cloth_create(&def, &p->sim, err, sizeof err);
  if (st == TF_E_NOMEM) return luaL_error(L, "tauform.cloth: %s", err);
  if (st != TF_OK) return luaL_argerror(L, 1, err);
  return 1;
}

static int l_advance(lua_State *L) {
  lsim *p = tfl_check_open(L);
  lua_Number dt = luaL_checknumber(L, 2);
  lua_Integer sub = luaL_optinteger(L, 3, 1);
  luaL_argcheck(L, dt > 0, 2, "dt must be positive");
  luaL_argcheck(L, sub >= 1 && sub <= TF_MAX_SUBSTEPS, 3, "substeps must be in 1..10000");
  tf_status st = tf_sim_advance(p->sim, dt, (uint32_t)sub);
  if (st != TF_OK) return tfl_push_fail(L, p->sim, st);
  lua_pushboolean(L, 1);
  return 1;
}

typedef tf_status (*read_fn)(const tf_sim *, double *, uint32_t);

/* flat {x1, y1, z1, ...} into table arg 2 (reused) or a new one */
static int push_vectors(lua_State *L, read_fn fn) {
  lsim *p = tfl_check_open(L);
  if (lua_isnoneornil(L, 2))
    lua_createtable(L, (int)(3 * p->n), 0);
  else
    luaL_checktype(L, 2, LUA_TTABLE), lua_pushvalue(L, 2);
  /* the scratch stays on the stack (alive) while the table is filled */
  double *buf = lua_newuserdatauv(L, sizeof(double) * 3 * p->n, 0);
  fn(p->sim, buf, p->n);
  for (uint32_t k = 0; k < 3 * p->n; ++k) {
    lua_pushnumber(L, buf[k]);
    lua_rawseti(L, -3, (lua_Integer)k + 1);
  }
  lua_pop(L, 1);
  return 1;
}

static int l_positions(lua_State *L) { return push_vectors(L, tf_sim_get_positions); }
static int l_velocities(lua_State *L) { return push_vectors(L, tf_sim_get_velocities); }
static int l_normals(lua_State *L) { return push_vectors(L, tf_sim_get_normals); }
static int l_forces(lua_State *L) { return push_vectors(L, tf_sim_get_forces); }

/* sim:triangles(): flat 1-based vertex triples (a cloth's mesh, a flesh body's tet boundary) */
static int l_triangles(lua_State *L) {
  lsim *p = tfl_check_open(L);
  uint32_t m = tf_sim_tri_count(p->sim);
  lua_createtable(L, (int)(3 * m), 0);
  uint32_t *buf = lua_newuserdatauv(L, sizeof(uint32_t) * 3 * (size_t)(m ? m : 1), 0);
  tf_sim_get_triangles(p->sim, buf, m);
  for (uint32_t k = 0; k < 3 * m; ++k)
    lua_pushinteger(L, (lua_Integer)buf[k] + 1), lua_rawseti(L, -3, (lua_Integer)k + 1);
  lua_pop(L, 1);
  return 1;
}

/* sim:topology(): what tearing made of the mesh (tf_sim_get_topology) */
static int l_topology(lua_State *L) {
  lsim *p = tfl_check_open(L);
  tf_topology t = {.struct_size = sizeof t};
  tf_sim_get_topology(p->sim, &t);
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, t.vert_count), lua_setfield(L, -2, "vertices");
  lua_pushinteger(L, t.tri_count), lua_setfield(L, -2, "triangles");
  lua_pushinteger(L, t.original_vert_count), lua_setfield(L, -2, "original_vertices");
  lua_pushinteger(L, t.torn_edges), lua_setfield(L, -2, "torn_edges");
  lua_pushinteger(L, (lua_Integer)t.serial), lua_setfield(L, -2, "serial");
  lua_pushboolean(L, t.changed), lua_setfield(L, -2, "changed");
  return 1;
}

/* sim:origins() / sim:parents(): each vertex's vertex of the mesh at create, or the vertex it was
 * split from, 1-based */
static int push_vertex_map(lua_State *L, tf_status (*get)(const tf_sim *, uint32_t *, uint32_t)) {
  lsim *p = tfl_check_open(L);
  lua_createtable(L, (int)p->n, 0);
  uint32_t *buf = lua_newuserdatauv(L, sizeof(uint32_t) * (size_t)(p->n ? p->n : 1), 0);
  get(p->sim, buf, p->n);
  for (uint32_t i = 0; i < p->n; ++i)
    lua_pushinteger(L, (lua_Integer)buf[i] + 1), lua_rawseti(L, -3, (lua_Integer)i + 1);
  lua_pop(L, 1);
  return 1;
}
static int l_origins(lua_State *L) { return push_vertex_map(L, tf_sim_get_vertex_origins); }
static int l_parents(lua_State *L) { return push_vertex_map(L, tf_sim_get_vertex_parents); }

static int l_position(lua_State *L) {
  lsim *p = tfl_check_open(L);
  lua_Integer i = luaL_checkinteger(L, 2);
  luaL_argcheck(L, i >= 1 && i <= (lua_Integer)p->n, 2, "vertex index out of range");
  double *buf = lua_newuserdatauv(L, sizeof(double) * 3 * p->n, 0);
  tf_sim_get_positions(p->sim, buf, p->n);
  lua_pushnumber(L, buf[3 * (i - 1)]);
  lua_pushnumber(L, buf[3 * (i - 1) + 1]);
  lua_pushnumber(L, buf[3 * (i - 1) + 2]);
  return 3;
}

static int l_vert_count(lua_State *L) {
  lsim *p = tfl_check_open(L);
  lua_pushinteger(L, p->n);
  return 1;
}

static int l_energy(lua_State *L) {
  lsim *p = tfl_check_open(L);
  double e = 0.0;
  tf_sim_get_energy(p->sim, &e);
  lua_pushnumber(L, e);
  return 1;
}

/* the library's parameter table (tf_param_get_info): Lua and rigs use its short names */
#define NPARAM ((int)TF_PARAM_COUNT_)
static tf_param_info param_info(int k) {
  tf_param_info in = {.struct_size = sizeof in};
  tf_param_get_info((tf_param)k, &in);
  return in;
}

/* core.params: { [short name] = { name, unit, doc, count, lo, hi, lo_open, hi_open, integer,
 * keyable, cloth, flesh, default }, ... } for schemas and the reference */
static void push_param_table(lua_State *L) {
  lua_createtable(L, 0, NPARAM);
  for (int k = 0; k < NPARAM; ++k) {
    tf_param_info in = param_info(k);
    lua_createtable(L, 0, 14);
    lua_pushstring(L, in.name), lua_setfield(L, -2, "c_name");
    lua_pushstring(L, in.short_name), lua_setfield(L, -2, "name");
    lua_pushstring(L, in.unit), lua_setfield(L, -2, "unit");
    lua_pushstring(L, in.doc), lua_setfield(L, -2, "doc");
    lua_pushinteger(L, in.count), lua_setfield(L, -2, "count");
    lua_pushnumber(L, in.lo), lua_setfield(L, -2, "lo");
    lua_pushnumber(L, in.hi), lua_setfield(L, -2, "hi");
    lua_pushboolean(L, in.lo_open), lua_setfield(L, -2, "lo_open");
    lua_pushboolean(L, in.hi_open), lua_setfield(L, -2, "hi_open");
    lua_pushboolean(L, in.integer), lua_setfield(L, -2, "integer");
    lua_pushboolean(L, in.keyable), lua_setfield(L, -2, "keyable");
    lua_pushboolean(L, (in.kinds & TF_PARAM_FOR_CLOTH) != 0), lua_setfield(L, -2, "cloth");
    lua_pushboolean(L, (in.kinds & TF_PARAM_FOR_FLESH) != 0), lua_setfield(L, -2, "flesh");
    lua_pushinteger(L, k), lua_setfield(L, -2, "id");
    if (in.count == 1) {
      lua_pushnumber(L, in.default_values[0]);
    } else {
      lua_createtable(L, 3, 0);
      for (int i = 0; i < 3; ++i)
        lua_pushnumber(L, in.default_values[i]), lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "default");
    lua_setfield(L, -2, in.short_name);
  }
}

/* the parameter a Lua name means, or -1 */
static int param_by_name(const char *key) {
  for (int k = 0; key && k < NPARAM; ++k)
    if (strcmp(key, param_info(k).short_name) == 0) return k;
  return -1;
}

/* the parameters tf_sim_set_param_map takes: a table of one value per vertex */
static int has_map(int k) {
  return k == TF_PARAM_BEND_STIFFNESS || k == TF_PARAM_STRETCH_STIFFNESS ||
         k == TF_PARAM_SELF_CONTACT || k == TF_PARAM_PLASTIC_YIELD || k == TF_PARAM_PLASTIC_LIMIT ||
         k == TF_PARAM_BEND_YIELD || k == TF_PARAM_BEND_PLASTIC_LIMIT || k == TF_PARAM_TEAR_STRAIN;
}

/* sim:set{tau = ..., bend = number or per-vertex table, gravity = {x, y, z}, ...}: every value
 * is checked before any is applied, so a bad table changes nothing */
static int l_set(lua_State *L) {
  lsim *p = tfl_check_open(L);
  luaL_checktype(L, 2, LUA_TTABLE);
  /* unknown keys are misuse */
  lua_pushnil(L);
  while (lua_next(L, 2)) {
    const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (param_by_name(key) < 0)
      luaL_argerror(L, 2, lua_pushfstring(L, "unknown parameter '%s'", key ? key : "?"));
    lua_pop(L, 1);
  }
  double vals[NPARAM][3];
  int present[NPARAM] = {0};
  uint32_t count[NPARAM];
  double *maps[NPARAM] = {NULL}; /* per-vertex tables (has_map) */
  for (int k = 0; k < NPARAM; ++k) {
    tf_param_info in = param_info(k);
    count[k] = in.count;
    int t = lua_getfield(L, 2, in.short_name);
    if (t != LUA_TNIL) {
      present[k] = 1;
      if (in.count == 3) {
        if (t != LUA_TTABLE || tfl_vec3_count(L, lua_gettop(L), 2, in.short_name) != 1)
          luaL_argerror(L, 2, lua_pushfstring(L, "'%s' must be {x, y, z}", in.short_name));
        tfl_read_vec3(L, lua_gettop(L), 2, in.short_name, 1, vals[k]);
      } else if (t == LUA_TTABLE && has_map(k)) {
        const char *nm = in.short_name;
        if (tfl_len(L, -1, 2, nm) != (lua_Integer)p->n)
          luaL_argerror(L, 2, lua_pushfstring(L, "'%s' map must have one value per vertex", nm));
        double *map = maps[k] = tfl_checked_array(L, 2, p->n, sizeof(double), nm);
        lua_insert(L, -2);
        for (uint32_t i = 0; i < p->n; ++i) {
          lua_geti(L, -1, (lua_Integer)i + 1);
          int isnum = 0;
          map[i] = lua_tonumberx(L, -1, &isnum);
          if (!isnum)
            luaL_argerror(L, 2,
                          lua_pushfstring(L, "'%s'[%I] is not a number", nm, (lua_Integer)i + 1));
          lua_pop(L, 1);
        }
        present[k] = 2;
      } else {
        int isnum = 0;
        vals[k][0] = lua_tonumberx(L, -1, &isnum);
        if (!isnum) luaL_argerror(L, 2, lua_pushfstring(L, "'%s' must be a number", in.short_name));
      }
    }
    lua_pop(L, 1);
  }
  /* check everything first, then apply: a bad table changes nothing (no undo, which could not
   * restore a per-vertex map) */
  char err[512];
  for (int k = 0; k < NPARAM; ++k) {
    if (present[k] == 1 && tf_sim_check_param(p->sim, (tf_param)k, vals[k], count[k]) != TF_OK)
      return luaL_argerror(L, 2, tf_sim_last_error(p->sim));
    /* a map's parameter must belong to this simulation (the kind check of its first value) */
    if (present[k] == 2 && tf_sim_check_param(p->sim, (tf_param)k, maps[k], 1) != TF_OK &&
        tf_param_check((tf_param)k, maps[k], 1, err, sizeof err) == TF_OK)
      return luaL_argerror(L, 2, tf_sim_last_error(p->sim));
    if (present[k] == 2)
      for (uint32_t i = 0; i < p->n; ++i)
        if (tf_param_check((tf_param)k, &maps[k][i], 1, err, sizeof err) != TF_OK)
          return luaL_argerror(L, 2,
                               lua_pushfstring(L, "'%s'[%I]: %s", param_info(k).short_name,
                                               (lua_Integer)i + 1, err));
  }
  for (int pass = 1; pass <= 2; ++pass)
    for (int k = 0; k < NPARAM; ++k) {
      if (present[k] != pass) continue;
      if (pass == 2) {
        if (tf_sim_set_param_map(p->sim, (tf_param)k, maps[k], p->n) != TF_OK)
          return luaL_error(L, "%s", tf_sim_last_error(p->sim)); /* out of memory only */
      } else
        tf_sim_set_param(p->sim, (tf_param)k, vals[k], count[k]);
    }
  lua_settop(L, 1);
  return 1;
}

static int l_get(lua_State *L) {
  lsim *p = tfl_check_open(L);
  const char *key = luaL_checkstring(L, 2);
  int k = param_by_name(key);
  if (k >= 0) {
    double v[3];
    tf_sim_get_param(p->sim, (tf_param)k, v, 3);
    if (param_info(k).count == 1) {
      lua_pushnumber(L, v[0]);
    } else {
      lua_createtable(L, 3, 0);
      for (int i = 0; i < 3; ++i) lua_pushnumber(L, v[i]), lua_rawseti(L, -2, i + 1);
    }
    return 1;
  }
  return luaL_argerror(L, 2, lua_pushfstring(L, "unknown parameter '%s'", key));
}

static int l_pin(lua_State *L) {
  lsim *p = tfl_check_open(L);
  lua_settop(L, 3); /* scratch goes above the arguments */
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_Integer count = tfl_len(L, 2, 2, "indices");
  luaL_argcheck(L, count <= (lua_Integer)p->n, 2, "more pins than vertices");
  uint32_t *idx = tfl_checked_array(L, 2, count, sizeof(uint32_t), "indices");
  tfl_read_indices(L, 2, 2, "indices", count, 0, p->n, idx);
  double *w = NULL;
  if (!lua_isnoneornil(L, 3)) {
    w = tfl_checked_array(L, 3, count, sizeof(double), "weights");
    if (lua_isnumber(L, 3)) {
      for (lua_Integer i = 0; i < count; ++i) w[i] = lua_tonumber(L, 3);
    } else {
      luaL_checktype(L, 3, LUA_TTABLE);
      luaL_argcheck(L, tfl_len(L, 3, 3, "weights") == count, 3, "one weight per pinned vertex");
      for (lua_Integer i = 0; i < count; ++i) {
        lua_geti(L, 3, i + 1);
        int isnum = 0;
        w[i] = lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 1);
        if (!isnum) luaL_argerror(L, 3, lua_pushfstring(L, "weight %I is not a number", i + 1));
      }
    }
  }
  tf_status st = tf_sim_set_pins(p->sim, idx, w, (uint32_t)count);
  if (st != TF_OK) return luaL_argerror(L, w ? 3 : 2, tf_sim_last_error(p->sim));
  lua_settop(L, 1);
  return 1;
}

static int l_pin_targets(lua_State *L) {
  lsim *p = tfl_check_open(L);
  lua_settop(L, 2);
  lua_Integer count = tfl_vec3_count(L, 2, 2, "targets");
  double *t = tfl_checked_array(L, 2, count, 3 * sizeof(double), "targets");
  tfl_read_vec3(L, 2, 2, "targets", count, t);
  tf_status st = tf_sim_set_pin_targets(p->sim, t, (uint32_t)count);
  if (st != TF_OK) return luaL_argerror(L, 2, tf_sim_last_error(p->sim));
  lua_settop(L, 1);
  return 1;
}

static int l_set_state(lua_State *L) {
  lsim *p = tfl_check_open(L);
  lua_settop(L, 3);
  lua_Integer count = tfl_vec3_count(L, 2, 2, "positions");
  luaL_argcheck(L, count == (lua_Integer)p->n, 2, "one position per vertex");
  double *x = tfl_checked_array(L, 2, count, 3 * sizeof(double), "positions"), *v = NULL;
  tfl_read_vec3(L, 2, 2, "positions", count, x);
  if (!lua_isnoneornil(L, 3)) {
    luaL_argcheck(L, tfl_vec3_count(L, 3, 3, "velocities") == (lua_Integer)p->n, 3,
                  "one velocity per vertex");
    v = tfl_checked_array(L, 3, p->n, 3 * sizeof(double), "velocities");
    tfl_read_vec3(L, 3, 3, "velocities", p->n, v);
  }
  tf_status st = tf_sim_set_state(p->sim, x, v, p->n);
  if (st != TF_OK) return luaL_argerror(L, 2, tf_sim_last_error(p->sim));
  lua_settop(L, 1);
  return 1;
}

/* sim:save_state() -> string: the snapshot's bytes (tf_sim_save_state) */
static int l_save_state(lua_State *L) {
  lsim *p = tfl_check_open(L);
  size_t size = tf_sim_state_size(p->sim);
  luaL_Buffer b;
  char *buf = luaL_buffinitsize(L, &b, size);
  tf_status st = tf_sim_save_state(p->sim, buf, size);
  if (st != TF_OK) return luaL_error(L, "sim:save_state: %s", tf_sim_last_error(p->sim));
  luaL_pushresultsize(&b, size);
  return 1;
}

/* sim:load_state(s) -> sim: a string from sim:save_state (tf_sim_load_state); a refused one
 * raises its reason and leaves the simulation as it was */
static int l_load_state(lua_State *L) {
  lsim *p = tfl_check_open(L);
  size_t size;
  const char *buf = luaL_checklstring(L, 2, &size);
  tf_status st = tf_sim_load_state(p->sim, buf, size);
  if (st != TF_OK) return luaL_argerror(L, 2, tf_sim_last_error(p->sim));
  lua_settop(L, 1);
  return 1;
}

static int l_stats(lua_State *L) {
  lsim *p = tfl_check_open(L);
  tf_stats st;
  memset(&st, 0, sizeof st);
  st.struct_size = sizeof st;
  tf_sim_get_stats(p->sim, &st);
  lua_createtable(L, 0, 16);
  lua_pushinteger(L, st.steps), lua_setfield(L, -2, "steps");
  lua_pushinteger(L, st.newton_iterations), lua_setfield(L, -2, "newton_iterations");
  lua_pushinteger(L, st.cg_iterations), lua_setfield(L, -2, "cg_iterations");
  lua_pushinteger(L, st.max_newton_per_step), lua_setfield(L, -2, "max_newton_per_step");
  lua_pushinteger(L, st.unconverged_steps), lua_setfield(L, -2, "unconverged_steps");
  lua_pushnumber(L, st.residual), lua_setfield(L, -2, "residual");
  lua_pushnumber(L, st.seconds), lua_setfield(L, -2, "seconds");
  lua_pushinteger(L, (lua_Integer)st.total_steps), lua_setfield(L, -2, "total_steps");
  /* 1.5: contact over the last advance (min_distance is inf when nothing was near) */
  lua_pushinteger(L, st.contacts), lua_setfield(L, -2, "contacts");
  lua_pushinteger(L, st.broad_pairs), lua_setfield(L, -2, "broad_pairs");
  lua_pushinteger(L, st.ccd_cuts), lua_setfield(L, -2, "ccd_cuts");
  lua_pushinteger(L, st.intersecting), lua_setfield(L, -2, "intersecting");
  lua_pushinteger(L, st.contact_growths), lua_setfield(L, -2, "contact_growths");
  lua_pushinteger(L, st.collider_substeps), lua_setfield(L, -2, "collider_substeps");
  lua_pushnumber(L, st.min_distance), lua_setfield(L, -2, "min_distance");
  lua_pushnumber(L, st.contact_seconds), lua_setfield(L, -2, "contact_seconds");
  lua_pushinteger(L, st.self_pairs), lua_setfield(L, -2, "self_pairs");
  lua_pushinteger(L, st.self_excluded), lua_setfield(L, -2, "self_excluded");
  lua_pushnumber(L, st.self_seconds), lua_setfield(L, -2, "self_seconds");
  /* 1.10 */
  lua_pushinteger(L, st.threads), lua_setfield(L, -2, "threads");
  return 1;
}

#define HOST_OWNED_KEY "tauform.host_owned"

/* __gc: release once */
static int l_gc(lua_State *L) {
  lsim *p = luaL_checkudata(L, 1, SIM_MT);
  if (p->sim) {
    tf_sim_destroy(p->sim);
    p->sim = NULL;
  }
  return 0;
}

/* close() and __close: release once, unless a C host owns the simulation (rig runner) */
static int l_close(lua_State *L) {
  luaL_checkudata(L, 1, SIM_MT);
  if (lua_getfield(L, LUA_REGISTRYINDEX, HOST_OWNED_KEY) == LUA_TTABLE) {
    lua_pushvalue(L, 1);
    if (lua_rawget(L, -2) != LUA_TNIL)
      return luaL_error(
          L, "this simulation belongs to the host that runs the rig: it cannot be closed from Lua");
  }
  lua_settop(L, 1);
  return l_gc(L);
}

void tf_lua_mark_host_owned(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (lua_getfield(L, LUA_REGISTRYINDEX, HOST_OWNED_KEY) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, HOST_OWNED_KEY);
  }
  lua_pushvalue(L, idx);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

static int l_is_closed(lua_State *L) {
  lsim *p = luaL_checkudata(L, 1, SIM_MT);
  lua_pushboolean(L, p->sim == NULL);
  return 1;
}

static int l_tostring(lua_State *L) {
  lsim *p = luaL_checkudata(L, 1, SIM_MT);
  if (p->sim)
    lua_pushfstring(L, "tauform.sim (%I vertices)", (lua_Integer)p->n);
  else
    lua_pushliteral(L, "tauform.sim (closed)");
  return 1;
}

/* px: the binding's bound on a rendered image's side (a sheet's tile) */
static const uint32_t MAX_IMAGE_SIDE = 16384;
/* shapes on one contact sheet */
static const lua_Integer MAX_SHEET_FRAMES = 1024;

/* render options {width, height, view = {x,y,z}, eye, target, up, fov, wireframe, pins} */
static void read_render(lua_State *L, int idx, tf_render_def *d) {
  tf_render_def_init(d);
  if (lua_isnoneornil(L, idx)) return;
  luaL_checktype(L, idx, LUA_TTABLE);
  tfl_opt_uint_field(L, idx, idx, "", "width", 1, MAX_IMAGE_SIDE, &d->width);
  tfl_opt_uint_field(L, idx, idx, "", "height", 1, MAX_IMAGE_SIDE, &d->height);
  tfl_opt_number_field(L, idx, idx, "fov", &d->fov_deg);
  tfl_opt_vec3_field(L, idx, idx, "view", d->view);
  tfl_opt_vec3_field(L, idx, idx, "eye", d->eye);
  tfl_opt_vec3_field(L, idx, idx, "target", d->target);
  tfl_opt_vec3_field(L, idx, idx, "up", d->up);
  if (lua_getfield(L, idx, "wireframe") != LUA_TNIL) d->wireframe = lua_toboolean(L, -1);
  lua_pop(L, 1);
  if (lua_getfield(L, idx, "pins") != LUA_TNIL) d->show_pins = lua_toboolean(L, -1);
  lua_pop(L, 1);
}

/* sim:render_png(path [, options]) */
static int l_render_png(lua_State *L) {
  lsim *p = tfl_check_open(L);
  const char *path = luaL_checkstring(L, 2);
  tf_render_def d;
  read_render(L, 3, &d);
  tf_status st = tf_sim_render_png(p->sim, &d, path);
  if (st == TF_E_IO) return tfl_push_fail(L, p->sim, st);
  if (st != TF_OK) return luaL_argerror(L, 3, tf_sim_last_error(p->sim));
  lua_pushboolean(L, 1);
  return 1;
}

/* sim:render_sheet(path, { positions1, positions2, ... } [, options with columns]) */
static int l_render_sheet(lua_State *L) {
  lsim *p = tfl_check_open(L);
  const char *path = luaL_checkstring(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  lua_settop(L, 4);
  tf_render_def d;
  read_render(L, 4, &d);
  uint32_t cols = 3;
  if (!lua_isnil(L, 4))
    tfl_opt_uint_field(L, 4, 4, "", "columns", 1, (uint32_t)MAX_SHEET_FRAMES, &cols);
  lua_Integer count = tfl_len(L, 3, 3, "shapes");
  luaL_argcheck(L, count >= 1 && count <= MAX_SHEET_FRAMES, 3, "give 1 to 1024 shapes");
  /* one scratch block for every shape (a single stack slot however many shapes): count pointers,
   * then count shapes of 3 * n doubles; count <= 1024 and n <= TFL_MAX_VERTS bound it well below
   * SIZE_MAX */
  size_t per = 3 * (size_t)p->n;
  const double **frames = tfl_checked_array(
      L, 3, count, sizeof *frames + sizeof(double) * per + sizeof(uint32_t) * p->n, "shapes");
  double *data = (double *)(frames + count);
  /* a shape from before a tear has the vertices of its time: each later copy is drawn where the
   * vertex it was split from was then */
  uint32_t *parent = (uint32_t *)(data + per * (size_t)count);
  tf_sim_get_vertex_parents(p->sim, parent, p->n);
  tf_topology topo = {.struct_size = sizeof topo};
  tf_sim_get_topology(p->sim, &topo);
  for (lua_Integer k = 0; k < count; ++k) {
    lua_geti(L, 3, k + 1);
    int fi = lua_gettop(L);
    lua_Integer m = lua_istable(L, fi) ? tfl_vec3_count(L, fi, 3, "shape") : -1;
    if (m > (lua_Integer)p->n || m < (lua_Integer)topo.original_vert_count)
      luaL_argerror(L, 3, lua_pushfstring(L, "shape %I must have one position per vertex", k + 1));
    double *x = data + per * (size_t)k;
    tfl_read_vec3(L, fi, 3, "shape", (uint32_t)m, x);
    for (uint32_t j = (uint32_t)m; j < p->n; ++j) {
      uint32_t a = parent[j];
      while (a >= (uint32_t)m) a = parent[a];
      memcpy(x + 3 * (size_t)j, x + 3 * (size_t)a, 3 * sizeof(double));
    }
    frames[k] = x;
    lua_pop(L, 1);
  }
  tf_status st = tf_sim_render_sheet_png(p->sim, &d, frames, (uint32_t)count, cols, path);
  if (st == TF_E_IO) return tfl_push_fail(L, p->sim, st);
  if (st != TF_OK) return luaL_argerror(L, 4, tf_sim_last_error(p->sim));
  lua_pushboolean(L, 1);
  return 1;
}

/* sim:settle_tau(settle_time, dt) -> tau, lambda | nil, message, code */
static int l_settle_tau(lua_State *L) {
  lsim *p = tfl_check_open(L);
  double T = luaL_checknumber(L, 2), dt = luaL_checknumber(L, 3), tau = 0, lambda = 0;
  luaL_argcheck(L, T > 0, 2, "settle time must be positive");
  luaL_argcheck(L, dt > 0 && dt < T, 3, "dt must be positive and below the settle time");
  tf_status st = tf_sim_settle_tau(p->sim, T, dt, &tau, &lambda);
  if (st != TF_OK) return tfl_push_fail(L, p->sim, st);
  lua_pushnumber(L, tau);
  lua_pushnumber(L, lambda);
  return 2;
}

/* measure_settle(times, distances [, lambda, dt]) -> { settle_time, rate, tau } */
static int l_measure_settle(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  double lambda = luaL_optnumber(L, 3, 0.0), dt = luaL_optnumber(L, 4, 0.0);
  lua_Integer n = tfl_len(L, 1, 1, "times");
  luaL_argcheck(L, n >= 2 && tfl_len(L, 2, 2, "distances") == n, 2,
                "need as many distances as times (2 or more)");
  luaL_argcheck(L, lambda == 0.0 || dt > 0.0, 4, "give the step dt with lambda");
  double *t = tfl_checked_array(L, 1, n, 2 * sizeof(double), "times"), *d = t + n;
  for (lua_Integer k = 0; k < n; ++k) {
    int a = 0, b = 0;
    lua_geti(L, 1, k + 1);
    lua_geti(L, 2, k + 1);
    t[k] = lua_tonumberx(L, -2, &a);
    d[k] = lua_tonumberx(L, -1, &b);
    lua_pop(L, 2);
    if (!a) luaL_argerror(L, 1, lua_pushfstring(L, "times[%I] is not a number", k + 1));
    if (!b) luaL_argerror(L, 2, lua_pushfstring(L, "distances[%I] is not a number", k + 1));
  }
  tf_settle_report r;
  if (tf_measure_settle(t, d, (uint32_t)n, lambda, dt, &r) != TF_OK)
    return luaL_argerror(L, 1, "times must increase, distances be >= 0 and the first > 0");
  lua_createtable(L, 0, 3);
  if (r.settle_time >= 0) lua_pushnumber(L, r.settle_time), lua_setfield(L, -2, "settle_time");
  lua_pushnumber(L, r.rate), lua_setfield(L, -2, "rate");
  if (r.tau > 0) lua_pushnumber(L, r.tau), lua_setfield(L, -2, "tau");
  return 1;
}

static int l_critical_damping(lua_State *L) {
  double lambda = luaL_checknumber(L, 1), mu = luaL_checknumber(L, 2), rho = luaL_checknumber(L, 3);
  double wl = luaL_checknumber(L, 4), phi = 0, psi = 0;
  tf_status st = tf_critical_damping(lambda, mu, rho, wl, &phi, &psi);
  if (st == TF_E_INVALID_ARG)
    return luaL_error(L, "critical_damping: lambda, mu, rho and wavelength must be positive");
  lua_pushnumber(L, phi);
  lua_pushnumber(L, psi);
  if (st == TF_E_UNSUPPORTED) {
    lua_pushstring(L, "lambda < 2 mu: both waves cannot be critically damped (phi clamped to 0)");
    return 3;
  }
  return 2;
}

/* isatty("stdout" | "stderr"): progress bars only for a person at a terminal */
static int l_isatty(lua_State *L) {
  static const char *const names[] = {"stdin", "stdout", "stderr", NULL};
  int fd = luaL_checkoption(L, 1, "stderr", names);
  lua_pushboolean(L, isatty(fd));
  return 1;
}

static int l_native_bytes(lua_State *L) {
  lmem *m = tfl_get_mem(L);
  lua_pushinteger(L, (lua_Integer)m->live_bytes);
  lua_pushinteger(L, (lua_Integer)m->allocations);
  return 2;
}

static const luaL_Reg SIM_METHODS[] = {{"advance", l_advance},
                                       {"positions", l_positions},
                                       {"velocities", l_velocities},
                                       {"normals", l_normals},
                                       {"forces", l_forces},
                                       {"position", l_position},
                                       {"vert_count", l_vert_count},
                                       {"energy", l_energy},
                                       {"set", l_set},
                                       {"triangles", l_triangles},
                                       {"topology", l_topology},
                                       {"origins", l_origins},
                                       {"parents", l_parents},
                                       {"get", l_get},
                                       {"pin", l_pin},
                                       {"pin_targets", l_pin_targets},
                                       {"set_state", l_set_state},
                                       {"save_state", l_save_state},
                                       {"load_state", l_load_state},
                                       {"stats", l_stats},
                                       {"close", l_close},
                                       {"is_closed", l_is_closed},
                                       {"render_png", l_render_png},
                                       {"render_sheet", l_render_sheet},
                                       {"settle_tau", l_settle_tau},
                                       {NULL, NULL}};

static const luaL_Reg LIB[] = {{"cloth", l_cloth},
                               {"critical_damping", l_critical_damping},
                               {"native_bytes", l_native_bytes},
                               {"isatty", l_isatty},
                               {"measure_settle", l_measure_settle},
                               {NULL, NULL}};

int tf_luaopen_core(lua_State *L) {
  /* the same major version, and at least the minor this binding was built against (it calls 1.4's
   * tf_param_get_info, reads TF_PARAM_TIME and 1.5's contact parameters, and adds colliders) */
  if ((tf_version() >> 16) != TF_VERSION_MAJOR || ((tf_version() >> 8) & 0xff) < TF_VERSION_MINOR)
    return luaL_error(L, "tauform: library %s, binding built for %d.%d or a later %d.x",
                      tf_version_string(), TF_VERSION_MAJOR, TF_VERSION_MINOR, TF_VERSION_MAJOR);
  if (luaL_newmetatable(L, SIM_MT)) {
    luaL_newlib(L, SIM_METHODS);
    luaL_setfuncs(L, TFL_FLESH_METHODS, 0);
    luaL_setfuncs(L, TFL_CONTACT_METHODS, 0);
    luaL_setfuncs(L, TFL_RESPONSE_METHODS, 0);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, l_gc), lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, l_close), lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, l_tostring), lua_setfield(L, -2, "__tostring");
  }
  lua_pop(L, 1);
  tfl_open_contact(L);
  luaL_newlib(L, LIB);
  luaL_setfuncs(L, TFL_FLESH_LIB, 0);
  lua_pushstring(L, tf_version_string()), lua_setfield(L, -2, "version");
  push_param_table(L);
  lua_setfield(L, -2, "params");
  return 1;
}
