#pragma once
// Flex's worker pool: std::thread workers, sized by std::thread::hardware_concurrency() or the
// CROSSGRAD_NUM_THREADS environment variable. Kernels call parallel_for only above a size
// threshold, so small ops never pay for a wake-up.
#include <crossgrad/backends/flex_tuning.hpp>

#include <cstddef>
#include <functional>

namespace crossgrad::backends::flex {

// num_threads() and set_num_threads_override() are declared in flex_tuning.hpp.

// Runs body(task) for task in [0, tasks), spread over the pool; returns when all are done.
// Runs inline when tasks <= 1, when called from inside a pool task, or when the pool is busy
// with another caller. An exception from a body is rethrown on the calling thread.
void parallel_for(std::size_t tasks, const std::function<void(std::size_t)>& body);

// Splits [0, n) into chunks of at least `grain` items (at most a few per thread) and runs
// body(begin, end) on each; serial when n < 2 * grain (Note [Flex tuning] has the exact rule).
void parallel_range(std::size_t n, std::size_t grain,
                    const std::function<void(std::size_t, std::size_t)>& body);

}  // namespace crossgrad::backends::flex
