// Portable row-streaming loops (kernels.hpp's RowKernels) and the run-time choice between them
// and the AVX2/FMA ones, following the main kernel table.
#include "kernels.hpp"

#include <string_view>

namespace crossgrad::backends::flex {
namespace {

// Four rows of B per pass, so C is loaded and stored once per four rows.
template <class T>
void row_times_matrix(std::size_t k, std::size_t n, const T* a, const T* b, std::size_t ldb, T* c) {
  std::size_t p = 0;
  for (; p + 4 <= k; p += 4) {
    const T a0 = a[p], a1 = a[p + 1], a2 = a[p + 2], a3 = a[p + 3];
    const T* b0 = b + p * ldb;
    const T* b1 = b0 + ldb;
    const T* b2 = b1 + ldb;
    const T* b3 = b2 + ldb;
    for (std::size_t j = 0; j < n; ++j) c[j] = c[j] + a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j];
  }
  for (; p < k; ++p) {
    const T ap = a[p];
    const T* bp = b + p * ldb;
    for (std::size_t j = 0; j < n; ++j) c[j] += ap * bp[j];
  }
}

template <class T>
T dot(std::size_t k, const T* a, const T* x) {
  T acc[4] = {0, 0, 0, 0};
  std::size_t p = 0;
  for (; p + 4 <= k; p += 4) {
    for (std::size_t l = 0; l < 4; ++l) acc[l] += a[p + l] * x[p + l];
  }
  for (; p < k; ++p) acc[0] += a[p] * x[p];
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

// Four rows per pass, so the double accumulators are loaded and stored once per four rows.
template <class T>
void accumulate_rows(const T* in, std::size_t ld, std::size_t rows, double* acc, std::size_t n) {
  std::size_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const T* r0 = in + r * ld;
    const T* r1 = r0 + ld;
    const T* r2 = r1 + ld;
    const T* r3 = r2 + ld;
    for (std::size_t j = 0; j < n; ++j) {
      acc[j] = acc[j] + static_cast<double>(r0[j]) + static_cast<double>(r1[j]) + static_cast<double>(r2[j]) +
               static_cast<double>(r3[j]);
    }
  }
  for (; r < rows; ++r) {
    const T* row = in + r * ld;
    for (std::size_t j = 0; j < n; ++j) acc[j] += static_cast<double>(row[j]);
  }
}

constexpr RowKernelTable kPortableRows{
    {row_times_matrix<float>, dot<float>, accumulate_rows<float>},
    {row_times_matrix<double>, dot<double>, accumulate_rows<double>},
    transpose_tile<std::uint32_t>,
    transpose_tile<std::uint64_t>,
};

}  // namespace

const RowKernelTable& portable_row_kernels() { return kPortableRows; }

const RowKernelTable& row_kernel_table() {
  return &kernels() == &portable_kernels() ? portable_row_kernels() : avx2_row_kernels();
}

}  // namespace crossgrad::backends::flex
