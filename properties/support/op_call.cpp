#include "support/op_call.hpp"

#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>

#include <cstdint>
#include <stdexcept>

namespace crossgrad::properties {
namespace og = crossgrad::oracle;

DispatchTensor upload(const og::HostArray& h, std::size_t backend, bool tracked) {
  const DispatchDevice device = og::dispatch_device(backend, og::all_backends().at(backend).default_device, tracked);
  const Shape shape(h.shape);
  const auto as = [&]<class T>(T) { return std::vector<T>(h.values.begin(), h.values.end()); };
  // An if-chain, not a switch: the host arrays here hold these dtypes only.
  if (h.dtype == DType::F32) return Dispatch::float_from_data(TensorData::from_f32(as(float{}), shape), device);
  if (h.dtype == DType::F64) return Dispatch::float_from_data(TensorData::from_f64(h.values, shape), device);
  if (h.dtype == DType::I64) return Dispatch::int_from_data(TensorData::from_i64(og::int_values(h), shape), device);
  if (h.dtype == DType::I32) return Dispatch::int_from_data(TensorData::from_i32(as(std::int32_t{}), shape), device);
  if (h.dtype == DType::I8) return Dispatch::int_from_data(TensorData::from_i8(as(std::int8_t{}), shape), device);
  if (h.dtype == DType::U8) return Dispatch::int_from_data(TensorData::from_u8(as(std::uint8_t{}), shape), device);
  if (h.dtype == DType::Bool) {
    std::vector<bool> b;
    for (double v : h.values) b.push_back(v != 0);
    return Dispatch::bool_from_data(TensorData::from_bool(b, shape), device);
  }
  throw std::logic_error("upload: no host array of dtype " + og::render_dtype(h.dtype));
}

#define CG_CALL_Unary(name) Dispatch::name(t[0])
#define CG_CALL_Binary(name) Dispatch::name(t[0], t[1])
#define CG_CALL_Scalar(name) Dispatch::name(t[0], a.scalar)
#define CG_CALL_Bounds(name) Dispatch::name(t[0], a.min, a.max)
#define CG_CALL_Dim(name) Dispatch::name(t[0], a.dim)
#define CG_CALL_Rfft(name) Dispatch::name(t[0], a.dim, a.fft_size)
#define CG_CALL_Irfft(name) Dispatch::name(t[0], t[1], a.dim, a.fft_size)
#define CG_CALL_DimPair(name) Dispatch::name(t[0], a.dim, a.dim1)
#define CG_CALL_ToShape(name) Dispatch::name(t[0], Shape(a.shape))
#define CG_CALL_ToDType(name) Dispatch::name(t[0], a.dtype)
#define CG_CALL_Axes(name) Dispatch::name(t[0], a.axes)
#define CG_CALL_Ranges(name) Dispatch::name(t[0], a.ranges)
#define CG_CALL_Select(name) Dispatch::name(t[0], a.dim, t[1])
#define CG_CALL_SelectAssign(name) Dispatch::name(t[0], a.dim, t[1], t[2])
#define CG_CALL_Gather(name) Dispatch::name(t[0], a.dim, t[1])
#define CG_CALL_Scatter(name) Dispatch::name(t[0], a.dim, t[1], t[2])
#define CG_CALL_MaskWhere(name) Dispatch::name(t[0], t[1], t[2])
#define CG_CALL_MaskFill(name) Dispatch::name(t[0], t[1], a.scalar)
#define CG_CALL_Affine(name) Dispatch::name(t[0], a.alpha, a.beta)
#define CG_CALL_Repeat(name) Dispatch::name(t[0], a.dim, a.times)
#define CG_CALL_Window(name) Dispatch::name(t[0], a.dim, a.size, a.step)
#define CG_CALL_BinaryDim(name) Dispatch::name(t[0], t[1], a.dim)
#define CG_CALL_RangesAssign(name) Dispatch::name(t[0], a.ranges, t[1])
#define CG_CALL_Sort(name) Dispatch::name(t[0], a.dim, a.descending)
#define CG_CALL_TopK(name) Dispatch::name(t[0], a.dim, a.k)
#define CG_CALL_ScatterUpdate(name) Dispatch::name(t[0], a.dim, t[1], t[2], a.update)
#define CG_CALL_GatherNd(name) Dispatch::name(t[0], t[1])
#define CG_CALL_ScatterNd(name) Dispatch::name(t[0], t[1], t[2], a.update)
#define CG_CALL_MaskSelect(name) Dispatch::name(t[0], t[1])
#define CG_CALL_Cat(name) Dispatch::name(t, a.dim)
#define CG_CALL_AvgPool2d(name) Dispatch::name(t[0], a.avg_pool2d)
#define CG_CALL_AvgPool2dBackward(name) Dispatch::name(t[0], t[1], a.avg_pool2d)
#define CG_CALL_AdaptivePool2d(name) Dispatch::name(t[0], a.output_size)
#define CG_CALL_AdaptivePool2dBackward(name) Dispatch::name(t[0], t[1])
#define CG_CALL_MaxPool2d(name) Dispatch::name(t[0], a.max_pool2d)
#define CG_CALL_MaxPool2dBackward(name) Dispatch::name(t[0], t[2], t[1], a.max_pool2d)  // {x, indices, grad}
#define CG_CALL_AvgPool1d(name) Dispatch::name(t[0], a.avg_pool1d)
#define CG_CALL_Unfold4d(name) Dispatch::name(t[0], a.unfold_kernel, a.unfold)
#define CG_CALL_Fold4d(name) Dispatch::name(t[0], a.output_size, a.unfold_kernel, a.unfold)
#define CG_CALL_AdaptivePool3d(name) Dispatch::name(t[0], a.output_size_3d)
#define CG_CALL_AdaptivePool3dBackward(name) Dispatch::name(t[0], t[1])
#define CG_CALL_Interpolate(name) Dispatch::name(t[0], a.output_size, a.interpolate)
#define CG_CALL_InterpolateBackward(name) Dispatch::name(t[0], t[1], a.output_size, a.interpolate)
#define CG_CALL_AvgPool1dBackward(name) Dispatch::name(t[0], t[1], a.avg_pool1d)
#define CG_CALL_AdaptivePool1d(name) Dispatch::name(t[0], a.output_size_1d)
#define CG_CALL_AdaptivePool1dBackward(name) Dispatch::name(t[0], t[1])
#define CG_CALL_MaxPool1d(name) Dispatch::name(t[0], a.max_pool1d)
#define CG_CALL_MaxPool1dBackward(name) Dispatch::name(t[0], t[2], t[1], a.max_pool1d)  // {x, indices, grad}
#define CG_CALL_Embedding(name) Dispatch::name(t[0], t[1])
#define CG_CALL_EmbeddingBackward(name) Dispatch::name(t[0], t[2], t[1])  // {weights, indices, grad}
#define CG_CALL_Linear(name) Dispatch::name(t[0], t[1], t.size() > 2 ? std::optional<DispatchTensor>(t[2]) : std::nullopt)
#define CG_CALL_LinearXBackward(name) Dispatch::name(t[0], t[1])
#define CG_CALL_LinearWeightBackward(name) Dispatch::name(t[0], t[1])
#define CG_CALL_LinearBiasBackward(name) Dispatch::name(t[0])
#define CG_CALL_Conv2d(name) \
  Dispatch::name(t[0], t[1], t.size() > 2 ? std::optional<DispatchTensor>(t[2]) : std::nullopt, a.conv2d)
#define CG_CALL_Conv2dBackward(name) Dispatch::name(t[0], t[1], t[2], a.conv2d)
#define CG_CALL_Conv2dBiasBackward(name) Dispatch::name(t[0], t[1], t[2])
#define CG_CALL_ConvTranspose2d(name) \
  Dispatch::name(t[0], t[1], t.size() > 2 ? std::optional<DispatchTensor>(t[2]) : std::nullopt, a.conv_transpose2d)
#define CG_CALL_ConvTranspose2dBackward(name) Dispatch::name(t[0], t[1], t[2], a.conv_transpose2d)
#define CG_CALL_Conv1d(name) \
  Dispatch::name(t[0], t[1], t.size() > 2 ? std::optional<DispatchTensor>(t[2]) : std::nullopt, a.conv1d)
#define CG_CALL_Conv1dBackward(name) Dispatch::name(t[0], t[1], t[2], a.conv1d)
#define CG_CALL_Conv1dBiasBackward(name) Dispatch::name(t[0], t[1], t[2])
#define CG_CALL_ConvTranspose1d(name) \
  Dispatch::name(t[0], t[1], t.size() > 2 ? std::optional<DispatchTensor>(t[2]) : std::nullopt, a.conv_transpose1d)
#define CG_CALL_ConvTranspose1dBackward(name) Dispatch::name(t[0], t[1], t[2], a.conv_transpose1d)
#define CG_CALL_Conv3d(name) \
  Dispatch::name(t[0], t[1], t.size() > 2 ? std::optional<DispatchTensor>(t[2]) : std::nullopt, a.conv3d)
#define CG_CALL_Conv3dBackward(name) Dispatch::name(t[0], t[1], t[2], a.conv3d)
#define CG_CALL_Conv3dBiasBackward(name) Dispatch::name(t[0], t[1], t[2])
#define CG_CALL_ConvTranspose3d(name) \
  Dispatch::name(t[0], t[1], t.size() > 2 ? std::optional<DispatchTensor>(t[2]) : std::nullopt, a.conv_transpose3d)
#define CG_CALL_ConvTranspose3dBackward(name) Dispatch::name(t[0], t[1], t[2], a.conv_transpose3d)
#define CG_CALL_LayerNorm(name) \
  Dispatch::name(t[0], t[1], t.size() > 2 ? std::optional<DispatchTensor>(t[2]) : std::nullopt, a.scalar)
#define CG_CALL_BatchNorm(name) Dispatch::name(t[0], t[1], t[2], t[3], t[4], a.scalar)
#define CG_CALL_Attention(name) Dispatch::name(t[0], t[1], t[2], attention_mask(t, a), attention_bias(t, a), a.attention)
namespace {
// attention's operands {query, key, value, [mask], [bias]} (og::OpArgs says which follow).
std::optional<DispatchTensor> attention_mask(const std::vector<DispatchTensor>& t, const og::OpArgs& a) {
  return a.attention_mask ? std::optional<DispatchTensor>(t[3]) : std::nullopt;
}
std::optional<DispatchTensor> attention_bias(const std::vector<DispatchTensor>& t, const og::OpArgs& a) {
  return a.attention_bias ? std::optional<DispatchTensor>(t[a.attention_mask ? 4 : 3]) : std::nullopt;
}
}  // namespace
DispatchTensor call_op(OpId op, const std::vector<DispatchTensor>& t, const og::OpArgs& a) {
  switch (op) {
#define CG_CALL_CASE(name, method, Sig, Operand, Result, Rule) \
  case OpId::name:                                             \
    return CG_CALL_##Sig(name);
    CROSSGRAD_OPS(CG_CALL_CASE)
#undef CG_CALL_CASE
  }
  throw std::logic_error("call_op: not a registry op");
}

std::vector<double> values_of(OpKind kind, const DispatchTensor& t) {
  std::vector<double> out;
  switch (kind) {
    case OpKind::Float: return Dispatch::float_into_data(t).to_f64();
    case OpKind::Int:
      for (std::int64_t v : Dispatch::int_into_data(t).to_i64()) out.push_back(static_cast<double>(v));
      return out;
    case OpKind::Bool:
      for (bool b : Dispatch::bool_into_data(t).to_bool()) out.push_back(b ? 1 : 0);
      return out;
  }
  throw std::logic_error("values_of: unknown kind");
}

}  // namespace crossgrad::properties
