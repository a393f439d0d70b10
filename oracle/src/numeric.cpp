#include <crossgrad/oracle/numeric.hpp>
#include <crossgrad/oracle/reference_ops.hpp>
#include <crossgrad/oracle/ulp_bounds.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>

#include <crossgrad/dispatch/dispatch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <iomanip>
#include <limits>
#include <mutex>
#include <numbers>
#include <optional>
#include <set>
#include <sstream>

namespace crossgrad::oracle {

double epsilon_of(DType dtype) {
  return dtype == DType::F64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
}

// The ops whose result is a sum of products of their two operands' elements (x and the weight or
// rhs): their magnitude and their error both scale with the two operands'.
namespace {
bool is_bilinear(Op op) {
  return op == Op::float_matmul || op == Op::linear || op == Op::conv1d || op == Op::conv2d || op == Op::conv_transpose1d ||
         op == Op::conv_transpose2d || op == Op::conv3d || op == Op::conv_transpose3d;
}
}  // namespace

double largest_finite_of(DType dtype) {
  return dtype == DType::F64 ? std::numeric_limits<double>::max() : static_cast<double>(std::numeric_limits<float>::max());
}

// Bound tightness is measured by the property suite (`property_tests --gtest_filter='Numeric.*'`
// prints the table). On a CPU-only machine every non-exact forward bound below sees no error at
// all: NdArray and Flex call the same libm and, below Flex's thread and block thresholds, sum in
// the same order, so each of these bounds is "more than 1000x the largest error seen" and says
// why it is not tighter.
Bound bound_for(Op op, DType dtype, std::size_t reduction_length, double magnitude) {
  const double eps = epsilon_of(dtype);
  const double tiny = dtype == DType::F64 ? 1e-300 : 1e-37;
  // A hop moves the data between backends bit for bit (before the switch: not a registry op).
  if (is_hop(op)) return {0, 0, true};
  switch (op) {
    // Correctly rounded in IEEE arithmetic (also when computed in F64 and rounded to F32).
    case Op::float_add:
    case Op::float_sub:
    case Op::float_mul:
    case Op::float_div:
    case Op::float_neg:
    case Op::float_sqrt:
    case Op::relu:
    case Op::leaky_relu:  // x or one product x * s
    case Op::prelu:       // x or one product x * a
    case Op::float_add_scalar:
    case Op::float_mul_scalar:
    case Op::float_sub_scalar:
    case Op::float_div_scalar:
    // fmod is exact; adding b is one rounding.
    case Op::float_remainder_scalar:
    case Op::float_remainder:
    case Op::float_recip:
    case Op::float_reshape:
    case Op::float_swap_dims:
    // Integers (and sign's +-1, 0) that the input's format holds: exact on every backend.
    case Op::float_round:
    case Op::float_floor:
    case Op::float_ceil:
    case Op::float_trunc:
    case Op::float_sign:
    // Selections, comparisons and moves of elements: every backend gives the same bits.
    case Op::float_abs:
    case Op::float_clamp:
    case Op::float_clamp_min:
    case Op::float_clamp_max:
    case Op::float_max_dim:
    case Op::float_argmax:
    case Op::float_min_dim:
    case Op::float_argmin:
    case Op::float_max:
    case Op::float_min:
    case Op::float_max_abs:
    case Op::float_max_abs_dim:
    case Op::float_any:
    case Op::float_any_dim:
    case Op::float_all:
    case Op::float_all_dim:
    case Op::float_greater:
    case Op::float_lower:
    case Op::float_equal:
    case Op::float_greater_scalar:
    case Op::float_greater_equal:
    case Op::float_lower_equal:
    case Op::float_not_equal:
    case Op::float_greater_equal_elem:
    case Op::float_lower_elem:
    case Op::float_lower_equal_elem:
    case Op::float_equal_elem:
    case Op::float_not_equal_elem:
    case Op::float_is_nan:
    case Op::float_is_inf:
    case Op::float_cat:
    case Op::float_slice:
    case Op::float_select:
    case Op::float_permute:
    case Op::float_flip:
    case Op::float_transpose:
    case Op::float_expand:
    case Op::float_cast:
    case Op::bool_into_float:
    case Op::int_into_float:
    case Op::float_into_int:  // an exact rule (toward zero, saturating)
    case Op::float_gather:
    case Op::embedding:  // a copy of a row
    case Op::float_mask_where:
    case Op::float_mask_fill:
    case Op::float_repeat_dim:
    case Op::float_unfold:
    // A product and a sum, each correctly rounded, then a clamp: every backend's bits.
    case Op::hard_sigmoid:
    // Two products and a difference, each correctly rounded (no fused multiply-add anywhere).
    case Op::float_cross:
    // A running extreme copies one element of its prefix.
    case Op::float_cummin:
    case Op::float_cummax:
    case Op::float_slice_assign:
    // Sorting moves elements; its positions are exact.
    case Op::float_argsort:
    case Op::float_sort:
    case Op::float_argtopk:
    case Op::float_topk:
    // Duplicate indices accumulate in index order on every backend (docs/OPS.md).
    case Op::float_select_assign:
    case Op::float_select_add:
    case Op::float_scatter_add:
    // Every update (one IEEE operation or a choice) applied in index order on every backend; gather_nd copies.
    case Op::float_scatter:
    case Op::float_gather_nd:
    case Op::float_scatter_nd:
    case Op::float_mask_select:  // copies
    case Op::max_pool2d:         // copies the kept cell
    case Op::max_pool2d_indices:  // an Int result
    case Op::max_pool1d:
    case Op::max_pool1d_indices:
    case Op::unfold4d:  // copies cells (or a 0 of padding)
    // Integer and bool arithmetic has one exact result (docs/OPS.md "Integer arithmetic").
    case Op::int_add:
    case Op::int_sub:
    case Op::int_mul:
    case Op::int_div:
    case Op::int_remainder:
    case Op::int_neg:
    case Op::int_abs:
    case Op::int_sign:
    case Op::int_add_scalar:
    case Op::int_sub_scalar:
    case Op::int_mul_scalar:
    case Op::int_div_scalar:
    case Op::int_remainder_scalar:
    case Op::bool_not:
    case Op::bool_and:
    case Op::bool_or:
    case Op::bool_xor:
    case Op::int_equal:
    case Op::int_not_equal:
    case Op::int_greater:
    case Op::int_greater_equal:
    case Op::int_lower:
    case Op::int_lower_equal:
    case Op::bool_equal:
    case Op::bool_not_equal:
    case Op::bitwise_and:
    case Op::bitwise_or:
    case Op::bitwise_xor:
    case Op::bitwise_left_shift:
    case Op::bitwise_right_shift:
    case Op::int_equal_elem:
    case Op::int_not_equal_elem:
    case Op::int_greater_elem:
    case Op::int_greater_equal_elem:
    case Op::int_lower_elem:
    case Op::int_lower_equal_elem:
    case Op::bitwise_not:
    case Op::bitwise_and_scalar:
    case Op::bitwise_or_scalar:
    case Op::bitwise_xor_scalar:
    case Op::bitwise_left_shift_scalar:
    case Op::bitwise_right_shift_scalar:
    case Op::int_cast:
    case Op::bool_into_int:
    case Op::int_sum:
    case Op::int_sum_dim:
    case Op::int_prod:
    case Op::int_prod_dim:
    case Op::int_mean:
    case Op::int_mean_dim:
    case Op::int_max:
    case Op::int_min:
    case Op::int_max_dim:
    case Op::int_min_dim:
    case Op::int_argmax:
    case Op::int_argmin:
    case Op::int_any:
    case Op::int_all:
    case Op::bool_any:
    case Op::bool_all:
    case Op::int_clamp:
    case Op::int_clamp_min:
    case Op::int_clamp_max:
    case Op::int_square:
    case Op::int_any_dim:
    case Op::int_all_dim:
    case Op::bool_any_dim:
    case Op::bool_all_dim:
    case Op::int_max_abs:
    case Op::int_max_abs_dim:
    case Op::int_reshape:
    case Op::int_swap_dims:
    case Op::int_permute:
    case Op::int_transpose:
    case Op::int_expand:
    case Op::int_flip:
    case Op::int_repeat_dim:
    case Op::int_unfold:
    case Op::int_cat:
    case Op::int_slice:
    case Op::int_slice_assign:
    case Op::int_select:
    case Op::bool_reshape:
    case Op::bool_swap_dims:
    case Op::bool_permute:
    case Op::bool_transpose:
    case Op::bool_expand:
    case Op::bool_flip:
    case Op::bool_repeat_dim:
    case Op::bool_unfold:
    case Op::bool_cat:
    case Op::bool_slice:
    case Op::bool_slice_assign:
    case Op::bool_select:
    case Op::int_gather:
    case Op::int_gather_nd:
    case Op::int_mask_where:
    case Op::int_mask_select:
    case Op::bool_gather:
    case Op::bool_gather_nd:
    case Op::bool_mask_where:
    case Op::bool_mask_select:
    case Op::int_select_assign:
    case Op::int_select_add:
    case Op::int_scatter_add:
    case Op::int_scatter:
    case Op::int_scatter_nd:
    case Op::int_mask_fill:
    case Op::bool_select_or:
    case Op::bool_scatter_or:
    case Op::bool_mask_fill:
    case Op::bool_argwhere:
    case Op::int_cumsum:
    case Op::int_cumprod:
    case Op::int_cummin:
    case Op::int_cummax:
    case Op::int_argsort:
    case Op::int_sort:
    case Op::int_argtopk:
    case Op::int_topk:
    case Op::int_matmul:
    case Op::int_powi:
    case Op::int_powi_scalar:
      return {0, 0, true};
    // exp of shifted values, a sum of n terms and a division (or a log): the sum's order bound
    // plus a few ulps per library call; log_softmax's values grow with |x|, hence magnitude.
    case Op::softmax:
    case Op::softmin:
    case Op::log_softmax: {
      const double n = static_cast<double>(reduction_length == 0 ? 1 : reduction_length);
      return {4 * n * eps * (magnitude + 1) + tiny, (16 + 4 * n) * eps, false};
    }
    // Library functions: the relative part is the op's ulp bound (Note [One table of ulp bounds]):
    // each of the two results compared lies within that many ulps of the correctly rounded value,
    // and an ulp is at most eps relative, so they differ by at most 2 ulps * eps relative. The
    // absolute floors keep the graph bounds (bound_for_graph) from failing near zero, where a
    // graph's cancellations make relative errors meaningless; the accuracy properties
    // (properties/ulp_accuracy_props.cpp) measure each op alone in ulps at every magnitude.
    case Op::float_exp:
    case Op::float_powf_scalar:
      return {tiny, 2 * ulp_bound(op)->of(dtype) * eps, false};
    // pow with a tensor exponent: the same library calls as float_powf_scalar, its ulp bound.
    case Op::float_powf:
      return {tiny, 2 * ulp_bound(Op::float_powf_scalar)->of(dtype) * eps, false};
    // atan2: glibc within 1 ulp (libm-test-ulps), CUDA atan2f 3 ulp, atan2 2 ulp (CUDA C++
    // Programming Guide); not in the unary ulp table, measured against MPFR only through bound_for.
    case Op::float_atan2:
      return {8 * eps, 2 * (dtype == DType::F32 ? 3.0 : 2.0) * eps, false};
    // hypot: glibc within 1 ulp, CUDA hypotf 3 ulp and hypot 2 ulp (CUDA C++ Programming Guide), as
    // atan2's.
    case Op::float_hypot:
      return {8 * eps, 2 * (dtype == DType::F32 ? 3.0 : 2.0) * eps, false};
    case Op::float_log:
    case Op::float_tanh:
    case Op::float_log1p:
    case Op::sigmoid:
    case Op::float_cos:
    case Op::float_sin:
    case Op::float_tan:
    case Op::float_cosh:
    case Op::float_sinh:
    case Op::float_acos:
    case Op::float_acosh:
    case Op::float_asin:
    case Op::float_asinh:
    case Op::float_atan:
    case Op::float_atanh:
    case Op::float_erf:
    case Op::log_sigmoid:
    case Op::gelu:
      return {8 * eps, 2 * ulp_bound(op)->of(dtype) * eps, false};
    // Accumulations: any summation order is accepted. Two summation orders of n terms differ by
    // at most ~2 n eps sum|x_i|, and with only the largest |x| known, sum|x_i| <= n max|x|. No
    // error is seen in the property run (small tensors: Flex sums in the reference's order below
    // its 65,536-element block size); other orders (Flex's blocked and threaded reductions, Cuda's
    // tree reductions, GEMM blocking) do differ, and a bound below the worst case fails correct
    // orders (corpus regress-sum-of-large-values-order: 1296 values ~1e30 differ by 113 ulps).
    case Op::float_sum:
    case Op::float_mean:
    case Op::float_sum_dim:
    case Op::float_mean_dim:
    case Op::float_cumsum:
    case Op::float_matmul:
    case Op::linear:  // products summed, then the bias added
    case Op::conv2d:
    case Op::conv2d_x_backward:
    case Op::conv2d_weight_backward:
    case Op::conv2d_bias_backward:
    case Op::conv_transpose2d:
    case Op::conv_transpose2d_x_backward:
    case Op::conv_transpose2d_weight_backward:
    case Op::conv_transpose2d_bias_backward:
    case Op::conv1d:
    case Op::conv1d_x_backward:
    case Op::conv1d_weight_backward:
    case Op::conv1d_bias_backward:
    case Op::conv_transpose1d:
    case Op::conv_transpose1d_x_backward:
    case Op::conv_transpose1d_weight_backward:
    case Op::conv_transpose1d_bias_backward:
    case Op::conv3d:
    case Op::conv3d_x_backward:
    case Op::conv3d_weight_backward:
    case Op::conv3d_bias_backward:
    case Op::conv_transpose3d:
    case Op::conv_transpose3d_x_backward:
    case Op::conv_transpose3d_weight_backward:
    case Op::conv_transpose3d_bias_backward:
    case Op::rfft:   // the DFT as a matrix product (n products summed)
    case Op::irfft:
    case Op::linear_x_backward:
    case Op::linear_weight_backward:
    case Op::linear_bias_backward:
    // Window sums (then one division each), and their backward passes: sums of shares g / count.
    case Op::avg_pool2d:
    case Op::avg_pool2d_backward:
    case Op::adaptive_avg_pool2d:
    case Op::adaptive_avg_pool2d_backward:
    case Op::adaptive_avg_pool3d:
    case Op::adaptive_avg_pool3d_backward:
    case Op::max_pool2d_with_indices_backward:
    case Op::avg_pool1d:
    case Op::avg_pool1d_backward:
    case Op::adaptive_avg_pool1d:
    case Op::adaptive_avg_pool1d_backward:
    case Op::max_pool1d_with_indices_backward:
    case Op::fold4d:  // each cell sums the block cells that copied it
    case Op::interpolate:  // sums of weighted taps (bicubic's weights of both signs)
    case Op::interpolate_backward:
    case Op::embedding_backward: {  // each row sums its positions' gradients
      const double n = static_cast<double>(reduction_length == 0 ? 1 : reduction_length);
      Bound b{2 * n * n * eps * magnitude + tiny, 4 * eps, false};
      // Terms near the top of the range: one order overflows where another does not.
      b.overflow_may_change_class = !(2 * n * magnitude < largest_finite_of(dtype));
      return b;
    }
    // A product of at most n factors in another order or precision (LibTorch accumulates a float
    // lane in double): no cancellation, so ~2 n eps relative while every partial product stays in
    // the normal range; bound_for_inputs widens it where one may not (cumprod_range_bound).
    case Op::float_cumprod: {
      const double n = static_cast<double>(reduction_length == 0 ? 1 : reduction_length);
      return {tiny, 4 * n * eps, false};
    }
    // Products: every crossgrad backend multiplies in double in index order (docs/OPS.md), but
    // any order is accepted here, as for sums: n - 1 roundings in double on each side, and the
    // final rounding to the dtype (1 ulp apart at most when the double products differ). Where the
    // product of the magnitudes can leave the range, whether an intermediate overflows depends on
    // the order (ATen's F32 prod, for one, multiplies in F32).
    // layer_norm and attention: magnitude is their rounding sensitivity (reference_magnitude), the
    // error of one output about eps times it, per term summed (n: d_model; head_dim + seq_k).
    // Infinite (a square, score or sum that can overflow, a 0 / 0 row) judges the classes only.
    case Op::layer_norm:
    case Op::batch_norm:
    case Op::attention: {
      const double n = static_cast<double>(reduction_length == 0 ? 1 : reduction_length);
      Bound b{16 * (n + 4) * eps * magnitude + tiny, 8 * eps, false};
      b.overflow_may_change_class = !std::isfinite(magnitude);
      return b;
    }
    case Op::float_prod:
    case Op::float_prod_dim: {
      const double n = static_cast<double>(reduction_length == 0 ? 1 : reduction_length);
      Bound b{tiny, 2 * eps + 4 * n * std::numeric_limits<double>::epsilon(), false};
      b.overflow_may_change_class =
          !(n * std::log2(std::fmax(magnitude, 1.0)) + 1 < std::log2(largest_finite_of(dtype)));
      return b;
    }
  }
  return {0, 0, true};
}

namespace {
// float_cumprod's bound once partial products may leave the normal range. A lane accumulated in T
// overflows to inf, or flushes into subnormals and loses bits, where one accumulated in double
// does not, and multiplying on can bring the double lane back into range: then inf meets finite,
// and a subnormal's absolute error (up to n of the smallest subnormal) is multiplied by the later
// factors, at most max(1, largest |x|)^n. With `hi` the largest and `lo` the smallest nonzero
// finite |x|, products stay in [lo^n, hi^n].
Bound cumprod_range_bound(Bound b, DType dtype, double n, double lo, double hi, bool has_non_finite) {
  const double largest = largest_finite_of(dtype);
  const double smallest_normal = dtype == DType::F64 ? std::numeric_limits<double>::min()
                                                     : static_cast<double>(std::numeric_limits<float>::min());
  const double denorm = dtype == DType::F64 ? std::numeric_limits<double>::denorm_min()
                                            : static_cast<double>(std::numeric_limits<float>::denorm_min());
  const double log_hi = std::log2(std::fmax(hi, 1.0)), log_lo = lo > 0 ? std::log2(std::fmin(lo, 1.0)) : 0.0;
  const bool may_overflow = n * log_hi >= std::log2(largest) - 1;
  const bool may_underflow = n * log_lo <= std::log2(smallest_normal) + 1;
  if (may_overflow) b.overflow_may_change_class = true;
  if (may_underflow) {
    b.abs = std::fmax(b.abs, n * denorm * std::exp2(std::fmin(n * log_hi, 1000.0)));
    // 0 * inf in one lane is NaN where the double lane's tiny * inf is inf.
    if (has_non_finite) b.overflow_may_change_class = true;
  }
  return b;
}
}  // namespace

Bound bound_for_receiver(Op op, DType dtype, std::size_t reduction_length, double magnitude,
                         const std::vector<double>& receiver) {
  Bound b = bound_for(op, dtype, reduction_length, magnitude);
  // A product's partial products pass through the same range whatever the order, so prod and
  // prod_dim take cumprod's widening too: an F64 lane of 4.9e-324, 1.2e13, 0.3, 5.2e13 is 9.1e-298
  // in index order and 0 when 4.9e-324 * 0.3 underflows first (ATen's order on a strided operand;
  // found by the torch differential in CI).
  if (op == Op::float_cumprod || op == Op::float_prod || op == Op::float_prod_dim) {
    double largest = 0, smallest_nonzero = 0;
    bool non_finite = false;
    for (double v : receiver) {
      if (!std::isfinite(v)) {
        non_finite = true;
        continue;
      }
      largest = std::fmax(largest, std::fabs(v));
      if (v != 0 && (smallest_nonzero == 0 || std::fabs(v) < smallest_nonzero)) smallest_nonzero = std::fabs(v);
    }
    const double n = static_cast<double>(reduction_length == 0 ? 1 : reduction_length);
    b = cumprod_range_bound(b, dtype, n, smallest_nonzero, largest, non_finite);
  }
  return b;
}

Bound bound_for_inputs(const OpSpec& op, DType dtype, const TensorData& lhs, const TensorData& rhs) {
  // Finite values only: an output a non-finite input reaches is non-finite and compared as a
  // class, so such an input must not widen the bound of the outputs it does not reach.
  const auto largest_finite = [](const TensorData& t) {
    double m = 0;
    for (double v : t.to_f64()) {
      if (std::isfinite(v)) m = std::fmax(m, std::fabs(v));
    }
    return m;
  };
  double magnitude = largest_finite(lhs);
  if (is_bilinear(op.op)) {
    magnitude *= largest_finite(rhs);
  }
  // layer_norm(lhs, rhs) and attention(lhs, rhs, rhs): the rounding sensitivity the reference
  // works out from the values and the step's options (reference_magnitude).
  if (op.op == Op::layer_norm || op.op == Op::attention || op.op == Op::batch_norm) {
    const auto host = [](const TensorData& t) { return HostArray{t.shape().dims(), t.dtype(), t.to_f64()}; };
    OpArgs args;
    args.scalar = graph_layer_norm_epsilon();
    args.attention = graph_attention_options(op.dim1);
    std::vector<HostArray> operands{host(lhs), host(rhs)};
    if (op.op == Op::attention) operands.push_back(host(rhs));
    if (op.op == Op::batch_norm) operands.insert(operands.end(), {host(rhs), host(rhs), host(rhs)});
    magnitude = reference_magnitude(op.op, operands, args);
  }
  return bound_for_receiver(op.op, dtype, reduction_length(op, lhs.shape().dims()), magnitude, lhs.to_f64());
}

Bound bound_for_graph(const GraphSpec& g, DType dtype) {
  // A composition: each step can amplify earlier rounding; a generous per-dtype bound scaled by
  // depth, times the gradient's own scale (check_graph_differential). Graphs in the harness are
  // small and stay away from singular points. Far above what the property run sees for most
  // graphs (see the tightness table): error amplification through exp, pow and division near
  // small values is unbounded in general, and this is a differential check between backends,
  // whose backward rules are written once (Autodiff<B>), so what it guards is the backends'
  // forward kernels inside backward, each already checked op by op within its own tight bound.
  const double depth = static_cast<double>(g.ops.size() + 1);
  const double base = dtype == DType::F64 ? 1e-10 : 1e-3;
  return {base * depth, base * depth, false};
}

namespace {
// The largest finite |x| of a tensor, at least 1: the scale of a graph bound's absolute part.
double bound_scale(const TensorData& t) {
  double scale = 1;
  for (double v : t.to_f64()) {
    if (std::isfinite(v)) scale = std::fmax(scale, std::fabs(v));
  }
  return scale;
}
Bound graph_bound_at_scale(const GraphSpec& g, double scale) {
  Bound b = bound_for_graph(g, g.dtype);
  b.abs *= scale;
  return b;
}
}  // namespace

Bound scaled_graph_bound(const GraphSpec& g, const TensorData& reference) {
  return graph_bound_at_scale(g, bound_scale(reference));
}

namespace {

std::string show(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

// Same class: both NaN, or the same infinity, or both finite.
bool same_class(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (std::isinf(x) || std::isinf(y)) return x == y;
  return true;
}

std::mutex& tightness_mutex() {
  static std::mutex m;
  return m;
}
TightnessTable& tightness_store() {
  static TightnessTable t;
  return t;
}

// Note [Tightness recorded once per comparison]
// value_mismatch used to call record_tightness per element: a lock, two strings and a map lookup
// each time, more than the comparison itself on the fuzz targets' tensors. The elements of one
// comparison share the (check, dtype) key, so they are folded here and stored once. The stored
// result is the one the per-element calls gave: the same count, the same largest error, and the
// same (first) element of largest ratio, since the per-element update only took a strictly larger
// ratio; nothing is stored when no element counted (as before, no entry is created then).
struct TightnessBatch {
  Tightness local;
  bool has_ratio = false;
  void add(double error, double allowed) {
    if (!std::isfinite(error) || !std::isfinite(allowed)) return;
    local.max_error = local.compared == 0 ? error : std::fmax(local.max_error, error);
    ++local.compared;
    if (allowed > 0) {
      const double ratio = error / allowed;
      if (!has_ratio || ratio > local.max_ratio) {
        local.max_ratio = ratio;
        local.allowed_at_max = allowed;
        has_ratio = true;
      }
    }
  }
  void flush(std::string_view check, DType dtype) const {
    if (local.compared == 0) return;
    const std::lock_guard<std::mutex> lock(tightness_mutex());
    Tightness& t = tightness_store()[{std::string(check), render_dtype(dtype)}];
    t.compared += local.compared;
    t.max_error = std::fmax(t.max_error, local.max_error);
    if (has_ratio && local.max_ratio > t.max_ratio) {
      t.max_ratio = local.max_ratio;
      t.allowed_at_max = local.allowed_at_max;
    }
  }
};

}  // namespace

void record_tightness(std::string_view check, DType dtype, double error, double allowed) {
  TightnessBatch batch;
  batch.add(error, allowed);
  batch.flush(check, dtype);
}

TightnessTable tightness_table() {
  const std::lock_guard<std::mutex> lock(tightness_mutex());
  return tightness_store();
}

std::string render_tightness_table(const TightnessTable& table) {
  std::ostringstream os;
  os << "bound tightness: largest |error| / bound per check and dtype (exact bounds: bound 0, error must be 0)\n";
  os << std::left << std::setw(34) << "check" << std::setw(6) << "dtype" << std::right << std::setw(10) << "compared"
     << std::setw(14) << "max ratio" << std::setw(14) << "max error" << std::setw(16) << "bound/max err" << "\n";
  for (const auto& [key, t] : table) {
    os << std::left << std::setw(34) << key.first << std::setw(6) << key.second << std::right << std::setw(10) << t.compared
       << std::setw(14) << std::setprecision(3) << t.max_ratio << std::setw(14) << t.max_error << std::setw(16);
    if (t.max_ratio > 0) {
      os << 1.0 / t.max_ratio;
    } else {
      os << (t.max_error == 0 ? "no error seen" : "-");
    }
    os << "\n";
  }
  return os.str();
}

std::optional<std::string> compare_values(const TensorData& reference, const TensorData& actual, const Bound& bound,
                                          std::string_view what, std::string_view tightness_key) {
  std::optional<std::string> diff = value_mismatch(reference, actual, bound, tightness_key);
  if (diff) return std::string(what) + ": " + *diff;
  return diff;
}

std::optional<std::string> value_mismatch(const TensorData& reference, const TensorData& actual, const Bound& bound,
                                          std::string_view tightness_key) {
  if (reference.shape() != actual.shape()) {
    return "shape " + render_shape(actual.shape().dims()) + ", reference " + render_shape(reference.shape().dims());
  }
  if (reference.dtype() != actual.dtype()) {
    return "dtype " + render_dtype(actual.dtype()) + ", reference " + render_dtype(reference.dtype());
  }
  const std::vector<double> r = reference.to_f64();
  const std::vector<double> a = actual.to_f64();
  TightnessBatch tightness;  // Note [Tightness recorded once per comparison]
  for (std::size_t i = 0; i < r.size(); ++i) {
    const double x = r[i];
    const double y = a[i];
    bool ok;
    if (!std::isfinite(x) || !std::isfinite(y)) {
      ok = same_class(x, y) || bound.overflow_may_change_class || bound.divisor_may_reach_zero ||
           (bound.singular_may_change_class && !std::isfinite(x) && !std::isfinite(y));
    } else if (bound.exact) {
      ok = x == y;
      tightness.add(std::fabs(x - y), 0);
    } else {
      const double allowed = bound.abs + bound.rel * std::fabs(x);
      ok = std::fabs(x - y) <= allowed;
      tightness.add(std::fabs(x - y), allowed);
    }
    if (!ok) {
      if (!tightness_key.empty()) tightness.flush(tightness_key, reference.dtype());
      return "element " + std::to_string(i) + " is " + show(y) + ", reference " + show(x) + " (bound abs " +
             show(bound.abs) + ", rel " + show(bound.rel) + (bound.exact ? ", exact" : "") +
             (bound.overflow_may_change_class     ? ", overflow may change the class"
              : bound.divisor_may_reach_zero      ? ", a divisor may reach 0"
              : bound.singular_may_change_class ? ", non-finite needs non-finite (a singular point)"
                                                : ", non-finite values compare as classes") +
             ")";
    }
  }
  if (!tightness_key.empty()) tightness.flush(tightness_key, reference.dtype());
  return std::nullopt;
}

namespace {

// The largest finite |x| of a value (0 when empty). Non-finite elements compare as classes and
// must not widen anything (the finite-difference graphs have none).
double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) {
    if (std::isfinite(x)) m = std::fmax(m, std::fabs(x));
  }
  return m;
}
// The largest finite |f(x)| over a value's elements.
template <class F>
double max_of(const std::vector<double>& v, F f) {
  double m = 0;
  for (double x : v) {
    const double r = f(x);
    if (std::isfinite(r)) m = std::fmax(m, std::fabs(r));
  }
  return m;
}

// The largest finite |d out / d operand| of an op over a value's elements, from the oracle's own
// partials (docs/OPS.md; never the engine's backward: a wrong rule must not widen its own
// tolerance): the other operand for mul and matmul, 1 / |1 + x| for log1p, exp(x) for exp, ...
// Infinite partials (sqrt at 0, 1 / x at 0) are left out: their outputs are non-finite and compare
// as classes, or are singular points (Conditioning::singular).
struct Partials {
  double lhs = 1;
  double rhs = 1;
};
Partials largest_partials(const OpSpec& op, const std::vector<double>& a, const std::vector<double>& b,
                          const std::vector<double>& y) {
  Partials d;
  if (is_hop(op.op)) return d;
  switch (op.op) {
    case Op::float_mul: d = {max_abs(b), max_abs(a)}; break;
    case Op::float_div:
      d.lhs = max_of(b, [](double x) { return 1 / x; });
      d.rhs = max_abs(y) * d.lhs;  // |a / b^2| = |a / b| / |b|
      break;
    case Op::float_matmul:
    case Op::linear:
    case Op::conv2d:
    case Op::conv_transpose2d:
    case Op::conv1d:
    case Op::conv_transpose1d:
    case Op::conv3d:
    case Op::conv_transpose3d:
      d = {max_abs(b), max_abs(a)};
      break;
    // rfft: every bin moves by at most a twiddle (<= 1) per sample; irfft: every sample by at most
    // 2 / n per bin, n / 2 + 1 bins of each part.
    case Op::rfft:
      d.lhs = 1;
      break;
    case Op::irfft:
      d = {2, 2};
      break;
    // layer_norm(x, w) (the graph's epsilon 1/16: 1 / sqrt(var + epsilon) <= 4): x's partials are
    // at most |w| (2 + d) / sqrt(var + epsilon), w's the normalised values, at most sqrt(d).
    case Op::layer_norm: {
      const double n = static_cast<double>(b.size());
      d = {4 * (2 + n) * max_abs(b), std::sqrt(std::fmax(n, 1.0))};
      break;
    }
    // attention(q, kv, kv) with |scale| <= 1 and softcap's partial <= 1: a weight moves by at most
    // twice its score's change, so q's partials are at most 2 |kv|^2 and kv's (the value's weight
    // plus the key's share) 1 + 2 |q| |kv|.
    case Op::attention: d = {2 * max_abs(b) * max_abs(b), 1 + 2 * max_abs(a) * max_abs(b)}; break;
    // batch_norm(x, s, s, s, s) (epsilon 1/16): x's partial is s / sqrt(s + 1/16) <= 4 s, s's the
    // sum of its four roles' partials, each at most 4 (1 + |x| + |s|) (1 + |s|).
    case Op::batch_norm: d = {4 * max_abs(b), 16 * (1 + max_abs(a) + max_abs(b)) * (1 + max_abs(b))}; break;
    case Op::float_exp: d.lhs = max_abs(y); break;
    case Op::float_log: d.lhs = max_of(a, [](double x) { return 1 / x; }); break;
    case Op::float_log1p: d.lhs = max_of(a, [](double x) { return 1 / (1 + x); }); break;
    case Op::float_sqrt: d.lhs = max_of(y, [](double x) { return 0.5 / x; }); break;
    case Op::sigmoid: d.lhs = 0.25; break;
    case Op::float_powf_scalar: {
      const double p = op.scalar;
      d.lhs = max_of(a, [p](double x) { return p * std::pow(x, p - 1); });
      break;
    }
    case Op::float_mul_scalar: d.lhs = std::fabs(op.scalar); break;
    case Op::float_div_scalar: d.lhs = op.scalar == 0 ? 1 : 1 / std::fabs(op.scalar); break;  // 0: the values are non-finite
    case Op::leaky_relu: d.lhs = std::fmax(1.0, std::fabs(op.scalar)); break;  // 1 or the slope
    // gelu' = Phi(x) + x phi(x) peaks at x = sqrt 2: 1.1289.
    case Op::gelu: d.lhs = 1.13; break;
    // d/da = 1, d/db = -floor(a / b): at most |a| / |b| + 1 (the jumps are handled by conditioning_of).
    case Op::float_remainder: d.rhs = max_abs(a) * max_of(b, [](double x) { return 1 / x; }) + 1; break;
    // |b a^(b-1)| and |a^b log a| over the pairs broadcasting forms. Every pair of elements covers
    // them, but that is |a| |b| pow calls: a decoded [57000] ^ [57000] took the release fuzzer 42 s
    // on one input (a timeout). Above 2^16 pairs the elements are paired in order, cycling the
    // shorter operand (an estimate, as the whole gain is: Note [Rounding noise of the objective]).
    case Op::float_powf: {
      d.lhs = 0;
      d.rhs = 0;
      const auto pair = [&d](double x, double p) {
        const double dl = std::fabs(p * std::pow(x, p - 1)), dr = std::fabs(std::pow(x, p) * std::log(x));
        if (std::isfinite(dl)) d.lhs = std::fmax(d.lhs, dl);
        if (std::isfinite(dr)) d.rhs = std::fmax(d.rhs, dr);
      };
      if (a.size() * b.size() <= (std::size_t{1} << 16)) {
        for (double x : a) {
          for (double p : b) pair(x, p);
        }
      } else {
        for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) pair(a[i % a.size()], b[i % b.size()]);
      }
      break;
    }
    // |b| / (a^2 + b^2) and |a| / (a^2 + b^2): at most 1 / hypot(a, b) over the pairs, largest at the
    // smallest hypot, which pairs the smallest |a| with the smallest |b| (hypot grows with each);
    // where that is 0 (1 / 0 is left out), the smallest nonzero magnitude of either. Linear in the
    // sizes: every pair was |a| |b| hypot calls.
    case Op::float_atan2: {
      const auto smallest = [](const std::vector<double>& v, bool nonzero) {
        double m = std::numeric_limits<double>::infinity();
        for (double x : v) {
          if (!std::isnan(x) && (!nonzero || x != 0)) m = std::fmin(m, std::fabs(x));
        }
        return m;
      };
      double h = std::hypot(smallest(a, false), smallest(b, false));
      if (h == 0) h = std::fmin(smallest(a, true), smallest(b, true));
      const double m = std::isinf(h) ? 0.0 : 1 / h;
      d = {std::isfinite(m) ? m : std::numeric_limits<double>::max(), std::isfinite(m) ? m : std::numeric_limits<double>::max()};
      break;
    }
    // d y / d x_i = the product of the other elements of x_i's lane. Shapes are not known here, so
    // every lane is bounded at once: the product of max(|x_j|, 1) over all elements but the one
    // where that is smallest bounds the product of any lane's others.
    case Op::float_prod:
    case Op::float_prod_dim: {
      double product = 1, smallest = INFINITY;
      for (double x : a) {
        if (!std::isfinite(x)) continue;
        const double m = std::fmax(std::fabs(x), 1.0);
        product *= m;
        smallest = std::fmin(smallest, m);
      }
      d.lhs = std::isfinite(smallest) ? product / smallest : 1;
      break;
    }
    case Op::float_tan: d.lhs = max_of(y, [](double t) { return 1 + t * t; }); break;
    case Op::float_cosh: d.lhs = max_abs(y); break;  // |sinh x| <= cosh x
    case Op::float_sinh: d.lhs = max_of(y, [](double s) { return std::sqrt(1 + s * s); }); break;  // cosh x
    case Op::float_acos:
    case Op::float_asin: d.lhs = max_of(a, [](double x) { return 1 / std::sqrt((1 - x) * (1 + x)); }); break;
    case Op::float_acosh: d.lhs = max_of(a, [](double x) { return 1 / std::sqrt((x - 1) * (x + 1)); }); break;
    case Op::float_atanh: d.lhs = max_of(a, [](double x) { return 1 / ((1 - x) * (1 + x)); }); break;
    case Op::float_erf: d.lhs = 2 / std::sqrt(std::numbers::pi); break;
    case Op::float_recip: d.lhs = max_of(y, [](double r) { return r * r; }); break;
    // Steps: no slope between the jumps; a value near a jump is handled by conditioning_of.
    case Op::float_round:
    case Op::float_floor:
    case Op::float_ceil:
    case Op::float_trunc:
    case Op::float_sign: d.lhs = 0; break;
    // Each element reaches up to a whole lane of outputs (at most a.size()), with partial 1 ...
    case Op::float_cumsum:
    case Op::float_cummin:
    case Op::float_cummax: d.lhs = static_cast<double>(a.size()); break;
    // ... or a product of other elements of its lane: at most the product of max(1, |x_j|).
    case Op::float_cumprod: {
      double p = static_cast<double>(a.size());
      for (double x : a) {
        if (std::isfinite(x)) p *= std::fmax(1.0, std::fabs(x));
      }
      d.lhs = p;
      break;
    }
    // prelu: 1 or a with respect to x, x (below 0) with respect to a.
    case Op::prelu: d = {std::fmax(1.0, max_abs(b)), max_abs(a)}; break;
    // |a / h| and |b / h| are at most 1.
    case Op::float_hypot: break;
    // log_softmax's partials d y_i / d x_j = delta_ij - softmax_j sum to at most 2 in a row.
    case Op::log_softmax: d.lhs = 2; break;
    // interpolate: a cell's weight in an output, a product of one tap weight per axis (several taps
    // clamped onto an edge cell add theirs): below 1.3 for Keys' cubic, 1 for the others.
    case Op::interpolate:
    case Op::interpolate_backward: d.lhs = 2; break;
    // Partials of at most 1 (per row for softmax): the moves copy, the sums and means add, the
    // rest are 1-Lipschitz.
    case Op::softmax:
    case Op::softmin:
    case Op::float_transpose:
    case Op::float_add:
    case Op::float_sub:
    case Op::float_neg:
    case Op::float_tanh:
    case Op::float_cos:
    case Op::float_sin:
    case Op::float_asinh:
    case Op::float_atan:
    case Op::log_sigmoid:  // sigmoid(-x) in (0, 1)
    case Op::relu:
    case Op::float_add_scalar:
    case Op::float_sub_scalar:
    case Op::float_remainder_scalar:
    case Op::float_abs:
    case Op::float_clamp:
    case Op::float_clamp_min:
    case Op::float_clamp_max:
    case Op::float_sum:
    case Op::float_mean:
    case Op::float_sum_dim:
    case Op::float_mean_dim:
    case Op::avg_pool2d:  // means: each partial 1 / count at most
    case Op::avg_pool2d_backward:
    case Op::adaptive_avg_pool2d:
    case Op::adaptive_avg_pool2d_backward:
    case Op::adaptive_avg_pool3d:
    case Op::adaptive_avg_pool3d_backward:
    case Op::max_pool2d:  // a copy of one input
    case Op::max_pool2d_indices:
    case Op::max_pool2d_with_indices_backward:
    case Op::avg_pool1d:
    case Op::avg_pool1d_backward:
    case Op::adaptive_avg_pool1d:
    case Op::adaptive_avg_pool1d_backward:
    case Op::max_pool1d:
    case Op::max_pool1d_indices:
    case Op::max_pool1d_with_indices_backward:
    case Op::unfold4d:  // a copy of one input (or of none)
    case Op::fold4d:    // a sum of block cells, each with partial 1
    case Op::embedding:  // a copy of a row; its backward pass sums
    case Op::embedding_backward:
    case Op::conv2d_x_backward:  // never graph steps (Rule NotDifferentiable)
    case Op::conv2d_weight_backward:
    case Op::conv2d_bias_backward:
    case Op::conv_transpose2d_x_backward:
    case Op::conv_transpose2d_weight_backward:
    case Op::conv_transpose2d_bias_backward:
    case Op::conv1d_x_backward:
    case Op::conv1d_weight_backward:
    case Op::conv1d_bias_backward:
    case Op::conv_transpose1d_x_backward:
    case Op::conv_transpose1d_weight_backward:
    case Op::conv_transpose1d_bias_backward:
    case Op::conv3d_x_backward:
    case Op::conv3d_weight_backward:
    case Op::conv3d_bias_backward:
    case Op::conv_transpose3d_x_backward:
    case Op::conv_transpose3d_weight_backward:
    case Op::conv_transpose3d_bias_backward:
    case Op::linear_x_backward:
    case Op::linear_weight_backward:
    case Op::linear_bias_backward:
    case Op::float_max_dim:
    case Op::float_min_dim:
    case Op::float_max:
    case Op::float_min:
    case Op::float_max_abs:
    case Op::float_max_abs_dim:
    case Op::float_reshape:
    case Op::float_swap_dims:
    case Op::float_permute:
    case Op::float_flip:
    case Op::float_slice:
    case Op::float_cat:
    case Op::float_select:
    case Op::float_select_assign:
    case Op::float_select_add:
    case Op::float_gather:
    case Op::float_scatter_add:
    case Op::float_scatter:  // Assign or Add in a graph
    case Op::float_gather_nd:
    case Op::float_scatter_nd:
    case Op::float_mask_select:
    case Op::float_mask_where:
    case Op::float_mask_fill:
    case Op::float_repeat_dim:
    case Op::float_unfold:
    case Op::float_sort:
    case Op::float_topk:
    case Op::float_slice_assign:
    case Op::float_expand:
      break;
    // alpha where the clamp passes.
    case Op::hard_sigmoid: d.lhs = std::fabs(op.scalar); break;
    // Components of the other operand.
    case Op::float_cross: d = {max_abs(b), max_abs(a)}; break;
    // Not graph steps (a graph is float to float in one dtype, with a backward rule).
    case Op::float_cast:
    case Op::float_greater_scalar:
    case Op::bool_into_float:
    case Op::int_into_float:
    case Op::float_into_int:
    case Op::int_add:
    case Op::int_sub:
    case Op::int_mul:
    case Op::int_div:
    case Op::int_remainder:
    case Op::int_neg:
    case Op::int_abs:
    case Op::int_sign:
    case Op::int_add_scalar:
    case Op::int_sub_scalar:
    case Op::int_mul_scalar:
    case Op::int_div_scalar:
    case Op::int_remainder_scalar:
    case Op::bool_not:
    case Op::bool_and:
    case Op::bool_or:
    case Op::bool_xor:
    case Op::int_equal:
    case Op::int_not_equal:
    case Op::int_greater:
    case Op::int_greater_equal:
    case Op::int_lower:
    case Op::int_lower_equal:
    case Op::bool_equal:
    case Op::bool_not_equal:
    case Op::bitwise_and:
    case Op::bitwise_or:
    case Op::bitwise_xor:
    case Op::bitwise_left_shift:
    case Op::bitwise_right_shift:
    case Op::int_equal_elem:
    case Op::int_not_equal_elem:
    case Op::int_greater_elem:
    case Op::int_greater_equal_elem:
    case Op::int_lower_elem:
    case Op::int_lower_equal_elem:
    case Op::bitwise_not:
    case Op::bitwise_and_scalar:
    case Op::bitwise_or_scalar:
    case Op::bitwise_xor_scalar:
    case Op::bitwise_left_shift_scalar:
    case Op::bitwise_right_shift_scalar:
    case Op::int_cast:
    case Op::bool_into_int:
    case Op::int_sum:
    case Op::int_sum_dim:
    case Op::int_prod:
    case Op::int_prod_dim:
    case Op::int_mean:
    case Op::int_mean_dim:
    case Op::int_max:
    case Op::int_min:
    case Op::int_max_dim:
    case Op::int_min_dim:
    case Op::int_argmax:
    case Op::int_argmin:
    case Op::int_any:
    case Op::int_all:
    case Op::bool_any:
    case Op::bool_all:
    case Op::int_clamp:
    case Op::int_clamp_min:
    case Op::int_clamp_max:
    case Op::int_square:
    case Op::int_any_dim:
    case Op::int_all_dim:
    case Op::bool_any_dim:
    case Op::bool_all_dim:
    case Op::int_max_abs:
    case Op::int_max_abs_dim:
    case Op::int_reshape:
    case Op::int_swap_dims:
    case Op::int_permute:
    case Op::int_transpose:
    case Op::int_expand:
    case Op::int_flip:
    case Op::int_repeat_dim:
    case Op::int_unfold:
    case Op::int_cat:
    case Op::int_slice:
    case Op::int_slice_assign:
    case Op::int_select:
    case Op::bool_reshape:
    case Op::bool_swap_dims:
    case Op::bool_permute:
    case Op::bool_transpose:
    case Op::bool_expand:
    case Op::bool_flip:
    case Op::bool_repeat_dim:
    case Op::bool_unfold:
    case Op::bool_cat:
    case Op::bool_slice:
    case Op::bool_slice_assign:
    case Op::bool_select:
    case Op::int_gather:
    case Op::int_gather_nd:
    case Op::int_mask_where:
    case Op::int_mask_select:
    case Op::bool_gather:
    case Op::bool_gather_nd:
    case Op::bool_mask_where:
    case Op::bool_mask_select:
    case Op::int_select_assign:
    case Op::int_select_add:
    case Op::int_scatter_add:
    case Op::int_scatter:
    case Op::int_scatter_nd:
    case Op::int_mask_fill:
    case Op::bool_select_or:
    case Op::bool_scatter_or:
    case Op::bool_mask_fill:
    case Op::bool_argwhere:
    case Op::int_cumsum:
    case Op::int_cumprod:
    case Op::int_cummin:
    case Op::int_cummax:
    case Op::int_argsort:
    case Op::int_sort:
    case Op::int_argtopk:
    case Op::int_topk:
    case Op::int_matmul:
    case Op::int_powi:
    case Op::int_powi_scalar:
    case Op::float_argmax:
    case Op::float_argmin:
    case Op::float_argsort:
    case Op::float_argtopk:
    case Op::float_any:
    case Op::float_any_dim:
    case Op::float_all:
    case Op::float_all_dim:
    case Op::float_greater:
    case Op::float_lower:
    case Op::float_equal:
    case Op::float_greater_equal:
    case Op::float_lower_equal:
    case Op::float_not_equal:
    case Op::float_greater_equal_elem:
    case Op::float_lower_elem:
    case Op::float_lower_equal_elem:
    case Op::float_equal_elem:
    case Op::float_not_equal_elem:
    case Op::float_is_nan:
    case Op::float_is_inf:
      break;
  }
  return d;
}

