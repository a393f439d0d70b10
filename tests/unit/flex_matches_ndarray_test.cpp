// Flex against NdArray, the reference backend: the kernels of abs, clamp, max_dim, argmax, the
// other reductions along a dim and over every element (max_abs, prod, any, all, max, min), greater,
// lower, equal, cat, slice, select, select_assign, permute, expand, softmax, log_softmax and
// int_into_float, then edges of swap_dims, slice, broadcast comparisons and the blocked GEMM,
// the reference backend: bit for bit, except softmax / log_softmax (the sum order is free off
// NdArray), which are checked within a tolerance against NdArray and within a few ulps against a
// long double formula written here. Sizes sit on both sides of Flex's thread threshold
// (2 * kTuning.elementwise_grain elements) and its column chunk (kTuning.reduce_column_chunk);
// values carry NaN, +-inf, +-0 and subnormals; every test runs with 1 and 4 planned threads and
// both kernel tables. A few results are also checked against values worked out by hand from the
// spec, and every panic of the new ops is raised with the same id and message as NdArray's.
#include <crossgrad/oracle/reference_ops.hpp>
#include <crossgrad/backends/flex.hpp>
#include <crossgrad/backends/flex_testing.hpp>
#include <crossgrad/backends/flex_tuning.hpp>
#include <crossgrad/backends/ndarray.hpp>
#include <crossgrad/core/panic.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using crossgrad::Device;
using crossgrad::DType;
using crossgrad::Panic;
using crossgrad::PanicId;
using crossgrad::Range;
using crossgrad::Shape;
using crossgrad::TensorData;
using crossgrad::backends::Flex;
using crossgrad::backends::NdArray;
namespace flex = crossgrad::backends::flex;
using FlexTag = std::type_identity<Flex>;
using RefTag = std::type_identity<NdArray>;

// Above the threshold where Flex splits element-wise work over threads, and one below it.
constexpr std::size_t kParallel = 2 * flex::kTuning.elementwise_grain;
constexpr std::size_t kChunk = flex::kTuning.reduce_column_chunk;
static_assert(300 * 257 > kParallel, "the large shapes must cross the thread threshold");
static_assert(4 * 5 * (2 * kChunk + 3) > kParallel, "and the column-chunk shapes too");
const Shape kLarge{300, 257};
const Shape kChunked{4, 5, 2 * kChunk + 3};  // inner rows of more than two column chunks

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

enum class Values {
  Mixed,   // uniform in [-4, 4), every ~8th a special (NaN, +-inf, +-0, subnormal)
  Ties,    // small integers and +-0 (so comparisons and maxima tie), a few NaN and +-inf
  Finite,  // uniform in [-30, 30), one special in ~3000 (softmax rows mostly finite)
};

std::vector<double> values_of(std::size_t n, unsigned seed, Values kind, DType dtype) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(kind == Values::Finite ? -30 : -4, kind == Values::Finite ? 30 : 4);
  std::uniform_int_distribution<int> pick(0, kind == Values::Finite ? 3000 : 7);
  std::uniform_int_distribution<int> special(0, 5), small(-3, 3);
  const double subnormal = dtype == DType::F32 ? 1e-40 : 1e-310;
  const double specials[] = {kNaN, kInf, -kInf, 0.0, -0.0, subnormal};
  std::vector<double> v(n);
  for (double& x : v) {
    if (pick(rng) == 0) x = specials[special(rng)];
    else if (kind == Values::Ties) x = small(rng) == 0 ? -0.0 : small(rng);
    else x = uniform(rng);
  }
  return v;
}

TensorData float_data(DType dtype, const std::vector<double>& v, Shape shape) {
  if (dtype == DType::F64) return TensorData::from_f64(v, std::move(shape));
  return TensorData::from_f32(std::vector<float>(v.begin(), v.end()), std::move(shape));
}

TensorData random_data(DType dtype, Shape shape, unsigned seed, Values kind = Values::Mixed) {
  return float_data(dtype, values_of(shape.num_elements(), seed, kind, dtype), shape);
}

template <class B>
typename B::Tensor on(const TensorData& d) {
  return B::from_data(d, Device::cpu());
}

// The first differing element, for the failure message.
std::string first_difference(const TensorData& a, const TensorData& b) {
  const auto x = a.bytes(), y = b.bytes();
  const std::size_t esize = x.size() / std::max<std::size_t>(a.shape().num_elements(), 1);
  for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    if (x[i] != y[i]) {
      const std::size_t e = i / std::max<std::size_t>(esize, 1);
      std::string s = "element " + std::to_string(e);
      if (a.dtype() == DType::F32) s += ": " + std::to_string(a.to_f32()[e]) + " vs " + std::to_string(b.to_f32()[e]);
      if (a.dtype() == DType::F64) s += ": " + std::to_string(a.to_f64()[e]) + " vs " + std::to_string(b.to_f64()[e]);
      return s;
    }
  }
  return "sizes " + std::to_string(x.size()) + " vs " + std::to_string(y.size());
}

// Every NaN of a float result made canonical (positive quiet NaN): the sign and payload of a NaN
// produced by arithmetic (inf + -inf, NaN + NaN) are not fixed by C++, whose compilers may swap
// the operands of a commutative add; copies and comparisons keep full bit equality.
TensorData canonical_nans(const TensorData& d) {
  if (d.dtype() == DType::F32) {
    auto v = d.to_f32();
    for (float& x : v) if (std::isnan(x)) x = std::numeric_limits<float>::quiet_NaN();
    return TensorData::from_f32(std::move(v), d.shape());
  }
  if (d.dtype() == DType::F64) {
    auto v = d.to_f64();
    for (double& x : v) if (std::isnan(x)) x = kNaN;
    return TensorData::from_f64(std::move(v), d.shape());
  }
  return d;
}

void expect_bits(const TensorData& flex_result, const TensorData& reference, const std::string& what) {
  EXPECT_EQ(flex_result.shape(), reference.shape()) << what;
  EXPECT_EQ(flex_result.dtype(), reference.dtype()) << what;
  EXPECT_TRUE(flex_result == reference) << what << ": " << first_difference(flex_result, reference);
}

// f(tag) runs one op chain on the tag's backend and returns into_data of the result.
template <class F>
void expect_same_as_ndarray(F f, const std::string& what) {
  expect_bits(f(FlexTag{}), f(RefTag{}), what);
}
// The same where the chain adds (select_assign): bit for bit except which NaN an add returns.
template <class F>
void expect_same_as_ndarray_any_nan(F f, const std::string& what) {
  expect_bits(canonical_nans(f(FlexTag{})), canonical_nans(f(RefTag{})), what);
}

std::string shape_str(const Shape& s) { return s.to_string(); }

// ---- thread and kernel-table configurations ----------------------------------------------------

struct Config {
  std::size_t threads;
  bool portable;
};

void PrintTo(const Config& c, std::ostream* os) { *os << c.threads << " threads" << (c.portable ? ", portable" : ""); }

class FlexMatchesNdArray : public ::testing::TestWithParam<Config> {
 protected:
  void SetUp() override {
    flex::set_num_threads(GetParam().threads);
    flex::force_portable_kernels(GetParam().portable);
  }
  void TearDown() override {
    flex::set_num_threads(0);
    flex::force_portable_kernels(false);
  }
};
INSTANTIATE_TEST_SUITE_P(Configs, FlexMatchesNdArray,
                         ::testing::Values(Config{1, false}, Config{4, false}, Config{1, true}, Config{4, true}),
                         [](const auto& info) {
                           return "T" + std::to_string(info.param.threads) + (info.param.portable ? "Portable" : "Native");
                         });

const DType kFloatTypes[] = {DType::F32, DType::F64};

// ---- element-wise -------------------------------------------------------------------------------

TEST_P(FlexMatchesNdArray, AbsAndClampMatchNdArray) {
  const Shape shapes[] = {Shape{7}, kLarge, Shape{0, 3}, Shape{}};
  const double bounds[][2] = {{-1, 1}, {0, 0}, {-0.0, 0.0}, {-kInf, kInf}, {0.5, 0.5}, {1e300, 1e301}, {-2.5, -kInf * -1}};
  unsigned seed = 1;
  for (DType dt : kFloatTypes) {
    for (const Shape& s : shapes) {
      const TensorData d = random_data(dt, s, seed++);
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::float_abs(on<B>(d)));
      }, "abs " + shape_str(s));
      for (const auto& b : bounds) {
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_clamp(on<B>(d), b[0], b[1]));
        }, "clamp " + shape_str(s) + " [" + std::to_string(b[0]) + ", " + std::to_string(b[1]) + "]");
      }
    }
  }
}

TEST_P(FlexMatchesNdArray, AbsAndClampHandValues) {
  const auto a = Flex::into_data(Flex::float_abs(on<Flex>(TensorData::from_f32({-0.0f, -2, NAN, -INFINITY}, {4})))).to_f32();
  EXPECT_FALSE(std::signbit(a[0]));
  EXPECT_EQ(a[1], 2);
  EXPECT_TRUE(std::isnan(a[2]));
  EXPECT_EQ(a[3], INFINITY);
  const auto c = Flex::into_data(Flex::float_clamp(on<Flex>(TensorData::from_f64({-5, 0.25, 7, kNaN}, {4})), -1, 1)).to_f64();
  EXPECT_EQ(c[0], -1);
  EXPECT_EQ(c[1], 0.25);
  EXPECT_EQ(c[2], 1);
  EXPECT_TRUE(std::isnan(c[3]));
}

TEST_P(FlexMatchesNdArray, IntIntoFloatMatchesNdArray) {
  std::mt19937_64 rng(7);
  for (std::size_t n : {std::size_t{7}, kParallel + 5}) {
    std::vector<std::int64_t> i64(n);
    for (auto& v : i64) v = static_cast<std::int64_t>(rng());
    i64[0] = std::numeric_limits<std::int64_t>::min();
    i64[1] = std::numeric_limits<std::int64_t>::max();
    i64[2] = (std::int64_t{1} << 53) + 1;
    i64[3] = (std::int64_t{1} << 24) + 1;
    i64[4] = -1;
    std::vector<std::int32_t> i32(i64.begin(), i64.end());
    std::vector<std::int8_t> i8(i64.begin(), i64.end());
    std::vector<std::uint8_t> u8(i64.begin(), i64.end());
    const TensorData inputs[] = {TensorData::from_i64(i64, {n}), TensorData::from_i32(i32, {n}),
                                 TensorData::from_i8(i8, {n}), TensorData::from_u8(u8, {n})};
    for (const TensorData& d : inputs) {
      for (DType to : kFloatTypes) {
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::int_into_float(on<B>(d), to));
        }, "int_into_float " + std::string(crossgrad::dtype_name(d.dtype())) + " n=" + std::to_string(n));
      }
    }
  }
  const auto f = Flex::into_data(Flex::int_into_float(on<Flex>(TensorData::from_i64({16777217, -3}, {2})), DType::F32)).to_f32();
  EXPECT_EQ(f, (std::vector<float>{16777216.0f, -3.0f}));  // static_cast rounds to nearest even
}

// ---- max_dim / argmax -----------------------------------------------------------------------------

struct DimCase {
  Shape shape;
  std::size_t dim;
};

std::vector<DimCase> dim_cases() {
  std::vector<DimCase> cases = {{Shape{7}, 0},    {Shape{1, 7}, 0}, {Shape{1, 7}, 1},   {Shape{7, 1}, 0},
                                {Shape{2, 0, 3}, 0}, {kLarge, 0},    {kLarge, 1},        {Shape{kParallel + 1}, 0}};
  for (std::size_t d = 0; d < 3; ++d) cases.push_back({Shape{3, 4, 5}, d});
  for (std::size_t d = 0; d < 3; ++d) cases.push_back({kChunked, d});
  // Inner rows that end one column short of a whole chunk, and of exactly one chunk: the chunk
  // count's rounding (one chunk too many reads and writes a chunk past the row).
  cases.push_back({Shape{3, 4, 2 * kChunk - 1}, 1});
  cases.push_back({Shape{2, 3, kChunk}, 1});
  return cases;
}

