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

  std::printf("contract program: %s\n", failures == 0 ? "OK" : "FAILED");
  return failures == 0 ? 0 : 1;
}
