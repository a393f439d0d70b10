// Every catalog entry is triggered here, with its exact message written out by hand and checked
// against the entry's own pattern. A catalog id without a trigger below fails the suite.
#include "test_support.hpp"

#if CROSSGRAD_WITH_CUDA
#include <crossgrad/backends/cuda_testing.hpp>
#endif

#include <map>
#include <regex>

namespace crossgrad {
namespace {
using namespace testing_support;
using backends::Flex;
using backends::NdArray;

struct Trigger {
  std::function<void()> run;
  std::string message;  // exact, by hand
  std::string skip;     // non-empty: cannot be triggered on this machine, and why
};

DispatchTensor flex_f32(std::vector<float> v, Shape s) {
  return Dispatch::float_from_data(TensorData::from_f32(std::move(v), std::move(s)), DispatchDevice::Flex());
}
DispatchTensor nd_f32(std::vector<float> v, Shape s) {
  return Dispatch::float_from_data(TensorData::from_f32(std::move(v), std::move(s)), DispatchDevice::NdArray());
}

std::map<std::string, Trigger> triggers() {
  std::map<std::string, Trigger> t;
  static DispatchTensor x = Dispatch::float_from_data(TensorData::from_f32({1, 2}, {2}),
                                                      DispatchDevice::Autodiff(DispatchDevice::Flex()));
  static Gradients grads = Dispatch::backward(x);
  const std::string node = std::to_string(node_of<Flex>(x).value);
  t["cross-backend"] = {[] { Dispatch::grad_replace(x, grads, nd_f32({0, 0}, {2})); },
                        "The provided tensors are not on the same backend. Got backends Flex(Autodiff(AutodiffTensor { "
                        "primitive: FlexTensor { shape: [2], dtype: F32, device: Cpu }, node: NodeId(" + node +
                            ") })) and NdArray(Float(NdArrayTensor { shape: [2], dtype: F32, device: Cpu })).", ""};
  t["autodiff-wraps-autodiff"] = {[] { Dispatch::grad_replace({DispatchTensorKind::Autodiff(x.kind), {}}, grads, x); },
                                  "Autodiff should not wrap an autodiff tensor.", ""};
  t["requires-autodiff"] = {[] { Dispatch::grad_replace(flex_f32({1}, {1}), grads, x); }, "Requires autodiff tensor.", ""};
  t["should-be-float"] = {[] {
                            Dispatch::grad_replace(x, grads, Dispatch::int_from_data(TensorData::from_i64({1}, {1}), DispatchDevice::Flex()));
                          },
                          "Should be float, got int", ""};
  t["unreachable"] = {[] { Dispatch::grad_replace({DispatchTensorKind::Autodiff(flex_f32({1}, {1}).kind), {}}, grads, flex_f32({1}, {1})); },
                      "internal error: entered unreachable code", ""};
  t["data-length-mismatch"] = {[] { TensorData::from_f32({1, 2, 3}, {2, 2}); },
                               "Tensor data has 3 values but shape [2, 2] needs 4.", ""};
  t["shape-overflow"] = {[] { (void)Shape{std::size_t{1} << 40, std::size_t{1} << 40}.num_elements(); },
                         "Shape [1099511627776, 1099511627776] has more elements than fit in memory.", ""};
  t["tensor-too-large"] = {[] {
                             Dispatch::float_add(Dispatch::float_from_data(TensorData::from_f64(std::vector<double>(200000), {200000, 1}), DispatchDevice::Flex()),
                                                 Dispatch::float_from_data(TensorData::from_f64(std::vector<double>(200000), {1, 200000}), DispatchDevice::Flex()));
                           },
                           "A tensor of shape [200000, 200000] and dtype F64 needs 320000000000 bytes, over the limit of "
                           "17179869184 bytes.", ""};
  t["unsupported-dtype"] = {[] { TensorData::from_bytes(std::vector<std::byte>(2), {1}, DType::F16); },
                            "DType F16 is not supported by TensorData.", ""};
  t["data-kind-mismatch"] = {[] { Dispatch::float_from_data(TensorData::from_i64({1}, {1}), DispatchDevice::Flex()); },
                             "float_from_data needs float data, got dtype I64.", ""};
  t["invalid-bool-value"] = {[] { TensorData::from_bytes(std::vector<std::byte>{std::byte{0}, std::byte{7}}, {2}, DType::Bool); },
                             "Bool data must hold 0 or 1, got byte 7 at index 1.", ""};
  t["dtype-mismatch"] = {[] {
                           Dispatch::float_add(flex_f32({1}, {1}),
                                               Dispatch::float_from_data(TensorData::from_f64({1}, {1}), DispatchDevice::Flex()));
                         },
                         "float_add needs operands of one dtype, got F32 and F64.", ""};
  t["broadcast-mismatch"] = {[] { Dispatch::float_mul(flex_f32(std::vector<float>(6), {2, 3}), flex_f32(std::vector<float>(12), {4, 3})); },
                             "float_mul cannot broadcast shapes [2, 3] and [4, 3].", ""};
  t["matmul-rank"] = {[] { Dispatch::float_matmul(flex_f32({1, 2, 3}, {3}), flex_f32(std::vector<float>(6), {3, 2})); },
                      "float_matmul needs tensors of rank 2 or more, got shapes [3] and [3, 2].", ""};
  t["matmul-inner-dim"] = {[] { Dispatch::float_matmul(flex_f32(std::vector<float>(6), {2, 3}), flex_f32(std::vector<float>(6), {2, 3})); },
                           "float_matmul needs the inner dims to agree, got shapes [2, 3] and [2, 3].", ""};
  t["dim-out-of-range"] = {[] { Dispatch::float_sum_dim(flex_f32(std::vector<float>(6), {2, 3}), 2); },
                           "float_sum_dim got dim 2 for a tensor of rank 2.", ""};
  t["reshape-mismatch"] = {[] { Dispatch::float_reshape(flex_f32(std::vector<float>(6), {2, 3}), {4}); },
                           "float_reshape cannot turn shape [2, 3] into [4]: element counts differ.", ""};
  t["op-backend-mismatch"] = {[] { Dispatch::float_add(flex_f32({1}, {1}), nd_f32({1}, {1})); },
                              "float_add needs operands on one backend, got Flex(Float(FlexTensor { shape: [1], dtype: F32, "
                              "device: Cpu })) and NdArray(Float(NdArrayTensor { shape: [1], dtype: F32, device: Cpu })).", ""};
  t["op-kind-mismatch"] = {[] { Dispatch::float_exp(Dispatch::int_from_data(TensorData::from_i32({1}, {1}), DispatchDevice::NdArray())); },
                           "float_exp needs a tensor of kind Float, got NdArray(Int(NdArrayTensor { shape: [1], dtype: I32, "
                           "device: Cpu })).", ""};
  t["device-unavailable"] = {[] { Dispatch::float_from_data(TensorData::from_f32({1}, {1}), DispatchDevice::of<NdArray>(Device::cuda(3))); },
                             "Device Cuda(3) of backend NdArray is not available: NdArray runs on the CPU only.", ""};
  t["device-kind-mismatch"] = {[] { Dispatch::float_to_device(flex_f32({1}, {1}), DispatchDevice::Autodiff(DispatchDevice::Flex())); },
                               "float_to_device needs a device of the tensor's kind, got a plain tensor and device "
                               "Autodiff(Flex(Cpu)).", ""};
  t["quantize-non-finite"] = {[] { Dispatch::quantize(nd_f32({1, std::numeric_limits<float>::infinity()}, {2})); },
                              "quantize needs finite values, got inf.", ""};
  t["quantize-scale-overflow"] = {[] { Dispatch::quantize(Dispatch::float_from_data(TensorData::from_f64({1, -1e41}, {2}), DispatchDevice::NdArray())); },
                                  "quantize needs values of magnitude at most 127 * f32::MAX (about 4.32e40) so that its F32 "
                                  "scale is finite, got max |x| = 1e+41.", ""};
  t["duplicate-node-id"] = {[] {
                              const NodeId id{std::uint64_t{1} << 62};  // far beyond any fresh id
                              const auto leaf = [&](float v) {
                                return DispatchTensor{DispatchTensorKind::Autodiff(DispatchTensorKind::Flex(BackendTensor<Flex>::Autodiff(
                                                          Autodiff<Flex>::leaf_with_id(Flex::from_data(TensorData::from_f32({v}, {1}), Device::cpu()), id)))),
                                                      CheckpointingStrategy::Disabled};
                              };
                              Dispatch::backward(Dispatch::float_add(leaf(1), leaf(2)));
                            },
                            "backward found two distinct nodes with id NodeId(4611686018427387904) in one graph: each node "
                            "of a graph needs its own id.", ""};
  // A hand-built node (Node is public) whose rule gives a [4] leaf a [2] gradient: no engine rule does.
  t["backward-gradient-mismatch"] = {[] {
                                       AutodiffTensor<Flex> leaf = Autodiff<Flex>::from_inner(Flex::from_data(TensorData::from_f32({1, 2, 3, 4}, {4}), Device::cpu()));
                                       auto node = std::make_shared<Node>();
                                       node->id = next_node_id();
                                       node->parents.push_back(leaf.node);
                                       node->op = "float_exp";
                                       node->backward = [](const AnyTensor&) {
                                         return std::vector<AnyTensor>{AnyTensor{Flex::from_data(TensorData::from_f32({1, 2}, {2}), Device::cpu())}};
                                       };
                                       Flex::Tensor value = Flex::from_data(TensorData::from_f32({1, 2, 3, 4}, {4}), Device::cpu());
                                       node->meta = node_meta_of<Flex>(value);
                                       Dispatch::backward({DispatchTensorKind::Autodiff(DispatchTensorKind::Flex(BackendTensor<Flex>::Autodiff(
                                                               AutodiffTensor<Flex>{std::move(value), std::move(node)}))),
                                                           CheckpointingStrategy::Disabled});
                                     },
                                     "internal error: the backward rule of float_exp returned for its input 0 a gradient of "
                                     "Flex[[2], F32, Cpu], but that input is Flex[[4], F32, Cpu]: a gradient must have its "
                                     "input's shape, dtype, device and backend.", ""};
  // The ops of issue 11 item 5: each rule raises before any kernel, the same on every backend.
  t["clamp-bounds"] = {[] { Dispatch::float_clamp(nd_f32({1, 2}, {2}), 2, 1); },
                       "float_clamp needs min <= max, got min 2 and max 1.", ""};
  t["empty-reduction"] = {[] { Dispatch::float_max_dim(flex_f32({}, {2, 0}), 1); },
                          "float_max_dim over dim 1 of size 0 has no result.", ""};
  t["cat-empty"] = {[] { Dispatch::float_cat({}, 0); }, "float_cat needs at least one tensor.", ""};
  t["cat-mismatch"] = {[] { Dispatch::float_cat({flex_f32(std::vector<float>(6), {2, 3}), flex_f32(std::vector<float>(8), {2, 4})}, 0); },
                       "float_cat needs shapes that differ only in dim 0, got [2, 3] and [2, 4].", ""};
  t["slice-out-of-range"] = {[] { Dispatch::float_slice(nd_f32({1, 2, 3}, {3}), {{1, 4}}); },
                             "float_slice got range 1..4 for dim 0 of size 3.", ""};
  t["select-index-rank"] = {[] {
                              Dispatch::float_select(flex_f32(std::vector<float>(6), {3, 2}), 0,
                                                     Dispatch::int_from_data(TensorData::from_i64({0, 1, 2, 0}, {2, 2}), DispatchDevice::Flex()));
                            },
                            "float_select needs a 1-D index tensor, got shape [2, 2].", ""};
  t["index-out-of-range"] = {[] {
                               Dispatch::float_select(nd_f32(std::vector<float>(6), {3, 2}), 0,
                                                      Dispatch::int_from_data(TensorData::from_i64({0, 3}, {2}), DispatchDevice::NdArray()));
                             },
                             "float_select got index 3 for dim 0 of size 3.", ""};
  t["assign-shape-mismatch"] = {[] {
                                  Dispatch::float_select_assign(flex_f32(std::vector<float>(6), {3, 2}), 0,
                                                                Dispatch::int_from_data(TensorData::from_i64({0, 2}, {2}), DispatchDevice::Flex()),
                                                                flex_f32(std::vector<float>(6), {2, 3}));
                                },
                                "float_select_assign needs values of shape [2, 2], got [2, 3].", ""};
  t["permute-invalid"] = {[] { Dispatch::float_permute(flex_f32(std::vector<float>(6), {2, 3}), {0, 0}); },
                          "float_permute needs each of the 2 dims exactly once, got [0, 0].", ""};
  t["flip-invalid"] = {[] { Dispatch::float_flip(flex_f32(std::vector<float>(6), {2, 3}), {1, 1}); },
                       "float_flip needs distinct dims below the rank 2, got [1, 1].", ""};
  t["gather-index-shape"] = {[] {
                                Dispatch::float_gather(nd_f32(std::vector<float>(6), {3, 2}), 0,
                                                       Dispatch::int_from_data(TensorData::from_i64({0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}, {4, 3}),
                                                                               DispatchDevice::NdArray()));
                              },
                              "float_gather needs indices of shape [3, 2] outside dim 0, got [4, 3].", ""};
  t["gather-nd-index-shape"] = {[] {
                                   Dispatch::float_gather_nd(nd_f32(std::vector<float>(6), {3, 2}),
                                                             Dispatch::int_from_data(TensorData::from_i64({0, 1, 0}, {1, 3}),
                                                                                     DispatchDevice::NdArray()));
                                 },
                                 "float_gather_nd needs indices whose last dim is at most the tensor's rank 2, got indices of shape [1, 3].",
                                 ""};
  t["module-input-rank"] = {[] { Dispatch::avg_pool2d(nd_f32(std::vector<float>(6), {2, 3}), AvgPool2dOptions{}); },
                            "avg_pool2d needs a 4-D input [batch, channels, height, width], got shape [2, 3].", ""};
  t["module-input-scalar"] = {[] { Dispatch::linear(nd_f32({1}, {}), nd_f32(std::vector<float>(2), {1, 2}), std::nullopt); },
                              "linear needs its input to have at least 1 dim [..., d_input], got shape [].", ""};
  t["module-dim-mismatch"] = {[] {
                                Dispatch::linear(nd_f32(std::vector<float>(6), {2, 3}), nd_f32(std::vector<float>(8), {4, 2}),
                                                 std::nullopt);
                              },
                              "linear needs the input [2, 3] and the weight [4, 2] to agree: dim 1 of the input is 3, dim 0 of the "
                              "weight is 4.",
                              ""};
  t["conv-groups"] = {[] {
                        Dispatch::conv2d(nd_f32(std::vector<float>(18), {1, 2, 3, 3}), nd_f32(std::vector<float>(12), {3, 1, 2, 2}),
                                         std::nullopt, Conv2dOptions{{1, 1}, {0, 0}, {1, 1}, 2});
                      },
                      "conv2d needs groups of at least 1 dividing the input channels 2 and the output channels 3, got groups 2.", ""};
  t["conv-channels"] = {[] {
                          Dispatch::conv2d(nd_f32(std::vector<float>(9), {1, 1, 3, 3}), nd_f32(std::vector<float>(8), {1, 2, 2, 2}),
                                           std::nullopt, Conv2dOptions{});
                        },
                        "conv2d needs the weight's dim 1 to be the input channels 1 / groups 1 = 1, got weight shape [1, 2, 2, 2].", ""};
  t["conv-transpose-weight"] = {[] {
                                  Dispatch::conv_transpose2d(nd_f32(std::vector<float>(27), {1, 3, 3, 3}),
                                                             nd_f32(std::vector<float>(72), {2, 4, 3, 3}), std::nullopt,
                                                             ConvTranspose2dOptions{});
                                },
                                "conv_transpose2d needs the weight's dim 0 to be the input channels 3, got weight shape [2, 4, 3, 3].",
                                ""};
  t["conv-bias-channels"] = {[] {
                               Dispatch::conv_transpose2d(nd_f32(std::vector<float>(36), {1, 4, 3, 3}),
                                                          nd_f32(std::vector<float>(36), {4, 1, 3, 3}), nd_f32({0.5f}, {1}),
                                                          ConvTranspose2dOptions{{1, 1}, {0, 0}, {0, 0}, {1, 1}, 2});
                             },
                             "conv_transpose2d needs a bias of the output channels 2 = weight dim 1 (1) * groups (2), got bias shape "
                             "[1].",
                             ""};
  t["conv-padding-out"] = {[] {
                             Dispatch::conv_transpose2d(nd_f32(std::vector<float>(9), {1, 1, 3, 3}),
                                                        nd_f32(std::vector<float>(9), {1, 1, 3, 3}), std::nullopt,
                                                        ConvTranspose2dOptions{{2, 2}, {0, 0}, {2, 0}, {1, 1}, 1});
                           },
                           "conv_transpose2d needs padding_out smaller than stride or dilation in every dim, got padding_out [2, 0], "
                           "stride [2, 2], dilation [1, 1].",
                           ""};
  t["conv-transpose-size"] = {[] {
                                Dispatch::conv_transpose2d(nd_f32({1}, {1, 1, 1, 1}), nd_f32({1}, {1, 1, 1, 1}), std::nullopt,
                                                           ConvTranspose2dOptions{{1, 1}, {1, 0}, {0, 0}, {1, 1}, 1});
                              },
                              "conv_transpose2d needs an input of at least 1 cell and an output of 1 to 2^64 - 1 cells in each dim, "
                              "got input [1, 1] and output (input - 1) * stride + dilation * (kernel - 1) + 1 + padding_out - 2 * "
                              "padding = [-1, 1].",
                              ""};
  t["module-option-zero"] = {[] {
                               Dispatch::avg_pool2d(nd_f32(std::vector<float>(16), {1, 1, 4, 4}),
                                                    AvgPool2dOptions{{2, 2}, {0, 1}, {0, 0}, true, false});
                             },
                             "avg_pool2d needs stride of at least 1 in every dim, got [0, 1].", ""};
  t["pool-padding"] = {[] {
                         Dispatch::avg_pool2d(nd_f32(std::vector<float>(16), {1, 1, 4, 4}),
                                              AvgPool2dOptions{{2, 2}, {1, 1}, {2, 0}, true, false});
                       },
                       "avg_pool2d needs padding of at most half the kernel size, got padding [2, 0] for kernel_size [2, 2].", ""};
  t["pool-kernel-too-large"] = {[] {
                                  Dispatch::avg_pool2d(nd_f32(std::vector<float>(4), {1, 1, 2, 2}),
                                                       AvgPool2dOptions{{3, 3}, {1, 1}, {1, 0}, true, false});
                                },
                                "avg_pool2d needs kernel_size of at most the padded input's size [4, 2], got [3, 3].", ""};
  t["pool-empty-input"] = {[] { Dispatch::adaptive_avg_pool2d(nd_f32({}, {1, 1, 0, 4}), {2, 2}); },
                           "adaptive_avg_pool2d needs an input with at least 1 element in each pooled dim, got shape [1, 1, 0, 4].",
                           ""};
  t["pool-grad-shape"] = {[] {
                            Dispatch::avg_pool2d_backward(nd_f32(std::vector<float>(16), {1, 1, 4, 4}),
                                                          nd_f32(std::vector<float>(9), {1, 1, 3, 3}),
                                                          AvgPool2dOptions{{2, 2}, {2, 2}, {0, 0}, true, false});
                          },
                          "avg_pool2d_backward needs a gradient of the output's shape [1, 1, 2, 2], got [1, 1, 3, 3].", ""};
  t["not-differentiable"] = {[] {
                               const DispatchDevice tracked = DispatchDevice::Autodiff(DispatchDevice::NdArray());
                               const DispatchTensor x = Dispatch::float_from_data(TensorData::from_f32({1, 2, 3, 4}, {1, 1, 2, 2}), tracked);
                               Dispatch::adaptive_avg_pool2d_backward(x, x);
                             },
                             "Can't differentiate adaptive_avg_pool2d_backward.", ""};
  t["pool-indices-shape"] = {[] {
                               Dispatch::max_pool2d_with_indices_backward(
                                   nd_f32(std::vector<float>(16), {1, 1, 4, 4}), nd_f32(std::vector<float>(4), {1, 1, 2, 2}),
                                   Dispatch::int_from_data(TensorData::from_i64({0, 1}, {1, 1, 2, 1}), DispatchDevice::NdArray()),
                                   MaxPool2dOptions{{2, 2}, {2, 2}, {0, 0}, {1, 1}, false});
                             },
                             "max_pool2d_with_indices_backward needs indices of the gradient's shape [1, 1, 2, 2], got [1, 1, 2, 1].",
                             ""};
  t["pool-empty-window"] = {[] {
                              Dispatch::max_pool2d(nd_f32({1}, {1, 1, 1, 1}), MaxPool2dOptions{{2, 1}, {1, 1}, {1, 0}, {2, 1}, false});
                            },
                            "max_pool2d has a window with no input cell along dim 2: kernel_size [2, 1], dilation [2, 1] and "
                            "padding [1, 0] step over its 1 cells.",
                            ""};
  t["fold-channels"] = {[] {
                          Dispatch::fold4d(nd_f32(std::vector<float>(45), {1, 5, 9}), Size2{4, 4}, Size2{2, 2},
                                           UnfoldOptions{{1, 1}, {0, 0}, {1, 1}});
                        },
                        "fold4d needs the input's dim 1 to be a multiple of the kernel's 4 cells (kernel_size [2, 2]), got shape "
                        "[1, 5, 9].",
                        ""};
  t["fold-blocks"] = {[] {
                        Dispatch::fold4d(nd_f32(std::vector<float>(32), {1, 4, 8}), Size2{4, 4}, Size2{2, 2},
                                         UnfoldOptions{{1, 1}, {0, 0}, {1, 1}});
                      },
                      "fold4d needs the input's dim 2 to be the number of blocks on the padded output, 3 * 3 = 9, got shape [1, 4, 8].",
                      ""};
  t["interpolate-mode"] = {[] {
                             Dispatch::interpolate(nd_f32({1, 2, 3, 4}, {1, 1, 2, 2}), Size2{4, 4},
                                                   InterpolateOptions{static_cast<InterpolateMode>(4), true});
                           },
                           "interpolate needs mode nearest (0), nearest_exact (1), bilinear (2) or bicubic (3), got 4.", ""};
  t["module-input-min-rank"] = {[] {
                                  const DispatchTensor s = nd_f32({1, 2, 3, 4}, {4});
                                  Dispatch::batch_norm(s, s, s, s, s, 1e-5);
                                },
                                "batch_norm needs an input of rank at least 2 [batch, channels, ...], got shape [4].", ""};
  t["attention-operand-shape"] = {[] {
                                    const DispatchTensor q = nd_f32(std::vector<float>(8), {1, 1, 2, 4});
                                    const DispatchTensor kv = nd_f32(std::vector<float>(12), {1, 1, 3, 4});
                                    Dispatch::attention(q, kv, kv, std::nullopt, nd_f32(std::vector<float>(6), {2, 3}), AttentionOptions{});
                                  },
                                  "attention needs a bias of the scores' shape [batch, heads, seq_q, seq_k] = [1, 1, 2, 3], got [2, 3].",
                                  ""};
  t["attention-softcap"] = {[] {
                              const DispatchTensor q = nd_f32(std::vector<float>(8), {1, 1, 2, 4});
                              Dispatch::attention(q, q, q, std::nullopt, std::nullopt, AttentionOptions{std::nullopt, 0.0, false});
                            },
                            "attention needs a positive softcap, got 0.", ""};
  t["fft-size"] = {[] { Dispatch::rfft(nd_f32(std::vector<float>(6), {2, 3}), 1, std::nullopt); },
                   "rfft needs a transform size that is a power of two along dim 1, got 3.", ""};
  t["fft-spectrum-shape"] = {[] {
                               Dispatch::irfft(nd_f32(std::vector<float>(6), {2, 3}), nd_f32(std::vector<float>(6), {3, 2}), 1,
                                               std::nullopt);
                             },
                             "irfft needs the real and imaginary parts of one shape, got [2, 3] and [3, 2].", ""};
  {
    const auto ints = [](std::vector<std::int64_t> v, Shape s) {
      return Dispatch::int_from_data(TensorData::from_i64(std::move(v), s), DispatchDevice::NdArray());
    };
    const auto lp = [] { return nd_f32(std::vector<float>(40, -1.0f), {4, 2, 5}); };
    t["ctc-shape"] = {[=] { Dispatch::ctc_loss(lp(), ints({1, 2}, {2}), ints({4, 4}, {2}), ints({1, 1}, {2}), 0); },
                      "ctc_loss needs log_probs [time, batch, classes], targets [batch, max_target_length], input_lengths [batch] "
                      "and target_lengths [batch], got [4, 2, 5], [2], [2] and [2].",
                      ""};
    t["ctc-blank"] = {[=] { Dispatch::ctc_loss(lp(), ints({1, 2}, {2, 1}), ints({4, 4}, {2}), ints({1, 1}, {2}), 7); },
                      "ctc_loss needs blank below the number of classes 5, got blank 7.", ""};
    t["ctc-length"] = {[=] { Dispatch::ctc_loss(lp(), ints({1, 2}, {2, 1}), ints({4, 4}, {2}), ints({1, 2}, {2}), 0); },
                       "ctc_loss needs target_lengths[1] in 0..=1, got 2.", ""};
    t["ctc-target-label"] = {[=] { Dispatch::ctc_loss(lp(), ints({1, 5}, {2, 1}), ints({4, 4}, {2}), ints({1, 1}, {2}), 0); },
                             "ctc_loss needs target labels in 0..5 other than the blank 0, got 5 at targets[1, 0].", ""};
  }
  {
    const auto zeros = [](Shape s) { return Dispatch::float_zeros(s, DispatchDevice::NdArray()); };
    DeformConv2dOptions three_groups;
    three_groups.offset_groups = 3;
    t["deform-offset-groups"] = {[=] {
                                   Dispatch::deform_conv2d(zeros({1, 4, 4, 4}), zeros({1, 18, 2, 2}), zeros({2, 4, 3, 3}),
                                                           std::nullopt, std::nullopt, three_groups);
                                 },
                                 "deform_conv2d needs offset_groups of at least 1 dividing the input channels 4, got "
                                 "offset_groups 3.",
                                 ""};
    t["deform-operand-shape"] = {[=] {
                                   Dispatch::deform_conv2d(zeros({1, 2, 4, 4}), zeros({1, 8, 2, 2}), zeros({3, 2, 3, 3}),
                                                           std::nullopt, std::nullopt, DeformConv2dOptions{});
                                 },
                                 "deform_conv2d needs an offset of shape [1, 18, 2, 2], got [1, 8, 2, 2].", ""};
  }
  t["mask-select-shape"] = {[] {
                               Dispatch::float_mask_select(nd_f32(std::vector<float>(6), {2, 3}),
                                                           Dispatch::bool_from_data(TensorData::from_bool({true, false, true}, {3}),
                                                                                    DispatchDevice::NdArray()));
                             },
                             "float_mask_select needs a mask of the tensor's shape [2, 3], got [3].", ""};
  t["scatter-update-gradient"] = {[] {
                                     const DispatchDevice tracked = DispatchDevice::Autodiff(DispatchDevice::NdArray());
                                     Dispatch::float_scatter_nd(Dispatch::float_from_data(TensorData::from_f32({1, 2}, {2}), tracked),
                                                                Dispatch::int_from_data(TensorData::from_i64({1}, {1, 1}), tracked),
                                                                Dispatch::float_from_data(TensorData::from_f32({3}, {1}), tracked),
                                                                IndexingUpdateOp::Mul);
                                   },
                                   "not implemented: float_scatter_nd with Mul update is not implemented", ""};
  t["int-division-by-zero"] = {[] {
                                  Dispatch::int_remainder(Dispatch::int_from_data(TensorData::from_i32({7, 8}, {2}), DispatchDevice::NdArray()),
                                                          Dispatch::int_from_data(TensorData::from_i32({2, 0}, {2}), DispatchDevice::NdArray()));
                                },
                                "int_remainder divides by zero.", ""};
  t["unfold-step"] = {[] { Dispatch::float_unfold(nd_f32(std::vector<float>(6), {2, 3}), 1, 2, 0); },
                      "float_unfold needs a step of at least 1, got 0.", ""};
  t["cross-dim"] = {[] {
                      Dispatch::float_cross(nd_f32(std::vector<float>(6), {2, 3}), nd_f32(std::vector<float>(8), {2, 4}), 1);
                    },
                    "float_cross needs operands of one rank with 3 elements along dim 1, got [2, 3] and [2, 4].", ""};
  t["topk-k"] = {[] { Dispatch::float_topk(nd_f32(std::vector<float>(6), {2, 3}), 1, 4); },
                 "float_topk needs k of at most 3, the size of dim 1, got 4.", ""};
  t["random-distribution"] = {[] { Dispatch::float_random(Shape{2}, Distribution::uniform(1, 0), 7, DispatchDevice::NdArray()); },
                              "float_random cannot sample Uniform(1, 0).", ""};
  t["require-grad-non-leaf"] = {[] {
                                  const DispatchTensor x = Dispatch::float_from_data(TensorData::from_f32({1}, {1}),
                                                                                     DispatchDevice::Autodiff(DispatchDevice::NdArray()));
                                  Dispatch::float_set_require_grad(Dispatch::float_exp(x), true);
                                },
                                "Can't convert a non leaf tensor into a tracked tensor.", ""};
  t["expand-mismatch"] = {[] { Dispatch::float_expand(nd_f32(std::vector<float>(6), {2, 3}), {4, 3}); },
                          "float_expand cannot expand shape [2, 3] to [4, 3].", ""};
#if CROSSGRAD_WITH_CUDA
  // The error-to-panic conversion every failed CUDA call goes through; it needs no device
  // (CudaFaultInjectionOnDevice.* raise it from real calls where a GPU is present).
  t["cuda-error"] = {[] { backends::cuda_testing::raise_cuda_error(2, "cudaMalloc"); },
                     "CUDA error in cudaMalloc: out of memory (cudaErrorMemoryAllocation).", ""};
#else
  t["cuda-error"] = {[] {}, "", "built without CUDA: no CUDA call can fail"};
#endif
  // The Remote failures need a crossgrad-server (killed, restarted, stalled, or given the wrong
  // token): tests/remote/client triggers each with its exact message (RemoteFaults.*, RemoteClient.*).
  for (const char* id : {"remote-unavailable", "remote-refused", "remote-session-lost", "remote-rejected"}) {
    t[id] = {[] {}, "", "needs a crossgrad-server: triggered in tests/remote/client"};
  }
  return t;
}

TEST(PanicCatalog, EveryEntryIsTriggeredWithItsExactMessage) {
  const auto table = triggers();
  for (PanicId id : all_panic_ids()) {
    const std::string name(panic_id_name(id));
    SCOPED_TRACE(name);
    const auto it = table.find(name);
    ASSERT_NE(it, table.end()) << "catalog entry without a trigger test: " << name;
    if (!it->second.skip.empty()) continue;
    const auto caught = panic_of(it->second.run);
    ASSERT_TRUE(caught.has_value());
    EXPECT_EQ(caught->id, name);
    EXPECT_EQ(caught->message, it->second.message);
    EXPECT_TRUE(std::regex_match(caught->message, std::regex(std::string(panic_pattern(id)))))
        << "message does not match the catalog pattern " << panic_pattern(id);
  }
  EXPECT_EQ(table.size(), all_panic_ids().size()) << "a trigger names an id that is not in the catalog";
}

TEST(PanicCatalog, SeedPatternRecoversBothRenderings) {
  const std::string t = "Flex(Autodiff(AutodiffTensor { primitive: FlexTensor { shape: [2, 3], dtype: F32, device: Cpu }, node: NodeId(7) }))";
  const std::string g = "NdArray(Float(NdArrayTensor { shape: [], dtype: F64, device: Cpu }))";
  const std::string message = "The provided tensors are not on the same backend. Got backends " + t + " and " + g + ".";
  std::smatch m;
  const std::string pattern(panic_pattern(PanicId::CrossBackend));
  ASSERT_TRUE(std::regex_match(message, m, std::regex(pattern)));
  EXPECT_EQ(m[1], t);
  EXPECT_EQ(m[2], g);
  ASSERT_TRUE(std::regex_search(message, m, std::regex(pattern)));
  EXPECT_EQ(m[1], t);
  EXPECT_EQ(m[2], g);
}

TEST(PanicCatalog, MissingPlaceholderValueIsAnEngineBugNotAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // Flex's worker threads may be running
  EXPECT_DEATH(panic(PanicId::ShouldBeFloat, {}), "raised without placeholder");
}

}  // namespace
}  // namespace crossgrad
