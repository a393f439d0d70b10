# -Wswitch-enum: a switch over BackendId / PrimitiveKind / DType must name every enumerator, so a
# new backend or kind cannot be forgotten silently; an error, so that a registry op (OpId) missing
# from any per-op table (oracle formulas, shape rules, bounds, probes) fails the build.
function(crossgrad_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wswitch-enum -Werror=switch-enum -Werror=switch>)
endfunction()
