#pragma once
// Flex's worker pool: std::thread workers, sized by std::thread::hardware_concurrency() or the
// CROSSGRAD_NUM_THREADS environment variable. Kernels call parallel_for only above a size
// threshold, so small ops never pay for a wake-up.
//
// parallel_for and parallel_range are declared in <crossgrad/backends/flex_testing.hpp> (public,
// so the pool's tests and the benchmarks drive it without including engine/src); num_threads(),
// set_num_threads() and set_num_threads_override() in <crossgrad/backends/flex_tuning.hpp>.
// thread_pool.cpp defines them all.
#include <crossgrad/backends/flex_testing.hpp>
#include <crossgrad/backends/flex_tuning.hpp>
