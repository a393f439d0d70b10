// Every registry op on the engine's CPU and GPU backends (NdArray, Flex, Cuda where available)
// against PyTorch: ATen's op for the value, PyTorch's own autograd for the gradients (Note [PyTorch
// is the second opinion], oracle/torch/). One test per op (kOps: a new op is judged with no edit
// here), over the same random cases as the reference-evaluator properties (gen/op_cases.hpp):
// specials, ties, empty dims, broadcasting, F32 and F64, and every other case with ATen's operands
// given as non-contiguous views. Cases with an invalid argument (the oracle's reference names a
// catalog panic) are counted and not compared. An element may disagree only where a documented
// difference (docs/OPS.md, "Documented differences from PyTorch") recognises it; anything else
// fails, naming the op, the inputs and both values. At exit the counts per op are printed.
#include "gen/op_cases.hpp"
#include "support/op_call.hpp"
#include "support/prop.hpp"

#include <crossgrad/crossgrad.hpp>
#include <crossgrad/oracle/numeric.hpp>
#include <crossgrad/oracle/pytorch_differences.hpp>
#include <crossgrad/oracle/reference_ops.hpp>
#include <crossgrad/oracle/registry.hpp>
#include <crossgrad/oracle/render.hpp>
#include <crossgrad/oracle/torch_judge.hpp>
#include <crossgrad/oracle/torch_reference.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace crossgrad;
using namespace crossgrad::properties;
namespace og = crossgrad::oracle;

namespace {

constexpr int kCasesPerOp = 500;

std::map<std::string, og::TorchTally>& counts() {
  static std::map<std::string, og::TorchTally> c;
  return c;
}

// The engine backends this check judges: the reference and the kernels written here.
std::vector<std::size_t> judged_backends() {
  std::vector<std::size_t> out;
  for (const og::BackendRef& b : og::all_backends()) {
    if (b.available && (b.name == "NdArray" || b.name == "Flex" || b.name == "Cuda")) out.push_back(b.index);
  }
  return out;
}

// The engine: the op, then sum(result * cotangent) backward, on a tracked device.
og::EngineAnswer run_engine(const gen::OpCase& c, const og::HostArray* cotangent, OpKind result) {
  og::EngineAnswer r;
  std::vector<DispatchTensor> t;
  for (const og::HostArray& h : c.operands) t.push_back(upload(h, c.backend, c.tracked));
  const DispatchTensor y = call_op(c.op, t, c.args);
  r.value = values_of(result, y);
  r.gradients.resize(c.operands.size());
  if (!cotangent) return r;
  const DispatchTensor ct = upload(*cotangent, c.backend, true);
  const Gradients grads = Dispatch::backward(Dispatch::float_sum(Dispatch::float_mul(y, ct)));
  for (std::size_t i = 0; i < t.size(); ++i) {
    const og::HostArray& h = c.operands[i];
    if (h.dtype != DType::F32 && h.dtype != DType::F64) continue;
    const auto g = Dispatch::grad(t[i], grads);
    r.gradients[i] = og::HostArray{h.shape, h.dtype,
                                   g ? Dispatch::float_into_data(*g).to_f64() : std::vector<double>(og::element_count(h.shape), 0.0)};
  }
  return r;
}

void check_case(gen::OpCase c, std::size_t case_index) {
  const std::vector<std::size_t> backends = judged_backends();
  c.backend = backends[case_index % backends.size()];
  const OpInfo& info = op_info(c.op);
  // Tracked wherever a backward rule exists; plain for the scatters with Mul, Min or Max, which
  // have none (their tracked panic is judged by the op_args and reference properties).
  if (info.rule == OpRule::Backward) c.tracked = og::differentiable(c.op, c.args);
  c.args.tracked = c.tracked;
  const bool strided = case_index % 2 == 1;
  const auto failed = og::judge_against_torch(
      c.op, c.operands, c.args, strided, *rc::gen::arbitrary<std::uint64_t>(),
      [&](const og::HostArray* cotangent) { return run_engine(c, cotangent, info.result); },
      counts()[std::string(info.name)]);
  if (failed) RC_FAIL(gen::describe(c) + (strided ? "\n  (ATen operands non-contiguous)" : "") + "\n  " + *failed);
}

class TorchDifferential : public ::testing::TestWithParam<OpId> {};

std::vector<OpId> registry_ops() {
  std::vector<OpId> ops;
  for (const OpInfo& info : kOps) ops.push_back(info.id);
  return ops;
}

// Prints the counts once every test has run.
class CountReport : public ::testing::Environment {
 public:
  void TearDown() override {
    std::printf("torch differential (ATen threads %d): op: cases compared, invalid (catalog panic, not compared), elements; excused per documented difference\n%s",
                og::torch_threads(), og::render_torch_tallies(counts(), "torch differential: ").c_str());
  }
};
const auto* const kReport = ::testing::AddGlobalTestEnvironment(new CountReport);

// The rows of docs/OPS.md's "Documented differences from PyTorch" table: their ids.
std::set<std::string> documented_ids() {
  std::ifstream in(std::string(CROSSGRAD_SOURCE_DIR) + "/docs/OPS.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string md = ss.str();
  const std::size_t begin = md.find("## Documented differences from PyTorch");
  std::set<std::string> ids;
  if (begin == std::string::npos) return ids;
  const std::size_t end = md.find("\n## ", begin + 1);
  const std::string section = md.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  const std::regex row(R"(\n\| `([a-z0-9-]+)` \|)");
  for (std::sregex_iterator it(section.begin(), section.end(), row), e; it != e; ++it) ids.insert((*it)[1]);
  return ids;
}

}  // namespace

TEST_P(TorchDifferential, EngineEqualsPyTorch) {
  const OpId op = GetParam();
  std::size_t index = 0;
  check_property([op, &index] { check_case(gen::op_case(op), index++); }, kCasesPerOp);
}

INSTANTIATE_TEST_SUITE_P(Registry, TorchDifferential, ::testing::ValuesIn(registry_ops()),
                         [](const ::testing::TestParamInfo<OpId>& info) { return std::string(op_info(info.param).name); });

// extreme-signed-zero-tie excuses a max/min (or its index) only where the slice's extreme is a zero
// held with both signs and the two answers are those zeros.
TEST(TorchDifferential, SignedZeroTieIsExcusedOnlyWhereTheSliceHoldsBothZeros) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // [3, 4], reduced over dim 0: columns {100, -0, 0}, {1, 2, 3}, {-0, 5, 7}, {0, nan, -0}.
  const std::vector<og::HostArray> x{{{3, 4}, DType::F32, {100, 1, -0.0, 0, -0.0, 2, 5, nan, 0, 3, 7, -0.0}}};
  og::OpArgs args;
  args.dim = 0;
  const auto excused = [&](OpId op, std::size_t column, double ours, double theirs) {
    const og::Disagreement d{op, x, args, -1, column, 0, ours, theirs};
    return og::documented_difference(d) == "extreme-signed-zero-tie";
  };
  EXPECT_TRUE(excused(OpId::float_min_dim, 0, -0.0, 0.0));
  EXPECT_TRUE(excused(OpId::float_argmin, 0, 1, 2));
  EXPECT_FALSE(excused(OpId::float_argmin, 0, 0, 2));     // index 0 holds 100, not a zero
  EXPECT_FALSE(excused(OpId::float_max_dim, 0, -0.0, 0.0));  // the maximum is 100
  EXPECT_FALSE(excused(OpId::float_min_dim, 1, 1, 2));      // no zero
  EXPECT_FALSE(excused(OpId::float_min_dim, 2, -0.0, 0.0));  // only -0 in the slice
  EXPECT_FALSE(excused(OpId::float_max_dim, 3, 0.0, -0.0));  // a NaN is the extreme
  EXPECT_FALSE(excused(OpId::float_sum_dim, 0, -0.0, 0.0));
}

