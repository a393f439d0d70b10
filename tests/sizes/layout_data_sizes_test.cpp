// Layout and data ops at the split points: swap_dims through its transpose and row-copy paths,
// reshape, from_data / into_data, float_full, float_cast, float_greater_scalar, bool_into_float,
// float_to_device, quantize / dequantize, and the small accessors. Every backend and
// configuration against NdArray; NdArray against formulas written here.
#include "check.hpp"
#include "tier.hpp"

#include <crossgrad/backends/flex_tuning.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace crossgrad::sizes {
namespace {

const DType kDtypes[] = {DType::F32, DType::F64};
const std::size_t kGrain = backends::flex::kTuning.elementwise_grain;

std::string with_dtype(const std::string& op, DType dtype, const std::string& why) {
  return op + " " + std::string(dtype_name(dtype)) + " " + why;
}

TEST(SizesLayout, SwapDimsThroughEveryCopyPath) {
  for (DType dtype : kDtypes) {
    for (const auto& c : swap_cases()) {
      const auto x = dyadic_values(product(c.shape), product(c.shape));
      const TensorData xd = float_data(x, c.shape, dtype);
      auto run = [&]<class B>() { return B::into_data(B::float_swap_dims(upload<B>(xd), c.dim0, c.dim1)); };
      const TensorData reference = run.template operator()<backends::NdArray>();
      std::vector<std::size_t> out = c.shape;
      std::swap(out[c.dim0], out[c.dim1]);
      const std::string what = with_dtype("float_swap_dims", dtype, c.why);
      expect_samples(what, reference, sample_positions(product(out), out.back() * out[out.size() - 2], c.dim0),
                     [&](std::size_t flat) {
                       // Output coordinates, swapped back, give the input's flat index.
                       std::vector<std::size_t> coord(out.size());
                       for (std::size_t d = out.size(); d-- > 0;) {
                         coord[d] = flat % out[d];
                         flat /= out[d];
                       }
                       std::swap(coord[c.dim0], coord[c.dim1]);
                       std::size_t in = 0;
                       for (std::size_t d = 0; d < coord.size(); ++d) in = in * c.shape[d] + coord[d];
                       return x[in];
                     },
                     exact_bound());
      expect_backends_match(what, reference, run, same_bound(exact_bound()));
    }
  }
}

TEST(SizesLayout, ReshapeAndToDeviceAtSplitPoints) {
  for (DType dtype : kDtypes) {
    for (const auto& c : split_sizes(kGrain)) {
      const auto x = dyadic_values(c.n, c.n);
      const TensorData xd = float_data(x, {c.n}, dtype);
      const std::string why = "n=" + std::to_string(c.n) + " " + c.why;
      auto reshape = [&]<class B>() {
        return B::into_data(B::float_reshape(B::float_to_device(upload<B>(xd), B::default_device()), Shape{1, c.n, 1}));
      };
      const TensorData reference = reshape.template operator()<backends::NdArray>();
      EXPECT_EQ(reference.shape(), (Shape{1, c.n, 1}));
      const std::string what = with_dtype("float_reshape(float_to_device)", dtype, why);
      expect_samples(what, reference, sample_positions(c.n, kGrain, c.n), [&](std::size_t i) { return x[i]; },
                     exact_bound());
      expect_backends_match(what, reference, reshape, same_bound(exact_bound()));
    }
  }
}

TEST(SizesData, RoundTripFullAndCastAtSplitPoints) {
  for (DType dtype : kDtypes) {
    const DType other = dtype == DType::F32 ? DType::F64 : DType::F32;
    for (const auto& c : split_sizes(kGrain)) {
      const auto x = dyadic_values(c.n, c.n + 11);
      const TensorData xd = float_data(x, {c.n}, dtype);
      const std::string why = "n=" + std::to_string(c.n) + " " + c.why;
      const auto positions = sample_positions(c.n, kGrain, c.n);
      // from_data / into_data: bit for bit, every backend; also shape, dtype, device, synchronize.
      for_each_backend([&]<class B>() {
        if (!B::is_available()) return;
        for (const ExecConfig& config : exec_configs<B>()) {
          ScopedExec scope(config);
          const auto t = upload<B>(xd);
          EXPECT_EQ(B::shape(t), (Shape{c.n})) << B::name << config.describe();
          EXPECT_EQ(B::dtype(t), dtype) << B::name << config.describe();
          EXPECT_EQ(B::device(t), B::default_device()) << B::name << config.describe();
          B::synchronize(B::default_device());
          EXPECT_TRUE(B::into_data(t) == xd) << "from_data/into_data round trip on " << B::name << config.describe()
                                             << " " << with_dtype("", dtype, why);
        }
      });
      auto full = [&]<class B>() { return B::into_data(B::float_full(Shape{c.n}, -2.625, dtype, B::default_device())); };
      const TensorData full_ref = full.template operator()<backends::NdArray>();
      expect_samples(with_dtype("float_full", dtype, why), full_ref, positions, [](std::size_t) { return -2.625; },
                     exact_bound());
      expect_backends_match(with_dtype("float_full", dtype, why), full_ref, full, same_bound(exact_bound()));

      auto cast = [&]<class B>() { return B::into_data(B::float_cast(upload<B>(xd), other)); };
      const TensorData cast_ref = cast.template operator()<backends::NdArray>();
      EXPECT_EQ(cast_ref.dtype(), other);
      expect_samples(with_dtype("float_cast", dtype, why), cast_ref, positions, [&](std::size_t i) { return x[i]; },
                     exact_bound());
      expect_backends_match(with_dtype("float_cast", dtype, why), cast_ref, cast, same_bound(exact_bound()));
    }
  }
}

TEST(SizesData, GreaterScalarAndBoolIntoFloatAtSplitPoints) {
  for (DType dtype : kDtypes) {
    for (const auto& c : split_sizes(kGrain)) {
      const auto x = dyadic_values(c.n, c.n + 13);
      const TensorData xd = float_data(x, {c.n}, dtype);
      const std::string why = "n=" + std::to_string(c.n) + " " + c.why;
      const auto positions = sample_positions(c.n, kGrain, c.n);
      const double threshold = 0.125;  // dyadic, so ties with the data happen
      auto greater = [&]<class B>() { return B::into_data(B::float_greater_scalar(upload<B>(xd), threshold)); };
      const TensorData greater_ref = greater.template operator()<backends::NdArray>();
      EXPECT_EQ(greater_ref.dtype(), DType::Bool);
      // Bool data compares as 0/1 (TensorData::to_f64 does not read Bool): compare the bytes.
      const auto bytes = greater_ref.bytes();
      for (std::size_t i : positions) {
        ASSERT_EQ(static_cast<int>(bytes[i]), x[i] > threshold ? 1 : 0)
            << with_dtype("float_greater_scalar", dtype, why) << " (NdArray vs formula) at " << i;
      }
      for_each_backend([&]<class B>() {
        if constexpr (!std::is_same_v<B, backends::NdArray>) {
          if (!B::is_available()) return;
          for (const ExecConfig& config : exec_configs<B>()) {
            scrub_released_blocks(greater_ref.shape(), DType::Bool);
            ScopedExec scope(config);
            EXPECT_TRUE(greater.template operator()<B>() == greater_ref)
                << with_dtype("float_greater_scalar", dtype, why) << " on " << B::name << config.describe();
          }
        }
      });
      auto to_float = [&]<class B>() {
        return B::into_data(B::bool_into_float(B::float_greater_scalar(upload<B>(xd), threshold), dtype));
      };
      const TensorData float_ref = to_float.template operator()<backends::NdArray>();
      expect_samples(with_dtype("bool_into_float", dtype, why), float_ref, positions,
                     [&](std::size_t i) { return x[i] > threshold ? 1.0 : 0.0; }, exact_bound());
      expect_backends_match(with_dtype("bool_into_float", dtype, why), float_ref, to_float, same_bound(exact_bound()));
    }
  }
}

// The per-tensor symmetric int8 scheme (backends/quantized.hpp), written out here: scale =
// max|x| / 127 rounded to F32, q = round half away from zero of x / scale, clamped to +-127.
TEST(SizesData, QuantizeAndDequantizeAtSplitPoints) {
  for (DType dtype : kDtypes) {
    for (const auto& c : split_sizes(kGrain)) {
      const auto x = dyadic_values(c.n, c.n + 17);
      const TensorData xd = float_data(x, {c.n}, dtype);
      const std::string why = "n=" + std::to_string(c.n) + " " + c.why;
      double max_abs = 0;
      for (double v : x) max_abs = std::max(max_abs, std::fabs(v));
      const float scale = max_abs > 0 ? static_cast<float>(max_abs / 127.0) : 1.0f;
      auto q_of = [&](std::size_t i) {
        return std::clamp(std::round(x[i] / static_cast<double>(scale)), -127.0, 127.0);
      };
      auto quantize = [&]<class B>() {
        const auto q = B::quantize(upload<B>(xd));
        return std::pair{B::into_data(q.values), q.scale};
      };
      const auto [q_ref, scale_ref] = quantize.template operator()<backends::NdArray>();
      EXPECT_EQ(scale_ref, scale) << with_dtype("quantize", dtype, why) << " (NdArray vs formula): scale";
      const auto positions = sample_positions(c.n, kGrain, c.n);
      const auto q_bytes = q_ref.bytes();
      for (std::size_t i : positions) {
        ASSERT_EQ(static_cast<double>(static_cast<std::int8_t>(q_bytes[i])), q_of(i))
            << with_dtype("quantize", dtype, why) << " (NdArray vs formula) at " << i;
      }
      auto dequantize = [&]<class B>() { return B::into_data(B::dequantize(B::quantize(upload<B>(xd)))); };
      const TensorData deq_ref = dequantize.template operator()<backends::NdArray>();
      expect_samples(with_dtype("dequantize(quantize)", dtype, why), deq_ref, positions,
                     [&](std::size_t i) { return static_cast<double>(static_cast<float>(q_of(i)) * scale); },
                     exact_bound());
      for_each_backend([&]<class B>() {
        if constexpr (!std::is_same_v<B, backends::NdArray>) {
          if (!B::is_available()) return;
          for (const ExecConfig& config : exec_configs<B>()) {
            const auto [q, s] = [&] {
              scrub_released_blocks(q_ref.shape(), DType::QInt8);
              ScopedExec scope(config);
              return quantize.template operator()<B>();
            }();
            EXPECT_EQ(s, scale_ref) << with_dtype("quantize", dtype, why) << " scale on " << B::name
                                    << config.describe();
            EXPECT_TRUE(q == q_ref) << with_dtype("quantize", dtype, why) << " values on " << B::name
                                    << config.describe();
          }
        }
      });
      expect_backends_match(with_dtype("dequantize(quantize)", dtype, why), deq_ref, dequantize,
                            same_bound(exact_bound()));
    }
  }
}

}  // namespace
}  // namespace crossgrad::sizes
