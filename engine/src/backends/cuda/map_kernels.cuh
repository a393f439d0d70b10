#pragma once
// Element-wise kernel templates shared by the op families: a contiguous map (one input, one
// output, any element types), a contiguous same-shape binary map, a strided binary map with
// broadcasting and a fill. Every launcher returns without launching when there is nothing to do,
// so no 0-block grid is ever launched.
#include "cuda_common.cuh"

namespace crossgrad::backends::cuda_detail {

// Elements per thread per step in the contiguous kernels: 16-byte loads for F32, 2x16 for F64.
inline constexpr int kPack = 4;

// y[i] = op(x[i]) for i < n. x and y are whole buffers (256-byte aligned), so packs are aligned.
template <class In, class Out, class Op>
__global__ void __launch_bounds__(kThreads) map_kernel(const In* __restrict__ x, Out* __restrict__ y,
                                                       std::size_t n, Op op) {
  const std::size_t packs = n / kPack;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const auto* xp = reinterpret_cast<const Pack<In, kPack>*>(x);
  auto* yp = reinterpret_cast<Pack<Out, kPack>*>(y);
  for (std::size_t p = first; p < packs; p += stride) {
    const Pack<In, kPack> a = xp[p];
    Pack<Out, kPack> b;
#pragma unroll
    for (int w = 0; w < kPack; ++w) b.v[w] = op(a.v[w]);
    yp[p] = b;
  }
  // The last n % kPack elements, one per thread of the first few threads.
  const std::size_t tail = packs * kPack + first;
  if (tail < n) y[tail] = op(x[tail]);
}

template <class In, class Out, class Op>
void launch_map(const In* x, Out* y, std::size_t n, int device, Op op, const char* name) {
  if (n == 0) return;
  const cudaStream_t stream = activate(device);
  const std::size_t packs = n / kPack;
  const unsigned blocks = grid_for(packs > 0 ? packs : 1, device);
  map_kernel<<<blocks, kThreads, 0, stream>>>(x, y, n, op);
  check_launch(name);
}

// z[i] = op(x[i], y[i]) for i < n (same shapes, contiguous).
template <class T, class Op>
__global__ void __launch_bounds__(kThreads) zip_kernel(const T* __restrict__ x, const T* __restrict__ y,
                                                       T* __restrict__ z, std::size_t n, Op op) {
  const std::size_t packs = n / kPack;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const auto* xp = reinterpret_cast<const Pack<T, kPack>*>(x);
  const auto* yp = reinterpret_cast<const Pack<T, kPack>*>(y);
  auto* zp = reinterpret_cast<Pack<T, kPack>*>(z);
  for (std::size_t p = first; p < packs; p += stride) {
    const Pack<T, kPack> a = xp[p];
    const Pack<T, kPack> b = yp[p];
    Pack<T, kPack> c;
#pragma unroll
    for (int w = 0; w < kPack; ++w) c.v[w] = op(a.v[w], b.v[w]);
    zp[p] = c;
  }
  const std::size_t tail = packs * kPack + first;
  if (tail < n) z[tail] = op(x[tail], y[tail]);
}

// z[i] = op(x[off0(i)], y[off1(i)]) for i < n: NumPy broadcasting through strides (0 on
// broadcast dims) over the collapsed output shape.
template <class T, class Index, class Op>
__global__ void __launch_bounds__(kThreads) broadcast_kernel(const T* __restrict__ x, const T* __restrict__ y,
                                                             T* __restrict__ z, Index n,
                                                             Strided<Index, 2> walk, Op op) {
  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    Index off[2];
    walk.offsets(i, off);
    z[i] = op(x[off[0]], y[off[1]]);
  }
}

// out = op(lhs, rhs) with NumPy broadcasting; out already has the broadcast shape.
template <class T, class Op>
void launch_binary(const CudaTensor& lhs, const CudaTensor& rhs, CudaTensor& out, Op op, const char* name) {
  const std::size_t n = out.shape.num_elements();
  if (n == 0) return;
  const int device = out.dev.index;
  const T* x = data_of<T>(lhs);
  const T* y = data_of<T>(rhs);
  T* z = data_of<T>(out);
  const cudaStream_t stream = activate(device);
  if (lhs.shape == rhs.shape) {
    const std::size_t packs = n / kPack;
    zip_kernel<<<grid_for(packs > 0 ? packs : 1, device), kThreads, 0, stream>>>(x, y, z, n, op);
    check_launch(name);
    return;
  }
  const Collapsed c = collapse(out.shape.dims(), {rules::broadcast_strides(lhs.shape, out.shape),
                                                  rules::broadcast_strides(rhs.shape, out.shape)});
  const unsigned blocks = grid_for(n, device);
  // 32-bit index math (a 64-bit division is several times slower) whenever the grid-stride loop
  // cannot wrap around: offsets never exceed n because inputs are no larger than the output.
  if (n <= (std::size_t{1} << 31)) {
    broadcast_kernel<<<blocks, kThreads, 0, stream>>>(x, y, z, static_cast<std::uint32_t>(n),
                                                      to_strided<std::uint32_t, 2>(c), op);
  } else {
    broadcast_kernel<<<blocks, kThreads, 0, stream>>>(x, y, z, static_cast<std::uint64_t>(n),
                                                      to_strided<std::uint64_t, 2>(c), op);
  }
  check_launch(name);
}

template <class T>
__global__ void __launch_bounds__(kThreads) fill_kernel(T* __restrict__ y, std::size_t n, T value) {
  const std::size_t packs = n / kPack;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  auto* yp = reinterpret_cast<Pack<T, kPack>*>(y);
  Pack<T, kPack> v;
#pragma unroll
  for (int w = 0; w < kPack; ++w) v.v[w] = value;
  for (std::size_t p = first; p < packs; p += stride) yp[p] = v;
  const std::size_t tail = packs * kPack + first;
  if (tail < n) y[tail] = value;
}

template <class T>
void launch_fill(T* y, std::size_t n, T value, int device) {
  if (n == 0) return;
  const cudaStream_t stream = activate(device);
  const std::size_t packs = n / kPack;
  fill_kernel<<<grid_for(packs > 0 ? packs : 1, device), kThreads, 0, stream>>>(y, n, value);
  check_launch("fill_kernel");
}

}  // namespace crossgrad::backends::cuda_detail
