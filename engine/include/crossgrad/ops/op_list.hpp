#pragma once
// Note [The op registry]
// The one list of tensor ops. Every layer that must know every op is expanded from CROSSGRAD_OPS:
// the backend interface (backends/backend_ops.hpp), Autodiff<B>'s declarations and its generic
// members (autodiff.hpp, autodiff_impl.hpp), the Dispatch API and its one-line bodies
// (dispatch.hpp, dispatch/ops_api_bodies.hpp), the Tensor methods (tensor.hpp), OpId and op_info below,
// and from those the harness: the oracle's op enumeration, generators, fuzz decoders, op probes,
// benchmarks and the generated op table (docs/OP_TABLE.md). Adding an op is one X(...) line here
// plus what cannot be derived: a kernel per backend (engine/src/backends/<backend>/), a backward
// rule when Rule is Backward (engine/src/autodiff/backward_rules*.hpp), the oracle's independent
// formula and shape rule (oracle/src: reference_ops.cpp, graph.cpp's result_shape, numeric.cpp's
// bound_for) and its semantics in docs/OPS.md. A missing kernel or backward rule fails the link,
// a missing oracle entry fails the build (exhaustive switches over OpId, -Wswitch-enum), a missing
// docs entry fails the OpRegistryDocs tests.
//
// X(name, method, Sig, Operand, Result, Rule)
//   name     Burn's name: the backend's, Autodiff<B>'s and Dispatch's function.
//   method   the Tensor method (tensor.hpp).
//   Sig      the parameter list, one of the CROSSGRAD_SIG_* families below.
//   Operand  the kind of the receiver (Float, Int or Bool); other tensor operands follow the Sig.
//   Result   the kind of the result: Float, Int (I64; float_into_int's, int_cast's and
//            bool_into_int's: the target; an int op's: its receiver's dtype, but I64 for
//            int_argmax / int_argmin / int_argsort / int_argtopk) or Bool.
//   Rule     Backward: a backward rule exists (Float results);
//            None: no gradient flows (Int and Bool results; an int or bool receiver on an
//                  autodiff device runs on the inner backend and never touches a graph, as in
//                  Burn; on a tracked float receiver the result is
//                  Autodiff(B(Int/Bool(...))), the kind the contract gives int and bool tensors on
//                  an autodiff device);
//            Leaf: the result of a tracked receiver is a new tracked leaf, not connected to any
//                  graph (int/bool -> float conversions: an int or bool tensor never carries a
//                  graph, so nothing can re-enter one through it).
//            NotDifferentiable: the op is itself a backward pass (a module op's: avg_pool2d_backward);
//                  on an autodiff device it panics not-differentiable, tracked or not, as Burn's
//                  Autodiff<B> does. Its gradient comes from backward() on the forward op.
//
// Only appended: OpId's value is the op's code in stored inputs (fuzz corpora, counterexamples).
// The list is cut into parts only so that Dispatch's bodies compile as one file per part
// (dispatch/ops_api_part_<k>.cpp): one file was a 2-minute, 7-GB compile at the end of every
// build. CROSSGRAD_OPS is their concatenation and the only name anything else expands; a new op
// goes at the end of the last part.
#define CROSSGRAD_OPS_PART_0(X) \
  X(float_add, add, Binary, Float, Float, Backward)                           \
  X(float_sub, sub, Binary, Float, Float, Backward)                           \
  X(float_mul, mul, Binary, Float, Float, Backward)                           \
  X(float_div, div, Binary, Float, Float, Backward)                           \
  X(float_matmul, matmul, Binary, Float, Float, Backward)                     \
  X(float_neg, neg, Unary, Float, Float, Backward)                            \
  X(float_exp, exp, Unary, Float, Float, Backward)                            \
  X(float_log, log, Unary, Float, Float, Backward)                            \
  X(float_sqrt, sqrt, Unary, Float, Float, Backward)                          \
  X(float_tanh, tanh, Unary, Float, Float, Backward)                          \
  X(relu, relu, Unary, Float, Float, Backward)                                \
  X(sigmoid, sigmoid, Unary, Float, Float, Backward)                          \
  X(float_powf_scalar, powf, Scalar, Float, Float, Backward)                  \
  X(float_add_scalar, add_scalar, Scalar, Float, Float, Backward)             \
  X(float_mul_scalar, mul_scalar, Scalar, Float, Float, Backward)             \
  X(float_sum, sum, Unary, Float, Float, Backward)                            \
  X(float_mean, mean, Unary, Float, Float, Backward)                          \
  X(float_sum_dim, sum_dim, Dim, Float, Float, Backward)                      \
  X(float_mean_dim, mean_dim, Dim, Float, Float, Backward)                    \
  X(float_reshape, reshape, ToShape, Float, Float, Backward)                  \
  X(float_swap_dims, swap_dims, DimPair, Float, Float, Backward)              \
  X(float_cast, cast, ToDType, Float, Float, Backward)                        \
  X(float_greater_scalar, greater_scalar, Scalar, Float, Bool, None)          \
  X(bool_into_float, bool_into_float, ToDType, Bool, Float, Leaf)             \
  X(int_into_float, int_into_float, ToDType, Int, Float, Leaf)                \
  X(float_abs, abs, Unary, Float, Float, Backward)                            \
  X(float_clamp, clamp, Bounds, Float, Float, Backward)                       \
  X(float_max_dim, max_dim, Dim, Float, Float, Backward)                      \
  X(float_argmax, argmax, Dim, Float, Int, None)                              \
  X(float_greater, greater, Binary, Float, Bool, None)                        \
  X(float_lower, lower, Binary, Float, Bool, None)                            \
  X(float_equal, equal, Binary, Float, Bool, None)                            \
  X(float_cat, cat, Cat, Float, Float, Backward)                              \
  X(float_slice, slice, Ranges, Float, Float, Backward)                       \
  X(float_select, select, Select, Float, Float, Backward)                     \
  X(float_select_assign, select_assign, SelectAssign, Float, Float, Backward) \
  X(float_permute, permute, Axes, Float, Float, Backward)                     \
  X(float_expand, expand, ToShape, Float, Float, Backward)                    \
  X(softmax, softmax, Dim, Float, Float, Backward)                            \
  X(log_softmax, log_softmax, Dim, Float, Float, Backward)                    \
  X(float_log1p, log1p, Unary, Float, Float, Backward)                        \
  X(float_cos, cos, Unary, Float, Float, Backward)                            \
  X(float_sin, sin, Unary, Float, Float, Backward)                            \
  X(float_tan, tan, Unary, Float, Float, Backward)                            \
  X(float_cosh, cosh, Unary, Float, Float, Backward)                          \
  X(float_sinh, sinh, Unary, Float, Float, Backward)                          \
  X(float_acos, acos, Unary, Float, Float, Backward)                          \
  X(float_acosh, acosh, Unary, Float, Float, Backward)                        \
  X(float_asin, asin, Unary, Float, Float, Backward)                          \
  X(float_asinh, asinh, Unary, Float, Float, Backward)                        \
  X(float_atan, atan, Unary, Float, Float, Backward)                          \
  X(float_atanh, atanh, Unary, Float, Float, Backward)                        \
  X(float_erf, erf, Unary, Float, Float, Backward)                            \
  X(float_recip, recip, Unary, Float, Float, Backward)                        \
  X(float_round, round, Unary, Float, Float, Backward)                        \
  X(float_floor, floor, Unary, Float, Float, Backward)                        \
  X(float_ceil, ceil, Unary, Float, Float, Backward)                          \
  X(float_trunc, trunc, Unary, Float, Float, Backward)                        \
  X(float_sign, sign, Unary, Float, Float, Backward)                          \
  X(float_greater_equal, greater_equal, Binary, Float, Bool, None)            \
  X(float_lower_equal, lower_equal, Binary, Float, Bool, None)                \
  X(float_not_equal, not_equal, Binary, Float, Bool, None)                    \
  X(float_greater_equal_elem, greater_equal_elem, Scalar, Float, Bool, None)  \
  X(float_lower_elem, lower_elem, Scalar, Float, Bool, None)                  \
  X(float_lower_equal_elem, lower_equal_elem, Scalar, Float, Bool, None)      \
  X(float_equal_elem, equal_elem, Scalar, Float, Bool, None)                  \
  X(float_not_equal_elem, not_equal_elem, Scalar, Float, Bool, None)          \
  X(float_is_nan, is_nan, Unary, Float, Bool, None)                           \
  X(float_is_inf, is_inf, Unary, Float, Bool, None)                           \
  X(float_sub_scalar, sub_scalar, Scalar, Float, Float, Backward)             \
  X(float_div_scalar, div_scalar, Scalar, Float, Float, Backward)             \
  X(float_clamp_min, clamp_min, Scalar, Float, Float, Backward)               \
  X(float_clamp_max, clamp_max, Scalar, Float, Float, Backward)               \
  X(float_min_dim, min_dim, Dim, Float, Float, Backward)

