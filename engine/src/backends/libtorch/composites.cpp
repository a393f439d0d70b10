// LibTorch: the ops written once for every backend as compositions of its own ops (composite_ops.hpp).
#include "plugin.hpp"
#include "../composite_ops.hpp"

namespace crossgrad::backends {

LibTorchTensor LibTorch::float_transpose(const LibTorchTensor& tensor) { return composite::transpose<LibTorch>(tensor); }
LibTorchTensor LibTorch::softmin(const LibTorchTensor& tensor, std::size_t dim) { return composite::softmin<LibTorch>(tensor, dim); }

}  // namespace crossgrad::backends
