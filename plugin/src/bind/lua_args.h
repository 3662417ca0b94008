/* SPDX-License-Identifier: MIT
 * What every binding function shares: the simulation userdata, the counting allocator (one per
 * lua_State, its total reported by `tauform.core.native_bytes()` so tests can see close and
 * collection release a simulation exactly once), and readers of Lua arguments that raise
 * "bad argument #n to 'name' (...)" naming the field or entry. Arrays come in flat
 * {x1, y1, z1, ...} or nested {{x, y, z}, ...}; indices are 1-based. */
#ifndef TF_BIND_LUA_ARGS_H
#define TF_BIND_LUA_ARGS_H

#include <lauxlib.h>
#include <lua.h>
#include <stddef.h>
#include <stdint.h>

#include "tauform.h"

#define SIM_MT "tauform.sim"

typedef struct lsim {
  tf_sim *sim; /* NULL once closed */
  uint32_t n;  /* simulation vertices */
  int flesh;
} lsim;

typedef struct lmem {
  long long live_bytes;
  long long allocations;
} lmem;

void *tfl_count_alloc(size_t size, size_t align, void *ud);
void tfl_count_free(void *p, size_t size, void *ud);
lmem *tfl_get_mem(lua_State *L);

/* Sizes from Lua are checked before use: a table's length (or its __len) is refused when it is
 * negative, above UINT32_MAX (the C ABI counts in uint32_t) or its last entry is nil (a __len that
 * lies), and scratch arrays are sized only through tfl_checked_array, so no size computation can
 * wrap around and leave a small buffer behind a long loop. */
#define TFL_MAX_COUNT ((lua_Integer)UINT32_MAX)
/* a mesh's vertices, so that its 3 * vert_count coordinates still fit a uint32_t */
#define TFL_MAX_VERTS ((lua_Integer)0x3fffffff)

/* length of the table at idx in 0..TFL_MAX_COUNT, its entry #t present; raises naming `what` */
lua_Integer tfl_len(lua_State *L, int idx, int arg, const char *what);
/* Lua-managed scratch (a userdata left on the stack, so a raised error frees it) for count
 * elements of elem_size bytes, at least one; raises naming `what` if the size cannot be represented
 */
void *tfl_checked_array(lua_State *L, int arg, lua_Integer count, size_t elem_size,
                        const char *what);
/* an optional whole-number field of table idx in lo..hi into *out (returns 1 when present);
 * anything else raises "<prefix><key> must be a whole number in lo..hi, got v" */
int tfl_opt_uint_field(lua_State *L, int idx, int arg, const char *prefix, const char *key,
                       uint32_t lo, uint32_t hi, uint32_t *out);

/* count of 3-vectors in a flat or nested table at idx */
lua_Integer tfl_vec3_count(lua_State *L, int idx, int arg, const char *what);
/* read count 3-vectors (flat or nested) into out */
void tfl_read_vec3(lua_State *L, int idx, int arg, const char *what, lua_Integer count,
                   double *out);
/* number of indices in a flat array or a nested one of `width`-tuples (triangles 3, tets 4) */
lua_Integer tfl_index_count(lua_State *L, int idx, int arg, const char *what, int width);
/* 1-based index array (flat, or nested `width`-tuples when width != 0; limit 0: no upper bound)
 * into 0-based out */
void tfl_read_indices(lua_State *L, int idx, int arg, const char *what, lua_Integer count,
                      int width, uint32_t limit, uint32_t *out);
/* a numeric field of table idx into *out when present (returns 1); raises on a non-number */
int tfl_opt_number_field(lua_State *L, int idx, int arg, const char *key, double *out);
void tfl_opt_vec3_field(lua_State *L, int idx, int arg, const char *key, double out[3]);
/* a string field of table idx naming one of names (NULL-terminated): its index into *out when
 * present (returns 1); raises naming the choices otherwise */
int tfl_opt_enum_field(lua_State *L, int idx, int arg, const char *key, const char *const *names,
                       int *out);

/* argument 1 as an open simulation, or raise */
lsim *tfl_check_open(lua_State *L);
/* expected failure: nil, message, status name */
int tfl_push_fail(lua_State *L, tf_sim *sim, tf_status st);
/* a new sim userdata (closed until its sim is set) with the simulation metatable */
lsim *tfl_new_sim(lua_State *L);
/* solver = { max_newton, max_cg, tolerance, abs_tolerance, threads } of table idx into s and
 * *threads (the def's, 1.10) */
void tfl_read_solver(lua_State *L, int idx, int arg, tf_solver_settings *s, uint32_t *threads);

/* lua_flesh.c: tauform.core.flesh, tet_load and the flesh methods (merged into the sim's) */
extern const luaL_Reg TFL_FLESH_METHODS[];
extern const luaL_Reg TFL_FLESH_LIB[];
/* lua_contact.c: sim:collider and sim:collider_count (merged into the sim's methods), and the
 * collider metatable, registered by tfl_open_contact */
extern const luaL_Reg TFL_CONTACT_METHODS[];
void tfl_open_contact(lua_State *L);
/* lua_response.c: sim:response_levels, set_response, response and set_forces (merged likewise) */
extern const luaL_Reg TFL_RESPONSE_METHODS[];

#endif
