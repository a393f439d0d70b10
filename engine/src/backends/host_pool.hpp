#pragma once
// The 2-D poolings of the host backends (NdArray and Flex; Note [Module ops]): each op written once
// over a tensor type derived from HostTensor and a `for_each_plane(plan, f)` that calls
// f(x_plane_offset, y_plane_offset) for every [batch, channels] plane: NdArray's in order on the
// calling thread, Flex's split among its threads. Within a plane the arithmetic is the definition's
// (docs/OPS.md "Module ops"): windows summed row by row in the dtype (average pooling), scanned by
// max_pool_argmax (max pooling), each output's gradient added to its cells in output row-major
// order (PyTorch's CPU order). Both backends therefore give the same bits whatever the threads; the
// oracle's own formulas and the LibTorch differential judge the arithmetic. Internal to the engine.
#include <crossgrad/backends/host_common.hpp>
#include <crossgrad/backends/host_tensor.hpp>
#include <crossgrad/core/module_rules.hpp>

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace crossgrad::backends::host_pool {

using Index = std::int64_t;
using host::with_float_type;

// Fresh uninitialised storage (HostTensor::empty panics tensor-too-large).
template <class Tensor>
Tensor make(Shape shape, DType dtype) {
  return Tensor{HostTensor::empty(std::move(shape), dtype)};
}

// The mean poolings' loops, written once for avg_pool2d and adaptive_avg_pool2d: `windows(d, o)`
// is output o's PoolWindow along dim d (0 height, 1 width), its count the divisor's factor.
template <class Tensor, class Planes, class Windows>
Tensor mean_pool(const Tensor& x, const rules::Pool2dPlan& p, const Windows& windows, const Planes& for_each_plane) {
  Tensor out = make<Tensor>(p.out, x.dtype);
  with_float_type(x.dtype, [&]<class T>(T) {
    const T* in = x.template data<T>();
    T* y = out.template mutable_data<T>();
    for_each_plane(p, [&](std::size_t xo, std::size_t yo) {
      for (Index oh = 0; oh < Index(p.out_h); ++oh) {
        const PoolWindow wh = windows(0, oh);
        for (Index ow = 0; ow < Index(p.out_w); ++ow) {
          const PoolWindow ww = windows(1, ow);
          T sum = T(0);
          for (Index h = wh.start; h < wh.end; ++h) {
            for (Index w = ww.start; w < ww.end; ++w) sum += in[xo + std::size_t(h) * p.in_w + std::size_t(w)];
          }
          y[yo + std::size_t(oh) * p.out_w + std::size_t(ow)] = sum / static_cast<T>(wh.count * ww.count);
        }
      }
    });
  });
  return out;
}

// Each output's share g / divisor added to every cell of its window, outputs in row-major order.
template <class Tensor, class Planes, class Windows>
Tensor mean_pool_backward(const Tensor& x, const Tensor& grad, const rules::Pool2dPlan& p, const Windows& windows,
                          const Planes& for_each_plane) {
  Tensor out = make<Tensor>(x.shape, x.dtype);
  with_float_type(x.dtype, [&]<class T>(T) {
    const T* g = grad.template data<T>();
    T* dx = out.template mutable_data<T>();
    for_each_plane(p, [&](std::size_t xo, std::size_t yo) {
      std::fill(dx + xo, dx + xo + p.in_h * p.in_w, T(0));
      for (Index oh = 0; oh < Index(p.out_h); ++oh) {
        const PoolWindow wh = windows(0, oh);
        for (Index ow = 0; ow < Index(p.out_w); ++ow) {
          const PoolWindow ww = windows(1, ow);
          const T share = g[yo + std::size_t(oh) * p.out_w + std::size_t(ow)] / static_cast<T>(wh.count * ww.count);
          for (Index h = wh.start; h < wh.end; ++h) {
            for (Index w = ww.start; w < ww.end; ++w) dx[xo + std::size_t(h) * p.in_w + std::size_t(w)] += share;
          }
        }
      }
    });
  });
  return out;
}

// avg_pool2d's windows: cut at the padded edge, then at the input's (pool_window).
inline auto avg_windows(const rules::Pool2dPlan& p, const AvgPool2dOptions& o) {
  return [&p, &o](int d, Index at) {
    return pool_window(at, Index(d == 0 ? p.in_h : p.in_w), Index(o.kernel_size[d]), Index(o.stride[d]),
                       Index(o.padding[d]), o.count_include_pad);
  };
}

// adaptive_avg_pool2d's windows: cells floor(o in / out) .. ceil((o + 1) in / out) - 1.
inline auto adaptive_windows(const rules::Pool2dPlan& p) {
  return [&p](int d, Index at) {
    const Index in = Index(d == 0 ? p.in_h : p.in_w), out = Index(d == 0 ? p.out_h : p.out_w);
    const Index start = adaptive_start(at, in, out), end = adaptive_end(at, in, out);
    return PoolWindow{start, end, end - start};
  };
}

template <class Tensor, class Planes>
Tensor avg_pool2d(const Tensor& x, const AvgPool2dOptions& o, const Planes& for_each_plane) {
  const rules::Pool2dPlan p = rules::plan_avg_pool2d(x.shape, x.dtype, o);
  return mean_pool(x, p, avg_windows(p, o), for_each_plane);
}

template <class Tensor, class Planes>
Tensor avg_pool2d_backward(const Tensor& x, const Tensor& grad, const AvgPool2dOptions& o,
                           const Planes& for_each_plane) {
  const rules::Pool2dPlan p = rules::plan_avg_pool2d_backward(x.shape, x.dtype, grad.shape, grad.dtype, o);
  return mean_pool_backward(x, grad, p, avg_windows(p, o), for_each_plane);
}

template <class Tensor, class Planes>
Tensor adaptive_avg_pool2d(const Tensor& x, const Size2& output_size, const Planes& for_each_plane) {
  const rules::Pool2dPlan p = rules::plan_adaptive_avg_pool2d(x.shape, x.dtype, output_size);
  return mean_pool(x, p, adaptive_windows(p), for_each_plane);
}

template <class Tensor, class Planes>
Tensor adaptive_avg_pool2d_backward(const Tensor& x, const Tensor& grad, const Planes& for_each_plane) {
  const rules::Pool2dPlan p = rules::plan_adaptive_avg_pool2d_backward(x.shape, x.dtype, grad.shape, grad.dtype);
  return mean_pool_backward(x, grad, p, adaptive_windows(p), for_each_plane);
}

inline MaxPoolWindow max_window(const rules::Pool2dPlan& p, const MaxPool2dOptions& o) {
  return MaxPoolWindow{Index(p.in_h),        Index(p.in_w),       Index(o.kernel_size[0]), Index(o.kernel_size[1]),
                       Index(o.stride[0]),   Index(o.stride[1]),  Index(o.padding[0]),     Index(o.padding[1]),
                       Index(o.dilation[0]), Index(o.dilation[1])};
}

// Each output's window scanned (max_pool_argmax): its value, or (indices) its cell in the plane.
template <class Tensor, class Planes>
Tensor max_pool2d(const Tensor& x, const MaxPool2dOptions& o, std::string_view op, bool indices,
                  const Planes& for_each_plane) {
  const rules::Pool2dPlan p = rules::plan_max_pool2d(x.shape, x.dtype, o, op);
  Tensor out = make<Tensor>(p.out, indices ? DType::I64 : x.dtype);
  const MaxPoolWindow g = max_window(p, o);
  with_float_type(x.dtype, [&]<class T>(T) {
    const T* in = x.template data<T>();
    for_each_plane(p, [&](std::size_t xo, std::size_t yo) {
      for (Index oh = 0; oh < Index(p.out_h); ++oh) {
        for (Index ow = 0; ow < Index(p.out_w); ++ow) {
          const Index at = max_pool_argmax(in + xo, g, oh, ow);
          const std::size_t o_at = yo + std::size_t(oh) * p.out_w + std::size_t(ow);
          if (indices) {
            out.template mutable_data<std::int64_t>()[o_at] = at;
          } else {
            out.template mutable_data<T>()[o_at] = in[xo + std::size_t(at)];
          }
        }
      }
    });
  });
  return out;
}

// Each output's gradient added to the cell its index names, outputs in row-major order (PyTorch's
// CPU order). Every index is checked first, in row-major order on the calling thread, so the panic
// (index-out-of-range) names the first bad one however the planes are split.
template <class Tensor, class Planes>
Tensor max_pool2d_with_indices_backward(const Tensor& x, const Tensor& grad, const Tensor& indices,
                                        const MaxPool2dOptions& options, const Planes& for_each_plane) {
  const rules::Pool2dPlan p =
      rules::plan_max_pool2d_backward(x.shape, x.dtype, grad.shape, grad.dtype, indices.shape, indices.dtype, options);
  Tensor out = make<Tensor>(x.shape, x.dtype);
  const std::size_t plane = p.in_h * p.in_w;
  with_float_type(x.dtype, [&]<class T>(T) {
    const T* g = grad.template data<T>();
    T* dx = out.template mutable_data<T>();
    host::with_int_type(indices.dtype, [&]<class I>(I) {
      const I* idx = indices.template data<I>();
      const std::size_t count = indices.num_elements();  // a product over the dims: not per element
      for (std::size_t o = 0; o < count; ++o) {
        const long long at = static_cast<long long>(idx[o]);
        if (at < 0 || static_cast<std::size_t>(at) >= plane) rules::pool_index_out_of_range(at, plane);
      }
      for_each_plane(p, [&](std::size_t xo, std::size_t yo) {
        std::fill(dx + xo, dx + xo + plane, T(0));
        for (std::size_t o = yo; o < yo + p.out_h * p.out_w; ++o) dx[xo + static_cast<std::size_t>(idx[o])] += g[o];
      });
    });
  });
  return out;
}

}  // namespace crossgrad::backends::host_pool
