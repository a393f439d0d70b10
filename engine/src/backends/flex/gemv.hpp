#pragma once
// Flex's matrix-vector products: the m == 1 and n == 1 shapes of gemm (Note [Flex GEMV] in gemv.cpp).
#include <cstddef>

namespace crossgrad::backends::flex {

// C[m x n] = A[m x k] * B[k x n], row-major and contiguous, for m == 1 or n == 1 (and k > 0).
// `threaded`: may spread the work over the pool.
template <class T>
void gemv(std::size_t m, std::size_t n, std::size_t k, const T* a, const T* b, T* c, bool threaded);

}  // namespace crossgrad::backends::flex
