// Cuda backend: avg_pool2d, adaptive_avg_pool2d, max_pool2d and their backward passes (Note [Module ops]); the
// kernels are in <crossgrad/backends/cuda_kernels/pool_kernels.cuh>, the checks are the shared
// rules::plan_* run before any launch.
#include "map_kernels.cuh"

#include <crossgrad/backends/cuda_kernels/pool_kernels.cuh>
#include <crossgrad/core/module_rules.hpp>

namespace crossgrad::backends {

using namespace cuda_detail;  // this backend's internals (cuda_common.cuh, kernels.cuh)
namespace {

PoolGeometry geometry(const rules::Pool2dPlan& p, const AvgPool2dOptions* o) {
  PoolGeometry g;
  g.planes = static_cast<std::int64_t>(p.planes);
  g.in_h = static_cast<std::int64_t>(p.in_h);
  g.in_w = static_cast<std::int64_t>(p.in_w);
  g.out_h = static_cast<std::int64_t>(p.out_h);
  g.out_w = static_cast<std::int64_t>(p.out_w);
  if (o != nullptr) {
    g.kernel_h = static_cast<std::int64_t>(o->kernel_size[0]);
    g.kernel_w = static_cast<std::int64_t>(o->kernel_size[1]);
    g.stride_h = static_cast<std::int64_t>(o->stride[0]);
    g.stride_w = static_cast<std::int64_t>(o->stride[1]);
    g.pad_h = static_cast<std::int64_t>(o->padding[0]);
    g.pad_w = static_cast<std::int64_t>(o->padding[1]);
    g.count_include_pad = o->count_include_pad;
  }
  return g;
}

// One launch of `kernel` over `work` threads reading `in` and writing `out` (nothing when empty).
template <class Launch>
CudaTensor pooled(const CudaTensor& in, Shape out_shape, std::size_t work, const char* name, Launch launch) {
  CudaTensor out = make_tensor(std::move(out_shape), in.dtype, in.dev);
  if (work == 0) return out;
  const int device = in.dev.index;
  with_float_type(in.dtype, [&](auto zero) {
    using T = decltype(zero);
    launch(zero, grid_for(work, device), activate(device), data_of<T>(out));
    check_launch(name);
  });
  return out;
}

}  // namespace

CudaTensor Cuda::avg_pool2d(const CudaTensor& x, const AvgPool2dOptions& options) {
  const rules::Pool2dPlan p = rules::plan_avg_pool2d(x.shape, x.dtype, options);
  const PoolGeometry g = geometry(p, &options);
  return pooled(x, p.out, p.out.num_elements(), "avg_pool2d", [&](auto zero, unsigned grid, auto stream, auto* y) {
    using T = decltype(zero);
    avg_pool2d_kernel<T><<<grid, kThreads, 0, stream>>>(data_of<T>(x), y, g);
  });
}

CudaTensor Cuda::avg_pool2d_backward(const CudaTensor& x, const CudaTensor& grad, const AvgPool2dOptions& options) {
  const rules::Pool2dPlan p = rules::plan_avg_pool2d_backward(x.shape, x.dtype, grad.shape, grad.dtype, options);
  const PoolGeometry g = geometry(p, &options);
  return pooled(x, x.shape, x.shape.num_elements(), "avg_pool2d_backward",
                [&](auto zero, unsigned grid, auto stream, auto* dx) {
                  using T = decltype(zero);
                  avg_pool2d_backward_kernel<T><<<grid, kThreads, 0, stream>>>(data_of<T>(grad), dx, g);
                });
}

CudaTensor Cuda::adaptive_avg_pool2d(const CudaTensor& x, const Size2& output_size) {
  const rules::Pool2dPlan p = rules::plan_adaptive_avg_pool2d(x.shape, x.dtype, output_size);
  const PoolGeometry g = geometry(p, nullptr);
  return pooled(x, p.out, p.out.num_elements(), "adaptive_avg_pool2d",
                [&](auto zero, unsigned grid, auto stream, auto* y) {
                  using T = decltype(zero);
                  adaptive_avg_pool2d_kernel<T><<<grid, kThreads, 0, stream>>>(data_of<T>(x), y, g);
                });
}

CudaTensor Cuda::adaptive_avg_pool2d_backward(const CudaTensor& x, const CudaTensor& grad) {
  const rules::Pool2dPlan p = rules::plan_adaptive_avg_pool2d_backward(x.shape, x.dtype, grad.shape, grad.dtype);
  const PoolGeometry g = geometry(p, nullptr);
  return pooled(x, x.shape, x.shape.num_elements(), "adaptive_avg_pool2d_backward",
                [&](auto zero, unsigned grid, auto stream, auto* dx) {
                  using T = decltype(zero);
                  adaptive_avg_pool2d_backward_kernel<T><<<grid, kThreads, 0, stream>>>(data_of<T>(grad), dx, g);
                });
}

namespace {

MaxPoolWindow max_window(const rules::Pool2dPlan& p, const MaxPool2dOptions& o) {
  const auto i = [](std::size_t v) { return static_cast<std::int64_t>(v); };
  return MaxPoolWindow{i(p.in_h),      i(p.in_w),       i(o.kernel_size[0]), i(o.kernel_size[1]), i(o.stride[0]),
                       i(o.stride[1]), i(o.padding[0]), i(o.padding[1]),     i(o.dilation[0]),    i(o.dilation[1])};
}

CudaTensor max_pool(const CudaTensor& x, const MaxPool2dOptions& o, const char* name, bool indices) {
  const rules::Pool2dPlan p = rules::plan_max_pool2d(x.shape, x.dtype, o, name);
  CudaTensor out = make_tensor(p.out, indices ? DType::I64 : x.dtype, x.dev);
  if (p.out.num_elements() == 0) return out;
  const int device = x.dev.index;
  const MaxPoolWindow w = max_window(p, o);
  const auto planes = static_cast<std::int64_t>(p.planes), oh = static_cast<std::int64_t>(p.out_h),
             ow = static_cast<std::int64_t>(p.out_w);
  with_float_type(x.dtype, [&](auto zero) {
    using T = decltype(zero);
    const unsigned grid = grid_for(p.out.num_elements(), device);
    if (indices) {
      max_pool2d_kernel<T, true><<<grid, kThreads, 0, activate(device)>>>(
          data_of<T>(x), nullptr, data_of<std::int64_t>(out), planes, oh, ow, w);
    } else {
      max_pool2d_kernel<T, false>
          <<<grid, kThreads, 0, activate(device)>>>(data_of<T>(x), data_of<T>(out), nullptr, planes, oh, ow, w);
    }
    check_launch(name);
  });
  return out;
}

}  // namespace

CudaTensor Cuda::max_pool2d(const CudaTensor& x, const MaxPool2dOptions& options) {
  return max_pool(x, options, "max_pool2d", false);
}

CudaTensor Cuda::max_pool2d_indices(const CudaTensor& x, const MaxPool2dOptions& options) {
  return max_pool(x, options, "max_pool2d_indices", true);
}

// The indices are read on the host first (a copy back), so that a bad one panics as on the CPU
// backends, naming the first in row-major order.
CudaTensor Cuda::max_pool2d_with_indices_backward(const CudaTensor& x, const CudaTensor& grad,
                                                  const CudaTensor& indices, const MaxPool2dOptions& options) {
  const rules::Pool2dPlan p =
      rules::plan_max_pool2d_backward(x.shape, x.dtype, grad.shape, grad.dtype, indices.shape, indices.dtype, options);
  CudaTensor out = make_tensor(x.shape, x.dtype, x.dev);
  if (x.shape.num_elements() == 0) return out;
  const std::size_t plane = p.in_h * p.in_w;
  rules::check_pool_indices(Cuda::into_data(indices).to_i64(), plane);
  const int device = x.dev.index;
  with_float_type(x.dtype, [&](auto zero) {
    using T = decltype(zero);
    const auto planes = static_cast<std::int64_t>(p.planes);
    const auto outputs = static_cast<std::int64_t>(p.out_h * p.out_w);
    const unsigned grid = grid_for(p.planes, device);
    if (indices.dtype == DType::I64) {
      max_pool2d_backward_kernel<T, std::int64_t>
          <<<grid, kThreads, 0, activate(device)>>>(data_of<T>(grad), data_of<std::int64_t>(indices), data_of<T>(out),
                                                    planes, static_cast<std::int64_t>(plane), outputs);
    } else {
      max_pool2d_backward_kernel<T, std::int32_t>
          <<<grid, kThreads, 0, activate(device)>>>(data_of<T>(grad), data_of<std::int32_t>(indices), data_of<T>(out),
                                                    planes, static_cast<std::int64_t>(plane), outputs);
    }
    check_launch("max_pool2d_with_indices_backward");
  });
  return out;
}

}  // namespace crossgrad::backends
