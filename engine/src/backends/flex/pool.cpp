// Flex: the 2-D poolings (average, adaptive average, max) and their backward passes, one task per
// run of planes ([batch, channels] pairs; a plane is independent of the others). Within a plane the
// arithmetic and its order are NdArray's (docs/OPS.md "Module ops"), so both give the same bits.
#include <crossgrad/core/module_rules.hpp>

#include "common.hpp"

#include "thread_pool.hpp"

#include <algorithm>
#include <cstdint>

namespace crossgrad::backends {
namespace {

using flex::make_tensor;
using flex::with_float_type;

using Index = std::int64_t;

// Calls f(x_plane_offset, y_plane_offset) for each of the plan's planes, runs of planes in
// parallel once a plane's work (its input and output elements) adds up past the element-wise grain.
template <class F>
void for_each_plane(const rules::Pool2dPlan& p, F f) {
  const std::size_t per_plane = p.in_h * p.in_w + p.out_h * p.out_w;
  const std::size_t grain = per_plane == 0 ? p.planes : std::max<std::size_t>(1, flex::kElementwiseGrain / per_plane);
  flex::parallel_range(p.planes, grain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t c = begin; c < end; ++c) f(c * p.in_h * p.in_w, c * p.out_h * p.out_w);
  });
}

}  // namespace

