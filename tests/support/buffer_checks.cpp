// The host-buffer checks every test binary runs with, in one place: the unit, size and property
// executables all compile this file (tests/CMakeLists.txt).
//
// Every fresh host buffer starts as 0xFF bytes (NaN in F32/F64, -1 in ints), so an output element
// a kernel forgets to write shows instead of holding a reused block's old, possibly right, value
// (Note [Filling fresh buffers in tests] in core/host_buffer.hpp). And a kernel that writes past
// its output aborts the test, in a Release build too (Note [Guard bytes past every buffer in
// tests]).
#include <crossgrad/core/host_buffer.hpp>

namespace {
[[maybe_unused]] const bool fresh_buffers_filled = (crossgrad::set_fresh_host_buffer_fill(0xFF), true);
[[maybe_unused]] const bool spare_bytes_guarded = (crossgrad::set_host_buffer_guard(true), true);
}  // namespace