// Per value, by how much a rounding error of one of its elements is multiplied on its way to
// f = sum(root) (its gain), estimated: 1 for the root; an operand gets the op's gain times how
// many output elements each of its elements reaches by broadcasting (or expand) times the op's
// largest partial with respect to it at these values (largest_partials); a value read by several
// ops sums their gains. The rows of matmul and softmax are
// not counted (their partials are taken as per element): with them the decoder's maximal graph
// (five chained 6x6 matmuls, Numeric.FiniteDifferencesFitTheFuzzerBudgetAtMaximumSizes) had no
// judged element left, while its measured errors sit far below the tolerances. log_softmax
// counts 1 here for the same reason. Note [Rounding noise of the objective]. A leaf is an input,
// not a rounding; what reaches it bounds the terms backward adds up into its gradient (the same
// sums of products of partials), which rounds at eps times that.
std::vector<double> rounding_gain(const GraphSpec& g, const std::vector<std::vector<std::size_t>>& shapes,
                                  const std::vector<std::vector<double>>& values) {
  const std::size_t leaves = g.leaf_shapes.size();
  std::vector<double> gain(shapes.size(), 0.0);
  if (gain.empty() || values.size() != shapes.size()) return gain;
  gain.back() = 1;
  for (std::size_t k = g.ops.size(); k-- > 0;) {
    const OpSpec& op = g.ops[k];
    const std::size_t out = leaves + k;
    if (gain[out] == 0) continue;
    const std::vector<double>& a = values[op.lhs];
    const bool binary = !is_hop(op.op) && is_binary(op.op);
    const std::vector<double>& b = binary ? values[op.rhs] : a;
    Partials d = largest_partials(op, a, b, values[out]);
    if (op.op == Op::log_softmax) d.lhs = 1;
    const double out_n = static_cast<double>(element_count(shapes[out]));
    const auto reach = [&](std::size_t operand, double partial) {
      const double in_n = static_cast<double>(element_count(shapes[operand]));
      if (in_n == 0) return;
      gain[operand] += gain[out] * std::fmax(1.0, out_n / in_n) * partial;
    };
    reach(op.lhs, d.lhs);
    if (binary) reach(op.rhs, d.rhs);
  }
  return gain;
}

