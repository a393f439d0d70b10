# Decides whether Flex's AVX2 table computes log, log1p, tanh, sigmoid, pow and F64 exp with SLEEF's
# vector functions (Note [Flex transcendental kernels on SLEEF], engine/src/backends/flex/
# kernels_avx2_math.cpp). CROSSGRAD_SLEEF: AUTO (default: when Debian's libsleef-dev is found), ON
# (required), OFF. Sets CROSSGRAD_WITH_SLEEF to 0 or 1 and says what it decided; without SLEEF those
# kernels are the portable table's libm loops on every CPU. Packages: scripts/deps base.
set(CROSSGRAD_SLEEF "AUTO" CACHE STRING "Flex's AVX2 transcendental kernels on SLEEF: AUTO (when found), ON, OFF")
set(CROSSGRAD_WITH_SLEEF 0)
if(NOT CROSSGRAD_SLEEF STREQUAL "OFF")
  find_path(SLEEF_INCLUDE_DIR sleef.h)
  find_library(SLEEF_LIBRARY sleef)
  if(SLEEF_INCLUDE_DIR AND SLEEF_LIBRARY AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    set(CROSSGRAD_WITH_SLEEF 1)
    message(STATUS "crossgrad: Flex transcendental kernels on SLEEF (${SLEEF_LIBRARY})")
  elseif(CROSSGRAD_SLEEF STREQUAL "ON")
    message(FATAL_ERROR "crossgrad: CROSSGRAD_SLEEF=ON but SLEEF (sleef.h, libsleef, x86-64) was not found "
                        "(install it with scripts/deps base)")
  else()
    message(STATUS "crossgrad: SLEEF not found: Flex's log, log1p, tanh, sigmoid, pow and F64 exp stay "
                   "scalar libm loops (scripts/deps base installs libsleef-dev)")
  endif()
else()
  message(STATUS "crossgrad: SLEEF off (CROSSGRAD_SLEEF=OFF): Flex's log, log1p, tanh, sigmoid, pow and "
                 "F64 exp are scalar libm loops")
endif()
