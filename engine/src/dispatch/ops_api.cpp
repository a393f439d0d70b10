// Float ops: one line each, naming no backend (Note [Dispatch arms]).
#include "dispatch/dispatch_arms.hpp"

#include <crossgrad/dispatch/dispatch.hpp>

namespace crossgrad {
using namespace dispatch_detail;

#define CROSSGRAD_BINARY(op) \
  DispatchTensor Dispatch::op(const DispatchTensor& a, const DispatchTensor& b) { \
    return zip_float(#op, a, b, []<class Be>(const auto& x, const auto& y) { return Be::op(x, y); }); \
  }
#define CROSSGRAD_UNARY(op) \
  DispatchTensor Dispatch::op(const DispatchTensor& t) { \
    return map_float(#op, t, []<class Be>(const auto& x) { return Be::op(x); }); \
  }
#define CROSSGRAD_WITH_ARG(op, Arg) \
  DispatchTensor Dispatch::op(const DispatchTensor& t, Arg arg) { \
    return map_float(#op, t, [&]<class Be>(const auto& x) { return Be::op(x, arg); }); \
  }

CROSSGRAD_BINARY(float_add)
CROSSGRAD_BINARY(float_sub)
CROSSGRAD_BINARY(float_mul)
CROSSGRAD_BINARY(float_div)
CROSSGRAD_BINARY(float_matmul)
CROSSGRAD_UNARY(float_neg)
CROSSGRAD_UNARY(float_exp)
CROSSGRAD_UNARY(float_log)
CROSSGRAD_UNARY(float_sqrt)
CROSSGRAD_UNARY(float_tanh)
CROSSGRAD_UNARY(relu)
CROSSGRAD_UNARY(sigmoid)
CROSSGRAD_UNARY(float_sum)
CROSSGRAD_UNARY(float_mean)
CROSSGRAD_WITH_ARG(float_powf_scalar, double)
CROSSGRAD_WITH_ARG(float_add_scalar, double)
CROSSGRAD_WITH_ARG(float_mul_scalar, double)
CROSSGRAD_WITH_ARG(float_sum_dim, std::size_t)
CROSSGRAD_WITH_ARG(float_mean_dim, std::size_t)
CROSSGRAD_WITH_ARG(float_reshape, const Shape&)
CROSSGRAD_WITH_ARG(float_cast, DType)

DispatchTensor Dispatch::float_swap_dims(const DispatchTensor& t, std::size_t d0, std::size_t d1) {
  return map_float("float_swap_dims", t, [&]<class Be>(const auto& x) { return Be::float_swap_dims(x, d0, d1); });
}

}  // namespace crossgrad
