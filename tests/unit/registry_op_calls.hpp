#pragma once
// Any registry op called through Dispatch with valid arguments chosen from its signature: the one
// place the tests spell out per-op arguments (op_registry_test.cpp, remote_ops_test.cpp), so a new
// op in CROSSGRAD_OPS needs one line here (the switch has no default: a missing case fails the
// build). The receiver is [2, 3].
#include <crossgrad/crossgrad.hpp>

#include <gtest/gtest.h>

namespace crossgrad::testing_support {

// The device of a receiver of any kind (an autodiff device for a tracked one).
inline DispatchDevice device_of(const DispatchTensor& x, OpKind kind) {
  if (kind == OpKind::Int) return Dispatch::int_device(x);
  if (kind == OpKind::Bool) return Dispatch::bool_device(x);
  return Dispatch::float_device(x);
}

// One index per element of a [2, 3] receiver along dim 1 (gather, scatter_add), on its device.
inline DispatchTensor per_element_indices(const DispatchTensor& x, OpKind kind = OpKind::Float) {
  return Dispatch::int_from_data(TensorData::from_i64({2, 0, 2, 1, 1, 0}, Shape{2, 3}), device_of(x, kind));
}

// A [2, 3] Bool mask on the receiver's device (mask_where, mask_fill).
inline DispatchTensor mask_of(const DispatchTensor& x, OpKind kind = OpKind::Float) {
  return Dispatch::bool_from_data(TensorData::from_bool({true, false, false, true, true, false}, Shape{2, 3}), device_of(x, kind));
}

// Index rows of one coordinate into a [2, 3] receiver's dim 0 (gather_nd, scatter_nd), on its device:
// row 1 names row 1 again, so scatter_nd's second value block replaces the first.
inline DispatchTensor row_indices(const DispatchTensor& x, OpKind kind = OpKind::Float) {
  return Dispatch::int_from_data(TensorData::from_i64({1, 1}, Shape{2, 1}), device_of(x, kind));
}

// |x| + 1 for an int receiver x: an int operand of its device and tracked-ness with no zero.
inline DispatchTensor int_divisor(const DispatchTensor& x) { return Dispatch::int_add_scalar(Dispatch::int_abs(x), 1); }

#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
#pragma GCC diagnostic error "-Wswitch-enum"
// `other`: a second float tensor of the receiver's shape, device and tracked-ness (binary ops, cat,
// assign values); `indices`: the int tensor [2, 0, 2] on the receiver's device; `target`: the float
// dtype the ToDType ops convert to.
inline DispatchTensor call_registry_op(OpId op, const DispatchTensor& x, const DispatchTensor& other,
                                       const DispatchTensor& indices, DType target) {
  switch (op) {
    case OpId::float_add: return Dispatch::float_add(x, other);
    case OpId::float_sub: return Dispatch::float_sub(x, other);
    case OpId::float_mul: return Dispatch::float_mul(x, other);
    case OpId::float_div: return Dispatch::float_div(x, other);
    case OpId::float_matmul: return Dispatch::float_matmul(x, Dispatch::float_reshape(other, {3, 2}));
    case OpId::float_neg: return Dispatch::float_neg(x);
    case OpId::float_exp: return Dispatch::float_exp(x);
    case OpId::float_log: return Dispatch::float_log(x);
    case OpId::float_sqrt: return Dispatch::float_sqrt(x);
    case OpId::float_tanh: return Dispatch::float_tanh(x);
    case OpId::float_log1p: return Dispatch::float_log1p(x);
    case OpId::float_cos: return Dispatch::float_cos(x);
    case OpId::float_sin: return Dispatch::float_sin(x);
    case OpId::float_tan: return Dispatch::float_tan(x);
    case OpId::float_cosh: return Dispatch::float_cosh(x);
    case OpId::float_sinh: return Dispatch::float_sinh(x);
    case OpId::float_acos: return Dispatch::float_acos(x);
    case OpId::float_acosh: return Dispatch::float_acosh(x);
    case OpId::float_asin: return Dispatch::float_asin(x);
    case OpId::float_asinh: return Dispatch::float_asinh(x);
    case OpId::float_atan: return Dispatch::float_atan(x);
    case OpId::float_atanh: return Dispatch::float_atanh(x);
    case OpId::float_erf: return Dispatch::float_erf(x);
    case OpId::float_recip: return Dispatch::float_recip(x);
    case OpId::float_round: return Dispatch::float_round(x);
    case OpId::float_floor: return Dispatch::float_floor(x);
    case OpId::float_ceil: return Dispatch::float_ceil(x);
    case OpId::float_trunc: return Dispatch::float_trunc(x);
    case OpId::float_sign: return Dispatch::float_sign(x);
    case OpId::float_sub_scalar: return Dispatch::float_sub_scalar(x, 1.5);
    case OpId::float_div_scalar: return Dispatch::float_div_scalar(x, -2.5);
    case OpId::float_clamp_min: return Dispatch::float_clamp_min(x, 0.75);
    case OpId::float_clamp_max: return Dispatch::float_clamp_max(x, 2.0);
    case OpId::float_remainder_scalar: return Dispatch::float_remainder_scalar(x, -0.75);
    case OpId::float_remainder: return Dispatch::float_remainder(x, other);
    case OpId::float_powf: return Dispatch::float_powf(x, other);
    case OpId::float_atan2: return Dispatch::float_atan2(x, other);
    case OpId::relu: return Dispatch::relu(x);
    case OpId::log_sigmoid: return Dispatch::log_sigmoid(x);
    case OpId::gelu: return Dispatch::gelu(x);
    case OpId::leaky_relu: return Dispatch::leaky_relu(x, 0.01);
    case OpId::sigmoid: return Dispatch::sigmoid(x);
    case OpId::float_powf_scalar: return Dispatch::float_powf_scalar(x, 1.5);
    case OpId::float_add_scalar: return Dispatch::float_add_scalar(x, 1.5);
    case OpId::float_mul_scalar: return Dispatch::float_mul_scalar(x, 1.5);
    case OpId::float_sum: return Dispatch::float_sum(x);
    case OpId::float_mean: return Dispatch::float_mean(x);
    case OpId::float_sum_dim: return Dispatch::float_sum_dim(x, 1);
    // rfft: the receiver's 2 rows along dim 0 (2 samples); irfft: them as spectra of 2 bins (n 2).
    case OpId::rfft: return Dispatch::rfft(x, 0, std::nullopt);
    case OpId::irfft: return Dispatch::irfft(x, Dispatch::float_reshape(other, {2, 3}), 0, std::nullopt);
    case OpId::float_mean_dim: return Dispatch::float_mean_dim(x, 1);
    case OpId::float_reshape: return Dispatch::float_reshape(x, {3, 2});
    case OpId::float_swap_dims: return Dispatch::float_swap_dims(x, 0, 1);
    case OpId::float_cast: return Dispatch::float_cast(x, target);
    case OpId::float_greater_scalar: return Dispatch::float_greater_scalar(x, 1.5);
    case OpId::bool_into_float: return Dispatch::bool_into_float(x, target);
    case OpId::int_into_float: return Dispatch::int_into_float(x, target);
    case OpId::float_into_int: return Dispatch::float_into_int(x, DType::I32);
    // Int and bool receivers (x: the caller's int or bool tensor); the second operand is derived
    // from x, so it shares its device and tracked-ness: |x| + 1 (no zero divisor), not x.
    case OpId::int_add: return Dispatch::int_add(x, int_divisor(x));
    case OpId::int_sub: return Dispatch::int_sub(x, int_divisor(x));
    case OpId::int_mul: return Dispatch::int_mul(x, int_divisor(x));
    case OpId::int_div: return Dispatch::int_div(x, int_divisor(x));
    case OpId::int_remainder: return Dispatch::int_remainder(x, int_divisor(x));
    case OpId::int_neg: return Dispatch::int_neg(x);
    case OpId::int_abs: return Dispatch::int_abs(x);
    case OpId::int_sign: return Dispatch::int_sign(x);
    case OpId::int_add_scalar: return Dispatch::int_add_scalar(x, 3);
    case OpId::int_sub_scalar: return Dispatch::int_sub_scalar(x, 3);
    case OpId::int_mul_scalar: return Dispatch::int_mul_scalar(x, -2);
    case OpId::int_div_scalar: return Dispatch::int_div_scalar(x, -2);
    case OpId::int_remainder_scalar: return Dispatch::int_remainder_scalar(x, -2);
    case OpId::bool_not: return Dispatch::bool_not(x);
    case OpId::bool_and: return Dispatch::bool_and(x, Dispatch::bool_not(x));
    case OpId::bool_or: return Dispatch::bool_or(x, Dispatch::bool_not(x));
    case OpId::bool_xor: return Dispatch::bool_xor(x, Dispatch::bool_not(x));
    case OpId::bool_equal: return Dispatch::bool_equal(x, Dispatch::bool_not(x));
    case OpId::bool_not_equal: return Dispatch::bool_not_equal(x, Dispatch::bool_not(x));
    case OpId::int_equal: return Dispatch::int_equal(x, int_divisor(x));
    case OpId::int_not_equal: return Dispatch::int_not_equal(x, int_divisor(x));
    case OpId::int_greater: return Dispatch::int_greater(x, int_divisor(x));
    case OpId::int_greater_equal: return Dispatch::int_greater_equal(x, int_divisor(x));
    case OpId::int_lower: return Dispatch::int_lower(x, int_divisor(x));
    case OpId::int_lower_equal: return Dispatch::int_lower_equal(x, int_divisor(x));
    case OpId::int_equal_elem: return Dispatch::int_equal_elem(x, 2);
    case OpId::int_not_equal_elem: return Dispatch::int_not_equal_elem(x, 2);
    case OpId::int_greater_elem: return Dispatch::int_greater_elem(x, 2);
    case OpId::int_greater_equal_elem: return Dispatch::int_greater_equal_elem(x, 2);
    case OpId::int_lower_elem: return Dispatch::int_lower_elem(x, 2);
    case OpId::int_lower_equal_elem: return Dispatch::int_lower_equal_elem(x, 2);
    case OpId::bitwise_and: return Dispatch::bitwise_and(x, int_divisor(x));
    case OpId::bitwise_or: return Dispatch::bitwise_or(x, int_divisor(x));
    case OpId::bitwise_xor: return Dispatch::bitwise_xor(x, int_divisor(x));
    case OpId::bitwise_not: return Dispatch::bitwise_not(x);
    case OpId::bitwise_left_shift: return Dispatch::bitwise_left_shift(x, int_divisor(x));
    case OpId::bitwise_right_shift: return Dispatch::bitwise_right_shift(x, int_divisor(x));
    case OpId::bitwise_and_scalar: return Dispatch::bitwise_and_scalar(x, 6);
    case OpId::bitwise_or_scalar: return Dispatch::bitwise_or_scalar(x, 6);
    case OpId::bitwise_xor_scalar: return Dispatch::bitwise_xor_scalar(x, 6);
    case OpId::bitwise_left_shift_scalar: return Dispatch::bitwise_left_shift_scalar(x, 3);
    case OpId::bitwise_right_shift_scalar: return Dispatch::bitwise_right_shift_scalar(x, 1);
    // I32, the int target of every ToDType op here (expected_dtype in op_registry_test.cpp).
    case OpId::int_cast: return Dispatch::int_cast(x, DType::I32);
    case OpId::bool_into_int: return Dispatch::bool_into_int(x, DType::I32);
    case OpId::int_sum: return Dispatch::int_sum(x);
    case OpId::int_sum_dim: return Dispatch::int_sum_dim(x, 1);
    case OpId::int_prod: return Dispatch::int_prod(x);
    case OpId::int_prod_dim: return Dispatch::int_prod_dim(x, 1);
    case OpId::int_mean: return Dispatch::int_mean(x);
    case OpId::int_mean_dim: return Dispatch::int_mean_dim(x, 1);
    case OpId::int_max: return Dispatch::int_max(x);
    case OpId::int_min: return Dispatch::int_min(x);
    case OpId::int_max_dim: return Dispatch::int_max_dim(x, 1);
    case OpId::int_min_dim: return Dispatch::int_min_dim(x, 1);
    case OpId::int_argmax: return Dispatch::int_argmax(x, 1);
    case OpId::int_argmin: return Dispatch::int_argmin(x, 1);
    case OpId::int_any: return Dispatch::int_any(x);
    case OpId::int_all: return Dispatch::int_all(x);
    case OpId::bool_any: return Dispatch::bool_any(x);
    case OpId::bool_all: return Dispatch::bool_all(x);
    case OpId::int_clamp: return Dispatch::int_clamp(x, -1, 2.5);
    case OpId::int_clamp_min: return Dispatch::int_clamp_min(x, 0);
    case OpId::int_clamp_max: return Dispatch::int_clamp_max(x, 2);
    case OpId::int_square: return Dispatch::int_square(x);
    case OpId::int_any_dim: return Dispatch::int_any_dim(x, 1);
    case OpId::int_all_dim: return Dispatch::int_all_dim(x, 1);
    case OpId::bool_any_dim: return Dispatch::bool_any_dim(x, 1);
    case OpId::bool_all_dim: return Dispatch::bool_all_dim(x, 1);
    case OpId::int_max_abs: return Dispatch::int_max_abs(x);
    case OpId::int_max_abs_dim: return Dispatch::int_max_abs_dim(x, 1);
    case OpId::int_reshape: return Dispatch::int_reshape(x, {3, 2});
    case OpId::int_swap_dims: return Dispatch::int_swap_dims(x, 0, 1);
    case OpId::int_permute: return Dispatch::int_permute(x, {1, 0});
    case OpId::int_transpose: return Dispatch::int_transpose(x);
    case OpId::int_expand: return Dispatch::int_expand(x, {4, 2, 3});
    case OpId::int_flip: return Dispatch::int_flip(x, {1});
    case OpId::int_repeat_dim: return Dispatch::int_repeat_dim(x, 1, 2);
    case OpId::int_unfold: return Dispatch::int_unfold(x, 1, 2, 1);
    case OpId::int_cat: return Dispatch::int_cat({x, int_divisor(x)}, 1);
    case OpId::int_slice: return Dispatch::int_slice(x, {{0, 2}, {1, 3}});
    case OpId::int_slice_assign: return Dispatch::int_slice_assign(x, {{0, 1}}, Dispatch::int_slice(int_divisor(x), {{0, 1}}));
    case OpId::int_select: return Dispatch::int_select(x, 1, indices);
    case OpId::bool_reshape: return Dispatch::bool_reshape(x, {3, 2});
    case OpId::bool_swap_dims: return Dispatch::bool_swap_dims(x, 0, 1);
    case OpId::bool_permute: return Dispatch::bool_permute(x, {1, 0});
    case OpId::bool_transpose: return Dispatch::bool_transpose(x);
    case OpId::bool_expand: return Dispatch::bool_expand(x, {4, 2, 3});
    case OpId::bool_flip: return Dispatch::bool_flip(x, {1});
    case OpId::bool_repeat_dim: return Dispatch::bool_repeat_dim(x, 1, 2);
    case OpId::bool_unfold: return Dispatch::bool_unfold(x, 1, 2, 1);
    case OpId::bool_cat: return Dispatch::bool_cat({x, Dispatch::bool_not(x)}, 1);
    case OpId::bool_slice: return Dispatch::bool_slice(x, {{0, 2}, {1, 3}});
    case OpId::bool_slice_assign: return Dispatch::bool_slice_assign(x, {{0, 1}}, Dispatch::bool_slice(Dispatch::bool_not(x), {{0, 1}}));
    case OpId::bool_select: return Dispatch::bool_select(x, 1, indices);
    case OpId::int_gather: return Dispatch::int_gather(x, 1, per_element_indices(x, OpKind::Int));
    case OpId::int_gather_nd: return Dispatch::int_gather_nd(x, row_indices(x, OpKind::Int));
    case OpId::int_mask_where: return Dispatch::int_mask_where(x, mask_of(x, OpKind::Int), int_divisor(x));
    case OpId::int_mask_select: return Dispatch::int_mask_select(x, mask_of(x, OpKind::Int));
    case OpId::bool_gather: return Dispatch::bool_gather(x, 1, per_element_indices(x, OpKind::Bool));
    case OpId::bool_gather_nd: return Dispatch::bool_gather_nd(x, row_indices(x, OpKind::Bool));
    case OpId::bool_mask_where: return Dispatch::bool_mask_where(x, mask_of(x, OpKind::Bool), Dispatch::bool_not(x));
    case OpId::bool_mask_select: return Dispatch::bool_mask_select(x, mask_of(x, OpKind::Bool));
    case OpId::int_cumsum: return Dispatch::int_cumsum(x, 1);
    case OpId::int_cumprod: return Dispatch::int_cumprod(x, 1);
    case OpId::int_cummin: return Dispatch::int_cummin(x, 1);
    case OpId::int_cummax: return Dispatch::int_cummax(x, 1);
    case OpId::int_argsort: return Dispatch::int_argsort(x, 1, true);
    case OpId::int_sort: return Dispatch::int_sort(x, 1, false);
    case OpId::int_argtopk: return Dispatch::int_argtopk(x, 1, 2);
    case OpId::int_topk: return Dispatch::int_topk(x, 1, 2);
    case OpId::int_matmul: return Dispatch::int_matmul(x, Dispatch::int_transpose(int_divisor(x)));
    case OpId::int_powi: return Dispatch::int_powi(x, int_divisor(x));
    case OpId::int_powi_scalar: return Dispatch::int_powi_scalar(x, 3);
    case OpId::int_select_assign: return Dispatch::int_select_assign(x, 1, indices, int_divisor(x));
    case OpId::int_select_add: return Dispatch::int_select_add(x, 1, indices, int_divisor(x));
    case OpId::int_scatter_add: return Dispatch::int_scatter_add(x, 1, per_element_indices(x, OpKind::Int), int_divisor(x));
    case OpId::int_scatter: return Dispatch::int_scatter(x, 1, per_element_indices(x, OpKind::Int), int_divisor(x), IndexingUpdateOp::Max);
    case OpId::int_scatter_nd: return Dispatch::int_scatter_nd(x, row_indices(x, OpKind::Int), int_divisor(x), IndexingUpdateOp::Add);
    case OpId::int_mask_fill: return Dispatch::int_mask_fill(x, mask_of(x, OpKind::Int), -7);
    case OpId::bool_select_or: return Dispatch::bool_select_or(x, 1, indices, Dispatch::bool_not(x));
    case OpId::bool_scatter_or: return Dispatch::bool_scatter_or(x, 1, per_element_indices(x, OpKind::Bool), Dispatch::bool_not(x));
    case OpId::bool_mask_fill: return Dispatch::bool_mask_fill(x, mask_of(x, OpKind::Bool), 1);
    case OpId::bool_argwhere: return Dispatch::bool_argwhere(x);
    // The module ops read [batch, channels, h, w]: the receiver's 6 elements as one 2x3 plane, or
    // as two 3x1 planes where the gradient (`other`, 6 elements too) must fit the output.
    case OpId::avg_pool2d:
      return Dispatch::avg_pool2d(Dispatch::float_reshape(x, {1, 1, 2, 3}), AvgPool2dOptions{{2, 2}, {1, 2}, {1, 1}, false, true});
    case OpId::avg_pool2d_backward:
      return Dispatch::avg_pool2d_backward(Dispatch::float_reshape(x, {1, 2, 3, 1}), Dispatch::float_reshape(other, {1, 2, 3, 1}),
                                           AvgPool2dOptions{{3, 1}, {1, 1}, {1, 0}, false, false});
    case OpId::adaptive_avg_pool2d: return Dispatch::adaptive_avg_pool2d(Dispatch::float_reshape(x, {1, 1, 2, 3}), {1, 2});
    case OpId::max_pool2d:
      return Dispatch::max_pool2d(Dispatch::float_reshape(x, {1, 1, 2, 3}), MaxPool2dOptions{{2, 2}, {1, 1}, {1, 1}, {1, 2}, true});
    case OpId::max_pool2d_indices:
      return Dispatch::max_pool2d_indices(Dispatch::float_reshape(x, {1, 1, 2, 3}), MaxPool2dOptions{{2, 2}, {1, 1}, {1, 1}, {1, 2}, true});
    case OpId::max_pool2d_with_indices_backward:  // two 3x1 planes, windows of 3 (padding 1): one output per cell
      return Dispatch::max_pool2d_with_indices_backward(
          Dispatch::float_reshape(x, {1, 2, 3, 1}), Dispatch::float_reshape(other, {1, 2, 3, 1}),
          Dispatch::int_from_data(TensorData::from_i64({1, 1, 2, 0, 2, 2}, Shape{1, 2, 3, 1}), device_of(x, OpKind::Float)),
          MaxPool2dOptions{{3, 1}, {1, 1}, {1, 0}, {1, 1}, false});
    case OpId::adaptive_avg_pool2d_backward:
      return Dispatch::adaptive_avg_pool2d_backward(Dispatch::float_reshape(x, {1, 1, 2, 3}), Dispatch::float_reshape(other, {1, 1, 3, 2}));
    // unfold4d: the receiver as a [1, 1, 2, 3] image in 2x2 blocks, padding 1 across the width.
    case OpId::unfold4d:
      return Dispatch::unfold4d(Dispatch::float_reshape(x, {1, 1, 2, 3}), Size2{2, 2}, UnfoldOptions{{1, 1}, {0, 1}, {1, 1}});
    // adaptive_avg_pool3d: the receiver as a [1, 1, 2, 1, 3] volume to 1x1x2; its backward pass with
    // the other operand as the gradient of a 2x1x3 output.
    case OpId::adaptive_avg_pool3d:
      return Dispatch::adaptive_avg_pool3d(Dispatch::float_reshape(x, {1, 1, 2, 1, 3}), Size3{1, 1, 2});
    case OpId::adaptive_avg_pool3d_backward:
      return Dispatch::adaptive_avg_pool3d_backward(Dispatch::float_reshape(x, {1, 1, 2, 1, 3}), Dispatch::float_reshape(other, {1, 1, 2, 1, 3}));
    // interpolate: the receiver as a [1, 1, 2, 3] image up to 3x4, bilinear over the half-pixel grid;
    // its backward pass down to 3x2, bicubic with corners aligned (the other operand the gradient).
    case OpId::interpolate:
      return Dispatch::interpolate(Dispatch::float_reshape(x, {1, 1, 2, 3}), Size2{3, 4}, InterpolateOptions{InterpolateMode::Bilinear, false});
    case OpId::interpolate_backward:
      return Dispatch::interpolate_backward(Dispatch::float_reshape(x, {1, 1, 2, 3}), Dispatch::float_reshape(other, {1, 1, 3, 2}), Size2{3, 2},
                                            InterpolateOptions{InterpolateMode::Bicubic, true});
    // fold4d: the receiver as three 2x1 blocks ([1, 2, 3]) folded onto a 4x1 plane (the middle rows
    // add two blocks).
    case OpId::fold4d:
      return Dispatch::fold4d(Dispatch::float_reshape(x, {1, 2, 3}), Size2{4, 1}, Size2{2, 1}, UnfoldOptions{{1, 1}, {0, 0}, {1, 1}});
    // The 1-D poolings: the receiver as two rows of 3 ([1, 2, 3]).
    case OpId::avg_pool1d:
      return Dispatch::avg_pool1d(Dispatch::float_reshape(x, {1, 2, 3}), AvgPool1dOptions{{2}, {2}, {1}, false, true});
    case OpId::avg_pool1d_backward:
      return Dispatch::avg_pool1d_backward(Dispatch::float_reshape(x, {1, 2, 3}), Dispatch::float_reshape(other, {1, 2, 3}),
                                           AvgPool1dOptions{{3}, {1}, {1}, false, false});
    case OpId::adaptive_avg_pool1d: return Dispatch::adaptive_avg_pool1d(Dispatch::float_reshape(x, {1, 2, 3}), Size1{2});
    case OpId::adaptive_avg_pool1d_backward:
      return Dispatch::adaptive_avg_pool1d_backward(Dispatch::float_reshape(x, {1, 1, 6}), Dispatch::float_reshape(other, {1, 1, 6}));
    case OpId::max_pool1d:
      return Dispatch::max_pool1d(Dispatch::float_reshape(x, {1, 2, 3}), MaxPool1dOptions{{2}, {1}, {1}, {2}, true});
    case OpId::max_pool1d_indices:
      return Dispatch::max_pool1d_indices(Dispatch::float_reshape(x, {1, 2, 3}), MaxPool1dOptions{{2}, {1}, {1}, {2}, true});
    case OpId::max_pool1d_with_indices_backward:  // two rows of 3, windows of 3 (padding 1): one output per cell
      return Dispatch::max_pool1d_with_indices_backward(
          Dispatch::float_reshape(x, {1, 2, 3}), Dispatch::float_reshape(other, {1, 2, 3}),
          Dispatch::int_from_data(TensorData::from_i64({1, 1, 2, 0, 2, 2}, Shape{1, 2, 3}), device_of(x, OpKind::Float)),
          MaxPool1dOptions{{3}, {1}, {1}, {1}, false});
    // The receiver as a [3, 2] table read at rows [[2, 0, 2]] (row 2 twice: its gradient adds two).
    case OpId::embedding:
      return Dispatch::embedding(Dispatch::float_reshape(x, {3, 2}),
                                 Dispatch::int_from_data(TensorData::from_i64({2, 0, 2}, Shape{1, 3}), device_of(x, OpKind::Float)));
    case OpId::embedding_backward:
      return Dispatch::embedding_backward(
          Dispatch::float_reshape(x, {3, 2}), Dispatch::float_reshape(other, {1, 3, 2}),
          Dispatch::int_from_data(TensorData::from_i64({2, 0, 2}, Shape{1, 3}), device_of(x, OpKind::Float)));
    // The receiver [2, 3] through a [3, 2] weight (`other`), with a bias of the weight's column sums.
    case OpId::linear: {
      const DispatchTensor w = Dispatch::float_reshape(other, {3, 2});
      return Dispatch::linear(x, w, Dispatch::float_reshape(Dispatch::float_sum_dim(w, 0), {2}));
    }
    case OpId::linear_x_backward: return Dispatch::linear_x_backward(Dispatch::float_reshape(other, {3, 2}), Dispatch::float_reshape(x, {3, 2}));
    case OpId::linear_weight_backward: return Dispatch::linear_weight_backward(x, Dispatch::float_reshape(other, {2, 3}));
    case OpId::linear_bias_backward: return Dispatch::linear_bias_backward(x);
    // layer_norm: the receiver's rows of 3 with `other`'s first row as the weight and its second as
    // the bias.
    case OpId::layer_norm:
      return Dispatch::layer_norm(x, Dispatch::float_reshape(Dispatch::float_slice(other, {Range{0, 1}, Range{0, 3}}), {3}),
                                  Dispatch::float_reshape(Dispatch::float_slice(other, {Range{1, 2}, Range{0, 3}}), {3}), 1e-5);
    // batch_norm: the receiver as two samples of 3 channels, `other`'s first row as weight, bias
    // and mean, its square plus 1 as the variance.
    case OpId::batch_norm: {
      const DispatchTensor s = Dispatch::float_reshape(Dispatch::float_slice(other, {Range{0, 1}, Range{0, 3}}), {3});
      const DispatchTensor v = Dispatch::float_add_scalar(Dispatch::float_mul(s, s), 1.0);
      return Dispatch::batch_norm(x, s, s, s, v, 1e-5);
    }
    // attention: the receiver as the query [1, 1, 2, 3], `other` as key and value [1, 1, 2, 3],
    // causal (query 0 sees key 0 alone) with a mask hiding key 0 from query 1.
    case OpId::attention: {
      const DispatchTensor kv = Dispatch::float_reshape(other, {1, 1, 2, 3});
      const DispatchTensor mask = Dispatch::bool_from_data(TensorData::from_bool({false, false, true, false}, Shape{1, 1, 2, 2}),
                                                           device_of(x, OpKind::Float));
      return Dispatch::attention(Dispatch::float_reshape(x, {1, 1, 2, 3}), kv, kv, mask, std::nullopt,
                                 AttentionOptions{std::nullopt, std::nullopt, true});
    }
    // conv2d: the receiver as [1, 2, 1, 3] (2 channels) through a [3, 2, 1, 1] weight (`other`),
    // stride 1, with a bias of the weight's row sums; the backward passes through a [1, 2, 1, 3]
    // weight (one output) or a [3] bias and `other` as the gradient [1, 3, 1, 2].
    case OpId::conv2d: {
      const DispatchTensor w = Dispatch::float_reshape(other, {3, 2, 1, 1});
      return Dispatch::conv2d(Dispatch::float_reshape(x, {1, 2, 1, 3}), w,
                              Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(other, {3, 2}), 1), {3}),
                              Conv2dOptions{});
    }
    case OpId::conv2d_x_backward:
      return Dispatch::conv2d_x_backward(Dispatch::float_reshape(x, {1, 2, 1, 3}), Dispatch::float_reshape(other, {1, 2, 1, 3}),
                                         Dispatch::float_reshape(Dispatch::float_sum(x), {1, 1, 1, 1}), Conv2dOptions{});
    case OpId::conv2d_weight_backward:
      return Dispatch::conv2d_weight_backward(Dispatch::float_reshape(x, {1, 2, 1, 3}), Dispatch::float_reshape(other, {1, 2, 1, 3}),
                                              Dispatch::float_reshape(Dispatch::float_sum(x), {1, 1, 1, 1}), Conv2dOptions{});
    case OpId::conv2d_bias_backward:
      return Dispatch::conv2d_bias_backward(
          Dispatch::float_reshape(x, {1, 2, 1, 3}),
          Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(other, {3, 2}), 1), {3}),
          Dispatch::float_reshape(other, {1, 3, 1, 2}));
    // conv1d: the receiver as [1, 2, 3] (2 channels) through a [3, 2, 1] weight (`other`) with a bias
    // of its row sums; the backward passes through a [1, 2, 3] weight (one output, length 1) or a [3]
    // bias and `other` as the gradient [1, 3, 2].
    case OpId::conv1d:
      return Dispatch::conv1d(Dispatch::float_reshape(x, {1, 2, 3}), Dispatch::float_reshape(other, {3, 2, 1}),
                              Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(other, {3, 2}), 1), {3}),
                              Conv1dOptions{});
    case OpId::conv1d_x_backward:
      return Dispatch::conv1d_x_backward(Dispatch::float_reshape(x, {1, 2, 3}), Dispatch::float_reshape(other, {1, 2, 3}),
                                         Dispatch::float_reshape(Dispatch::float_sum(x), {1, 1, 1}), Conv1dOptions{});
    case OpId::conv1d_weight_backward:
      return Dispatch::conv1d_weight_backward(Dispatch::float_reshape(x, {1, 2, 3}), Dispatch::float_reshape(other, {1, 2, 3}),
                                              Dispatch::float_reshape(Dispatch::float_sum(x), {1, 1, 1}), Conv1dOptions{});
    case OpId::conv1d_bias_backward:
      return Dispatch::conv1d_bias_backward(
          Dispatch::float_reshape(x, {1, 2, 3}),
          Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(other, {3, 2}), 1), {3}),
          Dispatch::float_reshape(other, {1, 3, 2}));
    // conv_transpose2d: the receiver as [1, 2, 1, 3] (2 input channels) through a [2, 3, 1, 1]
    // weight (`other`) with a bias of its column sums; the backward passes through a [2, 1, 1, 1]
    // weight (`other`'s row sums) with the gradient [1, 1, 1, 3] (the receiver's column sums), the
    // bias's with a [3] bias and `other` as the gradient [1, 3, 1, 2].
    case OpId::conv_transpose2d:
      return Dispatch::conv_transpose2d(Dispatch::float_reshape(x, {1, 2, 1, 3}), Dispatch::float_reshape(other, {2, 3, 1, 1}),
                                        Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(other, {2, 3}), 0), {3}),
                                        ConvTranspose2dOptions{});
    case OpId::conv_transpose2d_x_backward:
    case OpId::conv_transpose2d_weight_backward: {
      const DispatchTensor input = Dispatch::float_reshape(x, {1, 2, 1, 3});
      const DispatchTensor w = Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(other, {2, 3}), 1), {2, 1, 1, 1});
      const DispatchTensor g = Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(x, {2, 3}), 0), {1, 1, 1, 3});
      return op == OpId::conv_transpose2d_x_backward ? Dispatch::conv_transpose2d_x_backward(input, w, g, ConvTranspose2dOptions{})
                                                     : Dispatch::conv_transpose2d_weight_backward(input, w, g, ConvTranspose2dOptions{});
    }
    case OpId::conv_transpose2d_bias_backward:
      return Dispatch::conv_transpose2d_bias_backward(
          Dispatch::float_reshape(x, {1, 2, 1, 3}),
          Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(other, {2, 3}), 0), {3}),
          Dispatch::float_reshape(other, {1, 3, 1, 2}));
    // conv3d and conv_transpose3d: conv2d's and conv_transpose2d's calls on a volume of depth 1.
    case OpId::conv3d:
      return Dispatch::conv3d(Dispatch::float_reshape(x, {1, 2, 1, 1, 3}), Dispatch::float_reshape(other, {3, 2, 1, 1, 1}),
                              Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(other, {3, 2}), 1), {3}),
                              Conv3dOptions{});
    case OpId::conv3d_x_backward:
      return Dispatch::conv3d_x_backward(Dispatch::float_reshape(x, {1, 2, 1, 1, 3}), Dispatch::float_reshape(other, {1, 2, 1, 1, 3}),
                                         Dispatch::float_reshape(Dispatch::float_sum(x), {1, 1, 1, 1, 1}), Conv3dOptions{});
    case OpId::conv3d_weight_backward:
      return Dispatch::conv3d_weight_backward(Dispatch::float_reshape(x, {1, 2, 1, 1, 3}),
                                              Dispatch::float_reshape(other, {1, 2, 1, 1, 3}),
                                              Dispatch::float_reshape(Dispatch::float_sum(x), {1, 1, 1, 1, 1}), Conv3dOptions{});
    case OpId::conv3d_bias_backward:
    case OpId::conv_transpose3d_bias_backward: {
      const DispatchTensor input = Dispatch::float_reshape(x, {1, 2, 1, 1, 3});
      const DispatchTensor bias = Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(other, {3, 2}), 1), {3});
      const DispatchTensor g = Dispatch::float_reshape(other, {1, 3, 1, 1, 2});
      return op == OpId::conv3d_bias_backward ? Dispatch::conv3d_bias_backward(input, bias, g)
                                              : Dispatch::conv_transpose3d_bias_backward(input, bias, g);
    }
    case OpId::conv_transpose3d:
      return Dispatch::conv_transpose3d(Dispatch::float_reshape(x, {1, 2, 1, 1, 3}), Dispatch::float_reshape(other, {2, 3, 1, 1, 1}),
                                        Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(other, {2, 3}), 0), {3}),
                                        ConvTranspose3dOptions{});
    case OpId::conv_transpose3d_x_backward:
    case OpId::conv_transpose3d_weight_backward: {
      const DispatchTensor input = Dispatch::float_reshape(x, {1, 2, 1, 1, 3});
      const DispatchTensor w = Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(other, {2, 3}), 1), {2, 1, 1, 1, 1});
      const DispatchTensor g = Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(x, {2, 3}), 0), {1, 1, 1, 1, 3});
      return op == OpId::conv_transpose3d_x_backward ? Dispatch::conv_transpose3d_x_backward(input, w, g, ConvTranspose3dOptions{})
                                                     : Dispatch::conv_transpose3d_weight_backward(input, w, g, ConvTranspose3dOptions{});
    }
    // conv_transpose1d: conv_transpose2d's calls on the single-row view.
    case OpId::conv_transpose1d:
      return Dispatch::conv_transpose1d(Dispatch::float_reshape(x, {1, 2, 3}), Dispatch::float_reshape(other, {2, 3, 1}),
                                        Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(other, {2, 3}), 0), {3}),
                                        ConvTranspose1dOptions{});
    case OpId::conv_transpose1d_x_backward:
    case OpId::conv_transpose1d_weight_backward: {
      const DispatchTensor input = Dispatch::float_reshape(x, {1, 2, 3});
      const DispatchTensor w = Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(other, {2, 3}), 1), {2, 1, 1});
      const DispatchTensor g = Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(x, {2, 3}), 0), {1, 1, 3});
      return op == OpId::conv_transpose1d_x_backward ? Dispatch::conv_transpose1d_x_backward(input, w, g, ConvTranspose1dOptions{})
                                                     : Dispatch::conv_transpose1d_weight_backward(input, w, g, ConvTranspose1dOptions{});
    }
    case OpId::conv_transpose1d_bias_backward:
      return Dispatch::conv_transpose1d_bias_backward(
          Dispatch::float_reshape(x, {1, 2, 3}),
          Dispatch::float_reshape(Dispatch::float_sum_dim(Dispatch::float_reshape(other, {2, 3}), 0), {3}),
          Dispatch::float_reshape(other, {1, 3, 2}));
    case OpId::float_abs: return Dispatch::float_abs(x);
    case OpId::float_clamp: return Dispatch::float_clamp(x, 0.75, 2.0);
    case OpId::float_max_dim: return Dispatch::float_max_dim(x, 1);
    case OpId::float_prod: return Dispatch::float_prod(x);
    case OpId::float_prod_dim: return Dispatch::float_prod_dim(x, 1);
    case OpId::float_max: return Dispatch::float_max(x);
    case OpId::float_min: return Dispatch::float_min(x);
    case OpId::float_max_abs: return Dispatch::float_max_abs(x);
    case OpId::float_max_abs_dim: return Dispatch::float_max_abs_dim(x, 1);
    case OpId::float_any: return Dispatch::float_any(x);
    case OpId::float_any_dim: return Dispatch::float_any_dim(x, 1);
    case OpId::float_all: return Dispatch::float_all(x);
    case OpId::float_all_dim: return Dispatch::float_all_dim(x, 1);
    case OpId::float_argmax: return Dispatch::float_argmax(x, 1);
    case OpId::float_min_dim: return Dispatch::float_min_dim(x, 1);
    case OpId::float_argmin: return Dispatch::float_argmin(x, 1);
    case OpId::float_greater: return Dispatch::float_greater(x, other);
    case OpId::float_lower: return Dispatch::float_lower(x, other);
    case OpId::float_equal: return Dispatch::float_equal(x, other);
    case OpId::float_greater_equal: return Dispatch::float_greater_equal(x, other);
    case OpId::float_lower_equal: return Dispatch::float_lower_equal(x, other);
    case OpId::float_not_equal: return Dispatch::float_not_equal(x, other);
    case OpId::float_greater_equal_elem: return Dispatch::float_greater_equal_elem(x, 1.5);
    case OpId::float_lower_elem: return Dispatch::float_lower_elem(x, 1.5);
    case OpId::float_lower_equal_elem: return Dispatch::float_lower_equal_elem(x, 1.5);
    case OpId::float_equal_elem: return Dispatch::float_equal_elem(x, 1.5);
    case OpId::float_not_equal_elem: return Dispatch::float_not_equal_elem(x, 1.5);
    case OpId::float_is_nan: return Dispatch::float_is_nan(x);
    case OpId::float_is_inf: return Dispatch::float_is_inf(x);
    case OpId::float_cat: return Dispatch::float_cat({x, other}, 1);
    case OpId::float_slice: return Dispatch::float_slice(x, {{0, 2}, {1, 3}});
    case OpId::float_select: return Dispatch::float_select(x, 1, indices);
    case OpId::float_select_assign: return Dispatch::float_select_assign(x, 1, indices, other);
    case OpId::float_select_add: return Dispatch::float_select_add(x, 1, indices, other);
    case OpId::float_gather: return Dispatch::float_gather(x, 1, per_element_indices(x));
    case OpId::float_scatter_add: return Dispatch::float_scatter_add(x, 1, per_element_indices(x), other);
    case OpId::float_scatter:
      return Dispatch::float_scatter(x, 1, per_element_indices(x), other, IndexingUpdateOp::Assign);
    case OpId::float_gather_nd: return Dispatch::float_gather_nd(x, row_indices(x));
    case OpId::float_scatter_nd: return Dispatch::float_scatter_nd(x, row_indices(x), other, IndexingUpdateOp::Add);
    case OpId::float_cross: return Dispatch::float_cross(x, other, 1);
    case OpId::hard_sigmoid: return Dispatch::hard_sigmoid(x, 0.25, 0.5);
    case OpId::float_repeat_dim: return Dispatch::float_repeat_dim(x, 1, 2);
    case OpId::float_unfold: return Dispatch::float_unfold(x, 1, 2, 1);
    case OpId::float_slice_assign: return Dispatch::float_slice_assign(x, {{0, 1}}, Dispatch::float_slice(other, {{0, 1}}));
    case OpId::float_argsort: return Dispatch::float_argsort(x, 1, true);
    case OpId::float_sort: return Dispatch::float_sort(x, 1, false);
    case OpId::float_argtopk: return Dispatch::float_argtopk(x, 1, 2);
    case OpId::float_topk: return Dispatch::float_topk(x, 0, 1);
    case OpId::float_mask_where: return Dispatch::float_mask_where(x, mask_of(x), other);
    case OpId::float_mask_fill: return Dispatch::float_mask_fill(x, mask_of(x), -1.5);
    case OpId::float_mask_select: return Dispatch::float_mask_select(x, mask_of(x));
    case OpId::float_cummin: return Dispatch::float_cummin(x, 1);
    case OpId::float_cummax: return Dispatch::float_cummax(x, 0);
    case OpId::float_permute: return Dispatch::float_permute(x, {1, 0});
    case OpId::float_expand: return Dispatch::float_expand(x, {4, 2, 3});
    case OpId::float_cumsum: return Dispatch::float_cumsum(x, 1);
    case OpId::float_cumprod: return Dispatch::float_cumprod(x, 0);
    case OpId::float_flip: return Dispatch::float_flip(x, {1});
    case OpId::float_transpose: return Dispatch::float_transpose(x);
    case OpId::softmin: return Dispatch::softmin(x, 1);
    case OpId::float_hypot: return Dispatch::float_hypot(x, other);
    case OpId::prelu: return Dispatch::prelu(x, other);
    case OpId::softmax: return Dispatch::softmax(x, 1);
    case OpId::log_softmax: return Dispatch::log_softmax(x, 1);
  }
  ADD_FAILURE() << "OpId without a case: " << static_cast<int>(op);
  return x;
}
#pragma GCC diagnostic pop

}  // namespace crossgrad::testing_support
