#include <crossgrad/core/panic.hpp>
#include <crossgrad/core/shape.hpp>

namespace crossgrad {

std::size_t Shape::num_elements() const {
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
