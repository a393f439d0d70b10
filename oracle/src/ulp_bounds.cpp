// The per-op ulp bounds (Note [One table of ulp bounds]). Each value is a promise of every backend
// over the op's whole argument range, subnormal and huge arguments included; docs/OPS.md's
// "Accuracy in ulps" table repeats it row by row.
#include <crossgrad/oracle/ulp_bounds.hpp>

namespace crossgrad::oracle {

#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
#pragma GCC diagnostic error "-Wswitch-enum"
std::optional<UlpBound> ulp_bound(OpId op) {
  switch (op) {
    // One IEEE operation, or a choice among the input and the bounds: the correctly rounded value.
    case OpId::float_neg:
    case OpId::float_abs:
    case OpId::relu:
    case OpId::float_clamp:
    case OpId::float_sqrt:        // IEEE sqrt (CUDA's sqrtf too: -prec-sqrt=true is nvcc's default)
    case OpId::float_add_scalar:  // x + s with s rounded to the dtype first (docs/OPS.md "Scalar arguments")
    case OpId::float_mul_scalar:
    case OpId::float_sub_scalar:  // x - s, x / s: one IEEE operation with the converted scalar
    case OpId::float_div_scalar:
    case OpId::float_clamp_min:   // a choice between x and the converted bound
    case OpId::float_clamp_max:
    case OpId::float_remainder_scalar:  // fmod (exact), plus s where it has the other sign: one rounding
    case OpId::float_recip:  // 1 / x, one IEEE division (CUDA: -prec-div=true, nvcc's default)
    // Exact: the result is an integer (or +-0, +-1) that the input's format holds.
    case OpId::float_round:
    case OpId::float_floor:
    case OpId::float_ceil:
    case OpId::float_trunc:
    case OpId::float_sign:
    case OpId::leaky_relu:  // x, or x * s with s rounded to the dtype first
      return UlpBound{0, 0};
    // The trigonometric, hyperbolic and error functions: the largest of glibc's documented
    // maximum errors (libm-test-ulps, x86_64: sin, cos, tan, asin, acos, atan, erf 1 ulp; sinh,
    // cosh, asinh, acosh, atanh 2) and CUDA's (CUDA C++ Programming Guide, Mathematical
    // Functions: sinf, cosf, acosf, asinf, atanf, coshf, erff 2, tanf 4, sinhf, asinhf, atanhf 3,
    // acoshf 4; sin, cos, tan, acos, asin, atan, sinh, atanh, erf 2, asinh, acosh 3, cosh 1).
    case OpId::float_cos:
    case OpId::float_sin:
    case OpId::float_acos:
    case OpId::float_asin:
    case OpId::float_atan:
    case OpId::float_erf:
    case OpId::float_cosh:
      return UlpBound{2, 2};
    case OpId::float_tan:
      return UlpBound{4, 2};
    case OpId::float_sinh:
    case OpId::float_atanh:
      return UlpBound{3, 2};
    case OpId::float_asinh:
      return UlpBound{3, 3};
    case OpId::float_acosh:
      return UlpBound{4, 3};
    // glibc: exp/expf within 1 ulp, Flex's vectorised expf within 1 ulp, SLEEF's expd4_u10 (Flex's AVX2
    // F64) 1.0 ulp; CUDA expf 2 ulp, exp 1 ulp.
    case OpId::float_exp:
      return UlpBound{2, 1};
    // glibc log/logf within 1 ulp, SLEEF log_u10 (Flex's AVX2 table) 1.0 ulp; CUDA logf 1 ulp, log 1 ulp.
    case OpId::float_log:
      return UlpBound{1, 1};
    // glibc log1p/log1pf within 1 ulp, also for tiny x (no cancellation in 1 + x), SLEEF log1p_u10 1.0 ulp
    // (Flex sends its subnormal and huge arguments to glibc); CUDA log1pf 1 ulp, log1p 1 ulp.
    case OpId::float_log1p:
      return UlpBound{1, 1};
    // glibc tanh/tanhf within 2 ulp, SLEEF tanh_u10 1.0001 ulp; CUDA tanhf 2 ulp, tanh 1 ulp.
    case OpId::float_tanh:
      return UlpBound{2, 2};
    // Composed of exp (its bound), 1 + e and a division (half an ulp each): e / (1 + e) below 0,
    // 1 / (1 + exp(-x)) from 0 (docs/OPS.md "sigmoid at the ends of its range").
    case OpId::sigmoid:
      return UlpBound{4, 3};
    // glibc pow/powf within 1 ulp, SLEEF pow_u10 1.0 ulp; CUDA powf 4 ulp, pow 2 ulp. The exponent is rounded to the dtype
    // first (docs/OPS.md "Scalar arguments"), and the reference takes the rounded exponent too.
    case OpId::float_powf_scalar:
      return UlpBound{4, 2};
    // x - log1p(exp(x)) below 0, -log1p(exp(-x)) from 0: exp of a non-positive argument (1 ulp
    // glibc, 2 CUDA expf), log1p (1 ulp) of a value in (0, 1], whose condition is at most 1, and a
    // subtraction of two terms of one sign.
    case OpId::log_sigmoid:
      return UlpBound{4, 3};
    // In double for both dtypes: F32 rounds an accurate double once (1 ulp: a double that lands on a
    // tie, x = the smallest subnormal). F64 carries erfc's error and two products; below x = -36.7
    // erfc's own result is subnormal, and its absolute error (a subnormal ulp) grows by |x| / 2 in
    // the product: up to 19 ulps of the subnormal result (measured with glibc: 17 at x = -37.6801).
    case OpId::gelu:
      return UlpBound{1, 24};
    // Not element-wise on one float tensor.
    case OpId::float_add:
    case OpId::float_sub:
    case OpId::float_mul:
    case OpId::float_div:
    case OpId::float_remainder:
    case OpId::float_powf:
    case OpId::float_atan2:
    case OpId::float_hypot:
    case OpId::prelu:
    case OpId::float_matmul:
    case OpId::linear:
    case OpId::linear_x_backward:
    case OpId::linear_weight_backward:
    case OpId::linear_bias_backward:
    case OpId::conv2d:
    case OpId::conv2d_x_backward:
    case OpId::conv2d_weight_backward:
    case OpId::conv2d_bias_backward:
    case OpId::conv_transpose2d:
    case OpId::conv_transpose2d_x_backward:
    case OpId::conv_transpose2d_weight_backward:
    case OpId::conv_transpose2d_bias_backward:
    case OpId::conv1d:
    case OpId::conv1d_x_backward:
    case OpId::conv1d_weight_backward:
    case OpId::conv1d_bias_backward:
    case OpId::conv_transpose1d:
    case OpId::conv_transpose1d_x_backward:
    case OpId::conv_transpose1d_weight_backward:
    case OpId::conv_transpose1d_bias_backward:
    case OpId::conv3d:
    case OpId::conv3d_x_backward:
    case OpId::conv3d_weight_backward:
    case OpId::conv3d_bias_backward:
    case OpId::conv_transpose3d:
    case OpId::conv_transpose3d_x_backward:
    case OpId::conv_transpose3d_weight_backward:
    case OpId::conv_transpose3d_bias_backward:
    case OpId::rfft:
    case OpId::irfft:
    case OpId::float_sum:
    case OpId::float_mean:
    case OpId::float_sum_dim:
    case OpId::float_mean_dim:
    case OpId::avg_pool2d:  // sums of windows (numeric.cpp's accumulation bound)
    case OpId::avg_pool2d_backward:
    case OpId::adaptive_avg_pool2d:
    case OpId::adaptive_avg_pool2d_backward:
    case OpId::adaptive_avg_pool3d:
    case OpId::adaptive_avg_pool3d_backward:
    case OpId::max_pool2d:
    case OpId::max_pool2d_indices:
    case OpId::max_pool2d_with_indices_backward:
    case OpId::avg_pool1d:
    case OpId::avg_pool1d_backward:
    case OpId::adaptive_avg_pool1d:
    case OpId::adaptive_avg_pool1d_backward:
    case OpId::max_pool1d:
    case OpId::max_pool1d_indices:
    case OpId::max_pool1d_with_indices_backward:
    case OpId::unfold4d:
    case OpId::fold4d:
    case OpId::interpolate:
    case OpId::interpolate_backward:
    case OpId::layer_norm:  // compositions: numeric.cpp's sensitivity bounds
    case OpId::attention:
    case OpId::batch_norm:
    case OpId::embedding:
    case OpId::embedding_backward:
    case OpId::float_reshape:
    case OpId::float_swap_dims:
    case OpId::float_cast:
    case OpId::float_greater_scalar:
    case OpId::bool_into_float:
    case OpId::int_into_float:
    case OpId::float_into_int:
    case OpId::int_add:
    case OpId::int_sub:
    case OpId::int_mul:
    case OpId::int_div:
    case OpId::int_remainder:
    case OpId::int_neg:
    case OpId::int_abs:
    case OpId::int_sign:
    case OpId::int_add_scalar:
    case OpId::int_sub_scalar:
    case OpId::int_mul_scalar:
    case OpId::int_div_scalar:
    case OpId::int_remainder_scalar:
    case OpId::bool_not:
    case OpId::bool_and:
    case OpId::bool_or:
    case OpId::bool_xor:
    case OpId::int_equal:
    case OpId::int_not_equal:
    case OpId::int_greater:
    case OpId::int_greater_equal:
    case OpId::int_lower:
    case OpId::int_lower_equal:
    case OpId::bool_equal:
    case OpId::bool_not_equal:
    case OpId::bitwise_and:
    case OpId::bitwise_or:
    case OpId::bitwise_xor:
    case OpId::bitwise_left_shift:
    case OpId::bitwise_right_shift:
    case OpId::int_equal_elem:
    case OpId::int_not_equal_elem:
    case OpId::int_greater_elem:
    case OpId::int_greater_equal_elem:
    case OpId::int_lower_elem:
    case OpId::int_lower_equal_elem:
    case OpId::bitwise_not:
    case OpId::bitwise_and_scalar:
    case OpId::bitwise_or_scalar:
    case OpId::bitwise_xor_scalar:
    case OpId::bitwise_left_shift_scalar:
    case OpId::bitwise_right_shift_scalar:
    case OpId::int_cast:
    case OpId::bool_into_int:
    case OpId::int_sum:
    case OpId::int_sum_dim:
    case OpId::int_prod:
    case OpId::int_prod_dim:
    case OpId::int_mean:
    case OpId::int_mean_dim:
    case OpId::int_max:
    case OpId::int_min:
    case OpId::int_max_dim:
    case OpId::int_min_dim:
    case OpId::int_argmax:
    case OpId::int_argmin:
    case OpId::int_any:
    case OpId::int_all:
    case OpId::bool_any:
    case OpId::bool_all:
    case OpId::int_clamp:
    case OpId::int_clamp_min:
    case OpId::int_clamp_max:
    case OpId::int_square:
    case OpId::int_any_dim:
    case OpId::int_all_dim:
    case OpId::bool_any_dim:
    case OpId::bool_all_dim:
    case OpId::int_max_abs:
    case OpId::int_max_abs_dim:
    case OpId::int_reshape:
    case OpId::int_swap_dims:
    case OpId::int_permute:
    case OpId::int_transpose:
    case OpId::int_expand:
    case OpId::int_flip:
    case OpId::int_repeat_dim:
    case OpId::int_unfold:
    case OpId::int_cat:
    case OpId::int_slice:
    case OpId::int_slice_assign:
    case OpId::int_select:
    case OpId::bool_reshape:
    case OpId::bool_swap_dims:
    case OpId::bool_permute:
    case OpId::bool_transpose:
    case OpId::bool_expand:
    case OpId::bool_flip:
    case OpId::bool_repeat_dim:
    case OpId::bool_unfold:
    case OpId::bool_cat:
    case OpId::bool_slice:
    case OpId::bool_slice_assign:
    case OpId::bool_select:
    case OpId::int_gather:
    case OpId::int_gather_nd:
    case OpId::int_mask_where:
    case OpId::int_mask_select:
    case OpId::bool_gather:
    case OpId::bool_gather_nd:
    case OpId::bool_mask_where:
    case OpId::bool_mask_select:
    case OpId::int_select_assign:
    case OpId::int_select_add:
    case OpId::int_scatter_add:
    case OpId::int_scatter:
    case OpId::int_scatter_nd:
    case OpId::int_mask_fill:
    case OpId::bool_select_or:
    case OpId::bool_scatter_or:
    case OpId::bool_mask_fill:
    case OpId::bool_argwhere:
    case OpId::int_cumsum:
    case OpId::int_cumprod:
    case OpId::int_cummin:
    case OpId::int_cummax:
    case OpId::int_argsort:
    case OpId::int_sort:
    case OpId::int_argtopk:
    case OpId::int_topk:
    case OpId::int_matmul:
    case OpId::int_powi:
    case OpId::int_powi_scalar:
    case OpId::float_max_dim:
    case OpId::float_argmax:
    case OpId::float_min_dim:
    case OpId::float_argmin:
    case OpId::float_prod:
    case OpId::float_prod_dim:
    case OpId::float_max:
    case OpId::float_min:
    case OpId::float_max_abs:
    case OpId::float_max_abs_dim:
    case OpId::float_any:
    case OpId::float_any_dim:
    case OpId::float_all:
    case OpId::float_all_dim:
    case OpId::float_greater:
    case OpId::float_lower:
    case OpId::float_equal:
    case OpId::float_greater_equal:
    case OpId::float_lower_equal:
    case OpId::float_not_equal:
    case OpId::float_greater_equal_elem:
    case OpId::float_lower_elem:
    case OpId::float_lower_equal_elem:
    case OpId::float_equal_elem:
    case OpId::float_not_equal_elem:
    case OpId::float_is_nan:
    case OpId::float_is_inf:
    case OpId::float_cat:
    case OpId::float_slice:
    case OpId::float_select:
    case OpId::float_select_assign:
    case OpId::float_permute:
    case OpId::float_expand:
    case OpId::softmax:
    case OpId::log_softmax:
    case OpId::float_cumsum:
    case OpId::float_cumprod:
    case OpId::float_flip:
    case OpId::float_transpose:
    case OpId::softmin:
    case OpId::float_gather:
    case OpId::float_scatter_add:
    case OpId::float_scatter:
    case OpId::float_gather_nd:
    case OpId::float_scatter_nd:
    case OpId::float_mask_select:
    case OpId::float_select_add:
    case OpId::float_cummin:
    case OpId::float_cummax:
    case OpId::float_mask_where:
    case OpId::float_mask_fill:
    case OpId::hard_sigmoid:
    case OpId::float_cross:
    case OpId::float_repeat_dim:
    case OpId::float_unfold:
    case OpId::float_argsort:
    case OpId::float_sort:
    case OpId::float_argtopk:
    case OpId::float_topk:
    case OpId::float_slice_assign:
      return std::nullopt;
  }
  return std::nullopt;
}
#pragma GCC diagnostic pop

}  // namespace crossgrad::oracle