#define CROSSGRAD_OPS_PART_1(X) \
  X(float_argmin, argmin, Dim, Float, Int, None)                              \
  X(log_sigmoid, log_sigmoid, Unary, Float, Float, Backward)                  \
  X(gelu, gelu, Unary, Float, Float, Backward)                                \
  X(leaky_relu, leaky_relu, Scalar, Float, Float, Backward)                   \
  X(float_remainder_scalar, remainder_scalar, Scalar, Float, Float, Backward) \
  X(float_remainder, remainder, Binary, Float, Float, Backward)               \
  X(float_powf, powf, Binary, Float, Float, Backward)                         \
  X(float_atan2, atan2, Binary, Float, Float, Backward)                       \
  X(float_prod, prod, Unary, Float, Float, Backward)                          \
  X(float_prod_dim, prod_dim, Dim, Float, Float, Backward)                    \
  X(float_max, max, Unary, Float, Float, Backward)                            \
  X(float_min, min, Unary, Float, Float, Backward)                            \
  X(float_max_abs, max_abs, Unary, Float, Float, Backward)                    \
  X(float_max_abs_dim, max_abs_dim, Dim, Float, Float, Backward)              \
  X(float_any, any, Unary, Float, Bool, None)                                 \
  X(float_any_dim, any_dim, Dim, Float, Bool, None)                           \
  X(float_all, all, Unary, Float, Bool, None)                                 \
  X(float_all_dim, all_dim, Dim, Float, Bool, None)                           \
  X(float_cumsum, cumsum, Dim, Float, Float, Backward)                        \
  X(float_cumprod, cumprod, Dim, Float, Float, Backward)                      \
  X(float_flip, flip, Axes, Float, Float, Backward)                           \
  X(float_transpose, transpose, Unary, Float, Float, Backward)                \
  X(softmin, softmin, Dim, Float, Float, Backward)                            \
  X(float_hypot, hypot, Binary, Float, Float, Backward)                       \
  X(prelu, prelu, Binary, Float, Float, Backward)                             \
  X(float_gather, gather, Gather, Float, Float, Backward)                     \
  X(float_scatter_add, scatter_add, Scatter, Float, Float, Backward)          \
  X(float_select_add, select_add, SelectAssign, Float, Float, Backward)       \
  X(float_cummin, cummin, Dim, Float, Float, Backward)                        \
  X(float_cummax, cummax, Dim, Float, Float, Backward)                        \
  X(float_mask_where, mask_where, MaskWhere, Float, Float, Backward)          \
  X(float_mask_fill, mask_fill, MaskFill, Float, Float, Backward)             \
  X(hard_sigmoid, hard_sigmoid, Affine, Float, Float, Backward)               \
  X(float_repeat_dim, repeat_dim, Repeat, Float, Float, Backward)             \
  X(float_unfold, unfold, Window, Float, Float, Backward)                     \
  X(float_cross, cross, BinaryDim, Float, Float, Backward)                    \
  X(float_argsort, argsort, Sort, Float, Int, None)                           \
  X(float_sort, sort, Sort, Float, Float, Backward)                           \
  X(float_argtopk, argtopk, TopK, Float, Int, None)                           \
  X(float_topk, topk, TopK, Float, Float, Backward)                           \
  X(float_slice_assign, slice_assign, RangesAssign, Float, Float, Backward)   \
  X(float_scatter, scatter, ScatterUpdate, Float, Float, Backward)            \
  X(float_gather_nd, gather_nd, GatherNd, Float, Float, Backward)             \
  X(float_scatter_nd, scatter_nd, ScatterNd, Float, Float, Backward)          \
  X(float_mask_select, mask_select, MaskSelect, Float, Float, Backward)       \
  X(float_into_int, into_int, ToDType, Float, Int, None)                      \
  X(int_add, int_add, Binary, Int, Int, None)                                 \
  X(int_sub, int_sub, Binary, Int, Int, None)                                 \
  X(int_mul, int_mul, Binary, Int, Int, None)                                 \
  X(int_div, int_div, Binary, Int, Int, None)                                 \
  X(int_remainder, int_remainder, Binary, Int, Int, None)                     \
  X(int_neg, int_neg, Unary, Int, Int, None)                                  \
  X(int_abs, int_abs, Unary, Int, Int, None)                                  \
  X(int_sign, int_sign, Unary, Int, Int, None)                                \
  X(int_add_scalar, int_add_scalar, Scalar, Int, Int, None)                   \
  X(int_sub_scalar, int_sub_scalar, Scalar, Int, Int, None)                   \
  X(int_mul_scalar, int_mul_scalar, Scalar, Int, Int, None)                   \
  X(int_div_scalar, int_div_scalar, Scalar, Int, Int, None)                   \
  X(int_remainder_scalar, int_remainder_scalar, Scalar, Int, Int, None)       \
  X(bool_not, bool_not, Unary, Bool, Bool, None)                              \
  X(bool_and, bool_and, Binary, Bool, Bool, None)                             \
  X(bool_or, bool_or, Binary, Bool, Bool, None)                               \
  X(bool_xor, bool_xor, Binary, Bool, Bool, None)                             \
  X(int_equal, int_equal, Binary, Int, Bool, None)                            \
  X(int_not_equal, int_not_equal, Binary, Int, Bool, None)                    \
  X(int_greater, int_greater, Binary, Int, Bool, None)                        \
  X(int_greater_equal, int_greater_equal, Binary, Int, Bool, None)            \
  X(int_lower, int_lower, Binary, Int, Bool, None)                            \
  X(int_lower_equal, int_lower_equal, Binary, Int, Bool, None)                \
  X(int_equal_elem, int_equal_elem, Scalar, Int, Bool, None)                  \
  X(int_not_equal_elem, int_not_equal_elem, Scalar, Int, Bool, None)          \
  X(int_greater_elem, int_greater_elem, Scalar, Int, Bool, None)              \
  X(int_greater_equal_elem, int_greater_equal_elem, Scalar, Int, Bool, None)  \
  X(int_lower_elem, int_lower_elem, Scalar, Int, Bool, None)                  \
  X(int_lower_equal_elem, int_lower_equal_elem, Scalar, Int, Bool, None)

#define CROSSGRAD_OPS_PART_2(X) \
  X(bool_equal, bool_equal, Binary, Bool, Bool, None)                               \
  X(bool_not_equal, bool_not_equal, Binary, Bool, Bool, None)                       \
  X(bitwise_and, bitwise_and, Binary, Int, Int, None)                               \
  X(bitwise_or, bitwise_or, Binary, Int, Int, None)                                 \
  X(bitwise_xor, bitwise_xor, Binary, Int, Int, None)                               \
  X(bitwise_not, bitwise_not, Unary, Int, Int, None)                                \
  X(bitwise_left_shift, bitwise_left_shift, Binary, Int, Int, None)                 \
  X(bitwise_right_shift, bitwise_right_shift, Binary, Int, Int, None)               \
  X(bitwise_and_scalar, bitwise_and_scalar, Scalar, Int, Int, None)                 \
  X(bitwise_or_scalar, bitwise_or_scalar, Scalar, Int, Int, None)                   \
  X(bitwise_xor_scalar, bitwise_xor_scalar, Scalar, Int, Int, None)                 \
  X(bitwise_left_shift_scalar, bitwise_left_shift_scalar, Scalar, Int, Int, None)   \
  X(bitwise_right_shift_scalar, bitwise_right_shift_scalar, Scalar, Int, Int, None) \
  X(int_cast, int_cast, ToDType, Int, Int, None)                                    \
  X(bool_into_int, bool_into_int, ToDType, Bool, Int, None)                         \
  X(int_sum, int_sum, Unary, Int, Int, None)                                        \
  X(int_sum_dim, int_sum_dim, Dim, Int, Int, None)                                  \
  X(int_prod, int_prod, Unary, Int, Int, None)                                      \
  X(int_prod_dim, int_prod_dim, Dim, Int, Int, None)                                \
  X(int_mean, int_mean, Unary, Int, Int, None)                                      \
  X(int_mean_dim, int_mean_dim, Dim, Int, Int, None)                                \
  X(int_max, int_max, Unary, Int, Int, None)                                        \
  X(int_min, int_min, Unary, Int, Int, None)                                        \
  X(int_max_dim, int_max_dim, Dim, Int, Int, None)                                  \
  X(int_min_dim, int_min_dim, Dim, Int, Int, None)                                  \
  X(int_argmax, int_argmax, Dim, Int, Int, None)                                    \
  X(int_argmin, int_argmin, Dim, Int, Int, None)                                    \
  X(int_any, int_any, Unary, Int, Bool, None)                                       \
  X(int_all, int_all, Unary, Int, Bool, None)                                       \
  X(bool_any, bool_any, Unary, Bool, Bool, None)                                    \
  X(bool_all, bool_all, Unary, Bool, Bool, None)                                    \
  X(int_clamp, int_clamp, Bounds, Int, Int, None)                                   \
  X(int_clamp_min, int_clamp_min, Scalar, Int, Int, None)                           \
  X(int_clamp_max, int_clamp_max, Scalar, Int, Int, None)                           \
  X(int_square, int_square, Unary, Int, Int, None)                                  \
  X(int_any_dim, int_any_dim, Dim, Int, Bool, None)                                 \
  X(int_all_dim, int_all_dim, Dim, Int, Bool, None)                                 \
  X(bool_any_dim, bool_any_dim, Dim, Bool, Bool, None)                              \
  X(bool_all_dim, bool_all_dim, Dim, Bool, Bool, None)                              \
  X(int_max_abs, int_max_abs, Unary, Int, Int, None)                                \
  X(int_max_abs_dim, int_max_abs_dim, Dim, Int, Int, None)                          \
  X(int_reshape, int_reshape, ToShape, Int, Int, None)                              \
  X(int_swap_dims, int_swap_dims, DimPair, Int, Int, None)                          \
  X(int_permute, int_permute, Axes, Int, Int, None)                                 \
  X(int_transpose, int_transpose, Unary, Int, Int, None)                            \
  X(int_expand, int_expand, ToShape, Int, Int, None)                                \
  X(int_flip, int_flip, Axes, Int, Int, None)                                       \
  X(int_repeat_dim, int_repeat_dim, Repeat, Int, Int, None)                         \
  X(int_unfold, int_unfold, Window, Int, Int, None)                                 \
  X(int_cat, int_cat, Cat, Int, Int, None)                                          \
  X(int_slice, int_slice, Ranges, Int, Int, None)                                   \
  X(int_slice_assign, int_slice_assign, RangesAssign, Int, Int, None)               \
  X(int_select, int_select, Select, Int, Int, None)                                 \
  X(bool_reshape, bool_reshape, ToShape, Bool, Bool, None)                          \
  X(bool_swap_dims, bool_swap_dims, DimPair, Bool, Bool, None)                      \
  X(bool_permute, bool_permute, Axes, Bool, Bool, None)                             \
  X(bool_transpose, bool_transpose, Unary, Bool, Bool, None)                        \
  X(bool_expand, bool_expand, ToShape, Bool, Bool, None)                            \
  X(bool_flip, bool_flip, Axes, Bool, Bool, None)                                   \
  X(bool_repeat_dim, bool_repeat_dim, Repeat, Bool, Bool, None)                     \
  X(bool_unfold, bool_unfold, Window, Bool, Bool, None)                             \
  X(bool_cat, bool_cat, Cat, Bool, Bool, None)                                      \
  X(bool_slice, bool_slice, Ranges, Bool, Bool, None)                               \
  X(bool_slice_assign, bool_slice_assign, RangesAssign, Bool, Bool, None)           \
  X(bool_select, bool_select, Select, Bool, Bool, None)                             \
  X(int_gather, int_gather, Gather, Int, Int, None)                                 \
  X(int_gather_nd, int_gather_nd, GatherNd, Int, Int, None)                         \
  X(int_mask_where, int_mask_where, MaskWhere, Int, Int, None)                      \
  X(int_mask_select, int_mask_select, MaskSelect, Int, Int, None)                   \
  X(bool_gather, bool_gather, Gather, Bool, Bool, None)                             \
  X(bool_gather_nd, bool_gather_nd, GatherNd, Bool, Bool, None)                     \
  X(bool_mask_where, bool_mask_where, MaskWhere, Bool, Bool, None)                  \
  X(bool_mask_select, bool_mask_select, MaskSelect, Bool, Bool, None)               \
  X(int_cumsum, int_cumsum, Dim, Int, Int, None)                                    \
  X(int_cumprod, int_cumprod, Dim, Int, Int, None)

