// Note [Flex GEMV]
// A GEMM with one row (m == 1) or one column (n == 1) does one multiply-add per element of the
// matrix operand, so it is bound by reading that matrix once; packing it (as the blocked GEMM
// does) would read it twice. So:
//  - n == 1 (matrix times column vector, and 1 x k times k x 1): one dot product per row of A,
//    rows spread over the threads.
//  - m == 1 (row vector times matrix): C is zeroed, then B is streamed row by row into it,
//    C += a[p] * B[p, :], four rows per pass. The columns are split into one contiguous part per
//    thread (boundaries on 64-byte lines, so no two threads write one line of C), and each part is
//    swept in strips of kStrip columns, so its piece of C stays in L1 while B streams past.
// The sum over k for one output runs in k order (four partial sums in the dot products), and no
// split depends on the thread count except which thread computes which columns.
#include "gemv.hpp"

#include "kernels.hpp"
#include "thread_pool.hpp"

#include <algorithm>

namespace crossgrad::backends::flex {
namespace {

constexpr std::size_t kStrip = kTuning.gemv_strip;                 // columns of C per sweep over B's rows
constexpr std::size_t kLine = kTuning.gemv_line;                   // part boundaries: multiples of this many columns
constexpr std::size_t kThreadedWork = kTuning.gemv_threaded_work;  // multiply-adds per thread from which threads help

template <class T>
void row_times_matrix(std::size_t n, std::size_t k, const T* a, const T* b, T* c, bool threaded) {
  std::fill(c, c + n, T(0));
  const auto kernel = row_kernels<T>().row_times_matrix;
  auto columns = [&](std::size_t lo, std::size_t hi) {
    for (std::size_t j = lo; j < hi; j += kStrip) kernel(k, std::min(kStrip, hi - j), a, b + j, n, c + j);
  };
  std::size_t parts = threaded ? num_threads() : 1;
  parts = std::min(parts, (n * k) / kThreadedWork);  // enough work for each part
  parts = std::min(parts, n / kLine);                // at least one line of C each
  if (parts <= 1) {
    columns(0, n);
    return;
  }
  const std::size_t per = (n / parts + kLine - 1) / kLine * kLine;
  parallel_for(parts, [&](std::size_t part) {
    const std::size_t lo = std::min(n, part * per);
    const std::size_t hi = part + 1 == parts ? n : std::min(n, lo + per);
    columns(lo, hi);
  });
}

template <class T>
void matrix_times_column(std::size_t m, std::size_t k, const T* a, const T* x, T* c, bool threaded) {
  const auto dot = row_kernels<T>().dot;
  auto rows = [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) c[i] = dot(k, a + i * k, x);
  };
  if (!threaded) {
    rows(0, m);
    return;
  }
  parallel_range(m, std::max<std::size_t>(1, kThreadedWork / k), rows);
}

}  // namespace

template <class T>
void gemv(std::size_t m, std::size_t n, std::size_t k, const T* a, const T* b, T* c, bool threaded) {
  if (n == 1) matrix_times_column(m, k, a, b, c, threaded);
  else row_times_matrix(n, k, a, b, c, threaded);
}

template void gemv<float>(std::size_t, std::size_t, std::size_t, const float*, const float*, float*, bool);
template void gemv<double>(std::size_t, std::size_t, std::size_t, const double*, const double*, double*, bool);

}  // namespace crossgrad::backends::flex
