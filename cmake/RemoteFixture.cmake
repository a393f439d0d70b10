# The ctest fixture `remote_server` (tests/remote/CMakeLists.txt: remote.server_start / remote.server_stop,
# scripts/remote-fixture): one crossgrad-server on 127.0.0.1, an ephemeral port and a random token,
# for the whole ctest run. A test opts in with one line:
#   crossgrad_uses_remote_server(<test names...>)   (in the directory that adds those tests)
# or, for tests found by gtest_discover_tests (names unknown at configure time):
#   gtest_discover_tests(<exe> PROPERTIES ${CROSSGRAD_REMOTE_TEST_PROPERTIES} ...)
# Either gives FIXTURES_REQUIRED remote_server and CROSSGRAD_REMOTE_FILE=<build>/remote/remote.conf
# (one line "<address> <token>", read by the Remote backend's default configuration). Without
# CROSSGRAD_WITH_REMOTE both are empty: the tests run without a server (Remote is not built).
set(CROSSGRAD_REMOTE_FIXTURE_DIR ${CMAKE_BINARY_DIR}/remote)
if(CROSSGRAD_WITH_REMOTE)
  set(CROSSGRAD_REMOTE_TEST_PROPERTIES
      FIXTURES_REQUIRED remote_server
      ENVIRONMENT "CROSSGRAD_REMOTE_FILE=${CROSSGRAD_REMOTE_FIXTURE_DIR}/remote.conf")
else()
  set(CROSSGRAD_REMOTE_TEST_PROPERTIES "")
endif()

function(crossgrad_uses_remote_server)
  if(NOT CROSSGRAD_WITH_REMOTE)
    return()
  endif()
  foreach(test IN LISTS ARGN)
    set_property(TEST ${test} APPEND PROPERTY FIXTURES_REQUIRED remote_server)
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT
                 "CROSSGRAD_REMOTE_FILE=${CROSSGRAD_REMOTE_FIXTURE_DIR}/remote.conf")
  endforeach()
endfunction()
