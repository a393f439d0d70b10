# ctest corpus.target_list: fuzz/targets.txt, the target sources and the corpus agree, and the
# shell reader sees the same list as CMake. Fails (naming each problem) when
#   - a listed target has no fuzz/targets/<name>.cpp or no corpus/<name>/ with a file in it,
#   - a fuzz/targets/*_fuzzer.cpp is not listed,
#   - fuzz/scripts/list-targets prints a different list.
#   cmake -DSRC=<source tree> -P check_target_list.cmake
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED SRC)
  message(FATAL_ERROR "usage: cmake -DSRC=<source tree> -P check_target_list.cmake")
endif()
include(${SRC}/fuzz/targets.cmake)
crossgrad_read_fuzz_targets(${SRC}/fuzz/targets.txt listed)

set(problems "")
foreach(name IN LISTS listed)
  if(NOT EXISTS ${SRC}/fuzz/targets/${name}.cpp)
    list(APPEND problems "${name} is listed but fuzz/targets/${name}.cpp does not exist")
  endif()
  file(GLOB seeds ${SRC}/corpus/${name}/*)
  if(NOT IS_DIRECTORY ${SRC}/corpus/${name})
    list(APPEND problems "${name} is listed but corpus/${name}/ does not exist")
  elseif(seeds STREQUAL "")
    list(APPEND problems "${name} is listed but corpus/${name}/ is empty (its replay test needs a seed)")
  endif()
endforeach()

file(GLOB sources RELATIVE ${SRC}/fuzz/targets ${SRC}/fuzz/targets/*_fuzzer.cpp)
foreach(source IN LISTS sources)
  string(REGEX REPLACE "\\.cpp$" "" name "${source}")
  if(NOT name IN_LIST listed)
    list(APPEND problems "fuzz/targets/${source} is not listed in fuzz/targets.txt")
  endif()
endforeach()

find_program(BASH bash)
if(BASH)
  execute_process(COMMAND ${BASH} ${SRC}/fuzz/scripts/list-targets ${SRC}/fuzz/targets.txt
                  OUTPUT_VARIABLE shell_list OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  string(REPLACE ";" " " cmake_list "${listed}")
  if(NOT rc EQUAL 0 OR NOT shell_list STREQUAL cmake_list)
    list(APPEND problems "fuzz/scripts/list-targets printed '${shell_list}' (exit ${rc}), CMake read '${cmake_list}'")
  endif()
else()
  message(STATUS "bash not found: the shell reader is not compared")
endif()

list(LENGTH listed count)
if(problems)
  foreach(p IN LISTS problems)
    message(STATUS "target list: ${p}")
  endforeach()
  message(FATAL_ERROR "fuzz/targets.txt disagrees with the sources or the corpus (see above)")
endif()
message(STATUS "target list: ${count} targets, each with its source and corpus; no unlisted *_fuzzer.cpp")
