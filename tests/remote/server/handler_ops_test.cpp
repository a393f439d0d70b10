// Every registry op through Handler gives what Flex gives when called directly: the same bytes
// (bitwise: NaN payloads and -0.0 count) or the same panic with the same message. The arguments
// come per signature (OpSig), the calls are generic over each Flex function's parameter types, so
// a new registry op is covered here without a new line.
#include "handler_test_support.hpp"

#include <crossgrad/remote_protocol/wire.hpp>

#include <crossgrad/backends/flex.hpp>
#include <crossgrad/core/panic.hpp>

#include <functional>
#include <tuple>
#include <type_traits>
#include <variant>

namespace crossgrad::server::testing {
namespace {

using backends::Flex;
using backends::FlexTensor;

// One set of arguments, in the fields the protocol gives them.
struct Args {
  std::vector<TensorData> tensors;
  std::vector<double> scalars;
  std::vector<std::size_t> dims;
  Shape shape;
  DType dtype = DType::F32;
  std::vector<Range> ranges;
  std::string label;
};

// A result or a panic.
using Outcome = std::variant<TensorData, std::pair<std::string, std::string>>;

std::string describe(const Outcome& o) {
  if (const auto* p = std::get_if<1>(&o)) return "panic " + p->first + ": " + p->second;
  const auto& d = std::get<0>(o);
  return "tensor " + d.shape().to_string() + " " + std::string(dtype_name(d.dtype()));
}

TensorData floats(Shape shape, float start, float step) {
  std::vector<float> v(shape.num_elements());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = start + step * static_cast<float>(i);
  return TensorData::from_f32(std::move(v), std::move(shape));
}

TensorData receiver(OpKind kind) {
  switch (kind) {
    case OpKind::Float:
      return floats(Shape{3, 3}, -1.25f, 0.375f);
    case OpKind::Int:
      return TensorData::from_i64({-4, -1, 0, 1, 2, 3, 5, 8, 100}, Shape{3, 3});
    case OpKind::Bool:
      return TensorData::from_bool({true, false, false, true, true, false, true, true, false}, Shape{3, 3});
  }
  return floats(Shape{3, 3}, 0, 1);
}

// Float values as a tensor of the receiver's kind (the index updates' values): I64 toward zero,
// Bool true where nonzero.
TensorData of_kind(OpKind kind, const TensorData& floats) {
  const std::vector<double> v = floats.to_f64();
  if (kind == OpKind::Int) {
    std::vector<std::int64_t> ints(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) ints[i] = static_cast<std::int64_t>(v[i]);
    return TensorData::from_i64(std::move(ints), floats.shape());
  }
  if (kind == OpKind::Bool) {
    std::vector<bool> truths(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) truths[i] = v[i] != 0;
    return TensorData::from_bool(std::move(truths), floats.shape());
  }
  return floats;
}

std::vector<Args> arguments(const OpInfo& info) {
  const TensorData a = receiver(info.operand);
  const TensorData b = floats(Shape{3, 3}, 0.5f, -0.25f);
  const TensorData row = floats(Shape{3}, 2.0f, 1.0f);
  const TensorData idx = TensorData::from_i64({2, 0}, Shape{2});
  const TensorData values = of_kind(info.operand, floats(Shape{2, 3}, 7.0f, 0.5f));
  const TensorData mask = TensorData::from_bool({true, false, false, true, true, false, false, false, true}, Shape{3, 3});
  const TensorData mask_row = TensorData::from_bool({false, true, true}, Shape{3});
  const TensorData gather_idx = TensorData::from_i64({2, 2, 0, 1, 1, 0}, Shape{3, 2});
  const TensorData gather_values = of_kind(info.operand, floats(Shape{3, 2}, -3.0f, 1.5f));
  const TensorData nd_idx = TensorData::from_i64({2, 0, 2}, Shape{3, 1});
  const TensorData values_3x3 = of_kind(info.operand, floats(Shape{3, 3}, 4.0f, -0.5f));
  const TensorData image = floats(Shape{1, 2, 4, 3}, 1.5f, -0.75f);  // the module ops' [batch, channels, h, w]
  const TensorData sequence = floats(Shape{1, 2, 6}, 1.5f, -0.75f);  // the 1-D module ops' [batch, channels, length]
  const TensorData volume = floats(Shape{1, 1, 2, 3, 2}, 1.5f, -0.75f);  // the 3-D ops' [batch, channels, depth, h, w]
  const TensorData image_grad_k3s2 = floats(Shape{1, 2, 2, 2}, 0.5f, 2.0f);
  switch (info.sig) {
    case OpSig::Unary:
      return {{.tensors = {a}, .label = "[3, 3]"}};
    case OpSig::Binary:
      if (info.operand == OpKind::Int) {  // a zero divisor element, and a row without one
        return {{.tensors = {a, TensorData::from_i64({3, -2, 7, 0, 1, 2, -5, 4, 9}, Shape{3, 3})}, .label = "[3, 3] [3, 3]"},
                {.tensors = {a, TensorData::from_i64({2, -3, 5}, Shape{3})}, .label = "[3, 3] [3]"}};
      }
      if (info.operand == OpKind::Bool) return {{.tensors = {a, mask}, .label = "[3, 3] [3, 3]"}, {.tensors = {a, mask_row}, .label = "[3, 3] [3]"}};
      return {{.tensors = {a, b}, .label = "[3, 3] [3, 3]"}, {.tensors = {a, row}, .label = "[3, 3] [3]"}};
    case OpSig::Scalar:
      return {{.tensors = {a}, .scalars = {2.5}, .label = "2.5"}, {.tensors = {a}, .scalars = {-1.0}, .label = "-1"}};
    case OpSig::Bounds:
      return {{.tensors = {a}, .scalars = {-0.5, 0.5}, .label = "[-0.5, 0.5]"},
              {.tensors = {a}, .scalars = {1.0, -1.0}, .label = "[1, -1]"}};
    case OpSig::Dim:
      return {{.tensors = {a}, .dims = {1}, .label = "dim 1"}, {.tensors = {a}, .dims = {0}, .label = "dim 0"},
              {.tensors = {a}, .dims = {5}, .label = "dim 5"}};
    case OpSig::DimPair:
      return {{.tensors = {a}, .dims = {0, 1}, .label = "0 1"}};
    case OpSig::ToShape:
      return {{.tensors = {a}, .shape = Shape{9}, .label = "to [9]"},
              {.tensors = {a}, .shape = Shape{2, 3, 3}, .label = "to [2, 3, 3]"}};
    case OpSig::ToDType:
      return {{.tensors = {a}, .dtype = DType::F64, .label = "F64"}, {.tensors = {a}, .dtype = DType::F32, .label = "F32"},
              {.tensors = {a}, .dtype = DType::I32, .label = "I32"}};
    case OpSig::Axes:
      return {{.tensors = {a}, .dims = {1, 0}, .label = "[1, 0]"}};
    case OpSig::Ranges:
      return {{.tensors = {a}, .ranges = {{0, 2}, {1, 3}}, .label = "0..2, 1..3"}};
    case OpSig::Select:
      return {{.tensors = {a, idx}, .dims = {0}, .label = "dim 0 [2, 0]"}};
    case OpSig::SelectAssign:
      return {{.tensors = {a, idx, values}, .dims = {0}, .label = "dim 0 [2, 0]"}};
    case OpSig::BinaryDim:
      return {{.tensors = {a, b}, .dims = {1}, .label = "dim 1"}, {.tensors = {a, row}, .dims = {0}, .label = "[3] dim 0"}};
    case OpSig::Affine:
      return {{.tensors = {a}, .scalars = {0.25, 0.5}, .label = "0.25 0.5"}};
    case OpSig::Repeat:
      return {{.tensors = {a}, .dims = {1, 2}, .label = "dim 1 times 2"}, {.tensors = {a}, .dims = {0, 0}, .label = "dim 0 times 0"}};
    case OpSig::Window:
      return {{.tensors = {a}, .dims = {1, 2, 1}, .label = "dim 1 size 2 step 1"},
              {.tensors = {a}, .dims = {0, 2, 0}, .label = "step 0"}};
    case OpSig::RangesAssign: {
      // Values of the receiver's kind (int_slice_assign, bool_slice_assign take their own kind).
      const TensorData block = info.operand == OpKind::Int    ? TensorData::from_i64({7, -8, 9, 10, -11, 12}, Shape{2, 3})
                               : info.operand == OpKind::Bool ? TensorData::from_bool({true, true, false, false, true, true}, Shape{2, 3})
                                                              : values;
      return {{.tensors = {a, block}, .ranges = {{1, 3}}, .label = "1..3 [2, 3]"},
              {.tensors = {a, block}, .ranges = {{0, 2}, {0, 2}}, .label = "values of another shape"}};
    }
    case OpSig::Sort:
      return {{.tensors = {a}, .dims = {1, 1}, .label = "dim 1 descending"}, {.tensors = {a}, .dims = {0, 0}, .label = "dim 0 ascending"}};
    case OpSig::TopK:
      return {{.tensors = {a}, .dims = {1, 2}, .label = "dim 1 k 2"}, {.tensors = {a}, .dims = {0, 4}, .label = "k 4 past the dim"}};
    case OpSig::MaskWhere:
      if (info.operand != OpKind::Float) return {{.tensors = {a, mask, a}, .label = "[3, 3] mask [3, 3]"}};  // values of its kind
      return {{.tensors = {a, mask, b}, .label = "[3, 3] mask [3, 3]"}, {.tensors = {a, mask_row, row}, .label = "[3, 3] mask [3] [3]"}};
    case OpSig::MaskSelect:
      return {{.tensors = {a, mask}, .label = "mask [3, 3]"}, {.tensors = {a, mask_row}, .label = "mask [3]: not the shape"}};
    case OpSig::MaskFill:
      return {{.tensors = {a, mask}, .scalars = {-1.5}, .label = "mask -1.5"}};
    case OpSig::Gather:
      return {{.tensors = {a, gather_idx}, .dims = {1}, .label = "dim 1 [3, 2]"}};
    case OpSig::Scatter:
      return {{.tensors = {a, gather_idx, gather_values}, .dims = {1}, .label = "dim 1 [3, 2]"}};
    case OpSig::ScatterUpdate:  // the update travels as a dim holding its code
      return {{.tensors = {a, gather_idx, gather_values}, .dims = {1, 0}, .label = "dim 1 [3, 2] Assign"},
              {.tensors = {a, gather_idx, gather_values}, .dims = {1, 4}, .label = "dim 1 [3, 2] Max"}};
    case OpSig::GatherNd:
      return {{.tensors = {a, nd_idx}, .label = "rows [[2], [0], [2]]"}};
    case OpSig::ScatterNd:
      return {{.tensors = {a, nd_idx, values_3x3}, .dims = {2}, .label = "rows [[2], [0], [2]] Mul"}};
    // The options travel as dims: kernel_size, stride, padding, count_include_pad, ceil_mode.
    case OpSig::AvgPool2d:
      return {{.tensors = {image}, .dims = {2, 2, 1, 1, 1, 1, 0, 1}, .label = "k2 s1 p1 ceil"},
              {.tensors = {image}, .dims = {3, 3, 2, 2, 1, 1, 1, 0}, .label = "k3 s2 p1"},
              {.tensors = {a}, .dims = {2, 2, 1, 1, 0, 0, 1, 0}, .label = "a [3, 3] input"}};
    case OpSig::AvgPool2dBackward:
      return {{.tensors = {image, image_grad_k3s2}, .dims = {3, 3, 2, 2, 1, 1, 1, 0}, .label = "k3 s2 p1"},
              {.tensors = {image, image}, .dims = {3, 3, 2, 2, 1, 1, 1, 0}, .label = "a gradient of another shape"}};
    case OpSig::AdaptivePool2d:
      return {{.tensors = {image}, .dims = {2, 3}, .label = "to 2x3"}, {.tensors = {image}, .dims = {0, 3}, .label = "to 0x3"}};
    case OpSig::AdaptivePool2dBackward:
      return {{.tensors = {image, image_grad_k3s2}, .label = "from 2x2"}, {.tensors = {a, b}, .label = "[3, 3] input"}};
    // kernel_size, stride, padding, dilation, ceil_mode.
    case OpSig::MaxPool2d:
      return {{.tensors = {image}, .dims = {3, 3, 2, 2, 1, 1, 1, 1, 0}, .label = "k3 s2 p1"},
              {.tensors = {image}, .dims = {2, 2, 1, 1, 1, 1, 2, 1, 1}, .label = "k2 dilation 2x1 ceil"}};
    case OpSig::MaxPool2dBackward:
      return {{.tensors = {image, image_grad_k3s2, TensorData::from_i64({0, 4, 9, 11, 2, 2, 10, 5}, Shape{1, 2, 2, 2})},
               .dims = {3, 3, 2, 2, 1, 1, 1, 1, 0}, .label = "k3 s2 p1"},
              {.tensors = {image, image_grad_k3s2, TensorData::from_i64({0, 4, 9, 12, 2, 2, 10, 5}, Shape{1, 2, 2, 2})},
               .dims = {3, 3, 2, 2, 1, 1, 1, 1, 0}, .label = "an index past the plane"}};
    // unfold4d: kernel_size, then stride, padding and dilation.
    case OpSig::Unfold4d:
      return {{.tensors = {image}, .dims = {2, 2, 1, 1, 1, 0, 1, 1}, .label = "2x2 blocks, padding [1, 0]"},
              {.tensors = {image}, .dims = {5, 1, 1, 1, 0, 0, 1, 1}, .label = "a kernel past the image"}};
    // adaptive_avg_pool3d: output_size [d, h, w] over the volume; the rank-4 image is refused
    // (module-input-rank). Its backward pass: x, then the gradient.
    case OpSig::AdaptivePool3d:
      return {{.tensors = {volume}, .dims = {2, 1, 2}, .label = "2x3x2 to 2x1x2"},
              {.tensors = {image}, .dims = {1, 1, 1}, .label = "a 4-D input"}};
    case OpSig::AdaptivePool3dBackward:
      return {{.tensors = {volume, volume}, .dims = {}, .label = "the same size"},
              {.tensors = {volume, image}, .dims = {}, .label = "a 4-D gradient"}};
    // interpolate: output_size, then the mode code and align_corners; its backward pass x, then the
    // gradient of the output size's shape.
    case OpSig::Interpolate:
      return {{.tensors = {image}, .dims = {6, 5, 2, 0}, .label = "bilinear 4x3 to 6x5, half-pixel"},
              {.tensors = {image}, .dims = {3, 2, 3, 1}, .label = "bicubic down to 3x2, corners aligned"},
              {.tensors = {image}, .dims = {2, 2, 4, 1}, .label = "an unknown mode"}};
    case OpSig::InterpolateBackward:
      return {{.tensors = {image, image_grad_k3s2}, .dims = {2, 2, 1, 0}, .label = "nearest_exact 4x3 to 2x2"},
              {.tensors = {image, image_grad_k3s2}, .dims = {3, 2, 2, 1}, .label = "a gradient of another shape"}};
    // fold4d: output_size, kernel_size, then stride, padding and dilation; the sequence [1, 2, 6] as
    // six 2x1 blocks of one channel.
    case OpSig::Fold4d:
      return {{.tensors = {sequence}, .dims = {7, 1, 2, 1, 1, 1, 0, 0, 1, 1}, .label = "six 2x1 blocks onto 7x1"},
              {.tensors = {sequence}, .dims = {6, 1, 2, 1, 1, 1, 0, 0, 1, 1}, .label = "one block too many"}};
    // The 1-D poolings: kernel_size, stride, padding (one value each), then count_include_pad or
    // dilation, then ceil_mode.
    case OpSig::AvgPool1d:
      return {{.tensors = {sequence}, .dims = {3, 2, 1, 1, 0}, .label = "k3 s2 p1"},
              {.tensors = {sequence}, .dims = {2, 1, 1, 0, 1}, .label = "k2 s1 p1 ceil"}};
    case OpSig::AvgPool1dBackward:
      return {{.tensors = {sequence, floats(Shape{1, 2, 3}, 0.5f, 2.0f)}, .dims = {3, 2, 1, 1, 0}, .label = "k3 s2 p1"},
              {.tensors = {sequence, sequence}, .dims = {3, 2, 1, 1, 0}, .label = "a gradient of another shape"}};
    case OpSig::AdaptivePool1d:
      return {{.tensors = {sequence}, .dims = {2}, .label = "to 2"}, {.tensors = {sequence}, .dims = {0}, .label = "to 0"}};
    case OpSig::AdaptivePool1dBackward:
      return {{.tensors = {sequence, floats(Shape{1, 2, 2}, 0.5f, 2.0f)}, .label = "from 2"},
              {.tensors = {sequence, a}, .label = "a [3, 3] gradient"}};
    case OpSig::MaxPool1d:
      return {{.tensors = {sequence}, .dims = {3, 2, 1, 1, 0}, .label = "k3 s2 p1"},
              {.tensors = {sequence}, .dims = {2, 1, 1, 2, 1}, .label = "k2 dilation 2 ceil"}};
    case OpSig::MaxPool1dBackward:
      return {{.tensors = {sequence, floats(Shape{1, 2, 3}, 0.5f, 2.0f), TensorData::from_i64({0, 2, 4, 1, 3, 5}, Shape{1, 2, 3})},
               .dims = {3, 2, 1, 1, 0}, .label = "k3 s2 p1"},
              {.tensors = {sequence, floats(Shape{1, 2, 3}, 0.5f, 2.0f), TensorData::from_i64({0, 2, 6, 1, 3, 5}, Shape{1, 2, 3})},
               .dims = {3, 2, 1, 1, 0}, .label = "an index past the row"}};
    // The [3, 3] table a read at [1, 2] indices; the gradient is the output's shape [1, 2, 3].
    case OpSig::Embedding:
      return {{.tensors = {a, TensorData::from_i64({2, 0}, Shape{1, 2})}, .label = "rows [[2, 0]]"},
              {.tensors = {a, TensorData::from_i64({2, 3}, Shape{1, 2})}, .label = "a row past the table"}};
    case OpSig::EmbeddingBackward:
      return {{.tensors = {a, TensorData::from_f32({1, 2, 3, 4, 5, 6}, Shape{1, 2, 3}), TensorData::from_i64({2, 2}, Shape{1, 2})},
               .label = "row 2 twice"},
              {.tensors = {a, b, TensorData::from_i64({2, 0}, Shape{1, 2})}, .label = "a gradient of another shape"}};
    // linear's bias travels as a flag (a dim), then the tensor when the flag is 1.
    case OpSig::Linear:
      return {{.tensors = {a, b, TensorData::from_f32({0.5f, -1, 2}, Shape{3})}, .dims = {1}, .label = "[3, 3] @ [3, 3] + bias"},
              {.tensors = {a, b}, .dims = {0}, .label = "no bias"},
              {.tensors = {a, b, TensorData::from_f32({0.5f, -1}, Shape{2})}, .dims = {1}, .label = "a bias of 2"}};
    // layer_norm: x, weight, the bias flag (then the bias), epsilon.
    case OpSig::LayerNorm:
      return {{.tensors = {a, TensorData::from_f32({0.5f, -1, 2}, Shape{3}), TensorData::from_f32({1, 0, -1}, Shape{3})},
               .scalars = {1e-5}, .dims = {1}, .label = "rows of 3, a bias"},
              {.tensors = {a, TensorData::from_f32({0.5f, -1}, Shape{2})}, .scalars = {0.1}, .dims = {0}, .label = "a weight of 2"}};
    // batch_norm: x, weight, bias, mean, variance, epsilon.
    case OpSig::BatchNorm: {
      const TensorData s = TensorData::from_f32({0.5f, 2}, Shape{2});
      return {{.tensors = {image, s, s, s, s}, .scalars = {1e-5}, .label = "2 channels"},
              {.tensors = {image, s, s, s, TensorData::from_f32({1, 2, 3}, Shape{3})}, .scalars = {1e-5}, .label = "a variance of 3"}};
    }
    // attention: query, key, value, the mask's flag (then the mask), the bias's flag (then the bias),
    // the options' flags (scale given, softcap given, causal) and their two scalars.
    case OpSig::Attention: {
      const TensorData q = floats(Shape{1, 2, 3, 2}, 0.5f, -0.25f), kv = floats(Shape{1, 2, 4, 2}, -1.0f, 0.5f);
      const TensorData mask = TensorData::from_bool({true, false, false, false, true, true, true, true, false, false, true, false,
                                                     false, false, false, false, true, false, true, false, false, true, false, true},
                                                    Shape{1, 2, 3, 4});
      return {{.tensors = {q, kv, kv, mask}, .scalars = {0.0, 0.0}, .dims = {1, 0, 0, 0, 1}, .label = "a mask with a full row, causal"},
              {.tensors = {q, kv, kv, floats(Shape{1, 2, 3, 4}, 0.125f, 0.25f)}, .scalars = {0.5, 3.0}, .dims = {0, 1, 1, 1, 0},
               .label = "a bias, scale 0.5, softcap 3"},
              {.tensors = {q, kv, kv}, .scalars = {0.0, -1.0}, .dims = {0, 0, 0, 1, 0}, .label = "softcap -1"},
              {.tensors = {q, q, kv}, .scalars = {0.0, 0.0}, .dims = {0, 0, 0, 0, 0}, .label = "a value of another seq_k"}};
    }
    case OpSig::LinearXBackward:
    case OpSig::LinearWeightBackward:
      return {{.tensors = {a, b}, .label = "[3, 3] with [3, 3]"},
              {.tensors = {a, TensorData::from_f32({1, 2}, Shape{1, 2})}, .label = "a gradient [1, 2]"}};
    case OpSig::LinearBiasBackward:
      return {{.tensors = {a}, .label = "[3, 3]"}};
    // conv2d's options travel as dims after the bias flag: stride, padding, dilation, groups.
    case OpSig::Conv2d:
      return {{.tensors = {image, TensorData::from_f32({1, -1, 0.5f, 2, 0, 1, -2, 3}, Shape{2, 2, 1, 2}), TensorData::from_f32({0.5f, -1}, Shape{2})},
               .dims = {1, 1, 1, 1, 0, 1, 1, 1}, .label = "2 -> 2 channels, 1x2 kernel, padding [1, 0], bias"},
              {.tensors = {image, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{2, 1, 1, 2})}, .dims = {0, 2, 2, 0, 0, 1, 2, 2},
               .label = "groups 2, stride 2, dilation [1, 2]"},
              {.tensors = {image, TensorData::from_f32({1, -1}, Shape{1, 1, 1, 2})}, .dims = {0, 1, 1, 0, 0, 1, 1, 1},
               .label = "a weight for 1 channel"}};
    case OpSig::Conv2dBackward:
      return {{.tensors = {image, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{1, 2, 1, 2}), floats(Shape{1, 1, 4, 2}, 0.25f, 0.5f)},
               .dims = {1, 1, 0, 0, 1, 1, 1}, .label = "2 -> 1 channel, 1x2 kernel"},
              {.tensors = {image, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{1, 2, 1, 2}), image}, .dims = {1, 1, 0, 0, 1, 1, 1},
               .label = "a gradient of another shape"}};
    case OpSig::Conv2dBiasBackward:
      return {{.tensors = {image, TensorData::from_f32({1, 2}, Shape{2}), image}, .label = "2 channels"},
              {.tensors = {image, TensorData::from_f32({1, 2, 3}, Shape{3}), image}, .label = "a bias of 3"}};
    // conv1d's options travel as dims after the bias flag: stride, padding, dilation, groups.
    case OpSig::Conv1d:
      return {{.tensors = {sequence, TensorData::from_f32({1, -1, 0.5f, 2, 0, 1, -2, 3}, Shape{2, 2, 2}), TensorData::from_f32({0.5f, -1}, Shape{2})},
               .dims = {1, 1, 1, 1, 1}, .label = "2 -> 2 channels, kernel 2, padding 1, bias"},
              {.tensors = {sequence, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{2, 1, 2})}, .dims = {0, 2, 0, 2, 2},
               .label = "groups 2, stride 2, dilation 2"},
              {.tensors = {sequence, TensorData::from_f32({1, -1}, Shape{1, 1, 2})}, .dims = {0, 1, 0, 1, 1}, .label = "a weight for 1 channel"}};
    case OpSig::Conv1dBackward:
      return {{.tensors = {sequence, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{1, 2, 2}), floats(Shape{1, 1, 5}, 0.25f, 0.5f)},
               .dims = {1, 0, 1, 1}, .label = "2 -> 1 channel, kernel 2"},
              {.tensors = {sequence, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{1, 2, 2}), sequence}, .dims = {1, 0, 1, 1},
               .label = "a gradient of another shape"}};
    case OpSig::Conv1dBiasBackward:
      return {{.tensors = {sequence, TensorData::from_f32({1, 2}, Shape{2}), sequence}, .label = "2 channels"},
              {.tensors = {sequence, TensorData::from_f32({1, 2, 3}, Shape{3}), sequence}, .label = "a bias of 3"}};
    // rfft's and irfft's: dim, then n's flag and n when given.
    case OpSig::Rfft:
      return {{.tensors = {image}, .dims = {2, 0}, .label = "4 rows along height"},
              {.tensors = {image}, .dims = {2, 1, 8}, .label = "n 8 along height (zero-padded)"},
              {.tensors = {sequence}, .dims = {2, 0}, .label = "6 samples along length: no power of two"}};
    case OpSig::Irfft:
      return {{.tensors = {image, image}, .dims = {3, 0}, .label = "3 bins along width: n 4"},
              {.tensors = {image, image}, .dims = {2, 1, 2}, .label = "n 2 along height"},
              {.tensors = {image, sequence}, .dims = {2, 0}, .label = "parts of two shapes"}};
    // conv3d's options travel as dims after the bias flag: stride, padding, dilation (3 each), groups.
    case OpSig::Conv3d:
      return {{.tensors = {volume, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{2, 1, 1, 2, 1}), TensorData::from_f32({0.5f, -1}, Shape{2})},
               .dims = {1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1}, .label = "1 -> 2 channels, 1x2x1 kernel, padding [0, 1, 0], bias"},
              {.tensors = {volume, TensorData::from_f32({1, -1}, Shape{1, 2, 1, 1, 1})}, .dims = {0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1},
               .label = "a weight for 2 channels"}};
    case OpSig::Conv3dBackward:
      return {{.tensors = {volume, TensorData::from_f32({1, -1}, Shape{1, 1, 1, 2, 1}), floats(Shape{1, 1, 2, 2, 2}, 0.25f, 0.5f)},
               .dims = {1, 1, 1, 0, 0, 0, 1, 1, 1, 1}, .label = "1 -> 1 channel, 1x2x1 kernel"},
              {.tensors = {volume, TensorData::from_f32({1, -1}, Shape{1, 1, 1, 2, 1}), volume}, .dims = {1, 1, 1, 0, 0, 0, 1, 1, 1, 1},
               .label = "a gradient of another shape"}};
    case OpSig::Conv3dBiasBackward:
      return {{.tensors = {volume, TensorData::from_f32({1}, Shape{1}), volume}, .label = "1 channel"},
              {.tensors = {volume, TensorData::from_f32({1, 2, 3}, Shape{3}), volume}, .label = "a bias of 3"}};
    // conv_transpose3d's: stride, padding, padding_out, dilation (3 each), groups.
    case OpSig::ConvTranspose3d:
      return {{.tensors = {volume, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{1, 2, 1, 1, 2}), TensorData::from_f32({0.5f, -1}, Shape{2})},
               .dims = {1, 1, 1, 2, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
               .label = "1 -> 2 channels, 1x1x2 kernel, stride [1, 1, 2], padding_out [0, 0, 1], bias"},
              {.tensors = {volume, TensorData::from_f32({1, -1}, Shape{1, 1, 1, 1, 2})}, .dims = {0, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1},
               .label = "padding_out [1, 0, 0] at stride 1"}};
    case OpSig::ConvTranspose3dBackward:
      return {{.tensors = {volume, TensorData::from_f32({1, -1}, Shape{1, 1, 1, 1, 2}), floats(Shape{1, 1, 2, 3, 3}, 0.25f, 0.5f)},
               .dims = {1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}, .label = "1 -> 1 channel, 1x1x2 kernel"},
              {.tensors = {volume, TensorData::from_f32({1, -1}, Shape{1, 1, 1, 1, 2}), volume},
               .dims = {1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}, .label = "a gradient of another shape"}};
    // conv_transpose2d's options travel as dims after the bias flag: stride, padding, padding_out,
    // dilation, groups.
    case OpSig::ConvTranspose2d:
      return {{.tensors = {image, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{2, 1, 1, 2}), TensorData::from_f32({0.5f}, Shape{1})},
               .dims = {1, 2, 1, 0, 0, 1, 0, 1, 1, 1}, .label = "2 -> 1 channel, 1x2 kernel, stride [2, 1], padding_out [1, 0], bias"},
              {.tensors = {image, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{2, 1, 1, 2})}, .dims = {0, 1, 1, 0, 0, 2, 0, 1, 1, 1},
               .label = "padding_out [2, 0] at stride 1"}};
    case OpSig::ConvTranspose2dBackward:
      return {{.tensors = {image, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{2, 1, 1, 2}), floats(Shape{1, 1, 4, 4}, 0.25f, 0.5f)},
               .dims = {1, 1, 0, 0, 0, 0, 1, 1, 1}, .label = "2 -> 1 channel, 1x2 kernel"},
              {.tensors = {image, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{2, 1, 1, 2}), image}, .dims = {1, 1, 0, 0, 0, 0, 1, 1, 1},
               .label = "a gradient of another shape"}};
    // conv_transpose1d's options travel as dims after the bias flag: stride, padding, padding_out,
    // dilation, groups.
    case OpSig::ConvTranspose1d:
      return {{.tensors = {sequence, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{2, 1, 2}), TensorData::from_f32({0.5f}, Shape{1})},
               .dims = {1, 2, 0, 1, 1, 1}, .label = "2 -> 1 channel, kernel 2, stride 2, padding_out 1, bias"},
              {.tensors = {sequence, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{2, 1, 2})}, .dims = {0, 1, 0, 2, 1, 1},
               .label = "padding_out 2 at stride 1"}};
    case OpSig::ConvTranspose1dBackward:
      return {{.tensors = {sequence, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{2, 1, 2}), floats(Shape{1, 1, 7}, 0.25f, 0.5f)},
               .dims = {1, 0, 0, 1, 1}, .label = "2 -> 1 channel, kernel 2"},
              {.tensors = {sequence, TensorData::from_f32({1, -1, 0.5f, 2}, Shape{2, 1, 2}), sequence}, .dims = {1, 0, 0, 1, 1},
               .label = "a gradient of another shape"}};
    case OpSig::Cat: {
      const TensorData& second = info.operand == OpKind::Float ? b : a;  // a piece of the receiver's kind
      return {{.tensors = {a, second}, .dims = {0}, .label = "dim 0"}, {.tensors = {a, second}, .dims = {1}, .label = "dim 1"}};
    }
  }
  return {};
}

