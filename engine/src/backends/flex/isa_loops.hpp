#pragma once
// Note [Flex loops compiled twice]
// Flex's plain loops are compiled for the baseline ISA (x86-64: SSE2), which has no 64-bit
// compare, min / max or abs: int64 abs, sign, clamp, comparisons and extremes ran as one branch per
// element (int_abs 64K at 0.06x LibTorch). A loop handed to `run_loop` runs, when the kernel
// table is the AVX2 one (kernels(): the CPU has AVX2 and FMA and CROSSGRAD_FLEX_ISA is not
// "portable"), inside a copy of `run_loop_avx2`, compiled for AVX2 and flattened: the loop and the
// element functions it calls are inlined into it and vectorised with 256-bit compares and blends.
// Both copies compute the same values (integer code has no rounding; neither copy is
// -ffast-math); the portable table runs the baseline copy, so the unit tests cover both.
#include "kernels.hpp"

namespace crossgrad::backends::flex {

#if defined(__x86_64__) || defined(__i386__)
template <class Loop>
__attribute__((target("avx2,fma"), flatten)) void run_loop_avx2(const Loop& loop) {
  loop();
}
#endif

template <class Loop>
void run_loop(const Loop& loop) {
#if defined(__x86_64__) || defined(__i386__)
  if (&kernels() != &portable_kernels()) {
    run_loop_avx2(loop);
    return;
  }
#endif
  loop();
}

}  // namespace crossgrad::backends::flex
