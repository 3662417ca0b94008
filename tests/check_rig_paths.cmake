# Run the cape rig headless under lua5.4 and through a C host (tf_rig_*), and require the two PC2
# caches to be identical byte for byte.
set(rig ${ROOT}/examples/cape/cape.lua)
execute_process(COMMAND ${LUA} ${ROOT}/examples/run.lua ${rig} --frames 1-24 --out ${WORK}/rig_lua.pc2 --quiet
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "lua5.4 run failed")
endif()
execute_process(COMMAND ${HOST} ${rig} --lib ${LIB} --frames 1-24 --out ${WORK}/rig_c.pc2 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "C host run failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/rig_lua.pc2 ${WORK}/rig_c.pc2 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the C host's cache differs from lua5.4's")
endif()
file(SIZE ${WORK}/rig_c.pc2 size)
message(STATUS "identical caches: ${size} bytes")