// Calls fn with Args by parameter type, in order (locally, with Flex tensors).
struct LocalArgs {
  const Args& args;
  std::vector<FlexTensor> tensors;
  std::size_t next_tensor = 0, next_scalar = 0, next_dim = 0;

  template <class P>
  auto get() {
    using D = std::remove_cvref_t<P>;
    if constexpr (std::is_same_v<D, FlexTensor>) {
      return std::cref(tensors.at(next_tensor++));
    } else if constexpr (std::is_same_v<D, std::vector<FlexTensor>>) {
      std::vector<FlexTensor> rest(tensors.begin() + static_cast<std::ptrdiff_t>(next_tensor), tensors.end());
      next_tensor = tensors.size();
      return rest;
    } else if constexpr (std::is_same_v<D, std::optional<FlexTensor>>) {  // a flag, then the tensor
      return args.dims.at(next_dim++) == 1 ? std::optional<FlexTensor>(tensors.at(next_tensor++)) : std::nullopt;
    } else if constexpr (std::is_same_v<D, double>) {
      return args.scalars.at(next_scalar++);
    } else if constexpr (std::is_same_v<D, std::size_t>) {
      return args.dims.at(next_dim++);
    } else if constexpr (std::is_same_v<D, std::optional<std::size_t>>) {  // a flag, then the size
      return args.dims.at(next_dim++) == 1 ? std::optional<std::size_t>(args.dims.at(next_dim++)) : std::nullopt;
    } else if constexpr (std::is_same_v<D, bool>) {  // a flag travels as a dim of 0 or 1
      return args.dims.at(next_dim++) == 1;
    } else if constexpr (std::is_same_v<D, IndexingUpdateOp>) {
      return kIndexingUpdateOps[args.dims.at(next_dim++)];
    } else if constexpr (std::is_same_v<D, std::vector<std::size_t>>) {
      return std::vector<std::size_t>(args.dims.begin() + static_cast<std::ptrdiff_t>(next_dim), args.dims.end());
    } else if constexpr (std::is_same_v<D, Shape>) {
      return args.shape;
    } else if constexpr (std::is_same_v<D, DType>) {
      return args.dtype;
    } else if constexpr (std::is_same_v<D, Size2>) {
      const Size2 v{args.dims.at(next_dim), args.dims.at(next_dim + 1)};
      next_dim += 2;
      return v;
    } else if constexpr (std::is_same_v<D, Size1>) {
      return Size1{args.dims.at(next_dim++)};
    } else if constexpr (std::is_same_v<D, Size3>) {
      const Size3 v{args.dims.at(next_dim), args.dims.at(next_dim + 1), args.dims.at(next_dim + 2)};
      next_dim += 3;
      return v;
    } else if constexpr (std::is_same_v<D, InterpolateOptions>) {
      InterpolateOptions o;
      o.mode = static_cast<InterpolateMode>(args.dims.at(next_dim++));
      o.align_corners = get<bool>();
      return o;
    } else if constexpr (std::is_same_v<D, AttentionOptions>) {
      AttentionOptions o;
      const bool has_scale = get<bool>(), has_softcap = get<bool>();
      o.is_causal = get<bool>();
      const double scale = args.scalars.at(next_scalar++), softcap = args.scalars.at(next_scalar++);
      if (has_scale) o.scale = scale;
      if (has_softcap) o.softcap = softcap;
      return o;
    } else if constexpr (std::is_same_v<D, UnfoldOptions>) {
      UnfoldOptions o;
      for (Size2* v : {&o.stride, &o.padding, &o.dilation}) *v = get<Size2>();
      return o;
    } else if constexpr (std::is_same_v<D, AvgPool1dOptions>) {
      AvgPool1dOptions o;
      for (Size1* v : {&o.kernel_size, &o.stride, &o.padding}) *v = get<Size1>();
      o.count_include_pad = get<bool>();
      o.ceil_mode = get<bool>();
      return o;
    } else if constexpr (std::is_same_v<D, MaxPool1dOptions>) {
      MaxPool1dOptions o;
      for (Size1* v : {&o.kernel_size, &o.stride, &o.padding, &o.dilation}) *v = get<Size1>();
      o.ceil_mode = get<bool>();
      return o;
    } else if constexpr (std::is_same_v<D, AvgPool2dOptions>) {
      AvgPool2dOptions o;
      for (Size2* v : {&o.kernel_size, &o.stride, &o.padding}) *v = get<Size2>();
      o.count_include_pad = get<bool>();
      o.ceil_mode = get<bool>();
      return o;
    } else if constexpr (std::is_same_v<D, Conv2dOptions>) {
      Conv2dOptions o;
      for (Size2* v : {&o.stride, &o.padding, &o.dilation}) *v = get<Size2>();
      o.groups = args.dims.at(next_dim++);
      return o;
    } else if constexpr (std::is_same_v<D, Conv1dOptions>) {
      Conv1dOptions o;
      for (Size1* v : {&o.stride, &o.padding, &o.dilation}) (*v)[0] = args.dims.at(next_dim++);
      o.groups = args.dims.at(next_dim++);
      return o;
    } else if constexpr (std::is_same_v<D, ConvTranspose1dOptions>) {
      ConvTranspose1dOptions o;
      for (Size1* v : {&o.stride, &o.padding, &o.padding_out, &o.dilation}) (*v)[0] = args.dims.at(next_dim++);
      o.groups = args.dims.at(next_dim++);
      return o;
    } else if constexpr (std::is_same_v<D, Conv3dOptions>) {
      Conv3dOptions o;
      for (Size3* v : {&o.stride, &o.padding, &o.dilation}) *v = get<Size3>();
      o.groups = args.dims.at(next_dim++);
      return o;
    } else if constexpr (std::is_same_v<D, ConvTranspose3dOptions>) {
      ConvTranspose3dOptions o;
      for (Size3* v : {&o.stride, &o.padding, &o.padding_out, &o.dilation}) *v = get<Size3>();
      o.groups = args.dims.at(next_dim++);
      return o;
    } else if constexpr (std::is_same_v<D, ConvTranspose2dOptions>) {
      ConvTranspose2dOptions o;
      for (Size2* v : {&o.stride, &o.padding, &o.padding_out, &o.dilation}) *v = get<Size2>();
      o.groups = args.dims.at(next_dim++);
      return o;
    } else if constexpr (std::is_same_v<D, MaxPool2dOptions>) {
      MaxPool2dOptions o;
      for (Size2* v : {&o.kernel_size, &o.stride, &o.padding, &o.dilation}) *v = get<Size2>();
      o.ceil_mode = get<bool>();
      return o;
    } else {
      static_assert(std::is_same_v<D, std::vector<Range>>);
      return args.ranges;
    }
  }
};

