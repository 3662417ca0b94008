# Generates a C file holding lua/tauform/ files as byte arrays, so the Lua module and the rig
# runner carry the pure-Lua layer they were built with (no search path needed).
#   cmake -DOUT=file.c -DROOT=<source dir> -P embed_lua.cmake
file(GLOB files RELATIVE ${ROOT}/lua ${ROOT}/lua/tauform/*.lua)
list(SORT files)
set(body "/* generated from lua/tauform/ files by plugin/cmake/embed_lua.cmake: do not edit */\n#include \"bind/lua_embedded.h\"\n\n")
set(table "")
set(i 0)
foreach(f ${files})
  file(READ ${ROOT}/lua/${f} hex HEX)
  string(LENGTH "${hex}" hexlen)
  math(EXPR len "${hexlen} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND body "static const unsigned char src${i}[] = {${bytes}0x00};\n")
  # module name: tauform/init.lua -> tauform, tauform/rig.lua -> tauform.rig
  string(REGEX REPLACE "\\.lua$" "" mod "${f}")
  string(REGEX REPLACE "/init$" "" mod "${mod}")
  string(REPLACE "/" "." mod "${mod}")
  string(APPEND table "  {\"${mod}\", \"@lua/${f}\", src${i}, ${len}},\n")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND body "\nconst tf_lua_source tf_lua_sources[] = {\n${table}};\nconst size_t tf_lua_source_count = ${i};\n")
file(WRITE ${OUT}.tmp "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
