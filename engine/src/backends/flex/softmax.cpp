// Flex softmax and log_softmax along one dim, in the tensor's dtype T: m = the max scan
// (max_scan.hpp, so a NaN anywhere makes the whole slice NaN), e_i = exp(x_i - m) with the kernel
// table's exp, s = sum e_i accumulated in double (the spec leaves the order free off NdArray) and
// rounded to T once, then y_i = e_i / s or y_i = (x_i - m) - log(s). The tensor is seen as
// [outer, d, inner]: inner == 1 runs contiguous rows; otherwise inner-rows in column chunks
// (one task per [outer, chunk]) with running max and sum rows.
#include "common.hpp"
#include "kernels.hpp"
#include "max_scan.hpp"
#include "thread_pool.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

namespace crossgrad::backends {
namespace {

template <class T>
void softmax_rows(const T* in, T* out, std::size_t outer, std::size_t d, bool log) {
  const auto& k = flex::typed_kernels<T>();
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / d);
  flex::parallel_range(outer, grain, [&](std::size_t begin, std::size_t end) {
    std::vector<T> e(log ? d : 0);
    for (std::size_t o = begin; o < end; ++o) {
      const T* x = in + o * d;
      T* y = out + o * d;
      T m = x[0];
      for (std::size_t j = 1; j < d; ++j) {
        if (flex::max_scan_replaces(m, x[j])) m = x[j];
      }
      for (std::size_t j = 0; j < d; ++j) y[j] = x[j] - m;
      if (log) {
        k.exp(y, e.data(), d);
        const T log_s = std::log(static_cast<T>(k.sum(e.data(), d)));
        for (std::size_t j = 0; j < d; ++j) y[j] = y[j] - log_s;
      } else {
        k.exp(y, y, d);
        const T s = static_cast<T>(k.sum(y, d));
        for (std::size_t j = 0; j < d; ++j) y[j] = y[j] / s;
      }
    }
  });
}

template <class T>
void softmax_columns(const T* in, T* out, std::size_t outer, std::size_t d, std::size_t inner, bool log) {
  const auto& k = flex::typed_kernels<T>();
  constexpr std::size_t kChunk = flex::kTuning.reduce_column_chunk;
  const std::size_t chunks = (inner + kChunk - 1) / kChunk;
  const std::size_t per_task = d * std::min(inner, kChunk);
  const std::size_t grain = std::max<std::size_t>(1, flex::kElementwiseGrain / per_task);
  flex::parallel_range(outer * chunks, grain, [&](std::size_t begin, std::size_t end) {
    const std::size_t cap = std::min(inner, kChunk);
    std::vector<T> m(cap), e(log ? cap : 0);
    std::vector<double> acc(cap);
    for (std::size_t task = begin; task < end; ++task) {
      const std::size_t o = task / chunks, lo = (task % chunks) * kChunk;
      const std::size_t width = std::min(kChunk, inner - lo);
      const T* x0 = in + o * d * inner + lo;
      T* y0 = out + o * d * inner + lo;
      std::copy(x0, x0 + width, m.begin());
      for (std::size_t j = 1; j < d; ++j) {
        const T* x = x0 + j * inner;
        for (std::size_t i = 0; i < width; ++i) {
          if (flex::max_scan_replaces(m[i], x[i])) m[i] = x[i];
        }
      }
      std::fill(acc.begin(), acc.begin() + static_cast<std::ptrdiff_t>(width), 0.0);
      for (std::size_t j = 0; j < d; ++j) {
        const T* x = x0 + j * inner;
        T* y = y0 + j * inner;
        for (std::size_t i = 0; i < width; ++i) y[i] = x[i] - m[i];
        T* ej = log ? e.data() : y;
        k.exp(y, ej, width);
        k.accumulate(ej, acc.data(), width);
      }
      // m's row now holds s (softmax) or log(s) (log_softmax) per column.
      for (std::size_t i = 0; i < width; ++i) {
        const T s = static_cast<T>(acc[i]);
        m[i] = log ? std::log(s) : s;
      }
      for (std::size_t j = 0; j < d; ++j) {
        T* y = y0 + j * inner;
        if (log) for (std::size_t i = 0; i < width; ++i) y[i] = y[i] - m[i];
        else for (std::size_t i = 0; i < width; ++i) y[i] = y[i] / m[i];
      }
    }
  });
}

FlexTensor softmax_along(const FlexTensor& t, std::size_t dim, bool log, std::string_view op) {
  rules::check_float_dtype(t.dtype, op);
  rules::check_dim(dim, t.shape.rank(), op);
  FlexTensor out = flex::make_tensor(t.shape, t.dtype);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(t.shape, dim);
  const std::size_t outer = split.outer, len = split.len, inner = split.inner;
  flex::with_float_type(t.dtype, [&](auto zero) {
    using T = decltype(zero);
    if (inner == 1) softmax_rows(t.data<T>(), out.mutable_data<T>(), outer, len, log);
    else softmax_columns(t.data<T>(), out.mutable_data<T>(), outer, len, inner, log);
  });
  return out;
}

}  // namespace

FlexTensor Flex::softmax(const FlexTensor& t, std::size_t dim) { return softmax_along(t, dim, false, "softmax"); }
FlexTensor Flex::log_softmax(const FlexTensor& t, std::size_t dim) {
  return softmax_along(t, dim, true, "log_softmax");
}

}  // namespace crossgrad::backends