TEST_P(FlexMatchesNdArray, MaxDimMinDimAndTheirIndicesMatchNdArray) {
  unsigned seed = 100;
  for (DType dt : kFloatTypes) {
    for (Values kind : {Values::Mixed, Values::Ties}) {
      for (const DimCase& c : dim_cases()) {
        const TensorData d = random_data(dt, c.shape, seed++, kind);
        const std::string what = shape_str(c.shape) + " dim " + std::to_string(c.dim);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_max_dim(on<B>(d), c.dim));
        }, "max_dim " + what);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_argmax(on<B>(d), c.dim));
        }, "argmax " + what);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_min_dim(on<B>(d), c.dim));
        }, "min_dim " + what);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_argmin(on<B>(d), c.dim));
        }, "argmin " + what);
      }
    }
  }
}

TEST_P(FlexMatchesNdArray, MaxScanKeepsFirstNaNAndFirstOfEqualMaxima) {
  // Rows (dim 1): [+0, -0, -1] -> +0 at 0; [-0, +0, -1] -> -0 at 0; [1, NaN, NaN] -> NaN at 1;
  // [-inf, -inf, -inf] -> -inf at 0.
  const TensorData d = TensorData::from_f32({0.0f, -0.0f, -1, -0.0f, 0.0f, -1, 1, NAN, NAN, -INFINITY, -INFINITY, -INFINITY},
                                            {4, 3});
  const auto m = Flex::into_data(Flex::float_max_dim(on<Flex>(d), 1)).to_f32();
  EXPECT_FALSE(std::signbit(m[0]));
  EXPECT_TRUE(std::signbit(m[1]) && m[1] == 0);
  EXPECT_TRUE(std::isnan(m[2]));
  EXPECT_EQ(m[3], -INFINITY);
  const TensorData idx = Flex::into_data(Flex::float_argmax(on<Flex>(d), 1));
  EXPECT_EQ(idx.dtype(), DType::I64);
  EXPECT_EQ(idx.shape(), (Shape{4, 1}));
  EXPECT_EQ(idx.to_i64(), (std::vector<std::int64_t>{0, 0, 1, 0}));
  // Along dim 0 (columns, inner > 1): [+0, -0, 1, -inf] -> 1 at 2, [-0, +0, NaN, ...] -> NaN at 2.
  EXPECT_EQ(Flex::into_data(Flex::float_argmax(on<Flex>(d), 0)).to_i64(), (std::vector<std::int64_t>{2, 2, 2}));
}

// ---- max_abs_dim, prod_dim, any_dim, all_dim and the whole-tensor reductions ---------------------

TEST_P(FlexMatchesNdArray, MaxAbsProdAnyAllAlongADimMatchNdArray) {
  unsigned seed = 300;
  for (DType dt : kFloatTypes) {
    for (Values kind : {Values::Mixed, Values::Ties}) {
      for (const DimCase& c : dim_cases()) {
        const TensorData d = random_data(dt, c.shape, seed++, kind);
        const std::string what = shape_str(c.shape) + " dim " + std::to_string(c.dim);
        if (c.shape[c.dim] > 0) {
          expect_same_as_ndarray([&](auto tag) {
            using B = typename decltype(tag)::type;
            return B::into_data(B::float_max_abs_dim(on<B>(d), c.dim));
          }, "max_abs_dim " + what);
        }
        // Products in one order on both: the same bits, except which NaN arithmetic makes.
        expect_same_as_ndarray_any_nan([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_prod_dim(on<B>(d), c.dim));
        }, "prod_dim " + what);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_any_dim(on<B>(d), c.dim));
        }, "any_dim " + what);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_all_dim(on<B>(d), c.dim));
        }, "all_dim " + what);
      }
    }
  }
}

// any_dim / all_dim down columns: each lane has at most one deciding element (all: one zero among
// nonzeros, a NaN among them counting as nonzero; any: one nonzero among zeros), at a row that
// differs from lane to lane and from the rows where a blocked scan checks whether it may stop, and
// every 5th lane has none; lanes decided by their first element sit beside lanes decided last.
TEST_P(FlexMatchesNdArray, AnyAllDimFindTheOneDecidingElementOfEachColumn) {
  for (const bool all : {false, true}) {
    for (const std::size_t outer : {std::size_t{1}, std::size_t{2}}) {
      for (const std::size_t len : {std::size_t{1}, std::size_t{2}, std::size_t{9}, std::size_t{17}, std::size_t{40}}) {
        for (const std::size_t inner : {std::size_t{3}, std::size_t{257}, std::size_t{600}}) {
          const Shape shape = outer == 1 ? Shape{len, inner} : Shape{outer, len, inner};
          const std::size_t dim = outer == 1 ? 0 : 1;
          std::vector<float> v(outer * len * inner, all ? 1.5f : 0.0f);
          for (std::size_t i = 0; i < outer; ++i) {
            for (std::size_t j = 0; j < inner; ++j) {
              const std::size_t at = (i * 3 + j * 7) % len;
              if (j % 5 != 4) v[(i * len + at) * inner + j] = all ? 0.0f : -2.0f;
              if (all && j % 11 == 0) v[(i * len + (at + 1) % len) * inner + j] = std::numeric_limits<float>::quiet_NaN();
            }
          }
          const TensorData d = TensorData::from_f32(v, shape);
          const std::string what = std::string(all ? "all_dim " : "any_dim ") + shape_str(shape);
          expect_same_as_ndarray([&](auto tag) {
            using B = typename decltype(tag)::type;
            return B::into_data(all ? B::float_all_dim(on<B>(d), dim) : B::float_any_dim(on<B>(d), dim));
          }, what);
        }
      }
    }
  }
}

TEST_P(FlexMatchesNdArray, WholeTensorReductionsMatchNdArray) {
  // Past 2 * sum_block elements Flex scans fixed blocks in parallel and combines their kept
  // elements; the blocked scan must keep the sequential scan's element (first NaN, first of ties).
  const std::size_t block = flex::kTuning.sum_block;
  const Shape shapes[] = {Shape{}, Shape{7}, kLarge, Shape{2 * block + 3}, Shape{3, block + 1}};
  unsigned seed = 500;
  for (DType dt : kFloatTypes) {
    for (Values kind : {Values::Mixed, Values::Ties}) {
      for (const Shape& s : shapes) {
        const TensorData d = random_data(dt, s, seed++, kind);
        const std::string what = shape_str(s) + (kind == Values::Ties ? " ties" : " mixed");
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_max(on<B>(d)));
        }, "max " + what);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_min(on<B>(d)));
        }, "min " + what);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_max_abs(on<B>(d)));
        }, "max_abs " + what);
        expect_same_as_ndarray_any_nan([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_prod(on<B>(d)));
        }, "prod " + what);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_any(on<B>(d)));
        }, "any " + what);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_all(on<B>(d)));
        }, "all " + what);
      }
    }
  }
}

TEST_P(FlexMatchesNdArray, BlockedWholeScanKeepsTheFirstNaNAndTheFirstOfTies) {
  // Ties and NaNs placed in different blocks: block 0 holds -0 (a maximum tied with +0 in block 2)
  // and block 1 the first NaN, block 2 a second NaN; the payloads tell the NaNs apart.
  const std::size_t block = flex::kTuning.sum_block, n = 3 * block;
  std::vector<float> v(n, -1.0f);
  v[5] = -0.0f;
  v[2 * block + 9] = 0.0f;
  const float zero_first_max = Flex::into_data(Flex::float_max(on<Flex>(TensorData::from_f32(v, {n})))).to_f32()[0];
  EXPECT_TRUE(zero_first_max == 0 && std::signbit(zero_first_max)) << "the first of the tied zeros (-0)";
  std::uint32_t first_bits = 0x7fc00011u, second_bits = 0x7fc00022u;
  float first, second;
  std::memcpy(&first, &first_bits, sizeof first);
  std::memcpy(&second, &second_bits, sizeof second);
  v[block + 17] = first;
  v[2 * block + 1] = second;
  for (auto op : {&Flex::float_max, &Flex::float_min, &Flex::float_max_abs}) {
    const float got = Flex::into_data(op(on<Flex>(TensorData::from_f32(v, {n})))).to_f32()[0];
    std::uint32_t got_bits;
    std::memcpy(&got_bits, &got, sizeof got);
    EXPECT_EQ(got_bits, first_bits);
  }
}

// ---- comparisons ----------------------------------------------------------------------------------

TEST_P(FlexMatchesNdArray, ComparisonsMatchNdArrayWithBroadcasting) {
  const std::pair<Shape, Shape> pairs[] = {
      {Shape{7}, Shape{7}},          {kLarge, kLarge},         {Shape{300, 1}, Shape{1, 257}}, {Shape{257}, kLarge},
      {kLarge, Shape{}},             {Shape{7}, Shape{1}},     {Shape{0, 3}, Shape{1, 3}},     {Shape{4, 1, 2 * kChunk + 3}, Shape{5, 1}},
      {kChunked, Shape{4, 1, 2 * kChunk + 3}}, {Shape{kParallel + 3}, Shape{1}}, {Shape{2, 1, 3}, Shape{2, 4, 1}}};
  unsigned seed = 200;
  for (DType dt : kFloatTypes) {
    for (const auto& [ls, rs] : pairs) {
      const TensorData a = random_data(dt, ls, seed++, Values::Ties);
      const TensorData b = random_data(dt, rs, seed++, Values::Ties);
      const std::string what = shape_str(ls) + " vs " + shape_str(rs);
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::float_greater(on<B>(a), on<B>(b)));
      }, "greater " + what);
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::float_lower(on<B>(b), on<B>(a)));
      }, "lower " + what);
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::float_equal(on<B>(a), on<B>(b)));
      }, "equal " + what);
    }
  }
}

TEST_P(FlexMatchesNdArray, ComparisonsHandValues) {
  const auto a = on<Flex>(TensorData::from_f64({-0.0, 1, kNaN, kInf}, {4}));
  const auto b = on<Flex>(TensorData::from_f64({0.0, 2, kNaN, kInf}, {4}));
  const TensorData g = Flex::into_data(Flex::float_greater(b, a));
  EXPECT_EQ(g.dtype(), DType::Bool);
  EXPECT_EQ(g.to_bool(), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(Flex::into_data(Flex::float_lower(a, b)).to_bool(), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(Flex::into_data(Flex::float_equal(a, b)).to_bool(), (std::vector<bool>{true, false, false, true}));
}

// ---- cat / slice / select / select_assign -----------------------------------------------------------

TEST_P(FlexMatchesNdArray, CatMatchesNdArray) {
  struct CatCase {
    std::vector<Shape> shapes;
    std::size_t dim;
  };
  const CatCase cases[] = {
      {{Shape{2, 3}, Shape{0, 3}, Shape{5, 3}}, 0}, {{Shape{7}, Shape{7}}, 0},     {{Shape{3}}, 0},
      {{Shape{300, 100}, Shape{300, 157}, Shape{300, 0}}, 1}, {{Shape{200, 257}, Shape{100, 257}}, 0},
      {{Shape{4, 5, 1}, Shape{4, 5, 2 * kChunk + 2}}, 2}, {{Shape{4, 2, 7}, Shape{4, 0, 7}, Shape{4, 3, 7}}, 1},
      {{Shape{0, 4}, Shape{0, 4}}, 0}};
  unsigned seed = 300;
  for (DType dt : kFloatTypes) {
    for (const CatCase& c : cases) {
      std::vector<TensorData> pieces;
      for (const Shape& s : c.shapes) pieces.push_back(random_data(dt, s, seed++));
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        std::vector<typename B::Tensor> ts;
        for (const TensorData& p : pieces) ts.push_back(on<B>(p));
        return B::into_data(B::float_cat(ts, c.dim));
      }, "cat dim " + std::to_string(c.dim) + " of " + shape_str(c.shapes.front()) + "...");
    }
  }
}

