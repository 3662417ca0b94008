# Install tauform into a scratch prefix, MOVE the installed tree elsewhere, then build and run
# consumers from the moved place: through find_package, through pkg-config (when present; the .pc
# file finds its prefix from its own directory), the Lua module, and the C rig host (no --lib: it
# finds the library through its RUNPATH). Nothing may still point at the first prefix.
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/staged RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed")
endif()
file(RENAME ${WORK}/staged ${WORK}/moved)
set(prefix ${WORK}/moved)
# the header, the library with its SONAME link, the pkg-config file and the CMake package
foreach(f include/tauform.h libtauform.so libtauform.so.1 pkgconfig/tauform.pc cmake/tauform/tauformConfig.cmake)
  get_filename_component(name ${f} NAME)
  file(GLOB_RECURSE found ${prefix}/*/${name})
  if(NOT found)
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${WORK}/consumer -DCMAKE_PREFIX_PATH=${prefix}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "find_package(tauform) consumer failed to configure from the moved prefix")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/consumer RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer failed to build")
endif()
file(GLOB libdirs ${prefix}/lib ${prefix}/lib/*-linux-gnu*)
string(REPLACE ";" ":" ldpath "${libdirs}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${ldpath} ${WORK}/consumer/consumer RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer failed to run")
endif()

# pkg-config from the moved tree: flags name the moved prefix, never the staging one or the
# configured CMAKE_INSTALL_PREFIX; the consumer compiles, links and runs with exactly those flags
find_program(PKG_CONFIG pkg-config)
find_program(CC NAMES cc gcc clang)
if(PKG_CONFIG)
  file(GLOB pcdir ${prefix}/lib/pkgconfig ${prefix}/lib/*/pkgconfig)
  set(pc_env ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pcdir} PKG_CONFIG_LIBDIR=${pcdir})
  execute_process(COMMAND ${pc_env} ${PKG_CONFIG} --cflags --libs tauform
                  OUTPUT_VARIABLE flags RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${pc_env} ${PKG_CONFIG} --variable=libdir tauform
                  OUTPUT_VARIABLE pc_libdir OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0 OR NOT flags MATCHES "-ltauform" OR NOT flags MATCHES "${WORK}/moved/" OR flags MATCHES "staged")
    message(FATAL_ERROR "pkg-config tauform from the moved prefix: '${flags}'")
  endif()
  message(STATUS "pkg-config: ${flags}")
  if(CC)
    separate_arguments(flag_list UNIX_COMMAND "${flags}")
    execute_process(COMMAND ${CC} ${SRC}/consumer.c -o ${WORK}/pc_consumer ${flag_list}
                    RESULT_VARIABLE rc ERROR_VARIABLE e)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "consumer failed to compile with pkg-config's flags: ${e}")
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${pc_libdir} ${WORK}/pc_consumer
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "pkg-config consumer failed to run (LD_LIBRARY_PATH=${pc_libdir})")
    endif()
    message(STATUS "pkg-config consumer: ${out}")
  endif()
endif()

# the Lua module and the pure-Lua layer land where lua5.4 looks (lib/lua/5.4, share/lua/5.4 under
# the prefix), and the module finds libtauform.so through its RPATH
if(LUA)
  file(GLOB_RECURSE mod ${prefix}/*/lua/5.4/tauform.so)
  file(GLOB_RECURSE init ${prefix}/share/lua/5.4/tauform/init.lua)
  if(NOT mod OR NOT init)
    message(FATAL_ERROR "Lua module or lua/tauform not installed under lib/lua/5.4 and share/lua/5.4")
  endif()
  get_filename_component(moddir ${mod} DIRECTORY)
  set(ENV{LUA_CPATH} "${moddir}/?.so")
  set(ENV{LUA_PATH} "${prefix}/share/lua/5.4/?.lua;${prefix}/share/lua/5.4/?/init.lua")
  execute_process(COMMAND ${LUA} -e "local t = require 'tauform'; local s = t.cloth(t.mesh.grid{}); assert(s:advance(0.04)); io.write(t.version)"
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "installed Lua module failed: ${e}")
  endif()
  # the header's version (what the library reports) is the package's (CMakeLists.txt project())
  if(VERSION AND NOT out STREQUAL VERSION)
    message(FATAL_ERROR "the library reports version ${out}, the CMake project is ${VERSION}: bump both")
  endif()
  message(STATUS "installed Lua module: tauform ${out}")
endif()

# the installed C rig host runs a rig without --lib and without LD_LIBRARY_PATH
file(GLOB rig_host ${prefix}/bin/tauform_rig_host)
if(rig_host)
  get_filename_component(root ${SRC}/../.. ABSOLUTE)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${rig_host} ${root}/examples/cape/cape.lua
                          --frames 1-2 --out ${WORK}/rig_host.pc2
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE e)
  if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK}/rig_host.pc2)
    message(FATAL_ERROR "installed tauform_rig_host failed from the moved prefix: ${e}")
  endif()
  message(STATUS "installed rig host: ${out}")
endif()
