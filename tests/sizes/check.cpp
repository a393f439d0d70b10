#include "check.hpp"

#include <crossgrad/core/host_buffer.hpp>

#include <cmath>
#include <cstring>

namespace crossgrad::sizes {

double to_dtype(double v, DType dtype) { return dtype == DType::F32 ? static_cast<double>(static_cast<float>(v)) : v; }

Bound exact_bound() { return {0, 0, true}; }

Bound library_bound(Op op, DType dtype) { return oracle::bound_for(op, dtype, 1, 1.0); }

Bound accumulation_bound(Op op, DType dtype, DType accumulator, std::size_t terms, double max_term,
                         double resolution) {
  const int significand_bits = accumulator == DType::F64 ? 53 : 24;
  // Every partial sum is a multiple of `resolution` no larger than terms * max_term: exact when
  // that many multiples of `resolution` fit the significand.
  const double largest = static_cast<double>(terms) * max_term / resolution;
  if (largest <= std::ldexp(1.0, significand_bits)) return exact_bound();
  return oracle::bound_for(op, dtype, terms, max_term);
}

Bounds sum_bounds(Op op, DType dtype, std::size_t terms) {
  const double resolution = 1.0 / 8;  // data.hpp: multiples of 1/8
  return {accumulation_bound(op, dtype, DType::F64, terms, kMaxSigned, resolution),
          accumulation_bound(op, dtype, dtype, terms, kMaxSigned, resolution)};
}

Bounds double_accumulation_bounds(Op op, DType dtype, std::size_t terms, double sum_abs, double max_abs) {
  const double n = static_cast<double>(terms == 0 ? 1 : terms);
  const Bound host{2 * n * oracle::epsilon_of(DType::F64) * sum_abs, 2 * oracle::epsilon_of(dtype), false};
  return {host, oracle::bound_for(op, dtype, terms, max_abs)};
}

Bounds matmul_bounds(DType dtype, std::size_t k) {
  const double resolution = 1.0 / 64, max_term = kMaxSigned * kMaxSigned;
  const Bound b = accumulation_bound(Op::float_matmul, dtype, dtype, k, max_term, resolution);
  return {b, b};
}

void scrub_released_blocks(const Shape& shape, DType dtype) {
  std::vector<HostBuffer> held;  // taken together, so that every kept block of the size is scrubbed
  for (std::size_t i = 0; i <= kHostBufferCacheLimits.max_blocks_per_size; ++i) {
    held.push_back(HostBuffer::allocate(shape, dtype));
    // The tensor's bytes only: the spare bytes after them hold the guard pattern, checked when the
    // block is released (Note [Guard bytes past every buffer in tests]).
    std::memset(held.back().data(), 0xFF, held.back().size());
  }
}

void report(const std::string& message, const std::source_location& where) {
  ADD_FAILURE_AT(where.file_name(), static_cast<int>(where.line())) << message;
}

void expect_samples(const std::string& what, const TensorData& actual, const std::vector<std::size_t>& positions,
                    const std::function<double(std::size_t)>& formula, const Bound& bound,
                    std::source_location where) {
  const std::vector<double> got = actual.to_f64();
  for (std::size_t i : positions) {
    if (i >= got.size()) {
      report(what + " (NdArray vs formula): position " + std::to_string(i) + " outside " +
                 std::to_string(got.size()) + " elements",
             where);
      return;
    }
    const TensorData want_one = TensorData::from_f64({formula(i)}, Shape{1});
    const TensorData got_one = TensorData::from_f64({got[i]}, Shape{1});
    if (auto diff = oracle::compare_values(want_one, got_one, bound,
                                           what + " (NdArray vs formula) at flat index " + std::to_string(i))) {
      report(*diff, where);
      return;
    }
  }
}

}  // namespace crossgrad::sizes