// The objective f = sum(root) and the size of its rounding error (in units of eps).
struct Objective {
  double sum = 0;
  double magnitude = 0;
};
// Summing n root elements rounds each partial sum S_k once: errors of up to eps |S_k| / 2 that
// add up like a random walk, eps sqrt(sum S_k^2 / 12), which for a long root far exceeds
// eps sum |root_k|. Counted as sqrt(sum S_k^2) / 4: the resolution's factor 4 stands for the
// rest (Numeric.FiniteDifferenceToleranceScalesWithTheGradient keeps it that tight).
Objective objective_of_root(const DispatchTensor& root) {
  Objective o;
  double walk = 0;
  for (double v : Dispatch::float_into_data(root).to_f64()) {
    o.sum += v;
    o.magnitude += std::fabs(v);
    walk += o.sum * o.sum;
  }
  o.magnitude = std::fmax(o.magnitude, std::sqrt(walk) / 4);
  return o;
}

// The objective of a run with its rounding noise: the root's magnitude, or every computed value's
// magnitudes weighted by its gain (rounding_gain), whichever is larger.
struct NoisyObjective : Objective {
  std::vector<double> backward_terms;  // per leaf: rounding_gain's bound on what backward sums into it
};
NoisyObjective objective_with_noise(const NormalizedGraph& ng, const GraphRun& run) {
  NoisyObjective o;
  static_cast<Objective&>(o) = objective_of_root(run.root());
  std::vector<std::vector<double>> values;
  values.reserve(run.values.size());
  for (const DispatchTensor& v : run.values) values.push_back(Dispatch::float_into_data(v).to_f64());
  const std::vector<std::vector<std::size_t>> shapes = value_shapes(ng);
  const std::vector<double> gain = rounding_gain(ng, shapes, values);
  const std::size_t leaves = std::min(ng.spec().leaf_shapes.size(), gain.size());
  o.backward_terms.assign(gain.begin(), gain.begin() + static_cast<std::ptrdiff_t>(leaves));
  double weighted = 0;
  for (std::size_t i = leaves; i < gain.size(); ++i) {  // the computed values: leaves do not round
    if (gain[i] == 0) continue;
    double sum = 0;
    for (double v : values[i]) sum += std::fabs(v);
    // A reduction's output carries the random walk of its L partial sums, not one rounding, and
    // those round at the size of its terms, not of its result (terms that cancel: a mean of 0).
    const OpSpec& op = ng.spec().ops[i - leaves];
    const std::size_t length = std::max<std::size_t>(1, reduction_length(op, shapes[op.lhs]));
    const double walk = std::sqrt(static_cast<double>(length));
    const bool sum_of_lhs = op.op == Op::float_sum || op.op == Op::float_sum_dim;
    const bool mean_of_lhs = op.op == Op::float_mean || op.op == Op::float_mean_dim || op.op == Op::avg_pool2d ||
                             op.op == Op::adaptive_avg_pool2d || op.op == Op::avg_pool1d || op.op == Op::adaptive_avg_pool1d;  // (max_pool2d copies: one rounding-free value)
    if (sum_of_lhs || mean_of_lhs) {
      double terms = 0;
      for (double v : values[op.lhs]) terms += std::fabs(v);
      sum = std::fmax(sum, mean_of_lhs ? terms / static_cast<double>(length) : terms);
    }
    weighted += gain[i] * sum * walk;
  }
  o.magnitude = std::fmax(o.magnitude, weighted);
  return o;
}