TEST_P(FlexMatchesNdArray, SliceMatchesNdArray) {
  struct SliceCase {
    Shape shape;
    std::vector<Range> ranges;
  };
  const SliceCase cases[] = {
      {Shape{7}, {{2, 6}}},
      {kLarge, {{3, 290}, {1, 250}}},
      {kLarge, {{10, 290}}},
      {kLarge, {{0, 300}, {0, 257}}},
      {kLarge, {{5, 5}}},
      {kLarge, {{0, 300}, {100, 101}}},
      {kChunked, {{1, 3}, {0, 5}, {7, 2 * kChunk}}},
      {kChunked, {{0, 4}, {2, 3}}},
      {Shape{3, 4, 5}, {{1, 2}, {1, 3}, {4, 5}}},
      {Shape{}, {}},
      {Shape{2, 0, 3}, {{1, 2}}},
  };
  unsigned seed = 400;
  for (DType dt : kFloatTypes) {
    for (const SliceCase& c : cases) {
      const TensorData d = random_data(dt, c.shape, seed++);
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::float_slice(on<B>(d), c.ranges));
      }, "slice " + shape_str(c.shape));
    }
  }
}

TensorData index_data(const std::vector<std::int64_t>& idx, bool i32) {
  if (i32) return TensorData::from_i32(std::vector<std::int32_t>(idx.begin(), idx.end()), {idx.size()});
  return TensorData::from_i64(idx, {idx.size()});
}

std::vector<std::int64_t> random_indices(std::size_t k, std::size_t size, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::int64_t> dist(0, static_cast<std::int64_t>(size) - 1);
  std::vector<std::int64_t> v(k);
  for (auto& x : v) x = dist(rng);
  return v;
}

struct SelectCase {
  Shape shape;
  std::size_t dim;
  std::vector<std::int64_t> indices;
};

std::vector<SelectCase> select_cases() {
  return {
      {Shape{7}, 0, {6, 0, 0, 3}},
      {Shape{7}, 0, {}},
      {kLarge, 0, random_indices(250, 300, 1)},
      {kLarge, 1, random_indices(300, 257, 2)},
      {kChunked, 1, {4, 0, 4, 2, 4}},
      {kChunked, 2, random_indices(40, 2 * kChunk + 3, 3)},
      {Shape{3, 4, 5}, 2, {1, 1}},
      {Shape{2, 0, 3}, 2, {2, 0}},
      {Shape{1, kParallel + 9}, 0, {0, 0, 0}},
  };
}

TEST_P(FlexMatchesNdArray, SelectMatchesNdArray) {
  unsigned seed = 500;
  for (DType dt : kFloatTypes) {
    for (const SelectCase& c : select_cases()) {
      const TensorData d = random_data(dt, c.shape, seed++);
      for (bool i32 : {false, true}) {
        const TensorData idx = index_data(c.indices, i32);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_select(on<B>(d), c.dim, on<B>(idx)));
        }, "select " + shape_str(c.shape) + " dim " + std::to_string(c.dim));
      }
    }
  }
}

TEST_P(FlexMatchesNdArray, SelectAssignMatchesNdArray) {
  unsigned seed = 600;
  for (DType dt : kFloatTypes) {
    for (const SelectCase& c : select_cases()) {
      const TensorData d = random_data(dt, c.shape, seed++);
      std::vector<std::size_t> vdims = c.shape.dims();
      vdims[c.dim] = c.indices.size();
      const TensorData v = random_data(dt, Shape(vdims), seed++);
      for (bool i32 : {false, true}) {
        const TensorData idx = index_data(c.indices, i32);
        expect_same_as_ndarray_any_nan([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_select_assign(on<B>(d), c.dim, on<B>(idx), on<B>(v)));
        }, "select_assign " + shape_str(c.shape) + " dim " + std::to_string(c.dim));
      }
    }
  }
}

TEST_P(FlexMatchesNdArray, SelectAssignAccumulatesDuplicatesInIndexOrder) {
  // out[0] = (1e8 + 1) + -1e8 in float: 1e8 + 1 rounds to 1e8, so 0 (the other order gives 1).
  const auto out = Flex::float_select_assign(on<Flex>(TensorData::from_f32({1e8f, 5}, {2})), 0,
                                             on<Flex>(TensorData::from_i64({0, 0}, {2})),
                                             on<Flex>(TensorData::from_f32({1, -1e8f}, {2})));
  EXPECT_EQ(Flex::into_data(out).to_f32(), (std::vector<float>{0, 5}));
  const auto sel = Flex::float_select(on<Flex>(TensorData::from_f64({1, 2, 3, 4, 5, 6}, {2, 3})), 1,
                                      on<Flex>(TensorData::from_i32({2, 0, 2}, {3})));
  EXPECT_EQ(Flex::shape(sel), (Shape{2, 3}));
  EXPECT_EQ(Flex::into_data(sel).to_f64(), (std::vector<double>{3, 1, 3, 6, 4, 6}));
}

// ---- permute / expand -------------------------------------------------------------------------------

TEST_P(FlexMatchesNdArray, PermuteMatchesNdArray) {
  struct PermCase {
    Shape shape;
    std::vector<std::size_t> axes;
  };
  std::vector<PermCase> cases = {
      {kLarge, {1, 0}},          {kLarge, {0, 1}},          {Shape{1, 7, 1}, {2, 1, 0}},
      {Shape{}, {}},             {Shape{2, 0, 3}, {2, 0, 1}}, {Shape{7}, {0}},
      {kChunked, {2, 1, 0}},     {kChunked, {0, 2, 1}},     {kChunked, {1, 0, 2}}};
  const std::vector<std::size_t> perms3[] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (const auto& p : perms3) cases.push_back({Shape{3, 4, 5}, p});
  const Shape big4{8, 9, 33, 40};
  for (const auto& axes : {std::vector<std::size_t>{3, 2, 1, 0}, {0, 1, 3, 2}, {2, 0, 3, 1}, {1, 0, 2, 3}, {0, 3, 1, 2}}) {
    cases.push_back({big4, axes});
  }
  unsigned seed = 700;
  for (DType dt : kFloatTypes) {
    for (const PermCase& c : cases) {
      const TensorData d = random_data(dt, c.shape, seed++);
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::float_permute(on<B>(d), c.axes));
      }, "permute " + shape_str(c.shape) + " axes " + Shape(c.axes).to_string());
    }
  }
  // By hand: [2, 3] -> [3, 2] is the transpose.
  const auto t = Flex::float_permute(on<Flex>(TensorData::from_f32({1, 2, 3, 4, 5, 6}, {2, 3})), {1, 0});
  EXPECT_EQ(Flex::into_data(t).to_f32(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

// swap_dims runs the strided gather's tile transpose (8x8 register blocks of 4-byte elements, 4x4
// of 8-byte ones under AVX2, a plain loop for 1-byte ones and ragged edges): every element size,
// sizes that are and are not multiples of the blocks and of the cache tile, NaN payloads and -0
// moved bit for bit.
TEST_P(FlexMatchesNdArray, SwapDimsMatchesNdArrayOnEveryElementSize) {
  struct SwapCase {
    Shape shape;
    std::size_t dim0, dim1;
  };
  const std::size_t tile = flex::kTuning.transpose_tile;
  const std::vector<SwapCase> cases = {
      {Shape{37, 45}, 0, 1},        {Shape{2 * tile, 3 * tile}, 1, 0}, {Shape{2, tile + 9, 8}, 1, 2},
      {Shape{3, 16, 24}, 0, 2},     {Shape{5, 3, 33, 8}, 1, 3},        {kLarge, 0, 1},
      {Shape{4, 1, 7}, 0, 2},       {Shape{6, 0, 5}, 0, 2},            {Shape{9, 8}, 1, 1}};
  unsigned seed = 760;
  for (const SwapCase& c : cases) {
    const std::string what = shape_str(c.shape) + " dims " + std::to_string(c.dim0) + "," + std::to_string(c.dim1);
    for (DType dt : kFloatTypes) {
      const TensorData d = random_data(dt, c.shape, seed++);
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::float_swap_dims(on<B>(d), c.dim0, c.dim1));
      }, std::string("float_swap_dims ") + crossgrad::dtype_name(dt).data() + " " + what);
    }
    const std::size_t n = c.shape.num_elements();
    std::vector<std::int64_t> i64(n);
    std::vector<std::int32_t> i32(n);
    std::vector<std::int8_t> i8(n);
    for (std::size_t i = 0; i < n; ++i) {
      i64[i] = static_cast<std::int64_t>(i * 0x9E3779B97F4A7C15ull);
      i32[i] = static_cast<std::int32_t>(i * 2654435761u);
      i8[i] = static_cast<std::int8_t>(i * 37);
    }
    for (const TensorData& d : {TensorData::from_i64(i64, c.shape), TensorData::from_i32(i32, c.shape),
                                TensorData::from_i8(i8, c.shape)}) {
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::int_swap_dims(on<B>(d), c.dim0, c.dim1));
      }, std::string("int_swap_dims ") + crossgrad::dtype_name(d.dtype()).data() + " " + what);
    }
  }
}

// int_cumsum along the innermost dim steps eight rows side by side through a buffer of 64-column
// blocks: row lengths around the block, power-of-two lengths (rows a multiple of 4 KiB apart), a
// group of fewer than eight rows at the end, and wrapping sums.
// A lane whose extreme is one element, at every position of lanes around the lengths where a
// reduction's loop changes shape (a vector's width, several vectors of accumulators, a tail, the
// 64K blocks the pool folds): an extreme or a factor dropped or counted twice by any part of the
// loop changes the result. The product's lane is +-1 with a single 3.
TEST_P(FlexMatchesNdArray, IntExtremesAndProductsSeeEveryPositionOfALane) {
  const auto check = [&]<class I>(DType dtype, I big, I small, I background_low) {
    const std::size_t block = std::size_t{1} << 16;
    for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                                std::size_t{255}, std::size_t{256}, std::size_t{257}, std::size_t{300}, block + 300}) {
      std::vector<std::size_t> positions;
      if (n <= 300) {
        for (std::size_t p = 0; p < n; ++p) positions.push_back(p);
      } else {
        positions = {0, 129, block - 1, block, n - 1};
      }
      for (const std::size_t p : positions) {
        std::vector<I> lane(n), factors(n);
        for (std::size_t k = 0; k < n; ++k) {
          lane[k] = static_cast<I>(background_low + static_cast<I>(k % 5));
          factors[k] = static_cast<I>(std::is_signed_v<I> && k % 3 == 1 ? -1 : 1);
        }
        lane[p] = big;
        factors[p] = 3;
        const std::size_t q = (p * 7 + 3) % n;
        if (q != p) lane[q] = small;
        const std::string what = std::string(dtype_name(dtype)) + " n " + std::to_string(n) + " at " + std::to_string(p);
        const auto data = [&](std::vector<I> v) {
          if constexpr (std::is_same_v<I, std::int64_t>) return TensorData::from_i64(std::move(v), Shape{n});
          else if constexpr (std::is_same_v<I, std::int32_t>) return TensorData::from_i32(std::move(v), Shape{n});
          else if constexpr (std::is_same_v<I, std::int8_t>) return TensorData::from_i8(std::move(v), Shape{n});
          else return TensorData::from_u8(std::move(v), Shape{n});
        };
        const TensorData x = data(lane), f = data(factors);
#define CG_LANE(expr, data)                                    \
  expect_same_as_ndarray([&](auto tag) {                       \
    using B = typename decltype(tag)::type;                    \
    const auto t = on<B>(data);                                \
    return B::into_data(expr);                                 \
  }, #expr " " + what);
        CG_LANE(B::int_max(t), x)
        CG_LANE(B::int_min(t), x)
        CG_LANE(B::int_max_abs(t), x)
        CG_LANE(B::int_argmax(t, 0), x)
        CG_LANE(B::int_argmin(t, 0), x)
        CG_LANE(B::int_max_dim(t, 0), x)
        CG_LANE(B::int_prod(t), f)
        CG_LANE(B::int_prod_dim(t, 0), f)
#undef CG_LANE
      }
    }
  };
  // The extreme's |x| is the unique largest too (max_abs); U8's smallest is 0 under a background of 1..5.
  check.operator()<std::int64_t>(DType::I64, std::int64_t{1} << 40, -(std::int64_t{1} << 39), -2);
  check.operator()<std::int32_t>(DType::I32, 100000, -90000, -2);
  check.operator()<std::int8_t>(DType::I8, 100, -90, -2);
  check.operator()<std::uint8_t>(DType::U8, 200, 0, 1);
}

