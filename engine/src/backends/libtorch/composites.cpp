// LibTorch: the ops written once for every backend as compositions of its own ops (composite_ops.hpp).
#include "plugin.hpp"
#include "../composite_ops.hpp"
#include "../composite_fft.hpp"

namespace crossgrad::backends {

LibTorchTensor LibTorch::softmin(const LibTorchTensor& tensor, std::size_t dim) { return composite::softmin<LibTorch>(tensor, dim); }
LibTorchTensor LibTorch::hard_sigmoid(const LibTorchTensor& tensor, double alpha, double beta) {
  return composite::hard_sigmoid<LibTorch>(tensor, alpha, beta);
}

LibTorchTensor LibTorch::float_cross(const LibTorchTensor& lhs, const LibTorchTensor& rhs, std::size_t dim) {
  return composite::cross<LibTorch>(lhs, rhs, dim);
}

// The float_ and int_ scatter_nd: one composite, calling the scatter of its kind; bool_argwhere
// reads the mask on the host.
CROSSGRAD_KIND_MEMBER(LibTorch, float_scatter_nd, ScatterNd, composite::scatter_nd<LibTorch>)
CROSSGRAD_KIND_MEMBER(LibTorch, int_scatter_nd, ScatterNd, composite::scatter_nd<LibTorch>)
CROSSGRAD_KIND_MEMBER(LibTorch, bool_argwhere, Unary, composite::argwhere<LibTorch>)

// Note [One layout kernel for every kind] (kind_members.hpp).
CROSSGRAD_KIND_MEMBERS(LibTorch, transpose, Unary, composite::transpose<LibTorch>)
CROSSGRAD_KIND_MEMBERS(LibTorch, repeat_dim, Repeat, composite::repeat_dim<LibTorch>)
CROSSGRAD_KIND_MEMBERS(LibTorch, unfold, Window, composite::unfold<LibTorch>)
CROSSGRAD_KIND_MEMBERS(LibTorch, gather_nd, GatherNd, composite::gather_nd<LibTorch>)
CROSSGRAD_KIND_MEMBERS(LibTorch, mask_select, MaskSelect, composite::mask_select<LibTorch>)

// rfft and irfft: the DFT as a matrix product over this backend's matmul (Note [The DFT as a matrix
// product]) (LibTorch too: the same twiddles meet every sample as on the other backends, where ATen's FFT skips zero twiddles).
LibTorchTensor LibTorch::rfft(const LibTorchTensor& tensor, std::size_t dim, std::optional<std::size_t> n) {
  return composite::rfft<LibTorch>(tensor, dim, n);
}
LibTorchTensor LibTorch::irfft(const LibTorchTensor& tensor, const LibTorchTensor& imaginary, std::size_t dim, std::optional<std::size_t> n) {
  return composite::irfft<LibTorch>(tensor, imaginary, dim, n);
}

}  // namespace crossgrad::backends