// The graph at these leaf values, without hops, in F64 on the reference backend, untracked.
GraphRun objective_run(const NormalizedGraph& ng, const std::vector<std::vector<double>>& leaves) {
  return run_graph(ng, reference_backend(), DType::F64, false, Hops::Ignore, &leaves);
}

}  // namespace

bool infinite_partial_at_zero(const OpSpec& op) {
  return op.op == Op::float_sqrt || (op.op == Op::float_powf_scalar && op.scalar < 1.0);
}

double step_jump(Op op) {
  if (op == Op::float_sign) return 2;  // -1 to 0 to 1
  if (op == Op::float_round || op == Op::float_floor || op == Op::float_ceil || op == Op::float_trunc) return 1;
  return 0;
}

std::vector<double> infinite_partial_at(const OpSpec& op) {
  if (op.op == Op::float_acos || op.op == Op::float_asin) return {-1, 1};
  if (op.op == Op::float_acosh) return {1};
  return {};
}

namespace {

// The exact ops that compute (correctly rounded): on operands that differ from the reference's,
// their result differs by what the partials carry plus one more rounding. The other exact ops
// (moves, selections, neg, abs) add none.
bool rounds_once(Op op) {
  return op == Op::float_add || op == Op::float_sub || op == Op::float_mul || op == Op::float_div ||
         op == Op::float_sqrt || op == Op::float_add_scalar || op == Op::float_mul_scalar || op == Op::float_sub_scalar ||
         op == Op::float_div_scalar || op == Op::float_remainder_scalar || op == Op::float_remainder;
}

bool holds_zero(const std::vector<double>& v) { return std::find(v.begin(), v.end(), 0.0) != v.end(); }

// The largest e / |x + shift| over the elements where x + shift is finite and not 0: how well a
// value known to within e is known relative to itself where a backward formula divides by it.
// Where it is 0 the output is non-finite or singular (compared as classes).
double relative_uncertainty(const std::vector<double>& x, double e, double shift = 0) {
  if (e == 0) return 0;
  double u = 0;
  for (double v : x) {
    const double d = std::fabs(v + shift);
    if (std::isfinite(d) && d > 0) u = std::fmax(u, e / d);
  }
  return u;
}

// e / max|x|: how well a value known to within e is known relative to its size (0 when e is 0;
// infinite when every element is 0 or non-finite and e is not).
double uncertainty_in_size(const std::vector<double>& x, double e) {
  if (e == 0) return 0;
  double size = 0;
  for (double v : x) {
    if (std::isfinite(v)) size = std::fmax(size, std::fabs(v));
  }
  return size > 0 ? e / size : std::numeric_limits<double>::infinity();
}

// How far, relative to its size, the partial of a smooth unary op moves when its operand is known
// only to within e: the partial is a function of the operand, so it moves by up to e times the
// second derivative. Negligible for an operand that carries a few roundings of its own size, but
// not for one whose rounding is large in absolute terms: F32 sin(sinh(x)) + sinh(x) at x = -15,
// where sinh(x) = -1.6e6 has an ulp of 0.125 and SLEEF (Flex) and glibc differ by one; backward
// multiplies cos(sinh x), moved by up to that, by cosh(x) = 1.6e6: gradients 2,774,230.75 and
// 2,619,269 (ops_differential_fuzzer; regress-diff-sin-gradient-of-an-argument-rounded-at-its-size).
// Where |f''/f'| is bounded (exp 1, sinh |tanh| <= 1, tanh 2, atan 2|u| / (1 + u^2) <= 1, asinh
// <= 1/2, sigmoid |1 - 2 s| <= 1, log_sigmoid s <= 1) the partial's relative change is at most that
// bound times e; erf's is 2 |u| e. sin, cos, cosh and gelu have partials that pass through 0, so
// their change is taken in absolute terms (|f''| is at most 1 for sin and cos, cosh(u) for cosh,
// 0.8 for gelu) against the largest partial, as the mul rule takes the other operand's error
// against its size.
double partial_uncertainty(Op op, const std::vector<double>& a, double e) {
  if (e == 0) return 0;
  const auto against_largest_partial = [&a, e](double curvature, auto partial) {
    const double size = max_of(a, partial);
    return size > 0 ? e * curvature / size : std::numeric_limits<double>::infinity();
  };
  if (op == Op::float_exp || op == Op::float_sinh || op == Op::float_atan || op == Op::float_asinh || op == Op::sigmoid ||
      op == Op::log_sigmoid) {
    return e;
  }
  if (op == Op::float_tanh) return 2 * e;
  if (op == Op::float_erf) return 2 * max_abs(a) * e;
  if (op == Op::float_sin) return against_largest_partial(1, [](double u) { return std::cos(u); });
  if (op == Op::float_cos) return against_largest_partial(1, [](double u) { return std::sin(u); });
  if (op == Op::float_cosh) {
    const double curvature = max_of(a, [e](double u) { return std::cosh(std::fabs(u) + e); });
    return against_largest_partial(curvature, [](double u) { return std::sinh(u); });
  }
  if (op == Op::gelu) {
    return against_largest_partial(0.8, [](double u) {
      return 0.5 * std::erfc(-u / std::numbers::sqrt2) + u * std::exp(-0.5 * u * u) / std::sqrt(2 * std::numbers::pi);
    });
  }
  return 0;
}

// Whether a value known to within e may sit on the other side of, or on, x + shift = 0 on some
// backend: where x + shift is 0, or known to no better than its own size.
bool may_reach_zero(const std::vector<double>& x, double e, double shift = 0) {
  if (e == 0) return false;
  for (double v : x) {
    if (v + shift == 0) return true;
  }
  return relative_uncertainty(x, e, shift) >= 1;
}

// The operand of op that has a pole or a domain edge at 0 (after log1p's shift of 1), if any.
// atanh has two (x = +-1: shifts 1 and -1); acos, asin and acosh have domain edges at +-1 and 1.
struct PoleOperand {
  std::size_t value;
  double shift;
  std::optional<double> other_shift = std::nullopt;
};
std::optional<PoleOperand> pole_operand(const OpSpec& op) {
  if (op.op == Op::float_div || op.op == Op::float_remainder) return PoleOperand{op.rhs, 0};
  if (op.op == Op::float_powf) return PoleOperand{op.lhs, 0};
  if (op.op == Op::float_recip) return PoleOperand{op.lhs, 0};
  if (op.op == Op::float_log || op.op == Op::float_sqrt) return PoleOperand{op.lhs, 0};
  if (op.op == Op::float_log1p) return PoleOperand{op.lhs, 1};
  if (op.op == Op::float_atanh || op.op == Op::float_acos || op.op == Op::float_asin) return PoleOperand{op.lhs, 1, -1.0};
  if (op.op == Op::float_acosh) return PoleOperand{op.lhs, -1};
  if (op.op == Op::float_powf_scalar && (op.scalar < 1 || op.scalar != std::floor(op.scalar))) return PoleOperand{op.lhs, 0};
  return std::nullopt;
}

// Whether some element of x, known to within e, may lie on a pole of tan (pi/2 + k pi) or on its
// other side on some backend.
bool may_reach_tan_pole(const std::vector<double>& x, double e) {
  for (double v : x) {
    if (!std::isfinite(v)) continue;
    if (e >= std::numbers::pi / 2 || std::fabs(std::remainder(v - std::numbers::pi / 2, std::numbers::pi)) <= e) return true;
  }
  return false;
}

// Whether some element of x, known to within e, may lie on the other side of one of op's jumps:
// the integers (floor, ceil, trunc; also 0 for trunc), the half-integers (round), 0 (sign).
bool near_a_jump(Op op, const std::vector<double>& x, double e) {
  for (double v : x) {
    if (!std::isfinite(v)) continue;
    double nearest;
    if (op == Op::float_sign) nearest = 0;
    else if (op == Op::float_round) nearest = std::floor(v) + 0.5;
    else nearest = std::round(v);
    if (std::fabs(v - nearest) <= e) return true;
  }
  return false;
}

}  // namespace

