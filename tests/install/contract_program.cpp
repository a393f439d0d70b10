// CONTRACT section 6, verbatim in what it calls, with its comments turned into checks.
// Built against the installed package (tests/install/CMakeLists.txt); exits non-zero on any
// difference.
#include <crossgrad/crossgrad.hpp>

#include <cstdio>
#include <string>
#include <variant>

using namespace crossgrad;

static int failures = 0;
static void check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAIL: %s\n", what.c_str());
    ++failures;
  }
}

#if CROSSGRAD_WITH_LIBTORCH
// The LibTorch backend from the installed package: this program never links torch; the engine
// loads the installed ATen plugin (run_install_check.cmake points CROSSGRAD_LIBTORCH_PLUGIN at it).
static void libtorch_checks() {
  const auto ad = DispatchDevice::Autodiff(DispatchDevice::LibTorch());
  DispatchTensor x = Dispatch::float_from_data(TensorData::from_f32({1, 2, 3, 4}, {2, 2}), ad);
  DispatchTensor y = Dispatch::float_matmul(Dispatch::float_exp(Dispatch::float_mul_scalar(x, 0.0)), x);
  Gradients grads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(x, x)));
  check(Dispatch::float_into_data(*Dispatch::grad(x, grads)).to_f32() == std::vector<float>({2, 4, 6, 8}),
        "LibTorch: grad of sum(x*x) is 2x");
  check(Dispatch::float_into_data(Dispatch::inner(y)).to_f32() == std::vector<float>({4, 6, 4, 6}),
        "LibTorch: ones(2, 2) @ x");

  const auto& lt = std::get<BackendTensor<backends::LibTorch>>(x.kind.autodiff_inner().value);
  const std::uint64_t node = std::get<AutodiffTensor<backends::LibTorch>>(lt.value).id().value;
  DispatchTensor flex = Dispatch::float_from_data(TensorData::from_f32({0, 0, 0, 0}, {2, 2}), DispatchDevice::Flex());
  bool panicked = false;
  try {
    Dispatch::grad_replace(x, grads, flex);
  } catch (const Panic& p) {
    panicked = true;
    const std::string expected =
        "The provided tensors are not on the same backend. Got backends "
        "LibTorch(Autodiff(AutodiffTensor { primitive: LibTorchTensor { shape: [2, 2], dtype: F32, "
        "device: Cpu }, node: NodeId(" + std::to_string(node) + ") })) and Flex(Float(FlexTensor { "
        "shape: [2, 2], dtype: F32, device: Cpu })).";
    check(p.message() == expected, "LibTorch message:\n  got      " + p.message() + "\n  expected " + expected);
  }
  check(panicked, "LibTorch: cross-backend grad_replace panics");
  DispatchTensor mine = Dispatch::float_from_data(TensorData::from_f32({7, 7, 7, 7}, {2, 2}), DispatchDevice::LibTorch());
  Dispatch::grad_replace(x, grads, mine);
  check(Dispatch::float_into_data(*Dispatch::grad(x, grads)).to_f32() == std::vector<float>({7, 7, 7, 7}),
        "LibTorch: same-backend grad_replace installs the gradient");

  // One graph through LibTorch and Flex (CONTRACT section 7): x's gradient comes back on LibTorch.
  DispatchTensor on_flex = Dispatch::float_to_device(x, DispatchDevice::Autodiff(DispatchDevice::Flex()));
  Gradients moved = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul_scalar(on_flex, 3.0)));
  const DispatchTensor g = *Dispatch::grad(x, moved);
  check(std::holds_alternative<BackendTensor<backends::LibTorch>>(g.kind.value), "LibTorch: gradient on LibTorch");
  check(Dispatch::float_into_data(g).to_f32() == std::vector<float>({3, 3, 3, 3}), "LibTorch: gradient through Flex");
}
#endif

int main() {
  auto ad = DispatchDevice::Autodiff(DispatchDevice::Flex());
  DispatchTensor x = Dispatch::float_from_data(TensorData::from_f32({1, 2, 3, 4}, {2, 2}), ad);
  DispatchTensor y = Dispatch::float_mul(x, x);
  Gradients grads = Dispatch::backward(Dispatch::float_sum(y));
  std::vector<float> g = Dispatch::float_into_data(*Dispatch::grad(x, grads)).to_f32();
  check(g == std::vector<float>({2, 4, 6, 8}), "grad of sum(x*x) is 2x");

  // x's node id, read from the structure (not from any rendering).
  const auto& flex = std::get<BackendTensor<backends::Flex>>(x.kind.autodiff_inner().value);
  const std::uint64_t node = std::get<AutodiffTensor<backends::Flex>>(flex.value).id().value;

  DispatchTensor other = Dispatch::float_from_data(TensorData::from_f32({0, 0, 0, 0}, {2, 2}),
                                                   DispatchDevice::NdArray());
  bool panicked = false;
  try {
    Dispatch::grad_replace(x, grads, other);
  } catch (const Panic& p) {
    panicked = true;
    const std::string expected =
        "The provided tensors are not on the same backend. Got backends "
        "Flex(Autodiff(AutodiffTensor { primitive: FlexTensor { shape: [2, 2], dtype: F32, "
        "device: Cpu }, node: NodeId(" + std::to_string(node) + ") })) and NdArray(Float(NdArrayTensor { "
        "shape: [2, 2], dtype: F32, device: Cpu })).";
    check(p.message() == expected, "message:\n  got      " + p.message() + "\n  expected " + expected);
  }
  check(panicked, "cross-backend grad_replace panics");
  check(Dispatch::float_into_data(*Dispatch::grad(x, grads)).to_f32() == std::vector<float>({2, 4, 6, 8}),
        "grads still holds x's gradient after the panic");

#if CROSSGRAD_WITH_LIBTORCH
  libtorch_checks();
#else
  std::printf("contract program: LibTorch skipped: not built with LibTorch\n");
#endif
  std::printf("contract program: %s\n", failures == 0 ? "OK" : "FAILED");
  return failures == 0 ? 0 : 1;
}
