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