// int_powi_scalar's blocks of 256 elements take the exponent's bits in turn: every bit pattern
// from 0 up (the last multiply skipped, squarings unused), negative exponents (per element), and
// lengths around the block.
TEST_P(FlexMatchesNdArray, IntPowiScalarMatchesNdArrayForEveryExponent) {
  std::mt19937 rng(4242);
  for (const std::size_t n : {std::size_t{1}, std::size_t{255}, std::size_t{256}, std::size_t{257}, std::size_t{700}}) {
    std::vector<std::int64_t> i64(n);
    std::vector<std::int32_t> i32(n);
    std::vector<std::int8_t> i8(n);
    std::vector<std::uint8_t> u8(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto r = static_cast<std::int64_t>(rng() % 11) - 5;
      i64[i] = i % 7 == 0 ? static_cast<std::int64_t>(rng()) : r;
      i32[i] = static_cast<std::int32_t>(r);
      i8[i] = static_cast<std::int8_t>(rng());
      u8[i] = static_cast<std::uint8_t>(rng());
    }
    for (const TensorData& d : {TensorData::from_i64(i64, Shape{n}), TensorData::from_i32(i32, Shape{n}),
                                TensorData::from_i8(i8, Shape{n}), TensorData::from_u8(u8, Shape{n})}) {
      for (const double e : {0.0, 1.0, 2.0, 3.0, 5.0, 6.0, 7.0, 8.0, 13.0, 31.0, 63.0, -1.0, -2.0}) {
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::int_powi_scalar(on<B>(d), e));
        }, "int_powi_scalar " + std::string(dtype_name(d.dtype())) + " n " + std::to_string(n) + " ^ " + std::to_string(e));
      }
    }
  }
}

TEST_P(FlexMatchesNdArray, IntScansAlongRowsMatchNdArray) {
  unsigned seed = 990;
  for (const Shape& shape : {Shape{8, 64}, Shape{16, 65}, Shape{11, 128}, Shape{9, 1}, Shape{3, 130}, Shape{17, 512}}) {
    std::mt19937 rng(seed++);
    std::uniform_int_distribution<std::int64_t> big(std::numeric_limits<std::int64_t>::min() / 2,
                                                    std::numeric_limits<std::int64_t>::max() / 2);
    std::vector<std::int64_t> v(shape.num_elements());
    for (auto& x : v) x = big(rng);
    const TensorData d = TensorData::from_i64(v, shape);
    const std::string what = shape_str(shape);
    expect_same_as_ndarray([&](auto tag) {
      using B = typename decltype(tag)::type;
      return B::into_data(B::int_cumsum(on<B>(d), 1));
    }, "int_cumsum " + what);
    expect_same_as_ndarray([&](auto tag) {
      using B = typename decltype(tag)::type;
      return B::into_data(B::int_cummax(on<B>(d), 1));
    }, "int_cummax " + what);
  }
}

// The int reductions along a dim that is not innermost fold blocks of columns row by row (under
// AVX2 in a copy of their own): every reduction, every int width, lanes with ties (the first
// extreme and its index), MIN (abs(MIN) is MIN), wrapping sums and products, column counts around
// the 256-column block, and an empty dim. Whole-tensor any / all past one 64K block, decided by
// the first block or only by a later one.
TEST_P(FlexMatchesNdArray, IntReductionsAlongEveryDimMatchNdArray) {
  struct DimCase {
    Shape shape;
    std::size_t dim;
  };
  const std::vector<DimCase> cases = {{Shape{5, 300, 7}, 1}, {Shape{5, 300, 7}, 0}, {Shape{3, 4, 600}, 1},
                                      {Shape{33, 257}, 0},   {Shape{6, 5}, 1},      {Shape{2, 0, 5}, 1},
                                      {Shape{7, 301}, 1},    {Shape{4, 3, 33}, 2},  {Shape{3, 0}, 1}};
  unsigned seed = 1200;
  for (const DimCase& c : cases) {
    const std::size_t n = c.shape.num_elements();
    std::mt19937 rng(seed++);
    std::uniform_int_distribution<int> pick(0, 9);
    std::vector<std::int64_t> i64(n);
    std::vector<std::int32_t> i32(n);
    std::vector<std::int8_t> i8(n);
    std::vector<std::uint8_t> u8(n);
    std::vector<bool> bits(n);
    for (std::size_t i = 0; i < n; ++i) {
      const int p = pick(rng);
      // Mostly small values (ties), some at the ends of the dtype, some zeros (any / all).
      i64[i] = p == 0 ? std::numeric_limits<std::int64_t>::min() : p == 1 ? std::numeric_limits<std::int64_t>::max() : p - 5;
      i32[i] = p == 0 ? std::numeric_limits<std::int32_t>::min() : static_cast<std::int32_t>(rng() % 7) - 3;
      i8[i] = static_cast<std::int8_t>(rng());
      u8[i] = static_cast<std::uint8_t>(p == 9 ? 0 : rng());
      bits[i] = p != 3;
    }
    const std::string what = shape_str(c.shape) + " dim " + std::to_string(c.dim);
    for (const TensorData& d : {TensorData::from_i64(i64, c.shape), TensorData::from_i32(i32, c.shape),
                                TensorData::from_i8(i8, c.shape), TensorData::from_u8(u8, c.shape)}) {
      const std::string dt = crossgrad::dtype_name(d.dtype()).data();
#define CG_INT_DIM(op)                                                           \
  expect_same_as_ndarray([&](auto tag) {                                         \
    using B = typename decltype(tag)::type;                                      \
    return B::into_data(B::op(on<B>(d), c.dim));                             \
  }, #op " " + dt + " " + what);
      CG_INT_DIM(int_sum_dim)
      CG_INT_DIM(int_prod_dim)
      CG_INT_DIM(int_any_dim)
      CG_INT_DIM(int_all_dim)
      if (c.shape[c.dim] != 0) {
        CG_INT_DIM(int_mean_dim)
        CG_INT_DIM(int_max_dim)
        CG_INT_DIM(int_min_dim)
        CG_INT_DIM(int_argmax)
        CG_INT_DIM(int_argmin)
        CG_INT_DIM(int_max_abs_dim)
      }
#undef CG_INT_DIM
      // The same data reduced whole (one contiguous lane).
#define CG_INT_ALL(op)                                 \
  expect_same_as_ndarray([&](auto tag) {               \
    using B = typename decltype(tag)::type;            \
    return B::into_data(B::op(on<B>(d)));              \
  }, #op " " + dt + " " + shape_str(c.shape));
      CG_INT_ALL(int_sum)
      CG_INT_ALL(int_prod)
      if (n != 0) {
        CG_INT_ALL(int_mean)
        CG_INT_ALL(int_max)
        CG_INT_ALL(int_min)
        CG_INT_ALL(int_max_abs)
      }
#undef CG_INT_ALL
    }
    const TensorData b = TensorData::from_bool(bits, c.shape);
    for (const bool any : {true, false}) {
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        const auto t = on<B>(b);
        return B::into_data(any ? B::bool_any_dim(t, c.dim) : B::bool_all_dim(t, c.dim));
      }, std::string(any ? "bool_any_dim " : "bool_all_dim ") + what);
    }
  }
  // Whole tensors of 3 x 64K: the first block decides any (a 1 in it) and all (a 0 in it), or
  // only the last block does; the other reductions fold blocks and then the blocks' results.
  const std::size_t big = 3 * (std::size_t{1} << 16);
  {
    std::mt19937 rng(1299);
    std::vector<std::int64_t> v(big + 5);
    for (auto& x : v) x = static_cast<std::int64_t>(rng() % 1000) - 500;
    v[big - 7] = std::numeric_limits<std::int64_t>::min();
    const TensorData d = TensorData::from_i64(v, Shape{big + 5});
#define CG_INT_WHOLE(op)                      \
  expect_same_as_ndarray([&](auto tag) {      \
    using B = typename decltype(tag)::type;   \
    return B::into_data(B::op(on<B>(d)));     \
  }, #op " of " + std::to_string(big + 5));
    CG_INT_WHOLE(int_sum)
    CG_INT_WHOLE(int_mean)
    CG_INT_WHOLE(int_max)
    CG_INT_WHOLE(int_min)
    CG_INT_WHOLE(int_max_abs)
#undef CG_INT_WHOLE
  }
  for (const std::size_t at : {std::size_t{5}, big - 2}) {
    std::vector<std::int64_t> zeros(big, 0), ones(big, 1);
    zeros[at] = 7;
    ones[at] = 0;
    for (const auto& v : {zeros, ones}) {
      const TensorData d = TensorData::from_i64(v, Shape{big});
      for (const bool any : {true, false}) {
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          const auto t = on<B>(d);
          return B::into_data(any ? B::int_any(t) : B::int_all(t));
        }, std::string(any ? "int_any" : "int_all") + " of " + std::to_string(big) + ", the odd one at " + std::to_string(at));
      }
    }
  }
}

// cumsum and cumprod fold each lane in T in index order on both backends: the same bits, NaN
// payloads aside (an add of two NaNs may return either).
TEST_P(FlexMatchesNdArray, CumsumAndCumprodMatchNdArray) {
  unsigned seed = 900;
  for (DType dt : kFloatTypes) {
    for (Values kind : {Values::Mixed, Values::Ties}) {
      for (const DimCase& c : dim_cases()) {
        const TensorData d = random_data(dt, c.shape, seed++, kind);
        const std::string what = shape_str(c.shape) + " dim " + std::to_string(c.dim);
        expect_same_as_ndarray_any_nan([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_cumsum(on<B>(d), c.dim));
        }, "cumsum " + what);
        expect_same_as_ndarray_any_nan([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_cumprod(on<B>(d), c.dim));
        }, "cumprod " + what);
      }
    }
  }
}

// cummin / cummax copy elements: the same bits, NaNs and signed zeros included.
TEST_P(FlexMatchesNdArray, CumminAndCummaxMatchNdArray) {
  unsigned seed = 950;
  for (DType dt : kFloatTypes) {
    for (Values kind : {Values::Mixed, Values::Ties}) {
      for (const DimCase& c : dim_cases()) {
        const TensorData d = random_data(dt, c.shape, seed++, kind);
        const std::string what = shape_str(c.shape) + " dim " + std::to_string(c.dim);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_cummin(on<B>(d), c.dim));
        }, "cummin " + what);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_cummax(on<B>(d), c.dim));
        }, "cummax " + what);
      }
    }
  }
}

