// Cuda: the ops written once for every backend as compositions of its own ops (composite_ops.hpp).
#include "map_kernels.cuh"
#include "../composite_ops.hpp"

namespace crossgrad::backends {

CudaTensor Cuda::float_transpose(const CudaTensor& tensor) { return composite::transpose<Cuda>(tensor); }
CudaTensor Cuda::softmin(const CudaTensor& tensor, std::size_t dim) { return composite::softmin<Cuda>(tensor, dim); }

}  // namespace crossgrad::backends
