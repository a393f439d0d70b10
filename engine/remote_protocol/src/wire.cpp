#include <crossgrad/remote_protocol/wire.hpp>

#include <crossgrad/ops/op_list.hpp>

#include <cstddef>
#include <span>

namespace crossgrad::remote::wire {

void put_shape(const ::crossgrad::Shape& shape, Dims* out) {
  out->Clear();
  out->Reserve(static_cast<int>(shape.rank()));
  for (std::size_t d : shape.dims()) out->Add(d);
}

::crossgrad::Shape get_shape(const Dims& dims) {
  return ::crossgrad::Shape(std::vector<std::size_t>(dims.begin(), dims.end()));
}

::crossgrad::DType get_dtype(std::uint32_t value) {
  const std::size_t count = ::crossgrad::all_dtypes().size();
  if (value >= count) {
    throw WireError("dtype value " + std::to_string(value) + " is not a crossgrad DType (0.." +
                    std::to_string(count - 1) + ")");
  }
  return static_cast<::crossgrad::DType>(value);
}

void put_data(const ::crossgrad::TensorData& data, proto::TensorData* out) {
  put_shape(data.shape(), out->mutable_shape());
  out->set_dtype(put_dtype(data.dtype()));
  const std::span<const std::byte> bytes = data.bytes();
  out->set_data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

::crossgrad::TensorData get_data(const proto::TensorData& data) {
  const ::crossgrad::DType dtype = get_dtype(data.dtype());
  const std::string& bytes = data.data();
  return ::crossgrad::TensorData::from_bytes(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()),
      get_shape(data.shape()), dtype);
}

std::string op_code_name(std::uint32_t op) {
  if (op < ::crossgrad::kOpCount) return std::string(::crossgrad::kOps[op].name);
  switch (op) {
    case kFloatFull:
      return "float_full";
    case kQuantize:
      return "quantize";
    case kDequantize:
      return "dequantize";
    default:
      return "op code " + std::to_string(op);
  }
}

std::uint64_t ArgReader::operand() {
  if (operands_ >= call_.operands_size()) {
    throw WireError("missing operand " + std::to_string(operands_ + 1) + " (the call has " +
                    std::to_string(call_.operands_size()) + ")");
  }
  return call_.operands(operands_++);
}

std::vector<std::uint64_t> ArgReader::remaining_operands() {
  if (operands_ >= call_.operands_size()) throw WireError("missing operands (at least one tensor)");
  std::vector<std::uint64_t> out(call_.operands().begin() + operands_, call_.operands().end());
  operands_ = call_.operands_size();
  return out;
}

std::optional<std::uint64_t> ArgReader::optional_operand() {
  if (!flag()) return std::nullopt;
  return operand();
}

double ArgReader::scalar() {
  if (scalars_ >= call_.scalars_size()) {
    throw WireError("missing scalar " + std::to_string(scalars_ + 1) + " (the call has " +
                    std::to_string(call_.scalars_size()) + ")");
  }
  return call_.scalars(scalars_++);
}

std::size_t ArgReader::dim() {
  if (dims_ >= call_.dims_size()) {
    throw WireError("missing dim " + std::to_string(dims_ + 1) + " (the call has " +
                    std::to_string(call_.dims_size()) + ")");
  }
  return call_.dims(dims_++);
}

bool ArgReader::flag() {
  const std::size_t value = dim();
  if (value > 1) throw WireError("a flag must be 0 or 1, got " + std::to_string(value));
  return value == 1;
}

::crossgrad::IndexingUpdateOp ArgReader::update() {
  const std::size_t value = dim();
  if (value >= std::size(::crossgrad::kIndexingUpdateOps)) {
    throw WireError("an indexing update code must be below " + std::to_string(std::size(::crossgrad::kIndexingUpdateOps)) +
                    ", got " + std::to_string(value));
  }
  return ::crossgrad::kIndexingUpdateOps[value];
}

::crossgrad::Size2 ArgReader::size2() {
  const std::size_t first = dim();
  return {first, dim()};
}

::crossgrad::Size1 ArgReader::size1() { return {dim()}; }

::crossgrad::Size3 ArgReader::size3() {
  ::crossgrad::Size3 s;
  for (std::size_t& v : s) v = dim();
  return s;
}

::crossgrad::InterpolateOptions ArgReader::interpolate_options() {
  const std::size_t mode = dim();
  if (mode > 255) throw WireError("an interpolate mode code must be below 256, got " + std::to_string(mode));
  ::crossgrad::InterpolateOptions o;
  o.mode = static_cast<::crossgrad::InterpolateMode>(mode);
  o.align_corners = flag();
  return o;
}

::crossgrad::AttentionOptions ArgReader::attention_options() {
  const bool has_scale = flag(), has_softcap = flag();
  ::crossgrad::AttentionOptions o;
  o.is_causal = flag();
  const double scale_value = scalar(), softcap_value = scalar();
  if (has_scale) o.scale = scale_value;
  if (has_softcap) o.softcap = softcap_value;
  return o;
}

::crossgrad::UnfoldOptions ArgReader::unfold_options() {
  ::crossgrad::UnfoldOptions o;
  o.stride = size2();
  o.padding = size2();
  o.dilation = size2();
  return o;
}

::crossgrad::AvgPool1dOptions ArgReader::avg_pool1d_options() {
  ::crossgrad::AvgPool1dOptions o;
  o.kernel_size = size1();
  o.stride = size1();
  o.padding = size1();
  o.count_include_pad = flag();
  o.ceil_mode = flag();
  return o;
}

::crossgrad::MaxPool1dOptions ArgReader::max_pool1d_options() {
  ::crossgrad::MaxPool1dOptions o;
  o.kernel_size = size1();
  o.stride = size1();
  o.padding = size1();
  o.dilation = size1();
  o.ceil_mode = flag();
  return o;
}

::crossgrad::AvgPool2dOptions ArgReader::avg_pool2d_options() {
  ::crossgrad::AvgPool2dOptions o;
  o.kernel_size = size2();
  o.stride = size2();
  o.padding = size2();
  o.count_include_pad = flag();
  o.ceil_mode = flag();
  return o;
}

::crossgrad::MaxPool2dOptions ArgReader::max_pool2d_options() {
  ::crossgrad::MaxPool2dOptions o;
  o.kernel_size = size2();
  o.stride = size2();
  o.padding = size2();
  o.dilation = size2();
  o.ceil_mode = flag();
  return o;
}

::crossgrad::Conv2dOptions ArgReader::conv2d_options() {
  ::crossgrad::Conv2dOptions o;
  o.stride = size2();
  o.padding = size2();
  o.dilation = size2();
  o.groups = dim();
  return o;
}

::crossgrad::Conv1dOptions ArgReader::conv1d_options() {
  ::crossgrad::Conv1dOptions o;
  o.stride[0] = dim();
  o.padding[0] = dim();
  o.dilation[0] = dim();
  o.groups = dim();
  return o;
}

::crossgrad::ConvTranspose1dOptions ArgReader::conv_transpose1d_options() {
  ::crossgrad::ConvTranspose1dOptions o;
  o.stride[0] = dim();
  o.padding[0] = dim();
  o.padding_out[0] = dim();
  o.dilation[0] = dim();
  o.groups = dim();
  return o;
}

::crossgrad::ConvTranspose2dOptions ArgReader::conv_transpose2d_options() {
  ::crossgrad::ConvTranspose2dOptions o;
  o.stride = size2();
  o.padding = size2();
  o.padding_out = size2();
  o.dilation = size2();
  o.groups = dim();
  return o;
}

std::optional<std::size_t> ArgReader::optional_size() {
  if (!flag()) return std::nullopt;
  return dim();
}

::crossgrad::Conv3dOptions ArgReader::conv3d_options() {
  ::crossgrad::Conv3dOptions o;
  o.stride = size3();
  o.padding = size3();
  o.dilation = size3();
  o.groups = dim();
  return o;
}

::crossgrad::ConvTranspose3dOptions ArgReader::conv_transpose3d_options() {
  ::crossgrad::ConvTranspose3dOptions o;
  o.stride = size3();
  o.padding = size3();
  o.padding_out = size3();
  o.dilation = size3();
  o.groups = dim();
  return o;
}

std::vector<std::size_t> ArgReader::remaining_dims() {
  std::vector<std::size_t> out(call_.dims().begin() + dims_, call_.dims().end());
  dims_ = call_.dims_size();
  return out;
}

::crossgrad::Shape ArgReader::shape() {
  if (shape_read_) throw WireError("the call's shape is read twice");
  shape_read_ = true;
  return get_shape(call_.shape());
}

::crossgrad::DType ArgReader::dtype() { return get_dtype(call_.dtype()); }

std::vector<::crossgrad::Range> ArgReader::ranges() {
  if (ranges_read_) throw WireError("the call's ranges are read twice");
  ranges_read_ = true;
  std::vector<::crossgrad::Range> out;
  out.reserve(static_cast<std::size_t>(call_.ranges_size()));
  for (const proto::Range& r : call_.ranges()) out.push_back(::crossgrad::Range{r.start(), r.end()});
  return out;
}

void ArgReader::finish() const {
  auto extra = [](const char* what, int used, int size) {
    throw WireError("extra " + std::string(what) + ": the op takes " + std::to_string(used) +
                    ", the call has " + std::to_string(size));
  };
  if (operands_ != call_.operands_size()) extra("operands", operands_, call_.operands_size());
  if (scalars_ != call_.scalars_size()) extra("scalars", scalars_, call_.scalars_size());
  if (dims_ != call_.dims_size()) extra("dims", dims_, call_.dims_size());
  if (!shape_read_ && call_.shape_size() != 0) extra("shape dims", 0, call_.shape_size());
  if (!ranges_read_ && call_.ranges_size() != 0) extra("ranges", 0, call_.ranges_size());
}

}  // namespace crossgrad::remote::wire
