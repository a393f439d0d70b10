// Cuda backend: avg_pool2d, adaptive_avg_pool2d and their backward passes (Note [Module ops]); the
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

}  // namespace crossgrad::backends
