# SPDX-License-Identifier: MIT
# The Blender add-on: build/blender/tauform/ (the add-on's Python files and, in lib/, this build's
# libtauform and its rig runner) zipped as tauform-blender-VERSION.zip, the file Blender's
# Preferences > Add-ons > Install takes; cmake --install puts the zip in share/tauform/blender/.
# With blender on PATH, each tests/blender/test_*.py is a CTest test run headless.
file(GLOB TAUFORM_BLENDER_PY CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/plugin/blender/tauform/*.py)
set(TAUFORM_BLENDER_STAGE ${PROJECT_BINARY_DIR}/blender)
set(TAUFORM_BLENDER_ZIP ${PROJECT_BINARY_DIR}/tauform-blender-${PROJECT_VERSION}.zip)
set(TAUFORM_BLENDER_LIBS $<TARGET_FILE:tauform>)
set(TAUFORM_BLENDER_COPY_RIG "")
if(TAUFORM_LUA)
  set(TAUFORM_BLENDER_COPY_RIG COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:tauform_rig>
      ${TAUFORM_BLENDER_STAGE}/tauform/lib/libtauform_rig.so.${PROJECT_VERSION_MAJOR})
endif()
add_custom_command(OUTPUT ${TAUFORM_BLENDER_ZIP}
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${TAUFORM_BLENDER_STAGE}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${TAUFORM_BLENDER_STAGE}/tauform/lib
  COMMAND ${CMAKE_COMMAND} -E copy ${TAUFORM_BLENDER_PY} ${TAUFORM_BLENDER_STAGE}/tauform/
  # under its soname: the rig runner finds it loaded, and the add-on looks for this name first
  COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:tauform>
          ${TAUFORM_BLENDER_STAGE}/tauform/lib/libtauform.so.${PROJECT_VERSION_MAJOR}
  ${TAUFORM_BLENDER_COPY_RIG}
  COMMAND ${CMAKE_COMMAND} -E chdir ${TAUFORM_BLENDER_STAGE}
          ${CMAKE_COMMAND} -E tar cf ${TAUFORM_BLENDER_ZIP} --format=zip tauform
  DEPENDS ${TAUFORM_BLENDER_PY} tauform $<$<BOOL:${TAUFORM_LUA}>:tauform_rig>
  COMMENT "Blender add-on: ${TAUFORM_BLENDER_ZIP}")
add_custom_target(blender_addon ALL DEPENDS ${TAUFORM_BLENDER_ZIP})
install(FILES ${TAUFORM_BLENDER_ZIP} DESTINATION ${CMAKE_INSTALL_DATADIR}/tauform/blender)

if(TAUFORM_BUILD_TESTS AND BUILD_TESTING)
  find_program(BLENDER blender)
  if(BLENDER)
    set(lua_args "")
    if(LUA_INTERPRETER_FOR_TESTS)  # the rig comparisons run examples/run.lua
      set(lua_args --lua ${LUA_INTERPRETER_FOR_TESTS} --lua-cpath ${PROJECT_BINARY_DIR}/lua/?.so)
    endif()
    file(GLOB TAUFORM_BLENDER_TESTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/blender/test_*.py)
    foreach(t ${TAUFORM_BLENDER_TESTS})
      get_filename_component(name ${t} NAME_WE)
      add_test(NAME blender_${name}
        COMMAND ${BLENDER} -b --factory-startup --python-exit-code 1 --python ${t} --
                --root ${PROJECT_SOURCE_DIR} --lib $<TARGET_FILE:tauform>
                --addon-dir ${TAUFORM_BLENDER_STAGE} ${lua_args}
                --work ${PROJECT_BINARY_DIR}/tests/blender/${name})
    endforeach()
  else()
    message(STATUS "blender not found: the Blender add-on tests are skipped (apt-get install blender)")
  endif()
endif()
