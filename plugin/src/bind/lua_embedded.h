/* SPDX-License-Identifier: MIT
 * The pure-Lua layer (lua/tauform/ files) compiled into the binary by plugin/cmake/embed_lua.cmake.
 */
#ifndef TF_BIND_LUA_EMBEDDED_H
#define TF_BIND_LUA_EMBEDDED_H

#include <stddef.h>

typedef struct tf_lua_source {
  const char *module;    /* "tauform", "tauform.rig", ... */
  const char *chunkname; /* "@lua/tauform/rig.lua": errors name the source file */
  const unsigned char *src;
  size_t len;
} tf_lua_source;

extern const tf_lua_source tf_lua_sources[];
extern const size_t tf_lua_source_count;

#endif
