// A zero dim makes a shape empty wherever it stands, however large the other dims are (NumPy and
// PyTorch accept [2^40, 2^40, 0] as well as [0, 2^40, 2^40]); shape-overflow is only for shapes
// without a zero dim whose product does not fit in 64 bits. Checked on Shape itself, TensorData,
// and the ops that combine dims (broadcast, reshape, swap_dims, reductions, batched matmul) on
// every backend, with and without autodiff.
#include "test_support.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace crossgrad {
namespace {
using namespace testing_support;

constexpr std::size_t kBig = std::size_t{1} << 40;
constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();

std::string overflow_message(const Shape& s) { return "Shape " + s.to_string() + " has more elements than fit in memory."; }

// Every arrangement of `dims` (std::next_permutation over a sorted copy).
std::vector<std::vector<std::size_t>> arrangements(std::vector<std::size_t> dims) {
  std::sort(dims.begin(), dims.end());
  std::vector<std::vector<std::size_t>> out;
  do out.push_back(dims);
  while (std::next_permutation(dims.begin(), dims.end()));
  return out;
}

TEST(ShapeZeroDims, ZeroAnywhereMeansZeroElements) {
  for (const auto& others : std::vector<std::vector<std::size_t>>{
           {kBig, kBig}, {kBig, kBig, kBig}, {kMax, 2}, {kMax, kMax, 3}, {std::size_t{1} << 63, 2}, {7}, {}}) {
    for (std::size_t pos = 0; pos <= others.size(); ++pos) {
      std::vector<std::size_t> dims = others;
      dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(pos), 0);
      const Shape s(dims);
      std::size_t n = 1;
      const auto caught = panic_of([&] { n = s.num_elements(); });
      EXPECT_FALSE(caught.has_value()) << s.to_string() << " panicked: " << (caught ? caught->message : "");
      EXPECT_EQ(n, 0u) << s.to_string();
    }
  }
  for (const auto& dims : arrangements({0, 0, kBig, kBig})) EXPECT_EQ(Shape(dims).num_elements(), 0u);
}

TEST(ShapeZeroDims, OverflowWithoutAZeroPanicsInEveryOrder) {
  for (const auto& base : std::vector<std::vector<std::size_t>>{
           {kBig, kBig, 1}, {std::size_t{1} << 32, std::size_t{1} << 32}, {std::size_t{1} << 63, 2, 1}, {kMax, 2}, {kMax, kMax, kMax}}) {
    for (const auto& dims : arrangements(base)) {
      const Shape s(dims);
      EXPECT_PANIC(s.num_elements(), "shape-overflow", overflow_message(s));
    }
  }
  // Just fitting: 2^32 * (2^32 - 1) and 2^63 * 1 are below 2^64, in every order.
  for (const auto& dims : arrangements({std::size_t{1} << 32, (std::size_t{1} << 32) - 1, 1})) {
    EXPECT_EQ(Shape(dims).num_elements(), (std::size_t{1} << 32) * ((std::size_t{1} << 32) - 1));
  }
  EXPECT_EQ((Shape{kMax, 1}).num_elements(), kMax);
  EXPECT_EQ((Shape{}).num_elements(), 1u);
}

TEST(ShapeZeroDims, TensorDataAcceptsEmptyShapesWithHugeDims) {
  for (const auto& dims : arrangements({0, kBig, kBig})) {
    const Shape s(dims);
    EXPECT_EQ(TensorData::from_f32({}, s).num_elements(), 0u) << s.to_string();
    EXPECT_EQ(TensorData::from_f64({}, s).shape(), s);
    EXPECT_EQ(TensorData::from_i64({}, s).shape(), s);
    EXPECT_EQ(TensorData::from_bool({}, s).shape(), s);
    EXPECT_EQ(TensorData::from_bytes({}, s, DType::U8).shape(), s);
    // One value is one too many for an empty shape.
    EXPECT_PANIC(TensorData::from_f32({1.0f}, s), "data-length-mismatch",
                 "Tensor data has 1 values but shape " + s.to_string() + " needs 0.");
  }
}

template <class B>
class ShapeZeroDimsOps : public OnEachBackend<B> {
 protected:
  static DispatchTensor empty(const Shape& s, const DispatchDevice& device) {
    return Dispatch::float_from_data(TensorData::from_f32({}, s), device);
  }
};
TYPED_TEST_SUITE(ShapeZeroDimsOps, AllBackendTypes, BackendTestName);