FlexTensor Flex::avg_pool2d(const FlexTensor& x, const AvgPool2dOptions& o) {
  const rules::Pool2dPlan p = rules::plan_avg_pool2d(x.shape, x.dtype, o);
  FlexTensor out = make_tensor(p.out, x.dtype);
  with_float_type(x.dtype, [&]<class T>(T) {
    const T* in = x.data<T>();
    T* y = out.mutable_data<T>();
    for_each_plane(p, [&](std::size_t xo, std::size_t yo) {
      for (Index oh = 0; oh < Index(p.out_h); ++oh) {
        const PoolWindow wh = pool_window(oh, Index(p.in_h), Index(o.kernel_size[0]), Index(o.stride[0]),
                                          Index(o.padding[0]), o.count_include_pad);
        for (Index ow = 0; ow < Index(p.out_w); ++ow) {
          const PoolWindow ww = pool_window(ow, Index(p.in_w), Index(o.kernel_size[1]), Index(o.stride[1]),
                                            Index(o.padding[1]), o.count_include_pad);
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

FlexTensor Flex::avg_pool2d_backward(const FlexTensor& x, const FlexTensor& grad,
                                           const AvgPool2dOptions& o) {
  const rules::Pool2dPlan p = rules::plan_avg_pool2d_backward(x.shape, x.dtype, grad.shape, grad.dtype, o);
  FlexTensor out = make_tensor(x.shape, x.dtype);
  with_float_type(x.dtype, [&]<class T>(T) {
    const T* g = grad.data<T>();
    T* dx = out.mutable_data<T>();
    for_each_plane(p, [&](std::size_t xo, std::size_t yo) {
      std::fill(dx + xo, dx + xo + p.in_h * p.in_w, T(0));
      for (Index oh = 0; oh < Index(p.out_h); ++oh) {
        const PoolWindow wh = pool_window(oh, Index(p.in_h), Index(o.kernel_size[0]), Index(o.stride[0]),
                                          Index(o.padding[0]), o.count_include_pad);
        for (Index ow = 0; ow < Index(p.out_w); ++ow) {
          const PoolWindow ww = pool_window(ow, Index(p.in_w), Index(o.kernel_size[1]), Index(o.stride[1]),
                                            Index(o.padding[1]), o.count_include_pad);
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

FlexTensor Flex::adaptive_avg_pool2d(const FlexTensor& x, const Size2& output_size) {
  const rules::Pool2dPlan p = rules::plan_adaptive_avg_pool2d(x.shape, x.dtype, output_size);
  FlexTensor out = make_tensor(p.out, x.dtype);
  with_float_type(x.dtype, [&]<class T>(T) {
    const T* in = x.data<T>();
    T* y = out.mutable_data<T>();
    for_each_plane(p, [&](std::size_t xo, std::size_t yo) {
      for (Index oh = 0; oh < Index(p.out_h); ++oh) {
        const Index h0 = adaptive_start(oh, Index(p.in_h), Index(p.out_h));
        const Index h1 = adaptive_end(oh, Index(p.in_h), Index(p.out_h));
        for (Index ow = 0; ow < Index(p.out_w); ++ow) {
          const Index w0 = adaptive_start(ow, Index(p.in_w), Index(p.out_w));
          const Index w1 = adaptive_end(ow, Index(p.in_w), Index(p.out_w));
          T sum = T(0);
          for (Index h = h0; h < h1; ++h) {
            for (Index w = w0; w < w1; ++w) sum += in[xo + std::size_t(h) * p.in_w + std::size_t(w)];
          }
          y[yo + std::size_t(oh) * p.out_w + std::size_t(ow)] = sum / static_cast<T>((h1 - h0) * (w1 - w0));
        }
      }
    });
  });
  return out;
}

FlexTensor Flex::adaptive_avg_pool2d_backward(const FlexTensor& x, const FlexTensor& grad) {
  const rules::Pool2dPlan p = rules::plan_adaptive_avg_pool2d_backward(x.shape, x.dtype, grad.shape, grad.dtype);
  FlexTensor out = make_tensor(x.shape, x.dtype);
  with_float_type(x.dtype, [&]<class T>(T) {
    const T* g = grad.data<T>();
    T* dx = out.mutable_data<T>();
    for_each_plane(p, [&](std::size_t xo, std::size_t yo) {
      std::fill(dx + xo, dx + xo + p.in_h * p.in_w, T(0));
      for (Index oh = 0; oh < Index(p.out_h); ++oh) {
        const Index h0 = adaptive_start(oh, Index(p.in_h), Index(p.out_h));
        const Index h1 = adaptive_end(oh, Index(p.in_h), Index(p.out_h));
        for (Index ow = 0; ow < Index(p.out_w); ++ow) {
          const Index w0 = adaptive_start(ow, Index(p.in_w), Index(p.out_w));
          const Index w1 = adaptive_end(ow, Index(p.in_w), Index(p.out_w));
          const T share = g[yo + std::size_t(oh) * p.out_w + std::size_t(ow)] / static_cast<T>((h1 - h0) * (w1 - w0));
          for (Index h = h0; h < h1; ++h) {
            for (Index w = w0; w < w1; ++w) dx[xo + std::size_t(h) * p.in_w + std::size_t(w)] += share;
          }
        }
      }
    });
  });
  return out;
}

namespace {

MaxPoolWindow max_window(const rules::Pool2dPlan& p, const MaxPool2dOptions& o) {
  return MaxPoolWindow{Index(p.in_h),         Index(p.in_w),         Index(o.kernel_size[0]), Index(o.kernel_size[1]),
                       Index(o.stride[0]),    Index(o.stride[1]),    Index(o.padding[0]),     Index(o.padding[1]),
                       Index(o.dilation[0]),  Index(o.dilation[1])};
}

// Each output's window scanned (max_pool_argmax): its value, or (indices) its cell in the plane.
FlexTensor max_pool(const FlexTensor& x, const MaxPool2dOptions& o, std::string_view op, bool indices) {
  const rules::Pool2dPlan p = rules::plan_max_pool2d(x.shape, x.dtype, o, op);
  FlexTensor out = make_tensor(p.out, indices ? DType::I64 : x.dtype);
  const MaxPoolWindow g = max_window(p, o);
  with_float_type(x.dtype, [&]<class T>(T) {
    const T* in = x.data<T>();
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

}  // namespace

FlexTensor Flex::max_pool2d(const FlexTensor& x, const MaxPool2dOptions& options) {
  return max_pool(x, options, "max_pool2d", false);
}

FlexTensor Flex::max_pool2d_indices(const FlexTensor& x, const MaxPool2dOptions& options) {
  return max_pool(x, options, "max_pool2d_indices", true);
}

// Each output's gradient added to the cell its index names, outputs in row-major order (PyTorch's
// CPU order); an index outside the plane panics index-out-of-range as it is read.
FlexTensor Flex::max_pool2d_with_indices_backward(const FlexTensor& x, const FlexTensor& grad, const FlexTensor& indices,
                                                     const MaxPool2dOptions& options) {
  const rules::Pool2dPlan p =
      rules::plan_max_pool2d_backward(x.shape, x.dtype, grad.shape, grad.dtype, indices.shape, indices.dtype, options);
  FlexTensor out = make_tensor(x.shape, x.dtype);
  const std::size_t plane = p.in_h * p.in_w;
  with_float_type(x.dtype, [&]<class T>(T) {
    const T* g = grad.data<T>();
    T* dx = out.mutable_data<T>();
    host::with_int_type(indices.dtype, [&]<class I>(I) {
      const I* idx = indices.data<I>();
      // Every index checked first, in row-major order on this thread: the panic names the first
      // bad one, as NdArray's does, whichever task would have reached it.
      for (std::size_t o = 0; o < indices.num_elements(); ++o) {
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

}  // namespace crossgrad::backends