#define CROSSGRAD_OPS_PART_3(X) \
  X(int_cummin, int_cummin, Dim, Int, Int, None)                                                                                  \
  X(int_cummax, int_cummax, Dim, Int, Int, None)                                                                                  \
  X(int_argsort, int_argsort, Sort, Int, Int, None)                                                                               \
  X(int_sort, int_sort, Sort, Int, Int, None)                                                                                     \
  X(int_argtopk, int_argtopk, TopK, Int, Int, None)                                                                               \
  X(int_topk, int_topk, TopK, Int, Int, None)                                                                                     \
  X(int_matmul, int_matmul, Binary, Int, Int, None)                                                                               \
  X(int_powi, int_powi, Binary, Int, Int, None)                                                                                   \
  X(int_powi_scalar, int_powi_scalar, Scalar, Int, Int, None)                                                                     \
  X(int_select_assign, int_select_assign, SelectAssign, Int, Int, None)                                                           \
  X(int_select_add, int_select_add, SelectAssign, Int, Int, None)                                                                 \
  X(int_scatter_add, int_scatter_add, Scatter, Int, Int, None)                                                                    \
  X(int_scatter, int_scatter, ScatterUpdate, Int, Int, None)                                                                      \
  X(int_scatter_nd, int_scatter_nd, ScatterNd, Int, Int, None)                                                                    \
  X(int_mask_fill, int_mask_fill, MaskFill, Int, Int, None)                                                                       \
  X(bool_select_or, bool_select_or, SelectAssign, Bool, Bool, None)                                                               \
  X(bool_scatter_or, bool_scatter_or, Scatter, Bool, Bool, None)                                                                  \
  X(bool_mask_fill, bool_mask_fill, MaskFill, Bool, Bool, None)                                                                   \
  X(bool_argwhere, bool_argwhere, Unary, Bool, Int, None)                                                                         \
  X(avg_pool2d, avg_pool2d, AvgPool2d, Float, Float, Backward)                                                                    \
  X(avg_pool2d_backward, avg_pool2d_backward, AvgPool2dBackward, Float, Float, NotDifferentiable)                                 \
  X(adaptive_avg_pool2d, adaptive_avg_pool2d, AdaptivePool2d, Float, Float, Backward)                                             \
  X(adaptive_avg_pool2d_backward, adaptive_avg_pool2d_backward, AdaptivePool2dBackward, Float, Float, NotDifferentiable)          \
  X(max_pool2d, max_pool2d, MaxPool2d, Float, Float, Backward)                                                                    \
  X(max_pool2d_indices, max_pool2d_indices, MaxPool2d, Float, Int, None)                                                          \
  X(max_pool2d_with_indices_backward, max_pool2d_with_indices_backward, MaxPool2dBackward, Float, Float, NotDifferentiable)       \
  X(embedding, embedding, Embedding, Float, Float, Backward)                                                                      \
  X(embedding_backward, embedding_backward, EmbeddingBackward, Float, Float, NotDifferentiable)                                   \
  X(linear, linear, Linear, Float, Float, Backward)                                                                               \
  X(linear_x_backward, linear_x_backward, LinearXBackward, Float, Float, NotDifferentiable)                                       \
  X(linear_weight_backward, linear_weight_backward, LinearWeightBackward, Float, Float, NotDifferentiable)                        \
  X(linear_bias_backward, linear_bias_backward, LinearBiasBackward, Float, Float, NotDifferentiable)                              \
  X(conv2d, conv2d, Conv2d, Float, Float, Backward)                                                                               \
  X(conv2d_x_backward, conv2d_x_backward, Conv2dBackward, Float, Float, NotDifferentiable)                                        \
  X(conv2d_weight_backward, conv2d_weight_backward, Conv2dBackward, Float, Float, NotDifferentiable)                              \
  X(conv2d_bias_backward, conv2d_bias_backward, Conv2dBiasBackward, Float, Float, NotDifferentiable)                              \
  X(conv_transpose2d, conv_transpose2d, ConvTranspose2d, Float, Float, Backward)                                                  \
  X(conv_transpose2d_x_backward, conv_transpose2d_x_backward, ConvTranspose2dBackward, Float, Float, NotDifferentiable)           \
  X(conv_transpose2d_weight_backward, conv_transpose2d_weight_backward, ConvTranspose2dBackward, Float, Float, NotDifferentiable) \
  X(conv_transpose2d_bias_backward, conv_transpose2d_bias_backward, Conv2dBiasBackward, Float, Float, NotDifferentiable)          \
  X(conv1d, conv1d, Conv1d, Float, Float, Backward)                                                                               \
  X(conv1d_x_backward, conv1d_x_backward, Conv1dBackward, Float, Float, NotDifferentiable)                                        \
  X(conv1d_weight_backward, conv1d_weight_backward, Conv1dBackward, Float, Float, NotDifferentiable)                              \
  X(conv1d_bias_backward, conv1d_bias_backward, Conv1dBiasBackward, Float, Float, NotDifferentiable)                              \
  X(conv_transpose1d, conv_transpose1d, ConvTranspose1d, Float, Float, Backward)                                                  \
  X(conv_transpose1d_x_backward, conv_transpose1d_x_backward, ConvTranspose1dBackward, Float, Float, NotDifferentiable)           \
  X(conv_transpose1d_weight_backward, conv_transpose1d_weight_backward, ConvTranspose1dBackward, Float, Float, NotDifferentiable) \
  X(conv_transpose1d_bias_backward, conv_transpose1d_bias_backward, Conv1dBiasBackward, Float, Float, NotDifferentiable)          \
  X(avg_pool1d, avg_pool1d, AvgPool1d, Float, Float, Backward)                                                                    \
  X(avg_pool1d_backward, avg_pool1d_backward, AvgPool1dBackward, Float, Float, NotDifferentiable)                                 \
  X(adaptive_avg_pool1d, adaptive_avg_pool1d, AdaptivePool1d, Float, Float, Backward)                                             \
  X(adaptive_avg_pool1d_backward, adaptive_avg_pool1d_backward, AdaptivePool1dBackward, Float, Float, NotDifferentiable)          \
  X(max_pool1d, max_pool1d, MaxPool1d, Float, Float, Backward)                                                                    \
  X(max_pool1d_indices, max_pool1d_indices, MaxPool1d, Float, Int, None)                                                          \
  X(max_pool1d_with_indices_backward, max_pool1d_with_indices_backward, MaxPool1dBackward, Float, Float, NotDifferentiable)       \
  X(unfold4d, unfold4d, Unfold4d, Float, Float, Backward)                                                                         \
  X(fold4d, fold4d, Fold4d, Float, Float, Backward)                                                                               \
  X(interpolate, interpolate, Interpolate, Float, Float, Backward)                                                                \
  X(interpolate_backward, interpolate_backward, InterpolateBackward, Float, Float, NotDifferentiable)                             \
  X(adaptive_avg_pool3d, adaptive_avg_pool3d, AdaptivePool3d, Float, Float, Backward)                                             \
  X(adaptive_avg_pool3d_backward, adaptive_avg_pool3d_backward, AdaptivePool3dBackward, Float, Float, NotDifferentiable)          \
  X(layer_norm, layer_norm, LayerNorm, Float, Float, Backward)                                                                    \
  X(attention, attention, Attention, Float, Float, Backward)                                                                      \
  X(batch_norm, batch_norm, BatchNorm, Float, Float, Backward)                                                                    \
  X(conv3d, conv3d, Conv3d, Float, Float, Backward)                                                                               \
  X(conv3d_x_backward, conv3d_x_backward, Conv3dBackward, Float, Float, NotDifferentiable)                                        \
  X(conv3d_weight_backward, conv3d_weight_backward, Conv3dBackward, Float, Float, NotDifferentiable)                              \
  X(conv3d_bias_backward, conv3d_bias_backward, Conv3dBiasBackward, Float, Float, NotDifferentiable)                              \
  X(conv_transpose3d, conv_transpose3d, ConvTranspose3d, Float, Float, Backward)                                                  \
  X(conv_transpose3d_x_backward, conv_transpose3d_x_backward, ConvTranspose3dBackward, Float, Float, NotDifferentiable)           \
  X(conv_transpose3d_weight_backward, conv_transpose3d_weight_backward, ConvTranspose3dBackward, Float, Float, NotDifferentiable) \
  X(conv_transpose3d_bias_backward, conv_transpose3d_bias_backward, Conv3dBiasBackward, Float, Float, NotDifferentiable)          \
  X(rfft, rfft, Rfft, Float, Float, Backward)                                                                                     \
  X(irfft, irfft, Irfft, Float, Float, Backward)

