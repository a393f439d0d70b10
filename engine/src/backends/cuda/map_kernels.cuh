#pragma once
// Launchers for the element-wise kernels (kernels.cuh) shared by the op families: a contiguous
// map (one input, one output, any element types), a same-shape binary map, a strided binary map
// with broadcasting, a broadcast comparison to Bool and a fill. Every launcher returns without
// launching when there is nothing to do, so no 0-block grid is ever launched.
#include "cuda_common.cuh"
#include "kernels.cuh"

#include <crossgrad/backends/cuda_kernels/dim_kernels.cuh>

namespace crossgrad::backends::cuda_detail {

template <class In, class Out, class Op>
void launch_map(const In* x, Out* y, std::size_t n, int device, Op op, const char* name) {
  if (n == 0) return;
  const cudaStream_t stream = activate(device);
  const std::size_t packs = n / kPack;
  const unsigned blocks = grid_for(packs > 0 ? packs : 1, device);
  map_kernel<<<blocks, kThreads, 0, stream>>>(x, y, n, op);
  check_launch(name);
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

// out = op(lhs, rhs) ? 1 : 0 (Bool, one byte) with NumPy broadcasting; out already has the
// broadcast shape.
template <class T, class Op>
void launch_compare(const CudaTensor& lhs, const CudaTensor& rhs, CudaTensor& out, Op op, const char* name) {
  const std::size_t n = out.shape.num_elements();
  if (n == 0) return;
  const Collapsed c = collapse(out.shape.dims(), {rules::broadcast_strides(lhs.shape, out.shape),
                                                  rules::broadcast_strides(rhs.shape, out.shape)});
  const int device = out.dev.index;
  const cudaStream_t stream = activate(device);
  const unsigned blocks = grid_for(n, device);
  // 32-bit index math when the grid-stride loop cannot wrap (offsets never exceed n: inputs are
  // no larger than the output).
  if (n <= (std::size_t{1} << 31)) {
    compare_kernel<T><<<blocks, kThreads, 0, stream>>>(data_of<T>(lhs), data_of<T>(rhs), data_of<std::uint8_t>(out),
                                                       static_cast<std::uint32_t>(n), to_strided<std::uint32_t, 2>(c), op);
  } else {
    compare_kernel<T><<<blocks, kThreads, 0, stream>>>(data_of<T>(lhs), data_of<T>(rhs), data_of<std::uint8_t>(out),
                                                       static_cast<std::uint64_t>(n), to_strided<std::uint64_t, 2>(c), op);
  }
  check_launch(name);
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
