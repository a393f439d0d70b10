// NdArray: the ops written once for every backend as compositions of its own ops (composite_ops.hpp).
#include "common.hpp"
#include "../composite_ops.hpp"

namespace crossgrad::backends {

NdArrayTensor NdArray::float_transpose(const NdArrayTensor& tensor) { return composite::transpose<NdArray>(tensor); }
NdArrayTensor NdArray::softmin(const NdArrayTensor& tensor, std::size_t dim) { return composite::softmin<NdArray>(tensor, dim); }

}  // namespace crossgrad::backends