#define CROSSGRAD_OPS(X) CROSSGRAD_OPS_PART_0(X) CROSSGRAD_OPS_PART_1(X) CROSSGRAD_OPS_PART_2(X) CROSSGRAD_OPS_PART_3(X)

// Note [Op signatures]
// Each Sig names a parameter list once for every layer. CROSSGRAD_SIG_PARAMS_<Sig>(T, I) is the
// list with T the layer's tensor type and I the type of an index tensor (for Autodiff<B> that is
// B's untracked primitive: indices are int tensors, never tracked). CROSSGRAD_SIG_CLASS_<Sig> says
// how Dispatch routes it: MAP (one receiver plus plain arguments, CROSSGRAD_SIG_EXTRA_<Sig> after
// it), ZIP (two tensors of one backend), SELECT / ASSIGN (a receiver, an int index tensor and, for
// ASSIGN, a values tensor), CAT (a list of tensors). Select / SelectAssign and Gather / Scatter
// share a class but not their index tensors: a 1-D list of positions along dim for the first two,
// one position per element (the receiver's rank and, outside dim, its sizes) for the others.
// ZIP_DIM: two tensors of one backend and a dim. ZIP_RANGES: a receiver, ranges and a values
// tensor of its backend (slice_assign). ASSIGN_UPDATE: ASSIGN's operands and an IndexingUpdateOp
// (float_scatter). GATHER_ND / SCATTER_ND: a receiver, an int index tensor (whose last dim indexes
// the receiver's leading dims; embedding's: rows of its table) and, for SCATTER_ND, a values
// tensor and an IndexingUpdateOp.
// MASK_SELECT: a receiver and a Bool mask of its shape (float_mask_select). ZIP_WITH: two tensors
// of one backend that need not broadcast (CROSSGRAD_SIG_TENSORS_<Sig> names them: a module op's input
// and its output's gradient; irfft's real and imaginary parts), then the CROSSGRAD_SIG_EXTRA_<Sig> arguments. INDEXED_WITH: a receiver, a second float tensor, an Int
// index tensor (max_pool2d_with_indices_backward: x, the gradient, the indices; embedding_backward:
// the weights, the gradient, the indices), then the
// CROSSGRAD_SIG_EXTRA_<Sig> arguments. ZIP_OPTIONAL: two tensors of one backend and an optional
// third of that backend (linear, conv1d, conv2d, conv_transpose1d, conv_transpose2d, layer_norm: x, weight and the bias Burn passes as an Option), tracked
// alike when present, then the CROSSGRAD_SIG_EXTRA_<Sig> arguments. ZIP3_WITH: three tensors of one
// backend (CROSSGRAD_SIG_TENSORS_<Sig> names them: conv2d_x_backward's and conv_transpose2d_x_backward's x, weight and the gradient),
// then the CROSSGRAD_SIG_EXTRA_<Sig> arguments. ZIP5_WITH: five tensors of one backend tracked alike
// (CROSSGRAD_SIG_TENSORS_<Sig>: batch_norm's x, weight, bias, mean and variance), then the
// CROSSGRAD_SIG_EXTRA_<Sig> arguments. The module ops' options are structs (Note [Module ops],
// core/module_options.hpp). ATTENTION: query, key and value of one backend, an optional Bool mask
// of that backend (I: untracked) and an optional float bias tracked like them, then the options. MASKED / MASK_FILL: a receiver, a Bool mask (I: untracked, like indices) and a values tensor or
// a scalar.
#define CROSSGRAD_SIG_PARAMS_Unary(T, I) (const T& tensor)
#define CROSSGRAD_SIG_PARAMS_Binary(T, I) (const T& lhs, const T& rhs)
#define CROSSGRAD_SIG_PARAMS_Scalar(T, I) (const T& tensor, double scalar)
#define CROSSGRAD_SIG_PARAMS_Bounds(T, I) (const T& tensor, double min, double max)
#define CROSSGRAD_SIG_PARAMS_Dim(T, I) (const T& tensor, std::size_t dim)
#define CROSSGRAD_SIG_PARAMS_DimPair(T, I) (const T& tensor, std::size_t dim0, std::size_t dim1)
#define CROSSGRAD_SIG_PARAMS_ToShape(T, I) (const T& tensor, const ::crossgrad::Shape& shape)
#define CROSSGRAD_SIG_PARAMS_ToDType(T, I) (const T& tensor, ::crossgrad::DType dtype)
#define CROSSGRAD_SIG_PARAMS_Axes(T, I) (const T& tensor, const std::vector<std::size_t>& axes)
#define CROSSGRAD_SIG_PARAMS_Ranges(T, I) (const T& tensor, const std::vector<::crossgrad::Range>& ranges)
#define CROSSGRAD_SIG_PARAMS_Select(T, I) (const T& tensor, std::size_t dim, const I& indices)
#define CROSSGRAD_SIG_PARAMS_SelectAssign(T, I) \
  (const T& tensor, std::size_t dim, const I& indices, const T& values)
#define CROSSGRAD_SIG_PARAMS_Gather(T, I) (const T& tensor, std::size_t dim, const I& indices)
#define CROSSGRAD_SIG_PARAMS_Scatter(T, I) \
  (const T& tensor, std::size_t dim, const I& indices, const T& values)
#define CROSSGRAD_SIG_PARAMS_MaskWhere(T, I) (const T& tensor, const I& mask, const T& value)
#define CROSSGRAD_SIG_PARAMS_MaskFill(T, I) (const T& tensor, const I& mask, double value)
#define CROSSGRAD_SIG_PARAMS_Affine(T, I) (const T& tensor, double alpha, double beta)
#define CROSSGRAD_SIG_PARAMS_Repeat(T, I) (const T& tensor, std::size_t dim, std::size_t times)
#define CROSSGRAD_SIG_PARAMS_Window(T, I) (const T& tensor, std::size_t dim, std::size_t size, std::size_t step)
#define CROSSGRAD_SIG_PARAMS_RangesAssign(T, I) \
  (const T& tensor, const std::vector<::crossgrad::Range>& ranges, const T& values)
#define CROSSGRAD_SIG_PARAMS_Sort(T, I) (const T& tensor, std::size_t dim, bool descending)
#define CROSSGRAD_SIG_PARAMS_TopK(T, I) (const T& tensor, std::size_t dim, std::size_t k)
#define CROSSGRAD_SIG_PARAMS_BinaryDim(T, I) (const T& lhs, const T& rhs, std::size_t dim)
#define CROSSGRAD_SIG_PARAMS_ScatterUpdate(T, I) \
  (const T& tensor, std::size_t dim, const I& indices, const T& values, ::crossgrad::IndexingUpdateOp update)
#define CROSSGRAD_SIG_PARAMS_GatherNd(T, I) (const T& tensor, const I& indices)
#define CROSSGRAD_SIG_PARAMS_ScatterNd(T, I) \
  (const T& tensor, const I& indices, const T& values, ::crossgrad::IndexingUpdateOp update)
#define CROSSGRAD_SIG_PARAMS_MaskSelect(T, I) (const T& tensor, const I& mask)
#define CROSSGRAD_SIG_PARAMS_Cat(T, I) (const std::vector<T>& tensors, std::size_t dim)
#define CROSSGRAD_SIG_PARAMS_AvgPool2d(T, I) (const T& tensor, const ::crossgrad::AvgPool2dOptions& options)
#define CROSSGRAD_SIG_PARAMS_AvgPool2dBackward(T, I) \
  (const T& tensor, const T& grad, const ::crossgrad::AvgPool2dOptions& options)
#define CROSSGRAD_SIG_PARAMS_AdaptivePool2d(T, I) (const T& tensor, const ::crossgrad::Size2& output_size)
#define CROSSGRAD_SIG_PARAMS_AdaptivePool2dBackward(T, I) (const T& tensor, const T& grad)
#define CROSSGRAD_SIG_PARAMS_MaxPool2d(T, I) (const T& tensor, const ::crossgrad::MaxPool2dOptions& options)
#define CROSSGRAD_SIG_PARAMS_MaxPool2dBackward(T, I) \
  (const T& tensor, const T& grad, const I& indices, const ::crossgrad::MaxPool2dOptions& options)
