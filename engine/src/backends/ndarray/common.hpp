#pragma once
// Helpers shared by the NdArray kernels. Internal to this folder: nothing here is engine API.
#include <crossgrad/backends/ndarray.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <crossgrad/backends/host_common.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace crossgrad::backends::ndarray_detail {

// Uninitialised result storage; HostTensor::empty raises tensor-too-large itself.
inline NdArrayTensor make_tensor(Shape shape, DType dtype) {
  return NdArrayTensor{HostTensor::empty(std::move(shape), dtype)};
}

// The host backends' shared helpers (crossgrad/backends/host_common.hpp): the device check,
// from_data's dtype rule and the float-type dispatch (F32 -> float, F64 -> double, anything else
// the unreachable panic).
using host::require_host_device;
using host::require_storable_dtype;
using host::with_float_type;
using host::with_element_bits;

// An element-wise float op: `op` of each element, in the tensor's own dtype. `op` is a generic
// lambda so one definition serves float and double.
template <class Op>
NdArrayTensor unary(const NdArrayTensor& tensor, std::string_view name, Op op) {
  rules::check_float_dtype(tensor.dtype, name);
  NdArrayTensor out = make_tensor(tensor.shape, tensor.dtype);
  with_float_type(tensor.dtype, [&]<class T>(T) {
    const T* x = tensor.data<T>();
    T* o = out.mutable_data<T>();
    const std::size_t n = tensor.num_elements();
    for (std::size_t i = 0; i < n; ++i) o[i] = op(x[i]);
  });
  return out;
}

// Note [The reference's strided walk]
// Row-major walk over a shape that tracks, for each of N operands, the element's offset in that
// operand, given the operand's step along every dim (0 on broadcast dims). It is still a plain
// odometer, with two shortcuts that do not change which offsets are visited or in what order:
// - the innermost dims are merged into one run while every operand steps evenly across them
//   (always so for equal contiguous shapes, and across size-1 dims), and the run is a plain loop;
// - its small table (dims, steps, odometer digits) lives inside the object up to rank 16.
// Before, each op built its strides as vectors and stepped a general odometer per element: on the
// fuzz targets' tensors of a few elements that was ~10 % of a sanitized fuzzer's time and a third
// of its allocations (docs/FUZZ_THROUGHPUT.md, round 6).
template <std::size_t N>
class StridedWalk {
 public:
  explicit StridedWalk(const Shape& shape) : rank_(shape.rank()) {
    const std::size_t size = (N + 2) * rank_;
    if (size > inline_.size()) heap_.assign(size, 0);
    table_ = size > inline_.size() ? heap_.data() : inline_.data();
    for (std::size_t d = 0; d < rank_; ++d) dim(d) = shape[d];
  }
  StridedWalk(const StridedWalk&) = delete;
  StridedWalk& operator=(const StridedWalk&) = delete;

  // Operand k's step along each dim of the walk's shape (steps.size() == rank).
  void set_steps(std::size_t k, const std::vector<std::size_t>& steps) {
    for (std::size_t d = 0; d < rank_; ++d) step(k, d) = steps[d];
  }
  // Operand k is a contiguous tensor of shape `in` broadcast to the walk's shape (NumPy rules:
  // dims aligned at the right, size-1 and missing dims step 0). `in` must broadcast to it.
  void set_broadcast(std::size_t k, const Shape& in) {
    const std::size_t lead = rank_ - in.rank();
    for (std::size_t d = 0; d < lead; ++d) step(k, d) = 0;
    std::size_t contiguous = 1;
    for (std::size_t i = in.rank(); i-- > 0;) {
      step(k, lead + i) = in[i] == 1 ? 0 : contiguous;
      contiguous *= in[i];
    }
  }

  // visit(i, offsets) for every element i = 0, 1, .. in row-major order; offsets[k] is the
  // element's offset in operand k. Nothing is visited when a dim is 0; a rank-0 shape is one
  // element at offsets 0.
  template <class Visit>
  void for_each(Visit&& visit) {
    for (std::size_t d = 0; d < rank_; ++d) {
      if (dim(d) == 0) return;
    }
    std::size_t outer = rank_;  // dims [0, outer) are stepped by the odometer
    std::size_t run = 1;
    std::array<std::size_t, N> run_step{};
    if (rank_ > 0) {
      outer = rank_ - 1;
      run = dim(outer);
      for (std::size_t k = 0; k < N; ++k) run_step[k] = step(k, outer);
    }
    while (outer > 0 && merges_into_run(outer - 1, run, run_step)) {
      --outer;
      run *= dim(outer);
    }
    for (std::size_t d = 0; d < outer; ++d) digit(d) = 0;
    std::array<std::size_t, N> base{};
    std::size_t i = 0;
    for (;;) {
      std::array<std::size_t, N> at = base;
      for (std::size_t j = 0; j < run; ++j) {
        visit(i++, std::as_const(at));
        for (std::size_t k = 0; k < N; ++k) at[k] += run_step[k];
      }
      // The next position of the outer dims; the walk ends when the outermost one wraps.
      std::size_t d = outer;
      for (;;) {
        if (d == 0) return;
        --d;
        if (++digit(d) < dim(d)) {
          for (std::size_t k = 0; k < N; ++k) base[k] += step(k, d);
          break;
        }
        // Unsigned-safe: this dim's step was added exactly dim(d) - 1 times since it was last 0.
        for (std::size_t k = 0; k < N; ++k) base[k] -= step(k, d) * (dim(d) - 1);
        digit(d) = 0;
      }
    }
  }

 private:
  std::size_t& dim(std::size_t d) { return table_[d]; }
  std::size_t& digit(std::size_t d) { return table_[rank_ + d]; }
  std::size_t& step(std::size_t k, std::size_t d) { return table_[(2 + k) * rank_ + d]; }
  // Dim d joins the run when every operand's step along it is the run's whole length in its own
  // steps (so offsets continue evenly), or when it has one index only.
  bool merges_into_run(std::size_t d, std::size_t run, const std::array<std::size_t, N>& run_step) {
    if (dim(d) == 1) return true;
    for (std::size_t k = 0; k < N; ++k) {
      if (step(k, d) != run_step[k] * run) return false;
    }
    return true;
  }

  std::size_t rank_;
  std::array<std::size_t, 64> inline_;  // every entry read is written first: no clearing per op
  std::vector<std::size_t> heap_;
  std::size_t* table_;
};

// An element-wise float op of two tensors: out = op(lhs, rhs) with NumPy broadcasting, in the
// operands' dtype. A non-float operand is reported as such before any mismatch between the two.
template <class Op>
NdArrayTensor binary(const NdArrayTensor& lhs, const NdArrayTensor& rhs, std::string_view name, Op op) {
  rules::check_float_dtype(lhs.dtype, name);
  rules::check_float_dtype(rhs.dtype, name);
  rules::check_same_dtype(lhs.dtype, rhs.dtype, name);
  const Shape out_shape = rules::broadcast_shapes(lhs.shape, rhs.shape, name);
  NdArrayTensor out = make_tensor(out_shape, lhs.dtype);
  with_float_type(lhs.dtype, [&]<class T>(T) {
    const T* a = lhs.data<T>();
    const T* b = rhs.data<T>();
    T* o = out.mutable_data<T>();
    StridedWalk<2> walk(out_shape);
    walk.set_broadcast(0, lhs.shape);
    walk.set_broadcast(1, rhs.shape);
    walk.for_each([&](std::size_t i, const auto& at) { o[i] = op(a[at[0]], b[at[1]]); });
  });
  return out;
}

}  // namespace crossgrad::backends::ndarray_detail
