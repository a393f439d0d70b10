// float_matmul across Flex's GEMM paths: plain loop / blocked / threaded, MR x NR edge tiles,
// MC, KC and NC +- 1 with n > NC, the batched by-batch rule, and operands made by swap_dims.
// Every backend and configuration against NdArray; NdArray against dot products computed here.
#include "check.hpp"
#include "tier.hpp"

namespace crossgrad::sizes {
namespace {

// Output flat index -> (batch entry, i, j) -> the dot product of the matching lhs row and rhs
// column, with NumPy batch broadcasting; in double, exact for dyadic data (check.hpp).
struct MatmulFormula {
  std::vector<std::size_t> lhs, rhs;
  const std::vector<double>* a;
  const std::vector<double>* b;

  double operator()(std::size_t flat) const {
    const std::size_t m = lhs[lhs.size() - 2], k = lhs.back(), n = rhs.back();
    const std::size_t j = flat % n, i = (flat / n) % m;
    std::size_t batch = flat / (m * n);
    const std::size_t lr = lhs.size() - 2, rr = rhs.size() - 2, rank = std::max(lr, rr);
    std::size_t a_entry = 0, b_entry = 0, a_stride = 1, b_stride = 1;
    for (std::size_t d = rank; d-- > 0;) {
      const std::size_t ld = d + lr >= rank ? lhs[d + lr - rank] : 1;
      const std::size_t rd = d + rr >= rank ? rhs[d + rr - rank] : 1;
      const std::size_t size = std::max(ld, rd);
      const std::size_t coord = batch % size;
      batch /= size;
      if (ld != 1) a_entry += coord * a_stride;
      if (rd != 1) b_entry += coord * b_stride;
      a_stride *= ld;
      b_stride *= rd;
    }
    const double* ap = a->data() + a_entry * m * k + i * k;
    const double* bp = b->data() + b_entry * k * n + j;
    double acc = 0;
    for (std::size_t p = 0; p < k; ++p) acc += ap[p] * bp[p * n];
    return acc;
  }
};

void check_matmul(const GemmCase& c, DType dtype, std::uint64_t seed) {
  const auto a = dyadic_values(product(c.lhs), seed), b = dyadic_values(product(c.rhs), seed + 1);
  const TensorData ad = float_data(a, c.lhs, dtype), bd = float_data(b, c.rhs, dtype);
  auto run = [&]<class B>() { return B::into_data(B::float_matmul(upload<B>(ad), upload<B>(bd))); };
  const TensorData reference = run.template operator()<backends::NdArray>();
  const std::string what = "float_matmul " + std::string(dtype_name(dtype)) + " " + c.why;
  const std::size_t k = c.lhs.back(), n = c.rhs.back();
  const Bounds bounds = matmul_bounds(dtype, k);
  const MatmulFormula formula{c.lhs, c.rhs, &a, &b};
  // Positions on both sides of every NC-block column boundary of the first rows come from the
  // stride; the seeded ones land anywhere.
  expect_samples(what, reference, sample_positions(reference.shape().num_elements(), n, seed),
                 [&](std::size_t i) { return to_dtype(formula(i), dtype); }, bounds.host);
  expect_backends_match(what, reference, run, bounds);
}

TEST(SizesMatmul, GemmPathsF32) {
  for (const auto& c : gemm_cases(DType::F32)) check_matmul(c, DType::F32, product(c.lhs) + product(c.rhs));
}

TEST(SizesMatmul, GemmPathsF64) {
  for (const auto& c : gemm_cases(DType::F64)) check_matmul(c, DType::F64, product(c.lhs) + product(c.rhs));
}

TEST(SizesMatmul, BatchedProducts) {
  for (DType dtype : {DType::F32, DType::F64}) {
    for (const auto& c : batched_gemm_cases(dtype)) check_matmul(c, dtype, product(c.lhs) * 3 + product(c.rhs));
  }
}

// Operands that are swap_dims copies: lhs from [k, m], rhs from [n, k] (the transposes a user
// gets from x.swap_dims(0, 1) before a product), at the threaded, block-crossing sizes.
TEST(SizesMatmul, SwappedOperands) {
  for (DType dtype : {DType::F32, DType::F64}) {
    const auto& bk = backends::flex::kTuning.gemm(dtype == DType::F64);
    const std::size_t shapes[][3] = {{bk.mc + 1, bk.kc + 1, 2 * bk.nr + 1}, {bk.mr + 1, 17, bk.nc + bk.nr + 1}};
    for (const auto& s : shapes) {
      const std::size_t m = s[0], k = s[1], n = s[2];
      const auto at = dyadic_values(k * m, m + k), bt = dyadic_values(n * k, n + k);
      const TensorData atd = float_data(at, {k, m}, dtype), btd = float_data(bt, {n, k}, dtype);
      auto run = [&]<class B>() {
        return B::into_data(
            B::float_matmul(B::float_swap_dims(upload<B>(atd), 0, 1), B::float_swap_dims(upload<B>(btd), 1, 0)));
      };
      const TensorData reference = run.template operator()<backends::NdArray>();
      const std::string what = "float_matmul " + std::string(dtype_name(dtype)) + " of swap_dims operands (m=" +
                               std::to_string(m) + " k=" + std::to_string(k) + " n=" + std::to_string(n) + ")";
      const Bounds bounds = matmul_bounds(dtype, k);
      expect_samples(what, reference, sample_positions(m * n, n, m), [&](std::size_t flat) {
        const std::size_t i = flat / n, j = flat % n;
        double acc = 0;
        for (std::size_t p = 0; p < k; ++p) acc += at[p * m + i] * bt[j * k + p];
        return to_dtype(acc, dtype);
      }, bounds.host);
      expect_backends_match(what, reference, run, bounds);
    }
  }
}

}  // namespace
}  // namespace crossgrad::sizes