#define CROSSGRAD_SIG_PARAMS_Embedding(T, I) (const T& tensor, const I& indices)
#define CROSSGRAD_SIG_PARAMS_EmbeddingBackward(T, I) (const T& tensor, const T& grad, const I& indices)
#define CROSSGRAD_SIG_PARAMS_Linear(T, I) (const T& tensor, const T& weight, const std::optional<T>& bias)
#define CROSSGRAD_SIG_PARAMS_LinearXBackward(T, I) (const T& tensor, const T& grad)
#define CROSSGRAD_SIG_PARAMS_LinearWeightBackward(T, I) (const T& tensor, const T& grad)
#define CROSSGRAD_SIG_PARAMS_LinearBiasBackward(T, I) (const T& tensor)
#define CROSSGRAD_SIG_PARAMS_Conv2d(T, I) \
  (const T& tensor, const T& weight, const std::optional<T>& bias, const ::crossgrad::Conv2dOptions& options)
#define CROSSGRAD_SIG_PARAMS_Conv2dBackward(T, I) \
  (const T& tensor, const T& weight, const T& grad, const ::crossgrad::Conv2dOptions& options)
#define CROSSGRAD_SIG_PARAMS_Conv2dBiasBackward(T, I) (const T& tensor, const T& bias, const T& grad)
#define CROSSGRAD_SIG_PARAMS_ConvTranspose2d(T, I) \
  (const T& tensor, const T& weight, const std::optional<T>& bias, const ::crossgrad::ConvTranspose2dOptions& options)
#define CROSSGRAD_SIG_PARAMS_ConvTranspose2dBackward(T, I) \
  (const T& tensor, const T& weight, const T& grad, const ::crossgrad::ConvTranspose2dOptions& options)
#define CROSSGRAD_SIG_PARAMS_Conv1d(T, I) \
  (const T& tensor, const T& weight, const std::optional<T>& bias, const ::crossgrad::Conv1dOptions& options)
#define CROSSGRAD_SIG_PARAMS_Conv1dBackward(T, I) \
  (const T& tensor, const T& weight, const T& grad, const ::crossgrad::Conv1dOptions& options)
#define CROSSGRAD_SIG_PARAMS_Conv1dBiasBackward(T, I) (const T& tensor, const T& bias, const T& grad)
#define CROSSGRAD_SIG_PARAMS_Conv3d(T, I) \
  (const T& tensor, const T& weight, const std::optional<T>& bias, const ::crossgrad::Conv3dOptions& options)
#define CROSSGRAD_SIG_PARAMS_Conv3dBackward(T, I) \
  (const T& tensor, const T& weight, const T& grad, const ::crossgrad::Conv3dOptions& options)
#define CROSSGRAD_SIG_PARAMS_Conv3dBiasBackward(T, I) (const T& tensor, const T& bias, const T& grad)
#define CROSSGRAD_SIG_PARAMS_ConvTranspose3d(T, I) \
  (const T& tensor, const T& weight, const std::optional<T>& bias, const ::crossgrad::ConvTranspose3dOptions& options)
#define CROSSGRAD_SIG_PARAMS_ConvTranspose3dBackward(T, I) \
  (const T& tensor, const T& weight, const T& grad, const ::crossgrad::ConvTranspose3dOptions& options)
#define CROSSGRAD_SIG_PARAMS_Rfft(T, I) (const T& tensor, std::size_t dim, std::optional<std::size_t> n)
#define CROSSGRAD_SIG_PARAMS_Irfft(T, I) (const T& tensor, const T& imaginary, std::size_t dim, std::optional<std::size_t> n)
#define CROSSGRAD_SIG_PARAMS_ConvTranspose1d(T, I) \
  (const T& tensor, const T& weight, const std::optional<T>& bias, const ::crossgrad::ConvTranspose1dOptions& options)
#define CROSSGRAD_SIG_PARAMS_ConvTranspose1dBackward(T, I) \
  (const T& tensor, const T& weight, const T& grad, const ::crossgrad::ConvTranspose1dOptions& options)
#define CROSSGRAD_SIG_PARAMS_AvgPool1d(T, I) (const T& tensor, const ::crossgrad::AvgPool1dOptions& options)
#define CROSSGRAD_SIG_PARAMS_Unfold4d(T, I) \
  (const T& tensor, const ::crossgrad::Size2& kernel_size, const ::crossgrad::UnfoldOptions& options)
#define CROSSGRAD_SIG_PARAMS_Fold4d(T, I) \
  (const T& tensor, const ::crossgrad::Size2& output_size, const ::crossgrad::Size2& kernel_size, \
   const ::crossgrad::UnfoldOptions& options)
#define CROSSGRAD_SIG_PARAMS_Interpolate(T, I) \
  (const T& tensor, const ::crossgrad::Size2& output_size, const ::crossgrad::InterpolateOptions& options)
#define CROSSGRAD_SIG_PARAMS_InterpolateBackward(T, I) \
  (const T& tensor, const T& grad, const ::crossgrad::Size2& output_size, const ::crossgrad::InterpolateOptions& options)
#define CROSSGRAD_SIG_PARAMS_AdaptivePool3d(T, I) (const T& tensor, const ::crossgrad::Size3& output_size)
#define CROSSGRAD_SIG_PARAMS_AdaptivePool3dBackward(T, I) (const T& tensor, const T& grad)
#define CROSSGRAD_SIG_PARAMS_AvgPool1dBackward(T, I) \
  (const T& tensor, const T& grad, const ::crossgrad::AvgPool1dOptions& options)
#define CROSSGRAD_SIG_PARAMS_AdaptivePool1d(T, I) (const T& tensor, const ::crossgrad::Size1& output_size)
#define CROSSGRAD_SIG_PARAMS_AdaptivePool1dBackward(T, I) (const T& tensor, const T& grad)
#define CROSSGRAD_SIG_PARAMS_MaxPool1d(T, I) (const T& tensor, const ::crossgrad::MaxPool1dOptions& options)
#define CROSSGRAD_SIG_PARAMS_MaxPool1dBackward(T, I) \
  (const T& tensor, const T& grad, const I& indices, const ::crossgrad::MaxPool1dOptions& options)
#define CROSSGRAD_SIG_PARAMS_LayerNorm(T, I) \
  (const T& tensor, const T& weight, const std::optional<T>& bias, double epsilon)
#define CROSSGRAD_SIG_PARAMS_BatchNorm(T, I) \
  (const T& tensor, const T& weight, const T& bias, const T& mean, const T& variance, double epsilon)
#define CROSSGRAD_SIG_PARAMS_Attention(T, I)                                                        \
  (const T& tensor, const T& key, const T& value, const std::optional<I>& mask, const std::optional<T>& bias, \
   const ::crossgrad::AttentionOptions& options)

#define CROSSGRAD_SIG_CLASS_Unary MAP
#define CROSSGRAD_SIG_CLASS_Binary ZIP
#define CROSSGRAD_SIG_CLASS_Scalar MAP
#define CROSSGRAD_SIG_CLASS_Bounds MAP
#define CROSSGRAD_SIG_CLASS_Dim MAP
#define CROSSGRAD_SIG_CLASS_DimPair MAP
#define CROSSGRAD_SIG_CLASS_ToShape MAP
#define CROSSGRAD_SIG_CLASS_ToDType MAP
#define CROSSGRAD_SIG_CLASS_Axes MAP
#define CROSSGRAD_SIG_CLASS_Ranges MAP
#define CROSSGRAD_SIG_CLASS_Select SELECT
#define CROSSGRAD_SIG_CLASS_SelectAssign ASSIGN
#define CROSSGRAD_SIG_CLASS_Gather SELECT
#define CROSSGRAD_SIG_CLASS_Scatter ASSIGN
#define CROSSGRAD_SIG_CLASS_MaskWhere MASKED
#define CROSSGRAD_SIG_CLASS_MaskFill MASK_FILL
#define CROSSGRAD_SIG_CLASS_Affine MAP
#define CROSSGRAD_SIG_CLASS_Repeat MAP
#define CROSSGRAD_SIG_CLASS_Window MAP
#define CROSSGRAD_SIG_CLASS_RangesAssign ZIP_RANGES
#define CROSSGRAD_SIG_CLASS_Sort MAP
#define CROSSGRAD_SIG_CLASS_TopK MAP
#define CROSSGRAD_SIG_CLASS_BinaryDim ZIP_DIM
#define CROSSGRAD_SIG_CLASS_ScatterUpdate ASSIGN_UPDATE
#define CROSSGRAD_SIG_CLASS_GatherNd GATHER_ND
#define CROSSGRAD_SIG_CLASS_ScatterNd SCATTER_ND
#define CROSSGRAD_SIG_CLASS_MaskSelect MASK_SELECT
#define CROSSGRAD_SIG_CLASS_Cat CAT
#define CROSSGRAD_SIG_CLASS_AvgPool2d MAP
#define CROSSGRAD_SIG_CLASS_AvgPool2dBackward ZIP_WITH
#define CROSSGRAD_SIG_CLASS_AdaptivePool2d MAP
#define CROSSGRAD_SIG_CLASS_AdaptivePool2dBackward ZIP_WITH
#define CROSSGRAD_SIG_CLASS_MaxPool2d MAP
#define CROSSGRAD_SIG_CLASS_MaxPool2dBackward INDEXED_WITH
#define CROSSGRAD_SIG_CLASS_Embedding GATHER_ND
#define CROSSGRAD_SIG_CLASS_EmbeddingBackward INDEXED_WITH
#define CROSSGRAD_SIG_CLASS_Linear ZIP_OPTIONAL
#define CROSSGRAD_SIG_CLASS_LinearXBackward ZIP_WITH
#define CROSSGRAD_SIG_CLASS_LinearWeightBackward ZIP_WITH
#define CROSSGRAD_SIG_CLASS_LinearBiasBackward MAP
#define CROSSGRAD_SIG_CLASS_Conv2d ZIP_OPTIONAL
#define CROSSGRAD_SIG_CLASS_Conv2dBackward ZIP3_WITH
#define CROSSGRAD_SIG_CLASS_Conv2dBiasBackward ZIP3_WITH
#define CROSSGRAD_SIG_CLASS_ConvTranspose2d ZIP_OPTIONAL
#define CROSSGRAD_SIG_CLASS_ConvTranspose2dBackward ZIP3_WITH
#define CROSSGRAD_SIG_CLASS_Conv1d ZIP_OPTIONAL
#define CROSSGRAD_SIG_CLASS_Conv1dBackward ZIP3_WITH
#define CROSSGRAD_SIG_CLASS_Conv1dBiasBackward ZIP3_WITH
#define CROSSGRAD_SIG_CLASS_Conv3d ZIP_OPTIONAL
#define CROSSGRAD_SIG_CLASS_Conv3dBackward ZIP3_WITH
#define CROSSGRAD_SIG_CLASS_Conv3dBiasBackward ZIP3_WITH
#define CROSSGRAD_SIG_CLASS_ConvTranspose3d ZIP_OPTIONAL
#define CROSSGRAD_SIG_CLASS_ConvTranspose3dBackward ZIP3_WITH
#define CROSSGRAD_SIG_CLASS_Rfft MAP
#define CROSSGRAD_SIG_CLASS_Irfft ZIP_WITH
#define CROSSGRAD_SIG_CLASS_ConvTranspose1d ZIP_OPTIONAL
#define CROSSGRAD_SIG_CLASS_ConvTranspose1dBackward ZIP3_WITH
#define CROSSGRAD_SIG_CLASS_AvgPool1d MAP
#define CROSSGRAD_SIG_CLASS_Unfold4d MAP
#define CROSSGRAD_SIG_CLASS_Fold4d MAP
#define CROSSGRAD_SIG_CLASS_Interpolate MAP
#define CROSSGRAD_SIG_CLASS_InterpolateBackward ZIP_WITH
#define CROSSGRAD_SIG_CLASS_AdaptivePool3d MAP
#define CROSSGRAD_SIG_CLASS_AdaptivePool3dBackward ZIP_WITH
#define CROSSGRAD_SIG_CLASS_AvgPool1dBackward ZIP_WITH
#define CROSSGRAD_SIG_CLASS_AdaptivePool1d MAP
#define CROSSGRAD_SIG_CLASS_AdaptivePool1dBackward ZIP_WITH
#define CROSSGRAD_SIG_CLASS_MaxPool1d MAP
#define CROSSGRAD_SIG_CLASS_MaxPool1dBackward INDEXED_WITH
#define CROSSGRAD_SIG_CLASS_LayerNorm ZIP_OPTIONAL
#define CROSSGRAD_SIG_CLASS_Attention ATTENTION
#define CROSSGRAD_SIG_CLASS_BatchNorm ZIP5_WITH

