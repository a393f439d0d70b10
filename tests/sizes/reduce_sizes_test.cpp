// Reductions past Flex's thresholds: float_sum / float_mean around the sum block and its split,
// float_sum_dim / float_mean_dim on contiguous rows (around the row grain), in column chunks
// (around reduce_column_chunk), over each dim of tensors with a dim past the sum block, and of
// swap_dims copies. Every backend and configuration against NdArray; NdArray against sums
// computed here.
#include "check.hpp"
#include "tier.hpp"

#include <crossgrad/backends/flex_tuning.hpp>

#include <cmath>

namespace crossgrad::sizes {
namespace {

const DType kDtypes[] = {DType::F32, DType::F64};
const std::size_t kBlock = backends::flex::kTuning.sum_block;

TEST(SizesReduce, SumAndMeanAroundTheSumBlock) {
  for (DType dtype : kDtypes) {
    for (const auto& c : full_reduce_sizes()) {
      const auto x = dyadic_values(c.n, c.n);
      const TensorData xd = float_data(x, {c.n}, dtype);
      double exact = 0;  // dyadic: exact in double
      for (double v : x) exact += v;
      for (bool mean : {false, true}) {
        auto run = [&]<class B>() {
          const auto t = upload<B>(xd);
          return B::into_data(mean ? B::float_mean(t) : B::float_sum(t));
        };
        const TensorData reference = run.template operator()<backends::NdArray>();
        const std::string what = std::string(mean ? "float_mean " : "float_sum ") + std::string(dtype_name(dtype)) +
                                 " n=" + std::to_string(c.n) + " " + c.why;
        const Bounds bounds = sum_bounds(mean ? Op::float_mean : Op::float_sum, dtype, c.n);
        expect_samples(what, reference, {0}, [&](std::size_t) {
          return to_dtype(mean ? exact / static_cast<double>(c.n) : exact, dtype);
        }, bounds.host);
        expect_backends_match(what, reference, run, bounds);
      }
    }
  }
}

// Values that round at every step: the documented double accumulation keeps sums within a bound
// far tighter than float accumulation can meet (the dyadic tests above cannot see precision).
TEST(SizesReduce, SumsAccumulateInDouble) {
  for (DType dtype : kDtypes) {
    for (const auto& c : full_reduce_sizes()) {
      const auto x = rounding_values(c.n, c.n + 5, dtype);
      const TensorData xd = float_data(x, {c.n}, dtype);
      long double exact = 0;
      double sum_abs = 0;
      for (double v : x) {
        exact += v;
        sum_abs += std::fabs(v);
      }
      auto run = [&]<class B>() { return B::into_data(B::float_sum(upload<B>(xd))); };
      const TensorData reference = run.template operator()<backends::NdArray>();
      const std::string what = "float_sum " + std::string(dtype_name(dtype)) + " of rounding values n=" +
                               std::to_string(c.n) + " " + c.why;
      const Bounds bounds = double_accumulation_bounds(Op::float_sum, dtype, c.n, sum_abs, 4.0);
      expect_samples(what, reference, {0}, [&](std::size_t) { return to_dtype(static_cast<double>(exact), dtype); },
                     bounds.host);
      expect_backends_match(what, reference, run, bounds);
    }
    // Row sums (one kernel call per row) and column chunks (accumulate per column).
    const std::vector<std::vector<std::size_t>> shapes = {
        {3, 2 * kBlock + 1}, {2, 5 * kBlock / 2, 3}, {5, 8, backends::flex::kTuning.reduce_column_chunk + 1}};
    for (const auto& shape : shapes) {
      const std::size_t dim = 1, len = shape[1];
      const auto x = rounding_values(product(shape), product(shape), dtype);
      const TensorData xd = float_data(x, shape, dtype);
      const std::size_t inner = shape.size() > 2 ? shape[2] : 1;
      auto run = [&]<class B>() { return B::into_data(B::float_sum_dim(upload<B>(xd), dim)); };
      const TensorData reference = run.template operator()<backends::NdArray>();
      const std::string what = "float_sum_dim " + std::string(dtype_name(dtype)) + " of rounding values " +
                               shape_text(shape) + " dim 1";
      // The loosest row's bound holds for every row: sum|x| <= len * 4.
      const Bounds bounds = double_accumulation_bounds(Op::float_sum_dim, dtype, len, 4.0 * static_cast<double>(len), 4.0);
      expect_samples(what, reference, sample_positions(shape[0] * inner, inner, len), [&](std::size_t flat) {
        const std::size_t o = flat / inner, j = flat % inner;
        long double acc = 0;
        for (std::size_t r = 0; r < len; ++r) acc += x[(o * len + r) * inner + j];
        return to_dtype(static_cast<double>(acc), dtype);
      }, bounds.host);
      expect_backends_match(what, reference, run, bounds);
    }
  }
}

// sum_dim / mean_dim of x (of `shape`) along `dim`, checked on every backend and configuration;
// `values` are x's values in the order of the data uploaded (swap_dims copies are handled by the
// caller through `source`, which maps an index of the reduced tensor's input to x's index).
template <class Make>
void check_dim_reduce(const std::vector<std::size_t>& shape, std::size_t dim, DType dtype, const std::string& why,
                      const std::vector<double>& x, const std::function<std::size_t(std::size_t)>& source,
                      const Make& make_input) {
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < dim; ++d) outer *= shape[d];
  for (std::size_t d = dim + 1; d < shape.size(); ++d) inner *= shape[d];
  const std::size_t len = shape[dim];
  for (bool mean : {false, true}) {
    auto run = [&]<class B>() {
      const auto t = make_input.template operator()<B>();
      return B::into_data(mean ? B::float_mean_dim(t, dim) : B::float_sum_dim(t, dim));
    };
    const TensorData reference = run.template operator()<backends::NdArray>();
    const std::string what = std::string(mean ? "float_mean_dim " : "float_sum_dim ") +
                             std::string(dtype_name(dtype)) + " " + why;
    const Bounds bounds = sum_bounds(mean ? Op::float_mean_dim : Op::float_sum_dim, dtype, len);
    expect_samples(what, reference, sample_positions(outer * inner, inner, len + dim), [&](std::size_t flat) {
      const std::size_t o = flat / inner, j = flat % inner;
      double acc = 0;
      for (std::size_t r = 0; r < len; ++r) acc += x[source((o * len + r) * inner + j)];
      return to_dtype(mean ? acc / static_cast<double>(len) : acc, dtype);
    }, bounds.host);
    expect_backends_match(what, reference, run, bounds);
  }
}

TEST(SizesReduce, DimReductionsAcrossRowAndChunkSplits) {
  for (DType dtype : kDtypes) {
    for (const auto& c : dim_reduce_cases()) {
      const auto x = dyadic_values(product(c.shape), product(c.shape) + c.dim0);
      const TensorData xd = float_data(x, c.shape, dtype);
      check_dim_reduce(c.shape, c.dim0, dtype, c.why, x, [](std::size_t i) { return i; },
                       [&]<class B>() { return upload<B>(xd); });
    }
  }
}

// Inputs made by swap_dims: [a, b, c] from [c, b, a] (swap 0, 2), a dim past the sum block,
// reduced along each dim.
TEST(SizesReduce, DimReductionsOfSwappedInputs) {
  const std::vector<std::size_t> stored = {3, 5, kBlock / 4 + 1};  // swapped to [block/4+1, 5, 3]
  const std::vector<std::size_t> shape = {stored[2], stored[1], stored[0]};
  const auto x = dyadic_values(product(stored), 99);
  // Index in the swapped tensor [i, j, l] -> stored [l, j, i].
  auto source = [&](std::size_t flat) {
    const std::size_t l = flat % shape[2], j = (flat / shape[2]) % shape[1], i = flat / (shape[1] * shape[2]);
    return (l * stored[1] + j) * stored[2] + i;
  };
  for (DType dtype : kDtypes) {
    const TensorData xd = float_data(x, stored, dtype);
    for (std::size_t dim = 0; dim < 3; ++dim) {
      check_dim_reduce(shape, dim, dtype, "of swap_dims(" + shape_text(stored) + ", 0, 2) dim " + std::to_string(dim),
                       x, source, [&]<class B>() { return B::float_swap_dims(upload<B>(xd), 0, 2); });
    }
    // And the full sum of the copy, past two sum blocks.
    const std::vector<std::size_t> big = {2 * kBlock / 3 + 1, 3};
    const auto y = dyadic_values(product(big), 7);
    const TensorData yd = float_data(y, big, dtype);
    auto run = [&]<class B>() { return B::into_data(B::float_sum(B::float_swap_dims(upload<B>(yd), 0, 1))); };
    const TensorData reference = run.template operator()<backends::NdArray>();
    double exact = 0;
    for (double v : y) exact += v;
    const std::string what = "float_sum " + std::string(dtype_name(dtype)) + " of swap_dims(" + shape_text(big) + ")";
    const Bounds bounds = sum_bounds(Op::float_sum, dtype, y.size());
    expect_samples(what, reference, {0}, [&](std::size_t) { return to_dtype(exact, dtype); }, bounds.host);
    expect_backends_match(what, reference, run, bounds);
  }
}

}  // namespace
}  // namespace crossgrad::sizes
