#pragma once
// The per-element definitions every Flex kernel (portable or SIMD) must agree with.
#include "kernels.hpp"

#include <cmath>

namespace crossgrad::backends::flex {

template <BinaryOp Op, class T>
inline T apply_binary(T a, T b) {
  if constexpr (Op == BinaryOp::Add) return a + b;
  else if constexpr (Op == BinaryOp::Sub) return a - b;
  else if constexpr (Op == BinaryOp::Mul) return a * b;
  else return a / b;
}

// relu(NaN) = NaN, relu(-0.0) = +0.0, relu(x < 0) = +0.0.
template <class T>
inline T relu_one(T x) {
  if (x > T(0)) return x;
  if (x != x) return x;
  return T(0);
}

template <class T>
inline T sigmoid_one(T x) {
  // e / (1 + e) below 0, so results down to the subnormal range survive (docs/OPS.md).
  if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
  const T e = std::exp(x);
  return e / (T(1) + e);
}

}  // namespace crossgrad::backends::flex