// The arguments after the receiver, for MAP signatures (after the second tensor, for ZIP_WITH).
#define CROSSGRAD_SIG_EXTRA_Unary
#define CROSSGRAD_SIG_EXTRA_Scalar , scalar
#define CROSSGRAD_SIG_EXTRA_Bounds , min, max
#define CROSSGRAD_SIG_EXTRA_Dim , dim
#define CROSSGRAD_SIG_EXTRA_DimPair , dim0, dim1
#define CROSSGRAD_SIG_EXTRA_ToShape , shape
#define CROSSGRAD_SIG_EXTRA_ToDType , dtype
#define CROSSGRAD_SIG_EXTRA_Axes , axes
#define CROSSGRAD_SIG_EXTRA_Ranges , ranges
#define CROSSGRAD_SIG_EXTRA_Affine , alpha, beta
#define CROSSGRAD_SIG_EXTRA_Repeat , dim, times
#define CROSSGRAD_SIG_EXTRA_Window , dim, size, step
#define CROSSGRAD_SIG_EXTRA_Sort , dim, descending
#define CROSSGRAD_SIG_EXTRA_TopK , dim, k
#define CROSSGRAD_SIG_EXTRA_AvgPool2d , options
#define CROSSGRAD_SIG_EXTRA_AvgPool2dBackward , options
#define CROSSGRAD_SIG_EXTRA_AdaptivePool2d , output_size
#define CROSSGRAD_SIG_EXTRA_AdaptivePool2dBackward
#define CROSSGRAD_SIG_EXTRA_MaxPool2d , options
#define CROSSGRAD_SIG_EXTRA_MaxPool2dBackward , options
#define CROSSGRAD_SIG_EXTRA_EmbeddingBackward
#define CROSSGRAD_SIG_EXTRA_LinearXBackward
#define CROSSGRAD_SIG_EXTRA_LinearWeightBackward
#define CROSSGRAD_SIG_EXTRA_LinearBiasBackward
#define CROSSGRAD_SIG_EXTRA_Linear
#define CROSSGRAD_SIG_EXTRA_Conv2d , options
#define CROSSGRAD_SIG_EXTRA_Conv2dBackward , options
#define CROSSGRAD_SIG_EXTRA_Conv2dBiasBackward
#define CROSSGRAD_SIG_EXTRA_ConvTranspose2d , options
#define CROSSGRAD_SIG_EXTRA_ConvTranspose2dBackward , options
#define CROSSGRAD_SIG_EXTRA_Conv1d , options
#define CROSSGRAD_SIG_EXTRA_Conv1dBackward , options
#define CROSSGRAD_SIG_EXTRA_Conv1dBiasBackward
#define CROSSGRAD_SIG_EXTRA_Conv3d , options
#define CROSSGRAD_SIG_EXTRA_Conv3dBackward , options
#define CROSSGRAD_SIG_EXTRA_Conv3dBiasBackward
#define CROSSGRAD_SIG_EXTRA_ConvTranspose3d , options
#define CROSSGRAD_SIG_EXTRA_ConvTranspose3dBackward , options
#define CROSSGRAD_SIG_EXTRA_Rfft , dim, n
#define CROSSGRAD_SIG_EXTRA_Irfft , dim, n
#define CROSSGRAD_SIG_EXTRA_ConvTranspose1d , options
#define CROSSGRAD_SIG_EXTRA_ConvTranspose1dBackward , options
#define CROSSGRAD_SIG_EXTRA_AvgPool1d , options
#define CROSSGRAD_SIG_EXTRA_Unfold4d , kernel_size, options
#define CROSSGRAD_SIG_EXTRA_Fold4d , output_size, kernel_size, options
#define CROSSGRAD_SIG_EXTRA_Interpolate , output_size, options
#define CROSSGRAD_SIG_EXTRA_InterpolateBackward , output_size, options
#define CROSSGRAD_SIG_EXTRA_AdaptivePool3d , output_size
#define CROSSGRAD_SIG_EXTRA_AdaptivePool3dBackward
#define CROSSGRAD_SIG_EXTRA_AvgPool1dBackward , options
#define CROSSGRAD_SIG_EXTRA_AdaptivePool1d , output_size
#define CROSSGRAD_SIG_EXTRA_AdaptivePool1dBackward
#define CROSSGRAD_SIG_EXTRA_MaxPool1d , options
#define CROSSGRAD_SIG_EXTRA_MaxPool1dBackward , options
#define CROSSGRAD_SIG_EXTRA_LayerNorm , epsilon
#define CROSSGRAD_SIG_EXTRA_Attention , options
#define CROSSGRAD_SIG_EXTRA_BatchNorm , epsilon

// The two tensors of a ZIP_WITH signature, in order.
#define CROSSGRAD_SIG_TENSORS_AvgPool2dBackward tensor, grad
#define CROSSGRAD_SIG_TENSORS_AdaptivePool2dBackward tensor, grad
#define CROSSGRAD_SIG_TENSORS_LinearXBackward tensor, grad
#define CROSSGRAD_SIG_TENSORS_LinearWeightBackward tensor, grad
#define CROSSGRAD_SIG_TENSORS_InterpolateBackward tensor, grad
#define CROSSGRAD_SIG_TENSORS_AdaptivePool3dBackward tensor, grad
#define CROSSGRAD_SIG_TENSORS_AvgPool1dBackward tensor, grad
#define CROSSGRAD_SIG_TENSORS_AdaptivePool1dBackward tensor, grad
#define CROSSGRAD_SIG_TENSORS_Irfft tensor, imaginary
// The three tensors of a ZIP3_WITH signature, in order.
#define CROSSGRAD_SIG_TENSORS_Conv2dBackward tensor, weight, grad
#define CROSSGRAD_SIG_TENSORS_Conv2dBiasBackward tensor, bias, grad
#define CROSSGRAD_SIG_TENSORS_ConvTranspose2dBackward tensor, weight, grad
#define CROSSGRAD_SIG_TENSORS_Conv1dBackward tensor, weight, grad
#define CROSSGRAD_SIG_TENSORS_Conv1dBiasBackward tensor, bias, grad
#define CROSSGRAD_SIG_TENSORS_Conv3dBackward tensor, weight, grad
#define CROSSGRAD_SIG_TENSORS_Conv3dBiasBackward tensor, bias, grad
#define CROSSGRAD_SIG_TENSORS_ConvTranspose3dBackward tensor, weight, grad
#define CROSSGRAD_SIG_TENSORS_ConvTranspose1dBackward tensor, weight, grad
// The five tensors of a ZIP5_WITH signature, in order.
#define CROSSGRAD_SIG_TENSORS_BatchNorm tensor, weight, bias, mean, variance

