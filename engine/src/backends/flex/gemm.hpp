#pragma once
// Flex's GEMM: C[m x n] = A[m x k] * B[k x n], all row-major and contiguous.
#include <cstddef>

namespace crossgrad::backends::flex {

// Blocked, packed, multithreaded (Note [Flex GEMM] in gemm.cpp). T is float or double.
template <class T>
void gemm(std::size_t m, std::size_t n, std::size_t k, const T* a, const T* b, T* c);

// Same product on the calling thread only (for callers that parallelise over a batch).
template <class T>
void gemm_serial(std::size_t m, std::size_t n, std::size_t k, const T* a, const T* b, T* c);

}  // namespace crossgrad::backends::flex