// Note [Conditioning of a graph]
// A graph's values and gradients are compared against a reference run within bound_for_graph,
// relative to their own size. Two graphs found by 10-minute ops_differential_fuzzer runs
// (2026-12-01) failed that with correct engines:
//   - v6 = mean_dim(v0) - v0 with a leaf of 3.4e38, then v9 = sum(v6): the exact sum is about
//     -150, but its terms are +-1.7e38 and F32 sums of them give 0 in one order and -150.9 in
//     another. The value's error scales with its terms (cancellation), not with itself;
//   - v8 = v0 / v1 with v1 = log_softmax(v0) = -1.5e-6 at a row's dominant element: log_softmax is
//     correct to within ~1e-7 absolute there, so v1 is known to ~10 % and the gradient, -v0 / v1^2
//     times the rest, differs by 30 % between backends (161,845.75 vs 233,057.89).
// So each value carries an estimate of the absolute error any backend's result may have: its
// op's own bound (bound_for: the per-op tolerance, e.g. n^2 eps max|x| for a sum, or one rounding
// for an exact op that computes) plus its operands' errors times the op's largest partials
// (largest_partials; sums and matmul count each of their terms). Values are compared within
// twice that on top of the graph bound. Gradients are compared with the relative uncertainty of
// every value a backward formula divides by (div's divisor, twice: a / b^2; log's and log1p's
// argument; sqrt's result; x^p's argument for p < 1), and of every partial a smooth op computes
// from its operand (sin's cos(u), ...: partial_uncertainty), added to the bound's relative part; where a
// divisor is known to no better than its own size the gradients are not compared at all: one
// backend may compute it as exactly 0 (a later 10-minute run: v9 = sum(mean_dim(v0) - v0), then
// v12 / v9; Flex's gradient NaN, the reference's 0). Normal graphs are unaffected: their values
// carry errors of a few eps, far below the graph bound's 1e-3 (F32) or 1e-10 (F64) per step.
// The same divisor reaches the values too (a 60-s run, 2026-12-02: F64, v15 = v12 / v9 with v9 =
// sum(mean_dim(v0) - v0); Flex's v15 inf, the reference's -4.8e17, within a value bound of
// 1.8e23 but of another class): a value computed from an operand that may reach its op's pole is
// marked (may_change_class) and only its classes go uncompared; its numbers keep their bound.
Conditioning conditioning_of(const GraphSpec& g, const std::vector<TensorData>& values) {
  Conditioning c;
  const std::size_t leaves = g.leaf_shapes.size();
  const std::vector<std::vector<std::size_t>> shapes = value_shapes(g);
  std::vector<std::vector<double>> v;
  v.reserve(values.size());
  for (const TensorData& t : values) {
    v.push_back(t.to_f64());
    for (double x : v.back()) {
      if (!std::isfinite(x)) c.singular = true;
    }
  }
  c.value_error.assign(v.size(), 0.0);
  c.may_change_class.assign(v.size(), false);
  if (v.size() != shapes.size()) {
    c.value_error.assign(v.size(), std::numeric_limits<double>::infinity());
    c.may_change_class.assign(v.size(), true);
    c.gradient_rel = std::numeric_limits<double>::infinity();
    c.pole_within_error = true;
    return c;
  }
  const std::vector<bool> live = read_by_root(g);
  const double eps = epsilon_of(g.dtype);
  // What backward sums into each leaf: the same gains the finite differences' backward_rounding uses.
  std::vector<double> gain = rounding_gain(g, shapes, v);
  gain.resize(std::min(gain.size(), leaves));
  c.backward_terms = std::move(gain);
  std::vector<double>& e = c.value_error;
  for (std::size_t k = 0; k < g.ops.size(); ++k) {
    const OpSpec& op = g.ops[k];
    const std::size_t out = leaves + k;
    if (is_hop(op.op)) {
      e[out] = e[op.lhs];
      c.may_change_class[out] = c.may_change_class[op.lhs];
      continue;
    }
    const bool binary = is_binary(op.op);
    const std::vector<double>& a = v[op.lhs];
    const std::vector<double>& b = binary ? v[op.rhs] : a;
    const std::vector<double>& y = v[out];
    if (infinite_partial_at_zero(op) && holds_zero(a)) c.singular = true;
    // acos and asin at +-1, acosh at 1: a finite value with an infinite partial, so backward
    // multiplies inf by a factor that may be 0, +tiny or -tiny by the summation order (softmax's
    // 1 - sum(y) under asin: Flex +inf, the reference -inf; ops_differential_fuzzer).
    for (const double point : infinite_partial_at(op)) {
      if (std::find(a.begin(), a.end(), point) != a.end()) c.singular = true;
    }
    // What the operands' errors become.
    const Partials d = largest_partials(op, a, b, y);
    const auto carried = [](double partial, double error) { return error == 0 ? 0.0 : partial * error; };
    const std::size_t n = reduction_length(op, shapes[op.lhs]);
    // Each of the n terms' errors reaches the output (a product's through its own partial).
    const bool sums_terms = op.op == Op::float_sum || op.op == Op::float_sum_dim || op.op == Op::float_matmul || op.op == Op::linear ||
                            op.op == Op::float_prod || op.op == Op::float_prod_dim;
    double propagated = carried(d.lhs, e[op.lhs]) + (binary ? carried(d.rhs, e[op.rhs]) : 0.0);
    if (sums_terms) propagated *= static_cast<double>(std::max<std::size_t>(n, 1));
    // Near 0, sqrt and x^p (0 < p < 1) are Hoelder, not Lipschitz: |f(x + e) - f(x)| <= e^p.
    if (e[op.lhs] > 0 && (op.op == Op::float_sqrt || (op.op == Op::float_powf_scalar && op.scalar > 0 && op.scalar < 1))) {
      const double p = op.op == Op::float_sqrt ? 0.5 : op.scalar;
      const double hoelder = std::pow(e[op.lhs], p);
      propagated = holds_zero(a) ? std::fmax(propagated, hoelder) : std::fmin(propagated, hoelder);
    }
    // The op's own error.
    double magnitude = max_abs(a);
    if (is_bilinear(op.op)) {
      magnitude *= max_abs(b);
    }
    const Bound own = bound_for(op.op, g.dtype, n, magnitude);
    const double local = own.exact ? (rounds_once(op.op) ? eps * max_abs(y) : 0.0) : own.abs + own.rel * max_abs(y);
    e[out] = local + propagated;
    const std::optional<PoleOperand> pole = pole_operand(op);
    const bool at_pole = pole && (may_reach_zero(v[pole->value], e[pole->value], pole->shift) ||
                                  (pole->other_shift && may_reach_zero(v[pole->value], e[pole->value], *pole->other_shift)));
    // tan's poles are at pi/2 + k pi, not at a shift of 0: an operand known to no better than its
    // distance to one (tan(tan(acos(x))) near x = 0 in F32: tan(acos(x)) is about -2.3e7, whose
    // ulp is 2, and two correct backends put the outer tan in different periods: Flex's gradient
    // -5.4e14, the reference's -8.1e15; ops_differential_fuzzer).
    const bool tan_pole = op.op == Op::float_tan && e[op.lhs] > 0 && may_reach_tan_pole(a, e[op.lhs]);
    c.may_change_class[out] = c.may_change_class[op.lhs] || (binary && c.may_change_class[op.rhs]) || at_pole || tan_pole;
    if ((at_pole || tan_pole) && live[out]) c.pole_within_error = true;
    // A step (round, floor, ceil, trunc, sign) whose operand may lie on the other side of a jump on
    // some backend: its value may differ by the jumps its operand's error spans, not by a rounding:
    // sign by at most 2 (-1 to 1), the integer steps by at most e + 1 (one jump per unit of e, plus
    // one). ceil(sum(mean_dim(x) - x)) with x holding 3.4e38: the sum is -150 on NdArray and 0 on
    // Flex, so their ceils differ by 150, not 1 (ops_differential_fuzzer in the CI's fuzz smoke).
    if (const double jump = step_jump(op.op); jump > 0 && e[op.lhs] > 0 && near_a_jump(op.op, a, e[op.lhs])) {
      e[out] += op.op == Op::float_sign ? jump : jump + e[op.lhs];
    }
    // remainder jumps by |b| where a / b crosses an integer: with inexact operands a backend's value
    // may lie on the other side of a jump (its value then differs by b, and the divisor's gradient
    // -floor(a / b) by the cotangent). Where a result lies within the operands' error of 0 or of b.
    if (op.op == Op::float_remainder_scalar && e[op.lhs] > 0) {
      const double s = std::fabs(op.scalar);
      for (double r : y) {
        if (std::fabs(r) <= e[op.lhs] || std::fabs(s - std::fabs(r)) <= e[op.lhs]) {
          e[out] += s;
          break;
        }
      }
    }
    // atan2 jumps by 2 pi across a = 0 where b < 0 (its branch cut), and its gradient divides by
    // a^2 + b^2; pow's gradients hold a^(b - 1) and log(a), which a near 0 makes unbounded.
    if (op.op == Op::float_atan2 && (e[op.lhs] > 0 || e[op.rhs] > 0)) {
      if (may_reach_zero(a, e[op.lhs])) e[out] += 2 * std::numbers::pi;
      if (live[out]) c.gradient_rel += 2 * relative_uncertainty(a, e[op.lhs]) + 2 * relative_uncertainty(b, e[op.rhs]);
    }
    if (op.op == Op::float_powf && (e[op.lhs] > 0 || e[op.rhs] > 0) && live[out]) {
      double big = 0;
      for (double p : b) big = std::fmax(big, std::fabs(p - 1));
      c.gradient_rel += (big + 1) * relative_uncertainty(a, e[op.lhs]) + 2 * e[op.rhs] * max_of(a, [](double x) { return std::log(x); });
    }
    if (op.op == Op::float_remainder && (e[op.lhs] > 0 || e[op.rhs] > 0)) {
      e[out] += max_abs(b);
      c.may_change_class[out] = true;
      if (live[out]) c.gradient_rel = std::numeric_limits<double>::infinity();
    }
    if (!live[out]) continue;
    // Backward formulas that multiply by an operand: mul's partials are the other operand, div's
    // divisor partial is -a / b^2, matmul's are the other matrix. An operand known only to within
    // e carries e / max|x| of its size into those gradients: a few eps for a computed value, but
    // all of it for a cancelled sum's residue. F64 v12 / v9 with v12 = sum(mean_dim(v0) - v0) + 6
    // and v0 holding 3.4e38: the sum's terms of +-1.7e38 cancel to 0.0625 in NdArray's order and
    // to 0 in Flex's, so the gradients -v12 / v9^2 differ by 1 % (ops_differential_fuzzer in the
    // OSS-Fuzz build smoke; regress-gradient-numerator-is-a-cancelled-residue).
    if (op.op == Op::float_mul || is_bilinear(op.op)) {
      c.gradient_rel += uncertainty_in_size(a, e[op.lhs]) + uncertainty_in_size(b, e[op.rhs]);
    } else if (op.op == Op::float_div) {
      c.gradient_rel += uncertainty_in_size(a, e[op.lhs]);
    }
    // Backward formulas that divide by a value.
    if (op.op == Op::float_div) {
      c.gradient_rel += 2 * relative_uncertainty(b, e[op.rhs]);
    } else if (op.op == Op::float_log) {
      c.gradient_rel += relative_uncertainty(a, e[op.lhs]);
    } else if (op.op == Op::float_log1p) {
      c.gradient_rel += relative_uncertainty(a, e[op.lhs], 1.0);
    } else if (op.op == Op::float_recip) {
      c.gradient_rel += 2 * relative_uncertainty(a, e[op.lhs]);  // -1 / x^2
    } else if (op.op == Op::float_acos || op.op == Op::float_asin || op.op == Op::float_atanh) {
      // 1 / sqrt((1 - x)(1 + x)), 1 / ((1 - x)(1 + x)).
      c.gradient_rel += relative_uncertainty(a, e[op.lhs], 1.0) + relative_uncertainty(a, e[op.lhs], -1.0);
    } else if (op.op == Op::float_acosh) {
      c.gradient_rel += relative_uncertainty(a, e[op.lhs], -1.0) + relative_uncertainty(a, e[op.lhs], 1.0);
    } else if (op.op == Op::float_sqrt) {
      c.gradient_rel += relative_uncertainty(y, e[out]);
    } else if (op.op == Op::float_tan) {
      c.gradient_rel += 2 * relative_uncertainty(y, e[out]);  // 1 + y^2
    } else if (op.op == Op::float_powf_scalar && op.scalar < 1) {
      c.gradient_rel += std::fabs(op.scalar - 1) * relative_uncertainty(a, e[op.lhs]);
    }
    c.gradient_rel += partial_uncertainty(op.op, a, e[op.lhs]);
  }
  return c;
}