template <class... P>
Outcome run_local(FlexTensor (*fn)(P...), const Args& args) {
  try {
    LocalArgs local{args, {}};
    for (const TensorData& t : args.tensors) local.tensors.push_back(Flex::from_data(t, Device::cpu()));
    std::tuple<decltype(local.template get<P>())...> values{local.template get<P>()...};
    return Flex::into_data(std::apply(fn, values));
  } catch (const Panic& p) {
    return std::pair{std::string(panic_id_name(p.id())), p.message()};
  }
}

Outcome run_local(OpId id, const Args& args) {
  switch (id) {
#define CROSSGRAD_X(name, method, Sig, Operand, Result, Rule) \
  case OpId::name:                                            \
    return run_local(&Flex::name, args);
    CROSSGRAD_OPS(CROSSGRAD_X)
#undef CROSSGRAD_X
  }
  throw std::logic_error("unreachable");
}

class HandlerOps : public HandlerTest {
 protected:
  Outcome run_remote(std::uint32_t op_code, const Args& args, float* scale = nullptr) {
    const std::uint64_t session = open();
    proto::OpCall c;
    c.set_session(session);
    c.set_op(op_code);
    for (const TensorData& t : args.tensors) c.add_operands(upload_ok(session, t));
    for (double s : args.scalars) c.add_scalars(s);
    for (std::size_t d : args.dims) c.add_dims(d);
    for (std::size_t d : args.shape.dims()) c.add_shape(d);
    c.set_dtype(static_cast<std::uint32_t>(args.dtype));
    for (const Range& r : args.ranges) {
      auto* out = c.add_ranges();
      out->set_start(r.start);
      out->set_end(r.end);
    }
    proto::TensorReply reply;
    const grpc::Status s = call(c, &reply);
    if (s.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
      return std::pair{find(trailing, "x-crossgrad-panic-id").value_or("<no panic id>"), s.error_message()};
    }
    EXPECT_TRUE(s.ok()) << s.error_message();
    if (!s.ok()) return std::pair{std::string("<status>"), s.error_message()};
    if (scale) *scale = reply.scale();
    TensorData out = download_ok(session, reply.handle());
    // The reply's shape and dtype are the result's.
    EXPECT_EQ(Shape(std::vector<std::size_t>(reply.shape().begin(), reply.shape().end())), out.shape());
    EXPECT_EQ(static_cast<DType>(reply.dtype()), out.dtype());
    return out;
  }
};

