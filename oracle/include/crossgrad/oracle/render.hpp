#pragma once
// The expected debug rendering of a kind (CONTRACT section 3), written from the grammar alone.
// The only fact taken from a built tensor is the node id of an autodiff primitive.
#include <crossgrad/oracle/spec.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace crossgrad::oracle {

std::string render_shape(const std::vector<std::size_t>& shape);  // "[2, 3]", "[]"
std::string render_dtype(DType dtype);                            // "F32"
std::string render_device(const DeviceSpec& device);              // "Cpu", "Cuda(1)"
// Backend "Tensor { shape: .., dtype: .., device: .. }"
std::string render_struct(const TensorSpec& spec);
// Float(..) | Int(..) | Bool(..) | Quantized(..) | Autodiff(AutodiffTensor { .., node: NodeId(n) })
std::string render_primitive(const TensorSpec& spec, std::optional<std::uint64_t> node);
// Backend(primitive) wrapped autodiff_depth times in Autodiff(..).
std::string render_kind(const KindSpec& spec, std::optional<std::uint64_t> node);

// The grammar of section 3 as an anchored ECMAScript regex, for checking renderings.
const std::string& kind_grammar_regex();

}  // namespace crossgrad::oracle