// slice_assign's own Flex kernel (a parallel copy, then one memcpy per block row) against the
// reference's composite: blocks at the edges and inside every dim, empty and whole blocks.
TEST_P(FlexMatchesNdArray, SliceAssignMatchesNdArray) {
  unsigned seed = 960;
  const std::vector<std::pair<Shape, std::vector<Range>>> cases = {
      {Shape{256, 300}, {{10, 200}, {1, 299}}}, {Shape{256, 300}, {{0, 256}, {0, 1}}}, {Shape{4, 5, 6}, {{1, 3}, {0, 5}, {2, 6}}},
      {Shape{4, 5, 6}, {{2, 2}}},               {Shape{7}, {{0, 7}}},                  {Shape{}, {}},
      {Shape{3, 1000}, {{2, 3}}}};
  for (DType dt : kFloatTypes) {
    for (const auto& [shape, ranges] : cases) {
      const TensorData d = random_data(dt, shape, seed++, Values::Mixed);
      std::vector<std::size_t> block = shape.dims();
      for (std::size_t k = 0; k < ranges.size(); ++k) block[k] = ranges[k].end - ranges[k].start;
      const TensorData v = random_data(dt, Shape(block), seed++, Values::Mixed);
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::float_slice_assign(on<B>(d), ranges, on<B>(v)));
      }, "slice_assign " + shape_str(shape));
    }
  }
}

// argsort both ways and argtopk with a k of 1, of half the dim and of all of it: Flex's integer
// keys give the reference's stable order, NaNs, signed zeros and ties included.
TEST_P(FlexMatchesNdArray, ArgsortAndArgtopkMatchNdArray) {
  unsigned seed = 970;
  for (DType dt : kFloatTypes) {
    for (Values kind : {Values::Mixed, Values::Ties}) {
      for (const DimCase& c : dim_cases()) {
        const TensorData d = random_data(dt, c.shape, seed++, kind);
        const std::string what = shape_str(c.shape) + " dim " + std::to_string(c.dim);
        for (const bool descending : {false, true}) {
          expect_same_as_ndarray([&](auto tag) {
            using B = typename decltype(tag)::type;
            return B::into_data(B::float_argsort(on<B>(d), c.dim, descending));
          }, std::string(descending ? "argsort descending " : "argsort ") + what);
        }
        const std::size_t len = c.shape[c.dim];
        for (const std::size_t k : {std::min<std::size_t>(1, len), len / 2, len}) {
          expect_same_as_ndarray([&](auto tag) {
            using B = typename decltype(tag)::type;
            return B::into_data(B::float_argtopk(on<B>(d), c.dim, k));
          }, "argtopk " + std::to_string(k) + " " + what);
        }
      }
    }
  }
}

// gather and scatter_add over every dim of the parallel and column-chunk shapes, k below, at and
// above the dim's size, with duplicates; a bad index far into a large index tensor is the one
// reported (Flex checks blocks of indices without a branch, then looks for the first).
// mask_select has its own Flex kernel (blocks counted in parallel, then copied): masks all false,
// all true, random, and long enough to span several blocks and threads.
TEST_P(FlexMatchesNdArray, MaskSelectMatchesNdArray) {
  unsigned seed = 4000;
  for (DType dt : kFloatTypes) {
    for (const Shape& shape : {Shape{}, Shape{0}, Shape{3, 5}, Shape{kParallel + 7}, Shape{4, kParallel / 2 + 3}}) {
      const TensorData d = random_data(dt, shape, seed++);
      const std::vector<std::int64_t> bits = random_indices(shape.num_elements(), 2, seed++);
      for (int pattern = 0; pattern < 3; ++pattern) {
        std::vector<bool> m(shape.num_elements());
        for (std::size_t i = 0; i < m.size(); ++i) m[i] = pattern == 0 ? false : pattern == 1 ? true : bits[i] != 0;
        const TensorData mask = TensorData::from_bool(m, shape);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_mask_select(on<B>(d), on<B>(mask)));
        }, "mask_select " + shape_str(shape) + " pattern " + std::to_string(pattern));
      }
    }
  }
}

// scatter_nd has its own Flex kernel (row chunks in parallel, index rows in order): every update,
// rows named twice, k = 0 (whole tensors), single elements, and rows long enough to split.
TEST_P(FlexMatchesNdArray, ScatterNdMatchesNdArray) {
  unsigned seed = 3000;
  struct NdCase {
    Shape shape;
    std::size_t rows, k;
  };
  const NdCase cases[] = {{Shape{4, 3}, 6, 1}, {Shape{3, 4, 5}, 7, 2}, {Shape{2, 3}, 3, 0}, {Shape{2, 3}, 5, 2},
                          {Shape{8, kParallel / 4 + 3}, 12, 1}};
  for (DType dt : kFloatTypes) {
    for (const NdCase& c : cases) {
      std::vector<std::int64_t> coordinates;
      for (std::size_t j = 0; j < c.k; ++j) {
        const std::vector<std::int64_t> column = random_indices(c.rows, c.shape[j], seed++);
        coordinates.resize(c.rows * c.k);
        for (std::size_t m = 0; m < c.rows; ++m) coordinates[m * c.k + j] = column[m];
      }
      const TensorData idx = TensorData::from_i64(coordinates, Shape{c.rows, c.k});
      std::vector<std::size_t> vdims{c.rows};
      for (std::size_t d = c.k; d < c.shape.rank(); ++d) vdims.push_back(c.shape[d]);
      const TensorData d = random_data(dt, c.shape, seed++);
      const TensorData v = random_data(dt, Shape(vdims), seed++);
      for (const crossgrad::IndexingUpdateOp u : crossgrad::kIndexingUpdateOps) {
        expect_same_as_ndarray_any_nan([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::float_scatter_nd(on<B>(d), on<B>(idx), on<B>(v), u));
        }, "scatter_nd " + std::string(crossgrad::indexing_update_name(u)) + " " + shape_str(c.shape) + " k " + std::to_string(c.k));
      }
    }
  }
}

TEST_P(FlexMatchesNdArray, GatherAndScattersMatchNdArray) {
  unsigned seed = 1000;
  for (DType dt : kFloatTypes) {
    for (const DimCase& c : dim_cases()) {
      if (c.shape[c.dim] == 0) continue;
      for (std::size_t k : {std::size_t{1}, c.shape[c.dim], c.shape[c.dim] + 2}) {
        std::vector<std::size_t> idims = c.shape.dims();
        idims[c.dim] = k;
        const Shape ishape(idims);
        const TensorData d = random_data(dt, c.shape, seed++);
        const TensorData v = random_data(dt, ishape, seed++);
        const std::vector<std::int64_t> raw = random_indices(ishape.num_elements(), c.shape[c.dim], seed++);
        for (bool i32 : {false, true}) {
          const TensorData idx = i32 ? TensorData::from_i32(std::vector<std::int32_t>(raw.begin(), raw.end()), ishape)
                                     : TensorData::from_i64(raw, ishape);
          const std::string what = shape_str(c.shape) + " dim " + std::to_string(c.dim) + " k " + std::to_string(k);
          expect_same_as_ndarray([&](auto tag) {
            using B = typename decltype(tag)::type;
            return B::into_data(B::float_gather(on<B>(d), c.dim, on<B>(idx)));
          }, "gather " + what);
          expect_same_as_ndarray_any_nan([&](auto tag) {
            using B = typename decltype(tag)::type;
            return B::into_data(B::float_scatter_add(on<B>(d), c.dim, on<B>(idx), on<B>(v)));
          }, "scatter_add " + what);
          for (const crossgrad::IndexingUpdateOp u : crossgrad::kIndexingUpdateOps) {
            if (i32) continue;  // the index dtype is scatter_add's path, checked above
            expect_same_as_ndarray_any_nan([&](auto tag) {
              using B = typename decltype(tag)::type;
              return B::into_data(B::float_scatter(on<B>(d), c.dim, on<B>(idx), on<B>(v), u));
            }, "scatter " + std::string(crossgrad::indexing_update_name(u)) + " " + what);
          }
        }
      }
    }
  }
  std::vector<std::int64_t> far(kParallel + 9, 0);
  far[kParallel + 3] = 5;
  far[kParallel + 7] = -1;
  const TensorData idx = TensorData::from_i64(far, Shape{kParallel + 9, 1});
  const TensorData x = random_data(DType::F32, Shape{kParallel + 9, 5}, 3);
  for (bool flex_side : {true, false}) {
    std::string message;
    try {
      if (flex_side) (void)Flex::float_gather(on<Flex>(x), 1, on<Flex>(idx));
      else (void)NdArray::float_gather(on<NdArray>(x), 1, on<NdArray>(idx));
    } catch (const Panic& p) {
      message = p.message();
    }
    EXPECT_EQ(message, "float_gather got index 5 for dim 1 of size 5.") << (flex_side ? "Flex" : "NdArray");
  }
}

TEST_P(FlexMatchesNdArray, FlipMatchesNdArray) {
  struct FlipCase {
    Shape shape;
    std::vector<std::size_t> axes;
  };
  const std::vector<FlipCase> cases = {
      {kLarge, {0}},       {kLarge, {1}},       {kLarge, {1, 0}},    {kLarge, {}},
      {Shape{}, {}},       {Shape{2, 0, 3}, {2}}, {Shape{7}, {0}},   {Shape{1, 7, 1}, {0, 2}},
      {kChunked, {2}},     {kChunked, {0, 1}},  {kChunked, {2, 0, 1}}, {Shape{8, 9, 33, 40}, {1, 3}}};
  unsigned seed = 950;
  for (DType dt : kFloatTypes) {
    for (const FlipCase& c : cases) {
      const TensorData d = random_data(dt, c.shape, seed++);
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::float_flip(on<B>(d), c.axes));
      }, "flip " + shape_str(c.shape) + " axes " + Shape(c.axes).to_string());
    }
  }
}

// transpose and softmin are compositions of each backend's swap_dims / permute and neg + softmax;
// hypot and prelu are one C call or one choice per element pair: the same bits.
TEST_P(FlexMatchesNdArray, TransposeHypotAndPreluMatchNdArray) {
  unsigned seed = 980;
  for (DType dt : kFloatTypes) {
    for (const Shape& shape : {kLarge, kChunked, Shape{7}, Shape{}, Shape{2, 0, 3}}) {
      const TensorData a = random_data(dt, shape, seed++), b = random_data(dt, shape, seed++);
      const std::string what = shape_str(shape);
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::float_transpose(on<B>(a)));
      }, "transpose " + what);
      expect_same_as_ndarray_any_nan([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::float_hypot(on<B>(a), on<B>(b)));
      }, "hypot " + what);
      expect_same_as_ndarray_any_nan([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::prelu(on<B>(a), on<B>(b)));
      }, "prelu " + what);
    }
  }
}

TEST_P(FlexMatchesNdArray, ExpandMatchesNdArray) {
  const std::pair<Shape, Shape> cases[] = {
      {Shape{1, 257}, kLarge}, {Shape{300, 1}, kLarge},   {Shape{7}, Shape{2, 3, 7}},  {Shape{}, Shape{5, 5}},
      {Shape{1}, Shape{0}},    {Shape{1, 1}, Shape{1, 1}}, {Shape{3, 1, 1}, Shape{3, 4099, 7}},
      {Shape{4, 1, 2 * kChunk + 3}, kChunked}, {Shape{7}, Shape{7}}, {Shape{}, Shape{kParallel + 1}}};
  unsigned seed = 800;
  for (DType dt : kFloatTypes) {
    for (const auto& [from, to] : cases) {
      const TensorData d = random_data(dt, from, seed++);
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::float_expand(on<B>(d), to));
      }, "expand " + shape_str(from) + " -> " + shape_str(to));
    }
  }
  const auto e = Flex::float_expand(on<Flex>(TensorData::from_f32({1, 2}, {2, 1})), Shape{2, 3});
  EXPECT_EQ(Flex::into_data(e).to_f32(), (std::vector<float>{1, 1, 1, 2, 2, 2}));
}