Bound graph_value_bound(const GraphSpec& g, const TensorData& reference, const Conditioning& c, std::size_t value) {
  Bound b = scaled_graph_bound(g, reference);
  const double e = value < c.value_error.size() ? c.value_error[value] : std::numeric_limits<double>::infinity();
  b.abs = e < std::numeric_limits<double>::infinity() ? b.abs + 2 * e : std::numeric_limits<double>::max();
  b.divisor_may_reach_zero = value >= c.may_change_class.size() || c.may_change_class[value];
  return b;
}

Bound graph_gradient_bound(const GraphSpec& g, const TensorData& reference_gradient, const Conditioning& c,
                           std::size_t leaf) {
  const double scale = bound_scale(reference_gradient);
  Bound b = graph_bound_at_scale(g, scale);
  b.singular_may_change_class = c.singular;
  // A value that may change class on some backend (a divisor within its error of 0) passes that
  // to the gradients through 1/b and a/b^2: (mean_dim(x) + sum(x)) / sum(mean_dim(x) - x), whose
  // divisor is 0 on NdArray and a rounding residue on Flex, gave the reference a NaN gradient and
  // Flex 0 (fuzz-smoke.ops_differential_fuzzer). Their classes then go uncompared, as the values'.
  if (std::find(c.may_change_class.begin(), c.may_change_class.end(), true) != c.may_change_class.end()) {
    b.divisor_may_reach_zero = true;
  }
  if (!(c.gradient_rel < 1)) {
    b.abs = std::numeric_limits<double>::max();  // a divisor known to no better than its own size
    b.divisor_may_reach_zero = true;
    return b;
  }
  b.rel += c.gradient_rel;
  b.abs += c.gradient_rel * scale;
  // The sums backward forms round at the size of their terms, not of their result: each run lies
  // within about eps times the leaf's backward_terms of the exact gradient (an estimate, as in
  // judge_points, which allows kFdEstimateFactor times that against finite differences), so two
  // runs differ by twice that, and the estimate gets the same factor. F64 atan2(x, x) - x at
  // x = 1e-30 (x on Flex, hopping to NdArray): partials of +-5e29 and -1 summed in two orders gave
  // 0 (the reference) and -1 (the true value) for a graph bound of 9e-10 (ops_differential_fuzzer,
  // regress-hops-atan2-tiny-partials-summed-in-another-order). In an ordinary graph the terms are the
  // size of the gradient and this adds a few eps of it, far below the graph bound.
  const double terms = leaf < c.backward_terms.size() ? c.backward_terms[leaf] : std::numeric_limits<double>::infinity();
  const double rounding = 2 * kFdEstimateFactor * epsilon_of(g.dtype) * terms;
  b.abs = std::isfinite(rounding) && std::isfinite(b.abs + rounding) ? b.abs + rounding : std::numeric_limits<double>::max();
  return b;
}

