# crossgrad_test_code(target): the optimisation level of test code (test bodies, generators,
# fixtures), which is most of what the build compiles but little of what the tests run: the
# engine and the oracle they call keep the build type's level (-O3 in Release). At -O3 a typed
# test file spends ~80% of its compile time in "opt and generate"; -O1 halves its compile time
# (measured on tests/unit/grad_replace_test.cpp: 32 s user at -O3, 18 s at -O1). The benchmarks
# and the fuzz harness are not test code: their loops are what they measure.
set(CROSSGRAD_TEST_CODE_OPT "-O1" CACHE STRING
    "Optimisation flag for test code in optimised builds (empty: the build type's own)")
function(crossgrad_test_code target)
  if(CROSSGRAD_TEST_CODE_OPT)
    # After the build type's flags on the command line, so this one wins; Debug keeps -O0.
    target_compile_options(${target} PRIVATE
      $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<NOT:$<CONFIG:Debug>>>:${CROSSGRAD_TEST_CODE_OPT}>)
  endif()
endfunction()

# crossgrad_test_pch(target headers...): the headers every test file of `target` includes, parsed
# once into a precompiled header instead of once per file: parsing them alone takes ~2.5 s of a
# unit test file's 8-20 s. Measured by building unit_test_objects and property_test_objects with
# it off and then on, one after the other on the same 2-vCPU VM (-j2): 307 -> 281 s wall, 577 ->
# 520 s of CPU. (Test code at -O0 would save more to compile, but made unit_tests run 4x longer,
# 37 -> 150 s.) CROSSGRAD_TEST_PCH=OFF turns it off; the coverage preset does, so that header
# code is mapped as it was without one.
option(CROSSGRAD_TEST_PCH "Precompile the headers test files share" ON)
function(crossgrad_test_pch target)
  if(CROSSGRAD_TEST_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
