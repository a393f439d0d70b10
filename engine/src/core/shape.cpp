#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape.hpp>

namespace crossgrad {

std::size_t Shape::num_elements() const {
  // Any zero dim makes the product 0 whatever the other dims are, so look for one before
  // multiplying: otherwise [2^40, 2^40, 0] would overflow on its way to 0 while [0, 2^40, 2^40]
  // would not (NumPy and PyTorch accept both as empty).
  for (std::size_t d : dims_) {
    if (d == 0) return 0;
  }
  std::size_t n = 1;
  for (std::size_t d : dims_) {
    if (__builtin_mul_overflow(n, d, &n)) panic(PanicId::ShapeOverflow, {{"shape", to_string()}});
  }
  return n;
}

std::string Shape::to_string() const {
  std::string s = "[";
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    if (i != 0) s += ", ";
    s += std::to_string(dims_[i]);
  }
  s += "]";
  return s;
}

}  // namespace crossgrad