TEST_F(HandlerOps, EveryRegistryOpGivesFlexsBytesOrFlexsPanic) {
  for (const OpInfo& info : kOps) {
    int results = 0;
    for (const Args& args : arguments(info)) {
      SCOPED_TRACE(std::string(info.name) + " " + args.label);
      const Outcome local = run_local(info.id, args);
      const Outcome remote = run_remote(static_cast<std::uint32_t>(info.id), args);
      EXPECT_TRUE(local == remote) << "local: " << describe(local) << "\nremote: " << describe(remote);
      results += local.index() == 0;
    }
    EXPECT_GT(results, 0) << info.name << ": no argument set gave a result, so only panics were compared";
  }
}

TEST_F(HandlerOps, FloatFullQuantizeAndDequantizeGiveFlexsBytes) {
  Args full{.shape = Shape{2, 3}, .dtype = DType::F64};
  full.scalars = {1.5};
  const Outcome remote_full = run_remote(remote::wire::kFloatFull, full);
  EXPECT_TRUE(remote_full == Outcome(Flex::into_data(Flex::float_full(Shape{2, 3}, 1.5, DType::F64, Device::cpu()))));

  const TensorData a = floats(Shape{2, 4}, -3.0f, 0.8f);
  const auto local_q = Flex::quantize(Flex::from_data(a, Device::cpu()));
  float scale = 0.0f;
  const Outcome remote_q = run_remote(remote::wire::kQuantize, Args{.tensors = {a}}, &scale);
  EXPECT_TRUE(remote_q == Outcome(Flex::into_data(local_q.values)));
  EXPECT_EQ(scale, local_q.scale);

  // Dequantize a QInt8 tensor the server holds (the values of a quantize) with the client's scale.
  const std::uint64_t session = open();
  const std::uint64_t h = upload_ok(session, a);
  proto::TensorReply q;
  ASSERT_TRUE(call(op(session, remote::wire::kQuantize, {h}), &q).ok());
  proto::OpCall deq = op(session, remote::wire::kDequantize, {q.handle()});
  deq.set_scale(q.scale());
  proto::TensorReply d;
  ASSERT_TRUE(call(deq, &d).ok());
  EXPECT_EQ(download_ok(session, d.handle()), Flex::into_data(Flex::dequantize(local_q)));
}