// Chains that read the output of one layout op with another, as a non-contiguous view would.
TEST_P(FlexMatchesNdArray, LayoutChainsMatchNdArray) {
  unsigned seed = 900;
  for (DType dt : kFloatTypes) {
    const TensorData a = random_data(dt, Shape{8, 9, 33, 40}, seed++);
    const TensorData small = random_data(dt, Shape{3, 1, 5}, seed++);
    const TensorData idx = TensorData::from_i64({32, 0, 5, 5, 17}, {5});
    expect_same_as_ndarray([&](auto tag) {
      using B = typename decltype(tag)::type;
      auto p = B::float_permute(on<B>(a), {2, 0, 3, 1});                 // [33, 8, 40, 9]
      auto s = B::float_select(p, 0, on<B>(idx));                       // [5, 8, 40, 9]
      auto sl = B::float_slice(s, {{1, 4}, {2, 8}, {3, 39}});           // [3, 6, 36, 9]
      auto m = B::float_max_dim(B::float_permute(sl, {3, 1, 2, 0}), 2);  // [9, 6, 1, 3]
      return B::into_data(B::float_equal(m, B::float_expand(B::float_max_dim(m, 0), Shape{9, 6, 1, 3})));
    }, "permute-select-slice-max chain");
    expect_same_as_ndarray_any_nan([&](auto tag) {
      using B = typename decltype(tag)::type;
      auto e = B::float_expand(on<B>(small), Shape{2, 3, 4, 5});
      auto p = B::float_permute(e, {3, 2, 1, 0});
      auto c = B::float_cat({p, B::float_abs(p), B::float_clamp(p, -1, 0.5)}, 1);
      auto sa = B::float_select_assign(c, 1, on<B>(TensorData::from_i32({11, 0, 11}, {3})),
                                       B::float_slice(c, {{0, 5}, {2, 5}}));
      return B::into_data(B::float_cat({sa, B::float_expand(B::float_max_dim(sa, 1), Shape{5, 2, 3, 2})}, 1));
    }, "expand-permute-cat-assign chain");
  }
}

// ---- softmax / log_softmax --------------------------------------------------------------------------

template <class T>
std::vector<double> as_doubles(const TensorData& d) {
  if constexpr (std::is_same_v<T, float>) {
    const auto v = d.to_f32();
    return {v.begin(), v.end()};
  } else {
    return d.to_f64();
  }
}

// |a - b| <= rel * |b| + abs, with NaN only against NaN and infinities only against themselves.
bool close(double a, double b, double rel, double abs) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= rel * std::fabs(b) + abs;
}

// softmax / log_softmax along dim in long double from the inputs, after the spec's x_i - m in T.
template <class T>
std::vector<double> reference_softmax(const std::vector<double>& x, const Shape& shape, std::size_t dim, bool log) {
  std::size_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < dim; ++i) outer *= shape[i];
  for (std::size_t i = dim + 1; i < shape.rank(); ++i) inner *= shape[i];
  const std::size_t d = shape[dim];
  std::vector<double> y(x.size());
  if (d == 0) return y;  // no slices (and no elements)
  for (std::size_t o = 0; o < outer; ++o) {
    for (std::size_t i = 0; i < inner; ++i) {
      auto at = [&](std::size_t j) { return (o * d + j) * inner + i; };
      T m = static_cast<T>(x[at(0)]);
      for (std::size_t j = 1; j < d; ++j) {
        const T v = static_cast<T>(x[at(j)]);
        if (!std::isnan(m) && (std::isnan(v) || v > m)) m = v;
      }
      long double s = 0;
      for (std::size_t j = 0; j < d; ++j) s += std::exp(static_cast<long double>(static_cast<T>(static_cast<T>(x[at(j)]) - m)));
      for (std::size_t j = 0; j < d; ++j) {
        const long double shifted = static_cast<T>(static_cast<T>(x[at(j)]) - m);
        y[at(j)] = static_cast<double>(static_cast<T>(log ? shifted - std::log(s) : std::exp(shifted) / s));
      }
    }
  }
  return y;
}

template <class T>
void check_softmax(const TensorData& d, std::size_t dim, bool log, const std::string& what) {
  constexpr double eps = std::numeric_limits<T>::epsilon();
  constexpr double tiny = 16 * static_cast<double>(std::numeric_limits<T>::denorm_min());
  auto run = [&](auto tag) {
    using B = typename decltype(tag)::type;
    return B::into_data(log ? B::log_softmax(on<B>(d), dim) : B::softmax(on<B>(d), dim));
  };
  const TensorData flex_data = run(FlexTag{});
  const TensorData ref_data = run(RefTag{});
  ASSERT_EQ(flex_data.shape(), d.shape()) << what;
  ASSERT_EQ(flex_data.dtype(), d.dtype()) << what;
  const auto f = as_doubles<T>(flex_data), r = as_doubles<T>(ref_data);
  const auto exact = reference_softmax<T>(as_doubles<T>(d), d.shape(), dim, log);
  const std::size_t row = d.shape()[dim];
  // Against the formula: exp within 2 ulp, the last step rounded once, s accumulated in double
  // (exact to about an ulp of T for F32, up to row ulps for F64); log(s) then costs that relative
  // error of s as an absolute one.
  const double sum_rel = std::is_same_v<T, double> ? eps * static_cast<double>(row) : eps;
  const double rel_exact = 8 * eps + sum_rel;
  const double abs_exact = log ? 4 * eps * std::max(1.0, std::log(static_cast<double>(row)) + 1) + sum_rel : tiny;
  // Against NdArray, whose sum in T in index order may be off by up to row * eps.
  const double rel_ref = 8 * eps + 2 * eps * static_cast<double>(row);
  std::size_t bad_exact = 0, bad_ref = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (!close(f[i], exact[i], rel_exact, abs_exact) && bad_exact++ == 0) {
      ADD_FAILURE() << what << " vs formula, element " << i << ": " << f[i] << " vs " << exact[i];
    }
    if (!close(f[i], r[i], rel_ref, abs_exact + rel_ref * (log ? 1 : 0)) && bad_ref++ == 0) {
      ADD_FAILURE() << what << " vs NdArray, element " << i << ": " << f[i] << " vs " << r[i];
    }
  }
}

// ---- module ops ----------------------------------------------------------------------------------

// Pooling: enough planes for several tasks at 4 threads; windows that overlap, skip cells, overhang
// under ceil_mode; NaN and infinities among the values. Same bits: each plane's arithmetic and order
// are NdArray's.
TEST_P(FlexMatchesNdArray, PoolingMatchesNdArray) {
  const crossgrad::AvgPool2dOptions options[] = {{{3, 3}, {2, 2}, {1, 1}, true, false}, {{2, 3}, {3, 1}, {1, 0}, false, true},
                                      {{1, 1}, {2, 2}, {0, 0}, true, false}, {{3, 2}, {1, 2}, {0, 1}, false, false}};
  const Shape shapes[] = {Shape{3, 50, 17, 23}, Shape{1, 2, 5, 4}, Shape{0, 3, 6, 6}};
  unsigned seed = 1;
  for (DType dt : kFloatTypes) {
    for (const Shape& s : shapes) {
      const TensorData d = random_data(dt, s, seed++);
      for (const crossgrad::AvgPool2dOptions& o : options) {
        const std::string what = shape_str(s) + " k" + std::to_string(o.kernel_size[0]) + "x" + std::to_string(o.kernel_size[1]);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::avg_pool2d(on<B>(d), o));
        }, "avg_pool2d " + what);
        const TensorData g = random_data(dt, NdArray::shape(NdArray::avg_pool2d(on<NdArray>(d), o)), seed++);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::avg_pool2d_backward(on<B>(d), on<B>(g), o));
        }, "avg_pool2d_backward " + what);
      }
      for (const crossgrad::AvgPool2dOptions& a : options) {
        const crossgrad::MaxPool2dOptions o{a.kernel_size, a.stride, a.padding, {1 + a.stride[0] % 2, 1}, a.ceil_mode};
        if (!crossgrad::oracle::max_pool2d_shape(s.dims(), o)) continue;
        const std::string what = shape_str(s) + " max k" + std::to_string(o.kernel_size[0]) + "x" + std::to_string(o.kernel_size[1]);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::max_pool2d(on<B>(d), o));
        }, "max_pool2d " + what);
        const TensorData at = NdArray::into_data(NdArray::max_pool2d_indices(on<NdArray>(d), o));
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::max_pool2d_indices(on<B>(d), o));
        }, "max_pool2d_indices " + what);
        const TensorData g = random_data(dt, at.shape(), seed++);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::max_pool2d_with_indices_backward(on<B>(d), on<B>(g), on<B>(at), o));
        }, "max_pool2d_with_indices_backward " + what);
      }
      if (s[2] == 0 || s[3] == 0) continue;
      for (const crossgrad::Size2 out : {crossgrad::Size2{7, 5}, crossgrad::Size2{1, 1}, crossgrad::Size2{s[2] + 3, s[3]}}) {
        const std::string what = shape_str(s) + " to " + std::to_string(out[0]) + "x" + std::to_string(out[1]);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::adaptive_avg_pool2d(on<B>(d), out));
        }, "adaptive_avg_pool2d " + what);
        const TensorData g = random_data(dt, Shape{s[0], s[1], out[0], out[1]}, seed++);
        expect_same_as_ndarray([&](auto tag) {
          using B = typename decltype(tag)::type;
          return B::into_data(B::adaptive_avg_pool2d_backward(on<B>(d), on<B>(g)));
        }, "adaptive_avg_pool2d_backward " + what);
      }
    }
  }
}

// Tables small and large (Flex splits the positions forward and the columns backward across its
// threads), indices drawn with many repeats so each row's gradient adds up several positions.
TEST_P(FlexMatchesNdArray, EmbeddingMatchesNdArray) {
  struct Case {
    Shape table, positions;
  };
  const Case cases[] = {{Shape{5, 3}, Shape{2, 4}}, {Shape{64, 300}, Shape{16, 40}}, {Shape{7, 2000}, Shape{3, 50}},
                        {Shape{4, 0}, Shape{2, 2}}, {Shape{3, 8}, Shape{0, 5}}};
  unsigned seed = 500;
  for (DType dt : kFloatTypes) {
    for (const Case& c : cases) {
      const TensorData w = random_data(dt, c.table, seed++);
      std::mt19937 rng(seed++);
      std::vector<std::int64_t> rows(c.positions.num_elements());
      for (auto& r : rows) r = static_cast<std::int64_t>(rng() % c.table[0]);
      const TensorData idx = TensorData::from_i64(rows, c.positions);
      const std::string what = shape_str(c.table) + " at " + shape_str(c.positions);
      expect_same_as_ndarray([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::embedding(on<B>(w), on<B>(idx)));
      }, "embedding " + what);
      const TensorData g = random_data(dt, Shape{c.positions[0], c.positions[1], c.table[1]}, seed++);
      expect_same_as_ndarray_any_nan([&](auto tag) {
        using B = typename decltype(tag)::type;
        return B::into_data(B::embedding_backward(on<B>(w), on<B>(g), on<B>(idx)));
      }, "embedding_backward " + what);
    }
  }
}