double graph_objective_f64(const GraphSpec& g, const std::vector<std::vector<double>>& leaves) {
  return objective_of_root(objective_run(NormalizedGraph(g), leaves).root()).sum;
}

namespace {

// FNV-1a over the spec's numbers; the backend index is left out, so the sample does not depend
// on where the graph runs.
struct Fnv {
  std::uint64_t h = 1469598103934665603ull;
  void add(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  }
};

// SplitMix64: a tiny generator whose output is fixed by its seed on every platform.
struct SplitMix {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

}  // namespace

std::uint64_t spec_hash(const GraphSpec& g) {
  Fnv f;
  f.add(static_cast<std::uint64_t>(g.dtype));
  f.add(g.leaf_shapes.size());
  for (std::size_t i = 0; i < g.leaf_shapes.size(); ++i) {
    f.add(g.leaf_shapes[i].size());
    for (std::size_t d : g.leaf_shapes[i]) f.add(d);
    const std::vector<double> none;
    const std::vector<double>& values = i < g.leaf_values.size() ? g.leaf_values[i] : none;
    f.add(values.size());
    for (double v : values) f.add(std::bit_cast<std::uint64_t>(v));
  }
  f.add(g.ops.size());
  for (const OpSpec& op : g.ops) {
    f.add(static_cast<std::uint64_t>(op.op));
    f.add(op.lhs);
    f.add(op.rhs);
    f.add(std::bit_cast<std::uint64_t>(op.scalar));
    f.add(op.dim);
    f.add(op.dim1);
  }
  return f.h;
}

std::size_t fd_work_per_evaluation(const GraphSpec& g) {
  const auto shapes = value_shapes(g);
  std::size_t work = 0;
  for (std::size_t i = 0; i < g.leaf_shapes.size(); ++i) work += element_count(shapes[i]);
  for (std::size_t k = 0; k < g.ops.size(); ++k) {
    const OpSpec& op = g.ops[k];
    work += element_count(shapes[g.leaf_shapes.size() + k]) * std::max<std::size_t>(1, reduction_length(op, shapes[op.lhs]));
  }
  return std::max<std::size_t>(work, 1);
}

std::size_t fd_points_for(const GraphSpec& g, const FdBudget& budget) {
  std::size_t used = 0;
  const std::vector<bool> live = used_leaves(g);
  for (std::size_t i = 0; i < live.size(); ++i) used += live[i] && element_count(g.leaf_shapes[i]) > 0 ? 1 : 0;
  const std::size_t affordable = budget.max_work / (4 * fd_work_per_evaluation(g));
  return std::max(used, std::min(budget.max_points, affordable));
}

FiniteDifferences finite_differences(const GraphSpec& g, const FdBudget& budget) {
  return finite_differences(NormalizedGraph(g), budget);
}

// Note [Rounding noise of the objective]
// A central difference (f(x+h) - f(x-h)) / 2h carries f's rounding error divided by h, so a point
// is judged only where that resolution is far below the slopes (judge_points). f's rounding is
// not only the root's: every computed value rounds at eps times its magnitude, and that error
// reaches f once per root element it feeds. Two graphs found by ops_differential_fuzzer (10-minute
// runs, 2026-12-01) passed the old estimate, eps * sum |root|, and failed with correct gradients:
//   - v4 = v1 - 4096, v8 = v0 + v4: the root is about v1 (-0.5) but v4 rounds at eps * 4096;
//     backward 1, finite differences 0.99999997 (an error of 9e-13 / 1e-5 in each difference);
//   - v8 = sum(sigmoid(exp(v0))) over 1296 elements, root = v8 - v0 broadcast back to 1296: v8's
//     rounding reaches f 1296 times; backward 216.62965240545958 (the exact value, computed
//     independently, is 216.62965240545964), finite differences 216.6304.
//   - v6 = log1p(tanh(v1)) at v1 = -7.125: tanh rounds at eps near -1, and log1p multiplies that
//     by 1 / (1 + tanh) = 7.7e5; backward 1.9999987047865466 (right), finite differences
//     1.9999983345326129 (a later 10-minute run);
//   - a root of 46,656 elements (sum_dim of a 279,936-element broadcast): summing it rounds 46,656
//     partial sums up to 2e5; backward 505.14985246026828 (exact 505.1498524602683), finite
//     differences 505.15054;
//   - v13 = v1 + (v0 + mean(v0)) over 1296 elements whose mean is nearly 0: the mean rounds at the
//     size of its terms, and that reaches all 1296 root elements; backward 2 (exact), finite
//     differences 2.0000067668964525 (a later 10-minute run; the estimate had used |mean|).
// So the magnitude behind the resolution weighs each computed value's sum |v| by its gain
// (rounding_gain: broadcasts and local derivatives) and reductions by the random walk of their
// partial sums (sqrt of the reduction length; the root's own sum by sqrt(sum S_k^2)), measured at
// x. It is an estimate, not a bound; kFdEstimateFactor and kFdConsistency leave room for that, and
// a wrong backward rule is still off by orders of magnitude more. Where it still falls short,
// the next step is measuring f's noise (two more evaluations at x +- h/16 per point).
// Note [Finite differences rerun what a step reaches]
// Each sampled point costs four evaluations of f, and a step moves one element of one leaf: the
// values that do not depend on that leaf, and those the root does not read (a decoded graph
// computes many), are the same as at x. rerun_root recomputes only the rest from the run at x;
// the kernels are deterministic, so f is the same bit for bit as a full run's and no verdict
// changes (Numeric.RerunRootEqualsAFullRun). In the GCC replay of the ops_differential seeds
// (callgrind) finite_differences went from 170 M to 89 M instructions, 32 % to 20 % of the whole
// (docs/FUZZ_THROUGHPUT.md, round 5).
FiniteDifferences finite_differences(const NormalizedGraph& ng, const FdBudget& budget) {
  return finite_differences(ng, run_graph(ng, reference_backend(), DType::F64, false), budget);
}

FiniteDifferences finite_differences(const NormalizedGraph& ng, const GraphRun& at_x, const FdBudget& budget) {
  const GraphSpec& g = ng;
  std::vector<std::vector<double>> x;
  for (std::size_t i = 0; i < g.leaf_shapes.size(); ++i) {
    x.push_back(effective_values(tensor_on(reference_backend(), PrimitiveKind::Float, g.leaf_shapes[i], DType::F64,
                                           g.leaf_values[i])));
  }
  // The sample: (leaf, index) pairs over the used leaves, flattened in leaf order.
  const std::vector<bool> used = used_leaves(g);
  std::vector<std::size_t> offset(x.size() + 1, 0);
  for (std::size_t i = 0; i < x.size(); ++i) offset[i + 1] = offset[i] + (used[i] ? x[i].size() : 0);
  const std::size_t total = offset.back();
  const std::size_t points = fd_points_for(g, budget);
  std::set<std::size_t> chosen;
  if (total <= points) {
    for (std::size_t k = 0; k < total; ++k) chosen.insert(k);
  } else {
    SplitMix rng{spec_hash(g)};
    for (std::size_t i = 0; i < x.size() && chosen.size() < points; ++i) {
      const std::size_t n = offset[i + 1] - offset[i];
      if (n > 0) chosen.insert(offset[i] + rng.below(n));
    }
    while (chosen.size() < points) chosen.insert(rng.below(total));
  }

  FiniteDifferences out;
  // The rounding noise is sized once, at x: the steps move one element by 1e-5 of itself. Each
  // step reruns only what the moved leaf reaches (Note [Finite differences rerun what a step reaches]).
  const NoisyObjective o0 = objective_with_noise(ng, at_x);
  out.evaluations = 1;
  std::vector<std::optional<RerunPlan>> plans(x.size());  // per leaf, built at its first point
  for (std::size_t k : chosen) {
    FdPoint p;
    p.leaf = static_cast<std::size_t>(std::upper_bound(offset.begin(), offset.end(), k) - offset.begin()) - 1;
    p.index = k - offset[p.leaf];
    if (!plans[p.leaf]) plans[p.leaf] = rerun_plan(ng, p.leaf);
    const RerunPlan& plan = *plans[p.leaf];
    std::vector<double>& moved = x[p.leaf];
    const double x0 = moved[p.index];
    double magnitude = o0.magnitude;
    auto at = [&](double h) {
      // x itself, moved and put back (a copy of every leaf per evaluation cost more than small runs).
      moved[p.index] = x0 + h;
      ++out.evaluations;
      const Objective o = objective_of_root(rerun_root(ng, at_x, reference_backend(), DType::F64, plan, moved));
      moved[p.index] = x0;
      magnitude = std::fmax(magnitude, o.magnitude);
      return o.sum;
    };
    const double h = budget.step * std::fmax(1.0, std::fabs(x0));
    const double f0 = o0.sum, fp = at(h), fm = at(-h), fp2 = at(h / 2), fm2 = at(-h / 2);
    p.d_h = (fp - fm) / (2 * h);
    p.d_half = (fp2 - fm2) / h;
    p.forward = (fp2 - f0) / (h / 2);
    p.backward = (f0 - fm2) / (h / 2);
    p.forward_h = (fp - f0) / h;
    p.backward_h = (f0 - fm) / h;
    // f rounds at the scale of its weighted magnitudes (Note [Rounding noise of the objective]); a
    // difference over h/2 cannot resolve slopes below that.
    p.resolution = 4 * std::numeric_limits<double>::epsilon() * magnitude / h;
    if (p.leaf < o0.backward_terms.size()) p.backward_rounding = std::numeric_limits<double>::epsilon() * o0.backward_terms[p.leaf];
    p.objective = f0;
    out.points.push_back(p);
  }
  return out;
}

std::vector<FdJudgement> judge_points(const FiniteDifferences& fd) {
  std::map<std::size_t, double> scale;  // per leaf: the largest |slope| sampled
  for (const FdPoint& p : fd.points) {
    if (std::isfinite(p.d_h) && std::isfinite(p.d_half)) scale[p.leaf] = std::fmax(scale[p.leaf], std::fabs(p.d_half));
  }
  std::vector<FdJudgement> out;
  for (const FdPoint& p : fd.points) {
    FdJudgement j;
    j.slope = p.richardson();
    const double s = scale[p.leaf];
    const double error_estimate = std::fabs(p.d_h - p.d_half) + p.resolution;
    if (!std::isfinite(p.d_h) || !std::isfinite(p.d_half) || !std::isfinite(p.resolution)) {
      j.why_not = "non-finite differences";
    } else if (!(error_estimate <= kFdConsistency * s)) {
      // The h and h/2 estimates disagree, or rounding of f hides slopes of this size: f is not
      // smooth here, or the objective is too large for the gradient to be seen.
      j.why_not = "differences at h and h/2 disagree or are below the resolution of f";
    } else if (std::fabs(p.forward - p.backward) > 1e-2 * std::fmax(s, std::fabs(p.d_half))) {
      // A kink inside [x0 - h/2, x0 + h/2] (relu near 0) fools both central estimates alike:
      // they average the two one-sided slopes. The one-sided slopes themselves then disagree.
      j.why_not = "one-sided slopes disagree (a kink within the step)";
    } else {
      j.tolerance = kFdRelative * std::fabs(j.slope) + kFdAbsolute * s + kFdEstimateFactor * error_estimate +
                    kFdEstimateFactor * p.backward_rounding + kFdFloor;
      // The test above scales with the leaf's largest slope s, so a kink small against s passes it
      // and still moves the central differences by half its size, which the tolerance need not
      // absorb: -x * ceil(x) at x = 0, one-sided slopes -1 and 0, central differences -0.5 at h
      // and h/2, backward 0, s = 100 from the leaf's other points (ops_differential_fuzzer). On a
      // smooth f the one-sided slopes close in as h halves (their gap is f'' h / 2, then f'' h / 4);
      // across a kink the gap stays. Such a point, with a gap beyond the tolerance, is not judged.
      const double gap_half = std::fabs(p.forward - p.backward), gap_h = std::fabs(p.forward_h - p.backward_h);
      if (gap_half > j.tolerance && gap_half > 0.75 * gap_h) {
        j.tolerance = 0;
        j.why_not = "one-sided slopes keep their gap as the step halves (a kink within the step)";
      } else {
        j.judged = true;
      }
    }
    out.push_back(j);
  }
  return out;
}

}  // namespace crossgrad::oracle