// The parameters after the receiver, for MAP signatures (Tensor methods); after the second
// tensor, for ZIP_WITH.
#define CROSSGRAD_SIG_TAIL_Unary ()
#define CROSSGRAD_SIG_TAIL_Scalar (double scalar)
#define CROSSGRAD_SIG_TAIL_Bounds (double min, double max)
#define CROSSGRAD_SIG_TAIL_Dim (std::size_t dim)
#define CROSSGRAD_SIG_TAIL_DimPair (std::size_t dim0, std::size_t dim1)
#define CROSSGRAD_SIG_TAIL_ToShape (const ::crossgrad::Shape& shape)
#define CROSSGRAD_SIG_TAIL_ToDType (::crossgrad::DType dtype)
#define CROSSGRAD_SIG_TAIL_Axes (const std::vector<std::size_t>& axes)
#define CROSSGRAD_SIG_TAIL_Ranges (const std::vector<::crossgrad::Range>& ranges)
#define CROSSGRAD_SIG_TAIL_Affine (double alpha, double beta)
#define CROSSGRAD_SIG_TAIL_Repeat (std::size_t dim, std::size_t times)
#define CROSSGRAD_SIG_TAIL_Window (std::size_t dim, std::size_t size, std::size_t step)
#define CROSSGRAD_SIG_TAIL_Sort (std::size_t dim, bool descending)
#define CROSSGRAD_SIG_TAIL_TopK (std::size_t dim, std::size_t k)
#define CROSSGRAD_SIG_TAIL_AvgPool2d (const ::crossgrad::AvgPool2dOptions& options)
#define CROSSGRAD_SIG_TAIL_AvgPool2dBackward , const ::crossgrad::AvgPool2dOptions& options
#define CROSSGRAD_SIG_TAIL_AdaptivePool2d (const ::crossgrad::Size2& output_size)
#define CROSSGRAD_SIG_TAIL_AdaptivePool2dBackward
#define CROSSGRAD_SIG_TAIL_MaxPool2d (const ::crossgrad::MaxPool2dOptions& options)
#define CROSSGRAD_SIG_TAIL_MaxPool2dBackward , const ::crossgrad::MaxPool2dOptions& options
#define CROSSGRAD_SIG_TAIL_EmbeddingBackward
#define CROSSGRAD_SIG_TAIL_LinearXBackward
#define CROSSGRAD_SIG_TAIL_LinearWeightBackward
#define CROSSGRAD_SIG_TAIL_LinearBiasBackward ()
#define CROSSGRAD_SIG_TAIL_Linear
#define CROSSGRAD_SIG_TAIL_Conv2d , const ::crossgrad::Conv2dOptions& options
#define CROSSGRAD_SIG_TAIL_Conv2dBackward , const ::crossgrad::Conv2dOptions& options
#define CROSSGRAD_SIG_TAIL_Conv2dBiasBackward
#define CROSSGRAD_SIG_TAIL_ConvTranspose2d , const ::crossgrad::ConvTranspose2dOptions& options
#define CROSSGRAD_SIG_TAIL_ConvTranspose2dBackward , const ::crossgrad::ConvTranspose2dOptions& options
#define CROSSGRAD_SIG_TAIL_Conv1d , const ::crossgrad::Conv1dOptions& options
#define CROSSGRAD_SIG_TAIL_Conv1dBackward , const ::crossgrad::Conv1dOptions& options
#define CROSSGRAD_SIG_TAIL_Conv1dBiasBackward
#define CROSSGRAD_SIG_TAIL_Conv3d , const ::crossgrad::Conv3dOptions& options
#define CROSSGRAD_SIG_TAIL_Conv3dBackward , const ::crossgrad::Conv3dOptions& options
#define CROSSGRAD_SIG_TAIL_Conv3dBiasBackward
#define CROSSGRAD_SIG_TAIL_ConvTranspose3d , const ::crossgrad::ConvTranspose3dOptions& options
#define CROSSGRAD_SIG_TAIL_ConvTranspose3dBackward , const ::crossgrad::ConvTranspose3dOptions& options
#define CROSSGRAD_SIG_TAIL_Rfft (std::size_t dim, std::optional<std::size_t> n)
#define CROSSGRAD_SIG_TAIL_Irfft , std::size_t dim, std::optional<std::size_t> n
#define CROSSGRAD_SIG_TAIL_ConvTranspose1d , const ::crossgrad::ConvTranspose1dOptions& options
#define CROSSGRAD_SIG_TAIL_ConvTranspose1dBackward , const ::crossgrad::ConvTranspose1dOptions& options
#define CROSSGRAD_SIG_TAIL_AvgPool1d (const ::crossgrad::AvgPool1dOptions& options)
#define CROSSGRAD_SIG_TAIL_Unfold4d (const ::crossgrad::Size2& kernel_size, const ::crossgrad::UnfoldOptions& options)
#define CROSSGRAD_SIG_TAIL_Fold4d \
  (const ::crossgrad::Size2& output_size, const ::crossgrad::Size2& kernel_size, const ::crossgrad::UnfoldOptions& options)
#define CROSSGRAD_SIG_TAIL_Interpolate (const ::crossgrad::Size2& output_size, const ::crossgrad::InterpolateOptions& options)
#define CROSSGRAD_SIG_TAIL_InterpolateBackward , const ::crossgrad::Size2& output_size, const ::crossgrad::InterpolateOptions& options
#define CROSSGRAD_SIG_TAIL_AdaptivePool3d (const ::crossgrad::Size3& output_size)
#define CROSSGRAD_SIG_TAIL_AdaptivePool3dBackward
#define CROSSGRAD_SIG_TAIL_AvgPool1dBackward , const ::crossgrad::AvgPool1dOptions& options
#define CROSSGRAD_SIG_TAIL_AdaptivePool1d (const ::crossgrad::Size1& output_size)
#define CROSSGRAD_SIG_TAIL_AdaptivePool1dBackward
#define CROSSGRAD_SIG_TAIL_MaxPool1d (const ::crossgrad::MaxPool1dOptions& options)
#define CROSSGRAD_SIG_TAIL_MaxPool1dBackward , const ::crossgrad::MaxPool1dOptions& options
#define CROSSGRAD_SIG_TAIL_LayerNorm , double epsilon
#define CROSSGRAD_SIG_TAIL_Attention , const ::crossgrad::AttentionOptions& options
#define CROSSGRAD_SIG_TAIL_BatchNorm , double epsilon

// Every parameter of a Sig by name, in order (a call forwarding all of them).
#define CROSSGRAD_SIG_ARGS_Unary tensor
#define CROSSGRAD_SIG_ARGS_Binary lhs, rhs
#define CROSSGRAD_SIG_ARGS_Scalar tensor, scalar
#define CROSSGRAD_SIG_ARGS_Bounds tensor, min, max
#define CROSSGRAD_SIG_ARGS_Dim tensor, dim
#define CROSSGRAD_SIG_ARGS_DimPair tensor, dim0, dim1
#define CROSSGRAD_SIG_ARGS_ToShape tensor, shape
#define CROSSGRAD_SIG_ARGS_ToDType tensor, dtype
#define CROSSGRAD_SIG_ARGS_Axes tensor, axes
#define CROSSGRAD_SIG_ARGS_Ranges tensor, ranges
#define CROSSGRAD_SIG_ARGS_Select tensor, dim, indices
#define CROSSGRAD_SIG_ARGS_SelectAssign tensor, dim, indices, values
#define CROSSGRAD_SIG_ARGS_Gather tensor, dim, indices
#define CROSSGRAD_SIG_ARGS_Scatter tensor, dim, indices, values
#define CROSSGRAD_SIG_ARGS_MaskWhere tensor, mask, value
#define CROSSGRAD_SIG_ARGS_MaskFill tensor, mask, value
#define CROSSGRAD_SIG_ARGS_Affine tensor, alpha, beta
#define CROSSGRAD_SIG_ARGS_Repeat tensor, dim, times
#define CROSSGRAD_SIG_ARGS_Window tensor, dim, size, step
#define CROSSGRAD_SIG_ARGS_RangesAssign tensor, ranges, values
#define CROSSGRAD_SIG_ARGS_Sort tensor, dim, descending
#define CROSSGRAD_SIG_ARGS_TopK tensor, dim, k
#define CROSSGRAD_SIG_ARGS_BinaryDim lhs, rhs, dim
#define CROSSGRAD_SIG_ARGS_ScatterUpdate tensor, dim, indices, values, update
#define CROSSGRAD_SIG_ARGS_GatherNd tensor, indices
#define CROSSGRAD_SIG_ARGS_ScatterNd tensor, indices, values, update
#define CROSSGRAD_SIG_ARGS_MaskSelect tensor, mask
#define CROSSGRAD_SIG_ARGS_Cat tensors, dim
#define CROSSGRAD_SIG_ARGS_AvgPool2d tensor, options
#define CROSSGRAD_SIG_ARGS_AvgPool2dBackward tensor, grad, options
#define CROSSGRAD_SIG_ARGS_AdaptivePool2d tensor, output_size
#define CROSSGRAD_SIG_ARGS_AdaptivePool2dBackward tensor, grad
#define CROSSGRAD_SIG_ARGS_MaxPool2d tensor, options
#define CROSSGRAD_SIG_ARGS_MaxPool2dBackward tensor, grad, indices, options
#define CROSSGRAD_SIG_ARGS_Embedding tensor, indices
#define CROSSGRAD_SIG_ARGS_EmbeddingBackward tensor, grad, indices
#define CROSSGRAD_SIG_ARGS_Linear tensor, weight, bias
#define CROSSGRAD_SIG_ARGS_LinearXBackward tensor, grad
#define CROSSGRAD_SIG_ARGS_LinearWeightBackward tensor, grad
#define CROSSGRAD_SIG_ARGS_LinearBiasBackward tensor
#define CROSSGRAD_SIG_ARGS_Conv2d tensor, weight, bias, options
#define CROSSGRAD_SIG_ARGS_Conv2dBackward tensor, weight, grad, options
#define CROSSGRAD_SIG_ARGS_Conv2dBiasBackward tensor, bias, grad
#define CROSSGRAD_SIG_ARGS_ConvTranspose2d tensor, weight, bias, options
#define CROSSGRAD_SIG_ARGS_ConvTranspose2dBackward tensor, weight, grad, options
#define CROSSGRAD_SIG_ARGS_Conv1d tensor, weight, bias, options
#define CROSSGRAD_SIG_ARGS_Conv1dBackward tensor, weight, grad, options
#define CROSSGRAD_SIG_ARGS_Conv1dBiasBackward tensor, bias, grad
#define CROSSGRAD_SIG_ARGS_Conv3d tensor, weight, bias, options
#define CROSSGRAD_SIG_ARGS_Conv3dBackward tensor, weight, grad, options
#define CROSSGRAD_SIG_ARGS_Conv3dBiasBackward tensor, bias, grad
#define CROSSGRAD_SIG_ARGS_ConvTranspose3d tensor, weight, bias, options
#define CROSSGRAD_SIG_ARGS_ConvTranspose3dBackward tensor, weight, grad, options
#define CROSSGRAD_SIG_ARGS_Rfft tensor, dim, n
#define CROSSGRAD_SIG_ARGS_Irfft tensor, imaginary, dim, n
#define CROSSGRAD_SIG_ARGS_ConvTranspose1d tensor, weight, bias, options
#define CROSSGRAD_SIG_ARGS_ConvTranspose1dBackward tensor, weight, grad, options
#define CROSSGRAD_SIG_ARGS_AvgPool1d tensor, options
#define CROSSGRAD_SIG_ARGS_Unfold4d tensor, kernel_size, options
#define CROSSGRAD_SIG_ARGS_Fold4d tensor, output_size, kernel_size, options
#define CROSSGRAD_SIG_ARGS_Interpolate tensor, output_size, options
#define CROSSGRAD_SIG_ARGS_InterpolateBackward tensor, grad, output_size, options
#define CROSSGRAD_SIG_ARGS_AdaptivePool3d tensor, output_size
#define CROSSGRAD_SIG_ARGS_AdaptivePool3dBackward tensor, grad
#define CROSSGRAD_SIG_ARGS_AvgPool1dBackward tensor, grad, options
#define CROSSGRAD_SIG_ARGS_AdaptivePool1d tensor, output_size
#define CROSSGRAD_SIG_ARGS_AdaptivePool1dBackward tensor, grad
#define CROSSGRAD_SIG_ARGS_MaxPool1d tensor, options
#define CROSSGRAD_SIG_ARGS_MaxPool1dBackward tensor, grad, indices, options
#define CROSSGRAD_SIG_ARGS_LayerNorm tensor, weight, bias, epsilon
#define CROSSGRAD_SIG_ARGS_Attention tensor, key, value, mask, bias, options
#define CROSSGRAD_SIG_ARGS_BatchNorm tensor, weight, bias, mean, variance, epsilon

