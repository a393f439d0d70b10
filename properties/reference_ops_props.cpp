// Every registry op against the oracle's independent reference (Note [The reference evaluator] in
// oracle/reference_ops.hpp), on every available backend, NdArray included: the differential
// properties compare Flex and Cuda with NdArray, so only this file checks NdArray's values.
//
// One test per registry op (kOps, so a new op gets its test without an edit here). Each case: a
// random small shape (0-size dims where the op allows them), random values with specials (NaN,
// ±inf, ±0, subnormals, values near the dtype's range), F32 or F64, any available backend, plain
// or tracked receiver, and the op's structured arguments, valid or (about one case in five) with
// one invalid argument. The reference says which catalog panic invalid arguments raise, or gives
// the values; exact ops (bound_for(...).exact) must match bit for bit (NaN as a class), others
// within bound_for.
#include "gen/op_cases.hpp"
#include "gen/specs.hpp"
#include "support/op_call.hpp"
#include "support/prop.hpp"

#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/build.hpp>
#include <crossgrad/oracle/expect.hpp>
#include <crossgrad/oracle/numeric.hpp>
#include <crossgrad/oracle/reference_ops.hpp>
#include <crossgrad/oracle/render.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;
using gen::describe;
using gen::show;

namespace {

constexpr int kCasesPerOp = 200;
using Dims = std::vector<std::size_t>;


// ---- running through Dispatch -----------------------------------------------------------------

// upload and call_op: support/op_call.hpp.

TensorData download(OpKind kind, const DispatchTensor& t) {
  switch (kind) {
    case OpKind::Float: return Dispatch::float_into_data(t);
    case OpKind::Int: return Dispatch::int_into_data(t);
    case OpKind::Bool: return Dispatch::bool_into_data(t);
  }
  throw std::logic_error("download: unknown kind");
}

// Bit for bit, NaN as a class (which NaN payload an op returns is not fixed by C++).
bool same_bits(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
}

void check_case(const gen::OpCase& c) {
  const og::ReferenceResult want = og::reference_op(c.op, c.operands, c.args);
  RC_TAG(want.panic_id ? *want.panic_id : std::string("ok"));
  TensorData got_data = TensorData::from_f64({}, Shape{Dims{0}});
  const og::Outcome got = og::outcome_of([&] {
    std::vector<DispatchTensor> t;
    for (const og::HostArray& h : c.operands) t.push_back(upload(h, c.backend, c.tracked));
    got_data = download(want.kind, call_op(c.op, t, c.args));
  });
  const std::string where = describe(c);
  if (want.panic_id) {
    if (got.panic_id != want.panic_id) {
      RC_FAIL(where + "\n  expected panic " + *want.panic_id + ", got " + og::describe(got));
    }
    return;
  }
  if (!got.ok()) RC_FAIL(where + "\n  expected a value " + show(want.value) + ", got " + og::describe(got));
  const og::HostArray& w = want.value;
  if (got_data.shape().dims() != w.shape || got_data.dtype() != w.dtype) {
    RC_FAIL(where + "\n  result " + og::render_dtype(got_data.dtype()) + og::render_shape(got_data.shape().dims()) + ", reference " +
            og::render_dtype(w.dtype) + og::render_shape(w.shape));
  }
  std::vector<double> g;
  if (want.kind == OpKind::Bool) {
    for (bool b : got_data.to_bool()) g.push_back(b ? 1 : 0);
  } else if (want.kind == OpKind::Int) {
    for (std::int64_t v : got_data.to_i64()) g.push_back(static_cast<double>(v));
  } else {
    g = got_data.to_f64();
  }
  const double magnitude = og::reference_magnitude(c.op, c.operands, c.args);
  const DType dtype = c.operands.empty() ? c.dtype : c.operands[0].dtype;
  const og::Bound bound = og::bound_for_receiver(c.op, dtype, og::reference_reduction_length(c.op, c.operands, c.args),
                                                 magnitude, c.operands.empty() ? std::vector<double>{} : c.operands[0].values);
  if (want.kind == OpKind::Int) {  // every int64 exactly (doubles round beyond 2^53)
    const std::vector<std::int64_t> want_ints = og::int_values(w), got_ints = got_data.to_i64();
    for (std::size_t i = 0; i < got_ints.size(); ++i) {
      if (want_ints[i] != got_ints[i]) {
        RC_FAIL(where + "\n  element " + std::to_string(i) + " is " + std::to_string(got_ints[i]) + ", reference " +
                std::to_string(want_ints[i]) + " (exact)\n  result    " + show(og::int_array(w.shape, got_data.dtype(), got_ints)) +
                "\n  reference " + show(w));
      }
    }
    return;
  }
  if (bound.exact || want.kind != OpKind::Float) {
    for (std::size_t i = 0; i < g.size(); ++i) {
      if (!same_bits(w.values[i], g[i])) {
        RC_FAIL(where + "\n  element " + std::to_string(i) + " is " + show(g[i]) + ", reference " + show(w.values[i]) +
                " (exact: bit for bit)\n  result    " + show(og::HostArray{w.shape, w.dtype, g}) + "\n  reference " + show(w));
      }
    }
    return;
  }
  const TensorData ref = w.dtype == DType::F32 ? TensorData::from_f32(std::vector<float>(w.values.begin(), w.values.end()), Shape(w.shape))
                                               : TensorData::from_f64(w.values, Shape(w.shape));
  if (const auto failure = og::compare_values(ref, got_data, bound, "value")) {
    RC_FAIL(where + "\n  " + *failure + "\n  result    " + show(og::HostArray{w.shape, w.dtype, g}) + "\n  reference " + show(w));
  }
}

class ReferenceOps : public ::testing::TestWithParam<OpId> {};

std::vector<OpId> registry_ops() {
  std::vector<OpId> ops;
  for (const OpInfo& info : kOps) ops.push_back(info.id);
  return ops;
}

}  // namespace

TEST_P(ReferenceOps, EngineEqualsReference) {
  const OpId op = GetParam();
  check_property([op] { check_case(gen::op_case(op)); }, kCasesPerOp);
}

INSTANTIATE_TEST_SUITE_P(Registry, ReferenceOps, ::testing::ValuesIn(registry_ops()),
                         [](const ::testing::TestParamInfo<OpId>& info) { return std::string(op_info(info.param).name); });
