#include <crossgrad/core/module_rules.hpp>
#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape_rules.hpp>

#include <string>

namespace crossgrad::rules {
namespace {

std::string size2(const Size2& s) { return "[" + std::to_string(s[0]) + ", " + std::to_string(s[1]) + "]"; }

void check_rank4(const Shape& shape, std::string_view op, std::string_view operand) {
  if (shape.rank() == 4) return;
  panic(PanicId::ModuleInputRank, {{"op", std::string(op)},
                                   {"operand", std::string(operand)},
                                   {"rank", "4"},
                                   {"layout", "[batch, channels, height, width]"},
                                   {"shape", shape.to_string()}});
}

void check_at_least_one(const Size2& value, std::string_view option, std::string_view op) {
  if (value[0] >= 1 && value[1] >= 1) return;
  panic(PanicId::ModuleOptionZero, {{"op", std::string(op)}, {"option", std::string(option)}, {"value", size2(value)}});
}

void check_grad_dtype(DType x_dtype, DType grad_dtype, std::string_view op) {
  check_float_dtype(x_dtype, op);
  check_same_dtype(x_dtype, grad_dtype, op);
}

std::size_t pooled_size(std::size_t in, std::size_t kernel, std::size_t stride, std::size_t padding, bool ceil_mode) {
  const std::size_t span = in + 2 * padding - kernel;  // >= 0: checked before
  std::size_t out = (span + (ceil_mode ? stride - 1 : 0)) / stride + 1;
  // Under ceil_mode the last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * stride >= in + padding) --out;
  return out;
}

Pool2dPlan plan_of(const Shape& x, std::size_t out_h, std::size_t out_w) {
  Pool2dPlan p;
  p.planes = x[0] * x[1];
  p.in_h = x[2];
  p.in_w = x[3];
  p.out_h = out_h;
  p.out_w = out_w;
  p.out = Shape{x[0], x[1], out_h, out_w};
  return p;
}

// avg_pool2d's checks, naming `op` (avg_pool2d, or the backward pass that was called).
Pool2dPlan plan_avg(const Shape& x, DType dtype, const AvgPool2dOptions& o, std::string_view op) {
  check_float_dtype(dtype, op);
  check_rank4(x, op, "input");
  check_at_least_one(o.kernel_size, "kernel_size", op);
  check_at_least_one(o.stride, "stride", op);
  for (int d = 0; d < 2; ++d) {
    if (o.padding[d] > o.kernel_size[d] / 2) {
      panic(PanicId::PoolPadding,
            {{"op", std::string(op)}, {"padding", size2(o.padding)}, {"kernel", size2(o.kernel_size)}});
    }
  }
  const Size2 padded{x[2] + 2 * o.padding[0], x[3] + 2 * o.padding[1]};
  if (padded[0] < o.kernel_size[0] || padded[1] < o.kernel_size[1]) {
    panic(PanicId::PoolKernelTooLarge,
          {{"op", std::string(op)}, {"padded", size2(padded)}, {"kernel", size2(o.kernel_size)}});
  }
  return plan_of(x, pooled_size(x[2], o.kernel_size[0], o.stride[0], o.padding[0], o.ceil_mode),
                 pooled_size(x[3], o.kernel_size[1], o.stride[1], o.padding[1], o.ceil_mode));
}

}  // namespace

Pool2dPlan plan_avg_pool2d(const Shape& x, DType dtype, const AvgPool2dOptions& options) {
  return plan_avg(x, dtype, options, "avg_pool2d");
}

Pool2dPlan plan_avg_pool2d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype,
                                    const AvgPool2dOptions& options) {
  constexpr std::string_view op = "avg_pool2d_backward";
  check_grad_dtype(x_dtype, grad_dtype, op);
  Pool2dPlan p = plan_avg(x, x_dtype, options, op);
  if (grad != p.out) {
    panic(PanicId::PoolGradShape, {{"op", std::string(op)}, {"expected", p.out.to_string()}, {"got", grad.to_string()}});
  }
  return p;
}

Pool2dPlan plan_adaptive_avg_pool2d(const Shape& x, DType dtype, const Size2& output_size) {
  constexpr std::string_view op = "adaptive_avg_pool2d";
  check_float_dtype(dtype, op);
  check_rank4(x, op, "input");
  check_at_least_one(output_size, "output_size", op);
  if (x[2] == 0 || x[3] == 0) panic(PanicId::PoolEmptyInput, {{"op", std::string(op)}, {"shape", x.to_string()}});
  return plan_of(x, output_size[0], output_size[1]);
}

Pool2dPlan plan_adaptive_avg_pool2d_backward(const Shape& x, DType x_dtype, const Shape& grad, DType grad_dtype) {
  constexpr std::string_view op = "adaptive_avg_pool2d_backward";
  check_grad_dtype(x_dtype, grad_dtype, op);
  check_rank4(x, op, "input");
  check_rank4(grad, op, "gradient");
  if (grad[0] != x[0] || grad[1] != x[1]) {
    const Shape expected{x[0], x[1], grad[2], grad[3]};
    panic(PanicId::PoolGradShape, {{"op", std::string(op)}, {"expected", expected.to_string()}, {"got", grad.to_string()}});
  }
  check_at_least_one(Size2{grad[2], grad[3]}, "output_size", op);
  if (x[2] == 0 || x[3] == 0) panic(PanicId::PoolEmptyInput, {{"op", std::string(op)}, {"shape", x.to_string()}});
  return plan_of(x, grad[2], grad[3]);
}

void not_differentiable(std::string_view op) { panic(PanicId::NotDifferentiable, {{"op", std::string(op)}}); }

}  // namespace crossgrad::rules
