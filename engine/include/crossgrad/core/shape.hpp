#pragma once
#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

namespace crossgrad {

// Dims of a tensor, outermost first. A scalar has rank 0 ([]) and one element.
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<std::size_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<std::size_t> dims) : dims_(std::move(dims)) {}

  std::size_t rank() const { return dims_.size(); }
  std::size_t operator[](std::size_t i) const { return dims_[i]; }
  const std::vector<std::size_t>& dims() const { return dims_; }

  // Product of dims: 0 when any dim is 0 (whatever the others), else panics shape-overflow when
  // it does not fit in 64 bits. The result never depends on the order of the dims.
  std::size_t num_elements() const;
  // "[2, 3]", "[]" — the form used in every message and in debug renderings.
  std::string to_string() const;

  friend bool operator==(const Shape&, const Shape&) = default;

 private:
  std::vector<std::size_t> dims_;
};

// A half-open range [start, end) of indices along one dim (float_slice).
struct Range {
  std::size_t start = 0;
  std::size_t end = 0;
  friend bool operator==(const Range&, const Range&) = default;
};

}  // namespace crossgrad
