// Flex: the ops written once for every backend as compositions of its own ops (composite_ops.hpp).
#include "common.hpp"
#include "../composite_ops.hpp"

namespace crossgrad::backends {

FlexTensor Flex::float_transpose(const FlexTensor& tensor) { return composite::transpose<Flex>(tensor); }
FlexTensor Flex::softmin(const FlexTensor& tensor, std::size_t dim) { return composite::softmin<Flex>(tensor, dim); }

}  // namespace crossgrad::backends
