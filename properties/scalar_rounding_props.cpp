// Every op that takes `double` scalars (registry Sig Scalar or Bounds) converts them to the tensor's
// dtype first, as PyTorch does for a Python scalar, and computes with the converted value
// (docs/OPS.md "Scalar arguments"): on an F32 tensor, op(x, s) is op(x, float(s)) bit for bit,
// its values and its gradient. Scalars an F32 cannot hold exactly are where a kernel or a backward
// rule that keeps the double shows (0.1 compares differently with 0.1f, 2^24 + 1 - 1 is not
// 2^24 - 1, 1e-50 is 0 in F32, 3e38 and 1e39 sit at the top of the range); generators elsewhere
// rarely make them, so this property always does. One test per such op, derived from the registry.
#include "gen/backends.hpp"
#include "gen/op_cases.hpp"
#include "support/op_call.hpp"
#include "support/prop.hpp"

#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/expect.hpp>
#include <crossgrad/oracle/registry.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

namespace {

// Scalars F32 cannot hold exactly, and a few it can (so the rounded and unrounded calls also
// meet on ordinary values).
rc::Gen<double> scalar() {
  return rc::gen::elementOf(std::vector<double>{0.1, -0.1, 1e-50, -1e-50, 3e38, -3e38, 16777217.0, -16777217.0, 1e39, -1e39,
                                                1.0 / 3, 0.7, 1e-40, 2.5e-45, 1e-8, 0.0, 2.0, -1.5});
}

float to_f32(double v) { return static_cast<float>(v); }

// Elements near the scalars (their F32 roundings and neighbours), ordinary values and specials.
rc::Gen<double> element_near(const std::vector<double>& scalars) {
  std::vector<double> near{0.0, -0.0, 1.0, -1.0, 0.5, INFINITY, -INFINITY, NAN, 2.0, 16777216.0};
  for (double s : scalars) {
    const float r = to_f32(s);
    near.push_back(r);
    near.push_back(std::nextafter(r, INFINITY));
    near.push_back(std::nextafter(r, -INFINITY));
  }
  return rc::gen::elementOf(near);
}

bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

using gen::show;  // 17 digits, gen/op_cases.hpp

struct Outputs {
  std::vector<double> value;
  std::vector<double> grad;  // tracked runs of Float results
};

Outputs run_op(OpId op, const og::HostArray& x, std::size_t backend, bool tracked, const og::OpArgs& args) {
  Outputs r;
  const og::Outcome o = og::outcome_of([&] {
    const DispatchTensor t = upload(x, backend, tracked);
    const DispatchTensor y = call_op(op, {t}, args);
    const OpKind kind = op_info(op).result;
    r.value = values_of(kind, y);
    if (tracked && kind == OpKind::Float) {
      const auto g = Dispatch::grad(t, Dispatch::backward(y));
      if (g) r.grad = Dispatch::float_into_data(*g).to_f64();
    }
  });
  if (!o.ok()) RC_FAIL(std::string(op_info(op).name) + ": " + og::describe(o));
  return r;
}

class ScalarArguments : public ::testing::TestWithParam<OpId> {};

TEST_P(ScalarArguments, AreRoundedToTheTensorsDTypeFirst) {
  const OpId op = GetParam();
  check_property(
      [op] {
        const bool bounds = op_info(op).sig == OpSig::Bounds;
        og::OpArgs exact, rounded;
        double a = *scalar(), b = *scalar();
        if (bounds && b < a) std::swap(a, b);
        exact.scalar = a;
        exact.min = a;
        exact.max = b;
        exact.alpha = a;
        exact.beta = b;
        rounded.scalar = to_f32(a);
        rounded.min = to_f32(a);
        rounded.max = to_f32(b);
        rounded.alpha = to_f32(a);
        rounded.beta = to_f32(b);
        const std::size_t n = *rc::gen::inRange<std::size_t>(1, 20);
        og::HostArray x{{n}, DType::F32, *rc::gen::container<std::vector<double>>(n, element_near({a, b}))};
        for (double& v : x.values) v = to_f32(v);
        const std::size_t backend = *rc::gen::elementOf(gen::tested_backend_indices());
        const bool tracked = *rc::gen::arbitrary<bool>();
        const Outputs want = run_op(op, x, backend, tracked, rounded);
        const Outputs got = run_op(op, x, backend, tracked, exact);
        const bool two = bounds || op_info(op).sig == OpSig::Affine;
        const std::string where = std::string(op_info(op).name) + " on " + og::all_backends().at(backend).name +
                                  (tracked ? " (tracked)" : "") + " with " + (two ? "scalars " + show(a) + ", " + show(b) : "scalar " + show(a));
        RC_ASSERT(got.value.size() == want.value.size());
        RC_ASSERT(got.grad.size() == want.grad.size());
        for (std::size_t i = 0; i < n; ++i) {
          if (!same(got.value[i], want.value[i])) {
            RC_FAIL(where + ": at x = " + show(x.values[i]) + " the value is " + show(got.value[i]) + ", with the scalar rounded to F32 first " +
                    show(want.value[i]));
          }
        }
        for (std::size_t i = 0; i < got.grad.size(); ++i) {
          if (!same(got.grad[i], want.grad[i])) {
            RC_FAIL(where + ": at x = " + show(x.values[i]) + " the gradient is " + show(got.grad[i]) + ", with the scalar rounded to F32 first " +
                    show(want.grad[i]));
          }
        }
      },
      300);
}

// The registry ops taking double scalars on a float tensor. An int op's scalar becomes an integer
// of its dtype by another rule (docs/OPS.md "Integer arithmetic"), judged exactly by
// ReferenceOps and IntArithmetic.ScalarsBecomeElementsOfTheDtype.
std::vector<OpId> scalar_ops() {
  std::vector<OpId> ids;
  for (const OpInfo& op : kOps) {
    if (op.operand != OpKind::Float) continue;
    if (op.sig == OpSig::Scalar || op.sig == OpSig::Bounds || op.sig == OpSig::Affine) ids.push_back(op.id);
  }
  return ids;
}

INSTANTIATE_TEST_SUITE_P(EveryScalarOp, ScalarArguments, ::testing::ValuesIn(scalar_ops()),
                         [](const ::testing::TestParamInfo<OpId>& info) { return std::string(op_info(info.param).name); });

}  // namespace
