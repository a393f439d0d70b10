#pragma once
// Host-computed constants (DFT twiddles, interpolation weights, rfft's backward bin weights) as a
// tensor of a float operand's dtype on its device: the one place their rounding to F32 happens.
#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/shape.hpp>
#include <crossgrad/core/tensor_data.hpp>

#include <utility>
#include <vector>

namespace crossgrad::backends::composite {

// Host values as a tensor of `like`'s float dtype on its device (each rounded once to F32 there).
template <class B>
typename B::Tensor from_doubles(std::vector<double> values, Shape shape, const typename B::Tensor& like) {
  if (B::dtype(like) == DType::F64) return B::from_data(TensorData::from_f64(std::move(values), std::move(shape)), B::device(like));
  return B::from_data(TensorData::from_f32(std::vector<float>(values.begin(), values.end()), std::move(shape)), B::device(like));
}

}  // namespace crossgrad::backends::composite