TEST_P(FlexMatchesNdArray, SoftmaxAndLogSoftmaxCloseToNdArrayAndFormula) {
  unsigned seed = 1000;
  std::vector<DimCase> cases = dim_cases();
  cases.push_back({Shape{3, 0}, 1});
  cases.push_back({Shape{0, 3}, 1});
  for (DType dt : kFloatTypes) {
    for (Values kind : {Values::Finite, Values::Ties}) {
      for (const DimCase& c : cases) {
        const TensorData d = random_data(dt, c.shape, seed++, kind);
        for (bool log : {false, true}) {
          const std::string what = std::string(log ? "log_softmax " : "softmax ") + shape_str(c.shape) + " dim " +
                                   std::to_string(c.dim) + " " + std::string(crossgrad::dtype_name(dt));
          if (dt == DType::F32) check_softmax<float>(d, c.dim, log, what);
          else check_softmax<double>(d, c.dim, log, what);
        }
      }
    }
  }
}

TEST_P(FlexMatchesNdArray, SoftmaxEdgeRows) {
  // Rows: a NaN (all NaN), a +inf (all NaN: inf - inf), all -inf (all NaN), [0, -inf] -> [1, 0].
  const TensorData d = TensorData::from_f64({1, kNaN, 2, 1, kInf, 2, -kInf, -kInf, -kInf, 0, -kInf, -kInf}, {4, 3});
  const auto s = Flex::into_data(Flex::softmax(on<Flex>(d), 1)).to_f64();
  for (std::size_t i = 0; i < 9; ++i) EXPECT_TRUE(std::isnan(s[i])) << i;
  EXPECT_EQ(s[9], 1);
  EXPECT_EQ(s[10], 0);
  const auto l = Flex::into_data(Flex::log_softmax(on<Flex>(d), 1)).to_f64();
  EXPECT_EQ(l[9], 0);
  EXPECT_EQ(l[10], -kInf);
  // The same rows along dim 0 (inner > 1) of the transpose.
  const auto st = Flex::into_data(Flex::softmax(Flex::float_permute(on<Flex>(d), {1, 0}), 0)).to_f64();
  EXPECT_EQ(st[3], 1);
  EXPECT_EQ(st[7], 0);
  EXPECT_TRUE(std::isnan(st[0]) && std::isnan(st[1]) && std::isnan(st[2]));
}

TEST_P(FlexMatchesNdArray, SoftmaxDoesNotDependOnThreadCount) {
  for (DType dt : kFloatTypes) {
    for (const DimCase& c : dim_cases()) {
      const TensorData d = random_data(dt, c.shape, 77, Values::Finite);
      for (bool log : {false, true}) {
        auto run = [&](std::size_t threads) {
          flex::set_num_threads(threads);
          return Flex::into_data(log ? Flex::log_softmax(on<Flex>(d), c.dim) : Flex::softmax(on<Flex>(d), c.dim));
        };
        const TensorData one = run(1);
        expect_bits(run(3), one, "softmax threads " + shape_str(c.shape));
        flex::set_num_threads(GetParam().threads);
      }
    }
  }
}

// ---- panics -------------------------------------------------------------------------------------------

std::optional<std::pair<PanicId, std::string>> panic_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Panic& p) {
    return std::make_pair(p.id(), p.message());
  }
  return std::nullopt;
}

struct BadInput {
  std::string name;
  PanicId id;
  std::function<void(FlexTag)> flex;
  std::function<void(RefTag)> ref;
};

// One bad input, run on both backends through the same generic body.
template <class F>
BadInput bad(std::string name, PanicId id, F f) {
  return {std::move(name), id, [f](FlexTag t) { f(t); }, [f](RefTag t) { f(t); }};
}

#define CG_BAD(name, id, body)                                  \
  bad(name, PanicId::id, [](auto tag) {                         \
    using B = typename decltype(tag)::type;                     \
    auto f32 = [](std::vector<float> v, Shape s) {              \
      return on<B>(TensorData::from_f32(std::move(v), std::move(s))); \
    };                                                          \
    (void)f32;                                                  \
    body;                                                       \
  })

std::vector<BadInput> bad_inputs() {
  return {
      CG_BAD("clamp min > max", ClampBounds, B::float_clamp(f32({1}, {1}), 2, 1)),
      CG_BAD("clamp NaN bound", ClampBounds, B::float_clamp(f32({1}, {1}), kNaN, 1)),
      CG_BAD("abs of int", UnsupportedDtype, B::float_abs(on<B>(TensorData::from_i64({1}, {1})))),
      CG_BAD("max_dim empty dim", EmptyReduction, B::float_max_dim(f32({}, {2, 0}), 1)),
      CG_BAD("argmax empty dim", EmptyReduction, B::float_argmax(f32({}, {0}), 0)),
      CG_BAD("max_dim dim", DimOutOfRange, B::float_max_dim(f32({1, 2}, {2}), 1)),
      CG_BAD("max of empty", EmptyReduction, B::float_max(f32({}, {3, 0}))),
      CG_BAD("min of empty", EmptyReduction, B::float_min(f32({}, {0}))),
      CG_BAD("max_abs of empty", EmptyReduction, B::float_max_abs(f32({}, {2, 2, 0}))),
      CG_BAD("max_abs_dim empty dim", EmptyReduction, B::float_max_abs_dim(f32({}, {2, 0}), 1)),
      CG_BAD("max_abs_dim dim", DimOutOfRange, B::float_max_abs_dim(f32({1}, {1}), 1)),
      CG_BAD("prod_dim dim", DimOutOfRange, B::float_prod_dim(f32({1}, {}), 0)),
      CG_BAD("prod of int", UnsupportedDtype, B::float_prod(on<B>(TensorData::from_i64({1}, {1})))),
      CG_BAD("any_dim dim", DimOutOfRange, B::float_any_dim(f32({1, 2}, {2}), 1)),
      CG_BAD("all of bool", UnsupportedDtype, B::float_all(on<B>(TensorData::from_bool({true}, {1})))),
      CG_BAD("argmax dim", DimOutOfRange, B::float_argmax(f32({1}, {}), 0)),
      CG_BAD("greater shapes", BroadcastMismatch, B::float_greater(f32({1, 2}, {2}), f32({1, 2, 3}, {3}))),
      CG_BAD("lower dtypes", DtypeMismatch,
             B::float_lower(f32({1}, {1}), on<B>(TensorData::from_f64({1}, {1})))),
      CG_BAD("equal of int", UnsupportedDtype, B::float_equal(on<B>(TensorData::from_i32({1}, {1})), f32({1}, {1}))),
      CG_BAD("cat empty list", CatEmpty, B::float_cat({}, 0)),
      CG_BAD("cat dim", DimOutOfRange, B::float_cat({f32({1}, {1})}, 1)),
      CG_BAD("cat ranks", CatMismatch, B::float_cat({f32({1}, {1}), f32({1}, {1, 1})}, 0)),
      CG_BAD("cat other dim", CatMismatch, B::float_cat({f32({1, 2}, {1, 2}), f32({1, 2, 3}, {1, 3})}, 0)),
      CG_BAD("cat dtypes", DtypeMismatch,
             B::float_cat({f32({1}, {1}), on<B>(TensorData::from_f64({1}, {1}))}, 0)),
      CG_BAD("slice too many ranges", DimOutOfRange, B::float_slice(f32({1, 2}, {2}), {{0, 1}, {0, 1}})),
      CG_BAD("slice start > end", SliceOutOfRange, B::float_slice(f32({1, 2, 3}, {3}), {{2, 1}})),
      CG_BAD("slice end > size", SliceOutOfRange, B::float_slice(f32({1, 2, 3, 4}, {2, 2}), {{0, 2}, {1, 3}})),
      CG_BAD("select dim", DimOutOfRange,
             B::float_select(f32({1, 2}, {2}), 1, on<B>(TensorData::from_i64({0}, {1})))),
      CG_BAD("select 2-D indices", SelectIndexRank,
             B::float_select(f32({1, 2}, {2}), 0, on<B>(TensorData::from_i64({0}, {1, 1})))),
      CG_BAD("select float indices", UnsupportedDtype, B::float_select(f32({1, 2}, {2}), 0, f32({0}, {1}))),
      CG_BAD("select index too large", IndexOutOfRange,
             B::float_select(f32({1, 2}, {2}), 0, on<B>(TensorData::from_i64({1, 2, -1}, {3})))),
      CG_BAD("select negative index first", IndexOutOfRange,
             B::float_select(f32({1, 2, 3, 4}, {2, 2}), 1, on<B>(TensorData::from_i32({0, -1, 5}, {3})))),
      CG_BAD("select index on empty tensor", IndexOutOfRange,
             B::float_select(f32({}, {0, 3}), 1, on<B>(TensorData::from_i64({3}, {1})))),
      CG_BAD("select_assign index", IndexOutOfRange,
             B::float_select_assign(f32({1, 2}, {2}), 0, on<B>(TensorData::from_i64({7}, {1})), f32({1}, {1}))),
      CG_BAD("select_assign values shape", AssignShapeMismatch,
             B::float_select_assign(f32({1, 2}, {2}), 0, on<B>(TensorData::from_i64({0, 1}, {2})), f32({1}, {1}))),
      CG_BAD("select_assign values dtype", DtypeMismatch,
             B::float_select_assign(f32({1, 2}, {2}), 0, on<B>(TensorData::from_i64({0}, {1})),
                                    on<B>(TensorData::from_f64({1}, {1})))),
      CG_BAD("select_assign index rank", SelectIndexRank,
             B::float_select_assign(f32({1, 2}, {2}), 0, on<B>(TensorData::from_i64({0}, {})), f32({1}, {1}))),
      CG_BAD("cumsum dim", DimOutOfRange, B::float_cumsum(f32({1, 2}, {2}), 1)),
      CG_BAD("cumprod of int", UnsupportedDtype, B::float_cumprod(on<B>(TensorData::from_i64({1}, {1})), 0)),
      CG_BAD("flip duplicate", FlipInvalid, B::float_flip(f32({1, 2}, {1, 2}), {1, 1})),
      CG_BAD("flip out of range", FlipInvalid, B::float_flip(f32({1, 2}, {1, 2}), {0, 2})),
      CG_BAD("permute duplicate", PermuteInvalid, B::float_permute(f32({1, 2}, {1, 2}), {0, 0})),
      CG_BAD("permute length", PermuteInvalid, B::float_permute(f32({1, 2}, {1, 2}), {0})),
      CG_BAD("permute out of range", PermuteInvalid, B::float_permute(f32({1, 2}, {1, 2}), {0, 2})),
      CG_BAD("expand mismatch", ExpandMismatch, B::float_expand(f32({1, 2}, {2}), Shape{3})),
      CG_BAD("expand lower rank", ExpandMismatch, B::float_expand(f32({1, 2}, {1, 2}), Shape{2})),
      CG_BAD("expand overflow", ShapeOverflow,
             B::float_expand(f32({1}, {1}), Shape{std::size_t{1} << 40, std::size_t{1} << 40})),
      CG_BAD("softmax dim", DimOutOfRange, B::softmax(f32({1, 2}, {2}), 1)),
      CG_BAD("log_softmax dim", DimOutOfRange, B::log_softmax(f32({1}, {}), 0)),
      CG_BAD("softmax of int", UnsupportedDtype, B::softmax(on<B>(TensorData::from_i64({1}, {1})), 0)),
      CG_BAD("int_into_float of float", UnsupportedDtype, B::int_into_float(f32({1}, {1}), DType::F64)),
      CG_BAD("int_into_float of bool", UnsupportedDtype,
             B::int_into_float(on<B>(TensorData::from_bool({true}, {1})), DType::F32)),
      CG_BAD("int_into_float to int", UnsupportedDtype,
             B::int_into_float(on<B>(TensorData::from_i64({1}, {1})), DType::I32)),
  };
}

