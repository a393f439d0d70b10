// NdArray: cumsum, cumprod, cummin and cummax along one dim, float and int, in the tensor's dtype
// (docs/OPS.md "Scans"): y_0 = x_0 and y_r = step(y_{r-1}, x_r) in index order, so every rounding
// step is fixed and the other backends can match these bits by keeping the same order along each
// lane. The float_ and int_ members share the loop and its steps (host::ScanSum ...).
#include "common.hpp"

#include <crossgrad/backends/host_formulas.hpp>

#include <string_view>

namespace crossgrad::backends {
namespace {

using ndarray_detail::make_tensor;

template <class Step>
NdArrayTensor scan_along(const NdArrayTensor& tensor, std::size_t dim, OpId op, Step step) {
  const std::string_view name = op_info(op).name;
  rules::check_kind_dtype(tensor.dtype, operand_category(op), name);
  rules::check_dim(dim, tensor.shape.rank(), name);
  NdArrayTensor out = make_tensor(tensor.shape, tensor.dtype);
  if (out.num_elements() == 0) return out;
  const rules::DimSplit split = rules::split_at_dim(tensor.shape, dim);
  const std::size_t outer = split.outer, len = split.len, inner = split.inner;
  host::with_element_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    for (std::size_t i = 0; i < outer; ++i) {
      for (std::size_t j = 0; j < inner; ++j) {
        const std::size_t base = i * len * inner + j;
        T acc = x[base];
        o[base] = acc;
        for (std::size_t r = 1; r < len; ++r) {
          acc = step(acc, x[base + r * inner]);
          o[base + r * inner] = acc;
        }
      }
    }
  });
  return out;
}

}  // namespace

#define CROSSGRAD_NDARRAY_SCAN(name, Step)                                         \
  NdArrayTensor NdArray::name(const NdArrayTensor& tensor, std::size_t dim) {      \
    return scan_along(tensor, dim, OpId::name, host::Step{});                      \
  }
CROSSGRAD_NDARRAY_SCAN(float_cumsum, ScanSum)
CROSSGRAD_NDARRAY_SCAN(float_cumprod, ScanProd)
CROSSGRAD_NDARRAY_SCAN(float_cummin, ScanMin)
CROSSGRAD_NDARRAY_SCAN(float_cummax, ScanMax)
CROSSGRAD_NDARRAY_SCAN(int_cumsum, ScanSum)
CROSSGRAD_NDARRAY_SCAN(int_cumprod, ScanProd)
CROSSGRAD_NDARRAY_SCAN(int_cummin, ScanMin)
CROSSGRAD_NDARRAY_SCAN(int_cummax, ScanMax)
#undef CROSSGRAD_NDARRAY_SCAN

}  // namespace crossgrad::backends
