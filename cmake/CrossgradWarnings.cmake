# -Wswitch-enum: a switch over BackendId / PrimitiveKind / DType must name every enumerator, so a
# new backend or kind cannot be forgotten silently.
function(crossgrad_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wswitch-enum>)
endfunction()
