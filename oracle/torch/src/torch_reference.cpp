#include <crossgrad/oracle/torch_reference.hpp>

#include <crossgrad/oracle/spec.hpp>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/autograd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>

namespace crossgrad::oracle {
namespace {

at::ScalarType scalar_type(DType dtype) {
  switch (dtype) {
    case DType::F64: return at::kDouble;
    case DType::F32: return at::kFloat;
    case DType::F16: return at::kHalf;
    case DType::BF16: return at::kBFloat16;
    case DType::I64: return at::kLong;
    case DType::I32: return at::kInt;
    case DType::I8: return at::kChar;
    case DType::U8: return at::kByte;
    case DType::Bool: return at::kBool;
    case DType::QInt8: break;
  }
  throw std::invalid_argument("torch_reference: no ATen dtype for QInt8 host arrays");
}

std::vector<std::int64_t> sizes(const std::vector<std::size_t>& shape) {
  return std::vector<std::int64_t>(shape.begin(), shape.end());
}

at::Tensor to_aten(const HostArray& h) {
  if (h.exact.size() == h.values.size() && !h.exact.empty()) {  // I64 values beyond 2^53
    std::vector<std::int64_t> values = h.exact;
    return at::from_blob(values.data(), sizes(h.shape), at::kLong).clone().to(scalar_type(h.dtype));
  }
  std::vector<double> values = h.values;  // from_blob does not own; clone() below copies
  return at::from_blob(values.data(), sizes(h.shape), at::kDouble).clone().to(scalar_type(h.dtype));
}

HostArray from_aten(const at::Tensor& t, DType dtype) {
  if (dtype == DType::I64 || dtype == DType::I32 || dtype == DType::I8 || dtype == DType::U8) {
    const at::Tensor l = t.detach().contiguous().to(at::kLong);
    std::vector<std::size_t> shape;
    for (std::int64_t s : l.sizes()) shape.push_back(static_cast<std::size_t>(s));
    const std::int64_t* p = l.data_ptr<std::int64_t>();
    return int_array(std::move(shape), dtype, std::vector<std::int64_t>(p, p + l.numel()));
  }
  const at::Tensor d = t.detach().contiguous().to(at::kDouble);
  HostArray h;
  h.dtype = dtype;
  for (std::int64_t s : d.sizes()) h.shape.push_back(static_cast<std::size_t>(s));
  const double* p = d.data_ptr<double>();
  h.values.assign(p, p + d.numel());
  return h;
}

DType dtype_of_result(OpId op, const std::vector<HostArray>& operands, const OpArgs& args) {
  const OpInfo& info = op_info(op);
  if (info.sig == OpSig::ToDType) return args.dtype;  // float_into_int's int target too
  if (op == OpId::int_argmax || op == OpId::int_argmin || op == OpId::int_argsort || op == OpId::int_argtopk) return DType::I64;
  if (info.result == OpKind::Int && info.operand == OpKind::Int) return operands.empty() ? DType::I64 : operands[0].dtype;
  if (info.result == OpKind::Int) return DType::I64;
  if (info.result == OpKind::Bool) return DType::Bool;
  return operands.empty() ? DType::F32 : operands[0].dtype;
}

// float_scatter's update in ATen: scatter (Assign), scatter_add, scatter_reduce with the receiver
// included (prod, amin, amax).
at::Tensor scatter_with(const at::Tensor& x, std::int64_t dim, const at::Tensor& index, const at::Tensor& values,
                        IndexingUpdateOp update) {
  switch (update) {
    case IndexingUpdateOp::Assign: return at::scatter(x, dim, index, values);
    case IndexingUpdateOp::Add: return at::scatter_add(x, dim, index, values);
    case IndexingUpdateOp::Mul: return at::scatter_reduce(x, dim, index, values, "prod");
    case IndexingUpdateOp::Min: return at::scatter_reduce(x, dim, index, values, "amin");
    case IndexingUpdateOp::Max: return at::scatter_reduce(x, dim, index, values, "amax");
  }
  throw std::logic_error("unknown indexing update");
}

// gather_nd as PyTorch's advanced indexing: one index tensor per coordinate (x[i0, i1, ...]).
// k = 0 names the whole tensor once per index row.
at::Tensor gather_nd(const at::Tensor& x, const at::Tensor& indices) {
  const std::int64_t k = indices.size(-1);
  const at::Tensor idx = indices.to(at::kLong);
  if (k == 0) {
    std::vector<std::int64_t> ones(static_cast<std::size_t>(indices.dim() - 1), 1), out(ones);
    for (std::int64_t d = 0; d + 1 < indices.dim(); ++d) out[static_cast<std::size_t>(d)] = indices.size(d);
    for (std::int64_t s : x.sizes()) {
      ones.push_back(s);
      out.push_back(s);
    }
    return x.reshape(ones).expand(out).clone();
  }
  c10::List<c10::optional<at::Tensor>> coordinates;
  for (std::int64_t c = 0; c < k; ++c) coordinates.push_back(idx.select(-1, c));
  return at::index(x, coordinates);
}

// scatter_nd: x as [rows, row] (rows: its first k dims), each index row's linear row number
// computed with ATen's arithmetic, then scatter_with along dim 0 of the rows.
at::Tensor scatter_nd(const at::Tensor& x, const at::Tensor& indices, const at::Tensor& values, IndexingUpdateOp update) {
  const std::int64_t k = indices.size(-1);
  std::int64_t blocks = 1;
  for (std::int64_t d = 0; d + 1 < indices.dim(); ++d) blocks *= indices.size(d);
  const at::Tensor idx = indices.to(at::kLong).reshape({blocks, k});
  std::int64_t rows = 1, row = 1;
  for (std::int64_t d = 0; d < x.dim(); ++d) (d < k ? rows : row) *= x.size(d);
  at::Tensor linear = at::zeros({idx.size(0)}, at::kLong);
  for (std::int64_t c = 0; c < k; ++c) linear = linear * x.size(c) + idx.select(1, c);
  const at::Tensor flat = x.reshape({rows, row});
  const at::Tensor at_rows = linear.unsqueeze(1).expand({idx.size(0), row});
  return scatter_with(flat, 0, at_rows, values.reshape({idx.size(0), row}), update).reshape(x.sizes());
}

// An int op's scalar as Burn's integer: truncated toward zero and saturated to int64, NaN 0.
at::Scalar integer_scalar(double s) {
  if (std::isnan(s)) return at::Scalar(std::int64_t{0});
  if (s >= 9223372036854775807.0) return at::Scalar(std::numeric_limits<std::int64_t>::max());
  if (s <= -9223372036854775808.0) return at::Scalar(std::numeric_limits<std::int64_t>::min());
  return at::Scalar(static_cast<std::int64_t>(std::trunc(s)));
}
// The integer scalar as a 0-dim tensor of x's dtype, converted by ATen's .to() (C++'s conversion,
// which wraps): full_like would refuse a value beyond the dtype, which the add, sub and mul
// scalar kernels take and wrap.
at::Tensor scalar_in_dtype(const at::Tensor& x, double s) {
  return at::scalar_tensor(integer_scalar(s), at::kLong).to(x.scalar_type());
}
// A clamp bound of x's int dtype: toward zero, saturated at the dtype's ends, NaN 0.
at::Scalar bound_in_dtype(const at::Tensor& x, double b) {
  const auto [lo, hi] = [&]() -> std::pair<std::int64_t, std::int64_t> {
    const at::ScalarType t = x.scalar_type();  // an if-chain: -Wswitch-enum over ATen's every type
    if (t == at::kInt) return {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
    if (t == at::kChar) return {-128, 127};
    if (t == at::kByte) return {0, 255};
    return {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
  }();
  const std::int64_t v = integer_scalar(b).toLong();
  return at::Scalar(std::clamp(v, lo, hi));
}
// b with 1 where x is its dtype's lowest value and b is -1 (broadcast to x), the one quotient the
// CPU's divide instruction traps on.
at::Tensor without_trapping_divisor(const at::Tensor& x, const at::Tensor& b) {
  if (x.scalar_type() == at::kByte) return b;
  const std::vector<at::Tensor> xb = at::broadcast_tensors({x, b});
  const at::Tensor lowest = at::full_like(xb[0], at::Scalar(x.scalar_type() == at::kLong ? std::numeric_limits<std::int64_t>::min()
                                                            : x.scalar_type() == at::kInt ? std::int64_t{std::numeric_limits<std::int32_t>::min()}
                                                                                          : std::int64_t{-128}));
  return at::where(xb[0].eq(lowest).logical_and(xb[1].eq(-1)), at::ones_like(xb[1]), xb[1]);
}

// The op in ATen. `t`: the operands as ATen tensors (index tensors as given).
at::Tensor aten_op(OpId op, const std::vector<at::Tensor>& t, const OpArgs& a) {
  const auto d = static_cast<std::int64_t>(a.dim);
  switch (op) {
    case OpId::float_add: return at::add(t[0], t[1]);
    case OpId::float_sub: return at::sub(t[0], t[1]);
    case OpId::float_mul: return at::mul(t[0], t[1]);
    case OpId::float_div: return at::div(t[0], t[1]);
    case OpId::float_matmul: return at::matmul(t[0], t[1]);
    case OpId::float_neg: return at::neg(t[0]);
    case OpId::float_exp: return at::exp(t[0]);
    case OpId::float_log: return at::log(t[0]);
    case OpId::float_sqrt: return at::sqrt(t[0]);
    case OpId::float_tanh: return at::tanh(t[0]);
    case OpId::relu: return at::relu(t[0]);
    case OpId::sigmoid: return at::sigmoid(t[0]);
    case OpId::float_powf_scalar: return at::pow(t[0], a.scalar);
    case OpId::float_add_scalar: return at::add(t[0], a.scalar);
    case OpId::float_mul_scalar: return at::mul(t[0], a.scalar);
    case OpId::float_sum: return at::sum(t[0]).reshape({1});
    case OpId::float_mean: return at::mean(t[0]).reshape({1});
    case OpId::float_sum_dim: return at::sum(t[0], {d}, /*keepdim=*/true);
    case OpId::float_mean_dim: return at::mean(t[0], {d}, /*keepdim=*/true);
    case OpId::int_reshape:
    case OpId::bool_reshape:
    case OpId::float_reshape: return at::reshape(t[0], sizes(a.shape));
    case OpId::int_swap_dims:
    case OpId::bool_swap_dims:
    case OpId::float_swap_dims: return at::transpose(t[0], d, static_cast<std::int64_t>(a.dim1));
    case OpId::float_cast: return t[0].to(scalar_type(a.dtype));
    case OpId::float_greater_scalar: return at::gt(t[0], a.scalar);
    case OpId::bool_into_float: return t[0].to(scalar_type(a.dtype));
    case OpId::int_into_float: return t[0].to(scalar_type(a.dtype));
    case OpId::float_into_int: return t[0].to(scalar_type(a.dtype));
    // The int ops. A scalar argument is an integer in Burn's and crossgrad's API: it reaches ATen
    // truncated and saturated to int64 (the double alone would promote the result to float), and
    // ATen converts it to the tensor's dtype (a divisor as a 0-dim tensor: scalar_in_dtype). ATen's CPU division by -1 of the dtype's lowest
    // value raises SIGFPE (I64, I32): that divisor is given to ATen as 1, whose quotient is the
    // same lowest value and remainder 0, which are crossgrad's (wrapping) answers too.
    case OpId::int_add: return at::add(t[0], t[1]);
    case OpId::int_sub: return at::sub(t[0], t[1]);
    case OpId::int_mul: return at::mul(t[0], t[1]);
    case OpId::int_div: return at::div(t[0], without_trapping_divisor(t[0], t[1]), "trunc");
    case OpId::int_remainder: return at::remainder(t[0], without_trapping_divisor(t[0], t[1]));
    case OpId::int_neg: return at::neg(t[0]);
    case OpId::int_abs: return at::abs(t[0]);
    case OpId::int_sign: return at::sign(t[0]);
    case OpId::int_add_scalar: return at::add(t[0], integer_scalar(a.scalar));
    case OpId::int_sub_scalar: return at::sub(t[0], integer_scalar(a.scalar));
    case OpId::int_mul_scalar: return at::mul(t[0], integer_scalar(a.scalar));
    case OpId::int_div_scalar: return at::div(t[0], without_trapping_divisor(t[0], scalar_in_dtype(t[0], a.scalar)), "trunc");
    case OpId::int_remainder_scalar: return at::remainder(t[0], without_trapping_divisor(t[0], scalar_in_dtype(t[0], a.scalar)));
    case OpId::bool_not: return at::logical_not(t[0]);
    case OpId::bool_and: return at::logical_and(t[0], t[1]);
    case OpId::bool_or: return at::logical_or(t[0], t[1]);
    case OpId::bool_xor: return at::logical_xor(t[0], t[1]);
    case OpId::bool_equal: return at::eq(t[0], t[1]);
    case OpId::bool_not_equal: return at::ne(t[0], t[1]);
    case OpId::int_equal: return at::eq(t[0], t[1]);
    case OpId::int_not_equal: return at::ne(t[0], t[1]);
    case OpId::int_greater: return at::gt(t[0], t[1]);
    case OpId::int_greater_equal: return at::ge(t[0], t[1]);
    case OpId::int_lower: return at::lt(t[0], t[1]);
    case OpId::int_lower_equal: return at::le(t[0], t[1]);
    case OpId::int_equal_elem: return at::eq(t[0], scalar_in_dtype(t[0], a.scalar));
    case OpId::int_not_equal_elem: return at::ne(t[0], scalar_in_dtype(t[0], a.scalar));
    case OpId::int_greater_elem: return at::gt(t[0], scalar_in_dtype(t[0], a.scalar));
    case OpId::int_greater_equal_elem: return at::ge(t[0], scalar_in_dtype(t[0], a.scalar));
    case OpId::int_lower_elem: return at::lt(t[0], scalar_in_dtype(t[0], a.scalar));
    case OpId::int_lower_equal_elem: return at::le(t[0], scalar_in_dtype(t[0], a.scalar));
    case OpId::bitwise_and: return at::bitwise_and(t[0], t[1]);
    case OpId::bitwise_or: return at::bitwise_or(t[0], t[1]);
    case OpId::bitwise_xor: return at::bitwise_xor(t[0], t[1]);
    case OpId::bitwise_not: return at::bitwise_not(t[0]);
    case OpId::bitwise_left_shift: return at::bitwise_left_shift(t[0], t[1]);
    case OpId::bitwise_right_shift: return at::bitwise_right_shift(t[0], t[1]);
    case OpId::bitwise_and_scalar: return at::bitwise_and(t[0], scalar_in_dtype(t[0], a.scalar));
    case OpId::bitwise_or_scalar: return at::bitwise_or(t[0], scalar_in_dtype(t[0], a.scalar));
    case OpId::bitwise_xor_scalar: return at::bitwise_xor(t[0], scalar_in_dtype(t[0], a.scalar));
    case OpId::bitwise_left_shift_scalar: return at::bitwise_left_shift(t[0], scalar_in_dtype(t[0], a.scalar));
    case OpId::bitwise_right_shift_scalar: return at::bitwise_right_shift(t[0], scalar_in_dtype(t[0], a.scalar));
    case OpId::int_cast:
    case OpId::bool_into_int: return t[0].to(scalar_type(a.dtype));
    // The int reductions in the receiver's dtype (ATen accumulates ints in int64; the result wraps
    // into the dtype as crossgrad's does). PyTorch has no integer mean: at::mean refuses an int
    // tensor (int-mean-truncates).
    // A clamp bound is saturated into the dtype first (Burn's `as`; ATen would refuse a bound
    // beyond it): as an integer of int64's range, then clamped to the dtype's ends here.
    case OpId::int_clamp: return at::clamp(t[0], bound_in_dtype(t[0], a.min), bound_in_dtype(t[0], a.max));
    case OpId::int_clamp_min: return at::clamp_min(t[0], bound_in_dtype(t[0], a.scalar));
    case OpId::int_clamp_max: return at::clamp_max(t[0], bound_in_dtype(t[0], a.scalar));
    case OpId::int_square: return at::square(t[0]);
    case OpId::int_sum: return at::sum(t[0], t[0].scalar_type()).reshape({1});
    case OpId::int_sum_dim: return at::sum(t[0], {d}, true, t[0].scalar_type());
    case OpId::int_prod: return at::prod(t[0], t[0].scalar_type()).reshape({1});
    case OpId::int_prod_dim: return at::prod(t[0], d, true, t[0].scalar_type());
    case OpId::int_mean: return at::mean(t[0]).reshape({1});
    case OpId::int_mean_dim: return at::mean(t[0], {d}, true);
    case OpId::int_max: return at::max(t[0]).reshape({1});
    case OpId::int_min: return at::min(t[0]).reshape({1});
    case OpId::int_max_dim: return at::amax(t[0], {d}, true);
    case OpId::int_min_dim: return at::amin(t[0], {d}, true);
    case OpId::int_argmax: return at::argmax(t[0], d, true);
    case OpId::int_argmin: return at::argmin(t[0], d, true);
    case OpId::int_any:
    case OpId::bool_any: return at::any(t[0]).reshape({1});
    case OpId::int_all:
    case OpId::bool_all: return at::all(t[0]).reshape({1});
    case OpId::int_any_dim:
    case OpId::bool_any_dim: return at::any(t[0], d, true);
    case OpId::int_all_dim:
    case OpId::bool_all_dim: return at::all(t[0], d, true);
    case OpId::int_max_abs: return at::abs(t[0]).max().reshape({1});
    case OpId::int_max_abs_dim: return at::amax(at::abs(t[0]), {d}, true);
    // Scans in the receiver's dtype (ATen would promote ints to int64): wrapping sums and products.
    case OpId::int_cumsum: return at::cumsum(t[0], d, t[0].scalar_type());
    case OpId::int_cumprod: return at::cumprod(t[0], d, t[0].scalar_type());
    case OpId::int_cummin: return std::get<0>(at::cummin(t[0], d));
    case OpId::int_cummax: return std::get<0>(at::cummax(t[0], d));
    case OpId::int_matmul: return at::matmul(t[0], t[1]);
    // ATen's integer pow wraps and truncates negative powers (0 for |x| > 1 and for 0); a negative
    // scalar exponent of an int tensor is refused there, so the exponent is a tensor of the dtype.
    case OpId::int_powi: return at::pow(t[0], t[1]);
    case OpId::int_powi_scalar: return at::pow(t[0], scalar_in_dtype(t[0], a.scalar).expand(t[0].sizes()).contiguous());
    case OpId::float_abs: return at::abs(t[0]);
    case OpId::float_clamp: return at::clamp(t[0], a.min, a.max);
    // amax, not max(dim): its gradient is split among equal maxima, as crossgrad's rule says.
    case OpId::float_max_dim: return at::amax(t[0], {d}, /*keepdim=*/true);
    case OpId::float_argmax: return at::argmax(t[0], d, /*keepdim=*/true);
    case OpId::float_min_dim: return at::amin(t[0], {d}, /*keepdim=*/true);
    case OpId::float_argmin: return at::argmin(t[0], d, /*keepdim=*/true);
    case OpId::float_greater: return at::gt(t[0], t[1]);
    case OpId::float_lower: return at::lt(t[0], t[1]);
    case OpId::float_equal: return at::eq(t[0], t[1]);
    case OpId::int_cat:
    case OpId::bool_cat:
    case OpId::float_cat: return at::cat(t, d);
    case OpId::int_slice:
    case OpId::bool_slice:
    case OpId::float_slice: {
      at::Tensor out = t[0];
      for (std::size_t i = 0; i < a.ranges.size(); ++i) {
        out = out.slice(static_cast<std::int64_t>(i), static_cast<std::int64_t>(a.ranges[i].start),
                        static_cast<std::int64_t>(a.ranges[i].end));
      }
      return out;
    }
    // A clone whose block takes values through a view: autograd gives x's gradient with the block
    // zeroed and the block's gradient to values.
    case OpId::int_slice_assign:
    case OpId::bool_slice_assign:
    case OpId::float_slice_assign: {
      at::Tensor out = t[0].clone();
      at::Tensor block = out;
      for (std::size_t i = 0; i < a.ranges.size(); ++i) {
        block = block.slice(static_cast<std::int64_t>(i), static_cast<std::int64_t>(a.ranges[i].start),
                            static_cast<std::int64_t>(a.ranges[i].end));
      }
      block.copy_(t[1]);
      return out;
    }
    case OpId::int_select:
    case OpId::bool_select:
    case OpId::float_select: return at::index_select(t[0], d, t[1]);
    // crossgrad's select_assign adds each selected slice in index order: ATen's index_add.
    case OpId::float_select_assign:
    case OpId::float_select_add:
    case OpId::int_select_assign:
    case OpId::int_select_add: return at::index_add(t[0], d, t[1], t[2]);
    // Bool or: the count of trues in I64, then nonzero (a U8 count could wrap to 0).
    case OpId::bool_select_or: return at::index_add(t[0].to(at::kLong), d, t[1], t[2].to(at::kLong)).ne(0);
    case OpId::bool_scatter_or: return at::scatter_add(t[0].to(at::kLong), d, t[1].to(at::kLong), t[2].to(at::kLong)).ne(0);
    // mask_fill's scalar converted as an int op's (wrapping into the dtype); a Bool fill is true
    // when nonzero.
    case OpId::int_mask_fill: return at::where(t[1].to(at::kBool), scalar_in_dtype(t[0], a.scalar), t[0]);
    case OpId::bool_mask_fill: return at::where(t[1].to(at::kBool), at::scalar_tensor(a.scalar != 0, at::kBool), t[0]);
    // The coordinates of every true element, row-major: ATen's nonzero.
    case OpId::bool_argwhere: return at::nonzero(t[0]);
    // Burn's composition (PyTorch's hardsigmoid fixes alpha = 1/6, beta = 1/2 and has a strict
    // gradient at the kinks); clamp's gradient includes its bounds, as crossgrad's rule.
    case OpId::hard_sigmoid: return at::clamp(at::add(at::mul(t[0], a.alpha), a.beta), 0.0, 1.0);
    case OpId::int_repeat_dim:
    case OpId::bool_repeat_dim:
    case OpId::float_repeat_dim: {
      std::vector<std::int64_t> reps(static_cast<std::size_t>(t[0].dim()), 1);
      reps[a.dim] = static_cast<std::int64_t>(a.times);
      return t[0].repeat(reps);
    }
    case OpId::int_unfold:
    case OpId::bool_unfold:
    case OpId::float_unfold: {
      // ATen refuses a window longer than the dim; crossgrad (Burn) has no window there.
      if (static_cast<std::int64_t>(a.size) > t[0].size(d)) {
        std::vector<std::int64_t> shape(t[0].sizes().begin(), t[0].sizes().end());
        shape[a.dim] = 0;
        shape.push_back(static_cast<std::int64_t>(a.size));
        return t[0].narrow(d, 0, 0).unsqueeze(-1).expand(shape);
      }
      return t[0].unfold(d, static_cast<std::int64_t>(a.size), static_cast<std::int64_t>(a.step));
    }
    // crossgrad's formula in ATen's ops (at::linalg_cross may fuse a product into the difference):
    // a[1, 2, 0] * b[2, 0, 1] - a[2, 0, 1] * b[1, 2, 0] along dim.
    case OpId::float_cross: {
      const at::Tensor next = at::tensor(std::vector<std::int64_t>{1, 2, 0}, at::kLong);
      const at::Tensor after = at::tensor(std::vector<std::int64_t>{2, 0, 1}, at::kLong);
      return at::sub(at::mul(at::index_select(t[0], d, next), at::index_select(t[1], d, after)),
                     at::mul(at::index_select(t[0], d, after), at::index_select(t[1], d, next)));
    }
    // PyTorch's stable sort documents crossgrad's order (NaN largest, ties in index order). Its
    // topk does not say which of equal elements it keeps or in which order, so the top k are the
    // stable descending sort's first k, as Burn defines them.
    case OpId::int_argsort:
    case OpId::float_argsort: return std::get<1>(at::sort(t[0], /*stable=*/true, d, a.descending));
    case OpId::int_sort:
    case OpId::float_sort: return std::get<0>(at::sort(t[0], /*stable=*/true, d, a.descending));
    case OpId::int_argtopk:
    case OpId::float_argtopk:
      return std::get<1>(at::sort(t[0], /*stable=*/true, d, /*descending=*/true)).narrow(d, 0, static_cast<std::int64_t>(a.k));
    case OpId::int_topk:
    case OpId::float_topk:
      return std::get<0>(at::sort(t[0], /*stable=*/true, d, /*descending=*/true)).narrow(d, 0, static_cast<std::int64_t>(a.k));
    case OpId::int_mask_where:
    case OpId::bool_mask_where:
    case OpId::float_mask_where: return at::where(t[1].to(at::kBool), t[2], t[0]);
    case OpId::float_mask_fill: return at::where(t[1].to(at::kBool), at::scalar_tensor(a.scalar, t[0].options()), t[0]);
    case OpId::int_gather:
    case OpId::bool_gather:
    case OpId::float_gather: return at::gather(t[0], d, t[1].to(at::kLong));
    case OpId::int_scatter_add:
    case OpId::float_scatter_add: return at::scatter_add(t[0], d, t[1].to(at::kLong), t[2]);
    case OpId::int_scatter:
    case OpId::float_scatter: return scatter_with(t[0], d, t[1].to(at::kLong), t[2], a.update);
    case OpId::int_gather_nd:
    case OpId::bool_gather_nd:
    case OpId::float_gather_nd: return gather_nd(t[0], t[1]);
    case OpId::int_scatter_nd:
    case OpId::float_scatter_nd: return scatter_nd(t[0], t[1], t[2], a.update);
    // On a contiguous copy: libtorch 1.13's masked_select backward (masked_scatter_ into
    // zeros_like(x)) fills a non-contiguous x in memory order, so the gradient of a transposed-back
    // view comes out transposed (found by this check; the values agree either way).
    case OpId::int_mask_select:
    case OpId::bool_mask_select:
    case OpId::float_mask_select: return at::masked_select(t[0].contiguous(), t[1].to(at::kBool));
    // PyTorch's running extreme takes x on a tie or a NaN, as crossgrad's; its gradient goes to the
    // index it reports, as crossgrad's.
    case OpId::float_cummin: return std::get<0>(at::cummin(t[0], d));
    case OpId::float_cummax: return std::get<0>(at::cummax(t[0], d));
    case OpId::int_permute:
    case OpId::bool_permute:
    case OpId::float_permute: return at::permute(t[0], sizes(a.axes));
    case OpId::int_expand:
    case OpId::bool_expand:
    case OpId::float_expand: return t[0].expand(sizes(a.shape));
    case OpId::float_cumsum: return at::cumsum(t[0], d);
    case OpId::float_cumprod: return at::cumprod(t[0], d);
    case OpId::int_flip:
    case OpId::bool_flip:
    case OpId::float_flip: return at::flip(t[0], sizes(a.axes));
    case OpId::int_transpose:
    case OpId::bool_transpose:
    case OpId::float_transpose: return t[0].dim() < 2 ? t[0].clone() : at::transpose(t[0], -2, -1);
    case OpId::softmin: return at::softmax(at::neg(t[0]), d);
    case OpId::float_hypot: return at::hypot(t[0], t[1]);
    // crossgrad's prelu broadcasts a as NumPy does (at::prelu would broadcast it along dim 1). The
    // inner where keeps a's +-inf and NaN out of the branch not taken: autograd of a plain where
    // multiplies that branch's partials by 0, and 0 * inf is NaN.
    case OpId::prelu: {
      const at::Tensor above = at::gt(t[0], 0);
      return at::where(above, t[0], at::mul(t[0], at::where(above, at::zeros_like(t[1]), t[1])));
    }
    case OpId::softmax: return at::softmax(t[0], d);
    case OpId::log_softmax: return at::log_softmax(t[0], d);
    case OpId::float_log1p: return at::log1p(t[0]);
    case OpId::float_cos: return at::cos(t[0]);
    case OpId::float_sin: return at::sin(t[0]);
    case OpId::float_tan: return at::tan(t[0]);
    case OpId::float_cosh: return at::cosh(t[0]);
    case OpId::float_sinh: return at::sinh(t[0]);
    case OpId::float_acos: return at::acos(t[0]);
    case OpId::float_acosh: return at::acosh(t[0]);
    case OpId::float_asin: return at::asin(t[0]);
    case OpId::float_asinh: return at::asinh(t[0]);
    case OpId::float_atan: return at::atan(t[0]);
    case OpId::float_atanh: return at::atanh(t[0]);
    case OpId::float_erf: return at::erf(t[0]);
    case OpId::float_recip: return at::reciprocal(t[0]);
    case OpId::float_round: return at::round(t[0]);
    case OpId::float_floor: return at::floor(t[0]);
    case OpId::float_ceil: return at::ceil(t[0]);
    case OpId::float_trunc: return at::trunc(t[0]);
    case OpId::float_sign: return at::sign(t[0]);
    case OpId::float_greater_equal: return at::ge(t[0], t[1]);
    case OpId::float_lower_equal: return at::le(t[0], t[1]);
    case OpId::float_not_equal: return at::ne(t[0], t[1]);
    case OpId::float_greater_equal_elem: return at::ge(t[0], a.scalar);
    case OpId::float_lower_elem: return at::lt(t[0], a.scalar);
    case OpId::float_lower_equal_elem: return at::le(t[0], a.scalar);
    case OpId::float_equal_elem: return at::eq(t[0], a.scalar);
    case OpId::float_not_equal_elem: return at::ne(t[0], a.scalar);
    case OpId::float_is_nan: return at::isnan(t[0]);
    case OpId::float_is_inf: return at::isinf(t[0]);
    case OpId::float_sub_scalar: return at::sub(t[0], a.scalar);
    case OpId::float_div_scalar: return at::div(t[0], a.scalar);
    case OpId::float_clamp_min: return at::clamp_min(t[0], a.scalar);
    case OpId::float_clamp_max: return at::clamp_max(t[0], a.scalar);
    case OpId::log_sigmoid: return at::log_sigmoid(t[0]);
    case OpId::gelu: return at::gelu(t[0]);  // approximate = "none": the erf form
    case OpId::leaky_relu: return at::leaky_relu(t[0], a.scalar);
    case OpId::float_remainder_scalar: return at::remainder(t[0], a.scalar);
    case OpId::float_remainder: return at::remainder(t[0], t[1]);
    case OpId::float_powf: return at::pow(t[0], t[1]);
    case OpId::float_atan2: return at::atan2(t[0], t[1]);
    case OpId::float_prod: return at::prod(t[0]).reshape({1});
    case OpId::float_prod_dim: return at::prod(t[0], d, /*keepdim=*/true);
    // amax / amin over every dim: the gradient split among equal extremes, as crossgrad's rule.
    case OpId::float_max: return at::amax(t[0]).reshape({1});
    case OpId::float_min: return at::amin(t[0]).reshape({1});
    case OpId::float_max_abs: return at::amax(at::abs(t[0])).reshape({1});
    case OpId::float_max_abs_dim: return at::amax(at::abs(t[0]), {d}, /*keepdim=*/true);
    case OpId::float_any: return at::any(t[0]).reshape({1});
    case OpId::float_any_dim: return at::any(t[0], d, /*keepdim=*/true);
    case OpId::float_all: return at::all(t[0]).reshape({1});
    case OpId::float_all_dim: return at::all(t[0], d, /*keepdim=*/true);
    case OpId::avg_pool2d:
    case OpId::avg_pool2d_backward: {
      const AvgPool2dOptions& o = a.avg_pool2d;
      const auto ints = [](const Size2& v) { return std::vector<std::int64_t>{std::int64_t(v[0]), std::int64_t(v[1])}; };
      if (op == OpId::avg_pool2d) {
        return at::avg_pool2d(t[0], ints(o.kernel_size), ints(o.stride), ints(o.padding), o.ceil_mode, o.count_include_pad);
      }
      return at::avg_pool2d_backward(t[1], t[0], ints(o.kernel_size), ints(o.stride), ints(o.padding), o.ceil_mode,
                                     o.count_include_pad, c10::nullopt);
    }
    case OpId::adaptive_avg_pool2d:
      return at::adaptive_avg_pool2d(t[0], {std::int64_t(a.output_size[0]), std::int64_t(a.output_size[1])});
    case OpId::adaptive_avg_pool2d_backward: return at::_adaptive_avg_pool2d_backward(t[1], t[0]);
    case OpId::adaptive_avg_pool3d: {
      const Size3& o = a.output_size_3d;
      return at::adaptive_avg_pool3d(t[0], {std::int64_t(o[0]), std::int64_t(o[1]), std::int64_t(o[2])});
    }
    case OpId::adaptive_avg_pool3d_backward: return at::_adaptive_avg_pool3d_backward(t[1], t[0]);
    case OpId::max_pool2d:
    case OpId::max_pool2d_indices:
    case OpId::max_pool2d_with_indices_backward: {
      const MaxPool2dOptions& o = a.max_pool2d;
      const auto ints = [](const Size2& v) { return std::vector<std::int64_t>{std::int64_t(v[0]), std::int64_t(v[1])}; };
      if (op == OpId::max_pool2d_with_indices_backward) {  // {x, indices, grad}
        return at::max_pool2d_with_indices_backward(t[2], t[0], ints(o.kernel_size), ints(o.stride), ints(o.padding),
                                                    ints(o.dilation), o.ceil_mode, t[1].to(at::kLong));
      }
      auto [values, positions] = at::max_pool2d_with_indices(t[0], ints(o.kernel_size), ints(o.stride), ints(o.padding),
                                                             ints(o.dilation), o.ceil_mode);
      return op == OpId::max_pool2d ? values : positions;
    }
    // The 1-D poolings: ATen's own 1-D entry points forward; backward, the 2-D passes over the
    // single-row view that ATen's 1-D poolings differentiate through (they are the 2-D ones on
    // x.unsqueeze(-2)).
    case OpId::avg_pool1d:
    case OpId::avg_pool1d_backward: {
      const AvgPool1dOptions& o = a.avg_pool1d;
      const std::int64_t k = std::int64_t(o.kernel_size[0]), s = std::int64_t(o.stride[0]), p = std::int64_t(o.padding[0]);
      if (op == OpId::avg_pool1d) return at::avg_pool1d(t[0], {k}, {s}, {p}, o.ceil_mode, o.count_include_pad);
      return at::avg_pool2d_backward(t[1].unsqueeze(2), t[0].unsqueeze(2), {1, k}, {1, s}, {0, p}, o.ceil_mode, o.count_include_pad,
                                     c10::nullopt)
          .squeeze(2);
    }
    case OpId::adaptive_avg_pool1d: return at::adaptive_avg_pool1d(t[0], {std::int64_t(a.output_size_1d[0])});
    case OpId::adaptive_avg_pool1d_backward:
      return at::_adaptive_avg_pool2d_backward(t[1].unsqueeze(2), t[0].unsqueeze(2)).squeeze(2);
    case OpId::max_pool1d:
    case OpId::max_pool1d_indices:
    case OpId::max_pool1d_with_indices_backward: {
      const MaxPool1dOptions& o = a.max_pool1d;
      const std::int64_t k = std::int64_t(o.kernel_size[0]), s = std::int64_t(o.stride[0]), p = std::int64_t(o.padding[0]),
                         d = std::int64_t(o.dilation[0]);
      if (op == OpId::max_pool1d_with_indices_backward) {  // {x, indices, grad}
        return at::max_pool2d_with_indices_backward(t[2].unsqueeze(2), t[0].unsqueeze(2), {1, k}, {1, s}, {0, p}, {1, d}, o.ceil_mode,
                                                    t[1].to(at::kLong).unsqueeze(2))
            .squeeze(2);
      }
      auto [values, positions] = at::max_pool1d_with_indices(t[0], {k}, {s}, {p}, {d}, o.ceil_mode);
      return op == OpId::max_pool1d ? values : positions;
    }
    case OpId::unfold4d: {  // ATen's im2col (torch.nn.functional.unfold)
      const auto ints = [](const Size2& v) { return std::vector<std::int64_t>{std::int64_t(v[0]), std::int64_t(v[1])}; };
      const UnfoldOptions& o = a.unfold;
      return at::im2col(t[0], ints(a.unfold_kernel), ints(o.dilation), ints(o.padding), ints(o.stride));
    }
    // interpolate: ATen's upsample kernels by mode (F.interpolate's nearest, nearest-exact, bilinear,
    // bicubic); interpolate_backward {x, grad}: their backward passes with x's size.
    case OpId::interpolate:
    case OpId::interpolate_backward: {
      const std::vector<std::int64_t> out{std::int64_t(a.output_size[0]), std::int64_t(a.output_size[1])};
      const bool ac = a.interpolate.align_corners;
      const InterpolateMode mode = a.interpolate.mode;
      if (op == OpId::interpolate) {
        switch (mode) {
          case InterpolateMode::Nearest: return at::upsample_nearest2d(t[0], out);
          case InterpolateMode::NearestExact: return at::_upsample_nearest_exact2d(t[0], out);
          case InterpolateMode::Bilinear: return at::upsample_bilinear2d(t[0], out, ac);
          case InterpolateMode::Bicubic: return at::upsample_bicubic2d(t[0], out, ac);
        }
      } else {
        const std::vector<std::int64_t> in(t[0].sizes().begin(), t[0].sizes().end());
        switch (mode) {
          case InterpolateMode::Nearest: return at::upsample_nearest2d_backward(t[1], out, in);
          case InterpolateMode::NearestExact: return at::_upsample_nearest_exact2d_backward(t[1], out, in);
          case InterpolateMode::Bilinear: return at::upsample_bilinear2d_backward(t[1], out, in, ac);
          case InterpolateMode::Bicubic: return at::upsample_bicubic2d_backward(t[1], out, in, ac);
        }
      }
      throw std::runtime_error("interpolate: no ATen mode " + std::to_string(static_cast<unsigned>(mode)));
    }
    case OpId::fold4d: {  // ATen's col2im (torch.nn.functional.fold)
      const auto ints = [](const Size2& v) { return std::vector<std::int64_t>{std::int64_t(v[0]), std::int64_t(v[1])}; };
      const UnfoldOptions& o = a.unfold;
      return at::col2im(t[0], ints(a.output_size), ints(a.unfold_kernel), ints(o.dilation), ints(o.padding), ints(o.stride));
    }
    case OpId::embedding: return at::embedding(t[0], t[1].to(at::kLong));
    case OpId::embedding_backward:  // {weights, indices, grad}
      return at::embedding_dense_backward(t[2], t[1].to(at::kLong), t[0].size(0), /*padding_idx=*/-1,
                                          /*scale_grad_by_freq=*/false);
    // linear: PyTorch's weight is [d_output, d_input], Burn's (crossgrad's) [d_input, d_output].
    // The backward passes as PyTorch's autograd computes linear's gradients (addmm's: grad @ W,
    // x^T @ grad over the flattened rows, grad summed over the rows).
    case OpId::linear: return t.size() > 2 ? at::linear(t[0], t[1].t(), t[2]) : at::linear(t[0], t[1].t());
    // layer_norm: ATen's own over the last dim, epsilon as the dtype holds it.
    case OpId::layer_norm: {
      const double eps = t[0].scalar_type() == at::kFloat ? static_cast<double>(static_cast<float>(a.scalar)) : a.scalar;
      const c10::optional<at::Tensor> bias = t.size() > 2 ? c10::optional<at::Tensor>(t[2]) : c10::nullopt;
      return at::layer_norm(t[0], {t[0].size(-1)}, t[1], bias, eps);
    }
    // batch_norm {x, weight, bias, mean, variance} with the given statistics: the definition in
    // ATen's broadcast arithmetic, so that autograd reaches all five (ATen's own batch_norm gives
    // no gradient to the running statistics).
    case OpId::batch_norm: {
      std::vector<std::int64_t> per_channel(static_cast<std::size_t>(t[0].dim()), 1);
      per_channel[1] = t[0].size(1);
      const auto s = [&](const at::Tensor& v) { return v.reshape(per_channel); };
      const double eps = t[0].scalar_type() == at::kFloat ? static_cast<double>(static_cast<float>(a.scalar)) : a.scalar;
      return (t[0] - s(t[3])).div(at::sqrt(s(t[4]) + eps)).mul(s(t[1])).add(s(t[2]));
    }
    // attention {query, key, value, [mask], [bias]}: PyTorch's math path (matmul, softmax,
    // matmul) with the documented semantics spelled in ATen: the causal diagonal at the bottom-right
    // corner, and a row whose every score is -inf (or that has no key) gives zeros, with no
    // gradient, where softmax alone gives NaN (Note [A fully masked row attends to nothing]).
    case OpId::attention: {
      const at::Tensor& q = t[0];
      std::size_t next = 3;
      const double dh = static_cast<double>(q.size(3));
      const double inf = std::numeric_limits<double>::infinity();
      at::Tensor s = at::matmul(q, t[1].transpose(2, 3)).mul(a.attention.scale.value_or(1.0 / std::sqrt(dh)));
      if (a.attention.softcap) s = at::tanh(s.div(*a.attention.softcap)).mul(*a.attention.softcap);
      if (a.attention_mask) s = s.masked_fill(t[next++].to(at::kBool), -inf);
      if (a.attention.is_causal) {
        const std::int64_t sq = s.size(2), sk = s.size(3);
        s = s.masked_fill(at::ones({sq, sk}, q.options().dtype(at::kBool)).triu(sk - sq + 1), -inf);
      }
      if (a.attention_bias) s = s.add(t[next++]);
      const at::Tensor dead = s.eq(-inf).all(3, /*keepdim=*/true);
      const at::Tensor p = at::softmax(at::where(dead, at::zeros_like(s), s), 3).masked_fill(dead, 0.0);
      return at::matmul(p, t[2]);
    }
    case OpId::linear_x_backward: return at::matmul(t[1], t[0].t());  // {weight, grad}
    case OpId::linear_weight_backward: {  // {x, grad}
      const std::int64_t d_in = t[0].size(-1), d_out = t[1].size(-1);
      const std::int64_t rows = d_in > 0 ? t[0].numel() / d_in : (d_out > 0 ? t[1].numel() / d_out : 0);
      return t[0].reshape({rows, d_in}).t().mm(t[1].reshape({rows, d_out}));
    }
    case OpId::conv2d:
    case OpId::conv2d_x_backward:
    case OpId::conv2d_weight_backward: {
      const Conv2dOptions& o = a.conv2d;
      const auto ints = [](const Size2& v) { return std::vector<std::int64_t>{std::int64_t(v[0]), std::int64_t(v[1])}; };
      const std::int64_t groups = static_cast<std::int64_t>(o.groups);
      if (op == OpId::conv2d) {  // {x, weight} or {x, weight, bias}
        return t.size() > 2 ? at::conv2d(t[0], t[1], t[2], ints(o.stride), ints(o.padding), ints(o.dilation), groups)
                            : at::conv2d(t[0], t[1], {}, ints(o.stride), ints(o.padding), ints(o.dilation), groups);
      }
      const bool x_grad = op == OpId::conv2d_x_backward;  // {x, weight, grad}
      auto grads = at::convolution_backward(t[2], t[0], t[1], c10::nullopt, ints(o.stride), ints(o.padding), ints(o.dilation),
                                            /*transposed=*/false, {0, 0}, groups, {x_grad, !x_grad, false});
      return x_grad ? std::get<0>(grads) : std::get<1>(grads);
    }
    case OpId::conv2d_bias_backward:
    case OpId::conv_transpose2d_bias_backward: return t[2].sum({0, 2, 3});  // {x, bias, grad}
    case OpId::conv1d_bias_backward: return t[2].sum(std::vector<std::int64_t>{0, 2});  // {x, bias, grad}
    case OpId::conv1d:
    case OpId::conv1d_x_backward:
    case OpId::conv1d_weight_backward: {
      const Conv1dOptions& o = a.conv1d;
      const std::vector<std::int64_t> stride{std::int64_t(o.stride[0])}, padding{std::int64_t(o.padding[0])},
          dilation{std::int64_t(o.dilation[0])};
      const std::int64_t groups = static_cast<std::int64_t>(o.groups);
      if (op == OpId::conv1d) {  // {x, weight} or {x, weight, bias}
        return at::conv1d(t[0], t[1], t.size() > 2 ? c10::optional<at::Tensor>(t[2]) : c10::nullopt, stride, padding, dilation, groups);
      }
      const bool x_grad = op == OpId::conv1d_x_backward;  // {x, weight, grad}
      auto grads = at::convolution_backward(t[2], t[0], t[1], c10::nullopt, stride, padding, dilation, /*transposed=*/false, {0},
                                            groups, {x_grad, !x_grad, false});
      return x_grad ? std::get<0>(grads) : std::get<1>(grads);
    }
    case OpId::conv_transpose1d_bias_backward: return t[2].sum(std::vector<std::int64_t>{0, 2});  // {x, bias, grad}
    case OpId::conv_transpose1d:
    case OpId::conv_transpose1d_x_backward:
    case OpId::conv_transpose1d_weight_backward: {
      const ConvTranspose1dOptions& o = a.conv_transpose1d;
      const auto ints = [](const Size1& v) { return std::vector<std::int64_t>{std::int64_t(v[0])}; };
      const std::int64_t groups = static_cast<std::int64_t>(o.groups);
      if (op == OpId::conv_transpose1d) {  // {x, weight} or {x, weight, bias}
        return at::conv_transpose1d(t[0], t[1], t.size() > 2 ? c10::optional<at::Tensor>(t[2]) : c10::nullopt, ints(o.stride),
                                    ints(o.padding), ints(o.padding_out), groups, ints(o.dilation));
      }
      const bool x_grad = op == OpId::conv_transpose1d_x_backward;  // {x, weight, grad}
      auto grads = at::convolution_backward(t[2], t[0], t[1], c10::nullopt, ints(o.stride), ints(o.padding), ints(o.dilation),
                                            /*transposed=*/true, ints(o.padding_out), groups, {x_grad, !x_grad, false});
      return x_grad ? std::get<0>(grads) : std::get<1>(grads);
    }
    case OpId::conv_transpose2d:
    case OpId::conv_transpose2d_x_backward:
    case OpId::conv_transpose2d_weight_backward: {
      const ConvTranspose2dOptions& o = a.conv_transpose2d;
      const auto ints = [](const Size2& v) { return std::vector<std::int64_t>{std::int64_t(v[0]), std::int64_t(v[1])}; };
      const std::int64_t groups = static_cast<std::int64_t>(o.groups);
      if (op == OpId::conv_transpose2d) {  // {x, weight} or {x, weight, bias}
        return at::conv_transpose2d(t[0], t[1], t.size() > 2 ? c10::optional<at::Tensor>(t[2]) : c10::nullopt, ints(o.stride),
                                    ints(o.padding), ints(o.padding_out), groups, ints(o.dilation));
      }
      const bool x_grad = op == OpId::conv_transpose2d_x_backward;  // {x, weight, grad}
      auto grads = at::convolution_backward(t[2], t[0], t[1], c10::nullopt, ints(o.stride), ints(o.padding), ints(o.dilation),
                                            /*transposed=*/true, ints(o.padding_out), groups, {x_grad, !x_grad, false});
      return x_grad ? std::get<0>(grads) : std::get<1>(grads);
    }
    // rfft {signal}: ATen's FFT, the real parts then the imaginary parts along dim 0 (the engine's
    // bundle); irfft {real, imaginary}: the complex spectrum's inverse.
    case OpId::rfft: {
      const c10::optional<std::int64_t> n = a.fft_size ? c10::optional<std::int64_t>(static_cast<std::int64_t>(*a.fft_size)) : c10::nullopt;
      const at::Tensor spectrum = at::fft_rfft(t[0], n, static_cast<std::int64_t>(a.dim));
      return at::cat({at::real(spectrum), at::imag(spectrum)}, 0);
    }
    case OpId::irfft: {
      const c10::optional<std::int64_t> n = a.fft_size ? c10::optional<std::int64_t>(static_cast<std::int64_t>(*a.fft_size)) : c10::nullopt;
      return at::fft_irfft(at::complex(t[0], t[1]), n, static_cast<std::int64_t>(a.dim));
    }
    case OpId::conv3d_bias_backward:
    case OpId::conv_transpose3d_bias_backward: return t[2].sum({0, 2, 3, 4});  // {x, bias, grad}
    case OpId::conv3d:
    case OpId::conv3d_x_backward:
    case OpId::conv3d_weight_backward: {
      const Conv3dOptions& o = a.conv3d;
      const auto ints = [](const Size3& v) { return std::vector<std::int64_t>{std::int64_t(v[0]), std::int64_t(v[1]), std::int64_t(v[2])}; };
      const std::int64_t groups = static_cast<std::int64_t>(o.groups);
      if (op == OpId::conv3d) {  // {x, weight} or {x, weight, bias}
        return at::conv3d(t[0], t[1], t.size() > 2 ? c10::optional<at::Tensor>(t[2]) : c10::nullopt, ints(o.stride),
                          ints(o.padding), ints(o.dilation), groups);
      }
      const bool x_grad = op == OpId::conv3d_x_backward;  // {x, weight, grad}
      auto grads = at::convolution_backward(t[2], t[0], t[1], c10::nullopt, ints(o.stride), ints(o.padding), ints(o.dilation),
                                            /*transposed=*/false, {0, 0, 0}, groups, {x_grad, !x_grad, false});
      return x_grad ? std::get<0>(grads) : std::get<1>(grads);
    }
    case OpId::conv_transpose3d:
    case OpId::conv_transpose3d_x_backward:
    case OpId::conv_transpose3d_weight_backward: {
      const ConvTranspose3dOptions& o = a.conv_transpose3d;
      const auto ints = [](const Size3& v) { return std::vector<std::int64_t>{std::int64_t(v[0]), std::int64_t(v[1]), std::int64_t(v[2])}; };
      const std::int64_t groups = static_cast<std::int64_t>(o.groups);
      if (op == OpId::conv_transpose3d) {  // {x, weight} or {x, weight, bias}
        return at::conv_transpose3d(t[0], t[1], t.size() > 2 ? c10::optional<at::Tensor>(t[2]) : c10::nullopt, ints(o.stride),
                                    ints(o.padding), ints(o.padding_out), groups, ints(o.dilation));
      }
      const bool x_grad = op == OpId::conv_transpose3d_x_backward;  // {x, weight, grad}
      auto grads = at::convolution_backward(t[2], t[0], t[1], c10::nullopt, ints(o.stride), ints(o.padding), ints(o.dilation),
                                            /*transposed=*/true, ints(o.padding_out), groups, {x_grad, !x_grad, false});
      return x_grad ? std::get<0>(grads) : std::get<1>(grads);
    }
    case OpId::linear_bias_backward: {  // {grad}
      const std::int64_t d_out = t[0].size(-1);
      if (d_out == 0) return at::zeros({0}, t[0].options());
      return t[0].reshape({t[0].numel() / d_out, d_out}).sum(0);
    }
  }
  throw std::logic_error("torch_reference: not a registry op");
}

bool differentiable(OpId op, const HostArray& operand) {
  return op_info(op).rule == OpRule::Backward && (operand.dtype == DType::F32 || operand.dtype == DType::F64);
}

}  // namespace

int torch_threads() { return at::get_num_threads(); }

TorchResult torch_reference(OpId op, const std::vector<HostArray>& operands, const OpArgs& args,
                            const HostArray* cotangent, bool non_contiguous) {
  // One thread: ATen's parallel reductions split by thread count, and the check must mean the
  // same on every machine.
  static const bool pinned = [] {
    at::set_num_threads(1);
    return true;
  }();
  (void)pinned;
  TorchResult result;
  try {
    std::vector<at::Tensor> leaves, inputs;
    for (const HostArray& h : operands) {
      at::Tensor leaf = to_aten(h);
      const bool grad = cotangent && differentiable(op, h);
      if (grad) leaf.requires_grad_(true);
      at::Tensor input = leaf;
      if (non_contiguous && leaf.dim() >= 2 && leaf.is_floating_point()) {
        input = leaf.transpose(-1, -2).contiguous().transpose(-1, -2);  // same values, strided
      }
      leaves.push_back(leaf);
      inputs.push_back(input);
    }
    const at::Tensor out = aten_op(op, inputs, args);
    result.value = from_aten(out, dtype_of_result(op, operands, args));
    result.gradients.resize(operands.size());
    if (cotangent && out.requires_grad()) {
      std::vector<at::Tensor> wrt;
      std::vector<std::size_t> which;
      for (std::size_t i = 0; i < leaves.size(); ++i) {
        if (leaves[i].requires_grad()) {
          wrt.push_back(leaves[i]);
          which.push_back(i);
        }
      }
      const at::Tensor c = to_aten(*cotangent).reshape(out.sizes());
      const auto grads = torch::autograd::grad({out}, wrt, {c}, /*retain_graph=*/false,
                                               /*create_graph=*/false, /*allow_unused=*/true);
      for (std::size_t k = 0; k < which.size(); ++k) {
        const HostArray& operand = operands[which[k]];
        result.gradients[which[k]] =
            grads[k].defined() ? from_aten(grads[k], operand.dtype)
                               : HostArray{operand.shape, operand.dtype, std::vector<double>(element_count(operand.shape), 0.0)};
      }
    }
  } catch (const c10::Error& e) {
    result.error = e.what_without_backtrace();
  } catch (const std::exception& e) {  // ATen's scalar conversions throw std::runtime_error
    result.error = e.what();
  }
  return result;
}

}  // namespace crossgrad::oracle
