# Decides whether the LibTorch backend and the PyTorch second opinion are built.
# CROSSGRAD_LIBTORCH: AUTO (default: when Debian's libtorch-dev, Torch's CMake package, is found),
# ON (required), OFF. Sets CROSSGRAD_WITH_LIBTORCH to 0 or 1 and says what it decided.
# Packages: scripts/deps libtorch.
#
# Note [ATen stays in its own translation units]
# ATen's headers cost ~10 s of compile time per translation unit, and loading libtorch_cpu costs
# ~0.6 s of CPU per process (its operator registry is built at start-up). So only the sources of the
# LibTorch backend's ATen side and of the PyTorch oracle include ATen, and nothing else links
# libtorch directly: every test, fuzzer and consumer of the installed package that never touches
# LibTorch pays nothing for it.
#
# The clang presets (fuzz, fuzz-fast, coverage) set OFF: libtorch 1.13's headers do not compile with
# clang 16 in C++20 mode (c10::IValue is incomplete inside std::vector), and the plugin includes the
# registry's C++20 headers.
set(CROSSGRAD_LIBTORCH "AUTO" CACHE STRING "Build the LibTorch backend: AUTO (when Torch is found), ON, OFF")
set(CROSSGRAD_WITH_LIBTORCH 0)
if(NOT CROSSGRAD_LIBTORCH STREQUAL "OFF")
  find_package(Torch QUIET)
  if(Torch_FOUND OR TORCH_FOUND)
    set(CROSSGRAD_WITH_LIBTORCH 1)
    message(STATUS "crossgrad: LibTorch backend ON (Torch ${Torch_VERSION} at ${TORCH_INSTALL_PREFIX})")
  elseif(CROSSGRAD_LIBTORCH STREQUAL "ON")
    message(FATAL_ERROR "crossgrad: CROSSGRAD_LIBTORCH=ON but Torch was not found "
                        "(install it with scripts/deps libtorch)")
  else()
    message(STATUS "crossgrad: LibTorch backend OFF (Torch not found; scripts/deps libtorch)")
  endif()
else()
  message(STATUS "crossgrad: LibTorch backend OFF (CROSSGRAD_LIBTORCH=OFF)")
endif()
