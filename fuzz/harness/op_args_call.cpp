#include "harness/op_args_call.hpp"

#include <crossgrad/oracle/render.hpp>

#include <cstdint>
#include <string>

#include "harness/target.hpp"

namespace crossgrad::fuzz::op_args {

using oracle::HostArray;

namespace {

template <class T>
std::vector<T> as(const HostArray &h) {
  std::vector<T> out;
  out.reserve(h.values.size());
  for (double v : h.values) out.push_back(static_cast<T>(v));
  return out;
}

}  // namespace

DispatchTensor engine_tensor(const HostArray &h, const DispatchDevice &dev) {
  const Shape shape(h.shape);
  switch (h.dtype) {
    case DType::F32:
      return Dispatch::float_from_data(TensorData::from_f32(as<float>(h), shape), dev);
    case DType::F64:
      return Dispatch::float_from_data(TensorData::from_f64(h.values, shape), dev);
    case DType::I64:
      return Dispatch::int_from_data(TensorData::from_i64(oracle::int_values(h), shape), dev);
    case DType::I32:
      return Dispatch::int_from_data(TensorData::from_i32(as<std::int32_t>(h), shape), dev);
    case DType::I8:
      return Dispatch::int_from_data(TensorData::from_i8(as<std::int8_t>(h), shape), dev);
    case DType::U8:
      return Dispatch::int_from_data(TensorData::from_u8(as<std::uint8_t>(h), shape), dev);
    case DType::Bool: {
      std::vector<bool> b;
      for (double v : h.values) b.push_back(v != 0);
      return Dispatch::bool_from_data(TensorData::from_bool(std::move(b), shape), dev);
    }
    case DType::F16:
    case DType::BF16:
    case DType::QInt8:
      break;
  }
  fail("op_args: no operand of dtype " + oracle::render_dtype(h.dtype));
}

Call build(const OpArgsCase &c, const OpInfo &op, const DispatchDevice &dev) {
  ReferenceCall rc = reference_call(c);
  Call call;
  const bool indexed =
      takes_index_tensor(op.sig) || takes_mask(op.sig);  // the index tensor or the mask
  // attention's mask is its fourth operand (op_args.cpp's reference_call).
  const std::size_t mask_at = op.sig == OpSig::Attention ? (rc.args.attention_mask ? 3 : rc.operands.size()) : 1;
  for (std::size_t k = 0; k < rc.operands.size(); ++k) {
    if ((indexed || op.sig == OpSig::Attention) && k == mask_at) {
      call.indices = engine_tensor(rc.operands[k], dev);
      call.index_operand = k;
    } else {
      call.tensors.push_back(engine_tensor(rc.operands[k], dev));
    }
  }
  call.reference_operands = std::move(rc.operands);
  call.args = std::move(rc.args);
  return call;
}

// The Dispatch call of each Sig, in the registry's parameter order (CROSSGRAD_SIG_PARAMS_<Sig>).
#define CROSSGRAD_OPARGS_CALL_Unary(f) f(in.tensors[0])
#define CROSSGRAD_OPARGS_CALL_Binary(f) f(in.tensors[0], in.tensors[1])
#define CROSSGRAD_OPARGS_CALL_Scalar(f) f(in.tensors[0], a.scalar)
#define CROSSGRAD_OPARGS_CALL_Bounds(f) f(in.tensors[0], a.min, a.max)
#define CROSSGRAD_OPARGS_CALL_Dim(f) f(in.tensors[0], a.dim)
#define CROSSGRAD_OPARGS_CALL_DimPair(f) f(in.tensors[0], a.dim, a.dim1)
#define CROSSGRAD_OPARGS_CALL_ToShape(f) f(in.tensors[0], Shape(a.shape))
#define CROSSGRAD_OPARGS_CALL_ToDType(f) f(in.tensors[0], a.dtype)
#define CROSSGRAD_OPARGS_CALL_Axes(f) f(in.tensors[0], a.axes)
#define CROSSGRAD_OPARGS_CALL_Ranges(f) f(in.tensors[0], a.ranges)
#define CROSSGRAD_OPARGS_CALL_Select(f) f(in.tensors[0], a.dim, *in.indices)
#define CROSSGRAD_OPARGS_CALL_SelectAssign(f) f(in.tensors[0], a.dim, *in.indices, in.tensors[1])
#define CROSSGRAD_OPARGS_CALL_Gather(f) f(in.tensors[0], a.dim, *in.indices)
#define CROSSGRAD_OPARGS_CALL_Scatter(f) f(in.tensors[0], a.dim, *in.indices, in.tensors[1])
#define CROSSGRAD_OPARGS_CALL_MaskWhere(f) f(in.tensors[0], *in.indices, in.tensors[1])
#define CROSSGRAD_OPARGS_CALL_MaskFill(f) f(in.tensors[0], *in.indices, a.scalar)
#define CROSSGRAD_OPARGS_CALL_Affine(f) f(in.tensors[0], a.alpha, a.beta)
#define CROSSGRAD_OPARGS_CALL_Repeat(f) f(in.tensors[0], a.dim, a.times)
#define CROSSGRAD_OPARGS_CALL_Window(f) f(in.tensors[0], a.dim, a.size, a.step)
#define CROSSGRAD_OPARGS_CALL_BinaryDim(f) f(in.tensors[0], in.tensors[1], a.dim)
#define CROSSGRAD_OPARGS_CALL_RangesAssign(f) f(in.tensors[0], a.ranges, in.tensors[1])
#define CROSSGRAD_OPARGS_CALL_Sort(f) f(in.tensors[0], a.dim, a.descending)
#define CROSSGRAD_OPARGS_CALL_TopK(f) f(in.tensors[0], a.dim, a.k)
#define CROSSGRAD_OPARGS_CALL_ScatterUpdate(f) f(in.tensors[0], a.dim, *in.indices, in.tensors[1], a.update)
#define CROSSGRAD_OPARGS_CALL_GatherNd(f) f(in.tensors[0], *in.indices)
#define CROSSGRAD_OPARGS_CALL_ScatterNd(f) f(in.tensors[0], *in.indices, in.tensors[1], a.update)
#define CROSSGRAD_OPARGS_CALL_MaskSelect(f) f(in.tensors[0], *in.indices)
#define CROSSGRAD_OPARGS_CALL_Cat(f) f(in.tensors, a.dim)
#define CROSSGRAD_OPARGS_CALL_AvgPool2d(f) f(in.tensors[0], a.avg_pool2d)
#define CROSSGRAD_OPARGS_CALL_AvgPool2dBackward(f) f(in.tensors[0], in.tensors[1], a.avg_pool2d)
#define CROSSGRAD_OPARGS_CALL_AdaptivePool2d(f) f(in.tensors[0], a.output_size)
#define CROSSGRAD_OPARGS_CALL_AdaptivePool2dBackward(f) f(in.tensors[0], in.tensors[1])
#define CROSSGRAD_OPARGS_CALL_MaxPool2d(f) f(in.tensors[0], a.max_pool2d)
#define CROSSGRAD_OPARGS_CALL_MaxPool2dBackward(f) f(in.tensors[0], in.tensors[1], *in.indices, a.max_pool2d)
#define CROSSGRAD_OPARGS_CALL_AvgPool1d(f) f(in.tensors[0], a.avg_pool1d)
#define CROSSGRAD_OPARGS_CALL_Unfold4d(f) f(in.tensors[0], a.unfold_kernel, a.unfold)
#define CROSSGRAD_OPARGS_CALL_Fold4d(f) f(in.tensors[0], a.output_size, a.unfold_kernel, a.unfold)
#define CROSSGRAD_OPARGS_CALL_AdaptivePool3d(f) f(in.tensors[0], a.output_size_3d)
#define CROSSGRAD_OPARGS_CALL_AdaptivePool3dBackward(f) f(in.tensors[0], in.tensors[1])
#define CROSSGRAD_OPARGS_CALL_Interpolate(f) f(in.tensors[0], a.output_size, a.interpolate)
#define CROSSGRAD_OPARGS_CALL_InterpolateBackward(f) f(in.tensors[0], in.tensors[1], a.output_size, a.interpolate)
#define CROSSGRAD_OPARGS_CALL_AvgPool1dBackward(f) f(in.tensors[0], in.tensors[1], a.avg_pool1d)
#define CROSSGRAD_OPARGS_CALL_AdaptivePool1d(f) f(in.tensors[0], a.output_size_1d)
#define CROSSGRAD_OPARGS_CALL_AdaptivePool1dBackward(f) f(in.tensors[0], in.tensors[1])
#define CROSSGRAD_OPARGS_CALL_MaxPool1d(f) f(in.tensors[0], a.max_pool1d)
#define CROSSGRAD_OPARGS_CALL_MaxPool1dBackward(f) f(in.tensors[0], in.tensors[1], *in.indices, a.max_pool1d)
#define CROSSGRAD_OPARGS_CALL_Embedding(f) f(in.tensors[0], *in.indices)
#define CROSSGRAD_OPARGS_CALL_EmbeddingBackward(f) f(in.tensors[0], in.tensors[1], *in.indices)
#define CROSSGRAD_OPARGS_CALL_Linear(f) \
  f(in.tensors[0], in.tensors[1], in.tensors.size() > 2 ? std::optional<DispatchTensor>(in.tensors[2]) : std::nullopt)
#define CROSSGRAD_OPARGS_CALL_LayerNorm(f) \
  f(in.tensors[0], in.tensors[1], in.tensors.size() > 2 ? std::optional<DispatchTensor>(in.tensors[2]) : std::nullopt, a.scalar)
#define CROSSGRAD_OPARGS_CALL_BatchNorm(f) f(in.tensors[0], in.tensors[1], in.tensors[2], in.tensors[3], in.tensors[4], a.scalar)
#define CROSSGRAD_OPARGS_CALL_Attention(f)                                                                       \
  f(in.tensors[0], in.tensors[1], in.tensors[2], in.indices,                                                     \
    in.tensors.size() > 3 ? std::optional<DispatchTensor>(in.tensors[3]) : std::nullopt, a.attention)
#define CROSSGRAD_OPARGS_CALL_LinearXBackward(f) f(in.tensors[0], in.tensors[1])
#define CROSSGRAD_OPARGS_CALL_LinearWeightBackward(f) f(in.tensors[0], in.tensors[1])
#define CROSSGRAD_OPARGS_CALL_LinearBiasBackward(f) f(in.tensors[0])
#define CROSSGRAD_OPARGS_CALL_Conv2d(f)                                                                                 \
  f(in.tensors[0], in.tensors[1], in.tensors.size() > 2 ? std::optional<DispatchTensor>(in.tensors[2]) : std::nullopt, \
    a.conv2d)
#define CROSSGRAD_OPARGS_CALL_Conv2dBackward(f) f(in.tensors[0], in.tensors[1], in.tensors[2], a.conv2d)
#define CROSSGRAD_OPARGS_CALL_Conv2dBiasBackward(f) f(in.tensors[0], in.tensors[1], in.tensors[2])
#define CROSSGRAD_OPARGS_CALL_ConvTranspose2d(f)                                                                        \
  f(in.tensors[0], in.tensors[1], in.tensors.size() > 2 ? std::optional<DispatchTensor>(in.tensors[2]) : std::nullopt, \
    a.conv_transpose2d)
#define CROSSGRAD_OPARGS_CALL_ConvTranspose2dBackward(f) f(in.tensors[0], in.tensors[1], in.tensors[2], a.conv_transpose2d)
#define CROSSGRAD_OPARGS_CALL_Conv1d(f)                                                                                 \
  f(in.tensors[0], in.tensors[1], in.tensors.size() > 2 ? std::optional<DispatchTensor>(in.tensors[2]) : std::nullopt, \
    a.conv1d)
#define CROSSGRAD_OPARGS_CALL_Conv1dBackward(f) f(in.tensors[0], in.tensors[1], in.tensors[2], a.conv1d)
#define CROSSGRAD_OPARGS_CALL_Conv1dBiasBackward(f) f(in.tensors[0], in.tensors[1], in.tensors[2])
#define CROSSGRAD_OPARGS_CALL_ConvTranspose1d(f)                                                                       \
  f(in.tensors[0], in.tensors[1], in.tensors.size() > 2 ? std::optional<DispatchTensor>(in.tensors[2]) : std::nullopt, \
    a.conv_transpose1d)
#define CROSSGRAD_OPARGS_CALL_ConvTranspose1dBackward(f) f(in.tensors[0], in.tensors[1], in.tensors[2], a.conv_transpose1d)
#define CROSSGRAD_OPARGS_CALL_Rfft(f) f(in.tensors[0], a.dim, a.fft_size)
#define CROSSGRAD_OPARGS_CALL_Irfft(f) f(in.tensors[0], in.tensors[1], a.dim, a.fft_size)
#define CROSSGRAD_OPARGS_CALL_Conv3d(f)                                                                                 \
  f(in.tensors[0], in.tensors[1], in.tensors.size() > 2 ? std::optional<DispatchTensor>(in.tensors[2]) : std::nullopt, \
    a.conv3d)
#define CROSSGRAD_OPARGS_CALL_Conv3dBackward(f) f(in.tensors[0], in.tensors[1], in.tensors[2], a.conv3d)
#define CROSSGRAD_OPARGS_CALL_Conv3dBiasBackward(f) f(in.tensors[0], in.tensors[1], in.tensors[2])
#define CROSSGRAD_OPARGS_CALL_ConvTranspose3d(f)                                                                       \
  f(in.tensors[0], in.tensors[1], in.tensors.size() > 2 ? std::optional<DispatchTensor>(in.tensors[2]) : std::nullopt, \
    a.conv_transpose3d)
#define CROSSGRAD_OPARGS_CALL_ConvTranspose3dBackward(f) f(in.tensors[0], in.tensors[1], in.tensors[2], a.conv_transpose3d)

DispatchTensor dispatch(OpId op, const Call &in) {
  const oracle::OpArgs &a = in.args;
  switch (op) {
#define CROSSGRAD_X(name, method, Sig, Operand, Result, Rule) \
  case OpId::name:                                            \
    return CROSSGRAD_OPARGS_CALL_##Sig(Dispatch::name);
    CROSSGRAD_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X
  }
  fail("dispatch: not a registry op");
}

}  // namespace crossgrad::fuzz::op_args
