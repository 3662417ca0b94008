# The C sources are in .clang-format's style (issue 15: applied once, kept by this test):
# clang-format --dry-run --Werror on every C file of the library, tests and examples.
# Run by ctest when clang-format is installed: cmake -DSRC=<source dir> -DCLANG_FORMAT=<exe> -P
file(GLOB_RECURSE files
  ${SRC}/plugin/src/*.c ${SRC}/plugin/src/*.h ${SRC}/plugin/include/*.h
  ${SRC}/tests/c/*.c ${SRC}/tests/c/*.h ${SRC}/tests/rig/*.c ${SRC}/tests/fuzz/*.c ${SRC}/tests/fuzz/*.h
  ${SRC}/tests/install_consumer/*.c ${SRC}/tests/cxx/*.cpp ${SRC}/examples/*/*.c)
list(LENGTH files n)
execute_process(COMMAND ${CLANG_FORMAT} --style=file --dry-run --Werror ${files}
                WORKING_DIRECTORY ${SRC} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${err}\nnot in .clang-format's style (of ${n} files); fix with:\n"
          "  clang-format -i --style=file <the files above>")
endif()
message(STATUS "format: ${n} files in .clang-format's style")
