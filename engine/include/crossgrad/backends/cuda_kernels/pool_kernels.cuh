#pragma once
// Device kernels of the Cuda backend's module ops (Note [Module ops]): avg_pool2d,
// adaptive_avg_pool2d, max_pool2d (values and indices) and their backward passes; the launchers are in
// engine/src/backends/cuda/pool.cu. Device code only, as kernels.cuh, so
// tests/unit/cuda_pool_kernels_emulation_test.cpp runs these very templates on the CPU. Not engine API.
//
// The forward kernels give one thread to each output element and sum (or scan) its window row by
// row, as NdArray does. The average poolings' backward kernels give one thread to each *input*
// element and gather, with no atomics, the shares g / count of the windows that contain it, in the
// output row-major order in which NdArray (and PyTorch's CPU kernel) scatter them: the same
// additions in the same order, so the same bits. max_pool2d's backward pass, whose indices may name
// any cell, scatters with one thread per plane.
#include "kernel_support.cuh"

#include <crossgrad/core/module_options.hpp>

#include <cstdint>

namespace crossgrad::backends::cuda_detail {

// The sizes of one pooling, passed by value to the kernels (one plane: in_h x in_w -> out_h x out_w).
struct PoolGeometry {
  std::int64_t planes = 0;
  std::int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  std::int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  bool count_include_pad = true;
};

// The windows of output o along dim d (0 height, 1 width): avg_pool2d's, cut at the padded edge and
// then at the input's, and adaptive_avg_pool2d's, cells floor(o in / out) .. ceil((o + 1) in / out) - 1.
struct AvgWindows {
  PoolGeometry g;
  CROSSGRAD_HOST_DEVICE PoolWindow operator()(int d, std::int64_t o) const {
    return d == 0 ? pool_window(o, g.in_h, g.kernel_h, g.stride_h, g.pad_h, g.count_include_pad)
                  : pool_window(o, g.in_w, g.kernel_w, g.stride_w, g.pad_w, g.count_include_pad);
  }
};
struct AdaptiveWindows {
  PoolGeometry g;
  CROSSGRAD_HOST_DEVICE PoolWindow operator()(int d, std::int64_t o) const {
    const std::int64_t in = d == 0 ? g.in_h : g.in_w, out = d == 0 ? g.out_h : g.out_w;
    const std::int64_t start = adaptive_start(o, in, out), end = adaptive_end(o, in, out);
    return PoolWindow{start, end, end - start};
  }
};

// y[plane, oh, ow] = the sum of its window, row by row, / the product of the windows' counts:
// avg_pool2d and adaptive_avg_pool2d, one thread per output.
template <class T, class Windows>
__device__ void mean_pool(const T* __restrict__ x, T* __restrict__ y, const PoolGeometry& g, Windows windows) {
  const std::int64_t total = g.planes * g.out_h * g.out_w;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
    const std::int64_t ow = t % g.out_w;
    const std::int64_t oh = (t / g.out_w) % g.out_h;
    const std::int64_t plane = t / (g.out_w * g.out_h);
    const PoolWindow wh = windows(0, oh);
    const PoolWindow ww = windows(1, ow);
    const T* p = x + plane * g.in_h * g.in_w;
    T sum = T(0);
    for (std::int64_t h = wh.start; h < wh.end; ++h) {
      for (std::int64_t w = ww.start; w < ww.end; ++w) sum += p[h * g.in_w + w];
    }
    y[t] = sum / static_cast<T>(wh.count * ww.count);
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    avg_pool2d_kernel(const T* __restrict__ x, T* __restrict__ y, PoolGeometry g) {
  mean_pool(x, y, g, AvgWindows{g});
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    adaptive_avg_pool2d_kernel(const T* __restrict__ x, T* __restrict__ y, PoolGeometry g) {
  mean_pool(x, y, g, AdaptiveWindows{g});
}

// avg_pool2d_backward: dx[plane, h, w] = sum over the windows containing (h, w) of g / count.
// The windows of output row oh start at oh * stride - pad, so only oh in [lo, hi] can contain h.
template <class T>
__global__ void __launch_bounds__(kThreads)
    avg_pool2d_backward_kernel(const T* __restrict__ grad, T* __restrict__ dx, PoolGeometry g) {
  const std::int64_t total = g.planes * g.in_h * g.in_w;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
    const std::int64_t w = t % g.in_w;
    const std::int64_t h = (t / g.in_w) % g.in_h;
    const std::int64_t plane = t / (g.in_w * g.in_h);
    const T* gp = grad + plane * g.out_h * g.out_w;
    const std::int64_t reach_h = h + g.pad_h - g.kernel_h + 1;  // the first window start that still reaches h
    const std::int64_t reach_w = w + g.pad_w - g.kernel_w + 1;
    const std::int64_t oh_lo = reach_h <= 0 ? 0 : (reach_h + g.stride_h - 1) / g.stride_h;
    const std::int64_t ow_lo = reach_w <= 0 ? 0 : (reach_w + g.stride_w - 1) / g.stride_w;
    const std::int64_t oh_hi = (h + g.pad_h) / g.stride_h < g.out_h - 1 ? (h + g.pad_h) / g.stride_h : g.out_h - 1;
    const std::int64_t ow_hi = (w + g.pad_w) / g.stride_w < g.out_w - 1 ? (w + g.pad_w) / g.stride_w : g.out_w - 1;
    T acc = T(0);
    for (std::int64_t oh = oh_lo; oh <= oh_hi; ++oh) {
      const PoolWindow wh = pool_window(oh, g.in_h, g.kernel_h, g.stride_h, g.pad_h, g.count_include_pad);
      if (h < wh.start || h >= wh.end) continue;
      for (std::int64_t ow = ow_lo; ow <= ow_hi; ++ow) {
        const PoolWindow ww = pool_window(ow, g.in_w, g.kernel_w, g.stride_w, g.pad_w, g.count_include_pad);
        if (w < ww.start || w >= ww.end) continue;
        acc += gp[oh * g.out_w + ow] / static_cast<T>(wh.count * ww.count);
      }
    }
    dx[t] = acc;
  }
}

// adaptive_avg_pool2d_backward: dx[plane, h, w] = sum over the windows containing (h, w) of
// g / count. Window oh ends at ceil((oh + 1) in / out) > h exactly when oh >= floor(h out / in), and
// starts only grow with oh: the windows containing h are a run from there.
template <class T>
__global__ void __launch_bounds__(kThreads)
    adaptive_avg_pool2d_backward_kernel(const T* __restrict__ grad, T* __restrict__ dx, PoolGeometry g) {
  const std::int64_t total = g.planes * g.in_h * g.in_w;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
    const std::int64_t w = t % g.in_w;
    const std::int64_t h = (t / g.in_w) % g.in_h;
    const std::int64_t plane = t / (g.in_w * g.in_h);
    const T* gp = grad + plane * g.out_h * g.out_w;
    const std::int64_t oh_lo = (h * g.out_h) / g.in_h;
    const std::int64_t ow_lo = (w * g.out_w) / g.in_w;
    T acc = T(0);
    for (std::int64_t oh = oh_lo; oh < g.out_h; ++oh) {
      const std::int64_t h0 = adaptive_start(oh, g.in_h, g.out_h), h1 = adaptive_end(oh, g.in_h, g.out_h);
      if (h0 > h) break;  // starts only grow with oh
      if (h >= h1) continue;
      for (std::int64_t ow = ow_lo; ow < g.out_w; ++ow) {
        const std::int64_t w0 = adaptive_start(ow, g.in_w, g.out_w), w1 = adaptive_end(ow, g.in_w, g.out_w);
        if (w0 > w) break;
        if (w >= w1) continue;
        acc += gp[oh * g.out_w + ow] / static_cast<T>((h1 - h0) * (w1 - w0));
      }
    }
    dx[t] = acc;
  }
}

// max_pool2d (kIndices: max_pool2d_indices): one thread per output, the window scanned by the
// engine's one definition (max_pool_argmax).
template <class T, bool kIndices>
__global__ void __launch_bounds__(kThreads)
    max_pool2d_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t* __restrict__ at, std::int64_t planes,
                      std::int64_t out_h, std::int64_t out_w, MaxPoolWindow w) {
  const std::int64_t total = planes * out_h * out_w;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
    const std::int64_t ow = t % out_w;
    const std::int64_t oh = (t / out_w) % out_h;
    const T* plane = x + (t / (out_w * out_h)) * w.in_h * w.in_w;
    const std::int64_t best = max_pool_argmax(plane, w, oh, ow);
    if constexpr (kIndices) {
      at[t] = best;
    } else {
      y[t] = plane[best];
    }
  }
}

// max_pool2d_with_indices_backward: one thread per plane adds each output's gradient to the cell
// its index names, outputs in row-major order: NdArray's additions in NdArray's order, for any
// indices the host has checked to lie in the plane (not only each window's maximum), without
// atomics. Parallel over planes only (batch x channels).
template <class T, class I>
__global__ void __launch_bounds__(kThreads)
    max_pool2d_backward_kernel(const T* __restrict__ grad, const I* __restrict__ indices, T* __restrict__ dx,
                               std::int64_t planes, std::int64_t plane_size, std::int64_t outputs) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < planes; p += stride) {
    T* d = dx + p * plane_size;
    for (std::int64_t c = 0; c < plane_size; ++c) d[c] = T(0);
    for (std::int64_t o = p * outputs; o < (p + 1) * outputs; ++o) d[static_cast<std::int64_t>(indices[o])] += grad[o];
  }
}

}  // namespace crossgrad::backends::cuda_detail