TYPED_TEST(ShapeZeroDimsOps, OpsOnEmptyTensorsWithHugeDims) {
  const DispatchDevice dev = plain_device<TypeParam>();
  for (const auto& dims : arrangements({0, kBig, kBig})) {
    const Shape s(dims);
    SCOPED_TRACE(s.to_string());
    const DispatchTensor x = this->empty(s, dev);
    EXPECT_EQ(Dispatch::float_shape(x), s);
    // Broadcast against a scalar-like [1] and against itself: still empty, same shape.
    const DispatchTensor one = Dispatch::float_from_data(TensorData::from_f32({2}, {1}), dev);
    EXPECT_EQ(Dispatch::float_shape(Dispatch::float_add(x, one)), s);
    EXPECT_EQ(Dispatch::float_shape(Dispatch::float_mul(x, x)), s);
    EXPECT_EQ(Dispatch::float_shape(Dispatch::float_exp(x)), s);
    // Reshape between arrangements of the same dims, and swap_dims.
    EXPECT_EQ(Dispatch::float_shape(Dispatch::float_reshape(x, Shape{kBig, kBig, 0})), (Shape{kBig, kBig, 0}));
    EXPECT_EQ(Dispatch::float_shape(Dispatch::float_reshape(x, Shape{0})), (Shape{0}));
    EXPECT_EQ(Dispatch::float_shape(Dispatch::float_swap_dims(x, 0, 2)), (Shape{s[2], s[1], s[0]}));
    // A full sum of nothing is 0.
    EXPECT_EQ(Dispatch::float_into_data(Dispatch::float_sum(x)).to_f32(), (std::vector<float>{0}));
    // Reducing a dim keeps the result empty while another zero dim remains.
    const std::size_t zero_at = static_cast<std::size_t>(std::find(dims.begin(), dims.end(), 0) - dims.begin());
    const std::size_t other = zero_at == 0 ? 1 : 0;
    std::vector<std::size_t> reduced = dims;
    reduced[other] = 1;
    EXPECT_EQ(Dispatch::float_shape(Dispatch::float_sum_dim(x, other)), Shape(reduced));
    // Reducing the zero dim itself would make [2^40, 2^40, 1]-like outputs: those cannot exist.
    std::vector<std::size_t> full = dims;
    full[zero_at] = 1;
    EXPECT_PANIC(Dispatch::float_sum_dim(x, zero_at), "shape-overflow", overflow_message(Shape(full)));
  }
}

TYPED_TEST(ShapeZeroDimsOps, BatchedMatmulWithAnEmptyOutputAndHugeBatch) {
  const DispatchDevice dev = plain_device<TypeParam>();
  // m = 0 with a 2^80 batch: the output [2^40, 2^40, 0, 3] is empty, nothing to compute.
  const DispatchTensor a = this->empty({kBig, kBig, 0, 2}, dev);
  const DispatchTensor b = Dispatch::float_from_data(TensorData::from_f32({1, 2, 3, 4, 5, 6}, {2, 3}), dev);
  EXPECT_EQ(Dispatch::float_shape(Dispatch::float_matmul(a, b)), (Shape{kBig, kBig, 0, 3}));
  // n = 0, batch broadcast from both sides.
  const DispatchTensor c = this->empty({kBig, 1, 2, 0}, dev);
  const DispatchTensor d = Dispatch::float_from_data(TensorData::from_f32({}, {kBig, 0, 2}), dev);
  EXPECT_EQ(Dispatch::float_shape(Dispatch::float_matmul(d, c)), (Shape{kBig, kBig, 0, 0}));
  // k = 0 and a representable output: zeros.
  const DispatchTensor e = this->empty({2, 3, 0}, dev);
  const DispatchTensor f = this->empty({2, 0, 2}, dev);
  EXPECT_EQ(Dispatch::float_into_data(Dispatch::float_matmul(e, f)).to_f32(), std::vector<float>(12, 0.0f));
}

TYPED_TEST(ShapeZeroDimsOps, BackwardThroughAnEmptyLeafWithHugeDims) {
  const Shape s{kBig, kBig, 0};
  const DispatchTensor x = this->empty(s, autodiff_device<TypeParam>());
  const Gradients grads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul_scalar(Dispatch::float_exp(x), 3.0)));
  const auto g = Dispatch::grad(x, grads);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(Dispatch::float_shape(*g), s);
}

TYPED_TEST(ShapeZeroDimsOps, BackwardThroughBroadcastAndMatmulWithEmptyOutputs) {
  const DispatchDevice ad = autodiff_device<TypeParam>();
  const auto leaf = [&](std::vector<float> v, Shape s) { return Dispatch::float_from_data(TensorData::from_f32(std::move(v), std::move(s)), ad); };
  // A broadcast operand's gradient is a sum over nothing: zeros, whichever dim is the zero one.
  for (const auto& dims : arrangements({0, kBig, kBig})) {
    SCOPED_TRACE(Shape(dims).to_string());
    const DispatchTensor x = this->empty(Shape(dims), ad);
    const DispatchTensor w = leaf({5}, {1});
    const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(x, w)));
    EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(w, g)).to_f32(), (std::vector<float>{0}));
    EXPECT_EQ(Dispatch::float_shape(*Dispatch::grad(x, g)), Shape(dims));
  }
  // Matmul with an empty output and a 2^80 batch: rhs gets zeros of its shape.
  const DispatchTensor a = this->empty({kBig, kBig, 0, 2}, ad);
  const DispatchTensor b = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  const Gradients g = Dispatch::backward(Dispatch::float_sum(Dispatch::float_matmul(a, b)));
  EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(b, g)).to_f32(), std::vector<float>(6, 0.0f));
  EXPECT_EQ(Dispatch::float_shape(*Dispatch::grad(a, g)), (Shape{kBig, kBig, 0, 2}));
  // An ordinary empty matmul keeps the same answer: [2, 0] x [0, 3] has a non-empty output of
  // zeros, and [0, 2] x [2, 3] gives rhs zeros.
  const DispatchTensor c = leaf({}, {0, 2});
  const Gradients h = Dispatch::backward(Dispatch::float_sum(Dispatch::float_matmul(c, b)));
  EXPECT_EQ(Dispatch::float_into_data(*Dispatch::grad(b, h)).to_f32(), std::vector<float>(6, 0.0f));
}

}  // namespace
}  // namespace crossgrad