TEST(WireArgs, PutArgsAndArgReaderAgreeField_by_field) {
  namespace wire = remote::wire;
  proto::OpCall c;
  wire::put_args(c, wire::Handle{7}, std::size_t{2}, wire::Handle{9}, 1.5, Shape{4, 5}, DType::I32,
                 std::vector<std::size_t>{3, 1}, std::vector<Range>{{1, 2}});
  wire::ArgReader r(c);
  EXPECT_EQ(r.operand(), 7u);
  EXPECT_EQ(r.dim(), 2u);
  EXPECT_EQ(r.operand(), 9u);
  EXPECT_EQ(r.scalar(), 1.5);
  EXPECT_EQ(r.shape(), (Shape{4, 5}));
  EXPECT_EQ(r.dtype(), DType::I32);
  EXPECT_EQ(r.remaining_dims(), (std::vector<std::size_t>{3, 1}));
  EXPECT_EQ(r.ranges(), (std::vector<Range>{{1, 2}}));
  EXPECT_NO_THROW(r.finish());
  wire::ArgReader partial(c);
  partial.operand();
  EXPECT_THROW(partial.finish(), wire::WireError);
  EXPECT_THROW(wire::get_dtype(10), wire::WireError);
}

TEST(WireArgs, AFlagIsADimOfZeroOrOne) {
  namespace wire = remote::wire;
  proto::OpCall c;
  wire::put_args(c, true, false);
  c.add_dims(2);
  wire::ArgReader r(c);
  EXPECT_TRUE(r.flag());
  EXPECT_FALSE(r.flag());
  EXPECT_THROW(r.flag(), wire::WireError);  // 2 is no flag: refused, never read as true
}

TEST(WireArgs, AnIndexingUpdateIsADimHoldingItsCode) {
  namespace wire = remote::wire;
  proto::OpCall c;
  for (IndexingUpdateOp u : kIndexingUpdateOps) wire::put_args(c, u);
  c.add_dims(std::size(kIndexingUpdateOps));
  wire::ArgReader r(c);
  for (IndexingUpdateOp u : kIndexingUpdateOps) EXPECT_EQ(r.update(), u) << indexing_update_name(u);
  EXPECT_THROW(r.update(), wire::WireError);  // past Max: refused, never wrapped
}

}  // namespace
}  // namespace crossgrad::server::testing