TEST_P(FlexMatchesNdArray, EveryPanicMatchesNdArray) {
  for (const BadInput& b : bad_inputs()) {
    const auto flex_panic = panic_of([&] { b.flex(FlexTag{}); });
    const auto ref_panic = panic_of([&] { b.ref(RefTag{}); });
    ASSERT_TRUE(flex_panic.has_value()) << b.name << ": Flex did not panic";
    EXPECT_EQ(flex_panic->first, b.id) << b.name << ": " << flex_panic->second;
    ASSERT_TRUE(ref_panic.has_value()) << b.name << ": NdArray did not panic";
    EXPECT_EQ(flex_panic->second, ref_panic->second) << b.name;
  }
}

TEST_P(FlexMatchesNdArray, IndexOutOfRangeReportsTheFirstBadIndex) {
  const auto p = panic_of([] {
    Flex::float_select(on<Flex>(TensorData::from_f32({1, 2, 3, 4}, {2, 2})), 1,
                       on<Flex>(TensorData::from_i64({1, 9, -4}, {3})));
  });
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->first, PanicId::IndexOutOfRange);
  EXPECT_NE(p->second.find('9'), std::string::npos) << p->second;
  EXPECT_EQ(p->second.find("-4"), std::string::npos) << p->second;
}

// ---- edges fixed by hand: shapes and values that reach one kernel path each -------------------

// Restores Flex's global knobs whatever a test set.
class FlexKnobsReset : public ::testing::Test {
 protected:
  void TearDown() override {
    flex::set_num_threads(0);
    flex::force_portable_kernels(false);
  }
};

// Values that differ in every element (so a wrong source index shows) and are exact in F32.
std::vector<float> counting(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 1000) + 0.25f * static_cast<float>(i % 3);
  return v;
}

using FlexLayoutEdges = FlexKnobsReset;
using FlexCompareEdges = FlexKnobsReset;
using FlexGemmEdges = FlexKnobsReset;

// ---- float ops refuse int tensors with NdArray's panic ------------------------------------------

using FlexOperandDtypes = FlexKnobsReset;

TEST_F(FlexOperandDtypes, FloatOpsOnAnIntTensorPanicLikeNdArray) {
  const TensorData ints = TensorData::from_i64({1, 2, 3, 4}, {2, 2});
  const TensorData idx = TensorData::from_i64({1}, {1});
  const TensorData f = TensorData::from_f32({1, 2}, {1, 2});
  const TensorData f22 = TensorData::from_f32({1, 2, 3, 4}, {2, 2});
  struct Case {
    const char* name;
    std::function<void()> flex_call, ref_call;
  };
  const Case cases[] = {
      {"float_cast of I64 to F32", [&] { Flex::float_cast(on<Flex>(ints), DType::F32); },
       [&] { NdArray::float_cast(on<NdArray>(ints), DType::F32); }},
      {"float_cast of I64 to F64", [&] { Flex::float_cast(on<Flex>(ints), DType::F64); },
       [&] { NdArray::float_cast(on<NdArray>(ints), DType::F64); }},
      {"float_add of I64", [&] { Flex::float_add(on<Flex>(ints), on<Flex>(ints)); },
       [&] { NdArray::float_add(on<NdArray>(ints), on<NdArray>(ints)); }},
      {"float_add of I64 and F32", [&] { Flex::float_add(on<Flex>(ints), on<Flex>(f22)); },
       [&] { NdArray::float_add(on<NdArray>(ints), on<NdArray>(f22)); }},
      {"float_sum of I64", [&] { Flex::float_sum(on<Flex>(ints)); },
       [&] { NdArray::float_sum(on<NdArray>(ints)); }},
      {"float_select_assign into I64",
       [&] { Flex::float_select_assign(on<Flex>(ints), 0, on<Flex>(idx), on<Flex>(f)); },
       [&] { NdArray::float_select_assign(on<NdArray>(ints), 0, on<NdArray>(idx), on<NdArray>(f)); }},
  };
  for (const Case& c : cases) {
    const auto flex_panic = panic_of(c.flex_call);
    const auto ref_panic = panic_of(c.ref_call);
    ASSERT_TRUE(ref_panic.has_value()) << c.name << ": NdArray did not panic";
    ASSERT_TRUE(flex_panic.has_value()) << c.name << ": Flex did not panic";
    EXPECT_EQ(flex_panic->first, PanicId::UnsupportedDtype) << c.name << ": " << flex_panic->second;
    EXPECT_EQ(flex_panic->first, ref_panic->first) << c.name;
    EXPECT_EQ(flex_panic->second, ref_panic->second) << c.name;
  }
}

// ---- swap_dims over several transpose tiles ----------------------------------------------------

TEST_F(FlexLayoutEdges, SwapDimsAcrossSeveralRowTiles) {
  constexpr std::size_t kTile = flex::kTuning.transpose_tile;
  const Shape shapes[] = {Shape{2 * kTile + 3, 5}, Shape{kTile + 1, kTile + 2}, Shape{3, kTile * 3 + 7, 4},
                          Shape{kTile * 2, 3}};
  for (bool portable : {false, true}) {
    flex::force_portable_kernels(portable);
    for (const Shape& s : shapes) {
      for (DType dt : {DType::F32, DType::F64}) {
        const auto v = counting(s.num_elements());
        const TensorData d = dt == DType::F32 ? TensorData::from_f32(v, s)
                                              : TensorData::from_f64(std::vector<double>(v.begin(), v.end()), s);
        const std::size_t r = s.rank();
        const TensorData got = Flex::into_data(Flex::float_swap_dims(on<Flex>(d), r - 2, r - 1));
        const TensorData want = NdArray::into_data(NdArray::float_swap_dims(on<NdArray>(d), r - 2, r - 1));
        EXPECT_TRUE(got == want) << "swap_dims of " << s.to_string();
      }
    }
  }
}

// ---- slices that leave a single strided run ----------------------------------------------------

TEST_F(FlexLayoutEdges, SliceOfOneColumnIsAStridedRun) {
  struct Case {
    Shape shape;
    std::vector<Range> ranges;
  };
  const Case cases[] = {
      {Shape{7, 2}, {Range{0, 7}, Range{0, 1}}}, {Shape{7, 2}, {Range{0, 7}, Range{1, 2}}},
      {Shape{9, 3}, {Range{1, 8}, Range{2, 3}}}, {Shape{5, 2, 2}, {Range{0, 5}, Range{0, 1}, Range{1, 2}}},
      {Shape{6, 2}, {Range{0, 6}, Range{0, 2}}},
  };
  for (const Case& c : cases) {
    const TensorData d = TensorData::from_f32(counting(c.shape.num_elements()), c.shape);
    const TensorData got = Flex::into_data(Flex::float_slice(on<Flex>(d), c.ranges));
    const TensorData want = NdArray::into_data(NdArray::float_slice(on<NdArray>(d), c.ranges));
    EXPECT_TRUE(got == want) << "slice of " << c.shape.to_string();
  }
  // Hand values: column 1 of [[0, 1], [2, 3], [4, 5]].
  const auto col = Flex::into_data(Flex::float_slice(on<Flex>(TensorData::from_f32({0, 1, 2, 3, 4, 5}, {3, 2})),
                                                     {Range{0, 3}, Range{1, 2}}));
  EXPECT_EQ(col.to_f32(), (std::vector<float>{1, 3, 5}));
}

// ---- broadcasting comparison split over threads with two unmergeable outer dims ---------------

TEST_F(FlexCompareEdges, ThreadedBroadcastWithTwoOuterDims) {
  // lhs [A, B, C] against rhs [A, 1, C]: the B dim broadcasts rhs only, so no dims merge; A * B
  // rows cross the thread threshold (2 * elementwise_grain / C rows), so chunks start mid-tensor.
  constexpr std::size_t C = 3;
  const std::size_t rows_needed = 2 * (flex::kTuning.elementwise_grain / C) + 1;
  std::size_t side = 1;
  while (side * side < rows_needed) ++side;
  const Shape ls{side, side, C}, rs{side, 1, C};
  auto lv = counting(ls.num_elements());
  for (std::size_t i = 0; i < lv.size(); ++i) lv[i] = static_cast<float>(i % 7);
  std::vector<float> rv(rs.num_elements());
  for (std::size_t i = 0; i < rv.size(); ++i) rv[i] = static_cast<float>((i * 5) % 7);
  const TensorData l = TensorData::from_f32(lv, ls), r = TensorData::from_f32(rv, rs);
  for (std::size_t threads : {2u, 4u}) {
    flex::set_num_threads(threads);
    for (bool swap : {false, true}) {
      const TensorData& a = swap ? r : l;
      const TensorData& b = swap ? l : r;
      EXPECT_TRUE(Flex::into_data(Flex::float_equal(on<Flex>(a), on<Flex>(b))) ==
                  NdArray::into_data(NdArray::float_equal(on<NdArray>(a), on<NdArray>(b))))
          << "equal, " << threads << " threads, swapped " << swap;
      EXPECT_TRUE(Flex::into_data(Flex::float_greater(on<Flex>(a), on<Flex>(b))) ==
                  NdArray::into_data(NdArray::float_greater(on<NdArray>(a), on<NdArray>(b))))
          << "greater, " << threads << " threads, swapped " << swap;
    }
  }
}

// ---- blocked GEMM edges: one row, k below the 4-step unroll, one column / one k past a block -----

// Small-integer inputs make every product and partial sum exact in F32 and F64, so Flex's blocked
// GEMM (whatever its summation order) must equal NdArray bit for bit. Every shape is above
// gemm_small_work, so the packed, blocked path runs.
TEST_F(FlexGemmEdges, BlockedGemmEdgesMatchNdArray) {
  struct Mnk {
    std::size_t m, k, n;
  };
  const std::size_t kc32 = flex::kTuning.gemm(false).kc, nc32 = flex::kTuning.gemm(false).nc;
  const std::size_t kc64 = flex::kTuning.gemm(true).kc, nc64 = flex::kTuning.gemm(true).nc;
  const Mnk shapes[] = {{1, 512, 600},     {300, 1, 900},       {300, 2, 450},     {300, 3, 300},
                        {7, kc32 + 1, 120}, {7, kc64 + 1, 160},  {2, 64, nc32 + 1}, {2, 64, nc64 + 1},
                        // n = 335: the last panel one column short of NR for F32 (16) and F64 (8)
                        {300, 3, 335},     {40, 64, 335}};
  for (const Mnk& s : shapes) {
    ASSERT_GE(s.m * s.k * s.n, flex::kTuning.gemm_small_work) << "shape must take the blocked path";
  }
  for (bool portable : {false, true}) {
    flex::force_portable_kernels(portable);
    for (std::size_t threads : {1u, 4u}) {
      flex::set_num_threads(threads);
      for (const Mnk& s : shapes) {
        std::vector<double> a(s.m * s.k), b(s.k * s.n);
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(static_cast<int>(i % 5) - 2);
        for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<double>(static_cast<int>((i * 7) % 5) - 2);
        for (DType dt : {DType::F32, DType::F64}) {
          auto data = [&](const std::vector<double>& v, Shape sh) {
            return dt == DType::F64 ? TensorData::from_f64(v, std::move(sh))
                                    : TensorData::from_f32(std::vector<float>(v.begin(), v.end()), std::move(sh));
          };
          const TensorData da = data(a, Shape{s.m, s.k}), db = data(b, Shape{s.k, s.n});
          const TensorData got = Flex::into_data(Flex::float_matmul(on<Flex>(da), on<Flex>(db)));
          const TensorData want = NdArray::into_data(NdArray::float_matmul(on<NdArray>(da), on<NdArray>(db)));
          EXPECT_TRUE(got == want) << "matmul " << s.m << "x" << s.k << " @ " << s.k << "x" << s.n
                                   << (dt == DType::F64 ? " f64" : " f32") << ", " << threads << " threads"
                                   << (portable ? ", portable" : "");
        }
      }
    }
  }
}

}  // namespace