// Expands M(args...) after the arguments are macro-expanded (for CLASS lookups).
#define CROSSGRAD_PP_CAT(a, b) CROSSGRAD_PP_CAT_(a, b)
#define CROSSGRAD_PP_CAT_(a, b) a##b

#include <crossgrad/core/dtype.hpp>
#include <crossgrad/core/indexing_update.hpp>
#include <crossgrad/core/module_options.hpp>
#include <crossgrad/core/shape.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace crossgrad {

// Op identity, in registry order.
enum class OpId : std::uint16_t {
#define CROSSGRAD_X(name, method, Sig, Operand, Result, Rule) name,
  CROSSGRAD_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X
};

#define CROSSGRAD_OP_SIGS(X) \
  X(Unary) X(Binary) X(Scalar) X(Bounds) X(Dim) X(DimPair) X(ToShape) X(ToDType) X(Axes) X(Ranges) X(Select) X(SelectAssign) X(Cat) X(Gather) X(Scatter) X(MaskWhere) X(MaskFill) X(Affine) X(Repeat) X(Window) X(BinaryDim) X(Sort) X(TopK) X(RangesAssign) X(ScatterUpdate) X(GatherNd) X(ScatterNd) X(MaskSelect) \
  X(AvgPool2d) X(AvgPool2dBackward) X(AdaptivePool2d) X(AdaptivePool2dBackward) X(MaxPool2d) X(MaxPool2dBackward) \
  X(Embedding) X(EmbeddingBackward) X(Linear) X(LinearXBackward) X(LinearWeightBackward) X(LinearBiasBackward) \
  X(Conv2d) X(Conv2dBackward) X(Conv2dBiasBackward) X(ConvTranspose2d) X(ConvTranspose2dBackward) \
  X(Conv1d) X(Conv1dBackward) X(Conv1dBiasBackward) X(ConvTranspose1d) X(ConvTranspose1dBackward) \
  X(AvgPool1d) X(AvgPool1dBackward) X(AdaptivePool1d) X(AdaptivePool1dBackward) X(MaxPool1d) X(MaxPool1dBackward) X(Unfold4d) X(Fold4d) \
  X(Interpolate) X(InterpolateBackward) X(AdaptivePool3d) X(AdaptivePool3dBackward) X(LayerNorm) X(Attention) X(BatchNorm) \
  X(Conv3d) X(Conv3dBackward) X(Conv3dBiasBackward) X(ConvTranspose3d) X(ConvTranspose3dBackward) X(Rfft) X(Irfft)
enum class OpSig {
#define CROSSGRAD_X(Sig) Sig,
  CROSSGRAD_OP_SIGS(CROSSGRAD_X)
#undef CROSSGRAD_X
};
enum class OpKind { Float, Int, Bool };
enum class OpRule { Backward, None, Leaf, NotDifferentiable };

struct OpInfo {
  OpId id;
  std::string_view name;    // "float_tanh"
  std::string_view method;  // "tanh"
  OpSig sig;
  OpKind operand;
  OpKind result;
  OpRule rule;
};

inline constexpr OpInfo kOps[] = {
#define CROSSGRAD_X(name, method, Sig, Operand, Result, Rule) \
  OpInfo{OpId::name, #name, #method, OpSig::Sig, OpKind::Operand, OpKind::Result, OpRule::Rule},
    CROSSGRAD_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X
};
inline constexpr std::size_t kOpCount = std::size(kOps);

constexpr const OpInfo& op_info(OpId id) { return kOps[static_cast<std::size_t>(id)]; }
// The layout ops: they move elements without reading them, so each exists for every kind (a
// float_, an int_ and a bool_ entry above, one kernel per backend: Note [One layout kernel for
// every kind], engine/src/backends/kind_members.hpp). Their names after the kind's prefix.
inline constexpr std::string_view kLayoutOps[] = {"reshape", "swap_dims", "permute",   "transpose", "expand",     "flip",
                                                  "repeat_dim", "unfold", "cat",     "slice",     "slice_assign", "select",
                                                  "gather",  "gather_nd", "mask_where", "mask_select"};
// The name after the kind's prefix ("flip" for int_flip).
constexpr std::string_view op_stem(OpId id) {
  const std::string_view name = op_info(id).name;
  return name.substr(name.find('_') + 1);
}
constexpr bool moves_elements(OpId id) {
  const std::string_view name = op_info(id).name;
  if (!(name.starts_with("float_") || name.starts_with("int_") || name.starts_with("bool_"))) return false;
  for (std::string_view stem : kLayoutOps) {
    if (op_stem(id) == stem) return true;
  }
  return false;
}
// The same layout op for another kind (int_flip -> float_flip); id itself when it is not one.
constexpr OpId layout_op_of_kind(OpId id, OpKind kind) {
  if (!moves_elements(id)) return id;
  const std::string_view prefix = kind == OpKind::Int ? "int_" : (kind == OpKind::Bool ? "bool_" : "float_");
  for (const OpInfo& info : kOps) {
    if (info.name.starts_with(prefix) && info.name.substr(prefix.size()) == op_stem(id)) return info.id;
  }
  return id;
}
// The dtype category of an op's receiver: what rules::check_kind_dtype checks for the ops that
// exist for every kind (float_flip, int_flip, bool_flip share one kernel per backend).
constexpr DTypeCategory operand_category(OpId id) {
  const OpKind k = op_info(id).operand;
  return k == OpKind::Int ? DTypeCategory::Int : (k == OpKind::Bool ? DTypeCategory::Bool : DTypeCategory::Float);
}
std::string_view op_sig_name(OpSig sig);
// Signatures whose second operand is an Int index tensor (masks: takes_mask).
// Signatures whose second operand is a Bool mask.
constexpr bool takes_mask(OpSig sig) { return sig == OpSig::MaskWhere || sig == OpSig::MaskFill || sig == OpSig::MaskSelect; }
constexpr bool takes_index_tensor(OpSig sig) {
  return sig == OpSig::Select || sig == OpSig::SelectAssign || sig == OpSig::Gather || sig == OpSig::Scatter ||
         sig == OpSig::ScatterUpdate || sig == OpSig::GatherNd || sig == OpSig::ScatterNd || sig == OpSig::MaxPool2dBackward ||
         sig == OpSig::MaxPool1dBackward || sig == OpSig::Embedding || sig == OpSig::EmbeddingBackward;
}
std::string_view op_kind_name(OpKind kind);


}  // namespace crossgrad