// layer-norm-degenerate-variance excuses a non-finite disagreement only where a row's variance
// plus epsilon is below the dtype's smallest normal number (CI drew x [0, 1e-30] in F32, epsilon 0:
// crossgrad's weight gradient -inf, PyTorch's NaN).
TEST(TorchDifferential, LayerNormDegenerateVarianceIsExcusedOnlyForSuchRows) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const auto excused = [&](std::vector<double> x, DType dtype, double epsilon, double ours, double theirs) {
    const std::vector<og::HostArray> operands{{{2}, dtype, std::move(x)}, {{2}, dtype, {0, 0}}, {{2}, dtype, {0, -0.0}}};
    og::OpArgs args;
    args.scalar = epsilon;
    const og::Disagreement d{OpId::layer_norm, operands, args, 1, 0, 1, ours, theirs};
    return og::documented_difference(d) == "layer-norm-degenerate-variance";
  };
  EXPECT_TRUE(excused({0, 1e-30}, DType::F32, 0, -inf, nan));
  EXPECT_TRUE(excused({3, 3}, DType::F64, 0, nan, inf));
  EXPECT_FALSE(excused({0, 1e-30}, DType::F32, 1e-5, -inf, nan));  // epsilon keeps rstd finite
  EXPECT_FALSE(excused({0, 1e-10}, DType::F64, 0, -inf, nan));     // a variance F64 holds as a normal number
  EXPECT_FALSE(excused({0, 1e-30}, DType::F32, 0, -3, nan));       // one result finite: compared as usual
}

