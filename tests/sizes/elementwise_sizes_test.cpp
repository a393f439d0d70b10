// Element-wise ops at the element-wise grain's split points: the flat same-shape path, the flat
// broadcast path ([n] op [1], [1] op [n]), broadcast rows ([rows, inner] op [inner]) around the
// row grain, and inputs made by swap_dims — every backend and configuration against NdArray,
// NdArray against the formula.
#include "check.hpp"
#include "tier.hpp"

#include <crossgrad/backends/flex_tuning.hpp>

#include <cmath>

namespace crossgrad::sizes {
namespace {

const DType kDtypes[] = {DType::F32, DType::F64};
const std::size_t kGrain = backends::flex::kTuning.elementwise_grain;

enum class Binary { Add, Sub, Mul, Div };
const Binary kBinaries[] = {Binary::Add, Binary::Sub, Binary::Mul, Binary::Div};
const char* name_of(Binary b) {
  switch (b) {
    case Binary::Add: return "float_add";
    case Binary::Sub: return "float_sub";
    case Binary::Mul: return "float_mul";
    case Binary::Div: return "float_div";
  }
  return "?";
}
template <class B>
typename B::Tensor apply(Binary op, const typename B::Tensor& x, const typename B::Tensor& y) {
  switch (op) {
    case Binary::Add: return B::float_add(x, y);
    case Binary::Sub: return B::float_sub(x, y);
    case Binary::Mul: return B::float_mul(x, y);
    case Binary::Div: return B::float_div(x, y);
  }
  return x;
}
// In double, then rounded: correctly rounded for F32 too (double has more than 2 * 24 + 2 bits).
double formula(Binary op, double x, double y) {
  switch (op) {
    case Binary::Add: return x + y;
    case Binary::Sub: return x - y;
    case Binary::Mul: return x * y;
    case Binary::Div: return x / y;
  }
  return 0;
}

enum class Unary { Neg, Exp, Log, Sqrt, Tanh, Relu, Sigmoid, Pow, AddScalar, MulScalar };
const Unary kUnaries[] = {Unary::Neg,  Unary::Exp,     Unary::Log, Unary::Sqrt,      Unary::Tanh,
                          Unary::Relu, Unary::Sigmoid, Unary::Pow, Unary::AddScalar, Unary::MulScalar};
constexpr double kExponent = 1.5, kAddend = 0.375, kFactor = -1.25;

struct UnaryInfo {
  const char* name;
  Op op;
  Values input;
};
UnaryInfo info(Unary u) {
  switch (u) {
    case Unary::Neg: return {"float_neg", Op::float_neg, Values::Signed};
    case Unary::Exp: return {"float_exp", Op::float_exp, Values::Signed};
    case Unary::Log: return {"float_log", Op::float_log, Values::Positive};
    case Unary::Sqrt: return {"float_sqrt", Op::float_sqrt, Values::Positive};
    case Unary::Tanh: return {"float_tanh", Op::float_tanh, Values::Signed};
    case Unary::Relu: return {"relu", Op::relu, Values::Signed};
    case Unary::Sigmoid: return {"sigmoid", Op::sigmoid, Values::Signed};
    case Unary::Pow: return {"float_powf_scalar", Op::float_powf_scalar, Values::Positive};
    case Unary::AddScalar: return {"float_add_scalar", Op::float_add_scalar, Values::Signed};
    case Unary::MulScalar: return {"float_mul_scalar", Op::float_mul_scalar, Values::Signed};
  }
  return {"?", Op::float_neg, Values::Signed};
}
template <class B>
typename B::Tensor apply(Unary u, const typename B::Tensor& t) {
  switch (u) {
    case Unary::Neg: return B::float_neg(t);
    case Unary::Exp: return B::float_exp(t);
    case Unary::Log: return B::float_log(t);
    case Unary::Sqrt: return B::float_sqrt(t);
    case Unary::Tanh: return B::float_tanh(t);
    case Unary::Relu: return B::relu(t);
    case Unary::Sigmoid: return B::sigmoid(t);
    case Unary::Pow: return B::float_powf_scalar(t, kExponent);
    case Unary::AddScalar: return B::float_add_scalar(t, kAddend);
    case Unary::MulScalar: return B::float_mul_scalar(t, kFactor);
  }
  return t;
}
// The op's value at x (already in the dtype), in double; scalars are exact in either dtype.
double formula(Unary u, double x) {
  switch (u) {
    case Unary::Neg: return -x;
    case Unary::Exp: return std::exp(x);
    case Unary::Log: return std::log(x);
    case Unary::Sqrt: return std::sqrt(x);
    case Unary::Tanh: return std::tanh(x);
    case Unary::Relu: return x > 0 ? x : 0.0;
    case Unary::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case Unary::Pow: return std::pow(x, kExponent);
    case Unary::AddScalar: return x + kAddend;
    case Unary::MulScalar: return x * kFactor;
  }
  return 0;
}
Bound bound_of(Unary u, DType dtype) {
  const Op op = info(u).op;
  return oracle::bound_for(op, dtype, 1, 1.0).exact ? exact_bound() : library_bound(op, dtype);
}

std::string where(const std::string& op, DType dtype, const std::string& why) {
  return op + " " + std::string(dtype_name(dtype)) + " " + why;
}

// x op y for every binary op, both operands of `shape`s that broadcast to `out_shape`.
void check_binaries(const std::vector<std::size_t>& x_shape, const std::vector<std::size_t>& y_shape,
                    const std::vector<std::size_t>& out_shape, DType dtype, const std::string& why,
                    std::uint64_t seed, std::size_t sample_stride) {
  const auto x = dyadic_values(product(x_shape), seed);
  const auto y = dyadic_values(product(y_shape), seed + 1, Values::NonZero);
  const TensorData xd = float_data(x, x_shape, dtype), yd = float_data(y, y_shape, dtype);
  // Broadcast index of an output position into an operand (trailing-aligned, size-1 dims repeat).
  auto operand_index = [&](const std::vector<std::size_t>& shape, std::size_t flat) {
    const std::size_t offset = out_shape.size() - shape.size();
    std::size_t index = 0, stride = 1;
    for (std::size_t d = out_shape.size(); d-- > offset;) {
      const std::size_t coord = flat % out_shape[d];
      flat /= out_shape[d];
      if (shape[d - offset] != 1) index += coord * stride;
      stride *= shape[d - offset];
    }
    return index;
  };
  const auto positions = sample_positions(product(out_shape), sample_stride, seed);
  for (Binary op : kBinaries) {
    auto run = [&]<class B>() { return B::into_data(apply<B>(op, upload<B>(xd), upload<B>(yd))); };
    const TensorData reference = run.template operator()<backends::NdArray>();
    const std::string what = where(name_of(op), dtype, why);
    expect_samples(what, reference, positions, [&](std::size_t i) {
      return to_dtype(formula(op, x[operand_index(x_shape, i)], y[operand_index(y_shape, i)]), dtype);
    }, exact_bound());
    expect_backends_match(what, reference, run, same_bound(exact_bound()));
  }
}

TEST(SizesElementwise, BinaryFlatAtSplitPoints) {
  for (DType dtype : kDtypes) {
    for (const auto& c : split_sizes(kGrain)) {
      check_binaries({c.n}, {c.n}, {c.n}, dtype, "[n] op [n], n=" + std::to_string(c.n) + " " + c.why, c.n, kGrain);
    }
  }
}

TEST(SizesElementwise, BinaryFlatBroadcastAtSplitPoints) {
  for (DType dtype : kDtypes) {
    for (const auto& c : split_sizes(kGrain)) {
      const std::string n = std::to_string(c.n);
      check_binaries({c.n}, {1}, {c.n}, dtype, "[n] op [1], n=" + n + " " + c.why, c.n + 3, kGrain);
      check_binaries({1}, {c.n}, {c.n}, dtype, "[1] op [n], n=" + n + " " + c.why, c.n + 5, kGrain);
    }
  }
}

TEST(SizesElementwise, BinaryBroadcastRowsAtRowSplitPoints) {
  for (DType dtype : kDtypes) {
    for (const auto& c : broadcast_row_cases()) {
      const std::size_t rows = c.shape[0], inner = c.shape[1];
      check_binaries({rows, inner}, {inner}, {rows, inner}, dtype, "[rows, inner] op [inner] " + c.why, rows, inner);
      check_binaries({rows, 1}, {1, inner}, {rows, inner}, dtype, "[rows, 1] op [1, inner] " + c.why, rows + 1,
                     inner);
    }
  }
}

void check_unaries(std::size_t n, DType dtype, const std::string& why, std::uint64_t seed) {
  const auto positions = sample_positions(n, kGrain, seed);
  for (Unary u : kUnaries) {
    const UnaryInfo in = info(u);
    const auto x = dyadic_values(n, seed, in.input);
    const TensorData xd = float_data(x, {n}, dtype);
    auto run = [&]<class B>() { return B::into_data(apply<B>(u, upload<B>(xd))); };
    const TensorData reference = run.template operator()<backends::NdArray>();
    const std::string what = where(in.name, dtype, why);
    const Bound bound = bound_of(u, dtype);
    expect_samples(what, reference, positions, [&](std::size_t i) { return to_dtype(formula(u, x[i]), dtype); },
                   bound);
    expect_backends_match(what, reference, run, same_bound(bound));
  }
}

TEST(SizesElementwise, UnaryAndScalarOpsAtSplitPoints) {
  for (DType dtype : kDtypes) {
    for (const auto& c : split_sizes(kGrain)) check_unaries(c.n, dtype, "n=" + std::to_string(c.n) + " " + c.why, c.n);
  }
}

// Operands produced by swap_dims (a transposed copy) at the split sizes: [2, n/2] from [n/2, 2].
TEST(SizesElementwise, SwappedOperandsAtSplitPoints) {
  for (DType dtype : kDtypes) {
    for (const auto& c : split_sizes(kGrain)) {
      const std::size_t half = c.n / 2;
      const auto x = dyadic_values(2 * half, c.n), y = dyadic_values(2 * half, c.n + 1, Values::NonZero);
      const TensorData xd = float_data(x, {half, 2}, dtype), yd = float_data(y, {2, half}, dtype);
      const std::string why = "swap_dims([n/2, 2]) op [2, n/2], n=" + std::to_string(2 * half) + " " + c.why;
      const auto positions = sample_positions(2 * half, kGrain, c.n);
      for (Binary op : {Binary::Add, Binary::Div}) {
        auto run = [&]<class B>() {
          return B::into_data(apply<B>(op, B::float_swap_dims(upload<B>(xd), 0, 1), upload<B>(yd)));
        };
        const TensorData reference = run.template operator()<backends::NdArray>();
        const std::string what = where(name_of(op), dtype, why);
        // Output [r, j] reads x[j, r].
        expect_samples(what, reference, positions, [&](std::size_t i) {
          const std::size_t r = i / half, j = i % half;
          return to_dtype(formula(op, x[j * 2 + r], y[i]), dtype);
        }, exact_bound());
        expect_backends_match(what, reference, run, same_bound(exact_bound()));
      }
      auto run = [&]<class B>() { return B::into_data(B::float_exp(B::float_swap_dims(upload<B>(xd), 1, 0))); };
      const TensorData reference = run.template operator()<backends::NdArray>();
      const std::string what = where("float_exp", dtype, why);
      expect_samples(what, reference, positions, [&](std::size_t i) {
        return to_dtype(std::exp(x[(i % half) * 2 + i / half]), dtype);
      }, library_bound(Op::float_exp, dtype));
      expect_backends_match(what, reference, run, same_bound(library_bound(Op::float_exp, dtype)));
    }
  }
}

}  // namespace
}  // namespace crossgrad::sizes