// cumprod-single-element-lane excuses only a gradient along a dim of size 1 at a non-finite x,
// where crossgrad passes the cotangent and PyTorch gives NaN.
TEST(TorchDifferential, CumprodSingleElementLaneIsExcusedOnlyAtNonFiniteFactors) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<og::HostArray> column{{{3, 1}, DType::F32, {inf, 2, nan}}};
  const std::vector<og::HostArray> row{{{1, 3}, DType::F32, {inf, 2, nan}}};
  og::OpArgs args;
  args.dim = 1;
  const auto excused = [&](const std::vector<og::HostArray>& x, int output, std::size_t at, double ours, double theirs) {
    const og::Disagreement d{OpId::float_cumprod, x, args, output, at, 0.5, ours, theirs};
    return og::documented_difference(d) == "cumprod-single-element-lane";
  };
  EXPECT_TRUE(excused(column, 0, 0, 0.5, nan));
  EXPECT_TRUE(excused(column, 0, 2, 0.5, nan));
  EXPECT_FALSE(excused(column, 0, 1, 0.5, nan));   // a finite factor
  EXPECT_FALSE(excused(column, -1, 0, 0.5, nan));  // a value, not a gradient
  EXPECT_FALSE(excused(column, 0, 0, 0.25, nan));  // not the cotangent
  EXPECT_FALSE(excused(row, 0, 0, 0.5, nan));      // the lane has three elements
}

// cumprod-zero-beside-non-finite excuses a NaN from PyTorch only in a lane holding both a zero and
// a non-finite value.
TEST(TorchDifferential, CumprodZeroBesideNonFiniteIsExcusedOnlyInSuchLanes) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // [2, 3] along dim 1: lanes {-0, inf, -0} and {1, inf, 2}.
  const std::vector<og::HostArray> x{{{2, 3}, DType::F64, {-0.0, inf, -0.0, 1, inf, 2}}};
  og::OpArgs args;
  args.dim = 1;
  const auto excused = [&](int output, std::size_t at, double ours, double theirs) {
    const og::Disagreement d{OpId::float_cumprod, x, args, output, at, 1, ours, theirs};
    return og::documented_difference(d) == "cumprod-zero-beside-non-finite";
  };
  EXPECT_TRUE(excused(0, 0, inf, nan));
  EXPECT_TRUE(excused(0, 2, 0, nan));
  EXPECT_FALSE(excused(0, 3, inf, nan));   // no zero in the second lane
  EXPECT_FALSE(excused(0, 0, inf, -inf));  // PyTorch's answer is not NaN
  EXPECT_FALSE(excused(-1, 0, 0, nan));    // a value, not a gradient
}

// hard-sigmoid-clamp-gradient excuses PyTorch's -0 or NaN only where the clamp is active and
// crossgrad gives +0, and PyTorch's 0 where alpha x + beta is NaN.
TEST(TorchDifferential, HardSigmoidClampGradientIsExcusedOnlyAtTheClamp) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<og::HostArray> x{{{3}, DType::F32, {-1, 0.25, 5}}};
  og::OpArgs args;
  args.alpha = inf;
  args.beta = 1;
  const auto excused = [&](const og::OpArgs& a, int output, std::size_t at, double ours, double theirs) {
    const og::Disagreement d{OpId::hard_sigmoid, x, a, output, at, 1, ours, theirs};
    return og::documented_difference(d) == "hard-sigmoid-clamp-gradient";
  };
  EXPECT_TRUE(excused(args, 0, 0, 0.0, nan));    // -inf + 1: clamped at 0
  EXPECT_TRUE(excused(args, 0, 2, 0.0, nan));    // inf: clamped at 1
  EXPECT_FALSE(excused(args, 0, 0, -0.0, nan));  // crossgrad's zero is +0
  EXPECT_FALSE(excused(args, -1, 0, 0.0, nan));  // a value, not a gradient
  og::OpArgs inside;
  inside.alpha = -0.5;
  inside.beta = 0.5;
  EXPECT_FALSE(excused(inside, 0, 1, 0.0, -0.0));  // 0.375: inside the clamp
  EXPECT_TRUE(excused(inside, 0, 2, 0.0, -0.0));   // -2: clamped, PyTorch's 0 * -0.5
  og::OpArgs nan_beta;
  nan_beta.alpha = 1e30;
  nan_beta.beta = nan;
  EXPECT_TRUE(excused(nan_beta, 0, 1, 1e30, 0.0));    // NaN: crossgrad passes g * alpha
  EXPECT_FALSE(excused(nan_beta, 0, 1, 1e30, 2.0));   // PyTorch's answer is not 0 * alpha
}

// Each predicate that may excuse a disagreement is a row of the docs table, and each row a predicate.
TEST(TorchDifferential, DocumentedDifferencesAreTheTableInOpsMd) {
  std::set<std::string> in_code;
  for (const og::PyTorchDifference& d : og::pytorch_differences()) in_code.insert(std::string(d.id));
  EXPECT_EQ(in_code, documented_ids()) << "docs/OPS.md \"Documented differences from PyTorch\" and "
                                          "oracle/torch/src/pytorch_differences.cpp must list the same ids";
}
